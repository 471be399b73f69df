/*
 * interval: unions and intersections of half-open time intervals [lo, hi),
 * the arithmetic of busy time, overlap and phase totals.
 */
#ifndef VT_INTERVAL_H
#define VT_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

struct interval {
	int64_t lo, hi;
};

/*
 * Sort v[0..n) and merge it in place into disjoint intervals in order,
 * dropping empty ones.  Returns how many remain.
 */
size_t interval_union(struct interval *v, size_t n);

/*
 * The union of two unions, in one linear pass, into out (room for na + nb).
 * Returns the count.
 */
size_t interval_merge(const struct interval *a, size_t na, const struct interval *b, size_t nb,
		      struct interval *out);

/*
 * interval_length() of the union of three unions, in one pass that writes
 * no union anywhere: on a trace of nothing but kernels, the array it would
 * take is the largest of the run.
 */
int64_t interval_union_length3(const struct interval *a, size_t na, const struct interval *b,
			       size_t nb, const struct interval *c, size_t nc);

/* Total length of disjoint intervals. */
int64_t interval_length(const struct interval *v, size_t n);

/* Length of the intersection of two unions (as interval_union() leaves them). */
int64_t interval_overlap(const struct interval *a, size_t na, const struct interval *b,
			 size_t nb);

#endif
