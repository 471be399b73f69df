/*
 * suggest: see suggest.h.
 *
 * How to add a rule: write its evaluator (eval_NAME: does the rank have
 * the inputs, does the rule fire, and the named evidence in struct
 * evidence, adding a field there if no existing one says what you need),
 * its message (msg_NAME: written from that evidence), add one entry to
 * rules[] below, a row to doc/findings.md's threshold table (test 030 compares it
 * with --help) and one test in tests/unit/test_suggest.c, at the threshold
 * and just past it.  Its evidence metric goes into the metric catalogue
 * (metric.c) so the outputs know its unit.
 *
 * Two passes.  The first evaluates every rule on every complete rank and
 * keeps each firing as a hit: the value, the threshold, the time at stake
 * and the named evidence its message needs, with strings borrowed from the
 * report.  The second groups the hits by rule, keeps the worst of each
 * group, sorts the groups by impact and only then writes the messages into
 * the arena, so a rule costs one message however many ranks it fired on.
 * Scratch arrays are malloc'd and freed here.
 */
#include "suggest.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metric.h"
#include "rankset.h"
#include "vendor_words.h"
#include "workload.h"

/* The share of a trace's span of one-time idle time that makes it no steady state. */
#define PROFILE_WINDOW_SHARE 0.25

/* v, or 0 for a null (negative) figure. */
static int64_t imax0(int64_t v)
{
	return v > 0 ? v : 0;
}

