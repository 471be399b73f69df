/*
 * device_peak: what a device can do at best, per dtype and in memory
 * bandwidth, from its name as deviceProperties gives it ("NVIDIA H100
 * 80GB HBM3", "AMD Instinct MI300X"): the denominators of every share of
 * peak and of the model FLOPs utilization.  Dense tensor-core figures
 * (no 2:4 sparsity), from each vendor's datasheet (device_peak.c).
 */
#ifndef VT_DEVICE_PEAK_H
#define VT_DEVICE_PEAK_H

#include "perf_model.h"

struct device_peak {
	const char *model;		/* "H100 SXM" (static); NULL: unknown device */
	double tflops[PERF_NR_DTYPES];	/* TFLOP/s (1e12); 0: not given */
	double tbps;			/* TB/s (1e12 bytes); 0: not given */
};

/* The peaks of the device named name (NULL or unknown: model NULL, all 0). */
void device_peak_find(const char *name, struct device_peak *p);

/* The peak for dtype d, TFLOP/s; 0 when unknown. */
double device_peak_tflops(const struct device_peak *p, enum perf_dtype d);

#endif
