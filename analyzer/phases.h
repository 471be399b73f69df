/*
 * phases: the phase tree, the steps and the throughput of one rank.
 *
 * Phase spans are "X" events of cat user_annotation, or events without cat
 * whose name a phase rule recognises (fastvideo.region::*,
 * profiler_region_*, ProfilerStep#*, --phase, --step and --block globs),
 * or, in a trace where no event has a cat (PyTorch's legacy writer), every
 * span annot.h takes for a record_function name.
 * gpu_user_annotation spans mirror the CPU ones on the GPU timeline and are
 * left out, or every phase would count twice.  Names lose the
 * "fastvideo.region::" and "profiler_region_" prefixes, and a trailing
 * instance number becomes "*" (denoise_step_3 -> denoise_step_*), so the
 * instances of a phase group.  The throughput (generations, blocks, FPS,
 * BPS) is generations.h's.  doc/figures.md has the details.
 */
#ifndef VT_PHASES_H
#define VT_PHASES_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "launch.h"
#include "names.h"
#include "options.h"
#include "report.h"
#include "strtab.h"

/*
 * Phases nest at most this deep: a span deeper still is left out (counted
 * in nr_too_deep), because every path names all its ancestors, and so
 * 20,000 nested spans would otherwise cost 20,000^2 bytes of paths.
 */
#define PHASE_MAX_DEPTH 64

/* Collector counters (generations.h), in file order. */
struct phase_counts {
	struct gen_count *v;
	size_t n, alloc;
};

struct phases {
	const struct phase_opts *opts;
	struct names *names;		/* the rank's, shared: the spans' names */
	struct span_rec *spans;		/* records, see phases.c */
	size_t nr_spans, spans_alloc;
	uint64_t seq;
	struct phase_counts frame_counts, block_counts;
	struct phase_counts block_frame_counts;	/* regions' block_size */
	int has_frames, has_blocks, has_block_frames;
	int has_cat;			/* some event has a cat: no annotations by name */
	int64_t nr_too_deep;		/* set by phases_finish() */
};

/* names: the rank's (names.h), which must outlive p; phases_collect() adds to it. */
void phases_init(struct phases *p, const struct phase_opts *o, struct names *names);
void phases_release(struct phases *p);

/*
 * Keep the spans of batch b, their threads interned into tracks (launch.h's
 * shared table); has_cat: whether an event of the file so far, b's
 * included, had a cat; cls: classify.h's class of each event (user annotations
 * and their GPU copies).  The launches and kernels whose time the phases
 * get are gpu_collect()'s to tag.  -1 when out of memory.
 */
int phases_collect(struct phases *p, const struct event_batch *b, int has_cat,
		   struct strtab *tracks, const unsigned char *cls);

/*
 * Fill rk->phases, rk->steps and rk->throughput, with the kernel time of
 * pl; rk->span_ns must be set and min_ts is the rank's first timestamp.
 * -1 when out of memory.
 */
int phases_finish(struct phases *p, int64_t min_ts, const struct placement *pl, struct arena *a,
		  struct report_rank *rk);

/* Mark rk's phases' device time unknown (gpu_ns INT64_MIN, null in report.json). */
void phases_device_unknown(struct report_rank *rk);

#endif
