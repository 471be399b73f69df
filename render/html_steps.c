/*
 * html_steps: the step durations of each rank, the warm-up step marked;
 * above HTML_MANY_RANKS ranks, the band from the fastest to the slowest
 * rank at each step and the ten slowest ranks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "html.h"
#include "report_fields.h"

static void steps_table_row(struct page *p, size_t i)
{
	const struct report_rank *rk = &p->r->ranks[i];
	const struct report_steps *st = &rk->steps;
	char key[80];

#define STEPS_KEY(m) html_rank_key(key, sizeof(key), i, &steps_fields, \
					 offsetof(struct report_steps, d.m))
	buf_adds(p->b, "<tr>");
	html_row_key(key, sizeof(key), &rank_fields, i, offsetof(struct report_rank, rank));
	html_i64(p, "td", key, NULL, rk->rank, UNIT_COUNT);
	html_i64(p, "td", STEPS_KEY(count), NULL, st->d.count, UNIT_COUNT);
	buf_printf(p->b, "<td>%s</td>", st->warmup ? "first step" : "none");
	html_dbl(p, "td", STEPS_KEY(median_ns), NULL, st->d.median_ns, UNIT_NS);
	html_dbl(p, "td", STEPS_KEY(avg_ns), NULL, st->d.avg_ns, UNIT_NS);
	html_i64(p, "td", STEPS_KEY(min_ns), NULL, st->d.min_ns, UNIT_NS);
	html_i64(p, "td", STEPS_KEY(max_ns), NULL, st->d.max_ns, UNIT_NS);
	html_dbl(p, "td", STEPS_KEY(stddev_ns), NULL, st->d.stddev_ns, UNIT_NS);
	buf_adds(p->b, "</tr>\n");
#undef STEPS_KEY
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_median_desc(const void *a, const void *b, void *ctx)
{
	const struct report *r = ctx;
	double x = r->ranks[*(const size_t *)a].steps.d.median_ns;
	double y = r->ranks[*(const size_t *)b].steps.d.median_ns;

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * A chart never has more points than pixels: a line of a rank with more
 * steps than STEP_POINTS (the chart's width) shows, for each of
 * STEP_POINTS / 2 equal runs of steps, its shortest and its longest step
 * in their order, so that no spike is lost; two million ProfilerStep spans
 * gave a 234 MB SVG.  tables/steps.csv keeps every step.
 */
#define STEP_POINTS 900

/* Run g of nr_runs over n steps: [*lo, *hi). */
static void run_of(size_t g, size_t nr_runs, size_t n, size_t *lo, size_t *hi)
{
	*lo = g * n / nr_runs;
	*hi = (g + 1) * n / nr_runs;
}

/* The line of one rank's steps into d: every step, or the extremes of each run. */
static void rank_line(struct buf *d, const struct report_steps *st, uint32_t color)
{
	size_t n = st->nr_durations, nr_runs = n <= STEP_POINTS ? n : STEP_POINTS / 2;

	for (size_t g = 0; g < nr_runs; g++) {
		size_t lo, hi, a, b;

		run_of(g, nr_runs, n, &lo, &hi);
		a = b = lo;	/* the shortest and the longest of the run */
		for (size_t k = lo + 1; k < hi; k++) {
			if (st->durations_ns[k] < st->durations_ns[a])
				a = k;
			if (st->durations_ns[k] > st->durations_ns[b])
				b = k;
		}
		if (a > b) {
			size_t t = a;

			a = b;
			b = t;
		}
		buf_printf(d, "%zu %.9g %u\n", a, (double)st->durations_ns[a] / 1e6, color);
		if (b != a)
			buf_printf(d, "%zu %.9g %u\n", b, (double)st->durations_ns[b] / 1e6, color);
	}
}

/*
 * Many ranks: over runs of steps (one step each up to STEP_POINTS steps),
 * the shortest and the longest step of any rank, and the median over the
 * ranks of each rank's mean step in the run (of its one step, without
 * runs).  Linear in the steps of all ranks, whatever their counts.
 */
