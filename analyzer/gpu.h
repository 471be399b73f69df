/*
 * gpu: what the GPU did, from kernel, memcpy and memset events.
 *
 * gpu_collect() keeps one compact record per GPU event (and per CPU-side
 * collective, for runs without kernels) as batches arrive; gpu_finish()
 * computes the GPU section and the kernel table of a report rank from them.
 * The records are all that is kept, so memory grows with the number of GPU
 * events, at 24 bytes each, never with the text.
 */
#ifndef VT_GPU_H
#define VT_GPU_H

#include <stdint.h>

#include "buf.h"
#include "event.h"
#include "report.h"
#include "strtab.h"

enum gpu_kind { GPU_KERNEL, GPU_MEMCPY, GPU_MEMSET, CPU_COMM };

struct gpu_rec {
	int64_t ts_ns, dur_ns;
	uint32_t name;		/* id in struct gpu's names */
	uint32_t kind;		/* enum gpu_kind */
};

struct gpu {
	struct strtab names;	/* copies */
	struct buf recs;	/* struct gpu_rec[], in file order */
};

void gpu_init(struct gpu *g);
void gpu_release(struct gpu *g);

/* Keep the GPU events of batch b.  -1 when out of memory. */
int gpu_collect(struct gpu *g, const struct event_batch *b);

/*
 * Fill rk->gpu and rk->kernels (strings in arena a).  Sorts the records
 * in place.  -1 when out of memory.
 */
int gpu_finish(struct gpu *g, struct arena *a, struct report_rank *rk);

/* The category of a kernel name: "comm", "attention", "gemm", ... (static). */
const char *gpu_kernel_category(const char *name, size_t len);

#endif
