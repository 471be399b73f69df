/*
 * ranges: rank numbers written as ranges ("ranks 5, 17-19, 40-4095"), for
 * messages and the terminal that stay a line long whatever the rank count.
 *
 * Numbers are added in ascending order (duplicates are ignored); runs of
 * consecutive numbers become one range, and past RANGES_SHOWN ranges the
 * text ends with how many more ranges and ranks there are.
 */
#ifndef VT_RANGES_H
#define VT_RANGES_H

#include <stdint.h>

#include "buf.h"

#define RANGES_SHOWN 12

struct ranges {
	struct buf text;		/* the ranges shown so far */
	int64_t lo, hi;			/* the open range; lo > hi: none */
	int64_t count;			/* numbers added */
	int64_t nr_ranges;		/* ranges closed or open */
	int64_t hidden;			/* numbers in ranges past RANGES_SHOWN */
};

void ranges_init(struct ranges *r);
void ranges_release(struct ranges *r);

/* Add rank n, at least the last one added. */
void ranges_add(struct ranges *r, int64_t n);

/* Add ranks lo to hi (lo <= hi), above the last one added. */
void ranges_add_span(struct ranges *r, int64_t lo, int64_t hi);

/*
 * The text, NUL-terminated and owned by r ("" when empty, or when memory
 * ran out): "3, 7-9" or "0-5, 8, ... and 40 more ranges (312 ranks)".
 */
const char *ranges_str(struct ranges *r);

#endif