static void band(struct buf *d, const struct report *r, size_t most)
{
	size_t nr_runs = most <= STEP_POINTS ? most : STEP_POINTS;
	int64_t *lo = malloc(nr_runs * sizeof(*lo)), *hi = malloc(nr_runs * sizeof(*hi));
	size_t *count = calloc(nr_runs, sizeof(*count)), total = 0, *start = NULL;
	double *mean = NULL;
	size_t *fill = NULL;

	if (!lo || !hi || !count) {
		buf_fail(d);	/* the chart, and with it the page, fails */
		goto out;
	}
	/* how many ranks have steps in each run, then their means grouped by run */
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_steps *st = &r->ranks[i].steps;

		for (size_t g = 0; r->ranks[i].has_phases && g < nr_runs; g++) {
			size_t a, b;

			run_of(g, nr_runs, most, &a, &b);
			if (a >= st->nr_durations)
				break;
			count[g]++;
			total++;
		}
	}
	start = malloc((nr_runs + 1) * sizeof(*start));
	fill = calloc(nr_runs, sizeof(*fill));
	mean = malloc((total ? total : 1) * sizeof(*mean));
	if (!start || !fill || !mean) {
		buf_fail(d);
		goto out;
	}
	start[0] = 0;
	for (size_t g = 0; g < nr_runs; g++) {
		start[g + 1] = start[g] + count[g];
		lo[g] = INT64_MAX;
		hi[g] = INT64_MIN;
	}
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_steps *st = &r->ranks[i].steps;

		for (size_t g = 0; r->ranks[i].has_phases && g < nr_runs; g++) {
			size_t a, b;
			double sum = 0;

			run_of(g, nr_runs, most, &a, &b);
			if (a >= st->nr_durations)
				break;
			b = b < st->nr_durations ? b : st->nr_durations;
			for (size_t k = a; k < b; k++) {
				int64_t v = st->durations_ns[k];

				lo[g] = v < lo[g] ? v : lo[g];
				hi[g] = v > hi[g] ? v : hi[g];
				sum += (double)v;
			}
			mean[start[g] + fill[g]++] = sum / (double)(b - a);
		}
	}
	for (size_t g = 0; g < nr_runs; g++) {
		double *m = mean + start[g];
		size_t n = count[g], a, b;

		if (!n)
			continue;
		qsort(m, n, sizeof(*m), cmp_double);
		run_of(g, nr_runs, most, &a, &b);
		buf_printf(d, "%zu %.9g %.9g %.9g\n", a, (double)lo[g] / 1e6, m[(n - 1) / 2] / 1e6,
			   (double)hi[g] / 1e6);
	}
out:
	free(lo);
	free(hi);
	free(count);
	free(start);
	free(fill);
	free(mean);
}

/* Few ranks: a line per rank.  Many: min, median and max over ranks per step. */
static void steps_chart(struct page *p, size_t most)
{
	const struct report *r = p->r;
	struct buf d, w;

	if (html_chart(p, 900, 280, "step durations per rank") < 0)
		return;
	buf_init(&d);
	buf_init(&w);
	buf_adds(&p->gp.script, "set xlabel 'step'\nset ylabel 'ms'\nset key off\nset grid\n"
				"set yrange [0:*]\n");
	buf_printf(&p->gp.script, "set xrange [-0.3:%zu.3]\n", most ? most - 1 : 0);
	if (most <= 40)
		buf_adds(&p->gp.script, "set xtics 1\n");
	if (!p->many) {
		for (size_t i = 0; i < r->nr_ranks; i++) {
			const struct report_steps *st = &r->ranks[i].steps;

			if (r->ranks[i].has_phases)
				rank_line(&d, st, html_palette[i % HTML_PALETTE]);
			buf_adds(&d, "\n");
			if (r->ranks[i].has_phases && st->warmup)
				buf_printf(&w, "0 %.9g\n", (double)st->durations_ns[0] / 1e6);
		}
	} else {
		band(&d, r, most);
		for (size_t i = 0; i < r->nr_ranks; i++)
			if (r->ranks[i].has_phases && r->ranks[i].steps.warmup)
				buf_printf(&w, "0 %.9g\n",
					   (double)r->ranks[i].steps.durations_ns[0] / 1e6);
	}
	if (!p->many)
		buf_adds(&d, "0 -1 16777215\n");	/* below the y range: never drawn */
	buf_adds(&w, "0 -1\n");		/* below the y range: never drawn, never empty */
	buf_adds(&p->gp.script, "plot ");
	gnuplot_data(&p->gp, &d);
	if (!p->many) {
		buf_adds(&p->gp.script, " using 1:2:3 with linespoints pt 7 ps 0.6 lw 1.5 "
					"lc rgb variable, ");
	} else {
		buf_adds(&p->gp.script, " using 1:2:4 with filledcurves fc rgb '#c6d4ea', ");
		buf_adds(&p->gp.script, "'' using 1:3 with linespoints pt 7 ps 0.5 lw 1.5 "
					"lc rgb '#4e79a7', ");
	}
	gnuplot_data(&p->gp, &w);
	buf_adds(&p->gp.script, " using 1:2 with points pt 6 ps 1.8 lw 1.5 lc rgb '#d62728'\n");
	buf_release(&d);
	buf_release(&w);
}

