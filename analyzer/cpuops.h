/*
 * cpuops: the CPU operator table (count, total and self time per name) from
 * cat "cpu_op" events.  Self time is the duration minus that of the direct
 * children: the cpu_op events nested inside it on the same pid and tid.
 * Collected per batch into 32-byte records, computed once at the end.
 */
#ifndef VT_CPUOPS_H
#define VT_CPUOPS_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "report.h"
#include "strtab.h"

struct cpuops {
	struct strtab names, tracks;	/* copies; a track is "pid\x1ftid" */
	struct buf recs;		/* struct cpu_rec[] in file order, see cpuops.c */
};

void cpuops_init(struct cpuops *c);
void cpuops_release(struct cpuops *c);

/* Keep the cpu_op events of batch b.  -1 when out of memory. */
int cpuops_collect(struct cpuops *c, const struct event_batch *b);

/* Fill rk->cpu_ops (strings in arena a).  -1 when out of memory. */
int cpuops_finish(struct cpuops *c, struct arena *a, struct report_rank *rk);

#endif
