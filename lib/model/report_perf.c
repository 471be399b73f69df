/*
 * report_perf: see report_perf.h.  The keys are report_fields.c's
 * op_perf_fields and perf_fields.  Shapes are written as strings holding
 * the trace's JSON text, not as JSON: the reader skipped them unchecked,
 * and a string is safe whatever they hold.  NaN figures are null.
 */
#include "report_perf.h"

#include "report_fields.h"

void report_perf_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	if (!compact)
		field_rows_json(w, &op_perf_fields, rk->ops_perf, rk->nr_ops_perf, 0);
	jsonw_key(w, perf_fields.name);
	jsonw_obj_begin(w);
	field_json(w, &perf_fields, &rk->perf, 0);
	jsonw_obj_end(w);
}
