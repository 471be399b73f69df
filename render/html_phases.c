/*
 * html_phases: where the time goes on each rank: the phase breakdown and
 * the timeline of phases on one time axis for all ranks (each rank's clock
 * moved by its offset, where collectives gave one; else time since each
 * rank's first event), with stragglers marked.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"
#include "sat.h"

#define SERIES_MAX (HTML_PALETTE - 1)	/* the last colour is "other" */
#define TIMELINE_RECTS 12000		/* keeps a 1,024-rank page small */

/*
 * The phases of depth 0 and 1 that get their own colour, the same in every
 * chart: the SERIES_MAX holding the most time over all ranks.
 */
struct series {
	const char *path[SERIES_MAX];
	int depth[SERIES_MAX];
	size_t n;
	int other;			/* some paths did not fit: "other phases" */
};

static int series_find(const struct series *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->path[i], path))
			return (int)i;
	return -1;
}

/* Most time first; of equal times, the first seen. */
static int cmp_seen(const void *a, const void *b)
{
	const struct rollup_phase *x = *(const struct rollup_phase *const *)a;
	const struct rollup_phase *y = *(const struct rollup_phase *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_first(const void *a, const void *b)
{
	const struct rollup_phase *x = *(const struct rollup_phase *const *)a;
	const struct rollup_phase *y = *(const struct rollup_phase *const *)b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * The SERIES_MAX paths of depth 0 and 1 holding the most time over the
 * ranks (the roll-up's phases), kept in the order the ranks first show
 * them (ties cannot reorder them).
 */
static void series_of(struct page *p, const struct rollup *ru, struct series *s)
{
	const struct rollup_phase **v;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	if (!(v = html_alloc(p, (ru->nr_phases ? ru->nr_phases : 1) * sizeof(*v))))
		return;
	for (size_t i = 0; i < ru->nr_phases; i++)
		if (ru->phases[i].depth <= REPORT_SPANS_DEPTH)
			v[n++] = &ru->phases[i];
	/* keep the largest SERIES_MAX, in first-seen order */
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_seen);
	s->other = n > SERIES_MAX;
	n = n < SERIES_MAX ? n : SERIES_MAX;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_first);
	for (size_t j = 0; j < n; j++) {
		s->path[s->n] = v[j]->path;
		s->depth[s->n++] = v[j]->depth;
	}
	free(v);
}

static uint32_t series_color(const struct series *s, const char *path)
{
	int i = series_find(s, path);

	return i < 0 ? html_palette[HTML_PALETTE - 1] : html_palette[i];
}

/* The legend of the series of one depth (-1: all); other: an "other phases" entry. */
static void series_legend(struct page *p, const struct series *s, int depth, int other)
{
	html_legend_begin(p);
	for (size_t i = 0; i < s->n; i++)
		if (depth < 0 || s->depth[i] == depth)
			html_legend_item(p, html_palette[i], s->path[i]);
	if (other)
		html_legend_item(p, html_palette[HTML_PALETTE - 1], "other phases");
	html_legend_end(p);
}

/*
 * The breakdown stacks the top-level phases, so that each bar adds up to
 * the rank's phase time.  A wrapper that holds nine tenths of the top-level
 * time on every rank (a ProfilerStep# around the whole run) would make one
 * bar of it: it is shown as its children and, under its own name, its time
 * outside them.  Returns the wrapper's path, or NULL.
 */
static const char *chart_wrapper(const struct report *r)
{
	const char *w = NULL;

	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];
		const struct report_phase *big = NULL;
		double top = 0;

		for (size_t k = 0; rk->has_phases && k < rk->nr_phases; k++) {
			const struct report_phase *ph = &rk->phases[k];

			if (ph->depth || ph->nr_folded)
				continue;
			top += (double)ph->d.total_ns;
			if (!big || ph->d.total_ns > big->d.total_ns)
				big = ph;
		}
		if (!big)
			continue;
		if ((double)big->d.total_ns < 0.9 * top || (w && strcmp(w, big->path)))
			return NULL;
		w = big->path;
	}
	return w;
}

