/*
 * launch: device time placed at the runtime call that launched it.
 *
 * A kernel (or copy, or set) and the runtime call that launched it share
 * args.correlation.  phases.c credits a phase with the kernel time its
 * thread launched inside its spans, cpuops.c an operator with the device
 * time launched inside it: both collect launches and device work here
 * while the file is read, then ask, per span, how much device time its
 * thread launched within it.  A device record counts at the first launch
 * (in file order) with its correlation; one whose launch is not in the
 * trace counts nowhere.  Placed records are sorted by thread, then launch
 * time, with a prefix sum, so each question costs two binary searches.
 */
#ifndef VT_LAUNCH_H
#define VT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct launches {
	struct buf calls;	/* struct launch_call[]: runtime calls with a correlation */
	struct buf device;	/* struct launch_dev[]: device work with a correlation */
};

/* Device time at its launch: sum_before is the prefix sum in sorted order. */
struct placed {
	int64_t ts_ns, dur_ns, sum_before;
	uint32_t track, pad;
};

void launches_init(struct launches *l);
void launches_release(struct launches *l);

/* The runtime call with correlation corr started at ts_ns on thread track. */
int launches_add_call(struct launches *l, int64_t corr, int64_t ts_ns, uint32_t track);

/* Device work of dur_ns with correlation corr. */
int launches_add_device(struct launches *l, int64_t corr, int64_t dur_ns);

/* Whether any device work was added (else device times are unknown, not 0). */
int launches_any_device(const struct launches *l);

/*
 * The device work placed at its launches, sorted as above; nr_tracks
 * bounds the track ids.  Releases what was collected (l is empty after,
 * and launches_any_device() false).  NULL when out of memory; *nr: how
 * many were placed.
 */
struct placed *launches_place(struct launches *l, uint32_t nr_tracks, size_t *nr);

/* Device time of v[0..n) launched on thread track within [lo, hi). */
int64_t placed_within(const struct placed *v, size_t n, uint32_t track, int64_t lo, int64_t hi);

#endif
