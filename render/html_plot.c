/*
 * html_plot: the per-rank chart most sections share.
 *
 * Rectangles go to gnuplot as "xlo xhi ylo yhi rgb" rows drawn with
 * boxxyerror, so one plot command draws stacked bars, timelines and
 * heat-like views alike; lines are "x y rgb" rows with a blank line
 * between series.  Only numbers reach gnuplot.
 */
#include <math.h>

#include "html.h"

void html_rank_tics(struct page *p, const char *axis)
{
	const struct report *r = p->r;
	size_t step = 1;

	/* at most about 40 labels, or they overlap */
	while (r->nr_ranks / step > 40)
		step *= 2;
	buf_printf(&p->gp.script, "set %s (", axis);
	for (size_t i = 0; i < r->nr_ranks; i += step)
		buf_printf(&p->gp.script, "%s\"%lld\" %zu", i ? ", " : "",
			   (long long)r->ranks[i].rank, i);
	buf_adds(&p->gp.script, ")\n");
}

void html_plot_ranks(struct page *p, const char *what, const double *v, size_t ns,
		     const uint32_t *colors, double scale, const char *ylabel, int stacked)
{
	const struct report *r = p->r;
	size_t n = r->nr_ranks;
	struct buf d;

	/* one rank: one bar says nothing the table beside it does not */
	if (n < 2 || html_chart(p, 900, p->many ? 300 : 260, what) < 0)
		return;
	buf_init(&d);
	buf_printf(&p->gp.script, "set ylabel '%s'\nset grid ytics\nset key off\n"
				  "set xlabel 'rank'\n",
		   ylabel);
	if (!p->many) {
		double top = 0;

		/*
		 * gnuplot autoscales boxes by their centres, so the highest bar
		 * would pass the top of the range: the range is set from the
		 * bars' tops, with a margin.
		 */
		for (size_t i = 0; i < n; i++) {
			double sum = 0;

			for (size_t s = 0; s < ns; s++) {
				double y = v[i * ns + s] * scale;

				if (!isfinite(y) || y <= 0)
					continue;
				sum = stacked ? sum + y : fmax(sum, y);
			}
			top = fmax(top, sum);
		}
		if (top > 0 && isfinite(top))
			buf_printf(&p->gp.script, "set yrange [0:%.9g]\n", top * 1.08);
		else
			buf_adds(&p->gp.script, "set yrange [0:*]\n");
		buf_printf(&p->gp.script, "set xrange [-0.6:%zu.6]\n", n ? n - 1 : 0);
		html_rank_tics(p, "xtics");
		for (size_t i = 0; i < n; i++) {
			double base = 0, w = stacked ? 0.7 : 0.8 / (double)ns;

			for (size_t s = 0; s < ns; s++) {
				double y = v[i * ns + s] * scale, lo;

				if (!isfinite(y) || y <= 0)
					continue;
				lo = stacked ? (double)i - 0.35 : (double)i - 0.4 + w * (double)s;
				buf_printf(&d, "%.6g %.6g %.9g %.9g %u\n", lo, lo + w,
					   stacked ? base : 0, stacked ? base + y : y, colors[s]);
				if (stacked)
					base += y;
			}
		}
		buf_adds(&d, "0 0 -1 -1 16777215\n");	/* never an empty file, never drawn */
		buf_adds(&p->gp.script, "plot ");
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror "
					"fs solid 1.0 noborder lc rgb variable\n");
	} else {
		buf_printf(&p->gp.script, "set yrange [0:*]\nset xrange [0:%zu]\n", n ? n - 1 : 0);
		html_rank_tics(p, "xtics");
		/* not stacked: a small series keeps its own shape near zero */
		for (size_t s = 0; s < ns; s++) {
			for (size_t i = 0; i < n; i++) {
				double y = v[i * ns + s] * scale;

				if (isfinite(y) && y > 0)
					buf_printf(&d, "%zu %.9g %u\n", i, y, colors[s]);
			}
			buf_adds(&d, "\n");
		}
		buf_adds(&d, "0 -1 16777215\n");	/* below the y range */
		buf_adds(&p->gp.script, "plot ");
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using 1:2:3 with lines lw 1.2 lc rgb variable\n");
	}
	buf_release(&d);
}
