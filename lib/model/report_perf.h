/*
 * report_perf: the JSON of a rank's "ops_perf" rows and "perf" object
 * (report.h's struct report_op_perf and struct report_perf), written by
 * report.c and read back by report_read.c, kept apart from both.
 */
#ifndef VT_REPORT_PERF_H
#define VT_REPORT_PERF_H

#include "jsonw.h"
#include "report.h"

/* "ops_perf": [...] (unless compact) and "perf": {...} of rk. */
void report_perf_json(struct jsonw *w, const struct report_rank *rk, int compact);

#endif
