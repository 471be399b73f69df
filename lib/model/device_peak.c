/*
 * device_peak: see device_peak.h.  One row per device model; the first
 * row whose pattern the name meets wins, so a more specific name ("H100
 * PCIe", "H200") comes before a shorter one it contains ("H100", "H20").
 * Figures are TFLOP/s dense (a datasheet's "with sparsity" halved) and
 * TB/s; fp32 is the non-tensor rate; 0 where the datasheet gives none.
 */
#include "device_peak.h"

#include <string.h>

#include "namematch.h"

/* columns: fp64 (tensor where there is one), fp32, tf32, bf16, fp16, fp8; TB/s */
static const struct row {
	const char *pattern;
	enum name_how how;
	const char *model;
	double fp64, fp32, tf32, bf16, fp16, fp8, tbps;
} rows[] = {
	/* NVIDIA H100 Tensor Core GPU datasheet (2023), PCIe and NVL columns */
	{ "H100 PCIe", NAME_HAS_ANYCASE, "H100 PCIe", 51, 51, 378, 756, 756, 1513, 2.0 },
	{ "H100 NVL", NAME_HAS, "H100 NVL", 60, 60, 417.5, 835, 835, 1670.5, 3.9 },
	/* same datasheet, SXM column ("NVIDIA H100 80GB HBM3") */
	{ "H100", NAME_HAS, "H100 SXM", 67, 67, 494.5, 989.5, 989.5, 1979, 3.35 },
	/* NVIDIA H200 Tensor Core GPU datasheet (2024), SXM column */
	{ "H200", NAME_HAS, "H200", 67, 67, 494.5, 989.5, 989.5, 1979, 4.8 },
	/* NVIDIA HGX H20 product brief (2024) */
	{ "H20", NAME_HAS, "H20", 1, 44, 74, 148, 148, 296, 4.0 },
	/* NVIDIA Blackwell HGX B200 datasheet (2024), per GPU */
	{ "B200", NAME_HAS, "B200", 40, 80, 1100, 2250, 2250, 4500, 8.0 },
	/* NVIDIA A100 Tensor Core GPU datasheet (2021): 80GB PCIe, 40GB PCIe, 40GB SXM, 80GB SXM */
	{ "A100 80GB PCIe", NAME_HAS_ANYCASE, "A100 80GB PCIe",
	  19.5, 19.5, 156, 312, 312, 0, 1.935 },
	{ "A100-PCIE", NAME_HAS_ANYCASE, "A100 40GB PCIe", 19.5, 19.5, 156, 312, 312, 0, 1.555 },
	{ "A100-SXM4-40GB", NAME_HAS, "A100 40GB SXM", 19.5, 19.5, 156, 312, 312, 0, 1.555 },
	{ "A100", NAME_HAS, "A100 80GB SXM", 19.5, 19.5, 156, 312, 312, 0, 2.039 },
	/* NVIDIA A10 datasheet (2021); no FP64 figure given */
	{ "NVIDIA A10", NAME_IS, "A10", 0, 31.2, 62.5, 125, 125, 0, 0.6 },
	/* NVIDIA L40S datasheet (2023) */
	{ "L40S", NAME_HAS, "L40S", 0, 91.6, 183, 362, 362, 733, 0.864 },
	/* NVIDIA V100 datasheet (2020): PCIe and SXM2; fp16 is the tensor rate */
	{ "V100-PCIE", NAME_HAS_ANYCASE, "V100 PCIe", 7, 14, 0, 0, 112, 0, 0.9 },
	{ "V100", NAME_HAS, "V100 SXM2", 7.8, 15.7, 0, 0, 125, 0, 0.9 },
	/* AMD Instinct MI325X data sheet (2024): matrix rates */
	{ "MI325X", NAME_HAS, "MI325X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 6.0 },
	/* AMD Instinct MI300X data sheet (2023): matrix rates */
	{ "MI300X", NAME_HAS, "MI300X", 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5.3 },
	/* AMD Instinct MI250X data sheet (2021): matrix rates */
	{ "MI250X", NAME_HAS, "MI250X", 95.7, 95.7, 0, 383, 383, 0, 3.2768 },
	/* AMD Instinct MI210 data sheet (2022): matrix rates */
	{ "MI210", NAME_HAS, "MI210", 45.3, 45.3, 0, 181, 181, 0, 1.6384 },
	/* Huawei Atlas 800T A2 (Ascend 910B) specification: fp16, HBM2e */
	{ "910B", NAME_HAS, "Ascend 910B", 0, 0, 0, 313, 313, 0, 1.6 },
};

void device_peak_find(const char *name, struct device_peak *p)
{
	memset(p, 0, sizeof(*p));
	if (!name)
		return;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		if (!name_matches(r->how, r->pattern, name, strlen(name)))
			continue;
		p->model = r->model;
		p->tflops[PERF_FP64] = r->fp64;
		p->tflops[PERF_FP32] = r->fp32;
		p->tflops[PERF_TF32] = r->tf32;
		p->tflops[PERF_BF16] = r->bf16;
		p->tflops[PERF_FP16] = r->fp16;
		p->tflops[PERF_FP8] = r->fp8;
		p->tbps = r->tbps;
		return;
	}
}

double device_peak_tflops(const struct device_peak *p, enum perf_dtype d)
{
	return d > 0 && d < PERF_NR_DTYPES ? p->tflops[d] : 0;
}
