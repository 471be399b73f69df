/*
 * compare: the rows of a comparison of two reports.
 *
 * Run-level rows come first, one per metric of either side in name order;
 * kernels only for the top N of each side by run-level total (a kernel in
 * either top N is compared).  Every kernel that exists on one side only is
 * listed as added or removed with its run-level total, whatever its rank.
 * Then, when either side has more than one rank, the same per rank, ranks
 * matched by rank number (a rank on one side only is listed, not compared).
 *
 * Like is compared with like:
 *   - phases by path without the ProfilerStep#* wrapper (metrics.h);
 *   - steps.* only when both sides count the same spans as steps
 *     (steps.pattern): a run with ProfilerStep spans and one without
 *     count videos and denoising steps;
 *   - gpu.effective_utilization instead of gpu.utilization where both sides
 *     have it (runs of 2+ ranks with matched collectives), and elsewhere a
 *     utilization that rose no more than communication time did is
 *     "more waiting", not an improvement.
 */
#ifndef VT_COMPARE_H
#define VT_COMPARE_H

#include <stddef.h>

#include "report.h"
#include "verdict.h"

/* A kernel on one side only. */
struct kernel_delta {
	const char *name;		/* the kernel's name (in the comparison's arena) */
	double total_ns;		/* its run-level total: the worst rank's */
};

struct comparison {
	struct row *rows;
	size_t nr_rows;
	struct kernel_delta *added, *removed;	/* only in NEW, only in BASE; by total descending */
	size_t nr_added, nr_removed;
	double added_ns, removed_ns;		/* their totals summed */
	const char *steps_base, *steps_new;	/* step patterns that differ (steps.* not compared),
						   or NULL */
	size_t per_step_base, per_step_new;	/* steps (videos) of each side where their
						   numbers differ: the totals compared per one;
						   0: as they are */
	int per_generation;			/* ... per video, not per step */
	int64_t *ranks_only_base, *ranks_only_new;	/* ranks one side lacks: no rows */
	size_t nr_only_base, nr_only_new;
	size_t regressions, improvements;	/* rows with that verdict */
	size_t unchanged;			/* rows with verdict same */
	size_t run_regressions;			/* ... among the run's rows */
	struct arena arena;			/* names made here */
};

/* top: kernels per side.  Returns 0, or -1 when out of memory. */
int compare_reports(struct comparison *c, const struct report *base, const struct report *new,
		    const struct thresholds *t, size_t top);

void comparison_release(struct comparison *c);

#endif
