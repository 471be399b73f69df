/*
 * report: the report model and its JSON form, the contract of doc/report.md.
 *
 * vanalyze fills a struct report from its analyses; vaggregate and vcompare
 * will read the same struct back.  Every string in it is owned by the
 * report's arena, so a report outlives the inputs it was made from, and
 * report_release() frees everything at once.
 *
 * Null, where report.json has null: INT64_MIN for an int64_t, NaN for a
 * double, NULL for a string (field.h), in the row tables of
 * report_fields.h, the catalogue's stored scalars and the run.
 */
#ifndef VT_REPORT_H
#define VT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"
#include "category.h"
#include "idle_causes.h"
#include "strtab.h"

#define REPORT_SCHEMA "vtrace.report/1"
#define VTRACE_VERSION "0.1.0"

/*
 * The report's own keys that no field table lists (the head of the file):
 * spelled once, here, for the writer (report.c) and the reader
 * (report_read.c).
 */
#define REPORT_KEY_SCHEMA	"schema"
#define REPORT_KEY_TOOL		"tool"		/* an object: */
#define REPORT_KEY_TOOL_NAME	"name"		/* the program that wrote it */
#define REPORT_KEY_TOOL_VERSION	"version"	/* and its VTRACE_VERSION */
#define REPORT_KEY_RANK_TABLES	"rank_tables"	/* false in a compact report */
/* ranks[]'s idle attribution, which the catalogue's "idle.*" figures fill */
#define REPORT_KEY_IDLE		"idle"
#define REPORT_KEY_IDLE_WINDOW	"window"	/* in it: "steps" or "trace" */

struct report_count {
	const char *key;
	int64_t n;
};

/*
 * Per-instance statistics of durations: median of an even count is the mean
 * of the two middle values; stddev is the population standard deviation.
 */
struct report_dist {
	int64_t count;
	int64_t total_ns, min_ns, max_ns;
	double avg_ns, median_ns, stddev_ns;
};

/*
 * Instance durations kept for significance tests (vcompare): sorted
 * ascending, every one when there are at most REPORT_SAMPLES_MAX, else
 * REPORT_SAMPLES_MAX order statistics at evenly spaced ranks, the minimum
 * and the maximum among them.
 */
#define REPORT_SAMPLES_MAX 64

struct report_samples {
	int64_t *v;
	size_t n;
};

struct report_kernel {
	const char *name;
	const char *category;		/* gemm, attention, comm, ... (static) */
	const char *category_source;	/* "op", "module" or "name" (static), NULL unknown */
	struct report_dist d;
	double share;			/* total / gpu.kernel_time_ns */
	struct report_samples samples;
	/*
	 * 0 for a kernel.  Else this is the "other" row of report_fold_rows():
	 * the sum of this many kernels beyond the cap, not a kernel of its
	 * name ("other": N in report.json).
	 */
	int64_t nr_folded;
};

struct report_phase {
	const char *name, *path;	/* path: names from the root joined by '/' */
	int depth;			/* 0 for a root */
	struct report_dist d;		/* d.total_ns: union of the spans */
	double share;			/* total / span_ns */
	int64_t gpu_ns;			/* kernels launched inside the spans; INT64_MIN: unknown */
	struct report_samples samples;
	/*
	 * Rows of depth 0 and 1 only (others: NULL, 0): the union of the spans
	 * as start/end pairs relative to the rank's first event, in time
	 * order, for the timeline.  Beyond REPORT_SPANS_MAX pairs, consecutive
	 * pairs are merged in equal groups.  nr_spans counts pairs.
	 */
	int64_t *spans_ns;
	size_t nr_spans;
	/*
	 * 0 for a phase.  Else this is the "other" row of report_fold_phases():
	 * the sum of this many phases beyond the cap (depth 0, last, no spans),
	 * not a phase of its name or path.
	 */
	int64_t nr_folded;
};

#define REPORT_SPANS_MAX 256
#define REPORT_SPANS_DEPTH 1

struct report_steps {
	const char *pattern;		/* "ProfilerStep#*" or the --step glob */
	struct report_dist d;		/* without a warm-up step */
	int warmup;			/* 1: durations_ns[0] was left out of d */
	/*
	 * 1: the last step was cut off by the end of the trace and left out of
	 * d and of the warm-up test (INT64_MIN: unknown, an older report)
	 */
	int64_t cut_off;
	int64_t *durations_ns;		/* every step, in time order */
	int64_t *starts_ns;		/* their starts on the rank's clock; not written */
	size_t nr_durations;
};

