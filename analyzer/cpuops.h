/*
 * cpuops: the CPU operator table (count, total and self time per name) from
 * cat "cpu_op" events, or, in a trace without any cat (PyTorch's legacy
 * writer), from the spans annot.h does not call annotations.  Self time is
 * the duration minus that of the direct children: the operator events
 * nested inside it on the same pid and tid.
 *
 * Device time: the kernels, copies and sets (device.h) whose correlation id
 * is that of a runtime call made on the operator's thread inside its span,
 * as torch.profiler's key_averages() counts it; self device time leaves out
 * what the direct children launched.  Null (-1) in a trace without device
 * work carrying correlation ids.  Collected per batch into compact records,
 * computed once at the end; the device work is launch.h's, shared with
 * phases, and its launches are those gpu_collect() tags for LAUNCH_CPUOPS,
 * as it classifies every event by device.h's table anyway.
 */
#ifndef VT_CPUOPS_H
#define VT_CPUOPS_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "launch.h"
#include "opsperf.h"
#include "replay.h"
#include "report.h"
#include "names.h"
#include "strtab.h"

#define CPUOPS_SHAPE_CACHE 64

/* A recent shape key (cpuops.c's shape_of()); id 0: empty. */
struct shape_cache {
	uint32_t id;
	size_t len;
};

struct cpuops {
	struct names *names;		/* the rank's, shared */
	struct cpu_rec *recs;		/* in file order, see cpuops.c */
	size_t nr_recs, recs_alloc;
	int64_t *long_dur;		/* durations a cpu_rec cannot hold inline */
	size_t nr_long_dur, long_dur_alloc;
	int has_cat;			/* some event had a cat: no operators by name */
	/* record_shapes: the shape keys (opsperf.h) of the operators perf_model knows */
	struct strtab shapes;		/* copies */
	struct shape_cache cache[CPUOPS_SHAPE_CACHE];
	struct buf key;			/* scratch for one key */
	struct opsperf_when when_flops;	/* opsperf_finish()'s, for opsperf_steps() */
	int has_shapes;			/* some operator kept had shape args */
	int by_name_shapes;		/* some operator by name had: kept only without cats */
	struct replay replay;		/* graph captures and their replays */
};

/* names: the rank's (names.h), which must outlive c; cpuops_collect() adds to it. */
void cpuops_init(struct cpuops *c, struct names *names);
void cpuops_release(struct cpuops *c);

/*
 * Keep the CPU operators of batch b (cls: gpu_collect()'s classes), their
 * threads interned into tracks (launch.h's shared table); has_cat: whether
 * an event of the file so far, b's included, had a cat.  -1 when out of
 * memory.
 */
int cpuops_collect(struct cpuops *c, const struct event_batch *b, int has_cat,
		   const unsigned char *cls, struct strtab *tracks);

/*
 * Mark batch b's graph captures and replays in tag (launch.h's; cls and
 * sub: gpu_collect()'s).  -1 when out of memory.
 */
int cpuops_collect_replay(struct cpuops *c, const struct event_batch *b, const unsigned char *cls,
			  const unsigned char *sub, unsigned char *tag);

/*
 * Fill rk->cpu_ops and rk->ops_perf (strings in arena a) with the device
 * work of pl, then free the records.  -1 when out of memory.
 */
int cpuops_finish(struct cpuops *c, const struct placement *pl, struct arena *a,
		  struct report_rank *rk);

/* rk->perf from the steps phases_finish() found (after cpuops_finish()).  -1: out of memory. */
int cpuops_perf_steps(struct cpuops *c, struct arena *a, struct report_rank *rk);

#endif
