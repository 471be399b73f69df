/*
 * metric: the catalogue of the report's metrics, and the one formatter of
 * their values.
 *
 * Every scalar of a rank that any output shows is one entry of
 * metric_table[] (metric.c): its report path, its unit, which direction is
 * better, where it goes (cross-rank statistics, vcompare, the terminal's
 * cross-rank lines, a column of ranks.csv) and the function that reads it
 * from a struct report_rank.  crossrank, vcompare, vaggregate's summary,
 * the HTML page, the CSVs, the terminal and the suggestions' evidence all
 * read this table; none keeps its own list or guesses from a name.
 *
 * Families of metrics named per item ("phase:PATH.total_ns",
 * "kernel:NAME.total_ns", "memory:DEV.peak_allocated") are entries whose
 * path holds one '*': metric_find() matches them, and the code that knows
 * the items (crossrank, vcompare) enumerates them.
 *
 * To add a scalar of the report's "gpu", "steps" or "throughput" object:
 * add its field to struct report_rank (report.h) and compute it in the
 * analyzer, then add one entry to metric_table[] naming the field
 * (METRIC_I64/METRIC_F64, no getter).  report.c writes it at the end of its
 * object, report_read.c reads it back (null or missing: no value), and
 * cross-rank statistics, vcompare, the terminals, the HTML page and the
 * CSVs carry it, with no other edit.  The scalars of the gpu, steps,
 * throughput and perf objects before those are entries of the object's
 * field table (report_fields.h), which writes and reads them: their
 * entries here read them by the same offset (METRIC_FIELD_I64/F64).  The
 * rank's own scalars (events, span, clock) are written by hand in report.c
 * and read through their getters.
 *
 * The report's row tables (kernels, phases, cpu_ops, ...) are not scalars
 * of a rank: their keys, types and CSV columns are field tables
 * (report_fields.h), and the families above name their items.
 */
#ifndef VT_METRIC_H
#define VT_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "report_fields.h"

enum metric_unit {
	UNIT_NS,		/* nanoseconds: "93.0 µs", "1.23 s" */
	UNIT_BYTES,		/* binary prefixes: "28.5 GiB" */
	UNIT_RATIO,		/* a share of a whole, shown as a percentage: "45.7%" */
	UNIT_COUNT,		/* a number of things: "1845" */
	UNIT_PER_S,		/* a rate: "12.3/s" */
	UNIT_FACTOR,		/* how many times: "1.52x" */
	UNIT_NUMBER,		/* anything else, three significant digits */
};

enum metric_dir {
	DIR_NEUTRAL,		/* neither is better (counts of events) */
	DIR_LOWER,		/* lower is better (times, bytes) */
	DIR_HIGHER,		/* higher is better (utilization, throughput) */
};

/*
 * The catalogue's keys that code outside its table names (a finding's
 * metric, a summary column, a verdict's special case): each spelled once,
 * here, so that renaming one is one edit and a misspelling does not compile.
 */
#define MK_SPAN_NS                         "span_ns"
#define MK_CLOCK_OFFSET_NS                 "clock_offset_ns"
#define MK_GPU_UTILIZATION                 "gpu.utilization"
#define MK_GPU_COMM_WAIT_NS                "gpu.comm_wait_ns"
#define MK_GPU_COMM_NS                     "gpu.comm_ns"
#define MK_STEPS_MEDIAN_NS                 "steps.median_ns"
#define MK_GPU_EFFECTIVE_UTILIZATION       "gpu.effective_utilization"
#define MK_THROUGHPUT_REALTIME_FACTOR      "throughput.realtime_factor"
#define MK_THROUGHPUT_FPS                  "throughput.fps"
#define MK_THROUGHPUT_BPS                  "throughput.bps"
#define MK_GPU_STEP_UTILIZATION            "gpu.step_utilization"
#define MK_COMM_WAIT_IMPOSED_NS            "comm.wait_imposed_ns"
#define MK_STEPS_FIRST_RATIO               "steps.first_ratio"
#define MK_STEPS_COUNT                     "steps.count"
#define MK_PERF_ROOF_SHARE                 "perf.roof_share"
#define MK_KERNELS_ATTENTION_SHARE         "kernels.attention.share"
#define MK_GPU_MEMORY_SHARE                "gpu.memory_share"
#define MK_GPU_MEMORY_NS                   "gpu.memory_ns"
#define MK_GPU_KERNEL_MEDIAN_NS            "gpu.kernel_median_ns"
#define MK_GPU_COMM_SHARE                  "gpu.comm_share"
#define MK_GPU_COMM_COMPUTE_OVERLAP        "gpu.comm_compute_overlap"
#define MK_GPU_BUSY_NS                     "gpu.busy_ns"
#define MK_CPU_OPS_SYNC_SHARE              "cpu_ops.sync_share"

/*
 * The key of a memory row's member m ("peak_allocated"): the field after the
 * device in the family "memory:DEV.peak_allocated".
 */
#define METRIC_MEMORY_KEY(m) field_key_at(&memory_fields, offsetof(struct report_memory, m))