/* A printf into rep's arena, any length; NULL when out of memory. */
static const char *arena_fmt(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *arena_fmt(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = arena_alloc(a, (size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/*
 * The phase of r whose name contains one of the needles with the largest
 * share, or NULL.  Nested matches (vae_decode/decode_chunk) give the outer one.
 */
static const struct report_phase *phase_match(const struct report_rank *r,
					      const char *const *needles, size_t nr_needles)
{
	const struct report_phase *best = NULL;

	for (size_t i = 0; i < r->nr_phases; i++) {
		const struct report_phase *p = &r->phases[i];

		if (!isfinite(p->share) || (best && !(p->share > best->share)))
			continue;
		for (size_t k = 0; k < nr_needles; k++) {
			if (workload_text_has(p->name, needles[k])) {
				best = p;
				break;
			}
		}
	}
	return best;
}

/* The median of v[0..n) as DESIGN.md defines it; sorts v.  n > 0. */
static double median_i64(int64_t *v, size_t n)
{
	struct report_dist d;

	report_dist_of(&d, v, n);
	return d.median_ns;
}

static const char *const vae_needles[] = { "vae", "decode" };
static const char *const text_needles[] = { "text_encod", "encode_prompt", "pre_denoising" };

/* The calls that block the CPU until the GPU catches up. */
static const char *const sync_runtime[] = { "cudaDeviceSynchronize", "cudaStreamSynchronize",
					    "cudaEventSynchronize" };
static const char *const sync_aten[] = { "aten::item", "aten::_local_scalar_dense" };

/*
 * The CPU time of r in synchronising calls, and the largest of them in *top.
 * aten::item encloses aten::_local_scalar_dense, which encloses a
 * cudaStreamSynchronize, so the runtime calls are summed, the aten ones
 * taken at their largest, and the larger of the two counts: nested calls are
 * never counted twice.
 */
static double sync_time(const struct report_rank *r, const char **top)
{
	double rt = 0, aten = 0, best = 0;

	*top = NULL;
	for (size_t i = 0; i < r->nr_cpu_ops; i++) {
		const struct report_cpu_op *op = &r->cpu_ops[i];
		double t = (double)op->total_ns;
		int hit = 0;

		if (!op->name || op->total_ns <= 0)
			continue;
		for (size_t k = 0; k < sizeof(sync_runtime) / sizeof(*sync_runtime); k++) {
			if (strcmp(op->name, sync_runtime[k]) == 0) {
				rt += t;
				hit = 1;
			}
		}
		for (size_t k = 0; k < sizeof(sync_aten) / sizeof(*sync_aten); k++) {
			if (strcmp(op->name, sync_aten[k]) == 0) {
				aten = t > aten ? t : aten;
				hit = 1;
			}
		}
		if (hit && t > best) {
			best = t;
			*top = op->name;
		}
	}
	/* The runtime calls the device table counts (cat cuda_runtime, not cpu_op). */
	if ((double)r->gpu.host_sync_ns > rt) {
		rt = (double)r->gpu.host_sync_ns;
		if (rt > best)
			*top = "runtime synchronisation calls";
	}
	return rt > aten ? rt : aten;
}

/* Kernel time per category of r: the largest, its time in *ns. */
static const char *top_category(const struct report_rank *r, double *ns)
{
	const char *names[16];
	double t[16];
	size_t n = 0, best = 0;

	*ns = 0;
	for (size_t i = 0; i < r->nr_kernels; i++) {
		const struct report_kernel *k = &r->kernels[i];
		const char *c = k->category ? k->category : "other";
		size_t j = 0;

		while (j < n && strcmp(names[j], c) != 0)
			j++;
		if (j == n) {
			if (n == sizeof(t) / sizeof(*t))
				continue;
			names[n] = c;
			t[n++] = 0;
		}
		t[j] += (double)k->d.total_ns;
	}
	if (!n)
		return NULL;
	for (size_t j = 1; j < n; j++)
		if (t[j] > t[best])
			best = j;
	*ns = t[best];
	return names[best];
}

/* The phase that says where the time goes: the largest below the root(s). */
static const struct report_phase *top_phase(const struct report_rank *r)
{
	const struct report_phase *best = NULL;

	for (int depth = 1; depth >= 0 && !best; depth--) {
		for (size_t i = 0; i < r->nr_phases; i++) {
			const struct report_phase *p = &r->phases[i];

			if (p->depth == depth && isfinite(p->share) &&
			    (!best || p->share > best->share))
				best = p;
		}
	}
	return best;
}
/* A name from a trace, quotable in an ASCII message: short, printable. */
static const char *plain(char *b, size_t n, const char *s)
{
	size_t k = 0, max = n > 4 ? n - 4 : 0;

	if (!s)
		s = "?";
	for (; *s && k < max; s++)
		b[k++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	if (*s && n >= 4) {
		memcpy(b + k, "...", 3);
		k += 3;
	}
	if (n)
		b[k < n ? k : n - 1] = '\0';
	return b;
}

/*
 * What a rule found on one rank, by name: each evaluator fills the fields
 * its message quotes (times in ns, shares as fractions); the others stay 0.
 */
struct evidence {
	double idle_ns, active_span_ns;	/* GPU idle time and active span */
	double idle_share;		/* idle / active span */
	double wait_ns;			/* GPU time waiting inside collectives for others */
	double comm_ns, overlap;	/* communication time, its share overlapped */
	double kernels, graph_kernels;	/* kernels, and those launched by graph replays */
	int64_t rank;			/* straggler: the rank */
	double excess;			/* straggler: value / median - 1 */
	double last_share;		/* straggler: share of collectives it reached last */
	const char *delays;		/* straggler by wait: where most waiting is (borrowed) */
	const char *waiters;		/* straggler by wait: the waiting ranks (arena) */
	double wait_share;		/* ... the share of their communication time spent waiting */
	const char *phase;		/* a phase's name (borrowed) */
	double phase_ns, phase_calls;	/* its time and count */
	double phase_share;		/* its share of the span */
	double kernel_ns;		/* kernel time of the category in question */
	const char *pattern;		/* the steps' pattern (borrowed) */
	double step_median_ns;
	double memory_ns;		/* memcpy/memset time */
	double sync_ns;			/* time in synchronising calls */
	const char *sync_top;		/* the largest of them */
	int64_t device;
	double capacity;		/* the device's memory, bytes */
	double first_step_ns, others_median_ns;
	int cut_off;			/* the last step was left out, cut off by the trace's end */
	double fps, target_fps;
	const char *category;		/* the kernel category with the most time */
	double category_share;		/* its share of kernel time */
	int cause;			/* idle-*: enum idle_cause */
	double window_ns;		/* idle-*: the analysed window */
	int steps_window;		/* ... is the steady steps, not the whole trace */
	const char *host;		/* idle-*: what the host did in its longest gap (borrowed) */
	const char *vendor;		/* the rank's device vendor (static), NULL unknown */
};

/*
 * A firing: what the report shows of it, the time at stake and the
 * evidence of its message.  wl is the run's workload, set before the
 * evaluator runs, so the advice fits the run.
 */
struct finding {
	enum report_severity sev;
	const char *metric;		/* static, or in the report's arena */
	double value, threshold;
	double impact_ns;		/* time at stake on this rank; < 0: unknown */
	const char *basis;		/* how impact_ns was estimated (static) */
	double span_ns;			/* the rank's wall time, for the impact's share */
	enum workload_kind wl;
	struct evidence e;
};

/* The results of an evaluator. */
enum { NO_INPUTS, QUIET, FIRES };

/* A value in its unit, ASCII, for a message. */
#define FMT(buf, v, unit) metric_fmt(buf, sizeof(buf), v, unit, FMT_ASCII)

/* A finding's two texts while they are written: the short message and the details. */
struct text {
	char m[512], d[1024];
	const char *where;		/* "All 8 ranks", "Ranks 0-6", "Rank 2" */
	int plural;			/* where names more than one rank */
};

/* The rank's device in words: "GPU", "NPU" ("device" where unknown; CPU-only runs have none). */
static const char *dev(const struct finding *f)
{
	const char *d = vendor_words(f->e.vendor)->device;

	return d ? d : "device";
}

/* What stands for a device's graphs, in the vendor's words. */
static const char *graph_words(const char *vendor)
{
	const char *g = vendor_words(vendor)->graphs;

	return g ? g : "graphs";
}

/* The loop a workload repeats, in advice: "the denoising loop". */
static const char *loop_words(enum workload_kind wl)
{
	switch (wl) {
	case WL_DIFFUSION:
		return "the denoising loop";
	case WL_LLM:
		return "the decode loop";
	case WL_TRAINING:
		return "the training step";
	default:
		return "the hot loop";
	}
}

/* 1 when most of the rank's kernels already run from CUDA/HIP graph replays. */
static int graphs_in_use(const struct evidence *e)
{
	return e->kernels > 0 && e->graph_kernels * 2 > e->kernels;
}

/*
 * 1 when r's waits inside collectives are known (collectives matched across
 * ranks, GPU kernels): its rules then judge the useful work, not busy time.
 */
static int has_gpu_wait(const struct report_gpu *g)
{
	return g->has_wait && isfinite(g->effective_utilization) && !g->cpu_comm;
}

/* Kernel and graph counts of r into e, for the advice on CUDA graphs. */
static void graph_evidence(const struct report_rank *r, struct evidence *e)
{
	e->kernels = (double)r->gpu.kernels;
	e->graph_kernels = r->gpu.graph_kernels > 0 ? (double)r->gpu.graph_kernels : 0;
}

/*
 * low-gpu-utilization: busy / active span below t[0]; below t[1] it is
 * high.  Effective utilization where collectives were matched: a kernel
 * that spins waiting for a late rank is busy but does no work, and counting
 * it would make the waiting ranks look best and the late one worst.  At
 * stake: the idle time (the waiting is the straggler finding's).
 */
static int eval_low_util(const struct report_rank *r, const double *t, struct arena *a,
			 struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	int eff = g->has_wait && isfinite(g->effective_utilization);
	double util = eff ? g->effective_utilization : g->utilization;

	(void)a;
	if (!r->analysed || g->active_span_ns <= 0 || !isfinite(util) || r->idle.window)
		return NO_INPUTS;	/* with the attribution: the idle-* rules */
	if (!(util < t[0]))
		return QUIET;
	f->sev = util < t[1] ? SEV_HIGH : SEV_MEDIUM;
	if (eff)
		f->metric = MK_GPU_EFFECTIVE_UTILIZATION;
	f->value = util;
	f->threshold = f->sev == SEV_HIGH ? t[1] : t[0];
	f->impact_ns = (double)g->idle_ns;
	f->basis = "GPU idle time in its active span";
	f->e.idle_ns = (double)g->idle_ns;
	f->e.active_span_ns = (double)g->active_span_ns;
	f->e.wait_ns = has_gpu_wait(g) ? (double)g->comm_wait_ns : 0;
	graph_evidence(r, &f->e);
	return FIRES;
}

static void msg_low_util(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], w[METRIC_FMT_MAX];
	const char *gaps;

	if (f->e.wait_ns > 0)
		snprintf(t->m, sizeof(t->m),
			 "%s: the %s does useful work only %s of its active time.", t->where,
			 dev(f), FMT(v, f->value, UNIT_RATIO));
	else
		snprintf(t->m, sizeof(t->m), "%s: the %s is busy only %s of its active time.",
			 t->where, dev(f), FMT(v, f->value, UNIT_RATIO));
	switch (f->wl) {
	case WL_DIFFUSION:
		gaps = "between denoising steps and blocks (scheduler and latent bookkeeping "
		       "in Python, data loading, synchronisation)";
		break;
	case WL_LLM:
		gaps = "between batches (scheduling, sampling and detokenisation in Python, "
		       "synchronisation)";
		break;
	case WL_TRAINING:
		gaps = "between steps and inside them (data loading, optimizer, logging, "
		       "synchronisation)";
		break;
	default:
		gaps = "between kernels (Python overhead, data loading, synchronisation)";
	}
	snprintf(t->d, sizeof(t->d),
		 "%s idle%s%s%s of %s active. Look for host-side gaps %s; %s%s%s.",
		 FMT(a, f->e.idle_ns, UNIT_NS), f->e.wait_ns > 0 ? " and " : "",
		 f->e.wait_ns > 0 ? FMT(w, f->e.wait_ns, UNIT_NS) : "",
		 f->e.wait_ns > 0 ? " waiting inside collectives (the straggler's doing)" : "",
		 FMT(b, f->e.active_span_ns, UNIT_NS), gaps,
		 graphs_in_use(&f->e)
			 ? "most kernels already run from graph replays, so shorten the host "
			   "work between replays"
			 : graph_words(f->e.vendor),
		 graphs_in_use(&f->e) ? "" : " or torch.compile keep the ",
		 graphs_in_use(&f->e) ? "" : dev(f));
}

/*
 * launch-bound: the median kernel (over every kernel, gpu.kernel_median_ns)
 * under t[0] us while the GPU idles more than t[1] of its active span: the
 * gaps between kernels, not the kernels, set the pace.  At stake: the idle
 * time.
 */
static int eval_launch(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	double med, idle;

	(void)a;
	if (!r->analysed || g->kernels <= 0 || g->active_span_ns <= 0 || r->idle.window)
		return NO_INPUTS;	/* with the attribution: idle-launch */
	/* an older report without the true median: the mean kernel */
	med = g->kernel_median_ns != INT64_MIN ? (double)g->kernel_median_ns
					       : (double)g->kernel_time_ns / (double)g->kernels;
	idle = (double)g->idle_ns / (double)g->active_span_ns;
	if (!(med < t[0] * 1e3 && idle > t[1]))
		return QUIET;
	f->value = med;
	f->threshold = t[0] * 1e3;
	f->impact_ns = (double)g->idle_ns;
	f->basis = "GPU idle time between kernels";
	f->e.idle_share = idle;
	f->e.idle_ns = (double)g->idle_ns;
	graph_evidence(r, &f->e);
	return FIRES;
}

static void msg_launch(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], k[METRIC_FMT_MAX], gk[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m),
		 "%s: many short kernels (median %s) with the %s idle %s of its active span: "
		 "launches set the pace.",
		 t->where, FMT(v, f->value, UNIT_NS), dev(f), FMT(a, f->e.idle_share, UNIT_RATIO));
	if (graphs_in_use(&f->e))
		snprintf(t->d, sizeof(t->d),
			 "%s of the %s kernels already run from graph replays, so more "
			 "graphs will not help: the idle time is the host work between replays "
			 "and the kernels launched outside the graphs. Move that work (sampling, "
			 "bookkeeping) into the graph or overlap it with the replay, and fuse "
			 "small kernels.",
			 FMT(gk, f->e.graph_kernels, UNIT_COUNT), FMT(k, f->e.kernels, UNIT_COUNT));
	else
		snprintf(t->d, sizeof(t->d),
			 "Capture %s in %s or use torch.compile(mode=\"reduce-overhead\"), "
			 "and fuse small elementwise ops%s into fewer kernels.",
			 loop_words(f->wl), graph_words(f->e.vendor),
			 f->wl == WL_DIFFUSION ? " (norms, modulation, RoPE)" : "");
}

/*
 * The idle attribution (doc/idle.md), whole trace: start-up, capture and
 * compilation.  A trace mostly made of them is no steady state, and no
 * steady-state advice is drawn from it.
 */
static const enum idle_cause once[] = { IDLE_INIT, IDLE_CAPTURE, IDLE_COMPILE };

#define NR_ONCE (sizeof(once) / sizeof(once[0]))

/* Cause k's idle time on rank r, window and outside (nulls: 0). */
static int64_t cause_ns(const struct report_rank *r, size_t k)
{
	return imax0(r->idle.in.by_cause[k]) + imax0(r->idle.outside.by_cause[k]);
}

static int64_t one_time_ns(const struct report_rank *r)
{
	int64_t ns = 0;

	for (size_t k = 0; k < NR_ONCE; k++)
		ns += cause_ns(r, once[k]);
	return ns;
}

/* The cause of one-time idle time with the most of it. */
static enum idle_cause one_time_top(const struct report_rank *r)
{
	enum idle_cause best = IDLE_INIT;

	for (size_t k = 1; k < NR_ONCE; k++)
		if (cause_ns(r, once[k]) > cause_ns(r, best))
			best = once[k];
	return best;
}

/*
 * 1 when one-time idle time (ns) is more than share of r's span and more
 * than any other cause found (other, no cause, left out): the trace is no
 * steady state.
 */
static int one_time_window(const struct report_rank *r, double ns, double share)
{
	if (!(ns > share * (double)r->span_ns))
		return 0;
	/* the one-time causes are part of ns, so only another can pass it */
	for (size_t k = 0; k < IDLE_NR_CAUSES; k++)
		if (k != IDLE_OTHER && (double)cause_ns(r, k) > ns)
			return 0;
	return 1;
}

/*
 * profile-window: one-time idle (start-up, capture, compilation) above t[0]
 * of the span, and more than any other cause.
 */
static int eval_window(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	double ns;

	(void)a;
	if (!r->analysed || !r->idle.window || r->span_ns <= 0)
		return NO_INPUTS;
	ns = (double)one_time_ns(r);
	if (!one_time_window(r, ns, t[0]))
		return QUIET;
	f->value = ns / (double)r->span_ns;
	f->threshold = t[0];
	f->impact_ns = ns;
	f->basis = "device idle time in start-up, graph capture and compilation";
	f->e.cause = (int)one_time_top(r);
	return FIRES;
}

static void msg_window(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];
	const char *what = f->e.cause == IDLE_CAPTURE	? "a graph-capture window"
			   : f->e.cause == IDLE_COMPILE ? "a compilation window"
							: "a start-up window";

	snprintf(t->m, sizeof(t->m), "%s: the trace is %s: %s of it (%s) is one-time idle time.",
		 t->where, what, FMT(v, f->value, UNIT_RATIO), FMT(a, f->impact_ns, UNIT_NS));
	snprintf(t->d, sizeof(t->d),
		 "Profile steady-state steps instead: torch.profiler.profile(schedule="
		 "torch.profiler.schedule(wait=1, warmup=1, active=3)) after the first calls, "
		 "graph captures and compilations have run. No steady-state advice is drawn from "
		 "this trace.");
}


/* The longest gap of cause c in the window that names its host activity, or NULL. */
static const char *top_host(const struct report_rank *r, enum idle_cause c)
{
	for (size_t i = 0; i < r->idle.nr_top; i++)
		if (r->idle.top[i].cause == c && r->idle.top[i].in_window && r->idle.top[i].host)
			return r->idle.top[i].host;
	return NULL;
}

/* The basis of an idle-* finding's time at stake, naming its cause. */
static const char *const idle_basis[IDLE_NR_CAUSES] = {
#define IDLE_BASIS(u, l, id) "device idle time caused by " #l " in the analysed window",
	IDLE_CAUSES(IDLE_BASIS)
#undef IDLE_BASIS
};

/*
 * idle-CAUSE: the device idles for that cause more than t[0] of the
 * analysed window (high above t[1]).  Quiet on a trace that is mostly
 * one-time idle time: profile-window says so instead.  At stake: that idle
 * time.
 */
static int eval_idle(const struct report_rank *r, const double *t, struct finding *f,
		     enum idle_cause c)
{
	const struct report_idle *id = &r->idle;
	double share, ns;

	if (!r->analysed || !id->window || id->in.window_ns <= 0 || id->in.by_cause[c] < 0)
		return NO_INPUTS;
	if (one_time_window(r, (double)one_time_ns(r), PROFILE_WINDOW_SHARE))
		return QUIET;
	ns = (double)id->in.by_cause[c];
	share = ns / (double)id->in.window_ns;
	if (!(share > t[0]))
		return QUIET;
	f->sev = share > t[1] ? SEV_HIGH : SEV_MEDIUM;
	f->value = ns;
	f->threshold = t[0] * (double)id->in.window_ns;
	f->impact_ns = ns;
	f->basis = idle_basis[c];
	f->e.cause = (int)c;
	f->e.idle_share = share;
	f->e.window_ns = (double)id->in.window_ns;
	f->e.steps_window = id->window[0] == 's';
	f->e.host = top_host(r, c);
	graph_evidence(r, &f->e);
	return FIRES;
}

#define IDLE_EVAL(u, l, id)                                                                     \
	static int eval_idle_##l(const struct report_rank *r, const double *t, struct arena *a, \
				 struct finding *f)                                             \
	{                                                                                       \
		(void)a;                                                                        \
		return eval_idle(r, t, f, IDLE_##u);                                            \
	}
IDLE_CAUSES_FOUND(IDLE_EVAL)
#undef IDLE_EVAL

/* What each cause is, in a headline, and what to do about it (before and after the loop's name). */
static const struct {
	const char *what, *pre, *post;
} idle_words[IDLE_NR_CAUSES] = {
	/* launch: its advice names the vendor's graphs, written in msg_idle() */
	[IDLE_LAUNCH] = { "kernel launches (gaps of 1 ms or less)", "", "" },
	[IDLE_SYNC] = { "synchronising calls that empty its queue",
			"Remove .item(), .cpu() and printing of tensors from ",
			", read results a step later, and wait on events instead of synchronising." },
	[IDLE_DATA_LOADING] = { "the DataLoader",
				"Raise num_workers, set pin_memory=True and a prefetch_factor, and "
				"copy the next batch to the device while ",
				" runs." },
	[IDLE_HOST_COMPUTE] = { "host work that launches nothing",
				"Move it off the critical path of ",
				": precompute it, run it in another thread or process, or do it on "
				"the device." },
	[IDLE_MEMORY_MGMT] = { "allocator calls", "Keep the caching allocator warm in ",
			       ": no empty_cache(), PYTORCH_CUDA_ALLOC_CONF=expandable_segments:"
			       "True, preallocated buffers." },
	[IDLE_INIT] = { "one-time start-up inside the analysed window", "Warm up before profiling ",
			" (a profiler schedule with warm-up steps)." },
	[IDLE_CAPTURE] = { "graph capture inside the analysed window", "Capture before profiling ",
			   "; replays alone are its steady state." },
	[IDLE_COMPILE] = { "torch.compile compilation inside the analysed window",
			   "Warm up compiled functions before profiling ",
			   " and avoid recompilation (stable shapes, mark_dynamic)." },
	[IDLE_COLLECTIVE_WAIT] = { "a CPU-side collective",
				   "Overlap it with work (async_op=True) or move it out of ", "." },
	[IDLE_OTHER] = { "no cause found", "", "" },
};

static void msg_idle(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], host[96], adv[512];
	int c = f->e.cause;

	/* the cause first: a headline cut to one line still names it */
	snprintf(t->m, sizeof(t->m), "%s: the device waits on %s: %s, %s of the %s.", t->where,
		 idle_words[c].what, FMT(v, f->value, UNIT_NS), FMT(a, f->e.idle_share, UNIT_RATIO),
		 f->e.steps_window ? "steady steps" : "trace");
	if (c == IDLE_LAUNCH && graphs_in_use(&f->e))
		snprintf(adv, sizeof(adv), "Most kernels already run from graph replays: shorten "
			 "the host work between replays and fuse small kernels.");
	else if (c == IDLE_LAUNCH)
		snprintf(adv, sizeof(adv), "Capture %s in %s or use torch.compile(mode="
			 "\"reduce-overhead\"), and fuse small kernels: the host issues launches "
			 "slower than the device runs them.", loop_words(f->wl),
			 graph_words(f->e.vendor));
	else
		snprintf(adv, sizeof(adv), "%s%s%s", idle_words[c].pre, loop_words(f->wl),
			 idle_words[c].post);
	if (f->e.host)
		snprintf(t->d, sizeof(t->d), "The host in its longest such gap: %s. %s",
			 plain(host, sizeof(host), f->e.host), adv);
	else
		snprintf(t->d, sizeof(t->d), "%s", adv);
}

