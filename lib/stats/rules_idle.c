/*
 * rules_idle: the rules of a device that waits (rule.h): low utilization,
 * launches, one-time idle time, the idle attribution's causes
 * (doc/idle.md) and synchronising calls.
 */
#include "rule.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sync_calls.h"
#include "vendor_words.h"

/* v, or 0 for a null (negative) figure. */
static int64_t imax0(int64_t v)
{
	return v > 0 ? v : 0;
}

/*
 * low-gpu-utilization: busy / active span below t[0]; below t[1] it is
 * high.  Effective utilization where collectives were matched: a kernel
 * that spins waiting for a late rank is busy but does no work, and counting
 * it would make the waiting ranks look best and the late one worst.  At
 * stake: the idle time (the waiting is the straggler finding's).  Where
 * launch-bound fires on the rank, it yields: the same idle time seen twice,
 * and launch-bound the more specific cause.
 */
static int eval_low_util(const struct report_rank *r, const double *t, struct arena *a,
			 struct finding *f)
{
	struct low_util_ev *e = &f->e.low_util;
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
	f->basis = "device idle time in its active span";
	e->idle_ns = (double)g->idle_ns;
	e->active_span_ns = (double)g->active_span_ns;
	e->wait_ns = rule_has_gpu_wait(g) ? (double)g->comm_wait_ns : 0;
	e->graphs = rule_graphs(r);
	return FIRES;
}

static void msg_low_util(struct text *t, const struct finding *f)
{
	const struct low_util_ev *e = &f->e.low_util;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], w[METRIC_FMT_MAX];
	const char *gaps;

	if (e->wait_ns > 0)
		snprintf(t->m, sizeof(t->m),
			 "%s: the %s does useful work only %s of its active time.", t->where,
			 rule_device(f), FMT(v, f->value, UNIT_RATIO));
	else
		snprintf(t->m, sizeof(t->m), "%s: the %s is busy only %s of its active time.",
			 t->where, rule_device(f), FMT(v, f->value, UNIT_RATIO));
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
		 FMT(a, e->idle_ns, UNIT_NS), e->wait_ns > 0 ? " and " : "",
		 e->wait_ns > 0 ? FMT(w, e->wait_ns, UNIT_NS) : "",
		 e->wait_ns > 0 ? " waiting inside collectives (the straggler's doing)" : "",
		 FMT(b, e->active_span_ns, UNIT_NS), gaps,
		 rule_graphs_in_use(&e->graphs)
			 ? "most kernels already run from graph replays, so shorten the host "
			   "work between replays"
			 : rule_graph_words(f->vendor),
		 rule_graphs_in_use(&e->graphs) ? "" : " or torch.compile keep the ",
		 rule_graphs_in_use(&e->graphs) ? "" : rule_device(f));
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
	struct launch_ev *e = &f->e.launch;
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
	f->basis = "device idle time between kernels";
	e->idle_share = idle;
	e->graphs = rule_graphs(r);
	return FIRES;
}

static void msg_launch(struct text *t, const struct finding *f)
{
	const struct launch_ev *e = &f->e.launch;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], k[METRIC_FMT_MAX], gk[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m),
		 "%s: many short kernels (median %s) with the %s idle %s of its active span: "
		 "launches set the pace.",
		 t->where, FMT(v, f->value, UNIT_NS), rule_device(f),
		 FMT(a, e->idle_share, UNIT_RATIO));
	if (rule_graphs_in_use(&e->graphs))
		snprintf(t->d, sizeof(t->d),
			 "%s of the %s kernels already run from graph replays, so more "
			 "graphs will not help: the idle time is the host work between replays "
			 "and the kernels launched outside the graphs. Move that work (sampling, "
			 "bookkeeping) into the graph or overlap it with the replay, and fuse "
			 "small kernels.",
			 FMT(gk, e->graphs.graph_kernels, UNIT_COUNT),
			 FMT(k, e->graphs.kernels, UNIT_COUNT));
	else
		snprintf(t->d, sizeof(t->d),
			 "Capture %s in %s or use torch.compile(mode=\"reduce-overhead\"), "
			 "and fuse small elementwise ops%s into fewer kernels.",
			 rule_loop_words(f->wl), rule_graph_words(f->vendor),
			 f->wl == WL_DIFFUSION ? " (norms, modulation, RoPE)" : "");
}