/* Where a metric goes (flags). */
#define MF_CROSS	1u	/* a cross_rank statistic, in table order */
#define MF_COMPARE	2u	/* vcompare compares it */
#define MF_TERM		4u	/* a line of vanalyze's cross-rank summary */
/*
 * Derived from busy time, where a collective's kernel counts as busy even
 * while it waits for a late rank: vcompare calls its improvement "more
 * waiting" when busy time grew no more than communication did.
 */
#define MF_BUSY		8u

/*
 * How a scalar is stored: by hand (report.c writes it, a getter reads it),
 * or as an int64_t (INT64_MIN: none, null) or a double (NaN: none) field of
 * struct report_rank that report.c and report_read.c handle from the table
 * (STORE_*), or that a field table of report_fields.c writes and reads
 * (FIELD_*: the catalogue only reads it, by the same offset and null).
 */
enum metric_store { STORE_BY_HAND, STORE_I64, STORE_F64, FIELD_I64, FIELD_F64 };

/* The tail of an entry for a stored field: METRIC_I64(gpu.comm_wait_ns). */
#define METRIC_I64(f) NULL, NULL, STORE_I64, offsetof(struct report_rank, f)
#define METRIC_F64(f) NULL, NULL, STORE_F64, offsetof(struct report_rank, f)
/* ... and of a field a field table writes: METRIC_FIELD_I64(throughput.frames) */
#define METRIC_FIELD_I64(f) NULL, NULL, FIELD_I64, offsetof(struct report_rank, f)
#define METRIC_FIELD_F64(f) NULL, NULL, FIELD_F64, offsetof(struct report_rank, f)

/* A ranks.csv column named as the path's last key: "busy_ns" for "gpu.busy_ns". */
#define CSV_KEY ""

struct metric_def {
	const char *path;		/* "gpu.utilization"; a family holds one '*' */
	enum metric_unit unit;
	enum metric_dir dir;
	unsigned flags;			/* MF_* */
	const char *csv;		/* column of ranks.csv (CSV_KEY: the path's last key),
					   NULL: none; metric_csv() names it */
	int csv_col;			/* its position there (columns sort by it) */
	/* 1 and *v when the rank has the value (finite), else 0; NULL for a family */
	int (*get)(const struct report_rank *r, double *v);
	/* the instance durations behind the value, for vcompare's test; NULL: none */
	size_t (*samples)(const struct report_rank *r, const int64_t **v);
	/* a value the catalogue stores: its type and offset in struct report_rank */
	enum metric_store store;
	size_t field;
};

extern const struct metric_def metric_table[];
extern const size_t metric_nr;

/*
 * 1 and *v when rank r has the value of scalar d (a getter's, or a stored
 * field's where the rank has d's object), else 0.
 */
int metric_value(const struct metric_def *d, const struct report_rank *r, double *v);

/*
 * The next stored scalar of the report object group ("gpu", "steps",
 * "throughput") from table position *i (start at 0), or NULL; its key in
 * the object is d->path + strlen(group) + 1.
 */
const struct metric_def *metric_next_stored(const char *group, size_t *i);

/*
 * The next object nested in group ("by_cause" and "outside" in "idle"), by
 * the stored scalars under it, from table position *i (start at 0), or
 * NULL.  The name is valid until the next call on this thread.  With
 * metric_next_stored(), a nested object of the report is written and read
 * from the table alone.
 */
const char *metric_next_group(const char *group, size_t *i);

/*
 * The entry of a metric name: a scalar by its path, else the family whose
 * pattern matches ("phase:a/b.total_ns" matches "phase:*.total_ns").
 * NULL when the catalogue does not know it.
 */
const struct metric_def *metric_find(const char *name);

/* The name of d's ranks.csv column, NULL where it has none. */
const char *metric_csv(const struct metric_def *d);

/*
 * How a reader names metric key, in out[0..n) (returned): the words of
 * vanalyze's tables for scalars ("span", "step (median)", "eff.util"), the
 * item and what of it for families ("phase denoise_step_*, median",
 * "operator aten::mm", "kernel NAME"), else the key's last part in words
 * ("first block").  Never longer than the key plus 32 bytes.  The key
 * stays in the JSON; the tables a reviewer reads show this.
 */
const char *metric_label_of(char *out, size_t n, const char *key);

/* The unit of a metric name, UNIT_NUMBER when unknown. */
enum metric_unit metric_unit_of(const char *name);

/* Flags of metric_fmt(). */
#define FMT_SIGN	1u	/* "+" before a positive value (a delta) */
#define FMT_ASCII	2u	/* "us" for µs and "-" for no value (suggestion messages) */

#define METRIC_FMT_MAX 48	/* room for any formatted value */

/*
 * v in unit u as text, into out[0..n): three significant digits, durations
 * scaled to ns, µs, ms or s, bytes to B, KiB, MiB, GiB or TiB; "–" (en
 * dash) when v is NaN or infinite.  Returns out.
 */
const char *metric_fmt(char *out, size_t n, double v, enum metric_unit u, unsigned flags);

#endif