/* Order statistics of block times: lower median, nearest-rank p90, max. */
struct report_quantiles {
	int64_t median_ns, p90_ns, max_ns;
};

/*
 * One generation: one run of the pipeline on one input (one video).  blocks
 * is null (INT64_MIN) in a trace without block spans or counters; then bps,
 * first_block and cadence are null too.
 */
struct report_generation {
	int64_t start_ns;		/* since the rank's first event */
	int64_t wall_ns;
	int64_t frames;			/* INT64_MIN: unknown (null) */
	int64_t blocks;			/* completed blocks; INT64_MIN: null */
	double fps, bps;		/* NaN: null */
	int64_t first_block_ns;		/* first completion - start; INT64_MIN: null */
	int has_cadence;		/* 2+ completions: the object is there, else null */
	struct report_quantiles cadence;	/* between consecutive completions */
};

struct report_throughput {
	int64_t frames;			/* all generations; INT64_MIN: unknown (null) */
	int64_t blocks;			/* all generations; INT64_MIN: no blocks (null) */
	int64_t wall_ns;		/* first generation start to last end */
	double fps, bps;		/* NaN: null */
	int64_t first_block_ns;		/* lower median over the generations; INT64_MIN: null */
	/* the block_latency object is there (else null: no block spans) */
	int has_latency;
	/* per block, its first span's start to its completion */
	struct report_quantiles latency;
	int has_cadence;		/* the block_cadence object is there */
	struct report_quantiles cadence;	/* pooled within generations */
	double frames_per_block;	/* --frames-per-block or counters; NaN: unknown */
	double streaming_fps;		/* frames_per_block / median cadence; NaN: null */
	double target_fps;		/* 0: not asked for (and the next two not written) */
	double realtime_factor;		/* video seconds per wall second at target_fps */
	double streaming_realtime_factor;	/* streaming_fps / target_fps; NaN: null */
	struct report_generation *generations;	/* in time order */
	size_t nr_generations;
};

struct report_memory {
	int64_t device;			/* -1 is the CPU */
	int64_t peak_allocated, peak_reserved;
	int64_t capacity;		/* deviceProperties totalGlobalMem; INT64_MIN: unknown */
	/*
	 * The [memory] events of the device as triplets (time since the rank's
	 * first event, Total Allocated, Total Reserved), in time order; beyond
	 * REPORT_MEMLINE_MAX triplets, consecutive events are merged in equal
	 * groups into (time of the group's last event, max, max).  nr_timeline
	 * counts triplets.
	 */
	int64_t *timeline;
	size_t nr_timeline;
	/* peak_allocated is the running sum of Bytes (2021): a lower bound */
	int from_bytes;
};

#define REPORT_MEMLINE_MAX 256

struct report_cpu_op {
	const char *name;
	int64_t count, total_ns, self_ns;
	/* device work it launched (by correlation), and without its children's; INT64_MIN: null */
	int64_t device_ns, self_device_ns;
	int64_t nr_folded;		/* as report_kernel's */
};

/*
 * One operator and shape (record_shapes=True) whose calls launched device
 * work themselves (not through a child operator), with its performance
 * model (doc/perf-model.md).  Figures per call; NaN: null (an operator
 * the model does not know, or no device peak).
 */
struct report_op_perf {
	const char *name;
	const char *input_dims, *input_types, *concrete_inputs;	/* JSON text as in the trace */
	const char *family;		/* perf_model's; NULL: not modelled */
	const char *dtype;		/* "bf16", ...; NULL: unknown */
	int64_t count;			/* calls that launched device work */
	double flops, bytes;
	int64_t total_ns, median_ns, min_ns, max_ns;	/* device time of the calls */
	double mean_ns;
	double tflops_median, tbps_median, intensity;	/* intensity: FLOPs per byte */
	/* against the device's peak (lib/stats/perf_peak.h) */
	double peak_tflops;		/* of dtype */
	double peak_share;		/* tflops_median / peak_tflops */
	double roof_share;		/* tflops_median / the roofline at intensity */
	const char *bound;		/* "compute" or "memory" at the ridge (static); NULL */
	int64_t nr_folded;		/* as report_kernel's; median_ns INT64_MIN (null) */
	/*
	 * Its fastest call would pass the device's peak (opsperf.c): the
	 * model's FLOPs cannot be the work done, and are left out of the
	 * rank's FLOPs, MFU and roofline families.
	 */
	int implausible;
};

