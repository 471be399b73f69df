/*
 * sort: see sort.h.  The radix sorts are LSD with 8-bit digits, over (key,
 * index) pairs or over the records themselves, and skip every digit in
 * which all keys agree: timestamps of one trace share their top bytes, so
 * a sort by time takes 4 or 5 passes.  The in-place sorts share one
 * skeleton, set_aside_sort().
 */
#include "sort.h"

#include "hugepage.h"

#include <stdlib.h>
#include <string.h>

struct pair {
	uint64_t key;
	uint32_t idx;
};

uint32_t *sort_identity(size_t n)
{
	uint32_t *p = hugepage_malloc((n ? n : 1) * sizeof(*p));

	if (p)
		for (size_t i = 0; i < n; i++)
			p[i] = (uint32_t)i;
	return p;
}

int sort_perm_u64(const uint64_t *key, uint32_t *perm, size_t n)
{
	struct pair *a, *b, *t;
	uint64_t diff = 0;
	size_t i;

	if (n < 2)
		return 0;
	/* Traces are mostly in time order already: then there is nothing to do. */
	for (i = 1; i < n && key[perm[i - 1]] <= key[perm[i]]; i++)
		;
	if (i == n)
		return 0;
	a = hugepage_malloc(n * sizeof(*a));
	b = hugepage_malloc(n * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (i = 0; i < n; i++) {
		a[i].key = key[perm[i]];
		a[i].idx = perm[i];
		diff |= a[i].key ^ a[0].key;
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;

		if (!((diff >> shift) & 0xff))
			continue;
		for (i = 0; i < n; i++)
			count[(a[i].key >> shift) & 0xff]++;
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i].key >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		perm[i] = a[i].idx;
	free(a);
	free(b);
	return 0;
}

/*
 * LSD radix sort of n records of `size` bytes by key(rec, ctx) over the
 * bytes in which the keys differ, through one scratch copy of the records:
 * no key array, no permutation.
 * Always inlined, with a constant size and key where it can be, so that
 * the copies are plain moves and the key a load (else the compiler merges
 * the calls of sort_by_first_i64() into one that calls memcpy() per
 * record).
 */
static inline __attribute__((always_inline)) int radix_recs(char *recs, size_t n, size_t size,
							    sort_key_of key, const void *ctx)
{
	char *a = recs, *b, *t;
	uint64_t diff = 0, first;

	if (n < 2)
		return 0;
	first = sort_key_i64(key(a, ctx));
	for (size_t i = 1; i < n; i++)
		diff |= sort_key_i64(key(a + i * size, ctx)) ^ first;
	if (!diff)	/* all keys equal: nothing moves */
		return 0;
	if (!(b = hugepage_malloc(n * size)))
		return -1;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;

		if (!((diff >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(sort_key_i64(key(a + i * size, ctx)) >> shift) & 0xff]++;
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t k = sort_key_i64(key(a + i * size, ctx));

			memcpy(b + count[(k >> shift) & 0xff]++ * size, a + i * size, size);
		}
		t = a;
		a = b;
		b = t;
	}
	if (a != recs) {	/* an odd number of passes: the result is in the scratch */
		memcpy(recs, a, n * size);
		b = a;
	}
	free(b);
	return 0;
}

/*
 * Sort n records of `size` bytes stably in the order below() gives, where
 * most come nearly in that order already (a trace's events by time, its
 * correlations in file order): those that break the ascending run (a
 * record below the last kept before it) move aside, in order; only they
 * are sorted, by sort_all(), through a copy of them alone, and they merge
 * back from the end.  A kept record equal to one set aside came before it
 * in the file (each set aside came after a greater one kept), so on a tie
 * the one aside goes later.  Where most break the run, sort_all() sorts
 * them all.  Always inlined, with below() and sort_all() constant, so that
 * the comparisons and copies are plain code.
 */
static inline __attribute__((always_inline)) int set_aside_sort(
	char *r, size_t n, size_t size, int (*below)(const char *a, const char *b, const void *ctx),
	int (*sort_all)(char *recs, size_t n, size_t size, const void *ctx), const void *ctx)
{
	size_t nr_aside = 0, last = 0, m = 0, j = 0;
	char *aside;

	if (n < 2)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if (below(r + i * size, r + last * size, ctx))
			nr_aside++;
		else
			last = i;
	}
	if (!nr_aside)	/* also when all are equal: records often come in order */
		return 0;
	if (nr_aside > n / 2)
		return sort_all(r, n, size, ctx);
	if (!(aside = hugepage_malloc(nr_aside * size)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (m && below(r + i * size, r + (m - 1) * size, ctx)) {
			memcpy(aside + j++ * size, r + i * size, size);
			continue;
		}
		if (m != i)	/* a record or more apart: no overlap */
			memcpy(r + m * size, r + i * size, size);
		m++;
	}
	if (sort_all(aside, j, size, ctx)) {
		/* every record is still here, in another order: put them back as split */
		memcpy(r + m * size, aside, j * size);
		free(aside);
		return -1;
	}
	for (size_t i = m, p = n; j > 0;) {
		if (i > 0 && below(aside + (j - 1) * size, r + (i - 1) * size, ctx))
			memcpy(r + --p * size, r + --i * size, size);
		else
			memcpy(r + --p * size, aside + --j * size, size);
	}
	free(aside);
	return 0;
}

/* sort_by_first_i64()'s order: by the int64 each record starts with. */
static inline __attribute__((always_inline)) int below_first(const char *a, const char *b,
								 const void *ctx)
{
	return sort_first_i64(a, ctx) < sort_first_i64(b, ctx);
}

static inline __attribute__((always_inline)) int radix_first(char *recs, size_t n, size_t size,
								 const void *ctx)
{
	return radix_recs(recs, n, size, sort_first_i64, ctx);
}

/* sort_recs_by_key()'s order: its key function and the caller's context. */
struct key_order {
	sort_key_of key;
	const void *ctx;
};

static int below_key(const char *a, const char *b, const void *ctx)
{
	const struct key_order *o = ctx;

	return o->key(a, o->ctx) < o->key(b, o->ctx);
}

static int radix_key(char *recs, size_t n, size_t size, const void *ctx)
{
	const struct key_order *o = ctx;

	return radix_recs(recs, n, size, o->key, o->ctx);
}

int sort_recs_by_key(void *recs, size_t n, size_t size, sort_key_of key, const void *ctx)
{
	struct key_order o = { key, ctx };

	return set_aside_sort(recs, n, size, below_key, radix_key, &o);
}

/*
 * The k-th smallest key of n records (0-based, k < n), by radix selection
 * on bytes: a counting pass per byte in which the keys differ, over the
 * records whose keys agree with it in the bytes above; no copy.
 */
static inline __attribute__((always_inline)) int64_t nth_recs(const char *r, size_t n,
							      size_t size, size_t k,
							      sort_key_of key, const void *ctx)
{
	uint64_t prefix = 0, mask = 0, first = sort_key_i64(key(r, ctx)), diff = 0;

	for (size_t i = 1; i < n; i++)
		diff |= sort_key_i64(key(r + i * size, ctx)) ^ first;
	for (int shift = 56; shift >= 0; shift -= 8) {
		size_t count[256] = { 0 }, b = 0;

		if (!((diff >> shift) & 0xff)) {	/* every key has first's byte */
			prefix |= first & (uint64_t)0xff << shift;
			mask |= (uint64_t)0xff << shift;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t x = sort_key_i64(key(r + i * size, ctx));

			if ((x & mask) == prefix)
				count[(x >> shift) & 0xff]++;
		}
		while (k >= count[b])
			k -= count[b++];
		prefix |= (uint64_t)b << shift;
		mask |= (uint64_t)0xff << shift;
	}
	return (int64_t)(prefix ^ (1ull << 63));
}

/* sort_middle_by_key(), inlined with the key where it is constant. */
static inline __attribute__((always_inline)) void middle_recs(const void *recs, size_t n,
							      size_t size, sort_key_of key,
							      const void *ctx, int64_t *lo,
							      int64_t *hi)
{
	const char *r = recs;
	size_t less = 0;

	*lo = *hi = nth_recs(r, n, size, n / 2, key, ctx);
	if (n % 2)
		return;
	/* the one below: the upper one again, or the largest key below it */
	*lo = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		int64_t x = key(r + i * size, ctx);

		if (x < *hi) {
			less++;
			*lo = x > *lo ? x : *lo;
		}
	}
	if (less < n / 2)
		*lo = *hi;
}

