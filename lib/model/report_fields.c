/*
 * report_fields: see report_fields.h.  Each table is in the order
 * report.json writes the object's keys; .csv numbers the columns of the
 * object's CSV table (report/csvout.c), after the rank in a table of the
 * ranks' rows.
 */
#include "report_fields.h"

#include <string.h>

/* The members of a struct report_dist, from CSV column col. */
#define DIST(F, m, col) \
	{ F("count", FT_I64, m.count, FF_NONNULL), .csv = (col) }, \
	{ F("total_ns", FT_I64, m.total_ns, FF_NONNULL), .csv = (col) + 1 }, \
	{ F("avg_ns", FT_F64, m.avg_ns, 0), .csv = (col) + 2 }, \
	{ F("median_ns", FT_F64, m.median_ns, 0), .csv = (col) + 3 }, \
	{ F("min_ns", FT_I64, m.min_ns, FF_NONNULL), .csv = (col) + 4 }, \
	{ F("max_ns", FT_I64, m.max_ns, FF_NONNULL), .csv = (col) + 5 }, \
	{ F("stddev_ns", FT_F64, m.stddev_ns, 0), .csv = (col) + 6 }

#define K(k, t, m, fl) FIELD(k, t, struct report_kernel, m, fl)
static const struct field kernel_f[] = {
	{ K("name", FT_STR, name, FF_NONNULL), .csv = 1 },
	/* the "other" row of report_fold_rows(): how many rows it sums */
	{ K("other", FT_I64, nr_folded, FF_OMIT) },
	{ K("category", FT_STR, category, FF_NONNULL), .csv = 2 },
	{ K("category_source", FT_STR, category_source, FF_OMIT), .csv = 3 },	/* older: absent */
	DIST(K, d, 4),
	{ K("share", FT_F64, share, 0), .csv = 11 },
	/* samples_ns came with vtrace 0.1.1; older reports have none */
	{ K("samples_ns", FT_I64S, samples.v, FF_LEAN),
	  .aux = offsetof(struct report_kernel, samples.n), .per = 1 },
};
#undef K

const struct field_table kernel_fields = FIELD_TABLE("kernels", kernel_f, struct report_kernel);

/* A row of depth 0 or 1 keeps its spans, for the timeline. */
static int phase_has_spans(const void *row)
{
	return ((const struct report_phase *)row)->depth <= REPORT_SPANS_DEPTH;
}

#define P(k, t, m, fl) FIELD(k, t, struct report_phase, m, fl)
static const struct field phase_f[] = {
	{ P("name", FT_STR, name, FF_NONNULL), .csv = 2 },
	{ P("path", FT_STR, path, FF_NONNULL), .csv = 1 },
	{ P("depth", FT_INT, depth, FF_NONNULL), .csv = 3 },
	/* the "other" row of report_fold_phases(): how many phases it sums */
	{ P("other", FT_I64, nr_folded, FF_OMIT) },
	DIST(P, d, 4),
	{ P("share", FT_F64, share, 0), .csv = 11 },
	{ P("gpu_ns", FT_I64, gpu_ns, 0), .csv = 12 },
	{ P("samples_ns", FT_I64S, samples.v, FF_LEAN),
	  .aux = offsetof(struct report_phase, samples.n), .per = 1 },
	{ P("spans_ns", FT_I64S, spans_ns, FF_LEAN),
	  .aux = offsetof(struct report_phase, nr_spans), .per = 2, .when = phase_has_spans },
};
#undef P

const struct field_table phase_fields = FIELD_TABLE("phases", phase_f, struct report_phase);

#define M(k, t, m, fl) FIELD(k, t, struct report_memory, m, fl)
static const struct field memory_f[] = {
	{ M("device", FT_I64, device, FF_NONNULL) },
	{ M("peak_allocated", FT_I64, peak_allocated, FF_NONNULL) },
	{ M("peak_reserved", FT_I64, peak_reserved, 0) },
	{ M("capacity", FT_I64, capacity, 0) },
	{ M("allocated_lower_bound", FT_BOOL, from_bytes, FF_OMIT) },
	/* (time, allocated, reserved) triplets */
	{ M("timeline", FT_I64S, timeline, FF_TABLE | FF_LEAN),
	  .aux = offsetof(struct report_memory, nr_timeline), .per = 3 },
};
#undef M

const struct field_table memory_fields = FIELD_TABLE("memory", memory_f, struct report_memory);

