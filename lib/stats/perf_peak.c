/*
 * perf_peak: see perf_peak.h.  The roofline: an operator of intensity I
 * (FLOPs per byte) can reach at best min(peak, I x bandwidth); the ridge
 * is peak / bandwidth, where the two meet.  Below it an operator is
 * memory-bound, above compute-bound.  A figure the peaks cannot give
 * (no device known, no peak for the dtype) stays null.
 */
#include "perf_peak.h"

#include <math.h>
#include <string.h>

#include "device_peak.h"

static double peak_of(const struct device_peak *dp, const struct perf_peak_opts *o,
		      const char *dtype)
{
	if (o->tflops > 0)
		return o->tflops;
	for (int d = 1; dtype && d < PERF_NR_DTYPES; d++)
		if (!strcmp(perf_dtype_name((enum perf_dtype)d), dtype))
			return dp->tflops[d] > 0 ? dp->tflops[d] : NAN;
	return NAN;
}

static void apply_rank(struct report_rank *rk, const struct perf_peak_opts *o)
{
	struct device_peak dp;
	struct report_perf *p = &rk->perf;
	double tbps;

	device_peak_find(rk->device_name, &dp);
	tbps = o->tbps > 0 ? o->tbps : dp.tbps > 0 ? dp.tbps : NAN;
	p->peak_model = o->tflops > 0 || o->tbps > 0 ? "manual" : dp.model;
	p->peak_tbps = tbps;
	for (size_t i = 0; i < rk->nr_ops_perf; i++) {
		struct report_op_perf *r = &rk->ops_perf[i];
		double peak = peak_of(&dp, o, r->dtype), roof;

		r->peak_tflops = peak;
		r->peak_share = r->tflops_median / peak;	/* NaN stays NaN */
		r->bound = NULL;
		r->roof_share = NAN;
		if (isnan(peak) || isnan(tbps) || isnan(r->intensity))
			continue;
		/* intensity in FLOP/byte, tbps in 1e12 byte/s: the memory roof in TFLOP/s */
		roof = fmin(peak, r->intensity * tbps);
		r->roof_share = r->tflops_median / roof;
		r->bound = r->intensity >= peak / tbps ? "compute" : "memory";
	}
	p->peak_tflops = peak_of(&dp, o, p->dtype);
	p->mfu = p->tflops / p->peak_tflops;
}

void perf_peak_apply(struct report *r, const struct perf_peak_opts *o)
{
	for (size_t i = 0; i < r->nr_ranks; i++)
		if (r->ranks[i].analysed)
			apply_rank(&r->ranks[i], o);
}
