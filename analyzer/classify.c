/*
 * classify: see classify.h.  Sources: libkineto's ActivityType names
 * (cpu_op, python_function, user_annotation, gpu_user_annotation) and
 * PyTorch 1.8/1.9's "Operator" for cpu_op; ProcessGroupGloo's and
 * ProcessGroupNCCL's record_function names (gloo:all_reduce,
 * nccl:all_reduce), c10d's operators and record_param_comms; HTA's MTIA
 * samples (hccl:* annotations); torch_npu's trace_view.json (AscendCL@
 * calls in the CANN process, without cat); the CUDA runtime and driver
 * API, HIP, AscendCL and the cuDNN/cuBLAS handles for the runtime calls.
 */
#include "classify.h"

#include "namematch.h"

static const struct {
	const char *cat;
	enum ev_class c;
} host_cats[] = {
	{ "cpu_op", EVC_CPU_OP },
	{ "Operator", EVC_CPU_OP },		/* Kineto 2021 */
	{ "python_function", EVC_FRAME },	/* with_stack / with_modules: nn.Module: X_0 */
	{ "user_annotation", EVC_ANNOT },	/* record_function */
	{ "gpu_user_annotation", EVC_GPU_ANNOT },	/* its span on the device's timeline */
};

enum ev_class classify_host_cat(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(host_cats) / sizeof(host_cats[0]); i++)
		if (name_matches(NAME_IS, host_cats[i].cat, s, n))
			return host_cats[i].c;
	return EVC_NONE;
}

/*
 * The host names, one list, first match wins (no real name meets two
 * rows, but for the words held anywhere, which come last):
 * each row's flags say what it is for which analysis.  The host spans of
 * collectives first.  gloo's spans and c10d's waits and
 * barriers hold the host until the peers arrive; c10d's other operators
 * (allreduce_, broadcast_) only queue the collective.  record_param_comms
 * carries no namespace, so in a trace without cat it reads as a user's
 * name, as it always has.
 */
