/*
 * metric: see metric.h.
 *
 * The table is in the order of the report's cross_rank statistics (the
 * scalars of RANK as DESIGN.md lists them), which vaggregate and vcompare
 * also follow; entries that only the CSV or the suggestions use come where
 * they read best.  A getter returns 0 where the report has null or the rank
 * lacks the analysis, so every output leaves the same gaps.
 */
#include "metric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 1 and *v = x when x is a value (NaN is null in the report). */
static int have(double x, double *v)
{
	if (!isfinite(x))
		return 0;
	*v = x;
	return 1;
}

static int get_events_total(const struct report_rank *r, double *v)
{
	return have((double)r->events_total, v);
}

static int get_span(const struct report_rank *r, double *v)
{
	return have((double)r->span_ns, v);
}

/* Against rank 0's clock, from the ends of matched collectives. */
static int get_clock_offset(const struct report_rank *r, double *v)
{
	return r->has_clock && have((double)r->clock_offset_ns, v);
}

static int has_steps(const struct report_rank *r)
{
	return r->analysed && r->has_phases;
}

static int get_steps_median(const struct report_rank *r, double *v)
{
	return has_steps(r) && r->steps.d.count > 0 && have(r->steps.d.median_ns, v);
}

static int get_steps_avg(const struct report_rank *r, double *v)
{
	return has_steps(r) && r->steps.d.count > 0 && have(r->steps.d.avg_ns, v);
}

static int get_steps_warmup(const struct report_rank *r, double *v)
{
	return has_steps(r) && have(r->steps.warmup, v);
}

/* The steps without the warm-up one. */
static size_t steps_samples(const struct report_rank *r, const int64_t **v)
{
	size_t skip = r->steps.warmup && r->steps.nr_durations ? 1 : 0;
	/* a last step cut off by the end of the trace is no step's duration */
	size_t cut = r->steps.cut_off == 1 && r->steps.nr_durations > skip ? 1 : 0;

	*v = r->steps.durations_ns + skip;
	return r->steps.nr_durations - skip - cut;
}

static int has_tp(const struct report_rank *r)
{
	return r->analysed && r->has_throughput;
}

/* Null blocks (no block spans), or none and no wall time: no generation to count in. */
static int get_tp_blocks(const struct report_rank *r, double *v)
{
	const struct report_throughput *t = &r->throughput;

	return has_tp(r) && t->blocks >= 0 && (t->blocks > 0 || t->wall_ns > 0) &&
	       have((double)t->blocks, v);
}

/* The largest peak over the GPUs (devices >= 0) of a rank. */
static int gpu_peak(const struct report_rank *r, int reserved, double *v)
{
	int64_t peak = -1;

	for (size_t m = 0; m < r->nr_memory; m++) {
		int64_t x = reserved ? r->memory[m].peak_reserved : r->memory[m].peak_allocated;

		if (r->memory[m].device >= 0 && x > peak)
			peak = x;
	}
	return peak >= 0 && have((double)peak, v);
}

static int get_gpu_peak_allocated(const struct report_rank *r, double *v)
{
	return gpu_peak(r, 0, v);
}

static int get_gpu_peak_reserved(const struct report_rank *r, double *v)
{
	return gpu_peak(r, 1, v);
}

/* ranks[].perf: a figure only where modelled operators ran (a zeroed rank has none). */
static int get_perf_mfu(const struct report_rank *r, double *v)
{
	return r->analysed && r->perf.flops > 0 && have(r->perf.mfu, v);
}

static int get_perf_tflops(const struct report_rank *r, double *v)
{
	return r->analysed && r->perf.flops > 0 && have(r->perf.tflops, v);
}

/* The tails of entries: read by a getter (with samples), or not read at all. */
#define METRIC_GET(f) f, NULL, STORE_BY_HAND, 0
#define METRIC_GET_SAMPLES(f, s) f, s, STORE_BY_HAND, 0
#define METRIC_NONE NULL, NULL, STORE_BY_HAND, 0

#define X MF_CROSS
#define C MF_COMPARE
#define T MF_TERM
#define B MF_BUSY

/*
 * path, unit, direction, where it goes, ranks.csv column (CSV_KEY: named as
 * the path's last key) and its position, getter, samples.  Entries without
 * a getter are the evidence of suggestion rules (suggest.c computes them)
 * and the families.
 */
