/*
 * crossrank: statistics of each per-rank scalar over the ranks, and the
 * stragglers they reveal (DESIGN.md, "Cross-rank").  vanalyze runs it on the
 * ranks of one run, vaggregate on ranks merged from many reports.
 *
 * Every entry of rep->ranks is one sample, even when two entries claim the
 * same rank number.  A rank contributes to a metric only where it has the
 * value: non-finite doubles are skipped, and ranks with analysed == 0 give
 * only span_ns and events.total.  The output depends on rep->ranks and the
 * options alone: sums run in ranks order, names sort by bytes.
 */
#ifndef VT_CROSSRANK_H
#define VT_CROSSRANK_H

#include "report.h"

struct crossrank_opts {
	double straggler_excess;	/* 0.10: slower than the median by more than this */
	double comm_deficit;		/* 0.30: less communication than the median by more */
};

#define CROSSRANK_OPTS_DEFAULT { 0.10, 0.30 }

/*
 * Fill rep->cross_rank (only when rep->nr_ranks >= 2; else it is emptied)
 * and rep->stragglers from rep->ranks, with the default thresholds.  Run
 * collectives_compute() first: where it found matched collectives
 * (straggler_rule "collectives"), its stragglers stay; otherwise the step
 * rule names them and sets straggler_rule to "steps" or "span".  Both
 * arrays and their metric names live in rep->arena.  Returns 0, or -1 when
 * out of memory (the two arrays are then empty).
 */
int crossrank_compute(struct report *rep);

/* As crossrank_compute(), with the thresholds in o. */
int crossrank_compute_opts(struct report *rep, const struct crossrank_opts *o);

/*
 * Beyond REPORT_ROWS_MAX phase paths over the ranks (unless rep->full),
 * the paths with the most time summed over the ranks keep their rows; the
 * rest are one row CROSSRANK_PHASES_OTHER of each rank's sum of them,
 * marked by nr_folded; a rank's own other row (report_fold_phases(), a
 * capped report read by vaggregate) joins that sum.
 */
#define CROSSRANK_PHASES_OTHER "phases_other.total_ns"

#endif