/*
 * The idle attribution (doc/idle.md), the analysed window only: start-up,
 * capture and compilation.  A window mostly made of them is no steady
 * state, and no steady-state advice is drawn from it.  Idle time outside
 * the window (before the first steady step, the warm-up step, the tail)
 * never decides what the window is: a gap before the first step is init
 * by position, not by evidence.
 */
static const enum idle_cause once[] = { IDLE_INIT, IDLE_CAPTURE, IDLE_COMPILE };

#define NR_ONCE (sizeof(once) / sizeof(once[0]))

/* Cause k's idle time in r's analysed window (null: 0). */
static int64_t cause_ns(const struct report_rank *r, size_t k)
{
	return imax0(r->idle.in.by_cause[k]);
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
 * 1 when one-time idle time (ns) is more than share of r's analysed window
 * and more than any other cause found there (other, no cause, left out):
 * the window is no steady state.
 */
static int one_time_window(const struct report_rank *r, double ns, double share)
{
	if (!(ns > share * (double)r->idle.in.window_ns))
		return 0;
	/* the one-time causes are part of ns, so only another can pass it */
	for (size_t k = 0; k < IDLE_NR_CAUSES; k++)
		if (k != IDLE_OTHER && (double)cause_ns(r, k) > ns)
			return 0;
	return 1;
}

static const char *top_host(const struct report_rank *r, enum idle_cause c);

/*
 * profile-window: one-time idle (start-up, capture, compilation) above t[0]
 * of the analysed window, and more than any other cause there.  In the
 * window, init comes only from start-up calls and first-call outliers
 * (rule 1), so it is evidence of start-up, which the message names.
 */
static int eval_window(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	struct window_ev *e = &f->e.window;
	double ns;

	(void)a;
	if (!r->analysed || !r->idle.window || r->idle.in.window_ns <= 0)
		return NO_INPUTS;
	ns = (double)one_time_ns(r);
	if (!one_time_window(r, ns, t[0]))
		return QUIET;
	f->value = ns / (double)r->idle.in.window_ns;
	f->threshold = t[0];
	f->impact_ns = ns;
	f->basis = "device idle time in start-up, graph capture and compilation in the analysed "
		   "window";
	e->cause = one_time_top(r);
	e->host = top_host(r, e->cause);
	e->steps_window = r->idle.window[0] == 's';
	return FIRES;
}

static void msg_window(struct text *t, const struct finding *f)
{
	const struct window_ev *e = &f->e.window;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], ev[320] = "";
	const char *what = e->cause == IDLE_CAPTURE	? "a graph-capture window"
			   : e->cause == IDLE_COMPILE ? "a compilation window"
							: "a start-up window";
	const char *evid = e->cause == IDLE_CAPTURE   ? "graph capture"
			   : e->cause == IDLE_COMPILE ? "compilation"
						      : "start-up calls and first-call outliers";

	if (e->host)
		snprintf(ev, sizeof(ev), " Evidence: %s, the longest in %.200s.", evid, e->host);
	else
		snprintf(ev, sizeof(ev), " Evidence: %s.", evid);
	snprintf(t->m, sizeof(t->m),
		 "%s: the analysed window (%s) is %s: %s of it (%s) is one-time idle time.%s",
		 t->where, e->steps_window ? "the steady steps" : "the whole trace", what,
		 FMT(v, f->value, UNIT_RATIO), FMT(a, f->impact_ns, UNIT_NS), ev);
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
 * analysed window (high above t[1]).  At stake: that idle time.  Where
 * profile-window fires at its default threshold, it yields: a trace mostly
 * made of one-time idle time says nothing of a steady state.
 */
static int eval_idle(const struct report_rank *r, const double *t, struct finding *f,
		     enum idle_cause c)
{
	struct idle_ev *e = &f->e.idle;
	const struct report_idle *id = &r->idle;
	double share, ns;

	if (!r->analysed || !id->window || id->in.window_ns <= 0 || id->in.by_cause[c] < 0)
		return NO_INPUTS;
	ns = (double)id->in.by_cause[c];
	share = ns / (double)id->in.window_ns;
	if (!(share > t[0]))
		return QUIET;
	f->sev = share > t[1] ? SEV_HIGH : SEV_MEDIUM;
	f->value = ns;
	f->threshold = t[0] * (double)id->in.window_ns;
	f->impact_ns = ns;
	f->basis = idle_basis[c];
	e->cause = c;
	e->idle_share = share;
	e->steps_window = id->window[0] == 's';
	e->host = top_host(r, c);
	e->graphs = rule_graphs(r);
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
			", read results a step later, and wait on events instead of "
			"synchronising." },
	[IDLE_DATA_LOADING] = { "the DataLoader",
				"Raise num_workers, set pin_memory=True and a prefetch_factor, and "
				"copy the next batch to the device while ",
				" runs." },
	[IDLE_HOST_COMPUTE] = { "host work that launches nothing",
				"Move it off the critical path of ",
				": precompute it, run it in another thread or process, or do it on "
				"the device." },
	/* memory_mgmt: its advice names the vendor's allocator setting, written in msg_idle() */
	[IDLE_MEMORY_MGMT] = { "allocator calls", "Keep the caching allocator warm in ",
			       ": no empty_cache(), " },
	[IDLE_INIT] = { "one-time start-up inside the analysed window", "Warm up before profiling ",
			" (a profiler schedule with warm-up steps)." },
	[IDLE_CAPTURE] = { "graph capture inside the analysed window", "Capture before profiling ",
			   "; replays alone are its steady state." },
	[IDLE_COMPILE] = { "torch.compile compilation inside the analysed window",
			   "Warm up compiled functions before profiling ",
			   " and avoid recompilation (stable shapes, mark_dynamic)." },
	[IDLE_COLLECTIVE_WAIT] = { "a CPU-side collective",
				   "Overlap it with work (async_op=True) or move it out of ", "." },
	[IDLE_DEVICE_WAIT] = { "work launched long before it started (device-side waiting)",
			       "The host queued the work in time: look at what held the device in ",
			       " (an event wait on another stream's work, a graph's start, another "
			       "process on the device), not at the host code." },
	[IDLE_OTHER] = { "no cause found", "", "" },
};