void html_steps(struct page *p)
{
	const struct report *r = p->r;
	size_t most = 0, warm = 0, nidx = 0, *idx;

	buf_adds(p->b, "<section id=\"steps\">\n<h2>Step durations</h2>\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		if (!r->ranks[i].has_phases)
			continue;
		if (r->ranks[i].steps.nr_durations > most)
			most = r->ranks[i].steps.nr_durations;
		warm += r->ranks[i].steps.warmup;
	}
	if (!most) {
		buf_adds(p->b, "<p class=\"muted\">No steps: no ProfilerStep# spans and none "
			       "matching --step.</p>\n</section>\n");
		return;
	}
	if (most < 2) {	/* a chart of one point per rank says nothing the table does not */
		buf_adds(p->b, "<p class=\"muted\">One step per rank: its duration is in the "
			       "table.</p>\n");
	} else {
		buf_printf(p->b, "<p class=\"muted\">%s Steps that are warm-up (the first, over "
				 "1.5 times the median of the others) are circled in red and left "
				 "out of the statistics; %zu rank%s %s one.</p>\n",
			   p->many ? "The band spans the fastest to the slowest rank at each step, "
				     "the line is the median rank."
				   : "One line per rank, coloured as listed.",
			   warm, warm == 1 ? "" : "s", warm == 1 ? "has" : "have");
		steps_chart(p, most);
	}
	if (!p->many && most >= 2) {
		html_legend_begin(p);
		for (size_t i = 0; i < r->nr_ranks; i++) {
			char name[40];

			snprintf(name, sizeof(name), "rank %lld", (long long)r->ranks[i].rank);
			html_legend_item(p, html_palette[i % HTML_PALETTE], name);
		}
		html_legend_end(p);
	}
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>rank</th><th>steps</th><th>warm-up</th>"
		       "<th>median</th><th>avg</th><th>min</th><th>max</th><th>stddev</th></tr>\n");
	idx = html_alloc(p, (r->nr_ranks + 1) * sizeof(*idx));
	for (size_t i = 0; idx && i < r->nr_ranks; i++)
		if (r->ranks[i].has_phases && r->ranks[i].steps.d.count)
			idx[nidx++] = i;
	/* many ranks: the ten slowest, which is what a reader looks for */
	if (p->many && idx) {
		qsort_r(idx, nidx, sizeof(*idx), cmp_median_desc, (void *)r);
		if (nidx > 10)
			nidx = 10;
	}
	for (size_t j = 0; idx && j < nidx; j++)
		steps_table_row(p, idx[j]);
	free(idx);
	if (p->many)
		buf_printf(p->b, "</table></div>\n<p class=\"muted\">The ten ranks with the "
				 "slowest median step; %ssteps.csv has every step of every "
				 "rank.</p>\n</section>\n", html_tables(p));
	else
		buf_adds(p->b, "</table></div>\n</section>\n");
}
