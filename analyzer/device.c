/*
 * device: see device.h.  The tables below are the whole of what vtrace
 * knows about vendors; a new vendor or profiler version is rows here.
 *
 * Sources, cited per row:
 *   [K]  libkineto ActivityType.cpp, the cat of each activity type
 *        (kernel, gpu_memcpy, gpu_memset, cuda_runtime, cuda_driver,
 *        cuda_sync, mtia_ccp_events, mtia_runtime, xpu_runtime, xpu_driver).
 *   [K21] Kineto as of PyTorch 1.8/1.9 (2021; tb_plugin samples in
 *        ../shared/traces/public/pytorch__kineto): Kernel, Memcpy, Memset,
 *        Runtime, Operator.
 *   [ROCm] roctracer through Kineto writes CUDA's cats with hip* runtime
 *        names (TraceLens mi300/mi210, HTA mi250 traces).
 *   [NPU] torch_npu's trace_view.json (Ascend msinsight and mstt samples):
 *        device tasks in the process "Ascend Hardware", collectives as
 *        hcom_* on the process "HCCL", AscendCL calls in "CANN"; no cat.
 *   [MTIA] HTA's MTIA samples: device work in mtia_ccp_events, collectives
 *        only as hccl:* user annotations on the host.
 */
#include "device.h"

#include <string.h>
#include <strings.h>

#include "namematch.h"
#include "sync_calls.h"

/* namematch.h's whole name and start; SYNC_CALLS: sync_calls.h's runtime calls. */
enum match { EXACT, PREFIX, SYNC_CALLS };

struct name_rule {
	enum match how;
	const char *pat;
	enum dev_kind kind;
};

/* Runtime calls that block the host: the one list, sync_calls.h's. */
static const struct name_rule runtime_names[] = {
	{ SYNC_CALLS, "", DK_SYNC },
	{ EXACT, NULL, DK_NONE },
};

/*
 * [NPU] Ascend Hardware: tasks per stream; the sync tasks do no work.  SDMA
 * (and RDMA across hosts) are the copies HCCL runs inside its hcom_*
 * operators: the transfer of a collective, beside its Notify Wait.
 */
static const struct name_rule ascend_names[] = {
	{ EXACT, "MEMCPY_ASYNC", DK_MEMCPY },
	{ EXACT, "SDMA", DK_COMM_TASK },
	{ PREFIX, "RDMA", DK_COMM_TASK },
	{ EXACT, "EVENT_RECORD", DK_WAIT },
	{ EXACT, "EVENT_WAIT", DK_WAIT },
	{ EXACT, "Notify Wait", DK_WAIT },	/* HCCL waiting for its peer */
	{ EXACT, "Notify Record", DK_WAIT },
	{ EXACT, "Write Value", DK_WAIT },	/* HCCL's signal to its peer */
	{ EXACT, NULL, DK_NONE },
};

/*
 * [NPU] HCCL: tid "Group N Communication" holds the hcom_* operators; the
 * "Plane N" tids (level 1 and above) hold their tasks, inside those spans:
 * Notify Wait / Notify_Wait and Notify Record wait for or signal the peer,
 * the rest (Memcpy, Reduce Inline, RDMASend, ...) move data.
 */
static const struct name_rule hccl_names[] = {
	{ PREFIX, "hcom_", DK_KERNEL },
	{ PREFIX, "Notify", DK_WAIT },
	{ EXACT, "Write Value", DK_WAIT },
	{ PREFIX, "", DK_COMM_TASK },
	{ EXACT, NULL, DK_NONE },
};

/* [MTIA] the device's command processor: copies and event records beside kernels. */
static const struct name_rule mtia_names[] = {
	{ EXACT, "dma_request", DK_MEMCPY },
	{ EXACT, "event_record", DK_WAIT },
	{ EXACT, "event_wait", DK_WAIT },
	{ EXACT, NULL, DK_NONE },
};

struct row {
	struct dev_rule r;
	const struct name_rule *names;	/* refinements, or NULL */
};

