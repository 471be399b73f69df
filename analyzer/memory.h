/*
 * memory: device memory per device, from the allocator's [memory] instant
 * events and the collector's sampled counters.
 *
 * A [memory] event gives "Total Allocated" and "Total Reserved" (Kineto
 * 2021 gives only "Bytes", the change); the collector samples
 * gpu.mem_used_bytes (counted as reserved: NVML sees what the allocator
 * holds), gpu.mem_total_bytes (the capacity) and proc.rss_bytes (the CPU's
 * allocated peak).  The peaks are kept as the events arrive; the [memory]
 * events are kept per device as 16-byte samples (time and allocated
 * bytes; the reserved bytes where they change) for the timeline, which
 * needs them in time order, and are released once it is made.
 *
 * memory_finish() walks each device's samples in time order by merging
 * the runs in which they already are (one per thread that allocated, as
 * Kineto writes threads one after another), not by sorting them: no copy
 * of the samples, for up to 64 runs a device; beyond that (shuffled times)
 * their times and indices are sorted.
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

/*
 * Devices with a row.  A node has a CPU and up to 16 accelerators; a trace
 * with thousands of device ids is made up, and rows for all of them would
 * cost time (the lookup is a scan) and memory out of proportion.  The
 * events of devices beyond these are counted, and said in a warning.
 */
#define MEMORY_MAX_DEVICES 256

struct memory {
	struct mem_row *rows;		/* in order of first appearance, with their samples */
	size_t nr_rows, rows_alloc, last;	/* last: the row found last, tried first */
	int64_t nr_left_out;		/* events of devices beyond MEMORY_MAX_DEVICES */
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
