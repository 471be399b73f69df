/*
 * test_classify: every row of analyzer/classify.c's tables classifies an
 * example name as intended, so that dropping or reordering a row fails
 * here: the host cats, the host collectives with each user's flags, the
 * runtime calls by kind, and the runtime calls of traces without cat; and the one list of
 * synchronising calls (lib/model/sync_calls.c), as device.c reads it;
 * the one category vocabulary (lib/model/category.c) and its words.
 */
#include <string.h>

#include "check.h"
#include "category.h"
#include "classify.h"
#include "report.h"
#include "sync_calls.h"

#define S(lit) lit, sizeof(lit) - 1

static unsigned flags_of(const char *name)
{
	return classify_flags(classify_name(name, strlen(name)));
}

static void test_host_cats(void)
{
	CHECK_EQ_INT(classify_host_cat(S("cpu_op")), EVC_CPU_OP);
	CHECK_EQ_INT(classify_host_cat(S("Operator")), EVC_CPU_OP);
	CHECK_EQ_INT(classify_host_cat(S("python_function")), EVC_FRAME);
	CHECK_EQ_INT(classify_host_cat(S("user_annotation")), EVC_ANNOT);
	CHECK_EQ_INT(classify_host_cat(S("gpu_user_annotation")), EVC_GPU_ANNOT);
	/* exact spelling: Kineto writes them so */
	CHECK_EQ_INT(classify_host_cat(S("CPU_OP")), EVC_NONE);
	CHECK_EQ_INT(classify_host_cat(S("cpu_op ")), EVC_NONE);
	CHECK_EQ_INT(classify_host_cat(S("kernel")), EVC_NONE);
	CHECK_EQ_INT(classify_host_cat(S("")), EVC_NONE);
}