/* Whether path is a child of the wrapper w. */
static int under(const char *w, const char *path)
{
	size_t n = w ? strlen(w) : 0;

	return w && !strncmp(path, w, n) && path[n] == '/' && !strchr(path + n + 1, '/');
}

static int max_depth_present(const struct report *r, int depth)
{
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t k = 0; r->ranks[i].has_phases && k < r->ranks[i].nr_phases; k++)
			if (r->ranks[i].phases[k].depth == depth)
				return 1;
	return 0;
}

/*
 * A rank's table shows at most PHASE_ROWS rows, those with the most time,
 * in their tree order: a rank with 80,000 annotation names made a 66 MB
 * page.  tables/phases.csv has every row.
 */
#define PHASE_ROWS 200

static int cmp_total_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x > y ? -1 : x < y;
}

/*
 * Of the n totals t[] (sorted here), keep the largest `keep`: returns the
 * least total kept (INT64_MIN: all are kept) and, in *ties, how many of
 * exactly that total are kept (the first ones met).
 */
static int64_t floor_of(int64_t *t, size_t n, size_t keep, size_t *ties)
{
	size_t above = 0;
	int64_t floor;

	*ties = 0;
	if (n <= keep || !keep)
		return INT64_MIN;
	qsort(t, n, sizeof(*t), cmp_total_desc);
	floor = t[keep - 1];
	while (above < keep && t[above] > floor)
		above++;
	*ties = keep - above;
	return floor;
}

/* floor_of() over a rank's phase rows. */
static int64_t shown_floor(struct page *p, const struct report_rank *rk, size_t *ties)
{
	int64_t *t, floor;
	size_t n = 0;

	*ties = 0;
	if (rk->nr_phases <= PHASE_ROWS || !(t = html_alloc(p, rk->nr_phases * sizeof(*t))))
		return INT64_MIN;
	for (size_t k = 0; k < rk->nr_phases; k++)
		if (!rk->phases[k].nr_folded)
			t[n++] = rk->phases[k].d.total_ns;
	floor = floor_of(t, n, PHASE_ROWS, ties);
	free(t);
	return floor;
}

/* Whether row ph is shown, given shown_floor()'s floor and ties (counted down). */
static int shown(const struct report_phase *ph, int64_t floor, size_t *ties)
{
	if (floor == INT64_MIN || ph->d.total_ns > floor)
		return 1;
	if (ph->d.total_ns < floor || !*ties)
		return 0;
	--*ties;
	return 1;
}

/* The phases a rank's table stands for, those its other row sums among them. */
static size_t phases_held(const struct report_rank *rk)
{
	size_t n = 0;

	for (size_t k = 0; k < rk->nr_phases; k++)
		n += rk->phases[k].nr_folded > 0 ? (size_t)rk->phases[k].nr_folded : 1;
	return n;
}