const struct metric_def metric_table[] = {
	{ "events.total", UNIT_COUNT, DIR_NEUTRAL, X, "events", 1, METRIC_GET(get_events_total) },
	{ MK_SPAN_NS, UNIT_NS, DIR_LOWER, X | C | T, CSV_KEY, 2, METRIC_GET(get_span) },
	{ "gpu.kernels", UNIT_COUNT, DIR_NEUTRAL, X, CSV_KEY, 3, METRIC_FIELD_I64(gpu.kernels) },
	{ "gpu.kernel_time_ns", UNIT_NS, DIR_LOWER, X | T, CSV_KEY, 4,
	  METRIC_FIELD_I64(gpu.kernel_time_ns) },
	{ MK_GPU_BUSY_NS, UNIT_NS, DIR_NEUTRAL, X | T, CSV_KEY, 5,
	  METRIC_FIELD_I64(gpu.busy_ns) },
	{ "gpu.active_span_ns", UNIT_NS, DIR_LOWER, X, CSV_KEY, 6,
	  METRIC_FIELD_I64(gpu.active_span_ns) },
	{ "gpu.idle_ns", UNIT_NS, DIR_LOWER, X, CSV_KEY, 7, METRIC_FIELD_I64(gpu.idle_ns) },
	{ MK_GPU_UTILIZATION, UNIT_RATIO, DIR_HIGHER, X | C | T | B, CSV_KEY, 8,
	  METRIC_FIELD_F64(gpu.utilization) },
	{ MK_GPU_COMM_NS, UNIT_NS, DIR_LOWER, X | T, CSV_KEY, 9, METRIC_FIELD_I64(gpu.comm_ns) },
	{ "gpu.compute_ns", UNIT_NS, DIR_NEUTRAL, X, CSV_KEY, 10,
	  METRIC_FIELD_I64(gpu.compute_ns) },
	{ MK_GPU_MEMORY_NS, UNIT_NS, DIR_LOWER, X | C, CSV_KEY, 11,
	  METRIC_FIELD_I64(gpu.memory_ns) },
	{ MK_GPU_COMM_COMPUTE_OVERLAP, UNIT_RATIO, DIR_HIGHER, X | C, CSV_KEY, 12,
	  METRIC_FIELD_F64(gpu.comm_compute_overlap) },
	{ MK_GPU_COMM_WAIT_NS, UNIT_NS, DIR_LOWER, X | T, CSV_KEY, 13,
	  METRIC_FIELD_I64(gpu.comm_wait_ns) },
	{ "gpu.comm_transfer_ns", UNIT_NS, DIR_LOWER, X, CSV_KEY, 14,
	  METRIC_FIELD_I64(gpu.comm_transfer_ns) },
	{ MK_GPU_EFFECTIVE_UTILIZATION, UNIT_RATIO, DIR_HIGHER, X | C | T,
	  CSV_KEY, 15,
	  METRIC_FIELD_F64(gpu.effective_utilization) },
	{ MK_CLOCK_OFFSET_NS, UNIT_NS, DIR_NEUTRAL, 0, CSV_KEY, 16,
	  METRIC_GET(get_clock_offset) },
	{ "gpu.host_sync_ns", UNIT_NS, DIR_LOWER, X, NULL, 0, METRIC_FIELD_I64(gpu.host_sync_ns) },
	{ "gpu.host_sync_count", UNIT_COUNT, DIR_LOWER, X, NULL, 0,
	  METRIC_FIELD_I64(gpu.host_sync_count) },
	{ "gpu.comm_sync_ns", UNIT_NS, DIR_LOWER, X, NULL, 0, METRIC_FIELD_I64(gpu.comm_sync_ns) },
	{ "gpu.comm_idle_ns", UNIT_NS, DIR_LOWER, X, NULL, 0, METRIC_FIELD_I64(gpu.comm_idle_ns) },
	{ MK_GPU_KERNEL_MEDIAN_NS, UNIT_NS, DIR_HIGHER, X, NULL, 0,
	  METRIC_I64(gpu.kernel_median_ns) },
	{ "gpu.graph_launches", UNIT_COUNT, DIR_NEUTRAL, X, NULL, 0,
	  METRIC_I64(gpu.graph_launches) },
	{ "gpu.graph_kernels", UNIT_COUNT, DIR_NEUTRAL, X, NULL, 0, METRIC_I64(gpu.graph_kernels) },
	{ MK_GPU_STEP_UTILIZATION, UNIT_RATIO, DIR_HIGHER, X | C | T | B, CSV_KEY, 28,
	  METRIC_F64(gpu.step_utilization) },
	/* idle.h's attribution (doc/idle.md): the window, then the rest of the trace */
	{ "idle.window_ns", UNIT_NS, DIR_NEUTRAL, X, NULL, 0, METRIC_I64(idle.in.window_ns) },
	{ "idle.busy_ns", UNIT_NS, DIR_NEUTRAL, X, NULL, 0, METRIC_I64(idle.in.busy_ns) },
	{ "idle.idle_ns", UNIT_NS, DIR_LOWER, X | C | B, NULL, 0, METRIC_I64(idle.in.idle_ns) },
	{ "idle.gaps", UNIT_COUNT, DIR_NEUTRAL, X, NULL, 0, METRIC_I64(idle.in.gaps) },
	{ "idle.gaps_by_time", UNIT_COUNT, DIR_NEUTRAL, 0, NULL, 0, METRIC_I64(idle.gaps_by_time) },
#define IDLE_IN(u, l, f) { "idle.by_cause." #l, UNIT_NS, DIR_LOWER, X | C | B, NULL, 0, \
			METRIC_I64(idle.in.by_cause[IDLE_##u]) },
	IDLE_CAUSES(IDLE_IN)
#undef IDLE_IN
	{ "idle.outside.window_ns", UNIT_NS, DIR_NEUTRAL, 0, NULL, 0,
	  METRIC_I64(idle.outside.window_ns) },
	{ "idle.outside.busy_ns", UNIT_NS, DIR_NEUTRAL, 0, NULL, 0,
	  METRIC_I64(idle.outside.busy_ns) },
	{ "idle.outside.idle_ns", UNIT_NS, DIR_NEUTRAL, 0, NULL, 0,
	  METRIC_I64(idle.outside.idle_ns) },
	{ "idle.outside.gaps", UNIT_COUNT, DIR_NEUTRAL, 0, NULL, 0, METRIC_I64(idle.outside.gaps) },
#define IDLE_OUT(u, l, f) { "idle.outside.by_cause." #l, UNIT_NS, DIR_NEUTRAL, 0, NULL, 0, \
			 METRIC_I64(idle.outside.by_cause[IDLE_##u]) },
	IDLE_CAUSES(IDLE_OUT)
#undef IDLE_OUT
	{ "steps.cut_off", UNIT_COUNT, DIR_NEUTRAL, 0, NULL, 0, METRIC_I64(steps.cut_off) },
	{ MK_STEPS_COUNT, UNIT_COUNT, DIR_NEUTRAL, 0, "steps", 17,
	  METRIC_FIELD_I64(steps.d.count) },
	{ MK_STEPS_MEDIAN_NS, UNIT_NS, DIR_LOWER, X | C | T, "step_median_ns", 18,
	  METRIC_GET_SAMPLES(get_steps_median, steps_samples) },
	{ "steps.warmup", UNIT_COUNT, DIR_NEUTRAL, 0, CSV_KEY, 19,
	  METRIC_GET(get_steps_warmup) },
	{ "steps.avg_ns", UNIT_NS, DIR_LOWER, X, NULL, 0, METRIC_GET(get_steps_avg) },
	{ "throughput.wall_ns", UNIT_NS, DIR_LOWER, X, CSV_KEY, 20,
	  METRIC_FIELD_I64(throughput.wall_ns) },
	{ "throughput.frames", UNIT_COUNT, DIR_NEUTRAL, 0, CSV_KEY, 21,
	  METRIC_FIELD_I64(throughput.frames) },
	{ MK_THROUGHPUT_FPS, UNIT_PER_S, DIR_HIGHER, X | C, CSV_KEY, 23,
	  METRIC_FIELD_F64(throughput.fps) },
	{ MK_THROUGHPUT_BPS, UNIT_PER_S, DIR_HIGHER, X | C, CSV_KEY, 24,
	  METRIC_FIELD_F64(throughput.bps) },
	{ "throughput.first_block_ns", UNIT_NS, DIR_LOWER, X | C, NULL, 0,
	  METRIC_FIELD_I64(throughput.first_block_ns) },
	{ "throughput.blocks", UNIT_COUNT, DIR_NEUTRAL, X, CSV_KEY, 22,
	  METRIC_GET(get_tp_blocks) },
	{ MK_THROUGHPUT_REALTIME_FACTOR, UNIT_FACTOR, DIR_HIGHER, 0, CSV_KEY, 25,
	  METRIC_FIELD_F64(throughput.realtime_factor) },
	{ "memory.gpu_peak_allocated", UNIT_BYTES, DIR_LOWER, 0, CSV_KEY, 26,
	  METRIC_GET(get_gpu_peak_allocated) },
	{ "memory.gpu_peak_reserved", UNIT_BYTES, DIR_LOWER, 0, CSV_KEY, 27,
	  METRIC_GET(get_gpu_peak_reserved) },
	/* ranks[].perf (report_perf.h): null without shapes or a known peak */
	{ "perf.mfu", UNIT_RATIO, DIR_HIGHER, X | C, NULL, 0, METRIC_GET(get_perf_mfu) },
	{ "perf.tflops", UNIT_NUMBER, DIR_HIGHER, X | C, NULL, 0, METRIC_GET(get_perf_tflops) },

	/* the evidence of suggestion rules */
	{ MK_GPU_COMM_SHARE, UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ MK_GPU_MEMORY_SHARE, UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ "kernels.median_ns", UNIT_NS, DIR_HIGHER, 0, NULL, 0, METRIC_NONE },
	{ MK_KERNELS_ATTENTION_SHARE, UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ MK_CPU_OPS_SYNC_SHARE, UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ MK_STEPS_FIRST_RATIO, UNIT_FACTOR, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ MK_PERF_ROOF_SHARE, UNIT_RATIO, DIR_HIGHER, 0, NULL, 0, METRIC_NONE },
	{ MK_COMM_WAIT_IMPOSED_NS, UNIT_NS, DIR_LOWER, 0, NULL, 0, METRIC_NONE },

	/* families */
	{ "phase:*.total_ns", UNIT_NS, DIR_LOWER, X | C, NULL, 0, METRIC_NONE },
	{ "phase:*.median_ns", UNIT_NS, DIR_LOWER, C, NULL, 0, METRIC_NONE },
	{ "phase:*.share", UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
	{ "kernel:*.total_ns", UNIT_NS, DIR_LOWER, C, NULL, 0, METRIC_NONE },
	{ "op:*.total_ns", UNIT_NS, DIR_LOWER, C, NULL, 0, METRIC_NONE },	/* CPU, inclusive */
	/* an operator and its input dims (ops_perf): median TFLOP/s */
	{ "tflops:*.median", UNIT_NUMBER, DIR_HIGHER, C, NULL, 0, METRIC_NONE },
	{ "memory:*.peak_allocated", UNIT_BYTES, DIR_LOWER, X | C, NULL, 0, METRIC_NONE },
	{ "memory:*.peak_reserved", UNIT_BYTES, DIR_LOWER, X | C, NULL, 0, METRIC_NONE },
	{ "memory:*.reserved_share", UNIT_RATIO, DIR_LOWER, 0, NULL, 0, METRIC_NONE },
};

#undef X
#undef C
#undef T
#undef B
#undef METRIC_GET
#undef METRIC_GET_SAMPLES
#undef METRIC_NONE

const size_t metric_nr = sizeof(metric_table) / sizeof(metric_table[0]);

/* 1 when the catalogue writes d's value (STORE_*), not a getter or a field table. */
static int catalogue_writes(const struct metric_def *d)
{
	return d->store == STORE_I64 || d->store == STORE_F64;
}

/* 1 when d lies in group's object, at any depth ("idle" for "idle.by_cause.x"). */
static int under(const struct metric_def *d, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(d->path, group, n) && d->path[n] == '.';
}

/* 1 when d is a scalar of group's object itself ("gpu" for "gpu.x", not "gpu.x.y"). */
static int in_group(const struct metric_def *d, const char *group)
{
	return under(d, group) && !strchr(d->path + strlen(group) + 1, '.');
}

const char *metric_next_group(const char *group, size_t *i)
{
	static __thread char name[64];
	size_t n = strlen(group);

	while (*i < metric_nr) {
		const struct metric_def *d = &metric_table[(*i)++];
		const char *rest = d->path + n + 1, *dot;
		size_t len;

		if (!catalogue_writes(d) || !under(d, group) || !(dot = strchr(rest, '.')))
			continue;
		len = (size_t)(dot - rest);
		if (len >= sizeof(name))
			continue;
		/* a child group is named once, at its first scalar in table order */
		for (size_t k = 0; k + 1 < *i; k++) {
			const char *p = metric_table[k].path;

			if (catalogue_writes(&metric_table[k]) && under(&metric_table[k], group) &&
			    !strncmp(p + n + 1, rest, len) && p[n + 1 + len] == '.')
				goto seen;
		}
		memcpy(name, rest, len);
		name[len] = '\0';
		return name;
seen:;
	}
	return NULL;
}

const struct metric_def *metric_next_stored(const char *group, size_t *i)
{
	while (*i < metric_nr) {
		const struct metric_def *d = &metric_table[(*i)++];

		if (catalogue_writes(d) && in_group(d, group))
			return d;
	}
	return NULL;
}

int metric_value(const struct metric_def *d, const struct report_rank *r, double *v)
{
	const char *p = (const char *)r + d->field;
	int64_t i;
	double x;

	if (d->get)
		return d->get(r, v);
	/* a stored value exists where the report writes its object */
	if (d->store == STORE_BY_HAND || !r->analysed ||
	    (in_group(d, steps_fields.name) && !r->has_phases) ||
	    (in_group(d, throughput_fields.name) && !r->has_throughput) ||
	    (under(d, REPORT_KEY_IDLE) && !r->idle.window))
		return 0;
	if (d->store == STORE_I64 || d->store == FIELD_I64) {
		memcpy(&i, p, sizeof(i));
		return i != INT64_MIN && have((double)i, v);
	}
	memcpy(&x, p, sizeof(x));
	return have(x, v);
}

/* 1 when name is pattern's prefix, anything, then pattern's suffix. */
static int family_match(const char *pattern, const char *star, const char *name)
{
	size_t pre = (size_t)(star - pattern), suf = strlen(star + 1), n = strlen(name);

	return n >= pre + suf && !strncmp(name, pattern, pre) && !strcmp(name + n - suf, star + 1);
}

const struct metric_def *metric_find(const char *name)
{
	const struct metric_def *fam = NULL;

	if (!name)
		return NULL;
	for (size_t i = 0; i < metric_nr; i++) {
		const char *star = strchr(metric_table[i].path, '*');

		if (!star && !strcmp(metric_table[i].path, name))
			return &metric_table[i];
		if (star && !fam && family_match(metric_table[i].path, star, name))
			fam = &metric_table[i];
	}
	return fam;
}

const char *metric_csv(const struct metric_def *d)
{
	const char *dot;

	if (!d->csv || *d->csv)
		return d->csv;
	dot = strrchr(d->path, '.');
	return dot ? dot + 1 : d->path;
}

enum metric_unit metric_unit_of(const char *name)
{
	const struct metric_def *d = metric_find(name);

	return d ? d->unit : UNIT_NUMBER;
}

/*
 * x with three significant digits and no exponent ("93.0", "1.23",
 * "0.0123", "1234"): the digits after the point follow the magnitude of x
 * as it will be rounded.
 */
static void sig3(char *out, size_t n, double x, const char *plus, const char *unit)
{
	double a = fabs(x);
	int dec;

	if (a == 0 || a >= 99.95)
		dec = 0;
	else if (a >= 9.995)
		dec = 1;
	else if (a >= 0.9995)
		dec = 2;
	else
		dec = 2 - (int)floor(log10(a * 1.0005));
	if (dec > 15)
		dec = 15;
	snprintf(out, n, "%s%.*f%s", plus, dec, x, unit);
}

const char *metric_fmt(char *out, size_t n, double v, enum metric_unit u, unsigned flags)
{
	static const char *const bytes[] = { " B", " KiB", " MiB", " GiB", " TiB", " PiB" };
	const char *plus = flags & FMT_SIGN && v > 0 ? "+" : "";
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(out, n, "%s", flags & FMT_ASCII ? "-" : "\xe2\x80\x93");
		return out;
	}
	switch (u) {
	case UNIT_NS:
		/* the unit of the value as rounded: 999.96 us is "1.00 ms" */
		if (a >= 999.5e6)
			sig3(out, n, v / 1e9, plus, " s");
		else if (a >= 999.5e3)
			sig3(out, n, v / 1e6, plus, " ms");
		else if (a >= 999.5)
			sig3(out, n, v / 1e3, plus, flags & FMT_ASCII ? " us" : " \xc2\xb5s");
		else
			snprintf(out, n, "%s%.0f ns", plus, v);
		break;
	case UNIT_BYTES: {
		size_t k = 0;
		double s = 1;

		while (k + 1 < sizeof(bytes) / sizeof(bytes[0]) && a >= 1024 * s) {
			s *= 1024;
			k++;
		}
		if (k == 0)
			snprintf(out, n, "%s%.0f B", plus, v);
		else
			sig3(out, n, v / s, plus, bytes[k]);
		break;
	}
	case UNIT_RATIO:
		sig3(out, n, 100 * v, plus, "%");
		break;
	case UNIT_PER_S:
		sig3(out, n, v, plus, "/s");
		break;
	case UNIT_FACTOR:
		sig3(out, n, v, plus, "x");
		break;
	case UNIT_COUNT:
	case UNIT_NUMBER:
		/* whole numbers as they are: 1845 events, a target of 16 fps */
		if (v == floor(v) && a < 1e15)
			snprintf(out, n, "%s%.0f", plus, v);
		else
			sig3(out, n, v, plus, "");
		break;
	}
	return out;
}

/* Scalars by the heads of vanalyze's tables, families by rule (metric.h). */
const char *metric_label_of(char *out, size_t n, const char *key)
{
	static const struct {
		const char *key, *label;
	} scalars[] = {
		{ MK_SPAN_NS, "span" },
		{ MK_STEPS_MEDIAN_NS, "step (median)" },
		{ MK_THROUGHPUT_FPS, "fps" },
		{ MK_THROUGHPUT_BPS, "bps" },
		{ MK_GPU_UTILIZATION, "util" },
		{ MK_GPU_STEP_UTILIZATION, "step.util" },
		{ MK_GPU_EFFECTIVE_UTILIZATION, "eff.util" },
		{ MK_GPU_COMM_WAIT_NS, "comm wait" },
		{ MK_GPU_MEMORY_NS, "memcpy/memset time" },
		{ "perf.mfu", "MFU" },
		{ "perf.tflops", "TFLOP/s" },
	};
	static const struct {
		const char *prefix, *word;
	} families[] = {
		{ "phase:", "phase " }, { "kernel:", "kernel " }, { "op:", "operator " },
		{ "memory:", "memory of device " }, { "tflops:", "TFLOP/s of " },
	};
	const char *dot, *field;
	size_t k;

	for (k = 0; k < sizeof(scalars) / sizeof(scalars[0]); k++)
		if (!strcmp(key, scalars[k].key)) {
			snprintf(out, n, "%s", scalars[k].label);
			return out;
		}
	for (k = 0; k < sizeof(families) / sizeof(families[0]); k++)
		if (!strncmp(key, families[k].prefix, strlen(families[k].prefix)))
			break;
	dot = strrchr(key, '.');
	if (k == sizeof(families) / sizeof(families[0])) {
		/*
		 * "throughput.first_block_ns": "first block", "steps.avg_ns": "step
		 * avg", "idle.busy_ns": "idle busy": the rank table's own groups (gpu,
		 * throughput, perf) go without their name
		 */
		const char *p = strchr(key, '.') ? strchr(key, '.') + 1 : key;
		size_t len = strlen(p), j = 0, g = (size_t)(p - key);

		if (len > 3 && !strcmp(p + len - 3, "_ns"))
			len -= 3;
		if (!strncmp(key, "steps.", 6))
			j = (size_t)snprintf(out, n, "step ");
		else if (g > 1 && strncmp(key, "gpu.", 4) && strncmp(key, "throughput.", 11) &&
			 strncmp(key, "perf.", 5))
			j = (size_t)snprintf(out, n, "%.*s ", (int)(g - 1), key);
		if (j >= n)
			j = n ? n - 1 : 0;
		for (size_t i = 0; i < len && j + 1 < n; i++)
			out[j++] = p[i] == '_' || p[i] == '.' ? ' ' : p[i];
		out[j < n ? j : n - 1] = '\0';
		return out;
	}
	/*
	 * FAMILY:ITEM.FIELD: the item between the prefix and the last dot; the
	 * field is the key of the item's row, as its table names it
	 */
	field = dot ? dot + 1 : "";
	if (!strcmp(field, field_key_at(&phase_fields, offsetof(struct report_phase, d.total_ns))))
		field = k == 0 ? ", total" : "";	/* a phase has a median too */
	else if (!strcmp(field,
			 field_key_at(&phase_fields, offsetof(struct report_phase, d.median_ns))))
		field = ", median";
	else if (!strcmp(field, "median"))
		field = ", median";
	else if (!strcmp(field, METRIC_MEMORY_KEY(peak_allocated)))
		field = ", peak allocated";
	else if (!strcmp(field, METRIC_MEMORY_KEY(peak_reserved)))
		field = ", peak reserved";
	else
		field = dot ? dot : "";
	{
		const char *item = key + strlen(families[k].prefix);
		int len = (int)(dot && dot > item ? dot - item : (ptrdiff_t)strlen(item));

		snprintf(out, n, "%s%.*s%s", families[k].word, len, item, field);
	}
	return out;
}
