/*
 * gnuplot: charts drawn by one gnuplot process as SVG.
 *
 * Callers add charts one by one: gnuplot_chart() opens chart N in the
 * script (a fresh "reset" and its own output file), gnuplot_data() stores a
 * data file beside it, and the caller appends the plot commands to
 * g->script.  gnuplot_run() then starts gnuplot once for all charts
 * (posix_spawnp with an argv array, never a shell), in a private directory
 * made with mkdtemp(), and reads the SVGs back.  Data files hold numbers
 * only; the one trace string in a script is a kernel chart's bar label,
 * shortened and quoted by html_gpu.c (gp_label()).
 */
#ifndef VT_GNUPLOT_H
#define VT_GNUPLOT_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "log.h"

struct gnuplot {
	char dir[4096];			/* the private directory; "" until made */
	struct buf script;		/* commands; callers append plot lines */
	int nr_charts, nr_data;
	int guard;			/* sigclean.h handle: a kill removes dir */
	pid_t child;			/* gnuplot while it runs, else 0 */
	struct buf *svg;		/* per chart after gnuplot_run(); owned */
	int ran;			/* 1: gnuplot ran and exited 0 */
	struct err err;			/* why there are no charts */
};

/* Make the private directory.  Returns 0, or -1 with g->err set. */
int gnuplot_init(struct gnuplot *g);

/* Remove the directory and its files, free everything. */
void gnuplot_release(struct gnuplot *g);

/* Start chart number N (returned) of w x h pixels in the script. */
int gnuplot_chart(struct gnuplot *g, int w, int h);

/*
 * Write data into a new file of the directory and append its name, quoted
 * for gnuplot, to g->script.  Returns 0, or -1 with g->err set.
 */
int gnuplot_data(struct gnuplot *g, const struct buf *data);

/*
 * Run gnuplot over the script and read each chart's SVG.  Returns 0, or -1
 * with g->err set: gnuplot is missing, failed (its stderr is quoted), or an
 * SVG could not be read.
 */
int gnuplot_run(struct gnuplot *g);

/*
 * Append chart n's SVG element to out, ready to inline: no XML prolog, no
 * ids that would repeat on a page.  defs: keep gnuplot's <defs> block, which
 * every chart on a page shares, so one copy is enough.  Returns 0, or -1
 * when there is no such chart (out is unchanged); out fails (buf_fail())
 * when memory runs out.
 */
int gnuplot_svg(const struct gnuplot *g, int n, int defs, struct buf *out);

#endif