static void phase_table(struct page *p, size_t i)
{
	const struct report_rank *rk = &p->r->ranks[i];
	char key[96];
	size_t ties;
	int64_t floor = shown_floor(p, rk, &ties);

	/* beyond two ranks, each rank's table is folded: the page stays readable */
	buf_printf(p->b, "%s<h3>Rank %lld</h3>%s\n<div class=\"wrap\"><table><tr><th>phase</th>"
			 "<th>count</th><th>total</th><th>avg</th><th>median</th><th>min</th>"
			 "<th>max</th><th>share of span</th><th>device time launched</th></tr>\n",
		   p->r->nr_ranks > 2 ? "<details><summary>" : "", (long long)rk->rank,
		   p->r->nr_ranks > 2 ? "</summary>" : "");
#define PHASE_KEY(off) html_rank_row_key(key, sizeof(key), i, &phase_fields, k, (off))
	for (size_t k = 0; k < rk->nr_phases; k++) {
		const struct report_phase *ph = &rk->phases[k];
		static const size_t f[] = {
			offsetof(struct report_phase, d.total_ns),
			offsetof(struct report_phase, d.avg_ns),
			offsetof(struct report_phase, d.median_ns),
			offsetof(struct report_phase, d.min_ns),
			offsetof(struct report_phase, d.max_ns),
		};
		const double v[] = { (double)ph->d.total_ns, ph->d.avg_ns, ph->d.median_ns,
				     (double)ph->d.min_ns, (double)ph->d.max_ns };

		if (ph->nr_folded || !shown(ph, floor, &ties))
			continue;	/* the other row (report_fold_phases()) is not a phase */

		buf_printf(p->b, "<tr><td class=\"name\" style=\"padding-left:%dem\" title=\"",
			   ph->depth);
		html_text(p, ph->path);
		buf_adds(p->b, "\">");
		html_text(p, ph->name);
		buf_adds(p->b, "</td>");
		html_i64(p, "td", PHASE_KEY(offsetof(struct report_phase, d.count)), NULL,
			 ph->d.count, UNIT_COUNT);
		for (int c = 0; c < 5; c++) {
			if (c == 0 || c >= 3)
				html_i64(p, "td", PHASE_KEY(f[c]), NULL, sat_of_double(v[c]),
					 UNIT_NS);
			else
				html_dbl(p, "td", PHASE_KEY(f[c]), NULL, v[c], UNIT_NS);
		}
		html_dbl(p, "td", PHASE_KEY(offsetof(struct report_phase, share)), NULL, ph->share,
			 UNIT_RATIO);
		PHASE_KEY(offsetof(struct report_phase, gpu_ns));
		if (ph->gpu_ns >= 0)
			html_i64(p, "td", key, NULL, ph->gpu_ns, UNIT_NS);
		else	/* unknown: the trace's kernels name no launch */
			html_dbl(p, "td", key, NULL, NAN, UNIT_NS);
		buf_adds(p->b, "</tr>\n");
	}
#undef PHASE_KEY
	buf_adds(p->b, "</table></div>\n");
	if (floor != INT64_MIN)
		buf_printf(p->b, "<p class=\"muted\">The %d phases with the most time of %zu; "
				 "%sphases.csv has every one.</p>\n",
			   PHASE_ROWS, phases_held(rk), html_tables(p));
	buf_adds(p->b, p->r->nr_ranks > 2 ? "</details>\n" : "");
}

/* Many ranks: each phase's total as statistics over the ranks. */
static void phase_stats(struct page *p)
{
	const struct report *r = p->r;
#define STAT_KEY(m) field_key_at(&stat_fields, offsetof(struct report_stat, m))
	const char *const col[] = { STAT_KEY(count), STAT_KEY(min), STAT_KEY(min_rank),
				    STAT_KEY(median), STAT_KEY(max), STAT_KEY(max_rank) };
#undef STAT_KEY

	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>phase</th><th>ranks</th><th>min</th>"
		       "<th>min rank</th><th>median</th><th>max</th><th>max rank</th></tr>\n");
	for (size_t i = 0; i < r->nr_cross_rank; i++) {
		const struct report_stat *st = &r->cross_rank[i];

		if (strncmp(st->metric, "phase:", 6))
			continue;
		/* "phase:PATH.total_ns" */
		html_stat_row(p, st, st->metric + 6, col, sizeof(col) / sizeof(col[0]));
	}
	buf_adds(p->b, "</table></div>\n");
}

