/*
 * html_sections: the page's text sections: summary cards, suggestions,
 * cross-rank statistics with stragglers, and inputs with their warnings.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

static const struct report_stat *stat_of(const struct report *r, const char *metric)
{
	for (size_t i = 0; r->nr_ranks > 1 && i < r->nr_cross_rank; i++)
		if (!strcmp(r->cross_rank[i].metric, metric))
			return &r->cross_rank[i];
	return NULL;
}

static enum html_kind metric_kind(const char *m)
{
	size_t n = strlen(m);

	if (!strncmp(m, "memory:", 7))
		return HK_BYTES;
	if (n > 3 && !strcmp(m + n - 3, "_ns"))
		return HK_NS;
	if (strstr(m, "utilization") || strstr(m, "overlap") || strstr(m, "share"))
		return HK_SHARE;
	if (!strcmp(m, "events.total") || !strcmp(m, "gpu.kernels") ||
	    !strcmp(m, "throughput.blocks"))
		return HK_COUNT;
	return HK_NUM;
}

static void card_begin(struct page *p, const char *label)
{
	buf_printf(p->b, "<div class=\"card\"><div class=\"label\">%s</div>", label);
}

/* A card with the median over ranks and where min and max are. */
static void card_stat(struct page *p, const char *label, const struct report_stat *st)
{
	struct buf key;
	enum html_kind k = metric_kind(st->metric);

	buf_init(&key);
	card_begin(p, label);
	buf_adds(&key, "[\"cross_rank\",");
	html_key_str(&key, st->metric);
	buf_adds(&key, ",\"median\"]");
	html_dbl(p, "div class=\"value\"", key.data, NULL, st->median, k);
	buf_adds(p->b, "<div class=\"sub\">median of ranks; min ");
	buf_reset(&key);
	buf_adds(&key, "[\"cross_rank\",");
	html_key_str(&key, st->metric);
	buf_adds(&key, ",\"min\"]");
	html_dbl(p, "span", key.data, NULL, st->min, k);
	buf_printf(p->b, " (rank %lld), max ", (long long)st->min_rank);
	buf_reset(&key);
	buf_adds(&key, "[\"cross_rank\",");
	html_key_str(&key, st->metric);
	buf_adds(&key, ",\"max\"]");
	html_dbl(p, "span", key.data, NULL, st->max, k);
	buf_printf(p->b, " (rank %lld)</div></div>\n", (long long)st->max_rank);
	buf_release(&key);
}

/* A card with one rank's value; i < 0: none. */
static void card_rank(struct page *p, const char *label, long i, const char *field, double v,
		      enum html_kind k, const char *sub)
{
	char key[160];

	card_begin(p, label);
	if (i < 0) {
		buf_adds(p->b, "<div class=\"value\">\xe2\x80\x94</div>");
	} else {
		snprintf(key, sizeof(key), "[\"ranks\",%ld,%s]", i, field);
		html_dbl(p, "div class=\"value\"", key, NULL, v, k);
	}
	if (sub)
		buf_printf(p->b, "<div class=\"sub\">%s</div>", sub);
	buf_adds(p->b, "</div>\n");
}

/* Cards for a metric: statistics over ranks, or the one rank's value. */
static void card(struct page *p, const char *label, const char *metric, const char *field,
		 double (*get)(const struct report_rank *))
{
	const struct report *r = p->r;
	const struct report_stat *st = stat_of(r, metric);

	if (st && st->count > 0)
		card_stat(p, label, st);
	else if (r->nr_ranks == 1 && r->ranks[0].analysed)
		card_rank(p, label, 0, field, get(&r->ranks[0]), metric_kind(metric), NULL);
	else
		card_rank(p, label, -1, NULL, 0, HK_NUM, NULL);
}

static double get_span(const struct report_rank *rk)
{
	return (double)rk->span_ns;
}

static double get_fps(const struct report_rank *rk)
{
	return rk->has_throughput ? rk->throughput.fps : NAN;
}

static double get_bps(const struct report_rank *rk)
{
	return rk->has_throughput ? rk->throughput.bps : NAN;
}