static const struct row rows[] = {
	/* [K] CUDA (and, by its runtime names, ROCm and XPU) since Kineto 2022 */
	{ { "nvidia", "kineto", "kernel", 0, DK_KERNEL }, NULL },
	{ { "nvidia", "kineto", "gpu_memcpy", 0, DK_MEMCPY }, NULL },
	{ { "nvidia", "kineto", "gpu_memset", 0, DK_MEMSET }, NULL },
	{ { "nvidia", "kineto", "cuda_runtime", 0, DK_RUNTIME }, runtime_names },
	{ { "nvidia", "kineto", "cuda_driver", 0, DK_RUNTIME }, runtime_names },
	{ { "nvidia", "kineto", "cuda_sync", 0, DK_WAIT }, NULL },	/* CUPTI sync records */
	/* [K21] the same activities, capitalised */
	{ { "nvidia", "kineto-2021", "Kernel", 0, DK_KERNEL }, NULL },
	{ { "nvidia", "kineto-2021", "Memcpy", 0, DK_MEMCPY }, NULL },
	{ { "nvidia", "kineto-2021", "Memset", 0, DK_MEMSET }, NULL },
	{ { "nvidia", "kineto-2021", "Runtime", 0, DK_RUNTIME }, runtime_names },
	/* [K] Intel XPU (kernels and copies use the CUDA cats above) */
	{ { "intel", "kineto-xpu", "xpu_runtime", 0, DK_RUNTIME }, NULL },
	{ { "intel", "kineto-xpu", "xpu_driver", 0, DK_RUNTIME }, NULL },
	/* [K] [MTIA] */
	{ { "mtia", "kineto-mtia", "mtia_ccp_events", 0, DK_KERNEL }, mtia_names },
	{ { "mtia", "kineto-mtia", "mtia_runtime", 0, DK_RUNTIME }, NULL },
	/* [NPU] by process name: these events have no cat */
	{ { "ascend", "torch_npu", "Ascend Hardware", 1, DK_KERNEL }, ascend_names },
	{ { "ascend", "torch_npu", "HCCL", 1, DK_KERNEL }, hccl_names },
	{ { "ascend", "torch_npu", "CANN", 1, DK_RUNTIME }, runtime_names },
};

#define NR_ROWS ((int)(sizeof(rows) / sizeof(rows[0])))

static int lookup(const char *s, size_t n, int by_process)
{
	/* The exact spelling first: it tells Kineto 2021 ("Kernel") from today ("kernel"). */
	for (int i = 0; i < NR_ROWS; i++)
		if (rows[i].r.by_process == by_process && strlen(rows[i].r.key) == n &&
		    memcmp(rows[i].r.key, s, n) == 0)
			return i;
	for (int i = 0; i < NR_ROWS; i++)
		if (rows[i].r.by_process == by_process && strlen(rows[i].r.key) == n &&
		    strncasecmp(rows[i].r.key, s, n) == 0)
			return i;
	return -1;
}

int device_cat_rule(const char *s, size_t n)
{
	return lookup(s, n, 0);
}

int device_process_rule(const char *s, size_t n)
{
	return lookup(s, n, 1);
}

const struct dev_rule *device_rule(int r)
{
	return r >= 0 && r < NR_ROWS ? &rows[r].r : NULL;
}

static int matches(const struct name_rule *m, const char *s, size_t n)
{
	switch (m->how) {
	case EXACT:
		return name_matches(NAME_IS, m->pat, s, n);
	case PREFIX:
		return name_matches(NAME_STARTS, m->pat, s, n);
	case SYNC_CALLS:
		return sync_call_of(s, n) == SYNC_RUNTIME;
	}
	return 0;
}

enum dev_kind device_kind(int r, const char *s, size_t n)
{
	const struct name_rule *m;

	if (r < 0 || r >= NR_ROWS)
		return DK_NONE;
	for (m = rows[r].names; m && m->pat; m++)
		if (matches(m, s, n))
			return m->kind;
	return rows[r].r.kind;
}

int device_collective_op(const char *s, size_t n)
{
	return name_matches(NAME_STARTS, hccl_names[0].pat, s, n);	/* [NPU] */
}

const char *device_runtime_vendor(const char *s, size_t n)
{
	if (name_matches(NAME_STARTS, "hip", s, n))
		return "amd";		/* [ROCm] */
	if (name_matches(NAME_STARTS, "cu", s, n))
		return "nvidia";
	return NULL;
}