void html_phases(struct page *p)
{
	const struct report *r = p->r;
	const char *wrapper = chart_wrapper(r);
	struct series s;
	uint32_t colors[HTML_PALETTE];
	int used[HTML_PALETTE] = { 0 };
	double *v;

	buf_adds(p->b, "<section id=\"phases\">\n<h2>Phase breakdown</h2>\n");
	if (!max_depth_present(r, 0)) {
		buf_adds(p->b, "<p class=\"muted\">No phases: these traces have no user "
			       "annotations (record_function, fastvideo regions, "
			       "ProfilerStep).</p>\n</section>\n");
		return;
	}
	series_of(p, &p->ru, &s);
	if (r->nr_ranks > 1) {
		buf_adds(p->b, "<p class=\"muted\">Time in each top-level phase per rank (union of "
			       "its spans)");
		if (wrapper) {
			buf_adds(p->b, "; ");
			html_text(p, wrapper);
			buf_adds(p->b, ", which holds nearly all of it, as its children and its "
				       "own time outside them");
		}
		buf_adds(p->b, ".</p>\n");
	}
	v = html_calloc(p, r->nr_ranks * HTML_PALETTE + 1, sizeof(*v));
	for (size_t i = 0; v && i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->has_phases && k < rk->nr_phases; k++) {
			const struct report_phase *ph = &rk->phases[k];
			double t = (double)ph->d.total_ns;
			int j;

			if (ph->nr_folded)	/* of every depth: not a top-level phase */
				continue;
			if (wrapper && !strcmp(ph->path, wrapper)) {
				/* its time outside its children (they follow it, depth-first) */
				for (size_t c = k + 1; c < rk->nr_phases &&
				     rk->phases[c].depth > 0; c++)
					if (rk->phases[c].depth == 1)
						t -= (double)rk->phases[c].d.total_ns;
				t = t > 0 ? t : 0;
			} else if (ph->depth != 0 && !under(wrapper, ph->path)) {
				continue;
			}
			j = series_find(&s, ph->path);
			j = j < 0 ? HTML_PALETTE - 1 : j;
			v[i * HTML_PALETTE + (size_t)j] += t;
			used[j] |= t > 0;
		}
	}
	for (size_t j = 0; j < HTML_PALETTE; j++)
		colors[j] = html_palette[j];
	if (v)
		html_plot_ranks(p, "phase breakdown per rank", v, HTML_PALETTE, colors, 1e-6,
				"ms", 1);
	free(v);
	if (r->nr_ranks > 1) {
		/* the series the chart has, no more */
		html_legend_begin(p);
		for (size_t j = 0; j < s.n; j++)
			if (used[j])
				html_legend_item(p, html_palette[j], s.path[j]);
		if (used[HTML_PALETTE - 1])
			html_legend_item(p, html_palette[HTML_PALETTE - 1], "other phases");
		html_legend_end(p);
	}
	if (p->many) {
		phase_stats(p);
	} else {
		for (size_t i = 0; i < r->nr_ranks; i++)
			if (r->ranks[i].has_phases && r->ranks[i].nr_phases)
				phase_table(p, i);
	}
	buf_adds(p->b, "</section>\n");
}

/*
 * The top-level band behind its children: c two-thirds transparent (the
 * high byte is gnuplot's alpha), so it is pale on the light card and dim on
 * the dark one that the stylesheet gives charts in dark mode.
 */
static uint32_t band(uint32_t c)
{
	return (c & 0xffffffu) | 0xaa000000u;
}

static int is_straggler(const struct report *r, int64_t rank)
{
	for (size_t i = 0; i < r->nr_stragglers; i++)
		if (r->stragglers[i].rank == rank)
			return 1;
	return 0;
}

/* The end of a rank's last timeline span, relative to its first event. */
static int64_t rank_end(const struct report_rank *rk)
{
	int64_t end = 0;

	for (size_t k = 0; rk->has_phases && k < rk->nr_phases; k++) {
		const struct report_phase *ph = &rk->phases[k];

		if (ph->nr_spans && ph->spans_ns[2 * ph->nr_spans - 1] > end)
			end = ph->spans_ns[2 * ph->nr_spans - 1];
	}
	return end;
}

/*
 * Where every rank has a clock offset: *shift (malloc'd, caller frees) gets
 * each rank's move onto the shared axis, so that the earliest corrected
 * start is 0, and *ref the reference rank.  0 (and *shift NULL) otherwise.
 */
static int shift_of(struct page *p, int64_t *ref, int64_t **shift)
{
	const struct report *r = p->r;
	int64_t lo = INT64_MAX;

	*shift = NULL;
	for (size_t i = 0; i < r->nr_ranks; i++)
		if (!r->ranks[i].has_clock)
			return 0;
	if (r->nr_ranks < 2 || !(*shift = html_alloc(p, r->nr_ranks * sizeof(**shift))))
		return 0;
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		(*shift)[i] = rk->start_ns - rk->clock_offset_ns;
		if ((*shift)[i] < lo)
			lo = (*shift)[i];
	}
	*ref = r->ranks[0].rank;	/* collectives_compute() measures against the first */
	for (size_t i = 0; i < r->nr_ranks; i++)
		(*shift)[i] -= lo;
	return 1;
}