static double get_util(const struct report_rank *rk)
{
	return rk->gpu.utilization;
}

void html_summary(struct page *p)
{
	const struct report *r = p->r;
	long rtf_rank = -1, mem_rank = -1, mem_dev = -1;
	double rtf = NAN;
	int64_t peak = -1;
	char field[96];

	buf_adds(p->b, "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n");
	card_begin(p, "ranks");
	html_i64(p, "div class=\"value\"", "[\"ranks\"]", NULL, (int64_t)r->nr_ranks, HK_COUNT);
	buf_adds(p->b, "</div>\n");
	card(p, "span", "span_ns", "\"span_ns\"", get_span);
	card(p, "frames per second", "throughput.fps", "\"throughput\",\"fps\"", get_fps);
	card(p, "blocks per second", "throughput.bps", "\"throughput\",\"bps\"", get_bps);
	card(p, "GPU utilization", "gpu.utilization", "\"gpu\",\"utilization\"", get_util);
	/* the slowest rank decides whether the run can stream */
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		if (!rk->analysed || !rk->has_throughput || !(rk->throughput.target_fps > 0) ||
		    !isfinite(rk->throughput.realtime_factor))
			continue;
		if (rtf_rank < 0 || rk->throughput.realtime_factor < rtf) {
			rtf = rk->throughput.realtime_factor;
			rtf_rank = (long)i;
		}
	}
	card_rank(p, "real-time factor", rtf_rank, "\"throughput\",\"realtime_factor\"", rtf,
		  HK_NUM, rtf_rank >= 0 ? "lowest rank; below 1 cannot stream" :
					  "needs --frames and --target-fps");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t m = 0; rk->analysed && m < rk->nr_memory; m++) {
			if (rk->memory[m].device < 0 || rk->memory[m].peak_allocated <= peak)
				continue;
			peak = rk->memory[m].peak_allocated;
			mem_rank = (long)i;
			mem_dev = (long)m;
		}
	}
	snprintf(field, sizeof(field), "\"memory\",%ld,\"peak_allocated\"", mem_dev);
	card_rank(p, "peak GPU memory", mem_rank, field, (double)peak, HK_BYTES,
		  mem_rank >= 0 ? "allocated, highest device of all ranks" : "no [memory] events");
	buf_adds(p->b, "</div>\n</section>\n");
}

static const char *const severity[] = { "low", "medium", "high" };

#define SUGG_FULL 3	/* suggestions of one rule shown in full; the rest as rows */

static void suggestion(struct page *p, size_t i)
{
	const struct report_suggestion *s = &p->r->suggestions[i];
	const char *sev = severity[s->severity];
	enum html_kind k = metric_kind(s->metric);
	char key[96];

	buf_printf(p->b, "<div class=\"sugg %s\"><span class=\"sev sev-%s\">%s</span> ", sev, sev,
		   sev);
	html_text(p, s->id);
	if (s->rank >= 0)
		buf_printf(p->b, " \xc2\xb7 rank %lld", (long long)s->rank);
	else
		buf_adds(p->b, " \xc2\xb7 all ranks");
	buf_adds(p->b, "<p>");
	html_text(p, s->message);
	buf_adds(p->b, "</p><p class=\"muted\">evidence: <code>");
	html_text(p, s->metric);
	buf_adds(p->b, "</code> = ");
	snprintf(key, sizeof(key), "[\"suggestions\",%zu,\"value\"]", i);
	html_dbl(p, "span", key, NULL, s->value, k);
	buf_adds(p->b, ", threshold ");
	snprintf(key, sizeof(key), "[\"suggestions\",%zu,\"threshold\"]", i);
	html_dbl(p, "span", key, NULL, s->threshold, k);
	buf_adds(p->b, "</p></div>\n");
}

