/*
 * test_interval: unions, sweeps, lengths and overlaps against a reference
 * that marks every nanosecond of a small time line, on random intervals
 * (empty, touching, nested and out of order among them) and by hand on
 * the edges: touching intervals join, empty ones vanish.  The packed list
 * gives back what went in, from INT64_MIN to INT64_MAX.
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

static int cmp_lo(const void *x, const void *y)
{
	const struct interval *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The length of the union of v[0..n) by a sweep (v sorted by start here). */
static int64_t sweep(struct interval *v, size_t n)
{
	struct interval_sweep s = { 0 };

	qsort(v, n, sizeof(*v), cmp_lo);
	for (size_t i = 0; i < n; i++)
		interval_sweep_add(&s, v[i].lo, v[i].hi);
	return interval_sweep_length(&s);
}

static void test_random(void)
{
	for (int round = 0; round < 300; round++) {
		struct interval a[32], b[32], ab[64], u[32];
		unsigned char on_a[LINE] = { 0 }, on_b[LINE] = { 0 }, both[LINE];
		size_t na = random_set(a, 32), nb = random_set(b, 32), nu;
		int64_t overlap = 0, la, lb;

		mark(a, na, on_a);
		mark(b, nb, on_b);
		memcpy(u, a, na * sizeof(*a));
		nu = interval_union(u, na);
		CHECK_MSG(is_union(u, nu), "round %d: not a union", round);
		CHECK_EQ_INT(interval_length(u, nu), count(on_a));
		for (int t = 0; t < LINE; t++) {
			both[t] = on_a[t] | on_b[t];
			overlap += on_a[t] & on_b[t];
		}
		/* the sweeps, and the overlap as what the union lacks of the sum */
		memcpy(ab, a, na * sizeof(*a));
		memcpy(ab + na, b, nb * sizeof(*b));
		la = sweep(a, na);
		lb = sweep(b, nb);
		CHECK_EQ_INT(la, count(on_a));
		CHECK_EQ_INT(lb, count(on_b));
		CHECK_EQ_INT(sweep(ab, na + nb), count(both));
		CHECK_EQ_INT(la + lb - sweep(ab, na + nb), overlap);
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
	CHECK_EQ_INT(sweep(none, 0), 0);
	CHECK_EQ_INT(sweep(one, 1), 10);
}

/*
 * interval_union_push() fed in order of start builds the union;
 * interval_overlap() and interval_covered() measure against it as the
 * marked time line does.
 */
static void test_push_overlap(void)
{
	for (int round = 0; round < 300; round++) {
		struct interval a[32], b[32];
		unsigned char on_a[LINE] = { 0 }, on_b[LINE] = { 0 };
		size_t na = random_set(a, 32), nb = random_set(b, 32);
		struct interval_set ua = { 0 }, ub = { 0 };
		const struct interval *pa, *pb;
		int64_t both = 0, lo = (int64_t)(next() % LINE), hi = lo + (int64_t)(next() % 80);
		int64_t in_w = 0;

		mark(a, na, on_a);
		mark(b, nb, on_b);
		qsort(a, na, sizeof(*a), cmp_lo);
		qsort(b, nb, sizeof(*b), cmp_lo);
		for (size_t i = 0; i < na; i++)
			CHECK_EQ_INT(interval_union_push(&ua, a[i].lo, a[i].hi), 0);
		for (size_t i = 0; i < nb; i++)
			CHECK_EQ_INT(interval_union_push(&ub, b[i].lo, b[i].hi), 0);
		pa = ua.v;
		pb = ub.v;
		CHECK(is_union(pa, ua.n));
		CHECK_EQ_INT(interval_length(pa, ua.n), count(on_a));
		for (int t = 0; t < LINE; t++) {
			both += on_a[t] & on_b[t];
			in_w += t >= lo && t < hi && on_a[t];
		}
		CHECK_EQ_INT(interval_overlap(pa, ua.n, pb, ub.n), both);
		CHECK_EQ_INT(interval_covered(pa, ua.n, lo, hi), in_w);
		interval_set_release(&ua);
		interval_set_release(&ub);
	}
}

/* Random runs (short and huge distances) and the extremes, written and read back. */
static void test_list(void)
{
	struct interval v[2000], got;
	struct interval_list l;
	struct interval_cursor c;
	size_t n = 0, k = 0;
	int64_t at = INT64_MIN;

	interval_list_init(&l);
	v[n++] = (struct interval){ INT64_MIN, INT64_MIN + 1 };
	at = INT64_MIN + 1;
	while (n < 1999) {
		uint64_t r = next();
		/* mostly short gaps and runs, sometimes seconds or far more */
		int64_t gap = (int64_t)(r % 7 == 0 ? (next() >> 2) % ((uint64_t)1 << 50)
					: 1 + r % 5000);
		int64_t len = (int64_t)(r % 11 == 0 ? (next() >> 2) % ((uint64_t)1 << 40)
					: 1 + r % 300);

		if (at > INT64_MAX - gap - len - 2)
			break;
		v[n] = (struct interval){ at + gap, at + gap + len };
		at = v[n++].hi;
	}
	v[n++] = (struct interval){ INT64_MAX - 1, INT64_MAX };
	for (size_t i = 0; i < n; i++)
		CHECK(interval_list_add(&l, v[i].lo, v[i].hi) == 0);
	CHECK(l.n == n);
	/* a few bytes a run, against 16 for struct interval */
	CHECK(l.bytes.len < n * 8);
	interval_cursor_init(&c, &l);
	while (interval_cursor_next(&c, &got)) {
		if (k < n)
			CHECK_EQ_INT(got.lo, v[k].lo), CHECK_EQ_INT(got.hi, v[k].hi);
		k++;
	}
	CHECK(k == n);
	interval_list_release(&l);
	interval_cursor_init(&c, &l);
	CHECK(!interval_cursor_next(&c, &got));	/* empty: nothing to read */
}

int main(void)
{
	test_random();
	test_sorted();
	test_edges();
	test_push_overlap();
	test_list();
	return check_done("test_interval");
}
