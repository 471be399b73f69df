/*
 * term_vanalyze: vanalyze's terminal summary of a report: the run, then
 * with --ranks each rank.  Colour only when the stream is a terminal and
 * NO_COLOR is unset.
 */
#ifndef VT_TERM_VANALYZE_H
#define VT_TERM_VANALYZE_H

#include <stdio.h>

#include "report.h"

struct summary_opts {
	size_t top;		/* --top: kernel and operator rows */
	int ranks;		/* --ranks: each rank's figures too */
	int all;		/* --all: every phase and every rank row */
	int details;		/* --details: every finding in full, the private tags */
	enum summary_sort { SORT_TOTAL, SORT_SELF, SORT_DEVICE, SORT_COUNT } sort;	/* --sort */
};

/* Lines fit term_width(f). */
void term_vanalyze(FILE *f, const struct report *rep, const struct summary_opts *o);

#endif
