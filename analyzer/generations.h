/*
 * generations: the throughput of one rank as its users see it.
 *
 * A generation is one run of the pipeline on one input (one video): an
 * instance of the outermost region that contains the denoising.  A root
 * (a phase span without a parent) that contains a denoising step or a block
 * is a core; cores that overlap in time are one generation.  Roots without
 * denoising (text encoding before, VAE decode after) belong to the
 * generation they run in: the boundary between two generations is the start
 * of the first root, after the earlier core ends, named like the first root
 * of the rank (so "pre, denoise, post" repeats as a whole), else the start
 * of the later core.  Without cores the rank is one generation.
 *
 * A block is a unit of output, named by its raw span name within a
 * generation: it completes when its last span ends, whether each block
 * holds its own steps (streaming) or each step sweeps all blocks (sequence
 * parallelism).  Without block spans, each collector block counter event
 * completes its n blocks at its time.
 *
 * Frames come from --frames, else from vt_frames() counters summed, else
 * from regions' block_size arguments: a block's frames count once per
 * generation (its raw name, as blocks do), whatever number of denoising
 * steps revisit it.  Both kinds of counter in one rank: vt_frames() alone.
 */
#ifndef VT_GENERATIONS_H
#define VT_GENERATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "phases.h"
#include "report.h"

struct gen_root {
	int64_t ts_ns, end_ns;
	uint64_t seq;			/* file order, for ties */
	uint32_t pname;			/* phase name id, compared for equality only */
	unsigned char core;		/* contains a denoising step or a block */
	unsigned char extent;		/* counts towards the wall time */
};

struct gen_block {
	int64_t ts_ns, end_ns;
	uint32_t raw;			/* raw span name id: the block's identity */
};

struct gen_count {
	int64_t ts_ns, n;		/* collector counter: n at ts */
	uint32_t track;			/* the thread's track (launch.h) */
	uint32_t raw;			/* block_size frames: the region's raw name, 0 unknown */
};

struct gen_input {
	struct gen_root *roots;		/* sorted in place */
	size_t nr_roots;
	struct gen_block *blocks;	/* sorted in place */
	size_t nr_blocks;
	const struct gen_count *frames, *block_counts, *block_frames;
	size_t nr_frames, nr_block_counts, nr_block_frames;
	int has_frame_counts, has_block_counts;
	int64_t min_ts, span_ns;	/* the rank's first timestamp and span */
	const struct phase_opts *opts;
};

/*
 * Fill t (all of it) from in; generations go into a.  Returns 0, or -1
 * when out of memory.
 */
int generations_fill(struct gen_input *in, struct arena *a, struct report_throughput *t);

#endif
