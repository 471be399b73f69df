/*
 * calls: the rank's runtime calls, one table that every analysis reading a
 * call shares: launch.h joins the device work to the calls that launched
 * it (and marks here which did), idle.h reads what the host was doing in
 * a gap, replay.h the capture and graph calls.
 *
 * A call is kept when launch.h's tag names a user or a graph-replay kind
 * for it, or when idle.h reads it (a complete runtime or synchronising
 * call, ts and dur, dur >= 0).  The table is read in file order, so the
 * calls are kept as a byte stream: per call, a byte of flags (CALL_F_*),
 * then LEB128 varints: its start and correlation as zigzag differences
 * from the call before's, its thread where it is not the call before's,
 * its replay kind where it has one, its name id and its duration.  About
 * 8 bytes a call where a struct takes 32, and one copy where launch.c and
 * idle.c kept one each; on a real trace a third of the events are calls.
 * The join's marks, a byte per call, live beside the stream.
 */
#ifndef VT_CALLS_H
#define VT_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "names.h"
#include "strtab.h"
#include "varint.h"

struct call {
	int64_t ts_ns;
	int64_t corr;		/* where has_corr */
	uint32_t track, name;	/* track.h's id, names.h's id (0: none) */
	int64_t dur_ns;		/* at least 0 */
	unsigned users;		/* launch.h's users that count it, a bit each (LAUNCH_CALL()) */
	unsigned what;		/* its graph-replay kind (launch.h's LAUNCH_WHAT()), 0 none */
	unsigned idle;		/* idle.h reads it */
	unsigned has_corr;	/* it has a correlation (any int64) */
};

struct calls {
	struct buf bytes;
	int64_t last_ts, last_corr;
	uint32_t last_track;
	size_t n, nr_idle;	/* the calls, those idle.h reads */
	unsigned char *marks;	/* CALL_* per call, once launches_link() made them */
	struct names *names;	/* the rank's, shared: the calls' names */
};

/* launches_link()'s marks, for idle.h: of the calls it reads, */
#define CALL_LAUNCHED 1u	/* its correlation is some device item's idle.h reads */
#define CALL_FIRST 2u		/* ... and no call before it in the file had it */

/* names: the rank's (names.h), which must outlive l; calls_collect() adds to it. */
void calls_init(struct calls *l, struct names *names);
void calls_release(struct calls *l);

/*
 * Keep the calls of batch b: tag is launch.h's byte per event, cls and
 * sub classify.h's class and subclass, tracks the file's thread table.
 * -1 when out of memory.
 */
int calls_collect(struct calls *l, const struct event_batch *b, const unsigned char *tag,
		  const unsigned char *cls, const unsigned char *sub, struct strtab *tracks);

/* Zeroed marks for every call.  -1 when out of memory. */
int calls_marks(struct calls *l);

/* Reading in file order: begin, then next() until it returns 0. */
struct calls_cursor {
	const unsigned char *p, *end;
	int64_t ts, corr;
	uint32_t track;
	size_t i;		/* the index of the call next() returns next */
};

static inline void calls_begin(struct calls_cursor *c, const struct calls *l)
{
	c->p = (const unsigned char *)l->bytes.data;
	c->end = c->p ? c->p + l->bytes.len : NULL;
	c->ts = c->corr = 0;
	c->track = 0;
	c->i = 0;
}

/* A call's flags byte: its users' bits above these. */
#define CALL_F_CORR 1u		/* a correlation follows */
#define CALL_F_IDLE 2u		/* idle.h reads it */
#define CALL_F_TRACK 4u		/* its thread follows: not the call before's */
#define CALL_F_WHAT 8u		/* its replay kind follows (launch.h's LAUNCH_WHAT()) */
#define CALL_F_USERS_SHIFT 4

/*
 * Inline, forced: the attribution reads every call five times, in loops of
 * a few lines, and GCC left the body of a plain inline one out of line.
 */
static inline __attribute__((always_inline)) int calls_next(struct calls_cursor *c,
							     struct call *out)
{
	unsigned f;

	if (c->p == c->end)
		return 0;
	f = *c->p++;
	c->ts = varint_unzigzag(c->ts, varint_get(&c->p));
	out->has_corr = f & CALL_F_CORR;
	if (out->has_corr)
		c->corr = varint_unzigzag(c->corr, varint_get(&c->p));
	out->corr = c->corr;
	if (f & CALL_F_TRACK)
		c->track = (uint32_t)varint_get(&c->p);
	out->users = f >> CALL_F_USERS_SHIFT;
	out->what = f & CALL_F_WHAT ? (unsigned)varint_get(&c->p) : 0;
	out->ts_ns = c->ts;
	out->idle = (f & CALL_F_IDLE) != 0;
	out->track = c->track;
	out->name = (uint32_t)varint_get(&c->p);
	out->dur_ns = (int64_t)varint_get(&c->p);
	c->i++;
	return 1;
}

#endif
