/*
 * test_device: the device table of analyzer/device.c, rule by rule: the
 * exact spelling of a cat before its other cases, process names, the name
 * refinements of each vendor, and the host-sync calls.
 */
#include <string.h>

#include "check.h"
#include "device.h"

#define S(lit) lit, sizeof(lit) - 1

static const char *source_of_cat(const char *cat)
{
	const struct dev_rule *r = device_rule(device_cat_rule(cat, strlen(cat)));

	return r ? r->source : "none";
}

static enum dev_kind cat_kind(const char *cat, const char *name)
{
	return device_kind(device_cat_rule(cat, strlen(cat)), name, strlen(name));
}

static enum dev_kind proc_kind(const char *proc, const char *name)
{
	return device_kind(device_process_rule(proc, strlen(proc)), name, strlen(name));
}

static void test_cats(void)
{
	CHECK_EQ_STR(source_of_cat("kernel"), "kineto");
	CHECK_EQ_STR(source_of_cat("Kernel"), "kineto-2021");
	CHECK_EQ_STR(source_of_cat("KERNEL"), "kineto");	/* other cases: the first row */
	CHECK_EQ_STR(source_of_cat("Memcpy"), "kineto-2021");
	CHECK_EQ_STR(source_of_cat("gpu_memcpy"), "kineto");
	CHECK_EQ_STR(source_of_cat("mtia_ccp_events"), "kineto-mtia");
	CHECK_EQ_STR(source_of_cat("xpu_runtime"), "kineto-xpu");
	CHECK_EQ_STR(source_of_cat("cpu_op"), "none");
	CHECK_EQ_STR(source_of_cat(""), "none");
	CHECK_EQ_INT(device_cat_rule(S("kerne")), -1);
	CHECK_EQ_INT(device_cat_rule(S("kernels")), -1);
	/* a process name is no cat, and a cat no process name */
	CHECK_EQ_INT(device_cat_rule(S("HCCL")), -1);
	CHECK_EQ_INT(device_process_rule(S("kernel")), -1);
	CHECK_EQ_INT(device_process_rule(S("ascend hardware")),	/* any case matches */
		     device_process_rule(S("Ascend Hardware")));
	CHECK(device_process_rule(S("Ascend Hardware")) >= 0);
	CHECK_EQ_INT(device_process_rule(S("Python")), -1);
	CHECK(device_rule(-1) == NULL);
	CHECK(device_rule(1000) == NULL);
}

static void test_kinds(void)
{
	CHECK_EQ_INT(cat_kind("kernel", "anything"), DK_KERNEL);
	CHECK_EQ_INT(cat_kind("Memset", "Memset (Device)"), DK_MEMSET);
	CHECK_EQ_INT(cat_kind("cuda_sync", "Event Sync"), DK_WAIT);
	CHECK_EQ_INT(cat_kind("mtia_ccp_events", "dma_request"), DK_MEMCPY);
	CHECK_EQ_INT(cat_kind("mtia_ccp_events", "event_wait"), DK_WAIT);
	CHECK_EQ_INT(cat_kind("mtia_ccp_events", "fc-dtype_Float"), DK_KERNEL);
	CHECK_EQ_INT(proc_kind("Ascend Hardware", "MEMCPY_ASYNC"), DK_MEMCPY);
	CHECK_EQ_INT(proc_kind("Ascend Hardware", "Notify Wait"), DK_WAIT);
	CHECK_EQ_INT(proc_kind("Ascend Hardware", "aclnnMm_MatMulCommon_MatMulV2"), DK_KERNEL);
	CHECK_EQ_INT(proc_kind("HCCL", "hcom_allReduce__868_0_1"), DK_KERNEL);
	/* HCCL's own tasks: data moved, or waiting for the peer */
	CHECK_EQ_INT(proc_kind("Ascend Hardware", "SDMA"), DK_COMM_TASK);
	CHECK_EQ_INT(proc_kind("Ascend Hardware", "Write Value"), DK_WAIT);
	CHECK_EQ_INT(proc_kind("HCCL", "Memcpy"), DK_COMM_TASK);	/* a Plane task */
	CHECK_EQ_INT(proc_kind("HCCL", "Reduce Inline"), DK_COMM_TASK);
	CHECK_EQ_INT(proc_kind("HCCL", "Notify_Wait"), DK_WAIT);
	CHECK_EQ_INT(proc_kind("HCCL", "Notify Wait"), DK_WAIT);
	CHECK_EQ_INT(proc_kind("HCCL", "Notify_Record"), DK_WAIT);
	CHECK(device_collective_op(S("hcom_allReduce__868_0_1")));
	CHECK(!device_collective_op(S("HcclAllreduce")));
	CHECK(!device_collective_op(S("SDMA")));
	CHECK_EQ_INT(proc_kind("CANN", "AscendCL@aclrtSynchronizeStream"), DK_SYNC);
	CHECK_EQ_INT(proc_kind("CANN", "AscendCL@aclrtMemcpyAsync"), DK_RUNTIME);
	CHECK_EQ_INT(device_kind(-1, S("x")), DK_NONE);
}

static void test_syncs(void)
{
	static const char *const sync[] = { "cudaDeviceSynchronize", "cudaStreamSynchronize",
					    "cudaEventSynchronize", "cuCtxSynchronize",
					    "hipDeviceSynchronize", "hipStreamSynchronize",
					    "cudaMemcpy", "hipMemcpy", "cudaMemcpy2D" };
	static const char *const not_sync[] = { "cudaMemcpyAsync", "cudaLaunchKernel",
						"cudaStreamWaitEvent", "hipMemcpyAsync",
						"Synchronize", "cudaSynchronizeX" };

	for (size_t i = 0; i < sizeof(sync) / sizeof(*sync); i++) {
		CHECK_MSG(cat_kind("cuda_runtime", sync[i]) == DK_SYNC, "%s", sync[i]);
		CHECK_MSG(cat_kind("Runtime", sync[i]) == DK_SYNC, "2021 %s", sync[i]);
	}
	for (size_t i = 0; i < sizeof(not_sync) / sizeof(*not_sync); i++)
		CHECK_MSG(cat_kind("cuda_runtime", not_sync[i]) == DK_RUNTIME, "%s", not_sync[i]);
	/* only runtime rules have host syncs */
	CHECK_EQ_INT(cat_kind("kernel", "cudaDeviceSynchronize"), DK_KERNEL);
	CHECK_EQ_INT(cat_kind("mtia_runtime", "synchronizeStream"), DK_RUNTIME);
}

static void test_vendor_names(void)
{
	CHECK_EQ_STR(device_runtime_vendor(S("hipLaunchKernel")), "amd");
	CHECK_EQ_STR(device_runtime_vendor(S("cudaLaunchKernel")), "nvidia");
	CHECK_EQ_STR(device_runtime_vendor(S("cuLaunchKernel")), "nvidia");
	CHECK(device_runtime_vendor(S("aclrtMemcpy")) == NULL);
}

int main(void)
{
	test_cats();
	test_kinds();
	test_syncs();
	test_vendor_names();
	return check_done("test_device");
}
