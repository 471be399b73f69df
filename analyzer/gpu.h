/*
 * gpu: what the GPU or NPU did, from the events device.h recognises.
 *
 * gpu_collect() keeps one compact record per device event (and per host
 * span of a collective, and per host-synchronising runtime call) as
 * batches arrive; gpu_finish() computes the GPU section and the kernel
 * table of a report rank from them.  Events without cat (torch_npu) are
 * device work by the name of their process, which a metadata event may
 * give anywhere in the file: until then they wait as pending records and
 * are decided in gpu_finish().  The records are all that is kept, so
 * memory grows with the number of device events, at 16 bytes each, never
 * with the text.
 */
#ifndef VT_GPU_H
#define VT_GPU_H

#include <stdint.h>

#include "buf.h"
#include "classify.h"
#include "event.h"
#include "interval.h"
#include "name_memo.h"
#include "names.h"
#include "report.h"
#include "strtab.h"

/*
 * GPU_COMM_TASK: data moved inside a collective operator (device.h's
 * DK_COMM_TASK): device work and communication, but no kernel of its own;
 * CPU_COMM: a collective's span on a CPU thread (gloo:*, nccl:*, c10d::*),
 * counted as communication only in runs without kernels; HOST_COLL: one
 * that a vendor records only on the host (MTIA hccl:*), always counted;
 * HOST_SYNC: a runtime call that blocks the host; GRAPH_LAUNCH: a runtime
 * call that replays a CUDA/HIP graph (counted, its correlation kept, no record).
 */
enum gpu_kind {
	GPU_KERNEL, GPU_MEMCPY, GPU_MEMSET, GPU_COMM_TASK,	/* device work: up to here */
	CPU_COMM, HOST_COLL, HOST_SYNC, GRAPH_LAUNCH
};

#define GPU_MAX_RULES 32	/* more than device.c's table has */

#define GPU_KIND_BITS 3		/* enum gpu_kind fits */
#define GPU_LAST_DEVICE GPU_COMM_TASK	/* kinds up to it are device work */
#define GPU_LONG_DUR 0x80000000u	/* gpu_rec.dur: index in long_dur below */

struct gpu_rec {
	int64_t ts_ns;
	uint32_t dur;		/* ns, or GPU_LONG_DUR | index in struct gpu's long_dur */
	uint32_t name_kind;	/* name id (names.h) << GPU_KIND_BITS | enum gpu_kind */
};

struct gpu {
	struct names *names;	/* the rank's, shared */
	struct name_memo *kcats;	/* kcat_of() by kernel name, shared (analyze.h) */
	struct name_memo subs;	/* classify_name() of the spans' names */
	struct gpu_rec *recs;	/* in file order until gpu_finish() */
	size_t nr_recs, recs_alloc;
	int16_t *proc_rule;	/* per pid text's name id: 0 unnamed, 1 no rule, else rule + 2 */
	size_t proc_rule_alloc;	/* (ALLOC_GROW_ZERO: 0 up to here) */
	struct pend_rec *pending;	/* events without cat of unnamed processes, see gpu.c */
	size_t nr_pending, pending_alloc;
	int64_t nr_device[GPU_MAX_RULES];	/* device events per device.c rule */
	int64_t nr_runtime[GPU_MAX_RULES];	/* runtime calls per rule */
	int64_t nr_hip, nr_cuda;		/* runtime calls by name */
	int64_t *graph_corr;	/* the correlation of each graph launch */
	size_t nr_graph_corr, graph_corr_alloc;
	struct buf kern_corr;	/* correlation of each kernel that has one, see gpu.c */
	int64_t last_kern_corr;	/* the last one added to kern_corr */
	int64_t nr_graph_launches;
	int64_t *long_dur;	/* durations that gpu_rec.dur cannot hold */
	size_t nr_long_dur, long_dur_alloc;
	struct interval_list busy;	/* the busy runs, in time order, for idle.h */
	/*
	 * The union of the GPU_COMM_TASK records, disjoint and in time order:
	 * what each collective instance spent moving data, for comm_finish().
	 * Empty where the device records no tasks inside its collectives
	 * (CUDA, Ascend without HCCL tasks).
	 */
	struct interval_set comm_tasks;
	/*
	 * The tasks inside collective operators, each with its lane and
	 * whether it waits for a peer (Notify Wait) or moves data, in file
	 * order until gpu_finish(): what splits the operators' time into
	 * transfer, synchronisation and idle (gpu.c's split_ops()).
	 */
	struct comm_task *ctask;
	size_t nr_ctask, ctask_alloc;
	/*
	 * Where the operators were split (split): the synchronisation pieces
	 * and what the lanes read covered, disjoint and in time order, for each
	 * instance's share in comm_finish().
	 */
	int split;
	struct interval_set comm_sync, comm_covered;
};

/*
 * A task of a collective: lane 0 for the device's streams taken as one
 * (Ascend Hardware's SDMA and Notify Wait), 1 + N for HCCL's "Plane N"
 * (its tid), each plane one sequence of tasks.
 */
struct comm_task {
	int64_t ts_ns, dur_ns;
	uint32_t lane;
	uint32_t wait;		/* 1: waits for a peer, 0: moves data */
};

static inline int64_t gpu_rec_dur(const struct gpu *g, const struct gpu_rec *r)
{
	return r->dur < GPU_LONG_DUR ? (int64_t)r->dur : g->long_dur[r->dur & ~GPU_LONG_DUR];
}

/*
 * names: the rank's (names.h), which must outlive g; gpu_collect() adds to
 * it.  kcats: the file's kcat_of() by kernel name, which gpu_finish() asks.
 */
void gpu_init(struct gpu *g, struct names *names, struct name_memo *kcats);
void gpu_release(struct gpu *g);

/*
 * Keep the GPU events of batch b, and tag for launch.h (tag: a byte per
 * event) the runtime calls and device work with a correlation: for cpuops
 * (LAUNCH_CPUOPS) every one device.h recognises, for phases (LAUNCH_PHASES)
 * the runtime calls and the kernels.  cls and sub, a byte per event each,
 * get each event's class and subclass (classify.h's enum ev_class and
 * ev_sub) for the analyses that read the batch after it, so that no other
 * classifies it again.  -1 when out of memory.
 */
int gpu_collect(struct gpu *g, const struct event_batch *b, unsigned char *tag,
		unsigned char *cls, unsigned char *sub);

/*
 * Fill rk->gpu and rk->kernels (strings in arena a), then free the
 * records but the busy runs and the comm tasks (gpu_release() is still to
 * be called).  Where the collectives' own tasks are recorded, the wait
 * inside collectives is theirs: rk->gpu.has_wait and wait_from_tasks set.
 * -1 when out of memory.
 */
int gpu_finish(struct gpu *g, struct arena *a, struct report_rank *rk);


#endif
