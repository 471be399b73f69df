/*
 * perf_peak: each rank's operator rows and MFU against its device's peak
 * (lib/model/device_peak.h, from deviceProperties' name), or against the
 * peaks given by hand (--peak-tflops, --peak-tbps), which win.
 */
#ifndef VT_PERF_PEAK_H
#define VT_PERF_PEAK_H

#include "report.h"

/* By hand, for every rank and dtype; 0: none given. */
struct perf_peak_opts {
	double tflops, tbps;
};

/* Fill the peak fields of rk->ops_perf and rk->perf of every rank of r. */
void perf_peak_apply(struct report *r, const struct perf_peak_opts *o);

#endif
