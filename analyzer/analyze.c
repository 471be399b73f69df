/*
 * analyze: see analyze.h.
 *
 * Each batch is counted by its local string ids first, then the few
 * distinct ph and cat values of the batch are folded into the per-file
 * tallies, so the per-event work is two array increments and a min/max.
 * The collectors then run one after the other over the batch (the reader
 * calls on_batch() serially, in file order); gpu classifies each event
 * once (a byte per event for the analyses after it) and marks the batch's
 * launches and device work for phases and cpuops in another, and launch.h
 * keeps each marked event once for both.
 */
#include "analyze.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "grow.h"
#include "kcat.h"
#include "launch.h"
#include "metric.h"
#include "rank.h"
#include "sat.h"
#include "tsafe.h"

static void tally_release(struct tally *t)
{
	free(t->n);
	t->n = NULL;
	t->alloc = 0;
}

/* Add n to the count of string id of the batch nm is at.  -1 when out of memory. */
static int tally_add(struct tally *t, struct names *nm, uint32_t id, int64_t n)
{
	uint32_t k = names_id(nm, id);

	if (k == STRTAB_OOM || ALLOC_GROW_ZERO(t->n, (size_t)k + 1, t->alloc))
		return -1;
	t->n[k] += n;
	return 0;
}

void file_result_init(struct file_result *res, const char *path, const struct phase_opts *opts)
{
	memset(res, 0, sizeof(*res));
	res->path = path;
	err_clear(&res->err);
	res->file_bytes = -1;
	arena_init(&res->arena);
	names_init(&res->names);
	name_memo_init(&res->kernel_cats, kcat_answer);
	gpu_init(&res->gpu, &res->names, &res->kernel_cats);
	cpuops_init(&res->cpuops, &res->names);
	comm_init(&res->comm, &res->names, &res->kernel_cats);
	phases_init(&res->phases, opts, &res->names);
	strtab_init(&res->tracks, 1);
	calls_init(&res->calls, &res->names);
	launches_init(&res->launches, &res->names);
	memory_init(&res->mem);
	idle_init(&res->idle, &res->names, &res->calls);
	kctx_init(&res->kctx, &res->names, &res->kernel_cats);
}

void file_result_release(struct file_result *res)
{
	tally_release(&res->by_ph);
	tally_release(&res->by_cat);
	gpu_release(&res->gpu);
	cpuops_release(&res->cpuops);
	comm_release(&res->comm);
	phases_release(&res->phases);
	strtab_release(&res->tracks);
	calls_release(&res->calls);
	launches_release(&res->launches);
	memory_release(&res->mem);
	kctx_release(&res->kctx);
	idle_release(&res->idle);
	name_memo_release(&res->kernel_cats);
	names_release(&res->names);
	arena_release(&res->arena);
}

/*
 * What each analysis keeps, for bench/cost.sh: with VT_BENCH_COST in the
 * environment, the live heap (mallinfo2(), every arena and mmap) each
 * collector added, summed over the batches, so the bytes of its records at
 * the end of the read (temporaries it freed net out), said on stderr after
 * the read.  The read must be one file at -j 1: the sums are shared and
 * another thread's allocations would be counted.
 */
enum { COST_GPU, COST_CPUOPS, COST_REPLAY, COST_PHASES, COST_CALLS, COST_LAUNCHES, COST_MEMORY,
       COST_COMM, COST_IDLE, COST_KCTX, NR_COST };
static const char *const cost_names[NR_COST] = { "gpu", "cpuops", "replay", "phases", "calls",
						 "launches", "memory", "comm", "idle", "kctx" };
static int64_t cost_bytes[NR_COST];

static int64_t heap_now(void)
{
	struct mallinfo2 m = mallinfo2();

	return (int64_t)(m.uordblks + m.hblkhd);
}

/* Add to analysis k what the heap grew since *at, and move *at on. */
static void cost_add(int k, int64_t *at)
{
	int64_t now = heap_now();

	cost_bytes[k] += now - *at;
	*at = now;
}