/* The model FLOPs inside a phase's spans (a phase with spans: depth <= REPORT_SPANS_DEPTH). */
struct report_perf_phase {
	const char *path;
	double flops;
	int64_t time_ns;		/* the union of its spans, or its kernel time if longer */
	double tflops;			/* flops over time_ns; NaN: no time */
	double mfu;			/* tflops over the peak, as the rank's mfu; NaN: null */
};

/*
 * A family's rows (GEMM, attention, convolution) against the roofline, kept
 * in a compact report, whose rows are left out: what the below-roof finding
 * reads.  time_ns 0: the family has no row with a roof share.
 */
struct report_perf_family {
	int64_t time_ns;		/* device time of its rows with a roof share */
	double roof_share;		/* their roof_share, weighted by time */
	const char *top;		/* the row with the most time: its name */
	double top_roof_share;		/* ... and its roof_share */
};

#define REPORT_PERF_FAMILIES 3	/* CAT_GEMM, CAT_ATTENTION, CAT_CONV (report_perf_family()) */

/* The category of perf.families[i] (CAT_NONE past them), and its word. */
enum category report_perf_family(size_t i);

const char *report_perf_family_name(size_t i);

/* The model FLOPs of a rank and its utilisation of the device (MFU). */
#define REPORT_MFU_MIN_COVERAGE 0.5

struct report_perf {
	int has_shapes;			/* some operator had record_shapes's args */
	const char *peak_model;		/* device_peak's model, "manual"; NULL: no peak */
	double peak_tbps;		/* NaN: unknown */
	const char *dtype;		/* the dtype of most FLOPs: its peak is MFU's */
	double peak_tflops;		/* of dtype; NaN: unknown */
	double flops;			/* the modelled operators' FLOPs in the window */
	/*
	 * The share of the device's compute time (gpu.compute_ns) that calls
	 * with known FLOPs launched, at most 1; NaN: no device compute.
	 * Below REPORT_MFU_MIN_COVERAGE the MFU figures are withheld (NaN):
	 * they would count the FLOPs of a sliver of the work over all of it.
	 */
	double flops_coverage;
	int64_t window_ns;		/* the steps' wall time, else the device's active span */
	double tflops, mfu;		/* NaN: null */
	double *step_flops;		/* per step of steps.durations_ns; NULL: no steps */
	double *step_mfu;		/* nr_steps, kept: a compact report has no durations */
	size_t nr_steps;
	struct report_perf_phase *phases;	/* with spans, in phase order, the first 64 */
	size_t nr_phases;
	double *generation_flops;	/* per throughput.generations; NULL: none */
	double *generation_mfu;		/* nr_generations, kept likewise */
	size_t nr_generations;
	struct report_perf_family families[REPORT_PERF_FAMILIES];
};

/* Whether the MFU figures stand: coverage unknown (an older report) or enough. */
static inline int report_perf_mfu_known(const struct report_perf *p)
{
	return !(p->flops_coverage < REPORT_MFU_MIN_COVERAGE);
}

