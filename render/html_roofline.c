/*
 * html_roofline: how close to the hardware (doc/perf-model.md).  A
 * log-log roofline of the first rank with modelled operators: arithmetic
 * intensity (FLOP/byte) against TFLOP/s, the roof min(peak, intensity x
 * bandwidth) with its ridge, one point per operator and shape sized by its
 * device time and coloured by family; then its operators by device time
 * and every rank's MFU.  Only numbers reach gnuplot; the names are in the
 * legend and the table, escaped.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"
#include "shorten.h"

#define TOP_ROWS 20
#define MAX_POINTS 400
#define NAME_COLS 72

static const char *const families[] = { "gemm", "attention", "conv", "norm", "softmax",
					"elementwise", "reduction" };
#define NR_FAMILIES (sizeof(families) / sizeof(families[0]))

static size_t family_index(const char *f)
{
	for (size_t i = 0; f && i < NR_FAMILIES; i++)
		if (!strcmp(f, families[i]))
			return i;
	return NR_FAMILIES;
}

/* The first rank with a modelled row and a peak, or NULL. */
static const struct report_rank *first_rank(const struct report *r, size_t *at)
{
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->analysed && k < rk->nr_ops_perf; k++)
			if (!isnan(rk->ops_perf[k].peak_tflops) && !isnan(rk->perf.peak_tbps) &&
			    !rk->ops_perf[k].implausible &&
			    rk->ops_perf[k].intensity > 0 && rk->ops_perf[k].tflops_median > 0) {
				*at = i;
				return rk;
			}
	}
	return NULL;
}

static void chart(struct page *p, const struct report_rank *rk)
{
	const struct report_perf *pf = &rk->perf;
	double peak = pf->peak_tflops, bw = pf->peak_tbps, ridge, lo = 1e30, hi = 0;
	double tmax = 1, ylo = 1e30;
	struct buf d, roof;
	size_t pts = 0;

	if (isnan(peak) || isnan(bw) || bw <= 0 || html_chart(p, 900, 420, "roofline") < 0)
		return;
	ridge = peak / bw;
	for (size_t k = 0; k < rk->nr_ops_perf; k++) {
		const struct report_op_perf *o = &rk->ops_perf[k];

		if (!(o->intensity > 0 && o->tflops_median > 0) || o->implausible)
			continue;
		lo = fmin(lo, o->intensity);
		hi = fmax(hi, o->intensity);
		ylo = fmin(ylo, o->tflops_median);
		tmax = fmax(tmax, (double)o->total_ns);
	}
	lo = fmin(lo, ridge) / 4;
	hi = fmax(hi, ridge) * 4;
	buf_init(&d);
	buf_init(&roof);
	/* the roof: bandwidth-bound up to the ridge, flat after it */
	buf_printf(&roof, "%.9g %.9g\n%.9g %.9g\n%.9g %.9g\n", lo, lo * bw, ridge, peak, hi, peak);
	/* rows are by device time: the first MAX_POINTS are the ones that matter */
	for (size_t k = 0; k < rk->nr_ops_perf && pts < MAX_POINTS; k++) {
		const struct report_op_perf *o = &rk->ops_perf[k];
		size_t f = family_index(o->family);

		if (!(o->intensity > 0 && o->tflops_median > 0) || o->implausible)
			continue;
		buf_printf(&d, "%.9g %.9g %.4g %u\n", o->intensity, o->tflops_median,
			   0.6 + 3.4 * sqrt((double)o->total_ns / tmax),
			   html_palette[f % HTML_PALETTE]);
		pts++;
	}
	buf_printf(&p->gp.script,
		   "set logscale xy\nset xlabel 'arithmetic intensity (FLOP/byte)'\n"
		   "set ylabel 'TFLOP/s'\nset grid\nset key off\n"
		   "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
		   "set arrow from %.9g,%.9g to %.9g,%.9g nohead dt 2 lc rgb '#888888'\n"
		   "set label 'ridge %.3g' at %.9g,%.9g offset 1,0 tc rgb '#555555'\n"
		   "set label 'peak %.4g TFLOP/s, %.3g TB/s' at %.9g,%.9g offset 0,-1 "
		   "tc rgb '#555555'\n",
		   lo, hi, fmin(ylo, lo * bw) / 2, peak * 2, ridge, fmin(ylo, lo * bw) / 2, ridge,
		   peak, ridge, ridge, peak / 8, peak, bw, lo * 1.2, peak);
	buf_adds(&p->gp.script, "plot ");
	gnuplot_data(&p->gp, &roof);
	buf_adds(&p->gp.script, " using 1:2 with lines lw 2 lc rgb '#333333', ");
	gnuplot_data(&p->gp, &d);
	buf_adds(&p->gp.script, " using 1:2:3:4 with points pt 7 ps variable lc rgb variable\n");
	buf_release(&d);
	buf_release(&roof);
	html_legend_begin(p);
	for (size_t f = 0; f < NR_FAMILIES; f++)
		html_legend_item(p, html_palette[f % HTML_PALETTE], families[f]);
	html_legend_end(p);
}