/*
 * comm-heavy-low-overlap: comm over t[0] of busy time, less than t[1] of it
 * overlapped.  Where collectives matched, the transfer over busy time less
 * waiting: the waiting is the straggler rule's.  At stake: the transfer
 * time not overlapped with compute.
 */
static int eval_comm(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	int wait = has_gpu_wait(g);
	int64_t comm = wait ? g->comm_transfer_ns : g->comm_ns;
	int64_t busy = wait ? g->busy_ns - g->comm_wait_ns : g->busy_ns;
	double share;

	(void)a;
	if (!r->analysed || g->busy_ns <= 0 || g->comm_ns <= 0 ||
	    !isfinite(g->comm_compute_overlap))
		return NO_INPUTS;
	share = busy > 0 ? (double)comm / (double)busy : 0;
	if (!(share > t[0] && g->comm_compute_overlap < t[1]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = (double)comm * (1 - g->comm_compute_overlap);
	f->basis = "communication (transfer) time not overlapped with compute";
	f->e.overlap = g->comm_compute_overlap;
	f->e.comm_ns = (double)comm;
	f->e.wait_ns = wait ? 1 : 0;
	return FIRES;
}

static void msg_comm(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];
	const char *how;

	snprintf(t->m, sizeof(t->m),
		 "%s: %s takes %s of %s busy time and only %s of it overlaps compute.", t->where,
		 f->e.wait_ns > 0 ? "data transfer in collectives" : "communication",
		 FMT(v, f->value, UNIT_RATIO), dev(f), FMT(b, f->e.overlap, UNIT_RATIO));
	switch (f->wl) {
	case WL_DIFFUSION:
		how = " (async all-gather and reduce-scatter, the sequence-parallel all-to-all "
		      "overlapped with attention)";
		break;
	case WL_TRAINING:
		how = " (DDP/FSDP bucketing and prefetch, gradient all-reduce overlapped with "
		      "backward)";
		break;
	default:
		how = "";
	}
	snprintf(t->d, sizeof(t->d),
		 "%s of transfer%s. Overlap collectives with compute%s, and check the "
		 "interconnect (%s bandwidth, %s topology).",
		 FMT(a, f->e.comm_ns, UNIT_NS),
		 f->e.wait_ns > 0 ? ", waiting for other ranks left out" : "", how,
		 vendor_words(f->e.vendor)->interconnect, vendor_words(f->e.vendor)->collectives);
}

/*
 * comm-wait: the rank's own device tasks (gpu.h: HCCL's Notify Wait beside
 * its copies) show it waiting inside collectives for more than t[0] of its
 * communication time and t[1] of its span, and no rank it was matched with
 * explains it (a matched rank's waiting is the straggler rule's): the
 * peers it waits for are not in the analysis.  At stake: the wait.
 */
static int eval_comm_wait(const struct report_rank *r, const double *t, struct arena *a,
			  struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	double share;

	(void)a;
	if (!r->analysed || !g->has_wait || !g->wait_from_tasks || g->comm_ns <= 0 ||
	    r->span_ns <= 0)
		return NO_INPUTS;
	share = (double)g->comm_wait_ns / (double)g->comm_ns;
	if (r->has_clock || !(share > t[0]) || !((double)g->comm_wait_ns > t[1] * (double)r->span_ns))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = (double)g->comm_wait_ns;
	f->basis = "time inside collectives not moving data";
	f->e.wait_ns = (double)g->comm_wait_ns;
	f->e.comm_ns = (double)g->comm_transfer_ns;
	return FIRES;
}

static void msg_comm_wait(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], w[METRIC_FMT_MAX], x[METRIC_FMT_MAX];
	const char *coll = vendor_words(f->e.vendor)->collectives;

	snprintf(t->m, sizeof(t->m),
		 "%s wait%s %s inside %s%scollectives for %s peers (%s of %s communication "
		 "time); only %s of it moves data.",
		 t->where, t->plural ? "" : "s", FMT(w, f->e.wait_ns, UNIT_NS), coll ? coll : "", coll ? " " : "",
		 t->plural ? "their" : "its", FMT(v, f->value, UNIT_RATIO),
		 t->plural ? "their" : "its", FMT(x, f->e.comm_ns, UNIT_NS));
	snprintf(t->d, sizeof(t->d),
		 "The waiting is for the other ranks of each collective to arrive, not the "
		 "interconnect. Analyse every rank's trace together (vanalyze DIR) to name the "
		 "rank the others wait for, then look at that rank's host: synchronising calls, "
		 "CPU-bound steps, data loading, and its share of the work.");
}

