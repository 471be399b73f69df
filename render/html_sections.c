/*
 * html_sections: the page's text sections: summary cards, suggestions,
 * cross-rank statistics with stragglers, and inputs with their warnings.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"
#include "vendor_words.h"

static const struct report_stat *stat_of(const struct report *r, const char *metric)
{
	for (size_t i = 0; r->nr_ranks > 1 && i < r->nr_cross_rank; i++)
		if (!strcmp(r->cross_rank[i].metric, metric))
			return &r->cross_rank[i];
	return NULL;
}

static void card_begin(struct page *p, const char *label)
{
	buf_printf(p->b, "<div class=\"card\"><div class=\"label\">%s</div>", label);
}

/* The key of a cross_rank statistic's figure m, as stat_fields names it. */
#define STAT_KEY(m) field_key_at(&stat_fields, offsetof(struct report_stat, m))

/* A card with the median over ranks and where min and max are. */
static void card_stat(struct page *p, const char *label, const struct report_stat *st)
{
	card_begin(p, label);
	html_stat(p, "div class=\"value\"", st, STAT_KEY(median));
	buf_adds(p->b, "<div class=\"sub\">median of ranks; min ");
	html_stat(p, "span", st, STAT_KEY(min));
	buf_printf(p->b, " (rank %lld), max ", (long long)st->min_rank);
	html_stat(p, "span", st, STAT_KEY(max));
	buf_printf(p->b, " (rank %lld)</div></div>\n", (long long)st->max_rank);
}

/* A card with one rank's value; none when i < 0 or v is null: a card with no value says nothing. */
static void card_rank(struct page *p, const char *label, long i, const char *field, double v,
		      enum metric_unit k, const char *sub)
{
	char key[160];

	if (i < 0 || isnan(v))
		return;
	card_begin(p, label);
	snprintf(key, sizeof(key), "[\"%s\",%ld,%s]", rank_fields.name, i, field);
	html_dbl(p, "div class=\"value\"", key, NULL, v, k);
	if (sub)
		buf_printf(p->b, "<div class=\"sub\">%s</div>", sub);
	buf_adds(p->b, "</div>\n");
}

/*
 * Cards for a scalar of the catalogue: statistics over ranks, or the one
 * rank's value (its data-key the path's parts: MK_THROUGHPUT_FPS is
 * ["ranks",0,"throughput","fps"]).
 */
static void card(struct page *p, const char *label, const char *metric)
{
	const struct report *r = p->r;
	const struct report_stat *st = stat_of(r, metric);
	const struct metric_def *d = metric_find(metric);
	char field[96];
	size_t n = 0;
	double v;

	if (st && st->count > 0) {
		card_stat(p, label, st);
		return;
	}
	if (r->nr_ranks != 1 || !r->ranks[0].analysed)
		return;		/* no rank has it: no card */
	field[n++] = '"';
	for (const char *c = metric; *c && n + 4 < sizeof(field); c++) {
		if (*c == '.') {
			memcpy(field + n, "\",\"", 3);
			n += 3;
		} else {
			field[n++] = *c;
		}
	}
	field[n++] = '"';
	field[n] = '\0';
	card_rank(p, label, 0, field, metric_value(d, &r->ranks[0], &v) ? v : NAN, d->unit, NULL);
}

void html_summary(struct page *p)
{
	const char *dev = vendor_words_of_run(p->r)->device ? vendor_words_of_run(p->r)->device
							    : "device";
	char label[64];
	const struct report *r = p->r;
	long rtf_rank = -1, mem_rank = -1, mem_dev = -1;
	double rtf = NAN;
	int64_t peak = -1;
	char field[96];

	buf_adds(p->b, "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n");
	card_begin(p, "ranks");
	snprintf(field, sizeof(field), "[\"%s\"]", rank_fields.name);	/* how many */
	html_i64(p, "div class=\"value\"", field, NULL, (int64_t)r->nr_ranks, UNIT_COUNT);
	buf_adds(p->b, "</div>\n");
	card(p, "span", MK_SPAN_NS);
	card(p, "frames per second", MK_THROUGHPUT_FPS);
	card(p, "blocks per second", MK_THROUGHPUT_BPS);
	/* each labelled for what it divides by: steps can be mostly idle when the span is not */
	snprintf(label, sizeof(label), "%s busy, active span", dev);
	card(p, label, MK_GPU_UTILIZATION);
	snprintf(label, sizeof(label), "%s busy, steady steps", dev);
	card(p, label, MK_GPU_STEP_UTILIZATION);
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
	snprintf(field, sizeof(field), "\"%s\",\"%s\"", throughput_fields.name,
		 field_key_at(&throughput_fields,
			      offsetof(struct report_throughput, realtime_factor)));
	card_rank(p, "real-time factor", rtf_rank, field, rtf,
		  metric_unit_of(MK_THROUGHPUT_REALTIME_FACTOR),
		  rtf_rank >= 0 ? "lowest rank; below 1 cannot stream"
				: "needs --frames and --target-fps");
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
	snprintf(field, sizeof(field), "\"%s\",%ld,\"%s\"", memory_fields.name, mem_dev,
		 field_key_at(&memory_fields, offsetof(struct report_memory, peak_allocated)));
	snprintf(label, sizeof(label), "peak %s memory", dev);
	card_rank(p, label, mem_rank, field, (double)peak, UNIT_BYTES,
		  mem_rank >= 0 ? "allocated, highest device of all ranks" : "no [memory] events");
	buf_adds(p->b, "</div>\n</section>\n");
}

