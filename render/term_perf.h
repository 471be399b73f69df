/*
 * term_perf: vanalyze's summary's lines on how close to the hardware the run
 * is: the model FLOPs utilisation and the operators taking the most
 * device time with their TFLOP/s and share of the peak (ranks[].ops_perf,
 * ranks[].perf); or, when no trace recorded shapes, once how to get them.
 */
#ifndef VT_TERM_PERF_H
#define VT_TERM_PERF_H

#include <stddef.h>
#include <stdio.h>

#include "rollup.h"

/*
 * Of ru's report: at most top operator rows, lines of width columns;
 * bold/off: the emphasis escapes.
 */
void term_perf(FILE *f, const struct rollup *ru, size_t top, int width, const char *bold,
	       const char *off);

#endif
