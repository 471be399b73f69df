/*
 * html_idle: why the devices wait (doc/idle.md): each rank's idle time in
 * the steady window by cause, as stacked bars and a table, and the longest
 * gaps of all ranks with what the host was doing.
 *
 * Every figure is report.json's own (data-key): the page adds nothing up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"

#define TOP_GAPS 15

struct gap_ref {
	size_t rank, k;			/* indices into ranks and their idle.top */
	int64_t dur_ns;
};

static int cmp_gap(const void *a, const void *b)
{
	const struct gap_ref *x = a, *y = b;

	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

static int has_idle(const struct report_rank *rk)
{
	return rk->analysed && rk->idle.window;
}

/*
 * The data-key of ranks[i]'s figure that the metric catalogue stores at off
 * of the rank (report.c writes it from there): the parts of its path,
 * ["ranks",i,"idle","outside","idle_ns"].
 */
static const char *stored_key(char *key, size_t n, size_t i, size_t off)
{
	const char *path = "";
	int k = snprintf(key, n, "[\"%s\",%zu,\"", rank_fields.name, i);
	size_t at = k > 0 && (size_t)k < n ? (size_t)k : 0;

	for (size_t m = 0; m < metric_nr; m++)
		if (metric_table[m].store != STORE_BY_HAND && metric_table[m].field == off) {
			path = metric_table[m].path;
			break;
		}
	for (; *path && at + 5 < n; path++) {
		if (*path == '.') {
			memcpy(key + at, "\",\"", 3);
			at += 3;
		} else {
			key[at++] = *path;
		}
	}
	snprintf(key + at, n - at, "\"]");
	return key;
}

/* The window's idle time by cause per rank, in the chart and its table. */
static void by_rank(struct page *p, const int *shown)
{
	const struct report *r = p->r;
	uint32_t colors[IDLE_NR_CAUSES];
	double *v = html_calloc(p, r->nr_ranks * IDLE_NR_CAUSES + 1, sizeof(*v));
	char key[96];

	for (int c = 0; c < IDLE_NR_CAUSES; c++)
		colors[c] = html_palette[c % HTML_PALETTE];
	for (size_t i = 0; v && i < r->nr_ranks; i++)
		for (int c = 0; has_idle(&r->ranks[i]) && c < IDLE_NR_CAUSES; c++)
			v[i * IDLE_NR_CAUSES + c] = (double)r->ranks[i].idle.in.by_cause[c];
	if (v)
		html_plot_ranks(p, "idle time in the window by cause per rank", v, IDLE_NR_CAUSES,
				colors, 1e-6, "ms", 1);
	free(v);
	if (r->nr_ranks > 1) {
		html_legend_begin(p);
		for (int c = 0; c < IDLE_NR_CAUSES; c++)
			if (shown[c])
				html_legend_item(p, colors[c], idle_cause_key[c]);
		html_legend_end(p);
	}
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>rank</th><th>window</th>"
		       "<th>window time</th><th>busy in the steps</th><th>idle</th>");
	for (int c = 0; c < IDLE_NR_CAUSES; c++)
		if (shown[c])
			buf_printf(p->b, "<th>%s</th>", idle_cause_key[c]);
	buf_adds(p->b, "<th>idle outside</th></tr>\n");
#define STORED_KEY(m) stored_key(key, sizeof(key), i, offsetof(struct report_rank, m))
	for (size_t i = 0, rows = 0; i < r->nr_ranks && (!p->many || rows < HTML_MANY_RANKS); i++) {
		const struct report_rank *rk = &r->ranks[i];

		if (!has_idle(rk))
			continue;
		rows++;
		buf_printf(p->b, "<tr><td class=\"num\">%lld</td><td>%s</td>", (long long)rk->rank,
			   rk->idle.window);
		html_i64(p, "td", STORED_KEY(idle.in.window_ns), NULL, rk->idle.in.window_ns,
			 UNIT_NS);
		html_dbl(p, "td", STORED_KEY(gpu.step_utilization), NULL,
			 rk->gpu.step_utilization, UNIT_RATIO);
		html_i64(p, "td", STORED_KEY(idle.in.idle_ns), NULL, rk->idle.in.idle_ns, UNIT_NS);
		for (int c = 0; c < IDLE_NR_CAUSES; c++) {
			if (!shown[c])
				continue;
			stored_key(key, sizeof(key), i,
				   offsetof(struct report_rank, idle.in.by_cause) +
					   (size_t)c * sizeof(rk->idle.in.by_cause[0]));
			html_i64(p, "td", key, NULL, rk->idle.in.by_cause[c], UNIT_NS);
		}
		html_i64(p, "td", STORED_KEY(idle.outside.idle_ns), NULL, rk->idle.outside.idle_ns,
			 UNIT_NS);
		buf_adds(p->b, "</tr>\n");
	}
#undef STORED_KEY
	buf_adds(p->b, "</table></div>\n");
	if (p->many)
		buf_printf(p->b, "<p class=\"muted\">The first 32 ranks; %sidle.csv has every "
				 "rank.</p>\n", html_tables(p));
}