static void msg_idle(struct text *t, const struct finding *f)
{
	const struct idle_ev *e = &f->e.idle;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], host[96], adv[512];
	enum idle_cause c = e->cause;

	/* the cause first: a headline cut to one line still names it */
	snprintf(t->m, sizeof(t->m), "%s: the device waits on %s: %s, %s of the %s.", t->where,
		 idle_words[c].what, FMT(v, f->value, UNIT_NS), FMT(a, e->idle_share, UNIT_RATIO),
		 e->steps_window ? "steady steps" : "trace");
	if (c == IDLE_LAUNCH && rule_graphs_in_use(&e->graphs))
		snprintf(adv, sizeof(adv), "Most kernels already run from graph replays: shorten "
			 "the host work between replays and fuse small kernels.");
	else if (c == IDLE_LAUNCH)
		snprintf(adv, sizeof(adv), "Capture %s in %s or use torch.compile(mode="
			 "\"reduce-overhead\"), and fuse small kernels: the host issues launches "
			 "slower than the device runs them.", rule_loop_words(f->wl),
			 rule_graph_words(f->vendor));
	else if (c == IDLE_MEMORY_MGMT)
		snprintf(adv, sizeof(adv), "%s%s%s%s, preallocated buffers.", idle_words[c].pre,
			 rule_loop_words(f->wl), idle_words[c].post, rule_alloc_conf(f));
	else
		snprintf(adv, sizeof(adv), "%s%s%s", idle_words[c].pre, rule_loop_words(f->wl),
			 idle_words[c].post);
	if (e->host)
		snprintf(t->d, sizeof(t->d), "The host in its longest such gap: %s. %s",
			 rule_plain(host, sizeof(host), e->host), adv);
	else
		snprintf(t->d, sizeof(t->d), "%s", adv);
}

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
		enum sync_call k;

		if (!op->name || op->total_ns <= 0)
			continue;
		k = sync_call_of(op->name, strlen(op->name));	/* the one list of them */
		if (k == SYNC_RUNTIME)
			rt += t;
		else if (k == SYNC_OP)
			aten = t > aten ? t : aten;
		if (k != SYNC_NONE && t > best) {
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

/*
 * host-sync: synchronising CPU calls above t[0] of the span.  At stake: the
 * GPU's idle time, at most the calls' time: a sync costs wall time only
 * where the GPU then runs dry.
 */
static int eval_sync(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	struct sync_ev *e = &f->e.sync;
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
	f->basis = "device idle time, at most the synchronising calls' time";
	e->sync_ns = ns;
	e->top = top;
	return FIRES;
}

static void msg_sync(struct text *t, const struct finding *f)
{
	const struct sync_ev *e = &f->e.sync;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], top[64];

	snprintf(t->m, sizeof(t->m), "%s: synchronising calls hold the CPU for %s of the trace.",
		 t->where, FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s, mostly %s. Remove .item(), .cpu() and printing of tensors from %s, and wait "
		 "on %s instead of synchronising the whole device.",
		 FMT(a, e->sync_ns, UNIT_NS), rule_plain(top, sizeof(top), e->top),
		 rule_loop_words(f->wl), vendor_words(f->vendor)->events);
}

