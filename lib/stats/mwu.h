/*
 * mwu: the Mann-Whitney U test (Wilcoxon rank-sum), the rank-based test
 * vcompare uses to tell a real change of durations from noise.  It assumes
 * nothing about the shape of the distributions, which for step and kernel
 * times is long-tailed and often bimodal.
 *
 * Two-sided p-value: exact (the distribution of U by counting) when there
 * are no ties and n1 + n2 <= MWU_EXACT_MAX; otherwise the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5.
 */
#ifndef VT_MWU_H
#define VT_MWU_H

#include <stddef.h>
#include <stdint.h>

#define MWU_EXACT_MAX 40

struct mwu {
	double u1;		/* U of the first sample: pairs (a, b) with a > b, ties half */
	double p;		/* two-sided; 1 when either sample is empty */
	int exact;		/* p is exact, not the normal approximation */
};

/*
 * Test a[0..na) against b[0..nb).  Neither needs to be sorted.  Returns 0,
 * or -1 when out of memory (r is then p = 1).
 */
int mwu_test(const int64_t *a, size_t na, const int64_t *b, size_t nb, struct mwu *r);

#endif
