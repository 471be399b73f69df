/*
 * vendor_words: see vendor_words.h.  Sources: NVIDIA's, AMD's and
 * Huawei's documentation of their interconnects (NVLink, xGMI / Infinity
 * Fabric, HCCS), collective libraries (NCCL, RCCL, HCCL) and graph
 * execution (CUDA graphs, HIP graphs, torch_npu's graph mode through
 * torchair); Meta's MTIA and Intel's XPU runtime names as torch exposes them.
 */
#include "vendor_words.h"

#include <string.h>

static const struct vendor_words rows[] = {
	{ "nvidia", "GPU", "CUDA graphs", "NVLink/InfiniBand", "NCCL", "CUDA events",
	  "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
	  "FlashAttention-3 on Hopper GPUs where the run has them" },
	{ "amd", "GPU", "HIP graphs", "xGMI/Infinity Fabric", "RCCL", "HIP events",
	  "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True",
	  "FlashAttention built for ROCm (Composable Kernel or Triton)" },
	{ "ascend", "NPU", "the NPU graph mode (torchair)", "HCCS/RoCE", "HCCL", "NPU events",
	  "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
	  "torch_npu's fused attention (npu_fusion_attention)" },
	{ "mtia", "accelerator", "MTIA graphs", "the accelerator interconnect", "the collective "
	  "library", "device events", NULL, "the device's fused attention kernels" },
	{ "intel", "GPU", "XPU graphs", "Xe Link", "oneCCL", "XPU events", NULL,
	  "the device's fused attention kernels" },
};

static const struct vendor_words unknown = { NULL, "device", "device graphs", "the interconnect",
					     "the collective library", "device events", NULL,
					     "the device's fused attention kernels" };
static const struct vendor_words cpu_only = { NULL, NULL, NULL, "the network", "gloo", "events",
					      NULL, "fused attention kernels" };

const struct vendor_words *vendor_words(const char *vendor)
{
	if (!vendor)
		return &cpu_only;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].vendor, vendor))
			return &rows[i];
	return &unknown;
}

const struct vendor_words *vendor_words_of_run(const struct report *rep)
{
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (rk->analysed && !rk->gpu.no_device)
			return rk->device.vendor ? vendor_words(rk->device.vendor) : &unknown;
	}
	return &cpu_only;
}
