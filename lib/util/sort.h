/*
 * sort: stable sorts by integer keys in linear time, and the middle of
 * many keys by selection.
 *
 * The analyses sort millions of records by time, stream, thread or name;
 * qsort() moves whole records through a callback and dominated the end of
 * a run.  An index permutation is sorted by radix for 64-bit keys and by
 * counting for dense ids.  Records keyed by their first int64, by a key
 * function, or by a thread id and then their time are sorted in place,
 * with no key or index arrays (those were the peak of a kernel-only
 * trace, and these sorts run while every analysis's records are held):
 * where most already come in order, only those that break the run are
 * sorted, aside.
 */
#ifndef VT_SORT_H
#define VT_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A signed time as a key that sorts the same way unsigned. */
static inline uint64_t sort_key_i64(int64_t v)
{
	return (uint64_t)v ^ (1ull << 63);
}

/*
 * Reorder perm[0..n) so that key[perm[i]] ascends, keeping the order of
 * equal keys.  Returns 0, or -1 when out of memory (perm unchanged).
 */
int sort_perm_u64(const uint64_t *key, uint32_t *perm, size_t n);

/* Likewise by id[perm[i]], ids from 0 to max_id (a counting sort). */
int sort_perm_id(const uint32_t *id, uint32_t max_id, uint32_t *perm, size_t n);

/*
 * Reorder perm[0..n) by id[perm[i]] (0 to max_id), then key[perm[i]],
 * keeping the order of equal pairs.  Records by thread are mostly in time
 * order already: then the counting sort by id is all it costs.  Returns 0,
 * or -1 when out of memory.
 */
int sort_perm_id_key(const uint32_t *id, uint32_t max_id, const uint64_t *key, uint32_t *perm,
		     size_t n);

/*
 * Sort v[0..n) ascending in place.  0, or -1 when out of memory (the same
 * values, in some order).
 */
int sort_i64(int64_t *v, size_t n);

/* A record's sort key, for sort_recs_by_key(): ctx is the caller's. */
typedef int64_t (*sort_key_of)(const void *rec, const void *ctx);

/*
 * Sort n records of `size` bytes in place by key(rec, ctx), keeping the
 * order of equal keys, as sort_by_first_i64() does (which is this with
 * the key a load, inlined): for records whose key is not a field, such as
 * a value held in a side table.  0, or -1 when out of memory (the same
 * records, in some order).
 */
int sort_recs_by_key(void *recs, size_t n, size_t size, sort_key_of key, const void *ctx);

/*
 * sort_recs_by_key() with the key the uint32 at byte off of each record,
 * a load, inlined: as fast as sort_by_first_i64().
 */
int sort_by_u32_at(void *recs, size_t n, size_t size, size_t off);

/*
 * The middle keys of n records (n > 0) by key(rec, ctx), selected, not
 * sorted (no copy, no allocation): *lo and *hi the (n-1)/2-th and n/2-th
 * smallest (0-based), the same key when n is odd.  A median is their mean.
 */
void sort_middle_by_key(const void *recs, size_t n, size_t size, sort_key_of key,
			const void *ctx, int64_t *lo, int64_t *hi);

/* sort_middle_by_key() of the values v[0..n). */
void sort_middle_i64(const int64_t *v, size_t n, int64_t *lo, int64_t *hi);

/*
 * Sort n records of `size` bytes (a multiple of 8) in place by the int64
 * each starts with, keeping the order of equal keys: those that break the
 * ascending run sorted aside and merged back, or all of them through one
 * scratch copy where most do.  0, or -1 when out of memory (the same
 * records, in some order).
 */
int sort_by_first_i64(void *recs, size_t n, size_t size);

/*
 * Sort n records of `size` bytes (a multiple of 8, at most 64) in place by
 * the uint32 id at byte id_off (0 to max_id), then the int64 each starts
 * with, keeping the order of equal pairs.  As sort_by_first_i64(), those
 * that break the ascending run are sorted aside and merged back where few
 * do; the records sorted go through a counting sort by id (one scratch
 * copy of them), then each id's run by time where it is not in order
 * already (records of a thread mostly are).  No index or key arrays:
 * these sorts run while every analysis's records are held.  0, or -1 when
 * out of memory (the same records, in some order).
 */
int sort_by_id_first_i64(void *recs, size_t n, size_t size, size_t id_off, uint32_t max_id);

/*
 * The second half of sort_by_id_first_i64(), for records that a caller
 * counted out by id itself: id d's run is [end[d - 1], end[d]) (from 0
 * for id 0), each sorted by the int64 its records start with, keeping
 * the order of equal keys.  size: a multiple of 8, at most 64.  0, or -1
 * when out of memory (the same records, in some order).
 */
int sort_runs_by_first_i64(void *recs, size_t size, const size_t *end, uint32_t max_id);

/* The int64 a record starts with: the key of sort_by_first_i64() and the searches below. */
static inline int64_t sort_first_i64(const void *rec, const void *ctx)
{
	int64_t k;

	(void)ctx;
	memcpy(&k, rec, sizeof(k));
	return k;
}

/*
 * The first of records lo..hi-1 (of size bytes, in ascending order of
 * key(rec, ctx)) whose key is not below want; hi when none.  Always
 * inlined: with a constant key (a load) and size, the loop is plain code.
 */
static inline __attribute__((always_inline)) size_t key_lower_bound(const void *recs, size_t size,
								    size_t lo, size_t hi,
								    sort_key_of key,
								    const void *ctx, int64_t want)
{
	const char *r = recs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key(r + mid * size, ctx) < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * key_lower_bound() over records 0..n-1, searched from index at (a
 * previous answer) by galloping: keys asked in about ascending order, as
 * correlation ids in file order are, cost a few steps each instead of a
 * whole bisection, and none costs more than two.
 */
static inline __attribute__((always_inline)) size_t
key_lower_bound_from(const void *recs, size_t size, size_t n, size_t at, sort_key_of key,
		     const void *ctx, int64_t want)
{
	const char *r = recs;
	size_t lo, hi, step = 1;

	if (at > n)
		at = n;
	/* Bracket it: every record before lo is below want, none from hi on. */
	if (at < n && key(r + at * size, ctx) < want) {
		for (lo = hi = at + 1; hi < n && key(r + hi * size, ctx) < want; step *= 2) {
			lo = hi + 1;
			hi = n - hi > step ? hi + step : n;
		}
	} else {
		for (lo = hi = at; lo > 0 && key(r + (lo - 1) * size, ctx) >= want; step *= 2) {
			hi = lo - 1;
			lo = lo > step ? lo - step : 0;
		}
	}
	return key_lower_bound(recs, size, lo, hi, key, ctx, want);
}

/* key_lower_bound() by the int64 each record starts with; loops pass a constant size. */
static inline size_t first_i64_lower_bound(const void *recs, size_t size, size_t lo, size_t hi,
					   int64_t key)
{
	return key_lower_bound(recs, size, lo, hi, sort_first_i64, NULL, key);
}

/* key_lower_bound_from() by the int64 each record starts with. */
static inline size_t first_i64_lower_bound_from(const void *recs, size_t size, size_t n, size_t at,
						int64_t key)
{
	return key_lower_bound_from(recs, size, n, at, sort_first_i64, NULL, key);
}

/* perm = 0, 1, ..., n-1 in a new array (caller frees), or NULL. */
uint32_t *sort_identity(size_t n);

#endif
