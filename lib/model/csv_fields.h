/*
 * csv_fields: the field tables (field.h) of rows that only a CSV table
 * has, not report.json: render/csvout.c makes each row from a rank, and
 * writes it as the other tables' rows, by the .csv column numbers.
 */
#ifndef VT_CSV_FIELDS_H
#define VT_CSV_FIELDS_H

#include "field.h"
#include "report.h"

/* A step of ranks[].steps.durations_ns: a row of steps.csv. */
struct csv_step_row {
	int64_t step;			/* from 0, in time order */
	int64_t duration_ns;
	int warmup;			/* the warm-up step, left out of the steps' figures */
};

/* A part of ranks[].idle (borrowed strings): a row of idle.csv. */
struct csv_idle_row {
	const char *part;		/* "window" (idle.in) or "outside" */
	const char *window;		/* the idle object's: "steps" or "trace" */
	struct report_idle_part p;	/* INT64_MIN: null, an empty cell */
};

extern const struct field_table csv_step_fields;	/* steps.csv */
extern const struct field_table csv_idle_fields;	/* idle.csv */

#endif
