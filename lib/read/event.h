/*
 * event: the compact record every input format is parsed into.
 *
 * A record keeps the handful of fields the analyses use, never the JSON text.
 * Strings (ph, name, cat, pid, tid, and of args: the collective name, the
 * process group, dtype and name) are ids into the string table of the batch
 * the record belongs to; id 0 means the key was absent.
 * pid and tid are interned from their text whether the trace writes numbers
 * or strings ("4290336512", "stream 7", -1 all work).  Times are int64
 * nanoseconds parsed exactly from the decimal microseconds of the trace.
 *
 * Batches are produced per chunk of input and handed to the consumer in file
 * order; a batch and its strings are valid only during that call.
 */
#ifndef VT_EVENT_H
#define VT_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "grow.h"
#include "strtab.h"

/* flags: which optional fields were present */
enum {
	EV_TS = 1u << 0,
	EV_DUR = 1u << 1,
	EV_CORRELATION = 1u << 2,	/* args.correlation */
	EV_EXTERNAL_ID = 1u << 3,	/* args."External id" */
	EV_FLOW_ID = 1u << 4,		/* id (flows s/t/f, async b/e/n) */
	EV_STREAM = 1u << 5,		/* args.stream */
	EV_DEVICE = 1u << 6,		/* args.device or args."Device Id" */
	EV_MEM_ALLOCATED = 1u << 7,	/* args."Total Allocated" */
	EV_MEM_RESERVED = 1u << 8,	/* args."Total Reserved" */
	EV_MEM_BYTES = 1u << 9,		/* args.Bytes */
	EV_IN_NELEMS = 1u << 10,	/* args."In msg nelems" (or HCCL's args.count) */
	EV_OUT_NELEMS = 1u << 11,	/* args."Out msg nelems" */
	EV_GROUP_SIZE = 1u << 12,	/* args."Group size" */
	EV_FRAMES = 1u << 13,		/* collector: frames produced (in value) */
	EV_BLOCKS = 1u << 14,		/* collector: blocks produced (in value) */
	EV_BAD_TIME = 1u << 15,		/* ts or dur present but out of range */
	EV_VALUE = 1u << 16,		/* collector counters and samples (in value) */
	EV_NEG_DUR = 1u << 17,		/* dur was negative: kept without times */
};

struct trace_event {
	int64_t ts_ns;		/* valid with EV_TS */
	int64_t dur_ns;		/* 0 unless EV_DUR */
	uint32_t ph;		/* string id of "ph" */
	uint32_t name, cat;	/* string ids */
	uint32_t pid, tid;	/* string ids of their text */
	uint32_t flags;		/* EV_* */
	char phase;		/* ph when it is one character, else 0 */
	char pad[3];
	uint32_t coll_name;	/* args."Collective name" */
	uint32_t pg_name;	/* args."Process Group Name" */
	uint32_t dtype;		/* args."dtype" (or HCCL's args.data_type) */
	uint32_t arg_name;	/* args.name: process_name/thread_name of M events */
	uint32_t args;		/* a collector region's arguments as a JSON object's text; 0 none */
	uint32_t shapes;	/* record_shapes=True: an index into the batch's shapes; 0 none */
	/* valid only with their flag: */
	int64_t correlation, external_id, flow_id;
	int64_t stream, device;
	int64_t mem_allocated, mem_reserved, mem_bytes;
	int64_t in_nelems, out_nelems, group_size;
	int64_t value;		/* collector counters (frames, blocks, samples) */
};

/*
 * The JSON text of args "Input Dims", "Input type" and "Concrete Inputs"
 * of an operator recorded with record_shapes=True, undecoded (n 0: absent).
 * Pointers, not interned: a million operators carry them, and hashing them
 * cost the parse 7 %; read only for the operators lib/model/perf_model knows.
 */
struct event_shapes {
	const char *dims, *types, *concrete;
	uint32_t nr_dims, nr_types, nr_concrete;
};

/* The events of one chunk and the strings they refer to. */
struct event_batch {
	struct trace_event *ev;
	size_t n, cap;
	struct event_shapes *shapes;	/* [0] unused; texts borrowed like strs */
	size_t nr_shapes, cap_shapes;
	struct strtab strs;	/* borrows from the chunk text or from arena */
	struct arena arena;	/* unescaped strings, grown event arrays */
};

void event_batch_init(struct event_batch *b);
void event_batch_release(struct event_batch *b);

/* Drop all events and strings, keep memory for reuse where possible. */
void event_batch_reset(struct event_batch *b);

/*
 * A record appended to b, or NULL when out of memory.  Everything up to
 * arg_name is zeroed; the args fields after it hold garbage until set and
 * are meaningful only where their EV_* flag is.  Inline: the parser calls
 * it once per event.
 */
static inline struct trace_event *event_batch_push(struct event_batch *b)
{
	struct trace_event *ev;

	if (ALLOC_GROW(b->ev, b->n + 1, b->cap))
		return NULL;
	ev = &b->ev[b->n++];
	memset(ev, 0, offsetof(struct trace_event, correlation));
	return ev;
}

#endif