static void suggestion(struct page *p, size_t i)
{
	const struct report_suggestion *s = &p->r->suggestions[i];
	const char *sev = report_severity_name[s->severity];
	enum metric_unit k = metric_unit_of(s->metric);
	char key[96];

	buf_printf(p->b, "<div class=\"sugg %s\"><span class=\"sev sev-%s\">%s</span> ", sev, sev,
		   sev);
	html_text(p, s->id);
	buf_adds(p->b, " \xc2\xb7 ");
	html_text(p, s->ranks_text ? s->ranks_text : "all ranks");
	buf_adds(p->b, "<p>");
	html_text(p, s->message);
	if (s->details) {
		buf_adds(p->b, " ");
		html_text(p, s->details);
	}
	buf_adds(p->b, "</p><p class=\"muted\">evidence: <code>");
	html_text(p, s->metric);
	buf_adds(p->b, "</code> = ");
	html_row_key(key, sizeof(key), &suggestion_fields, i,
		     offsetof(struct report_suggestion, value));
	html_dbl(p, "span", key, NULL, s->value, k);
	/* a rule that fires at any value has no threshold to show */
	if (s->threshold != 0) {
		buf_adds(p->b, ", threshold ");
		html_row_key(key, sizeof(key), &suggestion_fields, i,
			     offsetof(struct report_suggestion, threshold));
		html_dbl(p, "span", key, NULL, s->threshold, k);
	}
	buf_adds(p->b, "</p></div>\n");
}

/*
 * The findings, one per rule (suggest.c groups the ranks), by time at
 * stake: the lead of the top three, then each whole.
 */
void html_suggestions(struct page *p)
{
	const struct report *r = p->r;

	buf_adds(p->b, "<section id=\"suggestions\">\n<h2>Suggestions</h2>\n");
	if (!r->nr_suggestions)
		buf_adds(p->b, "<p class=\"muted\">No rule fired: nothing stands out.</p>\n");
	html_findings_lead(p);
	/* every finding in full: the lead's three open, the rest folded */
	for (size_t i = 0; i < r->nr_suggestions; i++) {
		if (i == 3)
			buf_printf(p->b, "<details><summary>%zu more finding%s in full</summary>\n",
				   r->nr_suggestions - 3, r->nr_suggestions == 4 ? "" : "s");
		suggestion(p, i);
	}
	if (r->nr_suggestions > 3)
		buf_adds(p->b, "</details>\n");
	buf_adds(p->b, "</section>\n");
}

/*
 * A cross-rank figure's key in words: MK_GPU_COMM_WAIT_NS is "gpu comm wait
 * (time)", a phase's "phase:PATH/denoise.total_ns" is "denoise: total time".
 */
static void metric_label(const char *m, struct buf *out)
{
	static const struct {
		const char *suffix, *words;
	} tails[] = {
		{ ".total_ns", ": total time" }, { ".median_ns", ": median time" },
		{ ".share", ": share of the span" }, { ".gpu_ns", ": device time launched" },
	};
	size_t n = strlen(m);

	if (!strncmp(m, "phase:", 6)) {
		const char *last = m + 6, *slash;

		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
			size_t k = strlen(tails[i].suffix);

			if (n > k && !strcmp(m + n - k, tails[i].suffix)) {
				/* the phase's own name; its path is in the CSV */
				for (slash = m + 6;
				     (slash = memchr(slash, '/', (size_t)(m + n - k - slash)));
				     last = ++slash)
					;
				buf_add(out, last, (size_t)(m + n - k - last));
				buf_adds(out, tails[i].words);
				return;
			}
		}
	}
	for (const char *c = m; *c; c++) {
		if (!strcmp(c, "_ns")) {
			buf_adds(out, " (time)");
			break;
		}
		buf_addc(out, *c == '_' || *c == '.' ? ' ' : *c);
	}
}

/* An idle cause at zero on every rank: a row of zeros tells nothing across ranks. */
static int idle_quiet(const struct report_stat *st)
{
	return !strncmp(st->metric, "idle.by_cause.", 14) && st->count > 0 && st->min == 0 &&
	       st->max == 0;
}

#define STRAGGLER_AT(m) offsetof(struct report_straggler, m)

