/*
 * memory: device memory per device, from the allocator's [memory] instant
 * events and the collector's sampled counters.
 *
 * A [memory] event gives "Total Allocated" and "Total Reserved" (Kineto
 * 2021 gives only "Bytes", the change); the collector samples
 * gpu.mem_used_bytes (counted as reserved: NVML sees what the allocator
 * holds), gpu.mem_total_bytes (the capacity) and proc.rss_bytes (the CPU's
 * allocated peak).  The peaks are kept as the events arrive; the [memory]
 * events are kept as 32-byte samples for the timeline, which needs them in
 * time order per device, and are released once it is made.
 *
 * memory_finish() sorts the samples by time alone, with one scratch copy
 * of them, and walks them once, each device's timeline and running sum
 * advancing as its samples come: no key, index or permutation arrays, so
 * making the timeline takes as much memory again as the samples and no more.
 */
#ifndef VT_MEMORY_H
#define VT_MEMORY_H

#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "event.h"
#include "report.h"
#include "trace_read.h"

struct mem_row;		/* one per device, in memory.c */

struct memory {
	struct mem_row *rows;		/* in order of first appearance */
	size_t nr_rows, last;		/* last: the row found last, tried first */
	struct buf samples;		/* [memory] events, struct mem_sample[] in file order */
	int64_t util_sum, util_samples;	/* collector gpu.util_pct samples */
};

void memory_init(struct memory *m);
void memory_release(struct memory *m);

/* Keep what batch b says of memory.  -1 when out of memory. */
int memory_collect(struct memory *m, const struct event_batch *b);

/*
 * rk's memory rows, sorted by device, with their timelines (times since
 * min_ts), capacities from info's deviceProperties where given.  Releases
 * the samples.  -1 when out of memory.
 */
int memory_finish(struct memory *m, const struct trace_info *info, int64_t min_ts,
		  struct arena *a, struct report_rank *rk);

#endif