/* ranks[].gpu (report_fields.c's gpu_fields, and the catalogue's stored scalars last) */
struct report_gpu {
	/* these and compute_ns, memory_ns: INT64_MIN (null) where no_device */
	int64_t kernels, kernel_time_ns, busy_ns, active_span_ns, idle_ns;
	double utilization;		/* busy / active_span; NaN without GPU events */
	int64_t comm_ns, compute_ns, memory_ns;	/* comm_ns: null where no_device and not cpu_comm */
	double comm_compute_overlap;	/* |comm ∩ compute| / |comm|; NaN without comm */
	int cpu_comm;			/* comm_ns comes from host spans of collectives */
	int util_from_samples;		/* utilization is the mean of collector samples */
	/*
	 * The wait inside collectives: from the collectives' own device tasks
	 * where the trace has them (HCCL: wait_from_tasks), else from
	 * collectives matched across ranks (lib/stats/collectives.h); has_wait
	 * is 0 (the three are null: INT64_MIN, NaN) until one of the two gave
	 * them.
	 */
	int has_wait;
	int wait_from_tasks;		/* 1: the device's tasks, 0: matched ranks */
	int64_t comm_wait_ns;		/* inside collectives, not moving data */
	int64_t comm_transfer_ns;	/* moving data: comm_ns - comm_wait_ns, at least 0 */
	/*
	 * Within comm_wait_ns: waiting for a late peer, and idle inside the
	 * operators (neither moving data nor waiting for a peer); from
	 * matched ranks all of the wait is the former.  Null with the wait.
	 */
	int64_t comm_sync_ns, comm_idle_ns;
	double effective_utilization;	/* busy time less that wait, over active_span */
	int no_device;			/* no device activity recognised: the device figures null */
	int64_t host_sync_ns, host_sync_count;	/* runtime calls that block the host */
	int64_t kernel_median_ns;	/* over every kernel (not per name); INT64_MIN: null */
	int64_t graph_launches;		/* cudaGraphLaunch/hipGraphLaunch calls */
	int64_t graph_kernels;		/* kernels those launched (same correlation) */
	double step_utilization;	/* busy / wall time of the steady steps; NaN: null */
};

/*
 * What a rank loses waiting for its peers inside collectives: the wait
 * less the idle time inside the operators where the wait is split (idle
 * is no peer's doing; the Notify Waits after the first transfer are
 * waiting for a peer too: torch_npu's Wait), else the whole wait;
 * INT64_MIN without a wait.
 */
static inline int64_t report_peer_wait_ns(const struct report_gpu *g)
{
	if (g->comm_wait_ns == INT64_MIN || g->comm_idle_ns == INT64_MIN)
		return g->comm_wait_ns;
	return g->comm_wait_ns - g->comm_idle_ns;
}

/*
 * Why the device waits (doc/idle.md): the rank's gaps in device work, each
 * attributed to a cause, inside the analysed window and outside it.  Every
 * int64_t here is INT64_MIN (null) when the rank has no idle object.
 */
struct report_idle_part {
	int64_t window_ns, busy_ns, idle_ns;
	int64_t gaps;			/* gaps (or their parts) in this part */
	int64_t by_cause[IDLE_NR_CAUSES];	/* sums to idle_ns */
};

#define IDLE_HIST_BUCKETS 6		/* gaps up to 10 us, 100 us, 1 ms, 10 ms, 100 ms, longer */
#define IDLE_TOP_MAX 10

struct report_idle_gap {
	int64_t start_ns;		/* since the rank's first event */
	int64_t dur_ns;
	enum idle_cause cause;
	int in_window;			/* some of it lies in the window */
	int64_t step;			/* the step holding its start; INT64_MIN: null */
	const char *host;		/* what the host was doing; NULL: unknown */
};

/* A bucket of the histogram of gap lengths. */
struct report_idle_bucket {
	int64_t max_ns;			/* idle_hist_max_ns(); INT64_MIN (null) for the last */
	int64_t gaps, idle_ns;
};

struct report_idle {
	const char *window;		/* "steps" or "trace" (static); NULL: no idle object */
	struct report_idle_part in, outside;
	int64_t gaps_by_time;		/* gaps whose launch was found by time, not correlation */
	struct report_idle_bucket hist[IDLE_HIST_BUCKETS];
	struct report_idle_gap *top;	/* longest first */
	size_t nr_top;
};

/* The upper bound of histogram bucket i, in ns; INT64_MAX for the last. */
int64_t idle_hist_max_ns(size_t i);

/* No idle object: window NULL, every figure null (INT64_MIN), the histogram's bounds set. */
void report_idle_null(struct report_idle *id);

/* Which recogniser of analyzer/device.c found the device work (static strings, NULL none). */
struct report_device {
	const char *vendor;		/* "nvidia", "amd", "ascend", "mtia", "intel" */
	const char *source;		/* "kineto", "kineto-2021", "torch_npu", ... */
};

/*
 * One collective of one rank as the cross-rank matching needs it: every
 * instance of (group, name) on this rank in time order.  Ends count from
 * the rank's start_ns, on its own clock, and serve only the clock offset;
 * durations and order do the matching.
 */
