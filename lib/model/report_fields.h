/*
 * report_fields: the field tables (field.h) of the report's objects, the
 * one list of each object's keys, types and CSV columns.  A new key of
 * one of them is an entry here (and a row of doc/report.md).  Most are
 * row tables, arrays of objects; steps and device are one object each,
 * and so are gpu, throughput and perf; clock_fields are keys of the rank
 * itself.
 */
#ifndef VT_REPORT_FIELDS_H
#define VT_REPORT_FIELDS_H

#include "field.h"
#include "report.h"

extern const struct field_table kernel_fields;		/* ranks[].kernels[] */
extern const struct field_table phase_fields;		/* ranks[].phases[] */
extern const struct field_table memory_fields;		/* ranks[].memory[] */
extern const struct field_table cpu_op_fields;		/* ranks[].cpu_ops[] */
extern const struct field_table op_perf_fields;		/* ranks[].ops_perf[] */
extern const struct field_table comm_fields;		/* ranks[].comm_instances[] */
extern const struct field_table idle_gap_fields;	/* ranks[].idle.top[] */
extern const struct field_table idle_bucket_fields;	/* ranks[].idle.histogram[] */
extern const struct field_table collective_fields;	/* collectives[] */
extern const struct field_table generation_fields;	/* ranks[].throughput.generations[] */
extern const struct field_table steps_fields;		/* ranks[].steps, one object */
extern const struct field_table device_fields;		/* ranks[].device, one object */
extern const struct field_table throughput_fields;	/* ranks[].throughput, one object */
extern const struct field_table perf_fields;		/* ranks[].perf's scalars, one object */
extern const struct field_table stat_fields;		/* cross_rank, by metric */
extern const struct field_table gpu_fields;		/* ranks[].gpu, one object */
extern const struct field_table straggler_fields;	/* stragglers[] */
extern const struct field_table suggestion_fields;	/* suggestions[] */
extern const struct field_table clock_fields;		/* ranks[]'s clock: keys of the rank */
extern const struct field_table input_fields;		/* inputs[]: keys of the rank */
extern const struct field_table rank_fields;		/* ranks[]'s first keys */
extern const struct field_table run_fields;		/* run, one object of the report */
extern const struct field_table workload_fields;	/* workload: keys of the report */
extern const struct field_table straggler_rule_fields;	/* keys of the report after stragglers */

/* Every table above, for the tests: NULL-terminated. */
extern const struct field_table *const report_field_tables[];

/*
 * What a lean read leaves out (REPORT_READ_LEAN): the keys of the FF_LEAN
 * fields and tables, once each, into skip[] (room for max, NULL after them
 * where there is room); gives how many.
 */
size_t report_lean_keys(const char **skip, size_t max);

#endif
