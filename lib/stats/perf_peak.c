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

/* Each family's rows with a roof share: time, time-weighted share, the row with the most time. */
static void families(struct report_rank *rk)
{
	for (size_t k = 0; k < REPORT_PERF_FAMILIES; k++) {
		struct report_perf_family *f = &rk->perf.families[k];
		const struct report_op_perf *top = NULL;
		double reached = 0;

		memset(f, 0, sizeof(*f));
		for (size_t i = 0; i < rk->nr_ops_perf; i++) {
			const struct report_op_perf *o = &rk->ops_perf[i];

			if (category_of_family(o->family) != report_perf_family(k) ||
			    isnan(o->roof_share) || o->total_ns <= 0 || o->implausible)
				continue;
			f->time_ns += o->total_ns;
			reached += (double)o->total_ns * o->roof_share;
			if (!top || o->total_ns > top->total_ns)
				top = o;
		}
		if (!top)
			continue;
		f->roof_share = reached / (double)f->time_ns;
		f->top = top->name;
		f->top_roof_share = top->roof_share;
	}
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

		/*
		 * An fp32 matrix product faster than the fp32 peak ran on the
		 * TF32 tensor cores (torch.backends.cuda.matmul.allow_tf32, or
		 * cuDNN's default for convolutions): its roof is TF32's.
		 */
		if (o->tflops <= 0 && r->dtype && !strcmp(r->dtype, "fp32") && r->family &&
		    (!strcmp(r->family, "gemm") || !strcmp(r->family, "conv")) &&
		    r->tflops_median > peak && dp.tflops[PERF_TF32] > 0)
			peak = dp.tflops[PERF_TF32];
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
	p->mfu = report_perf_mfu_known(p) ? p->tflops / p->peak_tflops : NAN;
	families(rk);
	for (size_t i = 0; i < p->nr_phases; i++)
		p->phases[i].mfu = report_perf_mfu_known(p) ? p->phases[i].tflops / p->peak_tflops
							    : NAN;
	/* per step and generation: FLOPs / wall time (ns: GFLOP/s, /1e3 TFLOP/s) / peak */
	for (size_t i = 0; p->step_mfu && i < p->nr_steps && i < rk->steps.nr_durations; i++) {
		int64_t d = rk->steps.durations_ns[i];

		p->step_mfu[i] = d > 0 && report_perf_mfu_known(p)
					 ? p->step_flops[i] / (double)d / 1e3 / p->peak_tflops
					 : NAN;
	}
	for (size_t i = 0; p->generation_mfu && i < p->nr_generations &&
			   i < rk->throughput.nr_generations; i++) {
		int64_t d = rk->throughput.generations[i].wall_ns;

		p->generation_mfu[i] = d > 0 && report_perf_mfu_known(p)
					       ? p->generation_flops[i] / (double)d / 1e3 /
							 p->peak_tflops
					       : NAN;
	}
}

void perf_peak_apply(struct report *r, const struct perf_peak_opts *o)
{
	for (size_t i = 0; i < r->nr_ranks; i++)
		if (r->ranks[i].analysed)
			apply_rank(&r->ranks[i], o);
}