#define C(k, t, m, fl) FIELD(k, t, struct report_cpu_op, m, fl)
static const struct field cpu_op_f[] = {
	{ C("name", FT_STR, name, FF_NONNULL), .csv = 1 },
	{ C("other", FT_I64, nr_folded, FF_OMIT) },
	{ C("count", FT_I64, count, FF_NONNULL), .csv = 2 },
	{ C("total_ns", FT_I64, total_ns, FF_NONNULL), .csv = 3 },
	{ C("self_ns", FT_I64, self_ns, FF_NONNULL), .csv = 4 },
	{ C("device_ns", FT_I64, device_ns, 0), .csv = 5 },
	{ C("self_device_ns", FT_I64, self_device_ns, 0), .csv = 6 },
};
#undef C

const struct field_table cpu_op_fields = FIELD_TABLE("cpu_ops", cpu_op_f, struct report_cpu_op);

#define O(k, t, m, fl) FIELD(k, t, struct report_op_perf, m, fl)
static const struct field op_perf_f[] = {
	{ O("name", FT_STR, name, FF_NONNULL), .csv = 1 },
	{ O("other", FT_I64, nr_folded, FF_OMIT) },
	{ O("input_dims", FT_STR, input_dims, FF_NONNULL), .csv = 2 },
	{ O("input_types", FT_STR, input_types, FF_NONNULL), .csv = 3 },
	{ O("concrete_inputs", FT_STR, concrete_inputs, FF_NONNULL), .csv = 4 },
	{ O("family", FT_STR, family, 0), .csv = 5 },
	{ O("dtype", FT_STR, dtype, 0), .csv = 6 },
	{ O("count", FT_I64, count, FF_NONNULL), .csv = 7 },
	{ O("flops", FT_F64, flops, 0), .csv = 8 },
	{ O("bytes", FT_F64, bytes, 0), .csv = 9 },
	{ O("total_ns", FT_I64, total_ns, FF_NONNULL), .csv = 10 },
	{ O("avg_ns", FT_F64, mean_ns, 0), .csv = 11 },
	{ O("median_ns", FT_I64, median_ns, 0), .csv = 12 },	/* null: the other row */
	{ O("min_ns", FT_I64, min_ns, FF_NONNULL), .csv = 13 },
	{ O("max_ns", FT_I64, max_ns, FF_NONNULL), .csv = 14 },
	{ O("tflops_median", FT_F64, tflops_median, 0), .csv = 15 },
	{ O("tbps_median", FT_F64, tbps_median, 0), .csv = 16 },
	{ O("intensity", FT_F64, intensity, 0), .csv = 17 },
	{ O("peak_tflops", FT_F64, peak_tflops, 0), .csv = 18 },
	{ O("peak_share", FT_F64, peak_share, 0), .csv = 19 },
	{ O("roof_share", FT_F64, roof_share, 0), .csv = 20 },
	{ O("bound", FT_STR, bound, 0), .csv = 21 },
	{ O("implausible", FT_BOOL, implausible, FF_OMIT) },
};
#undef O

/* left out of a lean read: perf.families holds what the findings read */
const struct field_table op_perf_fields =
	FIELD_TABLE_LEAN("ops_perf", op_perf_f, struct report_op_perf);