static int64_t shift_at(const int64_t *shift, size_t i)
{
	return shift ? shift[i] : 0;
}

/* A gap is outlined on the timeline when it is at least 1 % of the axis. */
static int gap_marked(const struct report_idle_gap *g, int64_t end)
{
	return g->dur_ns >= end / 100 && g->dur_ns > 0;
}

static size_t marked_gaps(const struct report *r, int64_t end)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t k = 0; r->ranks[i].idle.window && k < r->ranks[i].idle.nr_top; k++)
			n += gap_marked(&r->ranks[i].idle.top[k], end);
	return n;
}

/* The ranks' longest gaps as "xlo xhi ylo yhi" rows (ns / div) into d, reset first. */
static void idle_gaps(const struct report *r, const int64_t *shift, int64_t end, double div,
		      struct buf *d)
{
	buf_reset(d);
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t k = 0; r->ranks[i].idle.window && k < r->ranks[i].idle.nr_top; k++) {
			const struct report_idle_gap *g = &r->ranks[i].idle.top[k];
			int64_t a = g->start_ns + shift_at(shift, i);

			if (gap_marked(g, end))
				buf_printf(d, "%.9g %.9g %.3f %.3f\n", (double)a / div,
					   (double)(a + g->dur_ns) / div, (double)i - 0.45,
					   (double)i + 0.45);
		}
	buf_adds(d, "-2 -1 0 0\n");	/* off the x range: never drawn, never empty */
}