/* The same rule on more ranks: one row each, so 1,000 ranks stay readable. */
static void suggestion_rows(struct page *p, size_t first, size_t end)
{
	const struct report *r = p->r;
	const struct report_suggestion *s0 = &r->suggestions[first];
	size_t more = 0;

	for (size_t i = first; i < end; i++)
		more += !strcmp(r->suggestions[i].id, s0->id) &&
			r->suggestions[i].severity == s0->severity;
	buf_printf(p->b, "<p>The same on %zu more rank%s:</p>\n<div class=\"wrap\"><table><tr>"
			 "<th>rank</th><th>", more, more == 1 ? "" : "s");
	html_text(p, s0->metric);
	buf_adds(p->b, "</th></tr>\n");
	for (size_t i = first; i < end; i++) {
		const struct report_suggestion *s = &r->suggestions[i];
		char key[96];

		if (strcmp(s->id, s0->id) || s->severity != s0->severity)
			continue;
		snprintf(key, sizeof(key), "[\"suggestions\",%zu,\"rank\"]", i);
		buf_adds(p->b, "<tr>");
		if (s->rank >= 0)
			html_i64(p, "td", key, NULL, s->rank, HK_COUNT);
		else
			html_dbl(p, "td", key, NULL, NAN, HK_COUNT);
		snprintf(key, sizeof(key), "[\"suggestions\",%zu,\"value\"]", i);
		html_dbl(p, "td", key, NULL, s->value, metric_kind(s->metric));
		buf_adds(p->b, "</tr>\n");
	}
	buf_adds(p->b, "</table></div>\n");
}

/*
 * Suggestions come ordered by severity and rule; the first SUGG_FULL of a
 * (severity, rule) run are shown whole, and the rest of the run as rows.
 */
void html_suggestions(struct page *p)
{
	const struct report *r = p->r;

	buf_adds(p->b, "<section id=\"suggestions\">\n<h2>Suggestions</h2>\n");
	if (!r->nr_suggestions)
		buf_adds(p->b, "<p class=\"muted\">No rule fired: nothing stands out.</p>\n");
	for (size_t i = 0; i < r->nr_suggestions;) {
		size_t end = i + 1;

		while (end < r->nr_suggestions && !strcmp(r->suggestions[end].id, r->suggestions[i].id) &&
		       r->suggestions[end].severity == r->suggestions[i].severity)
			end++;
		for (size_t j = i; j < end && j < i + SUGG_FULL; j++)
			suggestion(p, j);
		if (end > i + SUGG_FULL)
			suggestion_rows(p, i + SUGG_FULL, end);
		i = end;
	}
	buf_adds(p->b, "</section>\n");
}

void html_cross_rank(struct page *p)
{
	const struct report *r = p->r;
	static const char *const col[] = { "min", "median", "avg", "max", "stddev" };
	struct buf key;

	buf_adds(p->b, "<section id=\"cross-rank\">\n<h2>Across ranks</h2>\n");
	if (r->nr_ranks < 2) {
		buf_adds(p->b, "<p class=\"muted\">One rank: nothing to compare.</p>\n</section>\n");
		return;
	}
	if (r->straggler_rule && !strcmp(r->straggler_rule, "collectives")) {
		/* the ranks the others wait for have their own section */
		buf_adds(p->b, "<p>Stragglers: see <a href=\"#collectives\">Who waits for "
			       "whom</a>.</p>\n");
	} else if (r->nr_stragglers) {
		buf_adds(p->b, "<h3>Stragglers</h3>\n<table><tr><th>rank</th><th>metric</th>"
			       "<th>value</th><th>median of ranks</th><th>excess</th></tr>\n");
		for (size_t i = 0; i < r->nr_stragglers; i++) {
			const struct report_straggler *s = &r->stragglers[i];
			enum html_kind k = metric_kind(s->metric);
			char kb[96];

			snprintf(kb, sizeof(kb), "[\"stragglers\",%zu,\"rank\"]", i);
			buf_adds(p->b, "<tr>");
			html_i64(p, "td", kb, NULL, s->rank, HK_COUNT);
			buf_adds(p->b, "<td>");
			html_text(p, s->metric);
			buf_adds(p->b, "</td>");
			snprintf(kb, sizeof(kb), "[\"stragglers\",%zu,\"value\"]", i);
			html_dbl(p, "td", kb, NULL, s->value, k);
			snprintf(kb, sizeof(kb), "[\"stragglers\",%zu,\"median\"]", i);
			html_dbl(p, "td", kb, NULL, s->median, k);
			snprintf(kb, sizeof(kb), "[\"stragglers\",%zu,\"excess\"]", i);
			html_dbl(p, "td", kb, NULL, s->excess, HK_SHARE);
			buf_adds(p->b, "</tr>\n");
		}
		buf_adds(p->b, "</table>\n");
	}
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>metric</th><th>ranks</th><th>min</th>"
		       "<th>median</th><th>avg</th><th>max</th><th>stddev</th><th>min rank</th>"
		       "<th>max rank</th></tr>\n");
	buf_init(&key);
	for (size_t i = 0; i < r->nr_cross_rank; i++) {
		const struct report_stat *st = &r->cross_rank[i];
		const double v[] = { st->min, st->median, st->avg, st->max, st->stddev };
		enum html_kind k = metric_kind(st->metric);

		buf_adds(p->b, "<tr><td class=\"name\">");
		html_text(p, st->metric);
		buf_adds(p->b, "</td>");
		for (int c = -1; c < 7; c++) {
			buf_reset(&key);
			buf_adds(&key, "[\"cross_rank\",");
			html_key_str(&key, st->metric);
			if (c < 0) {
				buf_adds(&key, ",\"count\"]");
				html_i64(p, "td", key.data, NULL, st->count, HK_COUNT);
			} else if (c < 5) {
				buf_printf(&key, ",\"%s\"]", col[c]);
				html_dbl(p, "td", key.data, NULL, v[c], k);
			} else {
				buf_printf(&key, ",\"%s\"]", c == 5 ? "min_rank" : "max_rank");
				html_i64(p, "td", key.data, NULL, c == 5 ? st->min_rank : st->max_rank,
					 HK_COUNT);
			}
		}
		buf_adds(p->b, "</tr>\n");
	}
	buf_release(&key);
	buf_adds(p->b, "</table></div>\n</section>\n");
}

