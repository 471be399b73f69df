/*
 * test_mwu: the Mann-Whitney U test against values worked out elsewhere:
 * exact p-values by counting arrangements (C(10,5) = 252, C(6,3) = 20),
 * and the normal approximation with ties from the textbook formula
 * evaluated in python3 (math.erfc), to 1e-12.
 */
#include <math.h>

#include "check.h"
#include "mwu.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-300;
}

int main(void)
{
	static const int64_t lo5[] = { 1, 2, 3, 4, 5 }, hi5[] = { 10, 9, 8, 7, 6 };
	static const int64_t lo3[] = { 1, 2, 3 }, hi3[] = { 4, 5, 6 };
	static const int64_t t1[] = { 1, 2, 2 }, t2[] = { 2, 3, 4 };
	static const int64_t same[] = { 7, 7, 7, 7 };
	int64_t a[30], b[30];
	struct mwu r;

	/* Complete separation: only 2 of the C(10,5) arrangements are as extreme. */
	CHECK_EQ_INT(mwu_test(lo5, 5, hi5, 5, &r), 0);
	CHECKF(r.exact && r.u1 == 0 && near(r.p, 2.0 / 252), "u1 %g p %g", r.u1, r.p);
	CHECK_EQ_INT(mwu_test(hi5, 5, lo5, 5, &r), 0);
	CHECKF(r.exact && r.u1 == 25 && near(r.p, 2.0 / 252), "u1 %g p %g", r.u1, r.p);
	CHECK_EQ_INT(mwu_test(lo3, 3, hi3, 3, &r), 0);
	CHECKF(r.exact && near(r.p, 0.1), "p %g", r.p);

	/* Interleaved: U in the middle, p 1. */
	{
		static const int64_t x[] = { 1, 4, 5, 8 }, y[] = { 2, 3, 6, 7 };

		CHECK_EQ_INT(mwu_test(x, 4, y, 4, &r), 0);
		CHECKF(r.exact && r.u1 == 8 && r.p == 1, "u1 %g p %g", r.u1, r.p);
	}

	/* Ties: ranks 1, 3, 3 | 3, 5, 6; U1 = 1; normal approximation. */
	CHECK_EQ_INT(mwu_test(t1, 3, t2, 3, &r), 0);
	CHECKF(!r.exact && r.u1 == 1 && near(r.p, 0.16415972847851523), "u1 %g p %.17g", r.u1,
	       r.p);

	/* 30 against 30 shifted by 15 (15 ties): large samples, approximation. */
	for (int i = 0; i < 30; i++) {
		a[i] = i;
		b[i] = i + 15;
	}
	CHECK_EQ_INT(mwu_test(a, 30, b, 30, &r), 0);
	CHECKF(!r.exact && r.u1 == 112.5 && near(r.p, 6.247984928789204e-07), "u1 %g p %.17g",
	       r.u1, r.p);

	/* No evidence: equal values, or an empty side. */
	CHECK_EQ_INT(mwu_test(same, 4, same, 4, &r), 0);
	CHECK(r.p == 1);
	CHECK_EQ_INT(mwu_test(same, 4, same, 0, &r), 0);
	CHECK(r.p == 1 && r.u1 == 0);
	return check_done("test_mwu");
}
