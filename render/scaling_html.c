/*
 * scaling_html: vcompare --scaling's page (scaling_out.h), self-contained
 * as vanalyze's (the same stylesheet, inline SVG, no script).
 *
 * Two charts, drawn by one gnuplot process (gnuplot.h: an argv array,
 * never a shell): speedup against ranks with the ideal line, and a
 * waterfall of the largest run's rank-time from the ideal to what it
 * spent, one bar per part of the loss.  Only numbers reach gnuplot; the
 * tics name the parts from scaling_part_text, never a trace string.
 * Trace strings (phase paths) and arguments go through esc_html().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "gnuplot.h"
#include "html.h"
#include "metric.h"
#include "scaling_out.h"

#define RGB_IDEAL 0x9aa1acu
#define RGB_LOSS 0xc62828u
#define RGB_GAIN 0x2e7d32u
#define RGB_TOTAL 0x2f5fb3u

static void text(struct buf *b, const char *s)
{
	struct buf t;

	size_t n = strlen(s);

	/* bounded as vanalyze's page is, however long the names (html.h) */
	buf_init(&t);
	tsafe_add(&t, s, n > HTML_TEXT_MAX ? HTML_TEXT_MAX : n);
	esc_html_n(b, t.data ? t.data : "", t.len);
	if (!buf_ok(&t))
		buf_fail(b);
	buf_release(&t);
}

static void cell(struct buf *b, double v, enum metric_unit u)
{
	char s[METRIC_FMT_MAX];

	buf_adds(b, "<td class=\"num\">");
	esc_html(b, metric_fmt(s, sizeof(s), v, u, 0));
	buf_adds(b, "</td>");
}

static int by_ranks(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Speedup against ranks: the runs, and the ideal S = N / M. */
static void speedup_chart(struct gnuplot *g, const struct scaling *sc)
{
	size_t n = sc->nr_points + 1;
	double *xy = malloc(2 * n * sizeof(*xy)), top = (double)sc->base_ranks;
	struct buf d, ideal;

	if (!xy) {
		buf_fail(&g->script);
		return;
	}
	xy[0] = (double)sc->base_ranks;
	xy[1] = 1;
	for (size_t i = 0; i < sc->nr_points; i++) {
		xy[2 * i + 2] = (double)sc->points[i].ranks;
		xy[2 * i + 3] = sc->points[i].speedup;
		if (xy[2 * i + 2] > top)
			top = xy[2 * i + 2];
	}
	qsort(xy, n, 2 * sizeof(*xy), by_ranks);
	buf_init(&d);
	buf_init(&ideal);
	for (size_t i = 0; i < n; i++)
		if (isfinite(xy[2 * i + 1]))
			buf_printf(&d, "%.9g %.9g\n", xy[2 * i], xy[2 * i + 1]);
	buf_printf(&ideal, "%lld 1\n%.9g %.9g\n", (long long)sc->base_ranks, top,
		   top / (double)sc->base_ranks);
	gnuplot_chart(g, 640, 360);
	buf_printf(&g->script, "set xlabel 'ranks'\nset ylabel 'speedup'\nset grid\n"
			       "set key top left\nset xrange [0:%.9g]\nset yrange [0:*]\nplot ",
		   top * 1.1);
	gnuplot_data(g, &ideal);
	buf_printf(&g->script, " using 1:2 with lines dt 2 lw 1.5 lc rgb '#%06x' title 'ideal', ",
		   RGB_IDEAL);
	gnuplot_data(g, &d);
	buf_printf(&g->script, " using 1:2 with linespoints pt 7 lw 2 lc rgb '#%06x' "
			       "title 'measured'\n", RGB_TOTAL);
	if (!buf_ok(&d) || !buf_ok(&ideal))
		buf_fail(&g->script);
	buf_release(&d);
	buf_release(&ideal);
	free(xy);
}

/* From the ideal rank-time, each part up or down, to what the run spent. */
static void waterfall_chart(struct gnuplot *g, const struct scaling_point *p)
{
	double ideal = p->total_rank_ns - p->loss * p->total_rank_ns, at;
	struct buf d;

	buf_init(&d);
	at = ideal / 1e9;
	buf_printf(&d, "-0.35 0.35 0 %.9g %u\n", at, RGB_IDEAL);
	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		double v = p->parts_rank_ns[k] / 1e9;

		if (!isfinite(v))
			continue;
		buf_printf(&d, "%d.65 %d.35 %.9g %.9g %u\n", k, k + 1, v < 0 ? at + v : at,
			   v < 0 ? at : at + v, v < 0 ? RGB_GAIN : RGB_LOSS);
		at += v;
	}
	buf_printf(&d, "%d.65 %d.35 0 %.9g %u\n", SCALING_NR_PARTS, SCALING_NR_PARTS + 1,
		   p->total_rank_ns / 1e9, RGB_TOTAL);
	gnuplot_chart(g, 900, 380);
	buf_adds(&g->script, "set ylabel 'rank-seconds per generation'\nset grid ytics\n"
			     "set key off\nset yrange [0:*]\nset xtics rotate by -25 (\"ideal\" 0");
	for (int k = 0; k < SCALING_NR_PARTS; k++)
		buf_printf(&g->script, ", \"%s\" %d", scaling_part_text[k], k + 1);
	buf_printf(&g->script, ", \"spent\" %d)\nset xrange [-0.6:%d.6]\nplot ",
		   SCALING_NR_PARTS + 1, SCALING_NR_PARTS + 1);
	gnuplot_data(g, &d);
	buf_adds(&g->script, " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror "
			     "fs solid 1.0 noborder lc rgb variable\n");
	if (!buf_ok(&d))
		buf_fail(&g->script);
	buf_release(&d);
}