/* How a metric of the straggler table reads in a sentence. */
static const char *metric_words(const char *m)
{
	if (strcmp(m, MK_STEPS_MEDIAN_NS) == 0)
		return "median step";
	if (strcmp(m, "span_ns") == 0)
		return "trace span";
	if (strcmp(m, MK_GPU_COMM_NS) == 0)
		return "communication time";
	if (strcmp(m, MK_COMM_WAIT_IMPOSED_NS) == 0)
		return "wait imposed on the others";
	if (strcmp(m, MK_GPU_COMM_WAIT_NS) == 0)
		return "wait inside collectives";
	return "figure (see the evidence)";	/* no raw key in prose */
}

/*
 * straggler: no evaluator, its findings are crossrank's stragglers (value:
 * the rank's, threshold: the median over ranks).
 */
static void msg_straggler(struct text *t, const struct finding *f)
{
	enum metric_unit u = metric_unit_of(f->metric);
	char x[METRIC_FMT_MAX], v[METRIC_FMT_MAX], med[METRIC_FMT_MAX], name[124];
	const char *split = f->wl == WL_DIFFUSION ? "the sequence or blocks" : "the work";

	FMT(v, f->value, u);
	if (f->e.delays && f->e.waiters) {
		int one = strncmp(f->e.waiters, "ranks", 5) != 0;	/* "rank 0", "ranks 0-2" */

		snprintf(t->m, sizeof(t->m),
			 "%s hold%s the others back: %s wait%s %s of %s communication time for %s.",
			 t->where, t->plural ? "" : "s", f->e.waiters, one ? "s" : "",
			 FMT(x, f->e.wait_share, UNIT_RATIO), one ? "its" : "their",
			 t->plural ? "them" : "it");
		snprintf(t->d, sizeof(t->d),
			 "%s reach%s %s of %s collectives last; the other ranks wait %s for it in "
			 "all, most at %s. Their long steps%s%s%s are that waiting. "
			 "Check the slow rank for thermal or power throttling, a slow or busy host, "
			 "data loading, and an uneven split of %s across ranks.",
			 t->where, t->plural ? "" : "es", FMT(med, f->e.last_share, UNIT_RATIO),
			 t->plural ? "their" : "its", v, plain(name, sizeof(name), f->e.delays),
			 vendor_words(f->e.vendor)->device ? " and busy-looking " : "",
			 vendor_words(f->e.vendor)->device ? dev(f) : "",
			 vendor_words(f->e.vendor)->device ? "s" : "", split);
		return;
	}
	FMT(med, f->threshold, u);
	if (f->e.excess >= 0)
		snprintf(t->m, sizeof(t->m),
			 "%s: its %s is %s longer than the median over ranks, which holds the "
			 "others back at every collective.",
			 t->where, metric_words(f->metric), FMT(x, f->e.excess, UNIT_RATIO));
	else
		snprintf(t->m, sizeof(t->m),
			 "%s spends %s less time in communication than the median: the others "
			 "wait for it inside collectives.",
			 t->where, FMT(x, -f->e.excess, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s against a median of %s. Check that rank for thermal or power throttling, a "
		 "slow or busy host, data loading, and an uneven split of %s across ranks.",
		 v, med, split);
}

/* A phase of r named like one of the needles whose share is above t. */
static int eval_phase(const struct report_rank *r, double t, struct arena *a, struct finding *f,
		      const char *const *needles, size_t nr_needles)
{
	const struct report_phase *p;

	if (!r->has_phases || f->wl != WL_DIFFUSION)
		return NO_INPUTS;
	p = phase_match(r, needles, nr_needles);
	if (!p || !(p->share > t))
		return QUIET;
	if (!(f->metric = arena_fmt(a, "phase:%s.share", p->path ? p->path : p->name)))
		return -1;
	f->value = p->share;
	f->threshold = t;
	f->impact_ns = (double)p->d.total_ns;
	f->basis = "the phase's time";
	f->e.phase = p->name;
	f->e.phase_ns = (double)p->d.total_ns;
	f->e.phase_calls = (double)p->d.count;
	return FIRES;
}

/* vae-decode-dominant: in a diffusion pipeline, a *vae* or *decode* phase above t[0] of the span. */
static int eval_vae(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f)
{
	return eval_phase(r, t[0], a, f, vae_needles, sizeof(vae_needles) / sizeof(*vae_needles));
}

static void msg_vae(struct text *t, const struct finding *f)
{
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: the VAE phase '%s' takes %s of the trace.", t->where,
		 plain(name, sizeof(name), f->e.phase), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s in the phase. Decode in spatial tiles and temporal chunks, run the decode on "
		 "a separate stream or overlap it with the next generation, or use a lighter "
		 "(distilled or tiny) decoder.",
		 FMT(a, f->e.phase_ns, UNIT_NS));
}

/* text-encoding-dominant: in a diffusion pipeline, a text-encoding phase above t[0]. */
static int eval_text(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	return eval_phase(r, t[0], a, f, text_needles,
			  sizeof(text_needles) / sizeof(*text_needles));
}

static void msg_text(struct text *t, const struct finding *f)
{
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], c[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: text encoding (phase '%s') takes %s of the trace.",
		 t->where, plain(name, sizeof(name), f->e.phase), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s in %s calls. Cache prompt embeddings and run the text encoder once per "
		 "prompt, not per block or step; offload it to another device or quantize it "
		 "(FP8/INT8).",
		 FMT(a, f->e.phase_ns, UNIT_NS), FMT(c, f->e.phase_calls, UNIT_COUNT));
}

/* attention-dominant: attention kernels above t[0] of kernel time. */
static int eval_attention(const struct report_rank *r, const double *t, struct arena *a,
			  struct finding *f)
{
	double attn = 0, share;

	(void)a;
	if (!r->analysed || r->gpu.kernel_time_ns <= 0)
		return NO_INPUTS;
	for (size_t i = 0; i < r->nr_kernels; i++)
		if (r->kernels[i].category && strcmp(r->kernels[i].category, "attention") == 0)
			attn += (double)r->kernels[i].d.total_ns;
	share = attn / (double)r->gpu.kernel_time_ns;
	if (!(share > t[0]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = attn;
	f->basis = "attention kernel time (an upper bound)";
	f->e.kernel_ns = attn;
	return FIRES;
}

static void msg_attention(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: attention kernels take %s of kernel time.", t->where,
		 FMT(v, f->value, UNIT_RATIO));
	if (f->wl == WL_DIFFUSION)
		snprintf(t->d, sizeof(t->d),
			 "%s of attention. Long video token sequences make attention quadratic: "
			 "use sparse or sliding-window attention, FP8 attention (e.g. "
			 "SageAttention), or FlashAttention-3 on Hopper GPUs where the run has them.",
			 FMT(a, f->e.kernel_ns, UNIT_NS));
	else
		snprintf(t->d, sizeof(t->d),
			 "%s of attention. Use the fused attention kernels of the device "
			 "(FlashAttention, SDPA's flash or memory-efficient backend), lower "
			 "precision (FP8) where accuracy allows, or shorter sequences.",
			 FMT(a, f->e.kernel_ns, UNIT_NS));
}

/*
 * many-denoising-steps: in a diffusion pipeline, more than t[0] steps, the
 * warm-up one included.  At stake: the steps beyond t[0] at the median step.
 */
static int eval_steps(const struct report_rank *r, const double *t, struct arena *a,
		      struct finding *f)
{
	double n;