void sort_middle_by_key(const void *recs, size_t n, size_t size, sort_key_of key,
			const void *ctx, int64_t *lo, int64_t *hi)
{
	middle_recs(recs, n, size, key, ctx, lo, hi);
}

/* sort_by_u32_at()'s key: the uint32 at the offset ctx points to. */
static inline __attribute__((always_inline)) int64_t u32_at(const void *rec, const void *ctx)
{
	uint32_t v;

	memcpy(&v, (const char *)rec + *(const size_t *)ctx, sizeof(v));
	return v;
}

static inline __attribute__((always_inline)) int below_u32(const char *a, const char *b,
							   const void *ctx)
{
	return u32_at(a, ctx) < u32_at(b, ctx);
}

static inline __attribute__((always_inline)) int radix_u32(char *recs, size_t n, size_t size,
							   const void *ctx)
{
	return radix_recs(recs, n, size, u32_at, ctx);
}

int sort_by_u32_at(void *recs, size_t n, size_t size, size_t off)
{
	if (size == 16)
		return set_aside_sort(recs, n, 16, below_u32, radix_u32, &off);
	return set_aside_sort(recs, n, size, below_u32, radix_u32, &off);
}

void sort_middle_i64(const int64_t *v, size_t n, int64_t *lo, int64_t *hi)
{
	middle_recs(v, n, sizeof(*v), sort_first_i64, NULL, lo, hi);
}