static void test_collectives(void)
{
	static const struct {
		const char *name;
		unsigned flags;
	} rows[] = {
		{ "hccl:all_to_all", CF_HOST_COLL },	/* MTIA: host only, always comm */
		/* the worker's span is the collective itself: comm's CPU record */
		{ "gloo:all_reduce", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT | CF_COLL_SPAN },
		{ "nccl:all_reduce", CF_CPU_COMM | CF_NOT_ANNOT },
		{ "c10d::wait", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
		{ "c10d::wait_tensor", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
		{ "c10d::barrier", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
		{ "c10d::monitored_barrier_", CF_CPU_COMM | CF_COLL_WAIT | CF_NOT_ANNOT },
		{ "c10d::allreduce_", CF_CPU_COMM | CF_NOT_ANNOT },	/* queues, no wait */
		{ "c10d::broadcast_", CF_CPU_COMM | CF_NOT_ANNOT },
		{ "record_param_comms", CF_CPU_COMM },		/* no namespace: a name */
		{ "cudaStreamCreateWithPriority", CF_INIT },
		{ "cudaEventCreateWithFlags", CF_INIT },
		{ "cudaDeviceGetStreamPriorityRange", CF_INIT },
		{ "cudaGetDeviceCount", CF_INIT },
		{ "cudaGetDeviceProperties", CF_INIT },
		{ "cuInit", CF_INIT },
		{ "cuDevicePrimaryCtxRetain", CF_INIT },
		{ "cuCtxCreate", CF_INIT },
		{ "cuModuleLoadData", CF_INIT },
		{ "cuLibraryLoad", CF_INIT },
		{ "cudnnCreate", CF_INIT },
		{ "cublasCreate", CF_INIT },
		{ "cublasLtCreate", CF_INIT },
		{ "hipStreamCreate", CF_INIT },
		{ "hipEventCreate", CF_INIT },
		{ "hipInit", CF_INIT },
		{ "hipModuleLoad", CF_INIT },
		{ "AscendCL@aclInit", CF_INIT },
		{ "AscendCL@aclrtSetDevice", CF_INIT },
		{ "AscendCL@aclrtCreateStream", CF_INIT },
		{ "AscendCL@aclrtCreateContext", CF_INIT },
		{ "cudaMallocAsync", CF_MEMORY },
		{ "cudaFreeHost", CF_MEMORY },
		{ "cudaHostAlloc", CF_MEMORY },
		{ "cudaHostRegister", CF_MEMORY },
		{ "cuMemAlloc_v2", CF_MEMORY },
		{ "cuMemFree", CF_MEMORY },
		{ "cuMemCreate", CF_MEMORY },
		{ "cuMemMap", CF_MEMORY },
		{ "hipMallocManaged", CF_MEMORY },
		{ "hipFree", CF_MEMORY },
		{ "hipHostMalloc", CF_MEMORY },
		{ "hipHostFree", CF_MEMORY },
		{ "hipExtMallocWithFlags", CF_MEMORY },
		{ "AscendCL@aclrtMalloc", CF_MEMORY },
		{ "AscendCL@aclrtFree", CF_MEMORY },
		/* graph replays: gpu.c's count, replay.c's and idle.c's (see classify.h) */
		{ "cudaGraphLaunch", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
		{ "cuGraphLaunch", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
		{ "hipGraphLaunch_spt", CF_GRAPH_LAUNCH | CF_GRAPH_RUN | CF_GRAPH_QUEUE },
		{ "xGraphLaunch", CF_GRAPH_RUN | CF_GRAPH_QUEUE },
		{ "AscendCL@aclmdlRIExecuteAsync", CF_GRAPH_QUEUE },
		{ "aclmdlRIExecute", 0 },	/* AscendCL's are named so in the trace */
		{ "cudaStreamWaitEvent", CF_EVENT_WAIT },
		{ "cuStreamWaitEvent", CF_EVENT_WAIT },
		{ "hipStreamWaitEvent", CF_EVENT_WAIT },
		{ "AscendCL@aclrtStreamWaitEvent", CF_EVENT_WAIT },
		{ "cudaStreamBeginCapture", CF_CAPTURE_BEGIN },
		{ "cudaStreamBeginCaptureToGraph", CF_CAPTURE_BEGIN },
		{ "AscendCL@aclmdlRICaptureBegin", CF_CAPTURE_BEGIN },
		{ "hipStreamEndCapture", CF_CAPTURE_END },
		{ "AscendCL@aclmdlRICaptureEnd", CF_CAPTURE_END },
		{ "capture_begin", 0 },	/* the words as the runtimes spell them */
		{ "cudaLaunchKernel", CF_LAUNCH_KERNEL },
		{ "cuLaunchKernelEx", CF_LAUNCH_KERNEL },
		{ "cudaLaunchCooperativeKernel", CF_LAUNCH_KERNEL },
		{ "cudaMemcpyAsync", CF_COPY },
		{ "hipMemsetAsync", CF_COPY },
		{ "AscendCL@aclrtMemcpy", CF_COPY },
		{ "cudaStreamSynchronize", 0 },	/* sync_calls.h's */
		{ "record_param_comms_", 0 },
		{ "aten::mm", 0 },
		{ "gloo", 0 },
		{ "c10d:wait", 0 },
		{ "xhccl:all_to_all", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_MSG(flags_of(rows[i].name) == rows[i].flags, "%s: %u, not %u", rows[i].name,
			  flags_of(rows[i].name), rows[i].flags);
	CHECK_EQ_INT(classify_flags(0), 0);
	CHECK_EQ_INT(classify_flags(EVS_NOCAT_SYNC), 0);
	CHECK_EQ_INT(classify_flags(EVS_ROW), 0);	/* past the rows */
}

static unsigned nocat(const char *name)
{
	return classify_name(name, strlen(name)) & ~EVS_ROW;
}

static void test_nocat_calls(void)
{
	CHECK_EQ_INT(nocat("AscendCL@aclrtSynchronizeStream"), EVS_NOCAT_SYNC);
	CHECK_EQ_INT(nocat("AscendCL@aclrtSynchronizeDevice"), EVS_NOCAT_SYNC);
	CHECK_EQ_INT(nocat("AscendCL@aclrtMemcpy"), EVS_NOCAT_SYNC);
	CHECK_EQ_INT(nocat("AscendCL@aclrtMemcpyAsync"), EVS_NOCAT_CALL);
	CHECK_EQ_INT(nocat("AscendCL@aclopCompileAndExecute"), EVS_NOCAT_CALL);
	/* a call of a kind is both */
	CHECK_EQ_INT(nocat("AscendCL@aclrtMalloc"), EVS_NOCAT_CALL);
	CHECK_EQ_INT(flags_of("AscendCL@aclrtMalloc"), CF_MEMORY);
	CHECK_EQ_INT(nocat("AscendCL"), 0);
	CHECK_EQ_INT(nocat("aclrtSynchronizeStream"), 0);
	/* a CUDA call is known by its cat, never by its name alone */
	CHECK_EQ_INT(nocat("cudaDeviceSynchronize"), 0);
	CHECK_EQ_INT(classify_name(S("cudaDeviceSynchronize")), 0);
}

static void test_sync_calls(void)
{
	static const struct {
		const char *name;
		enum sync_call k;
	} rows[] = {
		{ "cudaDeviceSynchronize", SYNC_RUNTIME },
		{ "cudaStreamSynchronize", SYNC_RUNTIME },
		{ "cuCtxSynchronize", SYNC_RUNTIME },
		{ "hipEventSynchronize", SYNC_RUNTIME },
		{ "cudaMemcpy", SYNC_RUNTIME },
		{ "cudaMemcpy2D", SYNC_RUNTIME },
		{ "cudaMemcpy3D", SYNC_RUNTIME },
		{ "cuMemcpyDtoH_v2", SYNC_RUNTIME },
		{ "cuMemcpyHtoD_v2", SYNC_RUNTIME },
		{ "hipMemcpy", SYNC_RUNTIME },
		{ "hipMemcpy2D", SYNC_RUNTIME },
		{ "hipMemcpyDtoH", SYNC_RUNTIME },
		{ "hipMemcpyHtoD", SYNC_RUNTIME },
		{ "AscendCL@aclrtSynchronizeStream", SYNC_RUNTIME },
		{ "AscendCL@aclrtMemcpy", SYNC_RUNTIME },
		{ "aten::item", SYNC_OP },
		{ "aten::_local_scalar_dense", SYNC_OP },
		{ "cudaMemcpyAsync", SYNC_NONE },
		{ "cudaLaunchKernel", SYNC_NONE },
		{ "Synchronize", SYNC_NONE },
		{ "cudaSynchronizeX", SYNC_NONE },
		{ "AscendCL@aclrtMemcpyAsync", SYNC_NONE },
		{ "aten::item_", SYNC_NONE },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *s = rows[i].name;
		enum dev_kind want = rows[i].k == SYNC_RUNTIME ? DK_SYNC : DK_RUNTIME;

		CHECK_MSG(sync_call_of(s, strlen(s)) == rows[i].k, "%s", s);
		/* device.c's runtime rules read the same list */
		CHECK_MSG(device_kind(device_cat_rule(S("cuda_runtime")), s, strlen(s)) == want,
			  "cuda_runtime %s", s);
	}
}

static void test_categories(void)
{
	static const struct {
		enum category c;
		const char *kernel, *family;
	} rows[] = {
		{ CAT_NONE, "", NULL },
		{ CAT_COMM, "comm", NULL },
		{ CAT_ATTENTION, "attention", "attention" },
		{ CAT_NORM, "norm", "norm" },
		{ CAT_CONV, "conv", "conv" },
		{ CAT_GEMM, "gemm", "gemm" },
		{ CAT_REDUCE, "reduce", "reduction" },
		{ CAT_ELEMENTWISE, "elementwise", "elementwise" },
		{ CAT_OTHER, "other", NULL },
		{ CAT_SOFTMAX, "reduce", "softmax" },
	};

	CHECK_EQ_INT(sizeof(rows) / sizeof(rows[0]), NR_CATEGORIES);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum category c = rows[i].c;

		CHECK_EQ_STR(category_name(c), rows[i].kernel);
		if (rows[i].family) {
			CHECK_EQ_STR(category_family(c), rows[i].family);
			CHECK_EQ_INT(category_of_family(rows[i].family), c);
		} else {
			CHECK(category_family(c) == NULL);
		}
		/* a kernel word reads back as its kernel category */
		if (c != CAT_NONE)
			CHECK_EQ_INT(category_of(rows[i].kernel), category_kernel(c));
	}
	CHECK_EQ_INT(category_kernel(CAT_SOFTMAX), CAT_REDUCE);
	CHECK_EQ_INT(category_of("softmax"), CAT_NONE);
	CHECK_EQ_INT(category_of(""), CAT_NONE);
	CHECK_EQ_INT(category_of(NULL), CAT_NONE);
	CHECK_EQ_INT(category_of_family(NULL), CAT_NONE);
	CHECK_EQ_STR(category_name(NR_CATEGORIES), "");
	/* the report's families, in their order */
	CHECK_EQ_STR(report_perf_family_name(0), "gemm");
	CHECK_EQ_STR(report_perf_family_name(1), "attention");
	CHECK_EQ_STR(report_perf_family_name(2), "conv");
	CHECK(report_perf_family_name(REPORT_PERF_FAMILIES) == NULL);
}

int main(void)
{
	test_host_cats();
	test_collectives();
	test_nocat_calls();
	test_sync_calls();
	test_categories();
	return check_done("test_classify");
}