	(void)a;
	if (!r->has_phases || f->wl != WL_DIFFUSION)
		return NO_INPUTS;
	n = (double)r->steps.nr_durations - (r->steps.cut_off == 1);
	if (!(n > t[0]))
		return QUIET;
	f->value = n;
	f->threshold = t[0];
	f->impact_ns = (n - t[0]) * r->steps.d.median_ns;
	f->basis = "the steps beyond the threshold at the median step";
	f->e.step_median_ns = r->steps.d.median_ns;
	f->e.pattern = r->steps.pattern;
	return FIRES;
}

static void msg_steps(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], pat[64], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: %s denoising steps (median %s).", t->where,
		 FMT(v, f->value, UNIT_COUNT), FMT(a, f->e.step_median_ns, UNIT_NS));
	snprintf(t->d, sizeof(t->d),
		 "Steps are spans matching %s. Cut the step count with a step-distilled model or "
		 "a fewer-step sampler, or reuse DiT features across neighbouring steps (TeaCache "
		 "or FasterCache style step caching).",
		 plain(pat, sizeof(pat), f->e.pattern));
}

/* memcpy-heavy: memcpy/memset above t[0] of GPU busy time. */
static int eval_memcpy(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	double share;

	(void)a;
	if (!r->analysed || r->gpu.busy_ns <= 0)
		return NO_INPUTS;
	share = (double)r->gpu.memory_ns / (double)r->gpu.busy_ns;
	if (!(share > t[0]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = (double)r->gpu.memory_ns;
	f->basis = "memcpy/memset time";
	f->e.memory_ns = (double)r->gpu.memory_ns;
	return FIRES;
}

static void msg_memcpy(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: memory copies take %s of %s busy time.", t->where,
		 FMT(v, f->value, UNIT_RATIO), dev(f));
	snprintf(t->d, sizeof(t->d),
		 "%s of copies. Use pinned host memory and non_blocking=True copies, keep %s on "
		 "the device, and avoid .cpu() and .item() inside %s.",
		 FMT(a, f->e.memory_ns, UNIT_NS),
		 f->wl == WL_DIFFUSION ? "latents and embeddings" : "tensors", loop_words(f->wl));
}

/*
 * host-sync: synchronising CPU calls above t[0] of the span.  At stake: the
 * GPU's idle time, at most the calls' time: a sync costs wall time only
 * where the GPU then runs dry.
 */
static int eval_sync(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	const char *top;
	double ns, share, idle = (double)r->gpu.idle_ns;

	(void)a;
	if (!r->analysed || r->span_ns <= 0 || r->idle.window)
		return NO_INPUTS;	/* with the attribution: idle-sync */
	ns = sync_time(r, &top);
	share = ns / (double)r->span_ns;
	if (!(share > t[0]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = r->gpu.active_span_ns > 0 ? (idle < ns ? idle : ns) : ns;
	f->basis = "GPU idle time, at most the synchronising calls' time";
	f->e.sync_ns = ns;
	f->e.sync_top = top;
	f->e.idle_ns = idle;
	return FIRES;
}

static void msg_sync(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], top[64];

	snprintf(t->m, sizeof(t->m), "%s: synchronising calls hold the CPU for %s of the trace.",
		 t->where, FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s, mostly %s. Remove .item(), .cpu() and printing of tensors from %s, and wait "
		 "on CUDA events instead of synchronising the whole device.",
		 FMT(a, f->e.sync_ns, UNIT_NS), plain(top, sizeof(top), f->e.sync_top),
		 loop_words(f->wl));
}

/* memory-near-capacity: the fullest GPU's peak reserved above t[0] of its capacity. */
static int eval_memory(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	const struct report_memory *best = NULL;
	double bs = 0;

	if (!r->analysed)
		return NO_INPUTS;
	for (size_t i = 0; i < r->nr_memory; i++) {
		const struct report_memory *m = &r->memory[i];
		double s;

		if (m->device < 0 || m->capacity <= 0 || m->peak_reserved < 0)
			continue;
		s = (double)m->peak_reserved / (double)m->capacity;
		if (!best || s > bs) {
			best = m;
			bs = s;
		}
	}
	if (!best)
		return NO_INPUTS;
	if (!(bs > t[0]))
		return QUIET;
	if (!(f->metric = arena_fmt(a, "memory:%" PRId64 ".reserved_share", best->device)))
		return -1;
	f->value = bs;
	f->threshold = t[0];
	f->e.capacity = (double)best->capacity;
	f->e.device = best->device;
	return FIRES;
}

static void msg_memory(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m),
		 "%s: peak reserved memory on device %" PRId64 " is %s of its %s.", t->where,
		 f->e.device, FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.capacity, UNIT_BYTES));
	snprintf(t->d, sizeof(t->d),
		 "No time is at stake yet, but the next size up will not fit. %s, and set "
		 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.",
		 f->wl == WL_DIFFUSION
			 ? "Reduce batch or resolution per device, enable VAE tiling, offload "
			   "activations or the text encoder"
		 : f->wl == WL_TRAINING
			 ? "Reduce the batch per device, use activation checkpointing, or shard "
			   "optimizer state (FSDP/ZeRO)"
		 : f->wl == WL_LLM
			 ? "Lower the KV-cache fraction or the batch size, or quantize the "
			   "weights or the KV cache"
			 : "Reduce the batch per device or offload what is not in use");
}

/*
 * slow-first-step: the first step over t[0] times the others' median;
 * medium over twice.  A last step cut off by the end of the trace is none
 * of "the others".  At stake: the first step less that median.
 */
static int eval_first_step(const struct report_rank *r, const double *t, struct arena *a,
			   struct finding *f)
{
	size_t n;
	int64_t *v;
	double med, ratio;

	(void)a;
	if (!r->has_phases || !r->steps.durations_ns)
		return NO_INPUTS;
	n = r->steps.nr_durations - (r->steps.cut_off == 1 && r->steps.nr_durations);
	if (n < 2)
		return NO_INPUTS;
	n--;
	if (n > SIZE_MAX / sizeof(*v) || !(v = malloc(n * sizeof(*v))))
		return -1;
	memcpy(v, r->steps.durations_ns + 1, n * sizeof(*v));
	med = median_i64(v, n);
	free(v);
	if (!(med > 0))
		return NO_INPUTS;
	ratio = (double)r->steps.durations_ns[0] / med;
	if (!(ratio > t[0]))
		return QUIET;
	f->sev = ratio > 2 * t[0] ? SEV_MEDIUM : SEV_LOW;
	f->value = ratio;
	f->threshold = t[0];
	f->impact_ns = (double)r->steps.durations_ns[0] - med;
	f->basis = "the first step less the median of the others";
	f->e.first_step_ns = (double)r->steps.durations_ns[0];
	f->e.others_median_ns = med;
	f->e.cut_off = r->steps.cut_off == 1;
	return FIRES;
}

static void msg_first_step(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: the first step takes %s the median of the others.",
		 t->where, FMT(v, f->value, UNIT_FACTOR));
	snprintf(t->d, sizeof(t->d),
		 "%s against %s%s. Warm up before measuring (torch.compile compilation, "
		 "cudnn.benchmark autotuning, allocator growth) or leave the first step out of "
		 "timings.",
		 FMT(a, f->e.first_step_ns, UNIT_NS), FMT(b, f->e.others_median_ns, UNIT_NS),
		 f->e.cut_off ? " (the last step, cut off by the end of the trace, left out)" : "");
}

/* below-target-fps: with --target-fps, a real-time factor below t[0]. */
static int eval_fps(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f)
{
	const struct report_throughput *tp = &r->throughput;
	const struct report_phase *p;
	double cat_ns;

	(void)a;
	if (!r->has_throughput || !(tp->target_fps > 0) || !isfinite(tp->realtime_factor))
		return NO_INPUTS;
	if (!(tp->realtime_factor < t[0]))
		return QUIET;
	p = top_phase(r);
	f->value = tp->realtime_factor;
	f->threshold = t[0];
	f->impact_ns = (double)tp->wall_ns * (1 - tp->realtime_factor / t[0]);
	f->basis = "wall time beyond the target";
	f->e.fps = tp->fps;
	f->e.target_fps = tp->target_fps;
	f->e.phase = p ? p->name : NULL;
	f->e.phase_share = p ? p->share : 0;
	f->e.category = r->analysed ? top_category(r, &cat_ns) : NULL;
	f->e.category_share = f->e.category && r->gpu.kernel_time_ns > 0
				      ? cat_ns / (double)r->gpu.kernel_time_ns
				      : 0;
	return FIRES;
}