/* A collective's instances, for matching across reports (vaggregate): n of each array. */
#define S(k, t, m, fl) FIELD(k, t, struct report_comm_series, m, fl)
static const struct field comm_f[] = {
	{ S("group", FT_STR, group, 0) },
	{ S("collective", FT_STR, name, FF_NONNULL) },
	{ S("other", FT_I64, nr_folded, FF_OMIT) },
	{ S("group_size", FT_I64, group_size, 0) },
	{ S("durations_ns", FT_I64S, dur_ns, FF_NONNULL),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
	{ S("ends_ns", FT_I64S, end_ns, FF_NONNULL | FF_SAME_N),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
	/* sizes (nccl-tests' S) and times moving data, where known */
	{ S("bytes", FT_I64S, bytes, FF_OMIT | FF_SAME_N),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
	{ S("transfer_ns", FT_I64S, transfer_ns, FF_OMIT | FF_SAME_N),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
	/* where HCCL's tasks split the operators: gpu.comm_sync_ns and comm_idle_ns's parts */
	{ S("sync_ns", FT_I64S, sync_ns, FF_OMIT | FF_SAME_N),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
	{ S("idle_ns", FT_I64S, idle_ns, FF_OMIT | FF_SAME_N),
	  .aux = offsetof(struct report_comm_series, n), .per = 1 },
};
#undef S

const struct field_table comm_fields = FIELD_TABLE("comm_instances", comm_f,
						   struct report_comm_series);

/* idle.top: the longest gaps, longest first */
_Static_assert(sizeof(enum idle_cause) == sizeof(int), "FT_ENUM reads an int");
#define G(k, t, m, fl) FIELD(k, t, struct report_idle_gap, m, fl)
static const struct field idle_gap_f[] = {
	{ G("start_ns", FT_I64, start_ns, FF_NONNULL), .csv = 1 },
	{ G("dur_ns", FT_I64, dur_ns, FF_NONNULL), .csv = 2 },
	{ G("cause", FT_ENUM, cause, FF_NONNULL), .names = idle_cause_key, .per = IDLE_NR_CAUSES,
	  .csv = 3 },
	{ G("window", FT_BOOL, in_window, FF_NONNULL), .csv = 4, .csv_key = "in_window" },
	{ G("step", FT_I64, step, 0), .csv = 5 },
	{ G("host", FT_STR, host, 0), .csv = 6 },
};
#undef G

const struct field_table idle_gap_fields = FIELD_TABLE("top", idle_gap_f, struct report_idle_gap);

/* idle.histogram: IDLE_HIST_BUCKETS of them, by gap length */
#define B(k, m, fl) FIELD(k, FT_I64, struct report_idle_bucket, m, fl)
static const struct field idle_bucket_f[] = {
	{ B("max_ns", max_ns, 0) },
	{ B("gaps", gaps, FF_NONNULL) },
	{ B("idle_ns", idle_ns, FF_NONNULL) },
};
#undef B

const struct field_table idle_bucket_fields = FIELD_TABLE("histogram", idle_bucket_f,
							  struct report_idle_bucket);

/* The run's collectives (lib/stats/collectives.h), over the ranks. */
#define L(k, t, m, fl) FIELD(k, t, struct report_collective, m, fl)
static const struct field collective_f[] = {
	{ L("group", FT_STR, group, 0), .csv = 1 },
	{ L("collective", FT_STR, name, FF_NONNULL), .csv = 2 },
	{ L("ranks", FT_I64, ranks, FF_NONNULL), .csv = 3 },
	{ L("instances", FT_I64, instances, FF_NONNULL), .csv = 4 },
	{ L("unmatched", FT_I64, unmatched, FF_NONNULL), .csv = 5 },
	{ L("wait_ns", FT_I64, wait_ns, FF_NONNULL), .csv = 6 },
	{ L("transfer_ns", FT_I64, transfer_ns, FF_NONNULL), .csv = 7 },
	{ L("last_rank", FT_I64, last_rank, FF_NONNULL), .csv = 8 },
	{ L("last_count", FT_I64, last_count, FF_NONNULL), .csv = 9 },
	{ L("bytes", FT_I64, bytes, 0), .csv = 10 },
	{ L("algbw_gbps", FT_F64, algbw, 0), .csv = 11 },
	{ L("busbw_gbps", FT_F64, busbw, 0), .csv = 12 },
};
#undef L

const struct field_table collective_fields = FIELD_TABLE("collectives", collective_f,
							 struct report_collective);

/* A straggler's wait figures: where the collectives rule found it (by_wait) */
static int sg_by_wait(const void *row)
{
	return ((const struct report_straggler *)row)->by_wait;
}

#define D(k, t, m, fl) FIELD(k, t, struct report_delays, m, fl)
static const struct field delays_f[] = {
	{ D("group", FT_STR, group, 0) },
	{ D("collective", FT_STR, name, FF_NONNULL) },
	{ D("wait_ns", FT_I64, wait_ns, FF_NONNULL) },
};
#undef D

static const struct field_table delays_fields = FIELD_TABLE("delays_most", delays_f,
							    struct report_delays);

#define S(k, t, m, fl) FIELD(k, t, struct report_straggler, m, fl)
static const struct field straggler_f[] = {
	{ S("rank", FT_I64, rank, FF_NONNULL) },
	{ S("metric", FT_STR, metric, FF_NONNULL) },
	{ S("value", FT_F64, value, 0) },
	{ S("median", FT_F64, median, 0) },
	{ S("excess", FT_F64, excess, 0) },
	{ S("wait_imposed_ns", FT_I64, wait_imposed_ns, 0), .when = sg_by_wait },
	{ S("last_share", FT_F64, last_share, 0), .when = sg_by_wait },
	{ S("delays_most", FT_OBJ, delays, 0), .aux = offsetof(struct report_straggler, by_wait),
	  .sub = &delays_fields, .when = sg_by_wait },
};
#undef S

const struct field_table straggler_fields = FIELD_TABLE("stragglers", straggler_f,
							struct report_straggler);

const char *const report_severity_name[SEV_NR] = { "low", "medium", "high" };

/* report.suggestions: the findings, most important first */
_Static_assert(sizeof(enum report_severity) == sizeof(int), "FT_ENUM reads an int");
#define F(k, t, m, fl) FIELD(k, t, struct report_suggestion, m, fl)
static const struct field suggestion_f[] = {
	{ F("id", FT_STR, id, FF_NONNULL), .csv = 1 },
	{ F("severity", FT_ENUM, severity, FF_NONNULL), .names = report_severity_name,
	  .per = SEV_NR, .csv = 2 },
	{ F("rank", FT_I64, rank, 0), .csv = 3 },
	{ F("ranks", FT_I64S, ranks, FF_LINES), .aux = offsetof(struct report_suggestion, nr_ranks),
	  .per = 1 },
	/* the findings' keys; older reports lack them */
	{ F("ranks_text", FT_STR, ranks_text, 0), .csv = 4 },
	{ F("worst_rank", FT_I64, worst_rank, 0), .csv = 5 },
	{ F("metric", FT_STR, metric, FF_NONNULL), .csv = 6 },
	{ F("value", FT_F64, value, 0), .csv = 7 },
	{ F("threshold", FT_F64, threshold, 0), .csv = 8 },
	{ F("impact_ns", FT_I64, impact_ns, 0), .csv = 9 },
	{ F("impact_share", FT_F64, impact_share, 0), .csv = 10 },
	{ F("impact_basis", FT_STR, impact_basis, 0), .csv = 11 },
	{ F("message", FT_STR, message, FF_NONNULL), .csv = 12 },
	{ F("details", FT_STR, details, 0), .csv = 13 },
};
#undef F

const struct field_table suggestion_fields = FIELD_TABLE("suggestions", suggestion_f,
							 struct report_suggestion);

/* ranks[]: the rank's first keys, before its events (report.c writes them, then span_ns) */
#define K(k, t, m, fl) FIELD(k, t, struct report_rank, m, fl)
static const struct field events_f[] = {
	{ K("total", FT_I64, events_total, FF_NONNULL) },
	{ K("by_ph", FT_COUNTS, by_ph, FF_NONNULL), .aux = offsetof(struct report_rank, nr_by_ph) },
	{ K("by_cat", FT_COUNTS, by_cat, FF_NONNULL),
	  .aux = offsetof(struct report_rank, nr_by_cat) },
};

/* the rank's events: keys of an object of their own, members of the rank */
static const struct field_table events_fields =
	FIELD_TABLE("events", events_f, struct report_rank);

static const struct field rank_f[] = {
	{ K("rank", FT_I64, rank, FF_NONNULL) },
	{ K("source", FT_STR, source, FF_NONNULL) },
	{ K("complete", FT_BOOL, complete, FF_NONNULL) },
	{ K("warnings", FT_STRS, warnings, FF_NONNULL),
	  .aux = offsetof(struct report_rank, nr_warnings) },
	{ .key = "events", .type = FT_GROUP, .flags = FF_NONNULL, .sub = &events_fields },
	{ K("span_ns", FT_I64, span_ns, FF_NONNULL) },
};
#undef K

const struct field_table rank_fields = FIELD_TABLE("ranks", rank_f, struct report_rank);

/*
 * inputs[]: what each rank was read from, and its tags (report.c writes
 * complete after these).  Reports from before a key lack it.
 */
#define I(k, t, m, fl) FIELD(k, t, struct report_rank, m, fl)
static const struct field input_f[] = {
	{ I("path", FT_STR, path, FF_NONNULL) },
	{ I("rank", FT_I64, rank, FF_NONNULL) },
	{ I("bytes", FT_I64, bytes, FF_NONNULL) },
	{ I("bytes_text", FT_I64, bytes_text, FF_ZERO) },
	{ I("format", FT_STR, format, 0), .dflt = "kineto" },	/* before other formats */
	{ I("world_size", FT_I64, world_size, 0) },
	{ I("start_unix_ns", FT_I64, start_unix_ns, 0) },
	{ I("device_name", FT_STR, device_name, 0) },
	{ I("devices_listed", FT_I64, device_count, 0) },
	{ I("backend", FT_STR, backend, 0) },
	{ I("tags", FT_TAGS, tags, 0), .aux = offsetof(struct report_rank, nr_tags) },
};
#undef I

const struct field_table input_fields = FIELD_TABLE("inputs", input_f, struct report_rank);

/*
 * The rank's clock, after its collective instances (or in a compact
 * report, its memory): the offset is null until collectives matched
 * across ranks gave it (has_clock).
 */
#define R(k, m, fl) FIELD(k, FT_I64, struct report_rank, m, fl)
static const struct field clock_f[] = {
	{ R("start_ns", start_ns, FF_ZERO) },	/* absent from reports before it: 0 */
	{ R("clock_offset_ns", clock_offset_ns, 0) },
	{ R("clock_offset_spread_ns", clock_offset_spread_ns, 0) },
};
#undef R

const struct field_table clock_fields = FIELD_TABLE("clock", clock_f, struct report_rank);

/* Order statistics of block times (struct report_quantiles): an object or null. */
#define Q(k, m) FIELD(k, FT_I64, struct report_quantiles, m, FF_NONNULL)
static const struct field quantile_f[] = {
	{ Q("median_ns", median_ns) },
	{ Q("p90_ns", p90_ns) },
	{ Q("max_ns", max_ns) },
};
#undef Q

static const struct field_table quantile_fields = FIELD_TABLE("quantiles", quantile_f,
							      struct report_quantiles);

/* throughput.generations: one run of the pipeline on one input each */
#define E(k, t, m, fl) FIELD(k, t, struct report_generation, m, fl)
static const struct field generation_f[] = {
	{ E("start_ns", FT_I64, start_ns, FF_NONNULL) },
	{ E("wall_ns", FT_I64, wall_ns, FF_NONNULL) },
	{ E("frames", FT_I64, frames, 0) },
	{ E("blocks", FT_I64, blocks, 0) },
	{ E("fps", FT_F64, fps, 0) },
	{ E("bps", FT_F64, bps, 0) },
	{ E("first_block_ns", FT_I64, first_block_ns, 0) },
	{ E("block_cadence", FT_OBJ, cadence, 0),
	  .aux = offsetof(struct report_generation, has_cadence), .sub = &quantile_fields },
};
#undef E

const struct field_table generation_fields =
	FIELD_TABLE_LEAN("generations", generation_f, struct report_generation);

/* --target-fps: its figures are written only where it was asked for */
static int tp_has_target(const void *row)
{
	return ((const struct report_throughput *)row)->target_fps > 0;
}

/*
 * ranks[].throughput, less its generations (generation_fields, after these)
 * and the catalogue's stored scalars (metric.c, last).
 */
#define U(k, t, m, fl) FIELD(k, t, struct report_throughput, m, fl)
static const struct field throughput_f[] = {
	{ U("frames", FT_I64, frames, 0) },
	{ U("blocks", FT_I64, blocks, 0) },
	{ U("wall_ns", FT_I64, wall_ns, FF_NONNULL) },
	{ U("fps", FT_F64, fps, 0) },
	{ U("bps", FT_F64, bps, 0) },
	{ U("first_block_ns", FT_I64, first_block_ns, 0) },
	{ U("block_latency", FT_OBJ, latency, 0),
	  .aux = offsetof(struct report_throughput, has_latency), .sub = &quantile_fields },
	{ U("block_cadence", FT_OBJ, cadence, 0),
	  .aux = offsetof(struct report_throughput, has_cadence), .sub = &quantile_fields },
	{ U("frames_per_block", FT_F64, frames_per_block, 0) },
	{ U("streaming_fps", FT_F64, streaming_fps, 0) },
	{ U("target_fps", FT_F64, target_fps, FF_OMIT), .when = tp_has_target },
	{ U("realtime_factor", FT_F64, realtime_factor, 0), .when = tp_has_target },
	{ U("streaming_realtime_factor", FT_F64, streaming_realtime_factor, 0),
	  .when = tp_has_target },
};
#undef U

const struct field_table throughput_fields = FIELD_TABLE("throughput", throughput_f,
							 struct report_throughput);

/*
 * ranks[].steps, less the catalogue's stored scalars that follow (metric.c):
 * the steps' distribution without its total (the durations' sum, which the
 * reader adds up again), and the durations but in a compact report.
 */
#define T(k, t, m, fl) FIELD(k, t, struct report_steps, m, fl)
static const struct field steps_f[] = {
	{ T("pattern", FT_STR, pattern, FF_NONNULL) },
	{ T("count", FT_I64, d.count, FF_NONNULL) },
	{ T("avg_ns", FT_F64, d.avg_ns, 0) },
	{ T("median_ns", FT_F64, d.median_ns, 0) },
	{ T("min_ns", FT_I64, d.min_ns, 0) },
	{ T("max_ns", FT_I64, d.max_ns, 0) },
	{ T("stddev_ns", FT_F64, d.stddev_ns, 0) },
	{ T("warmup", FT_BOOL, warmup, FF_NONNULL) },
	{ T("durations_ns", FT_I64S, durations_ns, FF_NONNULL | FF_TABLE),
	  .aux = offsetof(struct report_steps, nr_durations), .per = 1 },
};
#undef T

const struct field_table steps_fields = FIELD_TABLE("steps", steps_f, struct report_steps);

/* ranks[].device: which recogniser found the device work; absent before it */
#define D(k, m) FIELD(k, FT_STR, struct report_device, m, 0)
static const struct field device_f[] = {
	{ D("vendor", vendor) },
	{ D("source", source) },
};
#undef D

const struct field_table device_fields = FIELD_TABLE("device", device_f, struct report_device);

/* The wait's source is known where the wait is (has_wait): null with it. */
static int gpu_wait_known(const void *row)
{
	return ((const struct report_gpu *)row)->comm_wait_ns != INT64_MIN;
}

static const char *const comm_source_names[] = { "gpu", "cpu" };		/* cpu_comm */
static const char *const util_source_names[] = { "trace", "samples" };	/* util_from_samples */
static const char *const wait_source_names[] = { "matched_ranks", "device_tasks" };

/*
 * ranks[].gpu, less the catalogue's stored scalars that follow (metric.c).
 * The device figures are null where no device activity was recognised
 * (no_device), but for communication on CPU threads and utilization from
 * the collector's samples; the wait's three where no wait was measured
 * (has_wait).  The reader sets those two flags from these nulls.
 */
#define W(k, t, m, fl) FIELD(k, t, struct report_gpu, m, fl)
static const struct field gpu_f[] = {
	{ W("kernels", FT_I64, kernels, 0) },
	{ W("kernel_time_ns", FT_I64, kernel_time_ns, 0) },
	{ W("busy_ns", FT_I64, busy_ns, 0) },
	{ W("active_span_ns", FT_I64, active_span_ns, 0) },
	{ W("idle_ns", FT_I64, idle_ns, 0) },
	{ W("utilization", FT_F64, utilization, 0) },
	{ W("comm_ns", FT_I64, comm_ns, 0) },
	{ W("compute_ns", FT_I64, compute_ns, 0) },
	{ W("memory_ns", FT_I64, memory_ns, 0) },
	{ W("comm_compute_overlap", FT_F64, comm_compute_overlap, 0) },
	{ W("comm_source", FT_ENUM, cpu_comm, 0), .names = comm_source_names, .per = 2 },
	{ W("utilization_source", FT_ENUM, util_from_samples, 0), .names = util_source_names,
	  .per = 2 },
	/* absent from reports written before host syncs were counted: 0 there */
	{ W("host_sync_ns", FT_I64, host_sync_ns, FF_ZERO) },
	{ W("host_sync_count", FT_I64, host_sync_count, FF_ZERO) },
	{ W("comm_wait_ns", FT_I64, comm_wait_ns, 0) },
	{ W("comm_transfer_ns", FT_I64, comm_transfer_ns, 0) },
	/* absent from reports written before the split: null there */
	{ W("comm_sync_ns", FT_I64, comm_sync_ns, 0) },
	{ W("comm_idle_ns", FT_I64, comm_idle_ns, 0) },
	{ W("effective_utilization", FT_F64, effective_utilization, 0) },
	{ W("comm_wait_source", FT_ENUM, wait_from_tasks, 0), .names = wait_source_names,
	  .per = 2, .known = gpu_wait_known },
};
#undef W

const struct field_table gpu_fields = FIELD_TABLE("gpu", gpu_f, struct report_gpu);

/* perf.phases: the model FLOPs of each phase with spans */
#define H(k, t, m, fl) FIELD(k, t, struct report_perf_phase, m, fl)
static const struct field perf_phase_f[] = {
	{ H("path", FT_STR, path, FF_NONNULL) },
	{ H("flops", FT_F64, flops, FF_NONNULL) },
	{ H("time_ns", FT_I64, time_ns, FF_NONNULL) },
	{ H("tflops", FT_F64, tflops, 0) },
	{ H("mfu", FT_F64, mfu, 0) },
};
#undef H

static const struct field_table perf_phase_fields =
	FIELD_TABLE("phases", perf_phase_f, struct report_perf_phase);

/*
 * perf.families: an object per family with rows against the roofline,
 * named by the family; a family without them (time_ns 0) is left out,
 * and reads back as time_ns 0.  Each family's fields lie at its own place
 * in struct report_perf, so each family has its table.
 */
/* perf.families: each a category (category.h) named by its family word */
#define PERF_FAMILIES(X) X(0, gemm, CAT_GEMM) X(1, attention, CAT_ATTENTION) X(2, conv, CAT_CONV)

#define Y(i, k, t, m, fl) FIELD(k, t, struct report_perf, families[i].m, fl)
#define FAMILY_F(i, name, cat) { \
	{ Y(i, "time_ns", FT_I64, time_ns, FF_NONNULL | FF_ZERO) }, \
	{ Y(i, "roof_share", FT_F64, roof_share, FF_NONNULL) }, \
	{ Y(i, "top", FT_STR, top, 0) }, \
	{ Y(i, "top_roof_share", FT_F64, top_roof_share, FF_NONNULL) }, \
},
static const struct field perf_family_f[][4] = { PERF_FAMILIES(FAMILY_F) };
#undef FAMILY_F
#undef Y

#define FAMILY_TABLE(i, name, cat) FIELD_TABLE(#name, perf_family_f[i], struct report_perf),
static const struct field_table perf_family_fields[] = { PERF_FAMILIES(FAMILY_TABLE) };
#undef FAMILY_TABLE

_Static_assert(sizeof(perf_family_fields) / sizeof(perf_family_fields[0]) ==
		       REPORT_PERF_FAMILIES, "a table for each of report.h's families");

#define FAMILY_TIMED(i, name, cat) \
	static int name##_timed(const void *row) \
	{ \
		return ((const struct report_perf *)row)->families[i].time_ns != 0; \
	}
PERF_FAMILIES(FAMILY_TIMED)
#undef FAMILY_TIMED

#define FAMILY(i, name, cat) \
	{ .key = #name, .type = FT_GROUP, .sub = &perf_family_fields[i], .when = name##_timed },
static const struct field perf_families_f[] = { PERF_FAMILIES(FAMILY) };
#undef FAMILY

static const struct field_table perf_families_fields =
	FIELD_TABLE("families", perf_families_f, struct report_perf);

const char *report_perf_family_name(size_t i)
{
	return i < REPORT_PERF_FAMILIES ? perf_families_f[i].key : NULL;
}

enum category report_perf_family(size_t i)
{
#define FAMILY_CAT(i, name, cat) cat,
	static const enum category cats[] = { PERF_FAMILIES(FAMILY_CAT) };
#undef FAMILY_CAT

	return i < REPORT_PERF_FAMILIES ? cats[i] : CAT_NONE;
}

/*
 * ranks[].perf: NaN where unknown.  The MFU arrays are there (NULL: empty)
 * as long as the FLOPs before them.
 */
#define F(k, t, m, fl) FIELD(k, t, struct report_perf, m, fl)
static const struct field perf_f[] = {
	{ F("has_shapes", FT_BOOL, has_shapes, FF_NONNULL) },
	{ F("peak_model", FT_STR, peak_model, 0) },
	{ F("peak_tbps", FT_F64, peak_tbps, 0) },
	{ F("dtype", FT_STR, dtype, 0) },
	{ F("peak_tflops", FT_F64, peak_tflops, 0) },
	{ F("flops", FT_F64, flops, 0) },
	{ F("flops_coverage", FT_F64, flops_coverage, 0) },
	{ F("window_ns", FT_I64, window_ns, FF_NONNULL) },
	{ F("tflops", FT_F64, tflops, 0) },
	{ F("mfu", FT_F64, mfu, 0) },
	{ F("step_flops", FT_F64S, step_flops, FF_NONNULL),
	  .aux = offsetof(struct report_perf, nr_steps), .per = 1 },
	/* per step of steps.durations_ns, as for the window: FLOPs / wall time / peak */
	{ F("step_mfu", FT_F64S, step_mfu, FF_NONNULL | FF_SAME_N),
	  .aux = offsetof(struct report_perf, nr_steps), .per = 1 },
	{ F("phases", FT_ROWS, phases, 0), .aux = offsetof(struct report_perf, nr_phases),
	  .sub = &perf_phase_fields },
	/* per throughput.generations: FLOPs over its wall time */
	{ F("generation_flops", FT_F64S, generation_flops, 0),
	  .aux = offsetof(struct report_perf, nr_generations), .per = 1 },
	{ F("generation_mfu", FT_F64S, generation_mfu, FF_NONNULL | FF_SAME_N),
	  .aux = offsetof(struct report_perf, nr_generations), .per = 1 },
	{ .key = "families", .type = FT_GROUP, .sub = &perf_families_fields },
};
#undef F

const struct field_table perf_fields = FIELD_TABLE("perf", perf_f, struct report_perf);

/* cross_rank: an object of these, each named by its metric */
#define X(k, t, m, fl, col) { FIELD(k, t, struct report_stat, m, fl), .csv = (col) }
static const struct field stat_f[] = {
	X("metric", FT_STR, metric, FF_KEY | FF_NONNULL, 1),
	X("count", FT_I64, count, FF_NONNULL, 2),
	X("min", FT_F64, min, 0, 3),
	X("max", FT_F64, max, 0, 4),
	X("avg", FT_F64, avg, 0, 5),
	X("median", FT_F64, median, 0, 6),
	X("stddev", FT_F64, stddev, 0, 7),
	X("min_rank", FT_I64, min_rank, FF_NONNULL, 8),
	X("max_rank", FT_I64, max_rank, FF_NONNULL, 9),
	X("other", FT_I64, nr_folded, FF_OMIT, 0),
};
#undef X

const struct field_table stat_fields = FIELD_TABLE("cross_rank", stat_f, struct report_stat);

#define D(k, t, m, fl) FIELD(k, t, struct report_run_device, m, fl)
static const struct field run_device_f[] = {
	{ D("name", FT_STR, name, 0) },
	{ D("count", FT_I64, count, 0) },
};
#undef D

static const struct field_table run_device_fields =
	FIELD_TABLE("device", run_device_f, struct report_run_device);

/* The run (run_info.h): reports before it lack the object, not its keys. */
#define R(k, t, m, fl) FIELD(k, t, struct report_run, m, fl)
static const struct field run_f[] = {
	{ R("name", FT_STR, name, 0) },
	/* there wherever the run is */
	{ R("device", FT_OBJ, device, FF_NONNULL), .sub = &run_device_fields,
	  .aux = offsetof(struct report_run, computed) },
	{ R("world_size", FT_I64, world_size, 0) },
	{ R("backend", FT_STR, backend, 0) },
	{ R("start_unix_ns", FT_I64, start_unix_ns, 0) },
	{ R("date", FT_STR, date, 0) },
	{ R("tags", FT_TAGS, tags, 0), .aux = offsetof(struct report_run, nr_tags) },
	{ R("differs", FT_STRS, differs, 0), .aux = offsetof(struct report_run, nr_differs) },
};
#undef R

const struct field_table run_fields = FIELD_TABLE("run", run_f, struct report_run);

/* How stragglers were told (after stragglers[]): keys of the report */
#define S(k, t, m, fl) FIELD(k, t, struct report, m, fl)
static const struct field straggler_rule_f[] = {
	{ S("straggler_rule", FT_STR, straggler_rule, 0) },
	{ S("incomplete_ranks", FT_I64S, incomplete_ranks, 0),
	  .aux = offsetof(struct report, nr_incomplete_ranks), .per = 1 },
};
#undef S

const struct field_table straggler_rule_fields =
	FIELD_TABLE("straggler_rule", straggler_rule_f, struct report);

/* workload.h's verdict, written where suggest_compute() made one: keys of the report */
#define W(k, t, m, fl) FIELD(k, t, struct report, m, fl)
static const struct field workload_f[] = {
	{ W("kind", FT_STR, workload, 0) },
	{ W("reason", FT_STR, workload_reason, 0) },
};
#undef W

const struct field_table workload_fields = FIELD_TABLE("workload", workload_f, struct report);

/* Add the keys of t's FF_LEAN fields (its subtables' too) to skip[*n..max), once each. */
static void lean_keys_of(const struct field_table *t, const char **skip, size_t *n, size_t max)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		const char *key = f->key;
		size_t k = 0;

		if (f->sub)
			lean_keys_of(f->sub, skip, n, max);
		if (!(f->flags & FF_LEAN) && !(f->sub && f->sub->flags & FF_LEAN))
			continue;
		if (!(f->flags & FF_LEAN))
			key = f->sub->name;
		while (k < *n && strcmp(skip[k], key))
			k++;
		if (k == *n && *n < max)
			skip[(*n)++] = key;
	}
}

size_t report_lean_keys(const char **skip, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; report_field_tables[i] && n < max; i++) {
		const struct field_table *t = report_field_tables[i];
		size_t k = 0;

		lean_keys_of(t, skip, &n, max);
		while (t->flags & FF_LEAN && k < n && strcmp(skip[k], t->name))
			k++;
		if (t->flags & FF_LEAN && k == n && n < max)
			skip[n++] = t->name;
	}
	if (n < max)
		skip[n] = NULL;
	return n;
}

const struct field_table *const report_field_tables[] = {
	&kernel_fields, &phase_fields, &memory_fields, &cpu_op_fields, &op_perf_fields,
	&comm_fields, &idle_gap_fields, &collective_fields, &generation_fields, &steps_fields,
	&device_fields, &throughput_fields, &perf_fields, &stat_fields, &gpu_fields,
	&idle_bucket_fields, &straggler_fields, &suggestion_fields, &clock_fields,
	&input_fields, &rank_fields, &run_fields, &workload_fields, &straggler_rule_fields, NULL,
};
