/*
 * comparison: a comparison as a terminal table, as markdown (for CI job
 * summaries and pull-request comments), or as JSON (for dashboards).
 */
#ifndef VT_COMPARISON_H
#define VT_COMPARISON_H

#include <stdio.h>

#include "buf.h"
#include "compare.h"

struct output_opts {
	const char *base_name, *new_name;	/* how each side was given */
	int all;				/* every row, not only changes */
	size_t top;				/* added and removed kernels named */
	double alpha, threshold;
	const char *base_run, *new_run;		/* each side's run_info_line(); NULL: none */
	const char *const *mismatch;		/* run_info_mismatch()'s keys, and */
	const char *const *mismatch_vals;	/* their values, base then new */
	size_t nr_mismatch;
	int keys;				/* metrics by their report keys (--details) */
};

void output_table(FILE *f, const struct comparison *c, const struct output_opts *o);
void output_markdown(struct buf *out, const struct comparison *c, const struct output_opts *o);
void output_json(struct buf *out, const struct comparison *c, const struct output_opts *o);

/* s (a trace string) as one markdown table cell's text, escaped, appended to out. */
void output_md_cell(struct buf *out, const char *s);

#endif