static void figure(struct buf *b, const struct gnuplot *g, int n, const char *what, int charts)
{
	buf_printf(b, "<figure class=\"chart\" aria-label=\"%s\">", what);
	if (g->ran && gnuplot_svg(g, n, n == 0, b) == 0) {
		buf_adds(b, "</figure>\n");
		return;
	}
	buf_adds(b, "<p class=\"nochart\">Chart not drawn: ");
	esc_html(b, !charts ? "charts are off (--no-charts)"
		 : g->err.msg[0] ? g->err.msg : "gnuplot drew nothing");
	buf_adds(b, "</p></figure>\n");
}

static void curve_table(struct buf *b, const struct scaling *sc)
{
	buf_adds(b, "<div class=\"wrap\"><table><tr><th>ranks</th><th>time per generation</th>"
		    "<th>speedup</th><th>efficiency</th><th>serial fraction (Karp-Flatt)</th>"
		    "<th>run</th></tr>\n");
	for (size_t i = 0; i <= sc->nr_points; i++) {
		const struct scaling_point *p = i ? &sc->points[i - 1] : NULL;

		buf_printf(b, "<tr><td class=\"num\">%lld</td>",
			   (long long)(p ? p->ranks : sc->base_ranks));
		cell(b, p ? p->time_ns : sc->base_time_ns, UNIT_NS);
		cell(b, p ? p->speedup : 1, UNIT_FACTOR);
		cell(b, p ? p->efficiency : 1, UNIT_RATIO);
		cell(b, p ? p->karp_flatt : NAN, UNIT_NUMBER);
		buf_adds(b, "<td class=\"name\">");
		text(b, p ? p->label : sc->base_label);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table></div>\n");
}

static void detail_tables(struct buf *b, const struct scaling_point *p)
{
	buf_printf(b, "<h2 id=\"phases\">Phases at %lld ranks</h2>\n<div class=\"wrap\"><table>"
		      "<tr><th>phase</th><th>base per rank</th><th>new per rank</th><th>ideal</th>"
		      "<th>speedup</th><th>efficiency</th><th></th></tr>\n",
		   (long long)p->ranks);
	for (size_t i = 0; i < p->nr_phases; i++) {
		const struct scaling_phase *ph = &p->phases[i];

		buf_adds(b, "<tr><td class=\"name\">");
		text(b, ph->path);
		buf_adds(b, "</td>");
		cell(b, ph->base_ns, UNIT_NS);
		cell(b, ph->new_ns, UNIT_NS);
		cell(b, ph->ideal_ns, UNIT_NS);
		cell(b, ph->speedup, UNIT_FACTOR);
		cell(b, ph->efficiency, UNIT_RATIO);
		buf_printf(b, "<td>%s</td></tr>\n", ph->not_shrunk ? "did not shrink" : "");
	}
	buf_adds(b, "</table></div>\n");
	buf_printf(b, "<h2 id=\"loss\">Loss of efficiency at %lld ranks</h2>\n<div class=\"wrap\">"
		      "<table><tr><th>part</th><th>rank-time</th><th>share (of 1 &minus; E)</th>"
		      "<th>of the loss</th></tr>\n", (long long)p->ranks);
	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		buf_printf(b, "<tr><td>%s</td>", scaling_part_text[k]);
		cell(b, p->parts_rank_ns[k], UNIT_NS);
		cell(b, p->parts_share[k], UNIT_RATIO);
		cell(b, p->loss > 0 ? p->parts_share[k] / p->loss : NAN, UNIT_RATIO);
		buf_adds(b, "</tr>\n");
		for (int c = 0; k == SCALING_IDLE && c < IDLE_NR_CAUSES; c++) {
			if (p->idle_rank_ns[c] == 0 || !isfinite(p->idle_rank_ns[c]))
				continue;
			buf_printf(b, "<tr><td class=\"muted\">&nbsp;&nbsp;idle: %s</td>",
				   idle_cause_key[c]);
			cell(b, p->idle_rank_ns[c], UNIT_NS);
			buf_adds(b, "<td></td><td></td></tr>\n");
		}
	}
	buf_adds(b, "</table></div>\n");
}