void html_cross_rank(struct page *p)
{
	const struct report *r = p->r;
	const char *const col[] = { STAT_KEY(count),  STAT_KEY(min), STAT_KEY(median),
				    STAT_KEY(avg),    STAT_KEY(max), STAT_KEY(stddev),
				    STAT_KEY(min_rank), STAT_KEY(max_rank) };

	buf_adds(p->b, "<section id=\"cross-rank\">\n<h2>Across ranks</h2>\n");
	if (r->nr_ranks < 2) {
		buf_adds(p->b,
			 "<p class=\"muted\">One rank: nothing to compare.</p>\n</section>\n");
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
			enum metric_unit k = metric_unit_of(s->metric);
			char kb[96];

			html_row_key(kb, sizeof(kb), &straggler_fields, i, STRAGGLER_AT(rank));
			buf_adds(p->b, "<tr>");
			html_i64(p, "td", kb, NULL, s->rank, UNIT_COUNT);
			buf_adds(p->b, "<td>");
			html_text(p, s->metric);
			buf_adds(p->b, "</td>");
			html_row_key(kb, sizeof(kb), &straggler_fields, i, STRAGGLER_AT(value));
			html_dbl(p, "td", kb, NULL, s->value, k);
			html_row_key(kb, sizeof(kb), &straggler_fields, i, STRAGGLER_AT(median));
			html_dbl(p, "td", kb, NULL, s->median, k);
			html_row_key(kb, sizeof(kb), &straggler_fields, i, STRAGGLER_AT(excess));
			html_dbl(p, "td", kb, NULL, s->excess, UNIT_RATIO);
			buf_adds(p->b, "</tr>\n");
		}
		buf_adds(p->b, "</table>\n");
	}
	/* the run's figures open, then each phase's, folded: they are many */
	for (int phases = 0; phases < 2; phases++) {
		size_t n = 0, quiet = 0;

		for (size_t i = 0; i < r->nr_cross_rank; i++)
			n += (strncmp(r->cross_rank[i].metric, "phase:", 6) == 0) == phases;
		if (!n)
			continue;
		if (phases)
			buf_printf(p->b, "<details><summary><h3>Phases (%zu figures)</h3>"
					 "</summary>\n", n);
		buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>figure</th><th>ranks</th>"
			       "<th>min</th><th>median</th><th>avg</th><th>max</th><th>stddev</th>"
			       "<th>min rank</th><th>max rank</th></tr>\n");
		for (size_t i = 0; i < r->nr_cross_rank; i++) {
			const struct report_stat *st = &r->cross_rank[i];
			struct buf label;

			if ((strncmp(st->metric, "phase:", 6) == 0) != phases)
				continue;
			if (idle_quiet(st)) {
				quiet++;
				continue;
			}
			buf_init(&label);
			metric_label(st->metric, &label);
			html_stat_row(p, st, html_buf(p, &label), col,
				      sizeof(col) / sizeof(col[0]));
			buf_release(&label);
		}
		buf_adds(p->b, "</table></div>\n");
		if (quiet)
			buf_printf(p->b, "<p class=\"muted\">%zu causes of idle time are zero "
					 "on every rank: left out (report.json's cross_rank has "
					 "them).</p>\n", quiet);
		buf_adds(p->b, phases ? "</details>\n" : "");
	}
	buf_printf(p->b, "<p class=\"muted\">%scross_rank.csv has the figures under their "
			 "report.json keys.</p>\n</section>\n", html_tables(p));
}

/* ["ranks",i,"events","total"]: the count in the rank's group of rank_fields that holds it. */
static const char *events_total_key(char *key, size_t n, size_t i)
{
	const size_t off = offsetof(struct report_rank, events_total);

	for (size_t k = 0; k < rank_fields.n; k++)
		if (rank_fields.f[k].type == FT_GROUP && *field_key_at(rank_fields.f[k].sub, off))
			return html_rank_key(key, n, i, rank_fields.f[k].sub, off);
	snprintf(key, n, "[]");
	return key;
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
		html_row_key(key, sizeof(key), &rank_fields, i, offsetof(struct report_rank, rank));
		html_i64(p, "td", key, NULL, rk->rank, UNIT_COUNT);
		buf_adds(p->b, "<td class=\"name\">");
		html_text(p, rk->path ? rk->path : rk->source);
		buf_adds(p->b, "</td><td>");
		html_text(p, rk->format ? rk->format : "");
		buf_adds(p->b, "</td>");
		html_i64(p, "td",
			 html_row_key(key, sizeof(key), &input_fields, i,
				      offsetof(struct report_rank, bytes)),
			 NULL, rk->bytes, UNIT_BYTES);
		buf_printf(p->b, "<td%s>%s</td>", rk->complete ? "" : " class=\"warn\"",
			   rk->complete ? "yes" : "no, cut off");
		html_i64(p, "td", events_total_key(key, sizeof(key), i), NULL, rk->events_total,
			 UNIT_COUNT);
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
