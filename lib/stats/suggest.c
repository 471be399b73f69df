/*
 * suggest: see suggest.h.
 *
 * Two passes.  The first evaluates every rule on every rank and keeps each
 * firing as a hit: the value, the threshold and the few numbers its message
 * needs, with strings borrowed from the report.  The second collapses a rule
 * that fired on every rank that has its inputs, sorts, and only then writes
 * the messages into the arena, so a collapsed rule costs one message, not
 * one per rank.  Scratch arrays are malloc'd and freed here.
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

enum rule {
	R_LOW_UTIL,
	R_LAUNCH,
	R_COMM,
	R_STRAGGLER,
	R_VAE,
	R_TEXT,
	R_ATTENTION,
	R_STEPS,
	R_MEMCPY,
	R_SYNC,
	R_MEMORY,
	R_FIRST_STEP,
	R_FPS,
	NR_RULES
};

const char *const suggest_rules[NR_RULES] = {
	"low-gpu-utilization",
	"launch-bound",
	"comm-heavy-low-overlap",
	"straggler",
	"vae-decode-dominant",
	"text-encoding-dominant",
	"attention-dominant",
	"many-denoising-steps",
	"memcpy-heavy",
	"host-sync",
	"memory-near-capacity",
	"slow-first-step",
	"below-target-fps",
};

const size_t suggest_nr_rules = NR_RULES;

/* 1: the rule fires below its threshold, so the worst value is the lowest. */
static const unsigned char rule_below[NR_RULES] = {
	[R_LOW_UTIL] = 1,
	[R_LAUNCH] = 1,
	[R_FPS] = 1,
};

#define OPT(f) offsetof(struct suggest_opts, f)

const struct suggest_threshold suggest_thresholds[] = {
	{ "utilization", "low-gpu-utilization", "gpu.utilization", OPT(utilization), 0.6,
	  "fraction", "GPU busy time (less collective waits) / active span below this: medium" },
	{ "utilization_high", "low-gpu-utilization", "gpu.utilization", OPT(utilization_high), 0.4,
	  "fraction", "GPU utilization below this makes that suggestion high" },
	{ "kernel_us", "launch-bound", "kernels.median_ns", OPT(kernel_us), 20, "us",
	  "launch-bound when the median kernel (count-weighted over the kernel rows) is shorter "
	  "than this ..." },
	{ "idle_share", "launch-bound", "gpu.idle_ns / gpu.active_span_ns", OPT(idle_share), 0.2,
	  "fraction", "... and the GPU is idle for more than this share of its active span" },
	{ "comm_share", "comm-heavy-low-overlap", "gpu.comm_share", OPT(comm_share), 0.2,
	  "fraction", "communication above this share of GPU busy time ..." },
	{ "comm_overlap", "comm-heavy-low-overlap", "gpu.comm_compute_overlap", OPT(comm_overlap),
	  0.5, "fraction", "... with less than this share of it overlapped by compute" },
	{ "vae_share", "vae-decode-dominant", "phase:<path>.share", OPT(vae_share), 0.3, "fraction",
	  "a phase named *vae* or *decode* takes more than this share of the rank's span" },
	{ "text_share", "text-encoding-dominant", "phase:<path>.share", OPT(text_share), 0.15,
	  "fraction",
	  "a phase named *text_encod*, *encode_prompt* or *pre_denoising* takes more than this "
	  "share of the span" },
	{ "attention_share", "attention-dominant", "kernels.attention.share", OPT(attention_share),
	  0.5, "fraction", "attention kernels take more than this share of kernel time" },
	{ "steps", "many-denoising-steps", "steps.count", OPT(steps), 30, "steps",
	  "more denoising steps than this in the trace" },
	{ "memcpy_share", "memcpy-heavy", "gpu.memory_share", OPT(memcpy_share), 0.1, "fraction",
	  "memcpy/memset time (gpu.memory_ns) above this share of GPU busy time" },
	{ "sync_share", "host-sync", "cpu_ops.sync_share", OPT(sync_share), 0.05, "fraction",
	  "CPU time in synchronising calls (aten::item, aten::_local_scalar_dense, "
	  "cuda*Synchronize) above this share of the span" },
	{ "memory_share", "memory-near-capacity", "memory:<device>.reserved_share",
	  OPT(memory_share), 0.9, "fraction",
	  "peak reserved memory above this share of the device's capacity" },
	{ "first_step_ratio", "slow-first-step", "steps.first_ratio", OPT(first_step_ratio), 1.5,
	  "ratio",
	  "the first step is longer than this times the median of the others (medium above twice "
	  "this)" },
	{ "realtime_factor", "below-target-fps", "throughput.realtime_factor", OPT(realtime_factor),
	  1, "ratio", "with --target-fps, a real-time factor (fps / target fps) below this" },
};