/* The collectors, one after the other over batch b.  -1 when out of memory. */
static int collect(struct file_result *res, const struct event_batch *b, unsigned char *tag,
		   unsigned char *cls, unsigned char *sub)
{
	int cost = res->cost;
	int64_t at = cost ? heap_now() : 0;

#define STEP(k, call)                     \
	do {                              \
		if (call)                 \
			return -1;        \
		if (cost)                 \
			cost_add(k, &at); \
	} while (0)
	STEP(COST_GPU, gpu_collect(&res->gpu, b, tag, cls, sub));
	STEP(COST_CPUOPS, cpuops_collect(&res->cpuops, b, res->has_cat, cls, &res->tracks));
	STEP(COST_REPLAY, cpuops_collect_replay(&res->cpuops, b, cls, sub, tag));
	STEP(COST_PHASES, phases_collect(&res->phases, b, res->has_cat, &res->tracks, cls));
	STEP(COST_CALLS, calls_collect(&res->calls, b, tag, cls, sub, &res->tracks));
	STEP(COST_LAUNCHES, launches_collect(&res->launches, b, tag));
	STEP(COST_MEMORY, memory_collect(&res->mem, b));
	STEP(COST_COMM, comm_collect(&res->comm, b, cls, sub));
	STEP(COST_IDLE, idle_collect(&res->idle, b, cls, sub, &res->tracks));
	STEP(COST_KCTX, kctx_collect(&res->kctx, b, cls, &res->tracks));
#undef STEP
	return 0;
}

/* bench/cost.sh's line: the events, then each analysis's bytes kept. */
static void cost_say(const struct file_result *res)
{
	fprintf(stderr, "%s: cost: events %lld", log_progname(), (long long)res->info.nr_events);
	for (int k = 0; k < NR_COST; k++)
		fprintf(stderr, " %s %lld", cost_names[k], (long long)cost_bytes[k]);
	fprintf(stderr, "\n");
}

static int on_batch(void *ctx, const struct event_batch *b)
{
	struct file_result *res = ctx;
	uint32_t nstr = strtab_count(&b->strs) + 1;
	int64_t *ph = calloc(nstr, sizeof(*ph)), *cat = calloc(nstr, sizeof(*cat));
	unsigned char *tag = calloc(b->n ? b->n : 1, 1);	/* launch.h's, per event */
	unsigned char *cls = calloc(b->n ? b->n : 1, 1);	/* classify.h's ev_class, */
	unsigned char *sub = calloc(b->n ? b->n : 1, 1);	/* and ev_sub, per event */
	int64_t min_ts = res->min_ts, max_end = res->max_end;
	int has_span = res->has_span;
	int rc = -1;

	if (!ph || !cat || !tag || !cls || !sub || names_batch(&res->names, b))
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];

		ph[ev->ph]++;
		cat[ev->cat]++;
		if ((ev->flags & EV_TS) && ev->phase != 'M') {
			int64_t end = ev->ts_ns + ev->dur_ns;

			if (!has_span || ev->ts_ns < min_ts)
				min_ts = ev->ts_ns;
			if (!has_span || end > max_end)
				max_end = end;
			has_span = 1;
		}
	}
	res->min_ts = min_ts;
	res->max_end = max_end;
	res->has_span = has_span;
	res->has_cat |= cat[0] < (int64_t)b->n;	/* cat[0]: the events without one */
	for (uint32_t id = 1; id < nstr; id++) {
		if (ph[id] && tally_add(&res->by_ph, &res->names, id, ph[id]))
			goto out;
		if (cat[id] && tally_add(&res->by_cat, &res->names, id, cat[id]))
			goto out;
	}
	if (collect(res, b, tag, cls, sub))
		goto out;
	rc = 0;
out:
	if (rc)
		res->oom = 1;
	free(ph);
	free(cat);
	free(tag);
	free(cls);
	free(sub);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A progress line for big inputs, rewritten in place at most 4 times a second. */
static void on_progress(void *ctx, int64_t done, int64_t size)
{
	static __thread double last;
	struct file_result *res = ctx;
	double t = now_s();
	char shown[256];	/* a progress line: a long path may be cut */

	if (size <= 0 || t - last < 0.25)
		return;
	last = t;
	tsafe_copy(shown, sizeof(shown), res->path);
	fprintf(stderr, "\r%s: reading %s: %3d%% (%lld of %lld MB)\033[K", log_progname(),
		shown, (int)(100.0 * (double)done / (double)size), (long long)(done / 1000000),
		(long long)(size / 1000000));
}