struct report_comm_series {
	const char *group;		/* "Process Group Name"; NULL without */
	const char *name;		/* "Collective name", else the name cut at '(' or '<' */
	int64_t group_size;		/* "Group size"; INT64_MIN: unknown */
	size_t n;
	int64_t *dur_ns, *end_ns;	/* n each */
	int64_t *bytes;			/* n sizes (nccl-tests' S), -1 unknown; NULL: none known */
	int64_t *transfer_ns;		/* n times moving data (the device's tasks); NULL unknown */
	int64_t *sync_ns, *idle_ns;	/* n of report_gpu's two parts of the wait; NULL unknown */
	/*
	 * The "other" row of report_fold_comm(): how many series it stands
	 * for (their instances are left out: n 0); 0 for a series.
	 */
	int64_t nr_folded;
};

/* One item of a run's metadata (trace_read.h's struct trace_tag). */
struct report_tag {
	const char *key, *value;
};

/*
 * A world size no real job has (more ranks than this): the trace's or the
 * report's is warned about and taken as unknown, or "9223372036854775806
 * of 9223372036854775807 ranks missing" would be believed.
 */
#define REPORT_WORLD_SIZE_MAX ((int64_t)1 << 20)

struct report_rank {
	int64_t rank;
	const char *source;		/* file base name */
	const char *path;		/* as given */
	int64_t bytes;			/* file size */
	int64_t bytes_text;		/* decompressed text */
	const char *format;		/* "kineto", "array", "vtr" */
	int64_t world_size;		/* distributedInfo.world_size; INT64_MIN: unknown (null) */
	/*
	 * When the trace began on the wall clock, in ns since the Unix epoch:
	 * baseTimeNanoseconds plus the first event's ts, or the first ts
	 * where the trace writes epoch microseconds (Kineto before the base
	 * time); INT64_MIN unknown (the legacy writer and the collector count
	 * from their own start).  Tells runs apart in vaggregate.
	 */
	int64_t start_unix_ns;
	/* What was profiled, as the trace says (NULL / INT64_MIN: it does not) */
	const char *device_name;	/* deviceProperties' first device */
	int64_t device_count;		/* devices deviceProperties lists */
	const char *backend;		/* distributedInfo.backend */
	struct report_tag *tags;	/* add_metadata()'s keys, the collector's tags, in order */
	size_t nr_tags;
	const char *report_path;	/* vaggregate: the report it was read from (borrowed) */
	int complete;
	const char **warnings;
	size_t nr_warnings;
	int64_t events_total;
	struct report_count *by_ph, *by_cat;	/* sorted by key */
	size_t nr_by_ph, nr_by_cat;
	int64_t span_ns;

	int analysed;			/* gpu, kernels, memory, cpu_ops are filled */
	int has_phases;			/* phases and steps are filled */
	int has_throughput;		/* throughput is filled */
	struct report_device device;
	struct report_gpu gpu;
	struct report_idle idle;
	struct report_kernel *kernels;	/* by total_ns, descending */
	size_t nr_kernels;
	struct report_phase *phases;	/* depth-first, children by start time */
	size_t nr_phases;
	struct report_steps steps;
	struct report_throughput throughput;
	struct report_memory *memory;
	size_t nr_memory;
	struct report_cpu_op *cpu_ops;	/* by total_ns, descending */
	size_t nr_cpu_ops;
	struct report_op_perf *ops_perf;	/* by total_ns, descending */
	size_t nr_ops_perf;
	struct report_perf perf;
	int64_t start_ns;		/* first event, on the rank's own clock */
	struct report_comm_series *comm;	/* sorted by group (NULL first), then name */
	size_t nr_comm;
	int has_clock;			/* clock_offset_* are known (not INT64_MIN, null) */
	int64_t clock_offset_ns;	/* this clock minus the reference rank's */
	int64_t clock_offset_spread_ns;	/* max - min of the per-instance estimates */
};

/* Statistics of one scalar over the ranks that have it. */
struct report_stat {
	const char *metric;		/* "span_ns", a gpu.* key, "phase:PATH.total_ns" */
	int64_t count;			/* ranks with a value */
	double min, max, avg, median, stddev;
	int64_t min_rank, max_rank;	/* the first rank holding min / max */
	int64_t nr_folded;		/* the phases' "other" row: the paths it sums; else 0 */
};