const size_t suggest_nr_thresholds = sizeof(suggest_thresholds) / sizeof(suggest_thresholds[0]);

double *suggest_field(struct suggest_opts *o, const struct suggest_threshold *t)
{
	return (double *)(void *)((char *)o + t->offset);
}

int suggest_set(struct suggest_opts *o, const char *name, double value)
{
	if (!isfinite(value))
		return -1;
	for (size_t i = 0; i < suggest_nr_thresholds; i++) {
		if (strcmp(suggest_thresholds[i].name, name) == 0) {
			*suggest_field(o, &suggest_thresholds[i]) = value;
			return 0;
		}
	}
	return -1;
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
	int rule;
	enum report_severity sev;
	int64_t rank;
	size_t seq;			/* index in rep->ranks (stragglers after them) */
	double value, threshold;
	const char *metric;		/* static, or in rep->arena */
	double x[4];			/* what the message quotes, per rule */
	const char *s, *s2;		/* borrowed from the report or static */
	int64_t n;			/* a device or a rank */
};

struct hits {
	struct hit *v;
	size_t n, cap;
};

/* A new zeroed hit at the end of h, or NULL when out of memory. */
static struct hit *hit_add(struct hits *h, int rule, const struct report_rank *r, size_t seq)
{
	struct hit *x;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct hit *v;

		if (cap > SIZE_MAX / sizeof(*v) || !(v = realloc(h->v, cap * sizeof(*v))))
			return NULL;
		h->v = v;
		h->cap = cap;
	}
	x = &h->v[h->n++];
	memset(x, 0, sizeof(*x));
	x->rule = rule;
	x->rank = r ? r->rank : -1;
	x->seq = seq;
	return x;
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

/* 1 when hay contains needle, ASCII case-insensitive. */
static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!hay)
		return 0;
	for (; *hay; hay++) {
		size_t i = 0;

		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
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
			if (contains_ci(p->name, needles[k])) {
				best = p;
				break;
			}
		}
	}
	return best;
}

struct wk {
	double avg;
	int64_t count;
};

static int cmp_wk(const void *a, const void *b)
{
	double x = ((const struct wk *)a)->avg, y = ((const struct wk *)b)->avg;

	return x < y ? -1 : x > y;
}

/*
 * The median duration of r's kernels, weighting each row's average by its
 * count (the median of an even count is the mean of the two middle values);
 * kernel_time / kernels without usable rows.  -1 when out of memory.
 */
