/*
 * phases: the phase tree, the steps and the throughput of one rank.
 *
 * Phase spans are "X" events of cat user_annotation, or, in traces without
 * cat, events whose name a phase rule recognises (fastvideo.region::*,
 * profiler_region_*, ProfilerStep#*, --phase, --step and --block globs).
 * gpu_user_annotation spans mirror the CPU ones on the GPU timeline and are
 * left out, or every phase would count twice.  Names lose the
 * "fastvideo.region::" and "profiler_region_" prefixes, and a trailing
 * instance number becomes "*" (denoise_step_3 -> denoise_step_*), so the
 * instances of a phase group.  Frames come from --frames, else from the
 * collector's frame counters; blocks from block spans, else from its block
 * counters.  README's "Definitions" has the details.
 */
#ifndef VT_PHASES_H
#define VT_PHASES_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "options.h"
#include "report.h"
#include "strtab.h"

struct phases {
	const struct phase_opts *opts;
	struct strtab names, tracks;	/* raw span names; "pid\x1ftid" */
	struct buf spans, launches, kernels;	/* records, see phases.c */
	uint64_t seq;
	int64_t frames, blocks;		/* collector counters (EV_FRAMES, EV_BLOCKS) */
	int has_frames, has_blocks;
};

void phases_init(struct phases *p, const struct phase_opts *o);
void phases_release(struct phases *p);

/* Keep the spans, launches and kernel correlations of batch b.  -1 on OOM. */
int phases_collect(struct phases *p, const struct event_batch *b);

/*
 * Fill rk->phases, rk->steps and rk->throughput; rk->span_ns must be set
 * and min_ts is the rank's first timestamp.  -1 when out of memory.
 */
int phases_finish(struct phases *p, int64_t min_ts, struct arena *a, struct report_rank *rk);

#endif