/* The collective a straggler delays most, and the others' wait there. */
struct report_delays {
	const char *group;		/* may be NULL */
	const char *name;
	int64_t wait_ns;
};

/* report_fields.c's straggler_fields */
struct report_straggler {
	int64_t rank;
	const char *metric;
	double value, median, excess;	/* excess: value / median - 1 (negative: below) */
	/* by_wait: found by the collectives rule, with what it imposes (null without) */
	int by_wait;
	int64_t wait_imposed_ns;	/* the others' wait at instances it reached last */
	double last_share;		/* of its matched instances, reached last */
	struct report_delays delays;
};

/*
 * One collective (group, name) of the run, over the instances matched on
 * every rank that took part.  An instance's transfer time is its shortest
 * duration over the ranks; bandwidths follow nccl-tests (algbw = bytes /
 * transfer, busbw = algbw times the collective's factor), in bytes per ns
 * (GB/s), NaN where message sizes are unknown.
 */
struct report_collective {
	const char *group, *name;	/* group NULL without "Process Group Name" */
	int64_t ranks;			/* ranks that took part */
	int64_t instances, unmatched;	/* matched on all of them; left over on some */
	int64_t wait_ns, transfer_ns;
	int64_t last_rank, last_count;	/* the rank that arrived last most often */
	int64_t bytes;			/* INT64_MIN: unknown */
	double algbw, busbw;
};

enum report_severity { SEV_LOW, SEV_MEDIUM, SEV_HIGH, SEV_NR };

extern const char *const report_severity_name[SEV_NR];	/* "low", "medium", "high" */

/*
 * A finding: one per rule and run, over the ranks where the rule fired.
 * The evidence (metric, value, threshold) is the worst rank's: the one
 * with the most time at stake.
 */
struct report_suggestion {
	const char *id;			/* "low-gpu-utilization" */
	enum report_severity severity;
	int64_t rank;			/* the one rank it concerns; INT64_MIN: several (null) */
	int64_t *ranks;			/* where it fired, ascending (NULL with none) */
	size_t nr_ranks;
	const char *ranks_text;		/* "ranks 0–6", "all 8 ranks", "rank 2"; NULL: none */
	int64_t worst_rank;		/* the evidence's rank; INT64_MIN: none (null) */
	const char *metric;
	double value, threshold;
	int64_t impact_ns;		/* time at stake on the worst rank; INT64_MIN: unknown */
	double impact_share;		/* of that rank's span (its wall time); NaN: null */
	const char *impact_basis;	/* how impact_ns was estimated; NULL with it */
	const char *message;		/* the short message, one sentence */
	const char *details;		/* what to do, and the rest of the evidence; may be NULL */
};

/* What was profiled, over the ranks (run_info.h); NULL / 0: unknown. */
struct report_run_device {
	const char *name;
	int64_t count;			/* ranks with device work: a device each; none: null */
};

struct report_run {
	int computed;			/* run_info_compute() ran: "run" is written */
	const char *name;		/* the tag "name", else the inputs' common file-name stem */
	struct report_run_device device;
	int64_t world_size;		/* distributedInfo's */
	const char *backend;
	int64_t start_unix_ns;		/* the earliest rank's */
	const char *date;		/* start_unix_ns as report_date() writes it */
	struct report_tag *tags;	/* every rank's keys, first seen first; the first value */
	size_t nr_tags;
	const char **differs;		/* keys on which ranks disagree */
	size_t nr_differs;
};

struct report {
	const char *tool;		/* "vanalyze" */
	struct report_run run;
	struct report_rank *ranks;	/* sorted by rank, then input order */
	size_t nr_ranks;
	size_t ranks_alloc;		/* room in ranks, for report_add_rank() */
	struct report_stat *cross_rank;	/* only with 2+ ranks */
	size_t nr_cross_rank;
	struct report_straggler *stragglers;
	size_t nr_stragglers;
	const char *straggler_rule;	/* "collectives", "steps", "span"; NULL: none applied */
	int64_t *incomplete_ranks;	/* never named as stragglers */
	size_t nr_incomplete_ranks;
	struct report_collective *collectives;
	size_t nr_collectives;
	struct report_suggestion *suggestions;	/* by impact_ns, descending */
	size_t nr_suggestions;
	/*
	 * A compact report (vaggregate without --full): each rank keeps its
	 * scalars (gpu, steps and throughput figures, memory peaks, clock),
	 * not its tables (kernels, phases, cpu_ops, step durations,
	 * generations, collective instances, samples, spans, timelines).
	 * Written as "rank_tables": false; the run-level parts are whole.
	 */
	int compact;
	/* --full: every phase path has its cross-rank row (crossrank.h) */
	int full;
	/*
	 * Optional, borrowed: report_read() interns the strings it reads here
	 * instead of copying each into arena, so thousands of ranks of one run
	 * hold one copy of each kernel, operator and phase name (vaggregate;
	 * the table's arena must then live as long as the report).
	 */
	struct strtab *strings;
	const char *workload;		/* workload.h's kind; NULL until suggest_compute() */
	const char *workload_reason;	/* the evidence for it */
	struct arena arena;
};