static void msg_fps(struct text *t, const struct finding *f)
{
	char what[256], ph[64], cat[64], fps[METRIC_FMT_MAX], tgt[METRIC_FMT_MAX];
	char rt[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];
	const struct evidence *e = &f->e;

	if (e->phase && e->category)
		snprintf(what, sizeof(what),
			 "Most time goes to phase '%s' (%s of the trace) and to %s kernels (%s of "
			 "kernel time): speed those up first",
			 plain(ph, sizeof(ph), e->phase), FMT(a, e->phase_share, UNIT_RATIO),
			 plain(cat, sizeof(cat), e->category),
			 FMT(b, e->category_share, UNIT_RATIO));
	else if (e->phase)
		snprintf(what, sizeof(what),
			 "Most time goes to phase '%s' (%s of the trace): speed it up first",
			 plain(ph, sizeof(ph), e->phase), FMT(a, e->phase_share, UNIT_RATIO));
	else if (e->category)
		snprintf(what, sizeof(what),
			 "Most kernel time goes to %s kernels (%s): speed those up first",
			 plain(cat, sizeof(cat), e->category),
			 FMT(b, e->category_share, UNIT_RATIO));
	else
		snprintf(what, sizeof(what),
			 "Annotate the pipeline's phases to see which part to speed up");
	snprintf(t->m, sizeof(t->m),
		 "%s: generation runs at %s fps against a target of %s fps (%s real time).",
		 t->where, FMT(fps, e->fps, UNIT_NUMBER), FMT(tgt, e->target_fps, UNIT_NUMBER),
		 FMT(rt, f->value, UNIT_FACTOR));
	snprintf(t->d, sizeof(t->d), "%s, or spread each video over more devices (sequence "
		 "parallelism).", what);
}

/*
 * below-roof: the modelled operators of one family (GEMM, attention,
 * convolution; ranks[].perf.families, from ranks[].ops_perf) hold more than t[0] of kernel time and
 * reach, weighted by their time, less than t[1] of their roofline
 * (doc/perf-model.md).  At stake: the time above what the roof allows,
 * the family's time times (1 - the share reached).  Of several families,
 * the one with the most at stake.
 */
static int eval_roof(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	double kernel = (double)r->gpu.kernel_time_ns, stake = 0;
	int any = 0;

	(void)a;
	if (!r->analysed || kernel <= 0)
		return NO_INPUTS;
	/* perf.families: the rows' figures, kept where a compact report has no rows */
	for (size_t k = 0; k < REPORT_PERF_FAMILIES; k++) {
		const struct report_perf_family *fam = &r->perf.families[k];
		double ns = (double)fam->time_ns, att = fam->roof_share;

		if (fam->time_ns <= 0 || !fam->top)
			continue;
		any = 1;
		if (!(ns / kernel > t[0] && att < t[1] && ns * (1 - att) > stake))
			continue;
		stake = ns * (1 - att);
		f->value = att;
		f->threshold = t[1];
		f->impact_ns = stake;
		f->basis = "time above the roofline";
		f->e.category = report_perf_family_name(k);
		f->e.category_share = ns / kernel;
		f->e.kernel_ns = ns;
		f->e.phase = fam->top;	/* the family's operator with the most time */
		f->e.phase_share = fam->top_roof_share;
	}
	return stake > 0 ? FIRES : any ? QUIET : NO_INPUTS;
}

static void msg_roof(struct text *t, const struct finding *f)
{
	char v[METRIC_FMT_MAX], s[METRIC_FMT_MAX], n[METRIC_FMT_MAX], r[METRIC_FMT_MAX];
	char name[128];
	const char *fam = f->e.category, *fix;

	if (!strcmp(fam, "attention"))
		fix = "a fused attention kernel (SDPA's flash or cuDNN backend, not matmul, softmax "
		      "and matmul apart), bf16/fp16, a head dimension that is a multiple of 64 and "
		      "longer sequences per call";
	else if (!strcmp(fam, "conv"))
		fix = "channels_last layouts, torch.backends.cudnn.benchmark = True, bf16/fp16, "
		      "channel counts that are multiples of 8 and a larger batch";
	else
		fix = "bf16/fp16 (or fp8) instead of fp32, contiguous operands, dimensions that are "
		      "multiples of 8 (16 for fp8) and larger or batched matrices (a small M leaves "
		      "the device memory-bound)";
	snprintf(t->m, sizeof(t->m),
		 "%s: %s operators take %s of kernel time but reach only %s of their roofline.",
		 t->where, !strcmp(fam, "gemm") ? "GEMM" : !strcmp(fam, "conv") ? "convolution"
								 : "attention",
		 FMT(s, f->e.category_share, UNIT_RATIO), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s of them; the one with the most time, %s, reaches %s of its roof. What "
		 "usually fixes it: %s.",
		 FMT(n, f->e.kernel_ns, UNIT_NS), plain(name, sizeof(name), f->e.phase),
		 FMT(r, f->e.phase_share, UNIT_RATIO), fix);
}

/* incomplete-ranks: no evaluator; the ranks whose trace was cut off. */
static void msg_incomplete(struct text *t, const struct finding *f)
{
	(void)f;
	snprintf(t->m, sizeof(t->m), "%s: the trace is incomplete (cut off while reading).",
		 t->where);
	snprintf(t->d, sizeof(t->d),
		 "Its figures cover only what was read, so every other finding leaves it out and "
		 "it is never named a straggler. Copy the trace again, or let the profiler "
		 "finish writing it.");
}

/* One rule. */
struct rule {
	const char *id;
	const char *metric;		/* the evidence (a family's: the evaluator names it) */
	enum report_severity sev;	/* of a firing, unless the evaluator says otherwise */
	int below;			/* fires below its threshold: the lowest is the worst */
	struct suggest_threshold thr[SUGGEST_RULE_THRESHOLDS];
	/*
	 * Rank r against the thresholds t[]: NO_INPUTS when r lacks what the
	 * rule reads, QUIET, or FIRES with *f filled (value, threshold,
	 * evidence; metric and sev where they differ from the entry's); -1
	 * when out of memory.  NULL: the rule's findings come from elsewhere.
	 */
	int (*eval)(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f);
	/* The short message and the details of f into t (t->where names the ranks). */
	void (*message)(struct text *t, const struct finding *f);
};

/*
 * The rules, in the order findings of equal impact and severity are given.
 * The threshold texts are doc/findings.md's "fires when" column.
 */