static int kernel_median(const struct report_rank *r, double *med)
{
	struct wk *w;
	size_t n = 0;
	int64_t total = 0, lo, hi, seen = 0;
	double vlo = 0, vhi = 0;

	*med = (double)r->gpu.kernel_time_ns / (double)r->gpu.kernels;
	if (!r->nr_kernels)
		return 0;
	if (r->nr_kernels > SIZE_MAX / sizeof(*w) || !(w = malloc(r->nr_kernels * sizeof(*w))))
		return -1;
	for (size_t i = 0; i < r->nr_kernels; i++) {
		const struct report_kernel *k = &r->kernels[i];

		if (k->d.count <= 0 || !isfinite(k->d.avg_ns) || total > INT64_MAX - k->d.count)
			continue;
		w[n].avg = k->d.avg_ns;
		w[n].count = k->d.count;
		total += k->d.count;
		n++;
	}
	if (n) {
		qsort(w, n, sizeof(*w), cmp_wk);
		lo = (total - 1) / 2;
		hi = total / 2;
		for (size_t i = 0; i < n; i++) {
			if (seen <= lo && lo < seen + w[i].count)
				vlo = w[i].avg;
			if (seen <= hi && hi < seen + w[i].count) {
				vhi = w[i].avg;
				break;
			}
			seen += w[i].count;
		}
		*med = (vlo + vhi) / 2;
	}
	free(w);
	return 0;
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

/*
 * Evaluate every per-rank rule on rank r (index seq): hits go to h, and
 * elig[rule] counts the ranks that have the rule's inputs.  -1 when out of
 * memory.
 */
static int eval_rank(struct hits *h, size_t *elig, struct arena *a, const struct report_rank *r,
		     size_t seq, const struct suggest_opts *o)
{
	const struct report_gpu *g = &r->gpu;
	struct hit *x;
	double util;
	int eff;

	/*
	 * Effective utilization where collectives were matched: a kernel that
	 * spins waiting for a late rank is busy but does no work, and counting
	 * it would make the waiting ranks look best and the late one worst.
	 */
	eff = g->has_wait && isfinite(g->effective_utilization);
	util = eff ? g->effective_utilization : g->utilization;
	if (r->analysed && g->active_span_ns > 0 && isfinite(util)) {
		elig[R_LOW_UTIL]++;
		if (util < o->utilization) {
			if (!(x = hit_add(h, R_LOW_UTIL, r, seq)))
				return -1;
			x->sev = util < o->utilization_high ? SEV_HIGH : SEV_MEDIUM;
			x->metric = eff ? "gpu.effective_utilization" : "gpu.utilization";
			x->value = util;
			x->threshold = x->sev == SEV_HIGH ? o->utilization_high : o->utilization;
			x->x[0] = (double)g->idle_ns;
			x->x[1] = (double)g->active_span_ns;
			x->x[2] = eff && !g->cpu_comm ? (double)g->comm_wait_ns : 0;
		}
	}

	if (r->analysed && g->kernels > 0 && g->active_span_ns > 0) {
		double med, idle = (double)g->idle_ns / (double)g->active_span_ns;

		elig[R_LAUNCH]++;
		if (kernel_median(r, &med))
			return -1;
		if (med < o->kernel_us * 1e3 && idle > o->idle_share) {
			if (!(x = hit_add(h, R_LAUNCH, r, seq)))
				return -1;
			x->sev = SEV_HIGH;
			x->metric = "kernels.median_ns";
			x->value = med;
			x->threshold = o->kernel_us * 1e3;
			x->x[0] = idle;
			x->x[1] = (double)g->kernels;
		}
	}

	if (r->analysed && g->busy_ns > 0 && g->comm_ns > 0 && isfinite(g->comm_compute_overlap)) {
		/* where collectives matched, the transfer: waiting is the straggler rule's */
		int64_t comm = eff && !g->cpu_comm ? g->comm_transfer_ns : g->comm_ns;
		int64_t busy = eff && !g->cpu_comm ? g->busy_ns - g->comm_wait_ns : g->busy_ns;
		double share = busy > 0 ? (double)comm / (double)busy : 0;

		elig[R_COMM]++;
		if (share > o->comm_share && g->comm_compute_overlap < o->comm_overlap) {
			if (!(x = hit_add(h, R_COMM, r, seq)))
				return -1;
			x->sev = SEV_HIGH;
			x->metric = "gpu.comm_share";
			x->value = share;
			x->threshold = o->comm_share;
			x->x[0] = g->comm_compute_overlap;
			x->x[1] = (double)comm;
		}
	}

	if (r->has_phases) {
		const struct report_phase *p;

		elig[R_VAE]++;
		elig[R_TEXT]++;
		p = phase_match(r, vae_needles, sizeof(vae_needles) / sizeof(*vae_needles));
		if (p && p->share > o->vae_share) {
			if (!(x = hit_add(h, R_VAE, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			if (!(x->metric = arena_fmt(a, "phase:%s.share", p->path ? p->path : p->name)))
				return -1;
			x->value = p->share;
			x->threshold = o->vae_share;
			x->x[0] = (double)p->d.total_ns;
			x->s = p->name;
		}
		p = phase_match(r, text_needles, sizeof(text_needles) / sizeof(*text_needles));
		if (p && p->share > o->text_share) {
			if (!(x = hit_add(h, R_TEXT, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			if (!(x->metric = arena_fmt(a, "phase:%s.share", p->path ? p->path : p->name)))
				return -1;
			x->value = p->share;
			x->threshold = o->text_share;
			x->x[0] = (double)p->d.total_ns;
			x->x[1] = (double)p->d.count;
			x->s = p->name;
		}
	}

	if (r->analysed && g->kernel_time_ns > 0) {
		double attn = 0, share;

		elig[R_ATTENTION]++;
		for (size_t i = 0; i < r->nr_kernels; i++)
			if (r->kernels[i].category && strcmp(r->kernels[i].category, "attention") == 0)
				attn += (double)r->kernels[i].d.total_ns;
		share = attn / (double)g->kernel_time_ns;
		if (share > o->attention_share) {
			if (!(x = hit_add(h, R_ATTENTION, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			x->metric = "kernels.attention.share";
			x->value = share;
			x->threshold = o->attention_share;
			x->x[0] = attn;
		}
	}

	if (r->has_phases) {
		elig[R_STEPS]++;
		if ((double)r->steps.nr_durations > o->steps) {
			if (!(x = hit_add(h, R_STEPS, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			x->metric = "steps.count";
			x->value = (double)r->steps.nr_durations;
			x->threshold = o->steps;
			x->x[0] = r->steps.d.median_ns;
			x->s = r->steps.pattern;
		}
	}

	if (r->analysed && g->busy_ns > 0) {
		double share = (double)g->memory_ns / (double)g->busy_ns;

		elig[R_MEMCPY]++;
		if (share > o->memcpy_share) {
			if (!(x = hit_add(h, R_MEMCPY, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			x->metric = "gpu.memory_share";
			x->value = share;
			x->threshold = o->memcpy_share;
			x->x[0] = (double)g->memory_ns;
		}
	}

	if (r->analysed && r->span_ns > 0) {
		const char *top;
		double t = sync_time(r, &top), share = t / (double)r->span_ns;

		elig[R_SYNC]++;
		if (share > o->sync_share) {
			if (!(x = hit_add(h, R_SYNC, r, seq)))
				return -1;
			x->sev = SEV_MEDIUM;
			x->metric = "cpu_ops.sync_share";
			x->value = share;
			x->threshold = o->sync_share;
			x->x[0] = t;
			x->s = top;
		}
	}

	if (r->analysed) {
		const struct report_memory *best = NULL;
		double bs = 0;

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
		if (best) {
			elig[R_MEMORY]++;
			if (bs > o->memory_share) {
				if (!(x = hit_add(h, R_MEMORY, r, seq)))
					return -1;
				x->sev = SEV_MEDIUM;
				if (!(x->metric = arena_fmt(a, "memory:%" PRId64 ".reserved_share",
							    best->device)))
					return -1;
				x->value = bs;
				x->threshold = o->memory_share;
				x->x[0] = (double)best->capacity;
				x->n = best->device;
			}
		}
	}

	if (r->has_phases && r->steps.nr_durations >= 2 && r->steps.durations_ns) {
		size_t n = r->steps.nr_durations - 1;
		int64_t *v;
		double med, ratio;

		if (n > SIZE_MAX / sizeof(*v) || !(v = malloc(n * sizeof(*v))))
			return -1;
		memcpy(v, r->steps.durations_ns + 1, n * sizeof(*v));
		med = median_i64(v, n);
		free(v);
		if (med > 0) {
			elig[R_FIRST_STEP]++;
			ratio = (double)r->steps.durations_ns[0] / med;
			if (ratio > o->first_step_ratio) {
				if (!(x = hit_add(h, R_FIRST_STEP, r, seq)))
					return -1;
				x->sev = ratio > 2 * o->first_step_ratio ? SEV_MEDIUM : SEV_LOW;
				x->metric = "steps.first_ratio";
				x->value = ratio;
				x->threshold = o->first_step_ratio;
				x->x[0] = (double)r->steps.durations_ns[0];
				x->x[1] = med;
			}
		}
	}

	if (r->has_throughput && r->throughput.target_fps > 0 &&
	    isfinite(r->throughput.realtime_factor)) {
		const struct report_throughput *t = &r->throughput;

		elig[R_FPS]++;
		if (t->realtime_factor < o->realtime_factor) {
			const struct report_phase *p = top_phase(r);
			double cat_ns;

			if (!(x = hit_add(h, R_FPS, r, seq)))
				return -1;
			x->sev = SEV_HIGH;
			x->metric = "throughput.realtime_factor";
			x->value = t->realtime_factor;
			x->threshold = o->realtime_factor;
			x->x[0] = t->fps;
			x->x[1] = t->target_fps;
			x->s = p ? p->name : NULL;
			x->x[2] = p ? p->share : 0;
			x->s2 = r->analysed ? top_category(r, &cat_ns) : NULL;
			x->x[3] = x->s2 && g->kernel_time_ns > 0 ? cat_ns / (double)g->kernel_time_ns
								   : 0;
		}
	}
	return 0;
}

/* ns as "12.3 ms", "4.5 us", "1.23 s". */
static const char *dur(char *b, size_t n, double ns)
{
	if (!isfinite(ns))
		snprintf(b, n, "?");
	else if (fabs(ns) >= 1e9)
		snprintf(b, n, "%.2f s", ns / 1e9);
	else if (fabs(ns) >= 1e6)
		snprintf(b, n, "%.1f ms", ns / 1e6);
	else if (fabs(ns) >= 1e3)
		snprintf(b, n, "%.1f us", ns / 1e3);
	else
		snprintf(b, n, "%.0f ns", ns);
	return b;
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

/* How a metric of the straggler table reads in a sentence. */
static const char *metric_words(const char *m)
{
	if (strcmp(m, "steps.median_ns") == 0)
		return "median step";
	if (strcmp(m, "span_ns") == 0)
		return "trace span";
	if (strcmp(m, "gpu.comm_ns") == 0)
		return "communication time";
	return m;
}

static const char *value_words(char *b, size_t n, const char *metric, double v)
{
	size_t len = strlen(metric);

	if (len > 3 && strcmp(metric + len - 3, "_ns") == 0)
		return dur(b, n, v);
	snprintf(b, n, "%.4g", v);
	return b;
}

#define STRAGGLER_CHECK                                                                       \
	"Check that rank for thermal or power throttling, a slow or busy host, data loading, " \
	"and an uneven split of the sequence or blocks across ranks."

/* Write h's message into m[0..n); where is "" or " on all 8 ranks (worst: rank 3)". */
static void message(char *m, size_t n, const struct hit *h, const char *where)
{
	char b1[64], b2[64], b3[64];

	switch (h->rule) {
	case R_LOW_UTIL:
		if (h->x[2] > 0)
			snprintf(m, n,
				 "The GPU does useful work only %.1f%% of its active time (%s idle "
				 "and %s waiting inside collectives for other ranks, of %s)%s. The "
				 "waiting is the stragglers' doing (see stragglers); for the idle "
				 "part look for host-side gaps between denoising steps and blocks "
				 "(scheduler and latent bookkeeping in Python, data loading, "
				 "synchronisation); CUDA graphs or torch.compile keep the GPU fed.",
				 100 * h->value, dur(b1, sizeof(b1), h->x[0]),
				 dur(b3, sizeof(b3), h->x[2]), dur(b2, sizeof(b2), h->x[1]), where);
		else
			snprintf(m, n,
				 "The GPU is busy only %.1f%% of its active time (%s idle of %s)%s. "
				 "Look for host-side gaps between denoising steps and blocks "
				 "(scheduler and latent bookkeeping in Python, data loading, "
				 "synchronisation); CUDA graphs or torch.compile keep the GPU fed.",
				 100 * h->value, dur(b1, sizeof(b1), h->x[0]),
				 dur(b2, sizeof(b2), h->x[1]), where);
		break;
	case R_LAUNCH:
		snprintf(m, n,
			 "Many short kernels: the median kernel takes %s and the GPU is idle %.1f%% "
			 "of its active span%s, so it waits on kernel launches. Capture the "
			 "denoising step in CUDA graphs or use torch.compile(mode=\"reduce-overhead\"), "
			 "and fuse elementwise ops (norms, modulation, RoPE) into fewer kernels.",
			 dur(b1, sizeof(b1), h->value), 100 * h->x[0], where);
		break;
	case R_COMM:
		snprintf(m, n,
			 "Communication takes %.1f%% of GPU busy time (%s) and only %.1f%% of it "
			 "overlaps compute%s. Overlap collectives with compute (async all-gather and "
			 "reduce-scatter, the sequence-parallel all-to-all overlapped with attention) "
			 "and check the interconnect (NVLink/InfiniBand bandwidth, NCCL topology).",
			 100 * h->value, dur(b1, sizeof(b1), h->x[1]), 100 * h->x[0], where);
		break;
	case R_STRAGGLER:
		if (h->s)
			snprintf(m, n,
				 "Rank %" PRId64 " is the rank the others wait for: it reaches "
				 "%.0f%% of its collectives last, and the other ranks wait %s for "
				 "it in all, most at %.120s. Their long steps and busy-looking GPUs "
				 "are that waiting. " STRAGGLER_CHECK,
				 h->rank, 100 * h->x[1], dur(b1, sizeof(b1), h->value), h->s);
		else if (h->x[0] >= 0)
			snprintf(m, n,
				 "Rank %" PRId64 "'s %s is %.1f%% longer than the median over ranks "
				 "(%s against %s), which holds the other ranks back at every "
				 "collective. "
				 STRAGGLER_CHECK,
				 h->rank, metric_words(h->metric), 100 * h->x[0],
				 value_words(b1, sizeof(b1), h->metric, h->value),
				 value_words(b2, sizeof(b2), h->metric, h->threshold));
		else
			snprintf(m, n,
				 "Rank %" PRId64 " spends %.1f%% less time in communication than the "
				 "median (%s against %s): the other ranks wait for it inside "
				 "collectives, so it is the slow one. " STRAGGLER_CHECK,
				 h->rank, -100 * h->x[0],
				 value_words(b1, sizeof(b1), h->metric, h->value),
				 value_words(b2, sizeof(b2), h->metric, h->threshold));
		break;
	case R_VAE:
		snprintf(m, n,
			 "The VAE phase '%s' (%s) takes %.1f%% of the trace%s. Decode in spatial "
			 "tiles and temporal chunks, run the decode on a separate stream or overlap "
			 "it with the next generation, or use a lighter (distilled or tiny) decoder.",
			 plain(b1, sizeof(b1), h->s), dur(b2, sizeof(b2), h->x[0]), 100 * h->value,
			 where);
		break;
	case R_TEXT:
		snprintf(m, n,
			 "Text encoding (phase '%s', %s in %.0f calls) takes %.1f%% of the trace%s. "
			 "Cache prompt embeddings and run the text encoder once per prompt, not per "
			 "block or step; offload it to another device or quantize it (FP8/INT8).",
			 plain(b1, sizeof(b1), h->s), dur(b2, sizeof(b2), h->x[0]), h->x[1],
			 100 * h->value, where);
		break;
	case R_ATTENTION:
		snprintf(m, n,
			 "Attention kernels take %.1f%% of kernel time (%s)%s. Long video token "
			 "sequences make attention quadratic: use sparse or sliding-window attention, "
			 "FP8 attention (e.g. SageAttention), or FlashAttention-3 on Hopper GPUs.",
			 100 * h->value, dur(b1, sizeof(b1), h->x[0]), where);
		break;
	case R_STEPS:
		snprintf(m, n,
			 "The trace has %.0f denoising steps (%s, median %s)%s. Cut the step count "
			 "with a step-distilled model or a fewer-step sampler, or reuse DiT features "
			 "across neighbouring steps (TeaCache or FasterCache style step caching).",
			 h->value, plain(b1, sizeof(b1), h->s), dur(b2, sizeof(b2), h->x[0]), where);
		break;
	case R_MEMCPY:
		snprintf(m, n,
			 "Memory copies take %.1f%% of GPU busy time (%s)%s. Use pinned host memory "
			 "and non_blocking=True copies, keep latents and embeddings on the device, and "
			 "avoid .cpu() and .item() inside the denoising loop.",
			 100 * h->value, dur(b1, sizeof(b1), h->x[0]), where);
		break;
	case R_SYNC:
		snprintf(m, n,
			 "Synchronising calls hold the CPU for %.1f%% of the trace (%s, mostly %s)%s. "
			 "Remove .item(), .cpu() and printing of tensors from the denoising loop, and "
			 "wait on CUDA events instead of synchronising the whole device.",
			 100 * h->value, dur(b1, sizeof(b1), h->x[0]), plain(b2, sizeof(b2), h->s),
			 where);
		break;
	case R_MEMORY:
		snprintf(m, n,
			 "Peak reserved memory on device %" PRId64 " is %.1f%% of its %.1f GiB%s. "
			 "Reduce batch or resolution per GPU, enable VAE tiling, offload activations "
			 "or the text encoder, and set "
			 "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.",
			 h->n, 100 * h->value, h->x[0] / (1024.0 * 1024 * 1024), where);
		break;
	case R_FIRST_STEP:
		snprintf(m, n,
			 "The first step takes %s, %.2fx the median of the others (%s)%s. Warm up "
			 "before measuring (torch.compile compilation, cudnn.benchmark autotuning, "
			 "allocator growth) or leave the first step out of timings.",
			 dur(b1, sizeof(b1), h->x[0]), h->value, dur(b2, sizeof(b2), h->x[1]), where);
		break;
	case R_FPS: {
		char what[256];

		if (h->s && h->s2)
			snprintf(what, sizeof(what),
				 "Most time goes to phase '%s' (%.1f%% of the trace) and to %s kernels "
				 "(%.1f%% of kernel time): speed those up first",
				 plain(b2, sizeof(b2), h->s), 100 * h->x[2],
				 plain(b3, sizeof(b3), h->s2), 100 * h->x[3]);
		else if (h->s)
			snprintf(what, sizeof(what),
				 "Most time goes to phase '%s' (%.1f%% of the trace): speed it up first",
				 plain(b2, sizeof(b2), h->s), 100 * h->x[2]);
		else if (h->s2)
			snprintf(what, sizeof(what),
				 "Most kernel time goes to %s kernels (%.1f%%): speed those up first",
				 plain(b3, sizeof(b3), h->s2), 100 * h->x[3]);
		else
			snprintf(what, sizeof(what),
				 "Annotate the pipeline's phases to see which part to speed up");
		if (h->value > 0)
			snprintf(b1, sizeof(b1), ", %.2fx too slow", 1 / h->value);
		else
			b1[0] = '\0';
		snprintf(m, n,
			 "Generation runs at %.2f fps against a target of %g fps (%.2fx real time%s)%s. "
			 "%s, or spread each video over more GPUs (sequence parallelism).",
			 h->x[0], h->x[1], h->value, b1, where, what);
		break;
	}
	default:
		snprintf(m, n, "%s", "?");
	}
}

static int cmp_hit(const void *pa, const void *pb)
{
	const struct hit *a = pa, *b = pb;

	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* 1 when a is further past the threshold than b. */
static int worse(const struct hit *a, const struct hit *b)
{
	return rule_below[a->rule] ? a->value < b->value : a->value > b->value;
}

int suggest_compute(struct report *rep, const struct suggest_opts *o)
{
	static const struct suggest_opts defaults = SUGGEST_OPTS_DEFAULT;
	struct hits h = { 0 };
	struct hit *out = NULL;
	struct report_suggestion *sg;
	size_t elig[NR_RULES] = { 0 }, nhit[NR_RULES] = { 0 }, nr_out = 0;
	int collapse[NR_RULES] = { 0 };
	int rc = -1;

	rep->suggestions = NULL;
	rep->nr_suggestions = 0;
	if (!o)
		o = &defaults;
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (eval_rank(&h, elig, &rep->arena, &rep->ranks[i], i, o))
			goto out;
	for (size_t i = 0; i < rep->nr_stragglers; i++) {
		const struct report_straggler *st = &rep->stragglers[i];
		struct hit *x = hit_add(&h, R_STRAGGLER, NULL, rep->nr_ranks + i);

		if (!x)
			goto out;
		x->rank = st->rank;
		x->sev = SEV_HIGH;
		x->metric = st->metric ? st->metric : "?";
		x->value = st->value;
		x->threshold = st->median;
		x->x[0] = st->excess;
		x->x[1] = st->last_share;
		x->s = st->by_wait ? st->delays_name : NULL;
	}
	if (!h.n) {
		rc = 0;
		goto out;
	}

	for (size_t i = 0; i < h.n; i++)
		nhit[h.v[i].rule]++;
	for (int r = 0; r < NR_RULES; r++)
		collapse[r] = r != R_STRAGGLER && rep->nr_ranks >= 2 && elig[r] >= 2 &&
			      nhit[r] == elig[r];

	/* the collapsed rules keep their worst hit, as rank -1 with the worst severity */
	out = malloc(h.n * sizeof(*out));
	if (!out)
		goto out;
	{
		size_t at[NR_RULES];

		for (int r = 0; r < NR_RULES; r++)
			at[r] = SIZE_MAX;
		for (size_t i = 0; i < h.n; i++) {
			const struct hit *x = &h.v[i];
			size_t k = at[x->rule];

			if (!collapse[x->rule]) {
				out[nr_out++] = *x;
			} else if (k == SIZE_MAX) {
				at[x->rule] = nr_out;
				out[nr_out++] = *x;
			} else {
				enum report_severity sev = out[k].sev > x->sev ? out[k].sev : x->sev;

				if (worse(x, &out[k]))
					out[k] = *x;
				out[k].sev = sev;
			}
		}
	}
	qsort(out, nr_out, sizeof(*out), cmp_hit);

	sg = arena_alloc(&rep->arena, nr_out * sizeof(*sg));
	if (!sg)
		goto out;
	for (size_t i = 0; i < nr_out; i++) {
		const struct hit *x = &out[i];
		char where[128], m[1024];

		where[0] = '\0';
		if (collapse[x->rule]) {
			if (elig[x->rule] == rep->nr_ranks)
				snprintf(where, sizeof(where), " on all %zu ranks (worst: rank %" PRId64 ")",
					 nhit[x->rule], x->rank);
			else
				snprintf(where, sizeof(where),
					 " on every rank that has the data (%zu of %zu; worst: rank %" PRId64
					 ")",
					 nhit[x->rule], rep->nr_ranks, x->rank);
		}
		message(m, sizeof(m), x, where);
		sg[i].id = suggest_rules[x->rule];
		sg[i].severity = x->sev;
		sg[i].rank = collapse[x->rule] ? -1 : x->rank;
		sg[i].metric = x->metric;
		sg[i].value = x->value;
		sg[i].threshold = x->threshold;
		if (!(sg[i].message = arena_strndup(&rep->arena, m, strlen(m))))
			goto out;
	}
	rep->suggestions = sg;
	rep->nr_suggestions = nr_out;
	rc = 0;
out:
	free(out);
	free(h.v);
	return rc;
}