static const struct host_row {
	enum name_how how;
	const char *pat;
	unsigned flags;
} host_rows[] = {
	{ NAME_STARTS, "hccl:", CF_HOST_COLL },		/* [MTIA] */
	{ NAME_STARTS, "gloo:", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT | CF_COLL_SPAN },
	{ NAME_STARTS, "nccl:", CF_CPU_COMM | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::wait", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::barrier", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::monitored_barrier", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
	{ NAME_STARTS, "c10d::", CF_CPU_COMM | CF_NOT_ANNOT },
	{ NAME_IS, "record_param_comms", CF_CPU_COMM },

	/*
	 * Runtime calls by their kind: setting up (a context, streams,
	 * events, modules, library handles), memory, graph replays.  By name
	 * whatever their cat, as a span named so is that call.
	 */
	{ NAME_STARTS, "cudaStreamCreate", CF_INIT },
	{ NAME_STARTS, "cudaEventCreate", CF_INIT },
	{ NAME_STARTS, "cudaDeviceGetStreamPriorityRange", CF_INIT },
	{ NAME_STARTS, "cudaGetDeviceCount", CF_INIT },
	{ NAME_STARTS, "cudaGetDeviceProperties", CF_INIT },
	{ NAME_STARTS, "cuInit", CF_INIT },
	{ NAME_STARTS, "cuDevicePrimaryCtxRetain", CF_INIT },
	{ NAME_STARTS, "cuCtxCreate", CF_INIT },
	{ NAME_STARTS, "cuModuleLoad", CF_INIT },
	{ NAME_STARTS, "cuLibraryLoad", CF_INIT },
	{ NAME_STARTS, "cudnnCreate", CF_INIT },
	{ NAME_STARTS, "cublasCreate", CF_INIT },
	{ NAME_STARTS, "cublasLtCreate", CF_INIT },
	{ NAME_STARTS, "hipStreamCreate", CF_INIT },
	{ NAME_STARTS, "hipEventCreate", CF_INIT },
	{ NAME_STARTS, "hipInit", CF_INIT },
	{ NAME_STARTS, "hipModuleLoad", CF_INIT },
	{ NAME_STARTS, "AscendCL@aclInit", CF_INIT },
	{ NAME_STARTS, "AscendCL@aclrtSetDevice", CF_INIT },
	{ NAME_STARTS, "AscendCL@aclrtCreateStream", CF_INIT },
	{ NAME_STARTS, "AscendCL@aclrtCreateContext", CF_INIT },

	{ NAME_STARTS, "cudaMalloc", CF_MEMORY },
	{ NAME_STARTS, "cudaFree", CF_MEMORY },
	{ NAME_STARTS, "cudaHostAlloc", CF_MEMORY },
	{ NAME_STARTS, "cudaHostRegister", CF_MEMORY },
	{ NAME_STARTS, "cuMemAlloc", CF_MEMORY },
	{ NAME_STARTS, "cuMemFree", CF_MEMORY },
	{ NAME_STARTS, "cuMemCreate", CF_MEMORY },
	{ NAME_STARTS, "cuMemMap", CF_MEMORY },
	{ NAME_STARTS, "hipMalloc", CF_MEMORY },
	{ NAME_STARTS, "hipFree", CF_MEMORY },
	{ NAME_STARTS, "hipHostMalloc", CF_MEMORY },
	{ NAME_STARTS, "hipHostFree", CF_MEMORY },
	{ NAME_STARTS, "hipExtMallocWithFlags", CF_MEMORY },
	{ NAME_STARTS, "AscendCL@aclrtMalloc", CF_MEMORY },
	{ NAME_STARTS, "AscendCL@aclrtFree", CF_MEMORY },

	{ NAME_STARTS, "cudaGraphLaunch", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
	{ NAME_STARTS, "cuGraphLaunch", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
	{ NAME_STARTS, "hipGraphLaunch", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
	{ NAME_STARTS, "AscendCL@aclmdlRIExecute", CF_GRAPH_QUEUE },	/* a model run */
	{ NAME_HAS, "GraphLaunch", CF_GRAPH_RUN | CF_GRAPH_QUEUE },

	/*
	 * What a stream queues or marks: waits on events, the edges of a
	 * graph capture (cudaStreamBeginCapture, AscendCL's
	 * aclmdlRICaptureBegin), and, for the graph replays' eager calls, the
	 * launches of kernels and the copies and sets.  The rows that hold a
	 * word anywhere come last: a name of an earlier row is that row's.
	 */
	{ NAME_STARTS, "cudaStreamWaitEvent", CF_EVENT_WAIT },
	{ NAME_STARTS, "cuStreamWaitEvent", CF_EVENT_WAIT },
	{ NAME_STARTS, "hipStreamWaitEvent", CF_EVENT_WAIT },
	{ NAME_STARTS, "AscendCL@aclrtStreamWaitEvent", CF_EVENT_WAIT },
	{ NAME_HAS, "BeginCapture", CF_CAPTURE_BEGIN },
	{ NAME_HAS, "CaptureBegin", CF_CAPTURE_BEGIN },
	{ NAME_HAS, "EndCapture", CF_CAPTURE_END },
	{ NAME_HAS, "CaptureEnd", CF_CAPTURE_END },
	{ NAME_HAS, "LaunchKernel", CF_LAUNCH_KERNEL },
	{ NAME_HAS, "LaunchCooperativeKernel", CF_LAUNCH_KERNEL },
	{ NAME_HAS, "Memset", CF_COPY },
	{ NAME_HAS, "Memcpy", CF_COPY },
};

#define NR_HOST_ROWS (sizeof(host_rows) / sizeof(host_rows[0]))

/* [NPU] torch_npu's runtime calls: no cat, named so in the CANN process. */
#define NOCAT_CALL "AscendCL@"

_Static_assert(NR_HOST_ROWS < EVS_ROW, "a row number fits in EVS_ROW");

/*
 * A row that matches the whole name or its start cannot match a name that
 * begins with another byte: the test skips nearly every row for the names
 * of a trace (aten::, void at::native...), which gpu.c classifies once
 * per name in each batch (it was 1 % of the read's instructions).
 */
static int row_matches(const struct host_row *r, const char *s, size_t n)
{
	if ((r->how == NAME_IS || r->how == NAME_STARTS) && r->pat[0] && (!n || r->pat[0] != s[0]))
		return 0;
	return name_matches(r->how, r->pat, s, n);
}

unsigned classify_name(const char *s, size_t n)
{
	unsigned sub = 0;

	for (size_t i = 0; i < NR_HOST_ROWS && !sub; i++)
		if (row_matches(&host_rows[i], s, n))
			sub = (unsigned)i + 1;
	if (!n || s[0] != NOCAT_CALL[0] || !name_matches(NAME_STARTS, NOCAT_CALL, s, n))
		return sub;
	if (device_kind(device_process_rule("CANN", 4), s, n) == DK_SYNC)
		return sub | EVS_NOCAT_SYNC;
	return sub | EVS_NOCAT_CALL;
}

unsigned classify_flags(unsigned sub)
{
	unsigned row = sub & EVS_ROW;

	return row && row <= NR_HOST_ROWS ? host_rows[row - 1].flags : 0;
}