static void table(struct page *p, const struct report_rank *rk, size_t at)
{
	size_t shown = 0, above = 0;
	char key[128], name[SHORTEN_CAP(NAME_COLS)];
	struct buf what;

	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>operator and input dims</th>"
		       "<th>dtype</th><th>calls</th><th>device</th><th>TFLOP/s</th><th>TB/s</th>"
		       "<th>of peak</th><th>of roof</th><th>bound</th></tr>\n");
	buf_init(&what);
	for (size_t k = 0; k < rk->nr_ops_perf && shown < TOP_ROWS; k++) {
		const struct report_op_perf *o = &rk->ops_perf[k];

		if (isnan(o->flops) || o->implausible)
			continue;
		shown++;
		above += o->roof_share > 1;
		buf_reset(&what);
		buf_printf(&what, "%s %s", o->name, o->input_dims);
		buf_adds(p->b, "<tr><td class=\"name\" title=\"");
		html_text(p, html_buf(p, &what));
		buf_adds(p->b, "\">");
		html_text(p, shorten(name, html_buf(p, &what), NAME_COLS));
		buf_adds(p->b, "</td><td>");
		html_text(p, o->dtype ? o->dtype : "-");
		buf_adds(p->b, "</td>");
#define KEY(m) html_rank_row_key(key, sizeof(key), at, &op_perf_fields, k, \
				 offsetof(struct report_op_perf, m))
		html_i64(p, "td", KEY(count), NULL, o->count, UNIT_COUNT);
		html_i64(p, "td", KEY(total_ns), NULL, o->total_ns, UNIT_NS);
		html_dbl(p, "td", KEY(tflops_median), NULL, o->tflops_median, UNIT_NUMBER);
		html_dbl(p, "td", KEY(tbps_median), NULL, o->tbps_median, UNIT_NUMBER);
		html_dbl(p, "td", KEY(peak_share), NULL, o->peak_share, UNIT_RATIO);
		html_dbl(p, "td", KEY(roof_share), NULL, o->roof_share, UNIT_RATIO);
#undef KEY
		buf_adds(p->b, "<td>");
		html_text(p, o->bound ? o->bound : "-");
		buf_adds(p->b, "</td></tr>\n");
	}
	buf_release(&what);
	buf_adds(p->b, "</table></div>\n");
	/* no operator beats its roof: the model's bytes or the peak are wrong for it */
	if (above)
		buf_printf(p->b, "<p class=\"muted\">%zu row%s above %s roof (of roof over "
				 "100 %%): the bytes the model counts or the device's peak are not "
				 "what the call met, such as a small tensor read from the cache "
				 "rather than memory (doc/perf-model.md).</p>\n",
			   above, above == 1 ? "" : "s", above == 1 ? "its" : "their");
}

static void mfu_table(struct page *p)
{
	const struct report *r = p->r;
	char key[96];

	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>rank</th><th>device</th>"
		       "<th>modelled TFLOP/s</th><th>FLOPs known for</th><th>MFU</th></tr>\n");
	for (size_t i = 0, rows = 0; i < r->nr_ranks && rows < HTML_MANY_RANKS; i++) {
		const struct report_rank *rk = &r->ranks[i];

		if (!rk->analysed || !(rk->perf.flops > 0))
			continue;
		rows++;
		buf_printf(p->b, "<tr><td class=\"num\">%lld</td><td>", (long long)rk->rank);
		html_text(p, rk->perf.peak_model ? rk->perf.peak_model : "unknown");
		buf_adds(p->b, "</td>");
#define KEY(m) html_rank_key(key, sizeof(key), i, &perf_fields, offsetof(struct report_perf, m))
		html_dbl(p, "td", KEY(tflops), NULL, rk->perf.tflops, UNIT_NUMBER);
		html_dbl(p, "td", KEY(flops_coverage), NULL, rk->perf.flops_coverage, UNIT_RATIO);
		html_dbl(p, "td", KEY(mfu), NULL, rk->perf.mfu, UNIT_RATIO);
#undef KEY
		buf_adds(p->b, "</tr>\n");
	}
	buf_adds(p->b, "</table></div>\n");
}

void html_roofline(struct page *p)
{
	size_t at = 0;
	const struct report_rank *rk = first_rank(p->r, &at);

	if (!rk)
		return;	/* no shapes, or no known peak: nothing to draw */
	buf_adds(p->b, "<section id=\"roofline\">\n<h2>How close to the hardware</h2>\n");
	buf_printf(p->b, "<p class=\"muted\">Rank %lld's operators and shapes (record_shapes) "
			 "against its device's roofline: FLOPs and bytes from the shapes "
			 "(doc/perf-model.md) over the median device time of a call; a "
			 "point's size is the operator's device time.</p>\n",
		   (long long)rk->rank);
	chart(p, rk);
	table(p, rk, at);
	mfu_table(p);
	buf_adds(p->b, "</section>\n");
}
