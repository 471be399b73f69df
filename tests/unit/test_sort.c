/*
 * test_sort: the radix and counting sorts against a plain insertion sort,
 * on random keys, on keys that differ only in their top or bottom byte,
 * on negative times and on duplicates (stability), by thread then time
 * (in order already and not), by a uint32 field (16-byte records and
 * others), plus the empty and one-element cases.
 */
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "sort.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	return check_rand(&rng);
}

/* The reference: a stable insertion sort of the identity by key. */
static void ref_perm(const uint64_t *key, uint32_t *perm, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = (uint32_t)i;
		size_t j = i;

		for (; j > 0 && key[perm[j - 1]] > key[v]; j--)
			perm[j] = perm[j - 1];
		perm[j] = v;
	}
}

static void check_u64(const uint64_t *key, size_t n, const char *what)
{
	uint32_t *got = sort_identity(n), *want = check_xmalloc(n * sizeof(*want) + 1);
	size_t bad = 0;

	ref_perm(key, want, n);
	CHECK_MSG(got && sort_perm_u64(key, got, n) == 0, "%s: sort_perm_u64 failed", what);
	for (size_t i = 0; got && i < n; i++)
		bad += got[i] != want[i];
	CHECK_MSG(bad == 0, "%s: %zu of %zu positions differ from the stable reference", what,
		  bad, n);
	free(got);
	free(want);
}

static void test_perm_u64(void)
{
	enum { N = 3000 };
	uint64_t *key = check_xmalloc(N * sizeof(*key));

	for (size_t i = 0; i < N; i++)
		key[i] = next();
	check_u64(key, N, "random keys");
	for (size_t i = 0; i < N; i++)
		key[i] = (next() & 0xff) << 56;
	check_u64(key, N, "top byte only (duplicates, stability)");
	for (size_t i = 0; i < N; i++)
		key[i] = next() & 0x3;
	check_u64(key, N, "bottom bits only");
	for (size_t i = 0; i < N; i++)
		key[i] = sort_key_i64((int64_t)(next() % 2000001) - 1000000);
	check_u64(key, N, "negative and positive times");
	check_u64(key, 1, "one key");
	check_u64(key, 0, "no key");
	free(key);
}

static void test_perm_id(void)
{
	enum { N = 2000, MAX = 37 };
	uint32_t id[N], *got = sort_identity(N), *want = check_xmalloc(N * sizeof(*want));
	uint64_t key[N];
	size_t bad = 0;

	for (size_t i = 0; i < N; i++)
		key[i] = id[i] = (uint32_t)(next() % (MAX + 1));
	ref_perm(key, want, N);
	CHECK(got && sort_perm_id(id, MAX, got, N) == 0);
	for (size_t i = 0; got && i < N; i++)
		bad += got[i] != want[i];
	CHECK_EQ_INT(bad, 0);
	free(got);
	free(want);
}

/*
 * sort_perm_id_key, sort_by_id_first_i64 and sort_runs_by_first_i64 against a
 * stable insertion sort by (id, key): keys already in order within each id
 * (the counting sort alone), random keys with many ties (the radix sort
 * too), one key out of order at the very end, many ids with short runs
 * (sort_by_id_first_i64's insertion sort), and pairs nearly in order, a
 * ninth of them anywhere (sorted aside and merged back, ties included).
 */