/*
 * Rows kept per rank in its kernel, operator and operator shape tables:
 * report.json must stay proportional to what a reader can use, not to the
 * distinct names a trace holds (2.5 million kernel names made an 850 MB
 * report, 200,000 shapes 141 MB).  The shared traces have at most 194
 * kernels, 176 operators and 447 shapes a rank.
 */
#define REPORT_ROWS_MAX 500

/*
 * Beyond max rows (tables sorted by total time, descending), keep the
 * first max and replace the rest with one "other" row that sums them
 * (count, total, min, max, pooled deviation; no median, no samples),
 * marked by nr_folded.  vanalyze --full does not call it.
 */
void report_fold_rows(struct report_rank *rk, size_t max);

/*
 * Beyond max collective series, keep the max with the most instances (ties
 * in table order, so that ranks of one run keep the same ones) in their
 * order, and replace the rest with one row "(other collectives)" marked by
 * nr_folded, without instances: the cross-rank matching leaves it out.
 * vanalyze --full does not call it.  -1 when out of memory.
 */
int report_fold_comm(struct report_rank *rk, size_t max);

/*
 * Beyond max phases, keep those with the most total time (ties in table
 * order) until max are kept, each with its ancestors, so that the kept rows
 * stay a tree, in their order; the rest become one last row
 * "(other phases)" of depth 0 marked by nr_folded (count, total, min, max,
 * pooled deviation, share and kernel time summed; no median, samples or
 * spans).  Run after every analysis that needs each phase (steps,
 * generations, model FLOPs, the cross-rank rows); vanalyze --full does not
 * call it.  -1 when out of memory (the table is then left whole).
 */
int report_fold_phases(struct report_rank *rk, size_t max);

/* The distribution of n durations; sorts v in place.  Zeroes for n == 0. */
void report_dist_of(struct report_dist *d, int64_t *v, size_t n);

/*
 * Pool a group of nb instances (mean mb, population stddev sb) into one of
 * na (mean ma) whose sum of squared deviations from its mean is m2; gives
 * the pooled group's m2, its variance being m2 / (na + nb).  This is Chan,
 * Golub and LeVeque's pairwise update: it adds only nonnegative terms,
 * where sum(x^2) / n - mean^2 subtracts two near-equal numbers and loses
 * the digits of a small spread around a large mean.
 */
double report_pool_m2(double m2, double na, double ma, double nb, double mb, double sb);

/*
 * The samples of n durations sorted ascending (as report_dist_of leaves
 * them), copied into a.  Returns 0, or -1 when out of memory (s is empty).
 */
int report_samples_of(struct report_samples *s, struct arena *a, const int64_t *sorted, size_t n);

void report_init(struct report *r, const char *tool);
void report_release(struct report *r);

/*
 * Room for one more rank at the end of r->ranks (zeroed), growing the array
 * by doubling in r->arena; NULL when out of memory.
 */
struct report_rank *report_add_rank(struct report *r);

/*
 * Append src's ranks to dst and move src's arena into dst's, so the ranks'
 * strings stay valid; src is left empty (as after report_init).  For
 * merging reports read on several threads.  Returns 0, or -1 when out of
 * memory (both are then unchanged).
 */
int report_adopt(struct report *dst, struct report *src);

/* ns since the epoch as "2025-07-01T22:47:16Z" (UTC); "-" when not after the epoch. */
void report_date(int64_t ns, char out[32]);

/* Append the report as JSON (pretty-printed) to out. */
void report_to_json(const struct report *r, struct buf *out);

#endif
