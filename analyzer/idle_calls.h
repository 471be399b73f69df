/*
 * idle_calls: the runtime calls idle.c reads, packed in file order.
 *
 * The attribution reads the calls in file order (which launched something,
 * the first with each correlation, the last before a time), so they are
 * kept as a byte stream: per call, zigzag LEB128 varints of its start and
 * correlation as differences from the call before, its thread (with a bit
 * for "has a correlation"), its name id and its duration (the medians of
 * idle.c's slow calls).  About 8 bytes a call where a struct takes 32; on a
 * real trace a third of the events are such calls.
 * Two flag bits per call live beside the stream, in a byte each.
 */
#ifndef VT_IDLE_CALLS_H
#define VT_IDLE_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "varint.h"

struct idle_call {
	int64_t ts_ns;
	int64_t corr;		/* INT64_MIN: none */
	uint32_t track, name;
	int64_t dur_ns;		/* at least 0 */
};

struct idle_calls {
	struct buf bytes;
	int64_t last_ts, last_corr;
	size_t n;
	unsigned char *flags;	/* IDLE_CALL_* per call, once idle_calls_flags() made them */
};

#define IDLE_CALL_LAUNCHED 1u	/* its correlation is some device item's */
#define IDLE_CALL_FIRST 2u	/* ... and no call before it in the file had it */

void idle_calls_init(struct idle_calls *l);
void idle_calls_release(struct idle_calls *l);

/* Append a call (sticky out of memory: see idle_calls_ok()). */
void idle_calls_add(struct idle_calls *l, const struct idle_call *c);

int idle_calls_ok(const struct idle_calls *l);

/* Zeroed flags for every call.  -1 when out of memory. */
int idle_calls_flags(struct idle_calls *l);

/* Reading in file order: init, then next() until it returns 0. */
struct idle_calls_cursor {
	const unsigned char *p, *end;
	int64_t ts, corr;
	size_t i;		/* the index of the call next() returns next */
};

static inline void idle_calls_begin(struct idle_calls_cursor *c, const struct idle_calls *l)
{
	c->p = (const unsigned char *)l->bytes.data;
	c->end = c->p ? c->p + l->bytes.len : NULL;
	c->ts = c->corr = 0;
	c->i = 0;
}

/*
 * Inline, forced: the attribution reads every call five times, in loops of
 * a few lines, and GCC left the body of a plain inline one out of line.
 */
static inline __attribute__((always_inline)) int
idle_calls_next(struct idle_calls_cursor *c, struct idle_call *out)
{
	uint64_t tr;

	if (c->p == c->end)
		return 0;
	c->ts = varint_unzigzag(c->ts, varint_get(&c->p));
	tr = varint_get(&c->p);
	out->corr = INT64_MIN;
	if (tr & 1)
		out->corr = c->corr = varint_unzigzag(c->corr, varint_get(&c->p));
	out->ts_ns = c->ts;
	out->track = (uint32_t)(tr >> 1);
	out->name = (uint32_t)varint_get(&c->p);
	out->dur_ns = (int64_t)varint_get(&c->p);
	c->i++;
	return 1;
}

#endif
