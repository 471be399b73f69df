/*
 * csv_fields: see csv_fields.h.  doc/outputs.md describes the columns.
 */
#include "csv_fields.h"

#define T(k, t, m) FIELD(k, t, struct csv_step_row, m, FF_NONNULL)
static const struct field csv_step_f[] = {
	{ T("step", FT_I64, step), .csv = 1 },
	{ T("duration_ns", FT_I64, duration_ns), .csv = 2 },
	{ T("warmup", FT_BOOL, warmup), .csv = 3 },
};
#undef T

const struct field_table csv_step_fields = FIELD_TABLE("steps", csv_step_f, struct csv_step_row);

/* the part's figures, then one column per cause of idle_causes.h */
#define I(k, t, m, fl) FIELD(k, t, struct csv_idle_row, m, fl)
#define CAUSE(u, l, f) { I(#l "_ns", FT_I64, p.by_cause[IDLE_##u], 0), .csv = 7 + IDLE_##u },
static const struct field csv_idle_f[] = {
	{ I("part", FT_STR, part, FF_NONNULL), .csv = 1 },
	{ I("window", FT_STR, window, FF_NONNULL), .csv = 2 },
	{ I("window_ns", FT_I64, p.window_ns, 0), .csv = 3 },
	{ I("busy_ns", FT_I64, p.busy_ns, 0), .csv = 4 },
	{ I("idle_ns", FT_I64, p.idle_ns, 0), .csv = 5 },
	{ I("gaps", FT_I64, p.gaps, 0), .csv = 6 },
	IDLE_CAUSES(CAUSE)
};
#undef CAUSE
#undef I

const struct field_table csv_idle_fields = FIELD_TABLE("idle", csv_idle_f, struct csv_idle_row);