void html_inputs(struct page *p)
{
	const struct report *r = p->r;
	size_t nw = 0;

	buf_adds(p->b, "<section id=\"inputs\">\n<h2>Inputs and warnings</h2>\n<div class=\"wrap\">"
		       "<table><tr><th>rank</th><th>file</th><th>format</th><th>bytes</th>"
		       "<th>complete</th><th>events</th><th>warnings</th></tr>\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];
		char key[64];

		buf_adds(p->b, "<tr>");
		snprintf(key, sizeof(key), "[\"ranks\",%zu,\"rank\"]", i);
		html_i64(p, "td", key, NULL, rk->rank, HK_COUNT);
		buf_adds(p->b, "<td class=\"name\">");
		html_text(p, rk->path ? rk->path : rk->source);
		buf_adds(p->b, "</td><td>");
		html_text(p, rk->format ? rk->format : "");
		buf_adds(p->b, "</td>");
		snprintf(key, sizeof(key), "[\"inputs\",%zu,\"bytes\"]", i);
		html_i64(p, "td", key, NULL, rk->bytes, HK_BYTES);
		buf_printf(p->b, "<td%s>%s</td>", rk->complete ? "" : " class=\"warn\"",
			   rk->complete ? "yes" : "no, cut off");
		snprintf(key, sizeof(key), "[\"ranks\",%zu,\"events\",\"total\"]", i);
		html_i64(p, "td", key, NULL, rk->events_total, HK_COUNT);
		buf_printf(p->b, "<td class=\"num\">%zu</td></tr>\n", rk->nr_warnings);
		nw += rk->nr_warnings;
	}
	buf_adds(p->b, "</table></div>\n");
	if (nw) {
		buf_adds(p->b, "<h3>Warnings</h3>\n<ul>\n");
		for (size_t i = 0; i < r->nr_ranks; i++) {
			for (size_t w = 0; w < r->ranks[i].nr_warnings; w++) {
				buf_printf(p->b, "<li class=\"name\">rank %lld: ",
					   (long long)r->ranks[i].rank);
				html_text(p, r->ranks[i].warnings[w]);
				buf_adds(p->b, "</li>\n");
			}
		}
		buf_adds(p->b, "</ul>\n");
	}
	buf_adds(p->b, "</section>\n");
}
