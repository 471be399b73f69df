/*
 * test_interval: unions, merges, lengths and overlaps against a reference
 * that marks every nanosecond of a small time line, on random intervals
 * (empty, touching, nested and out of order among them) and by hand on
 * the edges: touching intervals join, empty ones vanish.
 */
#include "check.h"
#include "interval.h"

#define LINE 400		/* the reference time line: [0, LINE) ns */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	return check_rand(&rng);
}

static void mark(const struct interval *v, size_t n, unsigned char *on)
{
	for (size_t i = 0; i < n; i++)
		for (int64_t t = v[i].lo; t < v[i].hi; t++)
			on[t] = 1;
}

static int64_t count(const unsigned char *on)
{
	int64_t k = 0;

	for (int t = 0; t < LINE; t++)
		k += on[t];
	return k;
}

static size_t random_set(struct interval *v, size_t max)
{
	size_t n = (size_t)(next() % (max + 1));

	for (size_t i = 0; i < n; i++) {
		int64_t lo = (int64_t)(next() % LINE), len = (int64_t)(next() % 40) - 5;

		v[i].lo = lo;
		v[i].hi = lo + len > LINE ? LINE : lo + len;
	}
	return n;
}

/* v[0..n) is a union as interval_union() promises: sorted, disjoint, not touching, not empty. */
static int is_union(const struct interval *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].hi <= v[i].lo || (i && v[i].lo <= v[i - 1].hi))
			return 0;
	return 1;
}

static void test_random(void)
{
	for (int round = 0; round < 300; round++) {
		struct interval a[32], b[32], m[64];
		unsigned char on_a[LINE] = { 0 }, on_b[LINE] = { 0 }, both[LINE];
		size_t na = random_set(a, 32), nb = random_set(b, 32), nm;
		int64_t overlap = 0;

		mark(a, na, on_a);
		mark(b, nb, on_b);
		na = interval_union(a, na);
		nb = interval_union(b, nb);
		CHECK_MSG(is_union(a, na) && is_union(b, nb), "round %d: not a union", round);
		CHECK_EQ_INT(interval_length(a, na), count(on_a));
		nm = interval_merge(a, na, b, nb, m);
		CHECK_MSG(is_union(m, nm), "round %d: merge is not a union", round);
		for (int t = 0; t < LINE; t++) {
			both[t] = on_a[t] | on_b[t];
			overlap += on_a[t] & on_b[t];
		}
		CHECK_EQ_INT(interval_length(m, nm), count(both));
		CHECK_EQ_INT(interval_overlap(a, na, b, nb), overlap);

		/* Three at once, written nowhere, against the time line of all three. */
		{
			struct interval c[32];
			unsigned char on_c[LINE] = { 0 }, any[LINE];
			size_t nc = random_set(c, 32);

			mark(c, nc, on_c);
			nc = interval_union(c, nc);
			for (int t = 0; t < LINE; t++)
				any[t] = both[t] | on_c[t];
			CHECK_EQ_INT(interval_union_length3(a, na, b, nb, c, nc), count(any));
			CHECK_EQ_INT(interval_union_length3(c, nc, a, na, b, nb), count(any));
			CHECK_EQ_INT(interval_union_length3(a, na, a, na, a, na), count(on_a));
			CHECK_EQ_INT(interval_union_length3(NULL, 0, b, nb, NULL, 0), count(on_b));
		}
	}
}

/* Input already in order is not sorted (no arrays), with the same union. */
static void test_sorted(void)
{
	struct interval v[64];
	unsigned char on[LINE] = { 0 };
	int64_t t = 0;

	for (size_t i = 0; i < 64; i++, t += 3) {
		v[i].lo = t;
		v[i].hi = t + (int64_t)(i % 5);	/* some empty, some touching */
	}
	mark(v, 64, on);
	CHECK_EQ_INT(interval_length(v, interval_union(v, 64)), count(on));
}

static void test_edges(void)
{
	struct interval v[] = { { 10, 20 }, { 20, 30 }, { 5, 5 }, { 40, 35 }, { 0, 1 } };
	struct interval one[] = { { -5, 5 } }, none[1];
	size_t n = interval_union(v, 5);

	CHECK_EQ_INT(n, 2);	/* [0,1) and [10,30): touching joins, empty and reversed vanish */
	CHECK(v[0].lo == 0 && v[0].hi == 1 && v[1].lo == 10 && v[1].hi == 30);
	CHECK_EQ_INT(interval_union(none, 0), 0);
	CHECK_EQ_INT(interval_length(none, 0), 0);
	CHECK_EQ_INT(interval_overlap(one, 1, none, 0), 0);
	CHECK_EQ_INT(interval_overlap(one, 1, v, n), 1);
}

int main(void)
{
	test_random();
	test_sorted();
	test_edges();
	return check_done("test_interval");
}