static const struct rule rules[] = {
	{ "incomplete-ranks", NULL, SEV_HIGH, 0, { { NULL, 0, NULL, NULL } }, NULL,
	  msg_incomplete },
	{ "low-gpu-utilization", MK_GPU_UTILIZATION, SEV_MEDIUM, 1,
	  { { "utilization", 0.6, "fraction",
	      "GPU busy / active span is below this (medium); where collectives matched, the "
	      "effective utilization (busy less waiting), so a rank spinning in a collective for "
	      "a late rank does not pass for a busy one" },
	    { "utilization_high", 0.4, "fraction", "... below this (high)" } },
	  eval_low_util, msg_low_util },
	{ "launch-bound", MK_GPU_KERNEL_MEDIAN_NS, SEV_HIGH, 1,
	  { { "kernel_us", 20, "us",
	      "the median kernel (over every kernel, `gpu.kernel_median_ns`) is shorter than "
	      "this many us ..." },
	    { "idle_share", 0.2, "fraction",
	      "... and GPU idle time (the gaps between kernels) is above this share of its "
	      "active span" } },
	  eval_launch, msg_launch },
	{ "profile-window", "idle.one_time_share", SEV_HIGH, 0,
	  { { "one_time_share", PROFILE_WINDOW_SHARE, "fraction",
	      "device idle time in start-up, graph capture and compilation (doc/idle.md) is "
	      "above this share of the span and above any other cause's: the trace is no steady "
	      "state, and the idle-* rules stay quiet (they use the default)" } },
	  eval_window, msg_window },
#define IDLE_RULE(u, l, id)                                                                   \
	{ id, "idle.by_cause." #l, SEV_MEDIUM, 0,                                              \
	  { { "idle_" #l "_share", 0.05, "fraction",                                          \
	      "the device idles for this cause (doc/idle.md) more than this share of the "   \
	      "analysed window (the steady steps, else the trace) ..." },                     \
	    { "idle_" #l "_high", 0.25, "fraction", "... above this share (high)" } },        \
	  eval_idle_##l, msg_idle },
	IDLE_CAUSES_FOUND(IDLE_RULE)
#undef IDLE_RULE
	{ "comm-heavy-low-overlap", MK_GPU_COMM_SHARE, SEV_HIGH, 0,
	  { { "comm_share", 0.2, "fraction",
	      "communication is above this share of GPU busy time (where collectives matched, "
	      "the transfer over busy time less waiting: waiting is the stragglers' doing) ..." },
	    { "comm_overlap", 0.5, "fraction",
	      "... and less than this share of it overlaps compute" } },
	  eval_comm, msg_comm },
	{ "comm-wait", "gpu.comm_wait_share", SEV_HIGH, 0,
	  { { "comm_wait_share", 0.5, "fraction",
	      "where the device records its collectives' own tasks (HCCL), the time inside "
	      "collectives not moving data is above this share of communication time ..." },
	    { "comm_wait_span", 0.05, "fraction",
	      "... and above this share of the span, on a rank matched with no other" } },
	  eval_comm_wait, msg_comm_wait },
	{ "straggler", NULL, SEV_HIGH, 0, { { NULL, 0, NULL, NULL } }, NULL, msg_straggler },
	{ "vae-decode-dominant", "phase:*.share", SEV_MEDIUM, 0,
	  { { "vae_share", 0.3, "fraction",
	      "in a diffusion pipeline, a phase named `*vae*` or `*decode*` takes more than "
	      "this share of the span" } },
	  eval_vae, msg_vae },
	{ "text-encoding-dominant", "phase:*.share", SEV_MEDIUM, 0,
	  { { "text_share", 0.15, "fraction",
	      "in a diffusion pipeline, a phase named `*text_encod*`, `*encode_prompt*` or "
	      "`*pre_denoising*` takes more than this share" } },
	  eval_text, msg_text },
	{ "attention-dominant", MK_KERNELS_ATTENTION_SHARE, SEV_MEDIUM, 0,
	  { { "attention_share", 0.5, "fraction",
	      "attention kernels take more than this share of kernel time" } },
	  eval_attention, msg_attention },
	{ "many-denoising-steps", MK_STEPS_COUNT, SEV_MEDIUM, 0,
	  { { "steps", 30, "steps",
	      "in a diffusion pipeline, there are more denoising steps than this" } },
	  eval_steps, msg_steps },
	{ "memcpy-heavy", MK_GPU_MEMORY_SHARE, SEV_MEDIUM, 0,
	  { { "memcpy_share", 0.1, "fraction",
	      "memcpy/memset time is above this share of GPU busy time" } },
	  eval_memcpy, msg_memcpy },
	{ "host-sync", MK_CPU_OPS_SYNC_SHARE, SEV_MEDIUM, 0,
	  { { "sync_share", 0.05, "fraction",
	      "synchronising calls (`aten::item`, `aten::_local_scalar_dense`, or the "
	      "runtime calls of `gpu.host_sync_ns`, whichever is larger) hold the CPU for "
	      "more than this share of the span" } },
	  eval_sync, msg_sync },
	{ "memory-near-capacity", "memory:*.reserved_share", SEV_MEDIUM, 0,
	  { { "memory_share", 0.9, "fraction",
	      "peak reserved memory is above this share of the device's capacity" } },
	  eval_memory, msg_memory },
	{ "slow-first-step", MK_STEPS_FIRST_RATIO, SEV_LOW, 0,
	  { { "first_step_ratio", 1.5, "ratio",
	      "the first step is longer than this times the median of the others (medium "
	      "above twice this; a last step cut off by the end of the trace is left out)" } },
	  eval_first_step, msg_first_step },
	{ "below-roof", MK_PERF_ROOF_SHARE, SEV_MEDIUM, 1,
	  { { "roof_family_share", 0.2, "fraction",
	      "with shapes (doc/perf-model.md), GEMM, attention or convolution operators take "
	      "more than this share of kernel time ..." },
	    { "roof_share", 0.3, "fraction",
	      "... and reach, weighted by time, less than this share of their roofline" } },
	  eval_roof, msg_roof },
	{ "below-target-fps", MK_THROUGHPUT_REALTIME_FACTOR, SEV_HIGH, 1,
	  { { "realtime_factor", 1, "ratio",
	      "with `--target-fps`, the real-time factor is below this" } },
	  eval_fps, msg_fps },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))

_Static_assert(NR_RULES <= SUGGEST_MAX_RULES, "raise SUGGEST_MAX_RULES");

const size_t suggest_nr_rules = NR_RULES;

/* The index of the rule called id (one without an evaluator: its hits come from elsewhere). */
static size_t rule_index(const char *id)
{
	size_t i = 0;

	while (i < NR_RULES && strcmp(rules[i].id, id))
		i++;
	return i;
}

const char *suggest_rule_id(size_t i)
{
	return i < NR_RULES ? rules[i].id : NULL;
}

void suggest_opts_init(struct suggest_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < NR_RULES; i++)
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rules[i].thr[k].name; k++)
			o->t[i][k] = rules[i].thr[k].def;
}

size_t suggest_nr_thresholds(void)
{
	size_t n = 0;

	for (size_t i = 0; i < NR_RULES; i++)
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rules[i].thr[k].name; k++)
			n++;
	return n;
}

/* The rule and position of the i-th threshold, or of the one called name; -1: none. */
static int locate(size_t i, const char *name, size_t *rule, size_t *pos)
{
	for (size_t r = 0; r < NR_RULES; r++) {
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rules[r].thr[k].name; k++) {
			if (name ? strcmp(rules[r].thr[k].name, name) == 0 : i == 0) {
				*rule = r;
				*pos = k;
				return 0;
			}
			i--;
		}
	}
	return -1;
}

const struct suggest_threshold *suggest_threshold_at(size_t i, const char **rule)
{
	size_t r, k;

	if (locate(i, NULL, &r, &k))
		return NULL;
	if (rule)
		*rule = rules[r].id;
	return &rules[r].thr[k];
}

int suggest_set(struct suggest_opts *o, const char *name, double value)
{
	size_t r, k;

	if (!isfinite(value) || locate(0, name, &r, &k))
		return -1;
	o->t[r][k] = value;
	return 0;
}

int suggest_get(const struct suggest_opts *o, const char *name, double *value)
{
	size_t r, k;

	if (locate(0, name, &r, &k))
		return -1;
	*value = o->t[r][k];
	return 0;
}

int suggest_parse(struct suggest_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[64], *end;
	double value;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name) || !eq[1])
		return -1;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	value = strtod(eq + 1, &end);
	if (*end)
		return -1;
	return suggest_set(o, name, value);
}

/* One firing of a rule on one rank, before its message is written. */
struct hit {
	size_t rule;
	int64_t rank;
	size_t seq;			/* index in rep->ranks (stragglers after them) */
	struct finding f;
};

struct hits {
	struct hit *v;
	size_t n, cap;
};

/* Room for one more hit at the end of h, zeroed, or NULL when out of memory. */
static struct hit *hit_add(struct hits *h)
{
	if (ALLOC_GROW(h->v, h->n + 1, h->cap))
		return NULL;
	memset(&h->v[h->n], 0, sizeof(h->v[h->n]));
	return &h->v[h->n++];
}

/*
 * Every rule with an evaluator on the complete rank r (index seq): hits go
 * to h.  Where launch-bound fires, low-gpu-utilization on the same rank is
 * the same idle time seen twice, and only the more specific cause stays.
 * -1 when out of memory.
 */
static int eval_rank(struct hits *h, struct arena *a, const struct report_rank *r, size_t seq,
		     const struct suggest_opts *o, enum workload_kind wl)
{
	size_t first = h->n, low = rule_index("low-gpu-utilization");
	size_t launch = rule_index("launch-bound");
	int has_launch = 0;

	for (size_t i = 0; i < NR_RULES; i++) {
		struct finding f;
		struct hit *x;
		int rc;

		if (!rules[i].eval)
			continue;
		memset(&f, 0, sizeof(f));
		f.sev = rules[i].sev;
		f.metric = rules[i].metric;
		f.impact_ns = -1;
		f.wl = wl;
		f.span_ns = (double)r->span_ns;
		/* the words of advice: the rank's vendor; none for a CPU-only rank */
		f.e.vendor = !r->analysed || r->gpu.no_device ? NULL
			     : r->device.vendor	       ? r->device.vendor
							       : "unknown";
		rc = rules[i].eval(r, o->t[i], a, &f);
		if (rc < 0)
			return -1;
		if (rc != FIRES)
			continue;
		if (!(x = hit_add(h)))
			return -1;
		x->rule = i;
		x->rank = r->rank;
		x->seq = seq;
		x->f = f;
		has_launch |= i == launch;
	}
	for (size_t i = first; has_launch && i < h->n; i++) {
		if (h->v[i].rule == low) {
			memmove(&h->v[i], &h->v[i + 1], (h->n - i - 1) * sizeof(*h->v));
			h->n--;
			break;
		}
	}
	return 0;
}

/* The complete rank with rank number rk, or NULL. */
static const struct report_rank *rank_of(const struct report *rep, int64_t rk)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].rank == rk && rep->ranks[i].complete)
			return &rep->ranks[i];
	return NULL;
}

static int is_straggler(const struct report *rep, int64_t rk)
{
	for (size_t i = 0; i < rep->nr_stragglers; i++)
		if (rep->stragglers[i].rank == rk)
			return 1;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The ranks that wait for the stragglers (complete, not stragglers,
 * waiting inside collectives) as words in rep's arena; in *share the part
 * of their communication time spent waiting, in *worst the rank that waits
 * longest and in *wait its wait.  NULL when none waits (or out of memory).
 */
static const char *waiters(struct report *rep, double *share, int64_t *worst, double *wait)
{
	int64_t *v = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*v));
	double w = 0, c = 0;
	size_t n = 0;
	char text[160];
	const char *out = NULL;

	*wait = -1;
	if (!v)
		return NULL;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *r = &rep->ranks[i];

		if (!r->complete || !r->analysed || is_straggler(rep, r->rank) ||
		    !has_gpu_wait(&r->gpu) || r->gpu.comm_wait_ns <= 0)
			continue;
		v[n++] = r->rank;
		w += (double)r->gpu.comm_wait_ns;
		c += (double)r->gpu.comm_ns;
		if ((double)r->gpu.comm_wait_ns > *wait) {
			*wait = (double)r->gpu.comm_wait_ns;
			*worst = r->rank;
		}
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_i64);
		rankset_text(text, sizeof(text), v, n, 0);
		*share = c > 0 ? w / c : 0;
		out = arena_strndup(&rep->arena, text, strlen(text));
	}
	free(v);
	return out;
}