static void test_id_key(void)
{
	enum { N = 2500, MAX = 11, MANY = 999 };
	static uint32_t id[N];
	static uint64_t key[N];
	static struct rec {
		uint64_t key;
		uint32_t id, tag;
	} r[N];
	uint32_t *got = check_xmalloc(N * sizeof(*got)), *want = check_xmalloc(N * sizeof(*want));
	static size_t end[MANY + 2];
	size_t bad = 0;

	for (int round = 0; round < 5; round++) {
		uint32_t max = round == 3 ? MANY : MAX;

		for (size_t i = 0; i < N; i++) {
			id[i] = (uint32_t)(next() % (max + 1));
			key[i] = round == 0 ? i / 3 : round == 1 || round == 3 ? next() % 40 : i;
			if (round == 4) {	/* ids ascend, keys within; a ninth a little late */
				id[i] = (uint32_t)(i * (MAX + 1) / N);
				key[i] = i / 4;
				if (i >= 16 && next() % 9 == 0)
					key[i] -= 1 + next() % 3;	/* ties kept before */
			}
			got[i] = want[i] = (uint32_t)i;
		}
		if (round == 2)
			key[N - 1] = 0;
		for (size_t i = 1; i < N; i++) {	/* the reference */
			uint32_t v = want[i];
			size_t j = i;

			for (; j > 0; j--) {
				uint32_t w = want[j - 1];

				if (id[w] < id[v] || (id[w] == id[v] && key[w] <= key[v]))
					break;
				want[j] = w;
			}
			want[j] = v;
		}
		CHECK(sort_perm_id_key(id, max, key, got, N) == 0);
		for (size_t i = 0; i < N; i++) {
			bad += got[i] != want[i];
			r[i] = (struct rec){ key[i], id[i], (uint32_t)i };
		}
		CHECK(sort_by_id_first_i64(r, N, sizeof(r[0]), offsetof(struct rec, id), max) == 0);
		for (size_t i = 0; i < N; i++)
			bad += r[i].tag != want[i];
		/* counted out by id here, in file order, then sort_runs_by_first_i64() */
		memset(end, 0, sizeof(end));
		for (size_t i = 0; i < N; i++)
			end[id[i] + 1]++;
		for (size_t d = 1; d <= max + 1; d++)
			end[d] += end[d - 1];
		for (size_t i = 0; i < N; i++)
			r[end[id[i]]++] = (struct rec){ key[i], id[i], (uint32_t)i };
		CHECK(sort_runs_by_first_i64(r, sizeof(r[0]), end, max) == 0);
		for (size_t i = 0; i < N; i++)
			bad += r[i].tag != want[i];
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(sort_perm_id_key(id, MAX, key, got, 0) == 0);
	free(got);
	free(want);
}

static void test_i64(void)
{
	int64_t v[] = { 5, -3, INT64_MAX, 0, INT64_MIN, -3, 7 };
	const int64_t want[] = { INT64_MIN, -3, -3, 0, 5, 7, INT64_MAX };

	CHECK(sort_i64(v, sizeof(v) / sizeof(v[0])) == 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK_EQ_INT(v[i], want[i]);
	CHECK(sort_i64(v, 0) == 0);
}

/*
 * sort_by_first_i64 on 16-byte records against a stable insertion sort:
 * keys spread over all 8 bytes (odd and even pass counts), negative ones,
 * many ties (the tag shows that equal keys keep their order); and keys
 * nearly in order, with ties, where a seventh or two fifths break the
 * ascending run (sorted aside and merged back), and keys descending (most
 * break it: all radix sorted).
 */
static void test_by_first(void)
{
	enum { N = 3000 };
	struct rec {
		int64_t k, tag;
	} *got = malloc(N * sizeof(*got)), *want = malloc(N * sizeof(*want));
	uint64_t x = 88172645463325252ull;
	int bad = 0;

	for (int round = 0; round < 6; round++) {
		for (size_t i = 0; i < N; i++) {
			int64_t near = (int64_t)(i / 3) - 400;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			got[i].k = round == 0   ? (int64_t)x
				   : round == 1 ? (int64_t)(x % 50) - 25
				   : round == 2 ? (int64_t)(x & 0xff00)
				   : round == 3 ? (x % 7 ? near : near - (int64_t)(x % 90))
				   : round == 4 ? (x % 5 < 2 ? near + 40 - (int64_t)(x % 80) : near)
						: -(int64_t)i / 2;
			got[i].tag = (int64_t)i;
			want[i] = got[i];
		}
		for (size_t i = 1; i < N; i++)
			for (size_t j = i; j > 0 && want[j - 1].k > want[j].k; j--) {
				struct rec t = want[j];

				want[j] = want[j - 1];
				want[j - 1] = t;
			}
		CHECK(sort_by_first_i64(got, N, sizeof(*got)) == 0);
		for (size_t i = 0; i < N; i++)
			bad += got[i].k != want[i].k || got[i].tag != want[i].tag;
	}
	CHECK_EQ_INT(bad, 0);
	free(got);
	free(want);
}

/*
 * sort_by_u32_at() against a stable insertion sort: records of 16 bytes
 * (the fast path) and of 12, keys random, few, only the top byte, nearly
 * ascending (a few set aside) and all equal.
 */
static void test_by_u32(void)
{
	enum { N = 3000 };
	struct rec16 {
		int64_t tag;
		uint32_t k, pad;
	} *got = malloc(N * sizeof(*got)), *want = malloc(N * sizeof(*want));
	struct rec12 {
		uint32_t tag, k, pad;
	} *got12 = malloc(N * sizeof(*got12));
	int bad = 0;

	for (int round = 0; round < 5; round++) {
		for (size_t i = 0; i < N; i++) {
			uint64_t x = next();

			got[i].k = round == 0   ? (uint32_t)x
				   : round == 1 ? (uint32_t)(x % 50)
				   : round == 2 ? (uint32_t)(x & 0xff000000u)
				   : round == 3 ? (uint32_t)(x % 9 ? i : i - x % 40 + 40)
						: 7u;
			got[i].tag = (int64_t)i;
			got[i].pad = 0;
			want[i] = got[i];
			got12[i] = (struct rec12){ (uint32_t)i, got[i].k, 0 };
		}
		for (size_t i = 1; i < N; i++)
			for (size_t j = i; j > 0 && want[j - 1].k > want[j].k; j--) {
				struct rec16 t = want[j];

				want[j] = want[j - 1];
				want[j - 1] = t;
			}
		CHECK(sort_by_u32_at(got, N, sizeof(*got), offsetof(struct rec16, k)) == 0);
		CHECK(sort_by_u32_at(got12, N, sizeof(*got12), offsetof(struct rec12, k)) == 0);
		for (size_t i = 0; i < N; i++)
			bad += got[i].k != want[i].k || got[i].tag != want[i].tag ||
			       got12[i].k != want[i].k || (int64_t)got12[i].tag != want[i].tag;
	}
	CHECK_EQ_INT(bad, 0);
	free(got);
	free(want);
	free(got12);
}

/*
 * sort_middle_i64 against the middle of a sorted copy: odd and even
 * counts, negative values, many ties, one value, and keys that differ only
 * in the top byte.
 */
static void test_middle(void)
{
	enum { N = 1001 };
	int64_t v[N], w[N], lo, hi;
	int bad = 0;

	for (int round = 0; round < 5; round++) {
		size_t n = round == 3 ? 1 : round == 1 || round == 2 ? N - 1 : N;

		for (size_t i = 0; i < n; i++) {
			int64_t x = (int64_t)next();

			v[i] = round == 0   ? x
			       : round == 1 ? x % 7 - 3
			       : round == 4 ? (int64_t)(((uint64_t)(x & 0x7f)) << 56)
					    : x % 1000000;
			w[i] = v[i];
		}
		CHECK(sort_i64(w, n) == 0);
		sort_middle_i64(v, n, &lo, &hi);
		bad += lo != w[(n - 1) / 2] || hi != w[n / 2];
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	test_by_first();
	test_by_u32();
	test_perm_u64();
	test_perm_id();
	test_id_key();
	test_i64();
	test_middle();
	return check_done("test_sort");
}
