/*
 * term_vaggregate: vaggregate's terminal summary of a merged report.
 *
 * What was read (reports, ranks, what was skipped), then one row per
 * cross-rank metric: min and max with the ranks holding them, avg, median
 * and population stddev, all in the row's unit; then stragglers and
 * suggestions.  Each row reads "MIN rMIN MAX rMAX AVG MEDIAN STDDEV UNIT
 * METRIC": the metric, which may hold spaces (phase names), comes last so
 * that scripts can split the rest on blanks.  Colour only on a terminal
 * without NO_COLOR.
 *
 * The summary stays a screen long whatever the rank count: past
 * SUMMARY_MAX_LIST stragglers, they are one line of rank ranges and the
 * SUMMARY_WORST worst in full.  Findings are one per rule already, their
 * rank groups cut short by suggest.c.
 */
#ifndef VT_TERM_VAGGREGATE_H
#define VT_TERM_VAGGREGATE_H

#include <stdio.h>

#include "merge.h"
#include "report.h"

/* Phase rows beyond this many are left to the report. */
#define SUMMARY_MAX_PHASES 16
#define SUMMARY_MAX_LIST 16
#define SUMMARY_WORST 3

void term_vaggregate(FILE *f, const struct report *rep, const struct merge_stats *st, int details);

#endif