/* The straggler findings of crossrank as hits; -1 when out of memory. */
static int straggler_hits(struct hits *h, struct report *rep, enum workload_kind wl)
{
	size_t strag = rule_index("straggler");
	double share = 0, wait = -1;
	int64_t worst = -1;
	const char *who = NULL;

	for (size_t i = 0; i < rep->nr_stragglers; i++) {
		const struct report_straggler *st = &rep->stragglers[i];
		const struct report_rank *r = rank_of(rep, st->rank);
		struct hit *x;

		if (!r)
			continue;	/* an incomplete rank is never named */
		if (st->by_wait && !who)
			who = waiters(rep, &share, &worst, &wait);
		if (!(x = hit_add(h)))
			return -1;
		x->rule = strag;
		x->rank = st->rank;
		x->seq = rep->nr_ranks + i;
		x->f.sev = rules[strag].sev;
		x->f.wl = wl;
		x->f.metric = st->metric ? st->metric : "?";
		x->f.value = st->value;
		x->f.threshold = st->median;
		x->f.impact_ns = -1;
		x->f.span_ns = (double)r->span_ns;
		x->f.e.excess = st->excess;
		x->f.e.rank = st->rank;
		x->f.e.last_share = st->last_share;
		x->f.e.delays = st->by_wait ? st->delays_name : NULL;
		if (st->by_wait && who && wait >= 0) {
			const struct report_rank *wr = rank_of(rep, worst);

			x->f.e.waiters = who;
			x->f.e.wait_share = share;
			x->f.impact_ns = wait;
			x->f.span_ns = wr ? (double)wr->span_ns : x->f.span_ns;
			x->f.basis = "the longest wait of another rank inside collectives";
		} else if (metric_unit_of(x->f.metric) == UNIT_NS && isfinite(st->value) &&
			   isfinite(st->median)) {
			x->f.impact_ns = fabs(st->value - st->median);
			x->f.basis = "the rank's value less the median over ranks";
		}
	}
	return 0;
}

/* 1 when a is the worse evidence of one rule: more time at stake, else further past. */
static int worse(const struct hit *a, const struct hit *b)
{
	if (a->f.impact_ns != b->f.impact_ns)
		return a->f.impact_ns > b->f.impact_ns;
	if (a->f.value != b->f.value)
		return rules[a->rule].below ? a->f.value < b->f.value : a->f.value > b->f.value;
	return a->rank < b->rank;
}

static int cmp_rule_rank(const void *pa, const void *pb)
{
	const struct hit *a = pa, *b = pb;

	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A rule's group of hits: its worst hit, and where in the sorted hits it lies. */
struct group {
	struct hit worst;
	enum report_severity sev;
	size_t first, end;
};

/* Findings by impact (unknown last), then severity, then rule. */
static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	double x = a->worst.f.impact_ns, y = b->worst.f.impact_ns;

	if (x != y)
		return x > y ? -1 : 1;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	return a->worst.rule < b->worst.rule ? -1 : a->worst.rule > b->worst.rule;
}

/*
 * Severity follows the time at stake: at most medium under 10 % of the
 * wall time, low under 1 %, and never above a finding with more at stake
 * (g is sorted by it).  Findings without an estimate keep their rule's.
 */
static void follow_stake(struct group *g, size_t ng)
{
	enum report_severity cap = SEV_HIGH;

	for (size_t i = 0; i < ng; i++) {
		const struct finding *f = &g[i].worst.f;
		double share;

		if (f->impact_ns < 0 || !(f->span_ns > 0))
			continue;
		share = f->impact_ns / f->span_ns;
		if (share < 0.01 && g[i].sev > SEV_LOW)
			g[i].sev = SEV_LOW;
		else if (share < 0.10 && g[i].sev > SEV_MEDIUM)
			g[i].sev = SEV_MEDIUM;
		if (g[i].sev > cap)
			g[i].sev = cap;
		cap = g[i].sev;
	}
}

/* Write group g of the sorted hits h as finding *sg; -1 when out of memory. */
static int write_finding(struct report *rep, const struct hit *h, const struct group *g,
			 struct report_suggestion *sg)
{
	const struct hit *x = &g->worst;
	size_t n = 0;
	int64_t *ranks = arena_alloc(&rep->arena, (g->end - g->first) * sizeof(*ranks));
	char where[160];
	struct text t;

	if (!ranks)
		return -1;
	for (size_t i = g->first; i < g->end; i++)
		if (!n || ranks[n - 1] != h[i].rank)
			ranks[n++] = h[i].rank;
	rankset_text(where, sizeof(where), ranks, n, rep->nr_ranks);
	memset(&t, 0, sizeof(t));
	t.where = where;
	t.plural = n > 1;
	where[0] = (char)toupper((unsigned char)where[0]);
	rules[x->rule].message(&t, &x->f);
	where[0] = (char)tolower((unsigned char)where[0]);
	sg->id = rules[x->rule].id;
	sg->severity = g->sev;
	sg->rank = n == 1 ? ranks[0] : -1;
	sg->ranks = ranks;
	sg->nr_ranks = n;
	sg->worst_rank = x->rank;
	sg->metric = x->f.metric ? x->f.metric : rules[x->rule].metric;
	sg->value = x->f.value;
	sg->threshold = x->f.threshold;
	sg->impact_ns = x->f.impact_ns >= 0 ? (int64_t)x->f.impact_ns : -1;
	sg->impact_share = sg->impact_ns >= 0 && x->f.span_ns > 0
				   ? x->f.impact_ns / x->f.span_ns : NAN;
	sg->impact_basis = sg->impact_ns >= 0 ? x->f.basis : NULL;
	sg->ranks_text = arena_strndup(&rep->arena, where, strlen(where));
	sg->message = arena_strndup(&rep->arena, t.m, strlen(t.m));
	sg->details = t.d[0] ? arena_strndup(&rep->arena, t.d, strlen(t.d)) : NULL;
	if (!sg->ranks_text || !sg->message || (t.d[0] && !sg->details))
		return -1;
	return 0;
}

int suggest_compute(struct report *rep, const struct suggest_opts *o)
{
	struct suggest_opts defaults;
	struct hits h = { 0 };
	struct group *g = NULL;
	struct report_suggestion *sg;
	size_t ng = 0, incomplete = rule_index("incomplete-ranks");
	enum workload_kind wl;
	char reason[160];
	int rc = -1;

	rep->suggestions = NULL;
	rep->nr_suggestions = 0;
	if (!o) {
		suggest_opts_init(&defaults);
		o = &defaults;
	}
	wl = workload_of(rep, reason, sizeof(reason));
	rep->workload = workload_name(wl);
	if (!(rep->workload_reason = arena_strndup(&rep->arena, reason, strlen(reason))))
		goto out;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *r = &rep->ranks[i];
		struct hit *x;

		if (r->complete) {
			if (eval_rank(&h, &rep->arena, r, i, o, wl))
				goto out;
			continue;
		}
		/* an incomplete rank: this finding alone, and no other rule sees it */
		if (!(x = hit_add(&h)))
			goto out;
		x->rule = incomplete;
		x->rank = r->rank;
		x->seq = i;
		x->f.sev = rules[incomplete].sev;
		x->f.metric = "complete";
		x->f.impact_ns = -1;
		x->f.wl = wl;
	}
	if (straggler_hits(&h, rep, wl))
		goto out;
	if (!h.n) {
		rc = 0;
		goto out;
	}

	/* one group per rule: the worst hit is the evidence, the worst severity the finding's */
	qsort(h.v, h.n, sizeof(*h.v), cmp_rule_rank);
	if (!(g = malloc(h.n * sizeof(*g))))
		goto out;
	for (size_t i = 0; i < h.n;) {
		size_t j = i;
		struct group *x = &g[ng++];

		x->worst = h.v[i];
		x->sev = h.v[i].f.sev;
		x->first = i;
		for (; j < h.n && h.v[j].rule == h.v[i].rule; j++) {
			if (worse(&h.v[j], &x->worst))
				x->worst = h.v[j];
			if (h.v[j].f.sev > x->sev)
				x->sev = h.v[j].f.sev;
		}
		x->end = j;
		i = j;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	follow_stake(g, ng);

	if (!(sg = arena_alloc(&rep->arena, ng * sizeof(*sg))))
		goto out;
	memset(sg, 0, ng * sizeof(*sg));
	for (size_t i = 0; i < ng; i++)
		if (write_finding(rep, h.v, &g[i], &sg[i]))
			goto out;
	rep->suggestions = sg;
	rep->nr_suggestions = ng;
	rc = 0;
out:
	free(g);
	free(h.v);
	return rc;
}