#define GAP_KEY(m) field_key_at(&idle_gap_fields, offsetof(struct report_idle_gap, m))

/* The TOP_GAPS longest gaps over all ranks, with the host activity named. */
static void longest(struct page *p)
{
	const struct report *r = p->r;
	struct gap_ref *v;
	size_t n = 0, all = 0;
	char key[96];

	for (size_t i = 0; i < r->nr_ranks; i++)
		all += has_idle(&r->ranks[i]) ? r->ranks[i].idle.nr_top : 0;
	if (!all || !(v = html_alloc(p, all * sizeof(*v))))
		return;
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t k = 0; has_idle(&r->ranks[i]) && k < r->ranks[i].idle.nr_top; k++)
			v[n++] = (struct gap_ref){ i, k, r->ranks[i].idle.top[k].dur_ns };
	qsort(v, n, sizeof(*v), cmp_gap);
	buf_adds(p->b, "<details><summary><h3>Longest gaps</h3></summary>\n"
		       "<div class=\"wrap\"><table><tr><th>rank</th>"
		       "<th>starts at</th><th>length</th><th>cause</th><th>where</th>"
		       "<th>what the host was doing</th></tr>\n");
	for (size_t j = 0; j < n && j < TOP_GAPS; j++) {
		const struct report_rank *rk = &r->ranks[v[j].rank];
		const struct report_idle_gap *g = &rk->idle.top[v[j].k];
		int len;

		buf_printf(p->b, "<tr><td class=\"num\">%lld</td>", (long long)rk->rank);
		len = snprintf(key, sizeof(key), "[\"%s\",%zu,\"%s\",\"%s\",%zu,", rank_fields.name,
			       v[j].rank, REPORT_KEY_IDLE, idle_gap_fields.name, v[j].k);
		snprintf(key + len, sizeof(key) - (size_t)len, "\"%s\"]", GAP_KEY(start_ns));
		html_i64(p, "td", key, NULL, g->start_ns, UNIT_NS);
		snprintf(key + len, sizeof(key) - (size_t)len, "\"%s\"]", GAP_KEY(dur_ns));
		html_i64(p, "td", key, NULL, g->dur_ns, UNIT_NS);
		buf_printf(p->b, "<td>%s</td><td>", idle_cause_key[g->cause]);
		if (g->step >= 0)
			buf_printf(p->b, "step %lld", (long long)g->step);
		else
			buf_adds(p->b, g->in_window ? "in the window" : "outside the steps");
		buf_adds(p->b, "</td><td class=\"name\">");
		if (g->host)
			html_text(p, g->host);
		else
			buf_adds(p->b, "<span class=\"muted\">no traced host activity</span>");
		buf_adds(p->b, "</td></tr>\n");
	}
	buf_adds(p->b, "</table></div>\n</details>\n");
	free(v);
}

void html_idle(struct page *p)
{
	const struct report *r = p->r;
	int shown[IDLE_NR_CAUSES] = { 0 }, any = 0;

	buf_adds(p->b, "<section id=\"idle\">\n<h2>Why the device waits</h2>\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		if (!has_idle(&r->ranks[i]))
			continue;
		any = 1;
		for (int c = 0; c < IDLE_NR_CAUSES; c++)
			shown[c] |= r->ranks[i].idle.in.by_cause[c] > 0;
	}
	if (!any) {
		buf_adds(p->b,
			 "<p class=\"muted\">No device work in these traces.</p>\n</section>\n");
		return;
	}
	buf_adds(p->b, "<p class=\"muted\">Every moment a rank's device runs nothing (no kernel, "
		       "copy or set on any stream) is attributed to what the launching host thread "
		       "was doing: launch overhead, a synchronising call, data loading, host "
		       "compute, memory management, start-up, graph capture, compilation or a "
		       "CPU-side collective. The window is the steady steps after warm-up (or the "
		       "whole trace without steps); start-up, warm-up and the tail count as "
		       "outside. \"busy in the steps\" is device time over the steps' wall "
		       "time.</p>\n");
	by_rank(p, shown);
	longest(p);
	buf_adds(p->b, "</section>\n");
}
