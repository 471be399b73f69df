/* mwu: see mwu.h. */
#include "mwu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct obs {
	int64_t v;
	int first;		/* from a */
};

static int cmp_obs(const void *x, const void *y)
{
	const struct obs *p = x, *q = y;

	return p->v < q->v ? -1 : p->v > q->v;
}

/*
 * P(U <= u) * C(n1 + n2, n1) without ties, by the recurrence on the
 * largest observation: it comes from the first sample (adding n2 to U) or
 * from the second.  f[i][j][k]: arrangements of i and j values with U = k.
 * Returns the two-sided p, or -1 when out of memory.
 */
static double exact_p(size_t n1, size_t n2, double u)
{
	size_t max = n1 * n2, w = max + 1;
	double *f = calloc((n1 + 1) * (n2 + 1) * w, sizeof(*f)), total = 0, below = 0, p;

	if (!f)
		return -1;
#define F(i, j, k) f[((i) * (n2 + 1) + (j)) * w + (k)]
	for (size_t i = 0; i <= n1; i++) {
		for (size_t j = 0; j <= n2; j++) {
			if (i == 0 || j == 0) {
				F(i, j, 0) = 1;
				continue;
			}
			for (size_t k = 0; k <= i * j; k++)
				F(i, j, k) = (k >= j ? F(i - 1, j, k - j) : 0) + F(i, j - 1, k);
		}
	}
	/* The distribution is symmetric around n1 n2 / 2: fold u to its lower side. */
	if (u > (double)max / 2)
		u = (double)max - u;
	for (size_t k = 0; k <= max; k++) {
		total += F(n1, n2, k);
		if ((double)k <= u)
			below += F(n1, n2, k);
	}
#undef F
	free(f);
	p = 2 * below / total;
	return p > 1 ? 1 : p;
}

int mwu_test(const int64_t *a, size_t na, const int64_t *b, size_t nb, struct mwu *r)
{
	size_t n = na + nb;
	struct obs *o;
	double r1 = 0, ties = 0, mean, var, z;
	int tied = 0;

	memset(r, 0, sizeof(*r));
	r->p = 1;
	if (!na || !nb)
		return 0;
	o = malloc(n * sizeof(*o));
	if (!o)
		return -1;
	for (size_t i = 0; i < na; i++)
		o[i] = (struct obs){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		o[na + i] = (struct obs){ b[i], 0 };
	qsort(o, n, sizeof(*o), cmp_obs);
	/* Ranks from 1, tied values sharing the mean of their ranks. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;

		while (j < n && o[j].v == o[i].v)
			j++;
		rank = ((double)i + 1 + (double)j) / 2;
		t = (double)(j - i);
		if (t > 1) {
			ties += t * t * t - t;
			tied = 1;
		}
		for (size_t k = i; k < j; k++)
			if (o[k].first)
				r1 += rank;
		i = j;
	}
	free(o);
	r->u1 = r1 - (double)na * ((double)na + 1) / 2;
	if (!tied && n <= MWU_EXACT_MAX) {
		double p = exact_p(na, nb, r->u1);

		if (p < 0)
			return -1;
		r->p = p;
		r->exact = 1;
		return 0;
	}
	mean = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	      (((double)n + 1) - ties / ((double)n * ((double)n - 1)));
	if (var <= 0)
		return 0;	/* every value equal: no evidence of a difference */
	z = fabs(r->u1 - mean) - 0.5;
	if (z < 0)
		z = 0;
	z /= sqrt(var);
	r->p = erfc(z / sqrt(2));
	return 0;
}
