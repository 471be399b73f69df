/*
 * report_perf: see report_perf.h.  Shapes are written as strings holding
 * the trace's JSON text, not as JSON: the reader skipped them unchecked,
 * and a string is safe whatever they hold.  NaN figures are null.
 */
#include "report_perf.h"

#include <math.h>

#include "report_fields.h"
#include "report_json.h"

enum category report_perf_family(size_t i)
{
	static const enum category fam[REPORT_PERF_FAMILIES] = { CAT_GEMM, CAT_ATTENTION,
								 CAT_CONV };

	return i < REPORT_PERF_FAMILIES ? fam[i] : CAT_NONE;
}

const char *report_perf_family_name(size_t i)
{
	return category_family(report_perf_family(i));
}

void report_perf_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	const struct report_perf *p = &rk->perf;

	if (!compact)
		field_rows_json(w, &op_perf_fields, rk->ops_perf, rk->nr_ops_perf, 0);
	jsonw_key(w, "perf");
	jsonw_obj_begin(w);
	field_json(w, &perf_fields, p, 0);
	num_array(w, "step_flops", p->step_flops, p->nr_steps);
	/* per step of steps.durations_ns, as for the window: FLOPs / wall time / peak */
	num_array(w, "step_mfu", p->step_mfu, p->step_mfu ? p->nr_steps : 0);
	jsonw_key(w, "phases");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->nr_phases; i++) {
		const struct report_perf_phase *q = &p->phases[i];
		double tf = q->time_ns > 0 ? q->flops / (double)q->time_ns / 1e3 : NAN;

		jsonw_obj_begin(w);
		str_or_null(w, "path", q->path);
		num(w, "flops", q->flops);
		i64(w, "time_ns", q->time_ns);
		num(w, "tflops", tf);
		num(w, "mfu", report_perf_mfu_known(p) ? tf / p->peak_tflops : NAN);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	/* per throughput.generations: FLOPs over its wall time */
	num_array(w, "generation_flops", p->generation_flops, p->nr_generations);
	num_array(w, "generation_mfu", p->generation_mfu,
		  p->generation_mfu ? p->nr_generations : 0);
	jsonw_key(w, "families");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < REPORT_PERF_FAMILIES; i++) {
		const struct report_perf_family *f = &p->families[i];

		if (!f->time_ns)
			continue;
		jsonw_key(w, report_perf_family_name(i));
		jsonw_obj_begin(w);
		i64(w, "time_ns", f->time_ns);
		num(w, "roof_share", f->roof_share);
		str_or_null(w, "top", f->top);
		num(w, "top_roof_share", f->top_roof_share);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}