const struct rule rule_low_util = {
	.id = "low-gpu-utilization",
	.metric = MK_GPU_UTILIZATION,
	.sev = SEV_MEDIUM,
	.below = 1,
	.thr = { { "utilization", 0.6, "fraction",
		   "GPU busy / active span is below this (medium); where collectives matched, the "
		   "effective utilization (busy less waiting), so a rank spinning in a collective "
		   "for a late rank does not pass for a busy one" },
		 { "utilization_high", 0.4, "fraction", "... below this (high)" } },
	.eval = eval_low_util,
	.message = msg_low_util,
	.yields_to = &rule_launch,
};

const struct rule rule_launch = {
	.id = "launch-bound",
	.metric = MK_GPU_KERNEL_MEDIAN_NS,
	.sev = SEV_HIGH,
	.below = 1,
	.thr = { { "kernel_us", 20, "us",
		   "the median kernel (over every kernel, `gpu.kernel_median_ns`) is shorter than "
		   "this many us ..." },
		 { "idle_share", 0.2, "fraction",
		   "... and GPU idle time (the gaps between kernels) is above this share of its "
		   "active span" } },
	.eval = eval_launch,
	.message = msg_launch,
};

const struct rule rule_window = {
	.id = "profile-window",
	.metric = "idle.one_time_share",
	.sev = SEV_HIGH,
	.thr = { { "one_time_share", 0.25, "fraction",
		   "device idle time in start-up, graph capture and compilation (doc/idle.md) is "
		   "above this share of the span and above any other cause's: the trace is no "
		   "steady state, and the idle-* rules stay quiet (they use the default)" } },
	.eval = eval_window,
	.message = msg_window,
};

#define IDLE_RULE(u, l, id_)                                                                  \
	const struct rule rule_idle_##l = {                                                   \
		.id = id_,                                                                    \
		.metric = "idle.by_cause." #l,                                                \
		.sev = SEV_MEDIUM,                                                            \
		.thr = { { "idle_" #l "_share", 0.05, "fraction",                             \
			   "the device idles for this cause (doc/idle.md) more than this "    \
			   "share of the analysed window (the steady steps, else the "        \
			   "trace) ..." },                                                    \
			 { "idle_" #l "_high", 0.25, "fraction",                              \
			   "... above this share (high)" } },                                 \
		.eval = eval_idle_##l,                                                        \
		.message = msg_idle,                                                          \
		.yields_to = &rule_window,                                                    \
		.yields_at_default = 1,                                                       \
	};
IDLE_CAUSES_FOUND(IDLE_RULE)
#undef IDLE_RULE

const struct rule rule_sync = {
	.id = "host-sync",
	.metric = MK_CPU_OPS_SYNC_SHARE,
	.sev = SEV_MEDIUM,
	.thr = { { "sync_share", 0.05, "fraction",
		   "synchronising calls (`aten::item`, `aten::_local_scalar_dense`, or the "
		   "runtime calls of `gpu.host_sync_ns`, whichever is larger) hold the CPU for "
		   "more than this share of the span" } },
	.eval = eval_sync,
	.message = msg_sync,
};
