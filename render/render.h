/*
 * render: a struct report as people read it outside the terminal.
 *
 *   render_outputs()  every output the shared options ask for (--json,
 *                     --html, --out): the one dispatch of vanalyze and
 *                     vaggregate, so that both take the same options alike
 *   render_html()     one self-contained HTML page, charts as inline SVG
 *                     drawn by gnuplot (spawned, never through a shell)
 *   render_csv()      DIR/kernels.csv, phases.csv, steps.csv, ranks.csv,
 *                     cross_rank.csv, suggestions.csv (libcsv quoting)
 *   render_out()      DIR/report.json, DIR/report.html and DIR/tables/ (CSV)
 *
 * Every output file is written to a temporary name and renamed.  Trace
 * strings are escaped for the place they land.  A missing or failing
 * gnuplot is not an error: the page is written with a visible note where
 * each chart would be, and one warning goes to stderr through log_warn().
 */
#ifndef VT_RENDER_H
#define VT_RENDER_H

#include <stddef.h>

#include "cli.h"
#include "log.h"
#include "report.h"

struct render_opts {
	const char *title;		/* page title; NULL: "vtrace report" */
	int no_charts;			/* tables only, gnuplot is not started */
	int quiet;			/* render_out() says nothing of what it wrote */
	int tables;			/* tables/ is written beside the page (render_out()) */
};

/* Returns 0, or -1 with err set when the file could not be written. */
int render_html(const struct report *r, const char *path, const struct render_opts *o,
		struct err *err);
int render_csv(const struct report *r, const char *dir, struct err *err);
int render_out(const struct report *r, const char *dir, const struct render_opts *o,
	       struct err *err);

/*
 * The outputs c asks for: --json, then --html, then --out, each failure
 * said on stderr and the others written all the same.  The report's JSON
 * text is made once for --json and --out; json_size, when known, is about
 * its length (vaggregate's merged report is about as long as the reports
 * it read), reserved at once to spare the copies of doubling.  Returns 0,
 * or -1 when an output could not be written.
 */
int render_outputs(const struct report *r, const struct cli *c, size_t json_size);

#endif