void html_timeline(struct page *p)
{
	const struct report *r = p->r;
	size_t rows = 0, per_row;
	int64_t end = 0;
	struct series s;
	struct buf d;
	int h, shared;
	double div;
	int64_t ref_rank = 0, *shift = NULL, floor;
	size_t ties = 0;

	buf_adds(p->b, "<section id=\"timeline\">\n<h2>Timeline</h2>\n");
	shared = shift_of(p, &ref_rank, &shift);
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t k = 0; r->ranks[i].has_phases && k < r->ranks[i].nr_phases; k++)
			if (r->ranks[i].phases[k].nr_spans) {
				const struct report_phase *ph = &r->ranks[i].phases[k];
				int64_t e = ph->spans_ns[2 * ph->nr_spans - 1] + shift_at(shift, i);

				rows++;
				if (e > end)
					end = e;
			}
	if (!rows) {
		buf_adds(p->b, "<p class=\"muted\">No phase spans to draw.</p>\n</section>\n");
		free(shift);
		return;
	}
	if (shared)
		buf_printf(p->b, "<p class=\"muted\">Top-level phases (light bands) and their "
				 "children per rank, on one time axis: each rank's clock is moved "
				 "by its offset against rank %lld, estimated from the ends of "
				 "matched collectives, which coincide on all ranks. A rank that "
				 "starts late shows bars shifted right; where the ranks meet at "
				 "collectives their bars line up, and the ranks that wait there "
				 "look longer, not the one they wait for (see Who waits for "
				 "whom).</p>\n",
			   (long long)ref_rank);
	else
		buf_adds(p->b, "<p class=\"muted\">Top-level phases (light bands) and their "
			       "children per rank, against the time since each rank's first event: "
			       "no collectives matched across ranks to line their clocks up, so "
			       "bars of different ranks cannot be compared in time.</p>\n");
	series_of(p, &p->ru, &s);
	h = p->many ? 900 : (int)(90 + 26 * r->nr_ranks);
	if (h < 180)
		h = 180;
	/* seconds from 2 s: a CPU run's axis in ms would read 0 to 6000 */
	div = end >= 2 * (int64_t)1000000000 ? 1e9 : 1e6;
	if (html_chart(p, 900, h, "phase timeline per rank") >= 0) {
		/* more rows than boxes: those with the most time, one box each */
		int64_t *t = rows > TIMELINE_RECTS ? html_alloc(p, rows * sizeof(*t)) : NULL;
		size_t nt = 0;

		for (size_t i = 0; t && i < r->nr_ranks; i++)
			for (size_t k = 0; r->ranks[i].has_phases && k < r->ranks[i].nr_phases; k++)
				if (r->ranks[i].phases[k].nr_spans &&
				    r->ranks[i].phases[k].depth <= 1)
					t[nt++] = r->ranks[i].phases[k].d.total_ns;
		floor = t ? floor_of(t, nt, TIMELINE_RECTS, &ties) : INT64_MIN;
		free(t);
		per_row = TIMELINE_RECTS / rows;
		if (per_row < 1)
			per_row = 1;
		buf_init(&d);
		for (int depth = 0; depth <= 1; depth++) {
			for (size_t i = 0; i < r->nr_ranks; i++) {
				const struct report_rank *rk = &r->ranks[i];
				double half = depth ? 0.22 : 0.4;
				int64_t sh = shift_at(shift, i);

				for (size_t k = 0; rk->has_phases && k < rk->nr_phases; k++) {
					const struct report_phase *ph = &rk->phases[k];
					size_t n = ph->nr_spans, g = n < per_row ? n : per_row;
					uint32_t c = series_color(&s, ph->path);

					if (ph->depth != depth || !n || !shown(ph, floor, &ties))
						continue;
					if (!depth)
						c = band(c);
					/* equal groups of consecutive spans, as in keep_spans() */
					for (size_t j = 0; j < g; j++) {
						size_t a = j * n / g, b = (j + 1) * n / g - 1;

						buf_printf(&d, "%.9g %.9g %.3f %.3f %u\n",
							   (double)(ph->spans_ns[2 * a] + sh) / div,
							   (double)(ph->spans_ns[2 * b + 1] + sh) /
								   div,
							   (double)i - half, (double)i + half, c);
					}
				}
			}
		}
		buf_printf(&p->gp.script, "set xlabel '%s %s'\n"
					  "set ylabel 'rank'\nset key off\nset grid xtics\n"
					  "set xrange [0:%.9g]\nset yrange [%zu.6:-0.6]\n",
			   div == 1e9 ? "s" : "ms",
			   shared ? "on the shared axis (clock offsets applied)"
				  : "since the rank''s first event",
			   end > 0 ? (double)end / div * 1.01 : 1e-3, r->nr_ranks - 1);
		html_rank_tics(p, "ytics");
		buf_adds(&p->gp.script, "plot ");
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror "
					"fs solid 1.0 noborder lc rgb variable, ");
		/* a red mark after each straggler's last span: one row of 1,024 is a hairline */
		buf_reset(&d);
		for (size_t i = 0; i < r->nr_ranks; i++)
			if (is_straggler(r, r->ranks[i].rank))
				buf_printf(&d, "%.9g %zu\n",
					   (double)(rank_end(&r->ranks[i]) + shift_at(shift, i)) /
						   div,
					   i);
		buf_adds(&d, "-1 0\n");	/* off the x range: never drawn, never empty */
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using 1:2 with points pt 7 ps 1.3 lc rgb '#d62728', ");
		idle_gaps(r, shift, end, div, &d);
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
					 "fs empty border lc rgb '#3a3a3a' lw 1.5 "
					 "lc rgb '#3a3a3a'\n");
		buf_release(&d);
	}
	series_legend(p, &s, -1, s.other);
	if (marked_gaps(r, end))
		buf_adds(p->b, "<p class=\"muted\">Outlined boxes are the longest gaps in "
			       "device work, at least 1 % of the axis (see Why the device "
			       "waits).</p>\n");
	if (r->nr_stragglers)
		buf_adds(p->b, "<p class=\"muted\"><span style=\"color:#d62728\">"
			       "\xe2\x97\x8f</span> marks the end of the phases of a rank the "
			       "others wait for (see Who waits for whom).</p>\n");
	buf_adds(p->b, "</section>\n");
	free(shift);
}
