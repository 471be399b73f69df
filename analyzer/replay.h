/*
 * replay: the FLOPs of kernels replayed through CUDA or HIP graphs.
 *
 * A graph replay (cudaGraphLaunch, hipGraphLaunch) launches all its
 * kernels under one runtime call and no operator, so cpuops has no shape
 * for them.  The trace may show where they came from: the capture, a
 * window between cudaStreamBeginCapture and cudaStreamEndCapture on one
 * thread, where each launch call ran under the operator that made it (the
 * device runs nothing while capturing, so the capture's launches have no
 * kernel and no kernel name).  A replay whose device records, in device
 * order, are as many and of the same kinds (kernel or not) as one
 * capture's launch calls is that capture: its i-th record was launched by
 * the operator of the capture's i-th call.  doc/perf-model.md has the rule.
 *
 * Where the trace holds no capture that names a replay, a replayed kernel
 * gets the FLOPs of the eager operator calls that launched a kernel of
 * its name, when all of them launched it alone and have the same figures.
 *
 * Matched once at the end, from what the rank keeps of every event: the
 * runtime calls (calls.h; replay_collect() marks the ones it needs, which
 * replay_take_calls() copies) and launch.h's device records with a
 * correlation (which replay_device() takes once they are placed), and
 * only from a trace that replays a graph.  cpuops finds each capture
 * launch's operator while it nests the operators, then replay_finish()
 * adds a call per replayed operator to the FLOPs opsperf_steps() counts.
 */
#ifndef VT_REPLAY_H
#define VT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "launch.h"
#include "opsperf.h"
#include "strtab.h"

/* A runtime call that matters here (replay.c's kinds). */
struct replay_call {
	int64_t ts_ns, corr;
	uint32_t track, what;
};

/* Device work with a correlation: a kernel, or another record (set, copy). */
struct replay_dev {
	int64_t corr, ts_ns, dur_ns, stream;
	uint32_t kernel, order;	/* order: in the file, to break ties */
	uint32_t name;		/* a kernel's name id (names.h); 0 none */
};

/* An operator call that gets an ops_perf row: its thread, span and shape key. */
struct replay_eager {
	int64_t ts_ns, end_ns;
	uint32_t track, shape;
};

/* A launch call made while a graph was captured, and the operator that made it. */
struct replay_launch {
	int64_t ts_ns;
	uint32_t track, window;
	uint32_t kernel;
	uint32_t owner;		/* the operator's record + 1; 0: none modelled */
	uint32_t shape;		/* its shape key in cpuops' shapes */
};

struct replay {
	struct replay_call *calls;
	struct replay_dev *dev;	/* replay_device()'s */
	size_t nr_calls, calls_alloc, nr_dev;
	int any_graph;		/* some call replays a graph: else nothing is kept past collect */
	/* replay_windows()'s: the launches inside captures, by thread and time */
	struct replay_launch *launches;
	size_t nr_launches;
	int64_t *windows;	/* [begin, end) per capture */
	uint32_t nr_windows;
};

void replay_init(struct replay *rp);
void replay_release(struct replay *rp);

/*
 * Mark in tag (launch.h's, a byte per event of batch b) the captures,
 * launch calls and graph launches (cls and sub: gpu_collect()'s classes
 * and subclasses, whose classify.h flags say which call is which), for
 * the calls table (calls.h) to keep; note whether a graph replays.  -1 when out
 * of memory.
 */
int replay_collect(struct replay *rp, const struct event_batch *b, const unsigned char *cls,
		   const unsigned char *sub, unsigned char *tag);

/*
 * After the read: copy the calls of the rank's table the replays want,
 * where a graph replays (else nothing is copied).  -1 when out of memory.
 */
int replay_take_calls(struct replay *rp, const struct calls *calls);

/* After the read: whether replay_device() will want l's device work. */
int replay_wants_device(const struct replay *rp);

/*
 * Take the device work of l (its launches placed with keep_device) where
 * replay_wants_device(), and release it.  -1 when out of memory.
 */
int replay_device(struct replay *rp, struct launches *l);

/*
 * Find the captures and the launch calls inside them (rp->launches, owner
 * 0, for the caller to fill).  -1 when out of memory.
 */
int replay_windows(struct replay *rp);

/*
 * Add to when a call per operator of each graph replay matched to a
 * capture, with its FLOPs (shape keys in keys) and the replayed records'
 * device time; a replay no capture names, a call per kernel whose name
 * only eager[0..ne) calls of one figure launched, each alone.  device_name
 * for the ceiling opsperf_finish() holds calls to.  Releases what was
 * collected.  -1 when out of memory.
 */
int replay_finish(struct replay *rp, const struct strtab *keys, const char *device_name,
		  const struct replay_eager *eager, size_t ne, struct opsperf_when *when);

#endif
