/*
 * interval: unions of half-open time intervals [lo, hi), the arithmetic of
 * busy time, overlap (what the union of two sets lacks of their sum) and
 * phase totals.
 */
#ifndef VT_INTERVAL_H
#define VT_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "sat.h"

struct interval {
	int64_t lo, hi;
};

/*
 * Sort v[0..n) and merge it in place into disjoint intervals in order,
 * dropping empty ones.  Returns how many remain.
 */
size_t interval_union(struct interval *v, size_t n);

/* Total length of disjoint intervals. */
int64_t interval_length(const struct interval *v, size_t n);

/* Disjoint intervals in order, as interval_union_push() builds them. */
struct interval_set {
	struct interval *v;	/* owned; interval_set_release() frees it */
	size_t n, alloc;
};

void interval_set_release(struct interval_set *s);

/*
 * Append [lo, hi) to the disjoint intervals in s, joining it to the last
 * one when they touch: fed in order of lo, s ends as their union.  Empty
 * intervals are dropped.  -1 when out of memory (s unchanged).
 */
int interval_union_push(struct interval_set *s, int64_t lo, int64_t hi);

/* The length of the intersection of two sets of disjoint intervals in order. */
int64_t interval_overlap(const struct interval *a, size_t na, const struct interval *b,
			 size_t nb);

/* The length of [lo, hi) covered by disjoint intervals v[0..n) in order. */
int64_t interval_covered(const struct interval *v, size_t n, int64_t lo, int64_t hi);

/*
 * The length of the union of intervals fed one at a time in order of their
 * start, without storing them: zero it, interval_sweep_add() each, then ask
 * interval_sweep_length().  As in interval_union(), empty intervals count
 * for nothing and touching ones join.
 */
struct interval_sweep {
	int64_t lo, hi;		/* the open union interval, when open */
	int64_t total;		/* the closed ones */
	int open;
};

static inline void interval_sweep_add(struct interval_sweep *s, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return;
	if (s->open && lo <= s->hi) {
		if (hi > s->hi)
			s->hi = hi;
		return;
	}
	if (s->open)
		s->total = sat_add(s->total, sat_sub(s->hi, s->lo));
	s->lo = lo;
	s->hi = hi;
	s->open = 1;
}

static inline int64_t interval_sweep_length(const struct interval_sweep *s)
{
	return s->open ? sat_add(s->total, sat_sub(s->hi, s->lo)) : s->total;
}

/*
 * Disjoint intervals in time order, packed for one reading in order: each
 * as its distance from the end of the one before and its length, two
 * LEB128 varints (a few bytes each where a struct interval takes 16).  The
 * busy runs of a rank's device, which on a trace of nothing but kernels
 * are as many as the kernels.
 */
struct interval_list {
	struct buf bytes;
	uint64_t end;		/* the last interval's end (as unsigned: exact wrap) */
	size_t n;
};

void interval_list_init(struct interval_list *l);
void interval_list_release(struct interval_list *l);

/* Append [lo, hi): lo after the last end, hi > lo.  -1 when out of memory. */
int interval_list_add(struct interval_list *l, int64_t lo, int64_t hi);

struct interval_cursor {
	const unsigned char *p, *end;
	uint64_t at;		/* the end of the interval before */
};

void interval_cursor_init(struct interval_cursor *c, const struct interval_list *l);

/* The next interval into *v: 1, or 0 at the end. */
int interval_cursor_next(struct interval_cursor *c, struct interval *v);

#endif
