/*
 * opsperf: the rows report_op_perf of a rank, one per operator and shape,
 * from the calls cpuops.c found launching device work themselves, and the
 * model FLOPs per step.  The figures of a shape come from
 * lib/model/perf_model.h once per shape, not per call.
 */
#ifndef VT_OPSPERF_H
#define VT_OPSPERF_H

#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "report.h"
#include "strtab.h"

/* One call: when it started, the device time it launched itself, its shape key. */
struct opsperf_call {
	int64_t ts_ns, dev_ns;
	uint32_t shape;		/* id in the keys strtab */
};

/*
 * A shape key as opsperf_finish() reads it: name, dims, types, concrete
 * inputs joined by OPSPERF_SEP (none of them holds one: the first is an
 * operator name, the others JSON text, where a control byte is escaped).
 */
#define OPSPERF_SEP '\x1f'

/* A call with known FLOPs. */
struct opsperf_flops {
	int64_t ts_ns, dev_ns;
	double flops;
	uint32_t dtype;
};

struct opsperf_when {
	struct opsperf_flops *v;	/* the caller frees it */
	size_t n, alloc;
};

/*
 * Fill rk->ops_perf (strings in arena a) from calls[0..n) (reordered);
 * when_flops gets a record per call with known FLOPs, for opsperf_steps(),
 * but for a row marked implausible (rk->device_name's peak).  -1 when out
 * of memory.
 */
int opsperf_finish(const struct strtab *keys, struct opsperf_call *calls, size_t n,
		   struct arena *a, struct report_rank *rk, struct opsperf_when *when_flops);

/* The model's figures for shape key id of keys (opsperf_finish()'s form). */
struct perf_call;
void opsperf_eval(const struct strtab *keys, uint32_t id, struct perf_call *pc);

/*
 * The TFLOP/s no call can pass on device_name (opsperf.c): a call above
 * it has model FLOPs that are not the work done.
 */
double opsperf_ceiling(const char *device_name);

/* rk->perf's FLOPs per step and in the window, from when_flops and rk's steps. */
int opsperf_steps(const struct opsperf_when *when_flops, struct arena *a, struct report_rank *rk);

#endif