/* Over 100 MB of text: gzip traces shrink 10 to 30 times, so 10 MB of .gz. */
static int big_input(const char *path, int64_t size)
{
	size_t n = strlen(path);
	int gz = n > 3 && !strcmp(path + n - 3, ".gz");

	return size > (gz ? 10 : 100) * 1000 * 1000;
}


static int count_cmp(const void *a, const void *b)
{
	const struct report_count *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static struct report_count *tally_to_counts(const struct tally *t, const struct names *nm,
					    struct arena *a, size_t *nr)
{
	/* the ids that may have a count: below both names' count and the counts' room */
	uint32_t n = names_count(nm) < t->alloc ? names_count(nm) + 1 : (uint32_t)t->alloc;
	size_t k = 0, keys = 0;
	struct report_count *c;

	for (uint32_t id = 1; id < n; id++)
		keys += t->n[id] != 0;	/* the rows stay in the report: no room for other names */
	if (!(c = arena_alloc(a, (keys ? keys : 1) * sizeof(*c)))) {
		*nr = 0;
		return NULL;
	}
	for (uint32_t id = 1; id < n; id++) {
		if (!t->n[id])
			continue;
		c[k].key = arena_strndup(a, names_str(nm, id), names_len(nm, id));
		if (!c[k].key) {
			*nr = 0;
			return NULL;
		}
		c[k].n = t->n[id];
		k++;
	}
	if (k > 1)
		qsort(c, k, sizeof(*c), count_cmp);
	*nr = k;
	return c;
}

/* Whether a cat may be quoted in a message as is: short printable ASCII. */
static int plain_key(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (n >= 40 || s[n] < 0x20 || s[n] > 0x7e)
			return 0;
	return 1;
}

/*
 * A trace with events but no device activity that device.c recognises:
 * say so, naming the most frequent cats found, rather than show zeros.
 */
static void warn_no_device(struct file_result *res, const struct report_rank *rk)
{
	const struct report_count *top[3] = { NULL, NULL, NULL };
	char found[160] = "";
	size_t len = 0;
	struct err e;

	for (size_t i = 0; i < rk->nr_by_cat; i++) {
		const struct report_count *c = &rk->by_cat[i];

		for (size_t k = 0; k < 3; k++) {
			if (!top[k] || c->n > top[k]->n) {
				memmove(&top[k + 1], &top[k], (2 - k) * sizeof(*top));
				top[k] = c;
				break;
			}
		}
	}
	for (size_t k = 0; k < 3 && top[k]; k++) {
		int w = snprintf(found + len, sizeof(found) - len, "%s%s %lld", k ? ", " : "",
				 plain_key(top[k]->key) ? top[k]->key : "(unprintable)",
				 (long long)top[k]->n);

		if (w < 0 || (size_t)w >= sizeof(found) - len)
			break;
		len += (size_t)w;
	}
	err_set(&e, -1, ANALYZE_NO_DEVICE " in %lld events (cat: %s); figures are host-side only",
		(long long)rk->events_total, len ? found : "none");
	trace_info_warn(&res->info, &e);
}

/*
 * Collective operators whose own device tasks the trace lacks (HCCL's
 * hcom_* without their Notify Wait and SDMA tasks): say that waiting is
 * then told from transfer only by matching ranks.
 */
static void warn_no_comm_tasks(struct file_result *res, const struct report_rank *rk)
{
	struct err e;

	if (rk->gpu.wait_from_tasks)
		return;
	for (size_t i = 0; i < rk->nr_comm; i++)
		if (device_collective_op(rk->comm[i].name, strlen(rk->comm[i].name))) {
			err_set(&e, -1, "the trace has %s collectives but not their device tasks "
				"(Notify Wait, SDMA): waiting is told from transfer only by "
				"matching ranks analysed together", "HCCL");
			trace_info_warn(&res->info, &e);
			return;
		}
}

/* Epoch microseconds before 2001-09-09 read as ns: no wall clock, a count from the start. */
#define EPOCH_MIN_NS 1000000000000000000LL

/*
 * The trace's start on the wall clock (report.h, start_unix_ns): Kineto
 * writes ts relative to baseTimeNanoseconds where it writes that key, and
 * epoch microseconds before it did; the legacy writer and the collector
 * count from their own start, which no epoch time of this century is.
 */
/* Shapes whose model FLOPs would pass the device's peak (opsperf.c): said once. */
static void warn_implausible(struct file_result *res, const struct report_rank *rk)
{
	size_t n = 0;
	struct err e;

	for (size_t i = 0; i < rk->nr_ops_perf; i++)
		n += rk->ops_perf[i].implausible != 0;
	if (!n)
		return;
	err_set(&e, -1, "%zu operator %s would do more FLOP/s than the device's peak: "
		"%s left out of the MFU (\"implausible\" in ops_perf)", n,
		n == 1 ? "shape" : "shapes", n == 1 ? "its FLOPs are" : "their FLOPs are");
	trace_info_warn(&res->info, &e);
}

static int64_t start_unix(const struct file_result *res)
{
	int64_t t;

	if (!res->has_span)
		return INT64_MIN;
	t = res->info.has_base_time ? sat_add(res->info.base_time_ns, res->min_ts) : res->min_ts;
	return t >= EPOCH_MIN_NS ? t : INT64_MIN;
}

/* The FLOPs by step and phase, once gpu, phases and cpuops are done. */
static int finish_perf(struct file_result *res, const struct placement *pl, struct arena *a)
{
	struct report_rank *rk = &res->rank;

	/* kernels, but none that names its launch (torch_npu): unknown, not 0 */
	if (rk->gpu.kernels > 0 && !(pl->any_device & 1u << LAUNCH_PHASES))
		phases_device_unknown(rk);
	return cpuops_perf_steps(&res->cpuops, a, rk);
}

/*
 * The analyses of what the read collected, as tasks, each into its own
 * arena, writing disjoint fields of rk, each started once what it reads is
 * made (the depend clauses name the rc variables of the tasks waited for):
 *
 *   memory_finish()    rk->memory; reads only memory's own samples, and
 *                      frees them (no longer alone before the others: 6 ms
 *                      with a thread idle on the real-shaped gigabyte)
 *   gpu_finish()       the kernel rows, rk->gpu, the busy runs, the comm tasks
 *   replay_take_calls() the calls the graph replays read (this thread, first)
 *   idle_prepare()     reads idle's own records and the calls, not their marks
 *   launches_link()    the join: which call launched which device work, for
 *                      the placement; marks the calls for idle
 *   launches_place()   after the join: the placement (this thread), read by
 *                      phases, cpuops and kctx; then the device work to replay,
 *                      if a graph replays
 *   phases_finish()    rk->phases, rk->steps
 *   cpuops_finish()    rk->cpu_ops, rk->ops_perf, the FLOPs by time (this thread)
 *   kctx_finish()      after gpu and the placement: sets the categories of
 *                      gpu's kernel rows from the kernels placed at their launches
 *   comm_finish()      after gpu: its comm tasks (and sync and covered where split);
 *                      rk->start_ns
 *   idle_gaps()        after gpu (busy runs, rk->gpu.no_device), before the
 *                      placement (it reads launch.c's device work, not its wide
 *                      values): each gap's next item; rk->start_ns, rk->span_ns
 *   idle_attribute()   after idle_gaps(), the join (the marks, the wide values)
 *                      and idle_prepare(); makes the gaps from the busy runs,
 *                      writes only idle's own records, each host thread's gaps
 *                      a task; frees the calls
 *   idle_finish()      after idle_attribute() and phases (rk->steps); writes
 *                      rk->idle and rk->gpu.step_utilization
 *   perf steps         after gpu (rk->gpu.kernels, active_span_ns, compute_ns),
 *                      phases (rk->steps, rk->phases) and cpuops (its FLOPs);
 *                      first marks the phases' device time unknown where no
 *                      kernel names its launch, as by_phase() reads it
 *
 * None of them reads the rows report_fold_rows() folds, which runs after.
 * With threads to spare (one large file) another thread takes memory's
 * rows, the join and then idle's attribution, the longest chain (libgomp
 * starts tasks in the order they are made), while this one makes the GPU
 * figures and idle's gaps' next items, places the launches, makes the
 * phases (at once where there are only two threads) and runs cpuops;
 * idle's preparation goes to whichever is free first (this one, waiting
 * for the join, on the real-shaped gigabyte, where both end within a few
 * milliseconds of each other: the finish 155 -> 130 ms at -j 2).  The
 * gaps themselves (56 bytes each, 23 MB there) are made by the
 * attribution, after the join: made beside it, they and the join's calls
 * were the finish's peak.  With one thread the tasks share the file's
 * arena and run when the region ends, in the order they were made, but
 * for those whose if clause is false there, which run where they are
 * made: memory's first, so that its samples are freed before the others
 * allocate.
 */
static int finish_analyses(struct file_result *res, int nr_threads, int64_t min_ts)
{
	struct report_rank *rk = &res->rank;
	struct arena a_mem, a_gpu, a_cpu, a_phases, a_comm, a_idle, a_perf;
	/* one after another (one thread), they share the file's arena: fewer blocks kept */
	struct arena *amem = nr_threads > 1 ? &a_mem : &res->arena;
	struct arena *ag = nr_threads > 1 ? &a_gpu : &res->arena;
	struct arena *ac = nr_threads > 1 ? &a_cpu : &res->arena;
	struct arena *ap = nr_threads > 1 ? &a_phases : &res->arena;
	struct arena *am = nr_threads > 1 ? &a_comm : &res->arena;
	struct arena *ai = nr_threads > 1 ? &a_idle : &res->arena;
	struct arena *af = nr_threads > 1 ? &a_perf : &res->arena;
	struct placement pl = { 0 };
	int rc_place = 0, rc_gpu = 0, rc_cpu = 0, rc_phases = 0, rc_idle = 0, rc_kctx = 0;
	int rc_comm = 0, rc_idle_attr = 0, rc_idle_fin = 0, rc_perf = 0, rc_mem = 0;
	int rc_take = 0, rc_link = 0, rc_gaps = 0;

	arena_init(&a_mem);
	arena_init(&a_gpu);
	arena_init(&a_cpu);
	arena_init(&a_phases);
	arena_init(&a_comm);
	arena_init(&a_idle);
	arena_init(&a_perf);
#pragma omp parallel num_threads(nr_threads < 3 ? nr_threads : 3) if (nr_threads > 1) \
	default(none) shared(res, rk, min_ts, pl, amem, ag, ac, ap, am, ai, af, rc_place, \
			     rc_gpu, rc_cpu, rc_phases, rc_idle, rc_kctx, rc_comm, rc_idle_attr, \
			     rc_idle_fin, rc_perf, rc_mem, rc_take, rc_link, rc_gaps) \
	firstprivate(nr_threads)
	/*
	 * master, not single: libgomp (GCC 12) keeps the table of the depend
	 * clauses on the task that makes them, and never frees it when that
	 * is a worker thread's implicit task (LeakSanitizer, 136 bytes, now
	 * and then); the master's is freed when the team ends.
	 */
#pragma omp master
	{
		/*
		 * The join and idle's attribution are the longest chain, so
		 * the join is made first (after memory's short task), for
		 * another thread, then idle's preparation; this one makes the
		 * GPU figures meanwhile and then idle's gaps (at once where
		 * there are two threads), waits for the join (running what is
		 * ready meanwhile), places the launches, makes the phases (at
		 * once too) and runs cpuops, while the other attributes idle's
		 * gaps.
		 */
		/* at once with one thread (a task would wait for the end): its samples go first */
#pragma omp task default(none) shared(res, rk, min_ts, amem, rc_mem) if (nr_threads > 1)
		rc_mem = memory_finish(&res->mem, &res->info, min_ts, amem, rk);
		/* before idle_attribute() frees the calls: made here, it runs first */
		rc_take = replay_take_calls(&res->cpuops.replay, &res->calls);
#pragma omp task default(none) shared(res, rc_link) depend(out: rc_link) if (nr_threads > 1)
		rc_link = launches_link(&res->launches, &res->calls);
#pragma omp task default(none) shared(res, rc_idle) depend(out: rc_idle)
		rc_idle = idle_prepare(&res->idle);
#pragma omp task default(none) shared(res, rk, ag, rc_gpu) depend(out: rc_gpu) \
	if (nr_threads > 2)
		rc_gpu = gpu_finish(&res->gpu, ag, rk);
#pragma omp task default(none) shared(res, rk, am, rc_gpu, rc_comm) depend(in: rc_gpu)
		rc_comm = !rc_gpu &&
			  comm_finish(&res->comm, &res->gpu.comm_tasks,
				      res->gpu.split ? &res->gpu.comm_sync : NULL,
				      res->gpu.split ? &res->gpu.comm_covered : NULL, am, rk);
		/* idle's gaps read the device work launch.c kept, before the placement reuses it */
#pragma omp task default(none) shared(res, rk, rc_gpu, rc_gaps) depend(in: rc_gpu) \
	depend(out: rc_gaps) if (nr_threads > 2)
		rc_gaps = rc_gpu || idle_gaps(&res->idle, &res->launches, &res->gpu.busy, rk);
		/* the graph replays read the device work launch.c kept, where there are any */
		res->launches.keep_device = replay_wants_device(&res->cpuops.replay);
#pragma omp taskwait depend(in: rc_link, rc_gaps)
		/*
		 * Made after the wait, which may have run idle's preparation
		 * here: libgomp wakes the other thread when a task is made, not
		 * when one the wait ran makes another ready (it slept 30 ms).
		 */
#pragma omp task default(none) shared(res, rc_gaps, rc_idle, rc_link, rc_idle_attr) \
	depend(in: rc_gaps, rc_idle, rc_link) depend(out: rc_idle_attr)
		/* failed where what it reads failed: idle_finish() is then not run */
		rc_idle_attr = rc_gaps || rc_idle || rc_link ||
			       idle_attribute(&res->idle, &res->launches);
		rc_place = rc_take || rc_link ||
			   launches_place(&res->launches, strtab_count(&res->tracks), &pl) ||
			   replay_device(&res->cpuops.replay, &res->launches);
		if (!rc_place) {
#pragma omp task default(none) shared(res, rk, min_ts, pl, ap, rc_phases) depend(out: rc_phases) \
	if (nr_threads > 2)
			rc_phases = phases_finish(&res->phases, min_ts, &pl, ap, rk);
			/* the kernel rows' categories from their launches */
#pragma omp task default(none) shared(res, rk, pl, rc_gpu, rc_kctx) depend(in: rc_gpu)
			rc_kctx = !rc_gpu && kctx_finish(&res->kctx, &pl, rk);
#pragma omp task default(none) shared(res, rk, ai, rc_idle_attr, rc_phases, rc_idle_fin) \
	depend(in: rc_idle_attr, rc_phases)
			rc_idle_fin = !rc_idle_attr && !rc_phases &&
				      idle_finish(&res->idle, &res->gpu.busy, ai, rk);
			rc_cpu = cpuops_finish(&res->cpuops, &pl, ac, rk);
			if (!rc_cpu) {
#pragma omp task default(none) shared(res, pl, af, rc_gpu, rc_phases, rc_perf) \
	depend(in: rc_gpu, rc_phases)
				rc_perf = !rc_gpu && !rc_phases && finish_perf(res, &pl, af);
			}
		}
		/*
		 * No taskwait: it would run only this task's children, and
		 * idle_attribute()'s tasks (a thread's gaps each) only on the
		 * thread that made them.  The barrier ending the team runs
		 * every task, on every thread.
		 */
	}
	placement_release(&pl);
	interval_list_release(&res->gpu.busy);
	arena_adopt(&res->arena, &a_mem);
	arena_adopt(&res->arena, &a_gpu);
	arena_adopt(&res->arena, &a_cpu);
	arena_adopt(&res->arena, &a_phases);
	arena_adopt(&res->arena, &a_comm);
	arena_adopt(&res->arena, &a_idle);
	arena_adopt(&res->arena, &a_perf);
	return rc_place || rc_gpu || rc_cpu || rc_phases || rc_idle || rc_kctx || rc_comm ||
			       rc_idle_attr || rc_idle_fin || rc_perf || rc_mem
		       ? -1 : 0;
}

/* What the trace says was profiled: its device, backend and tags, into the arena. */
static int run_metadata(struct file_result *res, struct report_rank *rk)
{
	const struct trace_info *info = &res->info;
	struct arena *a = &res->arena;

	if (info->nr_devices && info->devices[0].name[0] &&
	    !(rk->device_name = arena_strndup(a, info->devices[0].name,
					      strlen(info->devices[0].name))))
		return -1;
	rk->device_count = info->nr_devices ? (int64_t)info->nr_devices : INT64_MIN;
	if (info->backend[0] &&
	    !(rk->backend = arena_strndup(a, info->backend, strlen(info->backend))))
		return -1;
	rk->tags = arena_alloc(a, (info->nr_tags ? info->nr_tags : 1) * sizeof(*rk->tags));
	if (!rk->tags)
		return -1;
	for (size_t i = 0; i < info->nr_tags; i++) {
		const struct trace_tag *t = &info->tags[i];

		rk->tags[i].key = arena_strndup(a, t->key, strlen(t->key));
		rk->tags[i].value = arena_strndup(a, t->value, strlen(t->value));
		if (!rk->tags[i].key || !rk->tags[i].value)
			return -1;
	}
	rk->nr_tags = info->nr_tags;
	if (info->nr_tags_dropped) {
		struct err e;

		err_set(&e, -1, "%zu metadata keys beyond the first %d left out",
			info->nr_tags_dropped, TRACE_MAX_TAGS);
		trace_info_warn(&res->info, &e);
	}
	return 0;
}

/* Compute the rank from what the read collected. */
static int finish(struct file_result *res, int nr_threads)
{
	struct report_rank *rk = &res->rank;
	const struct trace_info *info = &res->info;
	int64_t min_ts = res->has_span ? res->min_ts : 0;
	const char *base = rank_basename(res->path);
	struct err e;

	memset(rk, 0, sizeof(*rk));
	rk->path = arena_strndup(&res->arena, res->path, strlen(res->path));
	rk->source = arena_strndup(&res->arena, base, strlen(base));
	rk->bytes = res->file_bytes;
	rk->bytes_text = info->bytes_text;
	rk->format = info->format;
	rk->world_size = info->world_size > 0 ? info->world_size : INT64_MIN;
	if (rk->world_size > REPORT_WORLD_SIZE_MAX) {
		struct err w;

		err_set(&w, -1, "distributedInfo.world_size %lld is beyond any real job (more "
			"than %lld ranks): ignored", (long long)rk->world_size,
			(long long)REPORT_WORLD_SIZE_MAX);
		trace_info_warn(&res->info, &w);
		rk->world_size = INT64_MIN;
	}
	rk->start_unix_ns = start_unix(res);
	/* until collectives matched across ranks give it */
	rk->clock_offset_ns = rk->clock_offset_spread_ns = INT64_MIN;
	if (run_metadata(res, rk))
		return -1;
	rk->complete = res->rc == 0;
	rk->events_total = info->nr_events;
	rk->by_ph = tally_to_counts(&res->by_ph, &res->names, &res->arena, &rk->nr_by_ph);
	rk->by_cat = tally_to_counts(&res->by_cat, &res->names, &res->arena, &rk->nr_by_cat);
	rk->span_ns = res->has_span ? res->max_end - res->min_ts : 0;
	rk->start_ns = min_ts;	/* comm, idle and the FLOPs by phase read it while finishing */
	/*
	 * Memory ran out while collecting: a batch is missing from some
	 * analyses, whose records may no longer agree with each other.  No
	 * figure is made from them, and the file is an error (run.c).
	 */
	if (!rk->path || !rk->source || !rk->by_ph || !rk->by_cat || res->oom ||
	    finish_analyses(res, nr_threads, min_ts))
		return -1;
	warn_implausible(res, rk);	/* before its rows may be folded */
	if (!res->full)
		report_fold_rows(rk, REPORT_ROWS_MAX);
	warn_no_comm_tasks(res, rk);
	if (!res->full && report_fold_comm(rk, REPORT_ROWS_MAX))
		return -1;
	if (res->phases.nr_too_deep) {
		err_set(&e, -1, "%lld annotation spans nested more than %d deep left out of "
			"the phases", (long long)res->phases.nr_too_deep, PHASE_MAX_DEPTH);
		trace_info_warn(&res->info, &e);
	}
	if (res->phases.has_frames && res->phases.has_block_frames &&
	    res->phases.opts->frames < 0) {
		err_set(&e, -1, "frames are counted both by vt_frames() and by regions' "
			"block_size: the frames and FPS are vt_frames()'s alone, not the sum");
		trace_info_warn(&res->info, &e);
	}
	if (res->mem.nr_left_out) {
		err_set(&e, -1, "%lld memory events of devices beyond the first %d left out of the "
			"memory rows", (long long)res->mem.nr_left_out, MEMORY_MAX_DEVICES);
		trace_info_warn(&res->info, &e);
	}
	/* the collector records the host's regions alone by design: nothing to warn of */
	if (rk->gpu.no_device && rk->events_total > 0 &&
	    (!rk->format || strcmp(rk->format, "vtr")))
		warn_no_device(res, rk);
	if (rk->steps.cut_off == 1) {
		char d[METRIC_FMT_MAX];

		metric_fmt(d, sizeof(d), (double)rk->steps.durations_ns[rk->steps.nr_durations - 1],
			   UNIT_NS, FMT_ASCII);
		err_set(&e, -1, "the last step (%s) was cut off by the end of the trace: it is "
			"left out of the step statistics and the warm-up test", d);
		trace_info_warn(&res->info, &e);
	}
	/* no active span (null without a device): the collector's samples say it */
	if (rk->gpu.active_span_ns <= 0 && res->mem.util_samples) {
		rk->gpu.utilization =
			(double)res->mem.util_sum / (double)res->mem.util_samples / 100.0;
		rk->gpu.util_from_samples = 1;
	}
	rk->analysed = rk->has_phases = rk->has_throughput = 1;
	return 0;
}

/* A copy of n errors into a, or NULL (also when n is 0). */
static const struct err *errs_dup(struct arena *a, const struct err *e, size_t n, int *oom)
{
	struct err *c = n ? arena_alloc(a, n * sizeof(*c)) : NULL;

	if (n && !c)
		*oom = 1;
	else if (n)
		memcpy(c, e, n * sizeof(*c));
	return c;
}

void analyze_keep(struct file_result *res, struct file_done *d)
{
	memset(d, 0, sizeof(*d));
	d->path = res->path;
	d->rc = res->rc;
	d->oom = res->oom;
	d->rank = res->info.rank;
	d->nr_warnings = res->info.nr_warnings;
	d->nr_warnings_total = res->info.nr_warnings_total;
	arena_init(&d->arena);
	arena_adopt(&d->arena, &res->arena);	/* the rank's strings */
	d->warnings = errs_dup(&d->arena, res->info.warnings, d->nr_warnings, &d->oom);
	if (!d->warnings)
		d->nr_warnings = 0;
	if (d->rc < 0) {
		d->err = errs_dup(&d->arena, &res->err, 1, &d->oom);
	} else if (!res->rank.path || !res->rank.source) {
		d->rc = -1;	/* memory ran out before the rank had a name */
		d->oom = 1;
	} else if ((d->result = arena_alloc(&d->arena, sizeof(*d->result)))) {
		*d->result = res->rank;
	} else {
		d->rc = -1;	/* no rank to report: as a file that could not be read */
		d->oom = 1;
	}
	file_result_release(res);
}

void file_done_release(struct file_done *d)
{
	arena_release(&d->arena);
}

void analyze_to_rank(struct file_done *d, struct report *rep, struct report_rank *rk)
{
	*rk = *d->result;
	arena_adopt(&rep->arena, &d->arena);
}

void analyze_read(struct file_result *res, int nr_threads, int progress)
{
	struct trace_read_opts opts = { .nr_threads = nr_threads };
	struct trace_sink sink = { .ctx = res, .batch = on_batch };
	struct stat st;

	res->cost = getenv("VT_BENCH_COST") != NULL;	/* once a file, not once a batch */
	if (stat(res->path, &st) == 0 && S_ISREG(st.st_mode))
		res->file_bytes = st.st_size;
	if (progress && isatty(STDERR_FILENO) && big_input(res->path, res->file_bytes))
		sink.progress = on_progress;
	res->rc = trace_read(res->path, &opts, &sink, &res->info, &res->err);
	if (sink.progress)
		fprintf(stderr, "\r\033[K");
	if (res->file_bytes < 0)
		res->file_bytes = res->info.bytes_in;
	if (res->cost)
		cost_say(res);
}

void analyze_file(struct file_result *res, int nr_threads, int progress)
{
	analyze_read(res, nr_threads, progress);
	if (res->rc >= 0 && finish(res, nr_threads))
		res->oom = 1;
}
