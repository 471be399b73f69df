/*
 * idle: why the device waits.  Every gap in a rank's device work is
 * attributed to a cause (lib/model/idle_causes.h) from what the host was
 * doing on the thread that launched the work ending the gap; doc/idle.md is
 * the rule in full, and tests/oracle_idle.py an independent implementation.
 *
 * idle_collect() keeps, per batch, compact records of what the attribution
 * reads: host spans that can explain a gap (32: those of a cause's names,
 * and any of at least IDLE_HOST_WORK_NS), with per-name counts for the
 * slow first call rule; the runtime calls are the rank's table (calls.h),
 * which launches_link() marks with the calls that launched something, and
 * the device work with a correlation is launch.h's records.
 * idle_prepare() then does what needs nothing of the other analyses (the
 * medians of the calls, the spans by thread and time), so that it can run
 * beside them and beside the join; idle_gaps() makes the gaps between the
 * busy runs gpu_finish() found and reads which device work ends each,
 * before launches_place() reuses those records; idle_attribute() takes
 * the join's marks and attributes each gap, and idle_finish() adds them
 * up with the steps phases_finish() found into rk->idle.
 */
#ifndef VT_IDLE_H
#define VT_IDLE_H

#include <stdint.h>

#include "event.h"
#include "gpu.h"
#include "calls.h"
#include "interval.h"
#include "names.h"
#include "report.h"
#include "strtab.h"

struct gap;
struct gap_corr;
struct launches;

#define IDLE_HOST_WORK_NS 50000		/* a host span this long can be host work */
#define IDLE_LAUNCH_GAP_NS 1000000	/* a gap this short after a launch is the launch path */
#define IDLE_SLOW_FIRST_NS 1000000	/* a slow first call takes at least this ... */
#define IDLE_SLOW_FIRST_FACTOR 100	/* ... and this many times the mean of the others */
#define IDLE_DEVICE_WAIT_NS 1000000	/* the device held a launched item this long: its wait */

struct idle {
	struct names *names;	/* the rank's, shared: host spans' names */
	struct idle_name_stat *stats;	/* per name id, see idle.c (ALLOC_GROW_ZERO) */
	size_t stats_alloc;
	struct calls *calls;	/* the rank's runtime calls, shared; idle_attribute() frees them */
	struct idle_span *spans;	/* host spans kept */
	struct launch_at *launches;	/* the launching calls by thread, then time (attribution) */
	struct launch_at *waits;	/* the stream-waits-on-event calls, the same way */
	size_t nr_launches, nr_waits, waits_alloc;
	size_t nr_spans, spans_alloc;
	uint32_t max_track;	/* the largest thread id of calls and spans */
	/* idle_gaps()'s: the busy runs and the span the gaps lie in; NULL: no gap to attribute */
	const struct interval_list *busy;
	int64_t t0, t1;
	struct gap_corr *next;	/* idle_gaps()'s: each gap's next item's correlation */
	size_t nr_next;
	struct gap *gaps;	/* idle_attribute()'s, in time order; NULL: none made */
	size_t nr_gaps;
};

/*
 * names: the rank's (names.h), which must outlive d; idle_collect() adds to
 * it.  calls: the rank's runtime calls (calls.h), which must hold the
 * calls of the batches idle_collect() reads.
 */
void idle_init(struct idle *d, struct names *names, struct calls *calls);
void idle_release(struct idle *d);

/*
 * Keep what the attribution needs of batch b; cls[] and sub[] are
 * gpu_collect()'s class and subclass of each event, tracks launch.h's
 * shared thread table.  -1 when out of memory.
 */
int idle_collect(struct idle *d, const struct event_batch *b, const unsigned char *cls,
		 const unsigned char *sub, struct strtab *tracks);

/*
 * After the last idle_collect(): the calls' medians, the spans sorted.
 * Writes nothing but d, reads the calls but not their marks, so it can
 * run beside launches_link().  -1 when out of memory.
 */
int idle_prepare(struct idle *d);

/*
 * After gpu_finish() and before launches_place(), which reuses l's device
 * records: of the gaps between the busy runs (disjoint, in time order) in
 * rk's span, the correlation of the device work that ends each, from l's
 * records idle reads (launch.h's LAUNCH_DEV_IDLE).  Reads l's records,
 * not its wide values, so it can run beside launches_link(); reads rk's
 * start and span and rk->gpu.no_device, not the steps.  Keeps busy, which
 * idle_attribute() makes the gaps from: it must outlive that call.  -1
 * when out of memory.
 */
int idle_gaps(struct idle *d, const struct launches *l, const struct interval_list *busy,
	      const struct report_rank *rk);

/*
 * After idle_gaps(), launches_link() and idle_prepare(), each of which
 * succeeded: the gaps, which spans launched something, and for each gap
 * the call that launched the work ending it and its cause.  Reads l's
 * wide values (the join's, l as idle_gaps() read it), not its device
 * records, so it can run beside launches_place() and phases_finish().
 * Releases what only the attribution reads, the rank's calls too.  -1
 * when out of memory.
 */
int idle_attribute(struct idle *d, const struct launches *l);

/*
 * After idle_attribute(): fill rk->idle and rk->gpu.step_utilization from
 * its gaps (none made: every gap "other") and rk's steps; strings in a.
 * Releases what was collected.  -1 when out of memory.
 */
int idle_finish(struct idle *d, const struct interval_list *busy, struct arena *a,
		struct report_rank *rk);

#endif
