/*
 * trace_top: the top level of a trace file, around the events array.
 *
 * It reads the text before traceEvents (the prologue) and after it (the
 * epilogue), records what the file says about itself in struct trace_info
 * (distributedInfo, deviceProperties, baseTimeNanoseconds), and says where
 * the events array starts.  The array itself is never fed here: the reader
 * parses it in chunks, and calls trace_top_events_done() when it found the
 * closing ']'.
 *
 * Text is fed in pieces of any size; a member split across pieces waits for
 * the rest.  A top-level value is held whole while it is scanned, so its
 * size is capped at TRACE_MAX_EVENT_BYTES.
 */
#ifndef VT_TRACE_TOP_H
#define VT_TRACE_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "log.h"
#include "trace_read.h"

enum trace_top_state {
	TOP_START,		/* before the first token */
	TOP_OBJ_FIRST,		/* after '{': a member or '}' */
	TOP_OBJ_MEMBER,		/* after ',': a member */
	TOP_OBJ_AFTER,		/* after a member: ',' or '}' */
	TOP_EVENTS,		/* inside the events array (the reader's part) */
	TOP_DONE,		/* after the closing bracket: whitespace only */
};

struct trace_top {
	enum trace_top_state state;
	int is_array;		/* the legacy bare-array format */
	int seen_events;	/* a traceEvents array was found */
	int trailing;		/* text after the end was reported */
	int vtrace_output;	/* "schema": "vtrace.*": a report of ours, not a trace */
	struct buf pend;	/* text fed but not yet consumed */
	int64_t pend_off;	/* input offset of pend.data[0] */
	size_t retry_len;	/* rescan an unfinished value from this length */
	struct trace_info *info;
};

void trace_top_init(struct trace_top *t, struct trace_info *info);
void trace_top_release(struct trace_top *t);

/*
 * Feed text at input offset off (which must continue the text fed before).
 * Returns 0 when more text is needed, 1 when the events array begins (the
 * text after '[' is left in t->pend; take it with trace_top_take()), or -1
 * with *e filled on a syntax error.  In TOP_DONE, text other than
 * whitespace is reported once as a warning in info and ignored.
 */
int trace_top_feed(struct trace_top *t, const char *text, size_t len, int64_t off,
		   struct err *e);

/*
 * The input ended: scan what is pending without waiting for more.  Returns
 * like trace_top_feed(); a value cut off by the end is left for
 * trace_top_finish() to report.
 */
int trace_top_drain(struct trace_top *t, struct err *e);

/* Forget the pending text after the events array began. */
void trace_top_take(struct trace_top *t);

/* The reader saw the events array close: read the epilogue from now on. */
void trace_top_events_done(struct trace_top *t);

/*
 * The input ended.  Returns 0 when the top level was complete, -1 with *e
 * filled otherwise ("input ends inside ...", "no traceEvents array").
 */
int trace_top_finish(struct trace_top *t, int64_t end_off, struct err *e);

#endif