int sort_i64(int64_t *v, size_t n)
{
	return set_aside_sort((char *)v, n, sizeof(*v), below_first, radix_first, NULL);
}

int sort_by_first_i64(void *recs, size_t n, size_t size)
{
	if (size == 16)
		return set_aside_sort(recs, n, 16, below_first, radix_first, NULL);
	if (size == 24)
		return set_aside_sort(recs, n, 24, below_first, radix_first, NULL);
	if (size == 32)
		return set_aside_sort(recs, n, 32, below_first, radix_first, NULL);
	return set_aside_sort(recs, n, size, below_first, radix_first, NULL);
}

/* The n records at r (size bytes each) by the int64 each starts with, stably, by insertion. */
static void insert_by_first_i64(char *r, size_t n, size_t size, char *tmp)
{
	for (size_t i = 1; i < n; i++) {
		int64_t k, p;
		size_t j = i;

		memcpy(&k, r + i * size, sizeof(k));
		memcpy(&p, r + (i - 1) * size, sizeof(p));
		if (p <= k)	/* in place already */
			continue;
		memcpy(tmp, r + i * size, size);
		while (j > 0 && (memcpy(&p, r + (j - 1) * size, sizeof(p)), p > k)) {
			memcpy(r + j * size, r + (j - 1) * size, size);
			j--;
		}
		memcpy(r + j * size, tmp, size);
	}
}

#define RUN_BY_INSERTION 16	/* longer runs of one id out of time order: radix sorted */

/* The id and the time of record r, for sort_by_id_first_i64(). */
static inline void id_first(const char *r, size_t id_off, uint32_t *id, int64_t *k)
{
	memcpy(id, r + id_off, sizeof(*id));
	memcpy(k, r, sizeof(*k));
}

