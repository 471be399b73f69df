/*
 * compare: the rows of a comparison of two reports.
 *
 * Run-level rows come first, one per metric of either side in name order;
 * kernels only for the top N of each side by run-level total (a kernel in
 * either top N is compared; one that exists on one side only is listed as
 * added or removed instead).  Then, when either side has more than one
 * rank, the same per rank, ranks matched by rank number (a rank on one
 * side only is listed, not compared).
 */
#ifndef VT_COMPARE_H
#define VT_COMPARE_H

#include <stddef.h>

#include "report.h"
#include "verdict.h"

struct comparison {
	struct row *rows;
	size_t nr_rows;
	const char **added, **removed;	/* kernel names: only in NEW, only in BASE */
	size_t nr_added, nr_removed;
	int64_t *ranks_only_base, *ranks_only_new;	/* ranks one side lacks: no rows */
	size_t nr_only_base, nr_only_new;
	size_t regressions, improvements;	/* rows with that verdict */
	size_t run_regressions;			/* ... among the run's rows */
	struct arena arena;			/* names made here */
};

/* top: kernels per side.  Returns 0, or -1 when out of memory. */
int compare_reports(struct comparison *c, const struct report *base, const struct report *new,
		    const struct thresholds *t, size_t top);

void comparison_release(struct comparison *c);

#endif