static void findings(struct buf *b, const struct scaling_point *p)
{
	int any = 0;

	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		double sh = p->loss > 0 ? p->parts_share[k] / p->loss : NAN;

		if (!(sh >= SCALING_FINDING_SHARE) || p->parts_rank_ns[k] <= 0)
			continue;
		if (!any++)
			buf_adds(b, "<h2 id=\"findings\">Findings</h2>\n");
		buf_adds(b, "<div class=\"sugg high\"><p><b>");
		if (k == SCALING_SERIAL && p->replicated >= 0) {
			text(b, p->phases[p->replicated].path);
			buf_adds(b, " did not shrink with the ranks");
		} else if (k == SCALING_LATE && p->late_rank >= 0) {
			buf_printf(b, "The ranks wait for rank %lld", (long long)p->late_rank);
		} else {
			buf_adds(b, scaling_part_text[k]);
		}
		buf_printf(b, "</b> (%.0f %% of the loss)</p><p>", sh * 100);
		esc_html(b, scaling_fix[k]);
		buf_adds(b, "</p></div>\n");
	}
}

int scaling_html(struct buf *out, const struct scaling *sc, int charts, struct err *e)
{
	const struct scaling_point *last = sc->nr_points ? &sc->points[sc->nr_points - 1] : NULL;
	struct gnuplot g;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	buf_init(&g.script);
	if (charts && last) {
		if (gnuplot_init(&g) == 0) {
			speedup_chart(&g, sc);
			waterfall_chart(&g, last);
			if (!buf_ok(&g.script))
				err_set(&g.err, -1, "out of memory building the charts");
			else
				gnuplot_run(&g);
		}
		if (!g.ran) {
			*e = g.err;
			rc = -1;
		}
	}
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"color-scheme\" content=\"light dark\">\n"
		      "<meta name=\"generator\" content=\"vtrace " VTRACE_VERSION "\">\n"
		      "<title>vtrace scaling</title>\n<style>\n");
	buf_adds(out, html_stylesheet);
	buf_adds(out, "</style>\n</head>\n<body>\n<header>\n<h1>Scaling</h1>\n<p class=\"run\">"
		      "Base ");
	text(out, sc->base_label);
	buf_printf(out, ": %lld rank%s; %s scaling (%s)</p>\n</header>\n",
		   (long long)sc->base_ranks, sc->base_ranks == 1 ? "" : "s",
		   sc->weak ? "weak" : "strong",
		   sc->forced ? "as asked"
		   : sc->weak ? "the work grew with the ranks"
			      : "the same total work");
	for (size_t i = 0; i < sc->nr_points; i++) {
		struct buf s;

		if (sc->points[i].nr_mismatch) {
			buf_adds(out, "<p class=\"warn\">");
			text(out, sc->points[i].label);
			buf_adds(out, " differs from base in the workload:");
			for (size_t k = 0; k < sc->points[i].nr_mismatch; k++) {
				buf_addc(out, ' ');
				text(out, sc->points[i].mismatch[k]);
			}
			buf_adds(out, "</p>\n");
		}
		buf_init(&s);
		scaling_sentence(&s, &sc->points[i]);
		buf_adds(out, "<p class=\"sugg\">");
		esc_html_n(out, s.data ? s.data : "", s.len);
		buf_adds(out, "</p>\n");
		if (!buf_ok(&s))
			buf_fail(out);
		buf_release(&s);
	}
	buf_adds(out, "<h2 id=\"curve\">Speedup</h2>\n");
	curve_table(out, sc);
	if (last) {
		figure(out, &g, 0, "speedup against ranks, with the ideal", charts);
		findings(out, last);
		detail_tables(out, last);
		figure(out, &g, 1, "waterfall of the loss", charts);
	}
	buf_adds(out, "<p class=\"muted\">Definitions: doc/scaling.md of vtrace.</p>\n"
		      "</body>\n</html>\n");
	gnuplot_release(&g);
	return rc;
}