int sort_runs_by_first_i64(void *recs, size_t size, const size_t *end, uint32_t max_id)
{
	char *r = recs, tmp[64];

	if (size > sizeof(tmp))
		return -1;
	for (size_t d = 0, lo = 0; d <= max_id; lo = end[d++]) {
		size_t m = end[d] - lo;

		if (m <= RUN_BY_INSERTION)
			insert_by_first_i64(r + lo * size, m, size, tmp);
		else if (sort_by_first_i64(r + lo * size, m, size))
			return -1;
	}
	return 0;
}

/*
 * sort_by_id_first_i64() of records not in order: counted out by id
 * through one scratch copy, then each id's run by time where it is not in
 * order already.
 */
static int by_id_runs(char *r, size_t n, size_t size, size_t id_off, uint32_t max_id)
{
	size_t *start = hugepage_calloc((size_t)max_id + 2, sizeof(*start));
	char *out = hugepage_malloc((n ? n : 1) * size);
	uint32_t id;
	int rc = -1;

	if (!start || !out)
		goto out;
	for (size_t i = 0; i < n; i++) {
		memcpy(&id, r + i * size + id_off, sizeof(id));
		start[id + 1]++;
	}
	for (size_t d = 1; d <= (size_t)max_id + 1; d++)
		start[d] += start[d - 1];
	for (size_t i = 0; i < n; i++) {
		memcpy(&id, r + i * size + id_off, sizeof(id));
		memcpy(out + start[id]++ * size, r + i * size, size);
	}
	memcpy(r, out, n * size);
	free(out);
	out = NULL;
	/* start[d] is now the end of id d's run */
	rc = sort_runs_by_first_i64(r, size, start, max_id);
out:
	free(start);
	free(out);
	return rc;
}

/* sort_by_id_first_i64()'s order: where the id is, and its bound. */
struct id_order {
	size_t id_off;
	uint32_t max_id;
};

static inline int below_id_first(const char *a, const char *b, const void *ctx)
{
	const struct id_order *o = ctx;
	uint32_t ia, ib;
	int64_t ka, kb;

	id_first(a, o->id_off, &ia, &ka);
	id_first(b, o->id_off, &ib, &kb);
	return ia < ib || (ia == ib && ka < kb);
}

static inline int sort_all_by_id(char *recs, size_t n, size_t size, const void *ctx)
{
	const struct id_order *o = ctx;

	return by_id_runs(recs, n, size, o->id_off, o->max_id);
}

int sort_by_id_first_i64(void *recs, size_t n, size_t size, size_t id_off, uint32_t max_id)
{
	struct id_order o = { id_off, max_id };

	if (size > 64)	/* by_id_runs()'s insertion holds a record */
		return n < 2 ? 0 : -1;
	return set_aside_sort(recs, n, size, below_id_first, sort_all_by_id, &o);
}

int sort_perm_id(const uint32_t *id, uint32_t max_id, uint32_t *perm, size_t n)
{
	size_t *count, pos = 0;
	uint32_t *out;

	if (n < 2)
		return 0;
	count = hugepage_calloc((size_t)max_id + 1, sizeof(*count));
	out = hugepage_malloc(n * sizeof(*out));
	if (!count || !out) {
		free(count);
		free(out);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		count[id[perm[i]]]++;
	for (size_t d = 0; d <= max_id; d++) {
		size_t c = count[d];

		count[d] = pos;
		pos += c;
	}
	for (size_t i = 0; i < n; i++)
		out[count[id[perm[i]]]++] = perm[i];
	memcpy(perm, out, n * sizeof(*perm));
	free(count);
	free(out);
	return 0;
}

int sort_perm_id_key(const uint32_t *id, uint32_t max_id, const uint64_t *key, uint32_t *perm,
		     size_t n)
{
	size_t i = 1;

	if (sort_perm_id(id, max_id, perm, n))
		return -1;
	while (i < n && (id[perm[i - 1]] != id[perm[i]] || key[perm[i - 1]] <= key[perm[i]]))
		i++;
	if (i == n)
		return 0;
	/* stable sorts: by key, then by id, leaves equal (id, key) in their first order */
	return sort_perm_u64(key, perm, n) || sort_perm_id(id, max_id, perm, n) ? -1 : 0;
}

