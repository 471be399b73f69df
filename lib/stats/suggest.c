/*
 * suggest: see suggest.h.
 *
 * How to add a rule: write its evaluator (eval_NAME: does the rank have
 * the inputs, does the rule fire, and the named evidence in struct
 * evidence, adding a field there if no existing one says what you need),
 * its message (msg_NAME: written from that evidence), add one entry to
 * rules[] below, a row to README's threshold table (test 030 compares it
 * with --help) and one test in tests/unit/test_suggest.c, at the threshold
 * and just past it.  Its evidence metric goes into the metric catalogue
 * (metric.c) so the outputs know its unit.
 *
 * Two passes.  The first evaluates every rule on every rank and keeps each
 * firing as a hit: the value, the threshold and the named evidence its
 * message needs, with strings borrowed from the report.  The second
 * collapses a rule that fired on every rank that has its inputs, sorts, and
 * only then writes the messages into the arena, so a collapsed rule costs
 * one message, not one per rank.  Scratch arrays are malloc'd and freed
 * here.
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
	int64_t rank;			/* straggler: the rank */
	double excess;			/* straggler: value / median - 1 */
	double last_share;		/* straggler: share of collectives it reached last */
	const char *delays;		/* straggler by wait: where most waiting is (borrowed) */
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
	double fps, target_fps;
	const char *category;		/* the kernel category with the most time */
	double category_share;		/* its share of kernel time */
};

/* A firing: what the report shows of it, and the evidence of its message. */
struct finding {
	enum report_severity sev;
	const char *metric;		/* static, or in the report's arena */
	double value, threshold;
	struct evidence e;
};

/* The results of an evaluator. */
enum { NO_INPUTS, QUIET, FIRES };

/* A value in its unit, ASCII, for a message. */
#define FMT(buf, v, unit) metric_fmt(buf, sizeof(buf), v, unit, FMT_ASCII)

/*
 * 1 when r's waits inside collectives are known (collectives matched across
 * ranks, GPU kernels): its rules then judge the useful work, not busy time.
 */
static int has_gpu_wait(const struct report_gpu *g)
{
	return g->has_wait && isfinite(g->effective_utilization) && !g->cpu_comm;
}

/*
 * low-gpu-utilization: busy / active span below t[0]; below t[1] it is
 * high.  Effective utilization where collectives were matched: a kernel
 * that spins waiting for a late rank is busy but does no work, and counting
 * it would make the waiting ranks look best and the late one worst.
 */
static int eval_low_util(const struct report_rank *r, const double *t, struct arena *a,
			 struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	int eff = g->has_wait && isfinite(g->effective_utilization);
	double util = eff ? g->effective_utilization : g->utilization;

	(void)a;
	if (!r->analysed || g->active_span_ns <= 0 || !isfinite(util))
		return NO_INPUTS;
	if (!(util < t[0]))
		return QUIET;
	f->sev = util < t[1] ? SEV_HIGH : SEV_MEDIUM;
	if (eff)
		f->metric = "gpu.effective_utilization";
	f->value = util;
	f->threshold = f->sev == SEV_HIGH ? t[1] : t[0];
	f->e.idle_ns = (double)g->idle_ns;
	f->e.active_span_ns = (double)g->active_span_ns;
	f->e.wait_ns = has_gpu_wait(g) ? (double)g->comm_wait_ns : 0;
	return FIRES;
}

static void msg_low_util(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], w[METRIC_FMT_MAX];

	if (f->e.wait_ns > 0)
		snprintf(m, n,
			 "The GPU does useful work only %s of its active time (%s idle and %s "
			 "waiting inside collectives for other ranks, of %s)%s. The waiting is the "
			 "stragglers' doing (see stragglers); for the idle part look for host-side "
			 "gaps between denoising steps and blocks (scheduler and latent bookkeeping "
			 "in Python, data loading, synchronisation); CUDA graphs or torch.compile "
			 "keep the GPU fed.",
			 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.idle_ns, UNIT_NS),
			 FMT(w, f->e.wait_ns, UNIT_NS), FMT(b, f->e.active_span_ns, UNIT_NS), where);
	else
		snprintf(m, n,
			 "The GPU is busy only %s of its active time (%s idle of %s)%s. Look for "
			 "host-side gaps between denoising steps and blocks (scheduler and latent "
			 "bookkeeping in Python, data loading, synchronisation); CUDA graphs or "
			 "torch.compile keep the GPU fed.",
			 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.idle_ns, UNIT_NS),
			 FMT(b, f->e.active_span_ns, UNIT_NS), where);
}

/* launch-bound: the median kernel under t[0] us while the GPU idles more than t[1]. */
static int eval_launch(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	const struct report_gpu *g = &r->gpu;
	double med, idle;

	(void)a;
	if (!r->analysed || g->kernels <= 0 || g->active_span_ns <= 0)
		return NO_INPUTS;
	if (kernel_median(r, &med))
		return -1;
	idle = (double)g->idle_ns / (double)g->active_span_ns;
	if (!(med < t[0] * 1e3 && idle > t[1]))
		return QUIET;
	f->value = med;
	f->threshold = t[0] * 1e3;
	f->e.idle_share = idle;
	return FIRES;
}

static void msg_launch(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Many short kernels: the median kernel takes %s and the GPU is idle %s of its "
		 "active span%s, so it waits on kernel launches. Capture the denoising step in "
		 "CUDA graphs or use torch.compile(mode=\"reduce-overhead\"), and fuse "
		 "elementwise ops (norms, modulation, RoPE) into fewer kernels.",
		 FMT(v, f->value, UNIT_NS), FMT(a, f->e.idle_share, UNIT_RATIO), where);
}

/*
 * comm-heavy-low-overlap: comm over t[0] of busy time, less than t[1] of it
 * overlapped.  Where collectives matched, the transfer over busy time less
 * waiting: the waiting is the straggler rule's.
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
	f->e.overlap = g->comm_compute_overlap;
	f->e.comm_ns = (double)comm;
	return FIRES;
}

static void msg_comm(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Communication takes %s of GPU busy time (%s) and only %s of it overlaps "
		 "compute%s. Overlap collectives with compute (async all-gather and "
		 "reduce-scatter, the sequence-parallel all-to-all overlapped with attention) and "
		 "check the interconnect (NVLink/InfiniBand bandwidth, NCCL topology).",
		 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.comm_ns, UNIT_NS),
		 FMT(b, f->e.overlap, UNIT_RATIO), where);
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

#define STRAGGLER_CHECK                                                                       \
	"Check that rank for thermal or power throttling, a slow or busy host, data loading, " \
	"and an uneven split of the sequence or blocks across ranks."

/*
 * straggler: no evaluator, its findings are crossrank's stragglers (value:
 * the rank's, threshold: the median over ranks).
 */
static void msg_straggler(char *m, size_t n, const struct finding *f, const char *where)
{
	enum metric_unit u = metric_unit_of(f->metric);
	char x[METRIC_FMT_MAX], v[METRIC_FMT_MAX], med[METRIC_FMT_MAX], name[124];

	(void)where;
	FMT(v, f->value, u);
	FMT(med, f->threshold, u);
	if (f->e.delays)
		snprintf(m, n,
			 "Rank %" PRId64 " is the rank the others wait for: it reaches %s of its "
			 "collectives last, and the other ranks wait %s for it in all, most at "
			 "%s. Their long steps and busy-looking GPUs are that waiting. "
			 STRAGGLER_CHECK,
			 f->e.rank, FMT(x, f->e.last_share, UNIT_RATIO), v,
			 plain(name, sizeof(name), f->e.delays));
	else if (f->e.excess >= 0)
		snprintf(m, n,
			 "Rank %" PRId64 "'s %s is %s longer than the median over ranks (%s "
			 "against %s), which holds the other ranks back at every collective. "
			 STRAGGLER_CHECK,
			 f->e.rank, metric_words(f->metric), FMT(x, f->e.excess, UNIT_RATIO), v,
			 med);
	else
		snprintf(m, n,
			 "Rank %" PRId64 " spends %s less time in communication than the median "
			 "(%s against %s): the other ranks wait for it inside collectives, so it "
			 "is the slow one. " STRAGGLER_CHECK,
			 f->e.rank, FMT(x, -f->e.excess, UNIT_RATIO), v, med);
}

/* A phase of r named like one of the needles whose share is above t. */
static int eval_phase(const struct report_rank *r, double t, struct arena *a, struct finding *f,
		      const char *const *needles, size_t nr_needles)
{
	const struct report_phase *p;

	if (!r->has_phases)
		return NO_INPUTS;
	p = phase_match(r, needles, nr_needles);
	if (!p || !(p->share > t))
		return QUIET;
	if (!(f->metric = arena_fmt(a, "phase:%s.share", p->path ? p->path : p->name)))
		return -1;
	f->value = p->share;
	f->threshold = t;
	f->e.phase = p->name;
	f->e.phase_ns = (double)p->d.total_ns;
	f->e.phase_calls = (double)p->d.count;
	return FIRES;
}

/* vae-decode-dominant: a *vae* or *decode* phase above t[0] of the span. */
static int eval_vae(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f)
{
	return eval_phase(r, t[0], a, f, vae_needles, sizeof(vae_needles) / sizeof(*vae_needles));
}

static void msg_vae(char *m, size_t n, const struct finding *f, const char *where)
{
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "The VAE phase '%s' (%s) takes %s of the trace%s. Decode in spatial tiles and "
		 "temporal chunks, run the decode on a separate stream or overlap it with the "
		 "next generation, or use a lighter (distilled or tiny) decoder.",
		 plain(name, sizeof(name), f->e.phase), FMT(a, f->e.phase_ns, UNIT_NS),
		 FMT(v, f->value, UNIT_RATIO), where);
}

/* text-encoding-dominant: a text-encoding phase above t[0] of the span. */
static int eval_text(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	return eval_phase(r, t[0], a, f, text_needles,
			  sizeof(text_needles) / sizeof(*text_needles));
}

static void msg_text(char *m, size_t n, const struct finding *f, const char *where)
{
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], c[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Text encoding (phase '%s', %s in %s calls) takes %s of the trace%s. Cache "
		 "prompt embeddings and run the text encoder once per prompt, not per block or "
		 "step; offload it to another device or quantize it (FP8/INT8).",
		 plain(name, sizeof(name), f->e.phase), FMT(a, f->e.phase_ns, UNIT_NS),
		 FMT(c, f->e.phase_calls, UNIT_COUNT), FMT(v, f->value, UNIT_RATIO), where);
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
	f->e.kernel_ns = attn;
	return FIRES;
}

static void msg_attention(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Attention kernels take %s of kernel time (%s)%s. Long video token sequences "
		 "make attention quadratic: use sparse or sliding-window attention, FP8 attention "
		 "(e.g. SageAttention), or FlashAttention-3 on Hopper GPUs.",
		 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.kernel_ns, UNIT_NS), where);
}

/* many-denoising-steps: more than t[0] steps, the warm-up one included. */
static int eval_steps(const struct report_rank *r, const double *t, struct arena *a,
		      struct finding *f)
{
	(void)a;
	if (!r->has_phases)
		return NO_INPUTS;
	if (!((double)r->steps.nr_durations > t[0]))
		return QUIET;
	f->value = (double)r->steps.nr_durations;
	f->threshold = t[0];
	f->e.step_median_ns = r->steps.d.median_ns;
	f->e.pattern = r->steps.pattern;
	return FIRES;
}

static void msg_steps(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], pat[64], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "The trace has %s denoising steps (%s, median %s)%s. Cut the step count with a "
		 "step-distilled model or a fewer-step sampler, or reuse DiT features across "
		 "neighbouring steps (TeaCache or FasterCache style step caching).",
		 FMT(v, f->value, UNIT_COUNT), plain(pat, sizeof(pat), f->e.pattern),
		 FMT(a, f->e.step_median_ns, UNIT_NS), where);
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
	f->e.memory_ns = (double)r->gpu.memory_ns;
	return FIRES;
}

static void msg_memcpy(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Memory copies take %s of GPU busy time (%s)%s. Use pinned host memory and "
		 "non_blocking=True copies, keep latents and embeddings on the device, and avoid "
		 ".cpu() and .item() inside the denoising loop.",
		 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.memory_ns, UNIT_NS), where);
}

/* host-sync: synchronising CPU calls above t[0] of the span. */
static int eval_sync(const struct report_rank *r, const double *t, struct arena *a,
		     struct finding *f)
{
	const char *top;
	double ns, share;

	(void)a;
	if (!r->analysed || r->span_ns <= 0)
		return NO_INPUTS;
	ns = sync_time(r, &top);
	share = ns / (double)r->span_ns;
	if (!(share > t[0]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->e.sync_ns = ns;
	f->e.sync_top = top;
	return FIRES;
}

static void msg_sync(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], top[64];

	snprintf(m, n,
		 "Synchronising calls hold the CPU for %s of the trace (%s, mostly %s)%s. Remove "
		 ".item(), .cpu() and printing of tensors from the denoising loop, and wait on "
		 "CUDA events instead of synchronising the whole device.",
		 FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.sync_ns, UNIT_NS),
		 plain(top, sizeof(top), f->e.sync_top), where);
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

static void msg_memory(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(m, n,
		 "Peak reserved memory on device %" PRId64 " is %s of its %s%s. Reduce batch or "
		 "resolution per GPU, enable VAE tiling, offload activations or the text encoder, "
		 "and set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.",
		 f->e.device, FMT(v, f->value, UNIT_RATIO), FMT(a, f->e.capacity, UNIT_BYTES),
		 where);
}

/* slow-first-step: the first step over t[0] times the others' median; medium over twice. */
static int eval_first_step(const struct report_rank *r, const double *t, struct arena *a,
			   struct finding *f)
{
	size_t n;
	int64_t *v;
	double med, ratio;

	(void)a;
	if (!r->has_phases || r->steps.nr_durations < 2 || !r->steps.durations_ns)
		return NO_INPUTS;
	n = r->steps.nr_durations - 1;
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
	f->e.first_step_ns = (double)r->steps.durations_ns[0];
	f->e.others_median_ns = med;
	return FIRES;
}

static void msg_first_step(char *m, size_t n, const struct finding *f, const char *where)
{
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];

	snprintf(m, n,
		 "The first step takes %s, %s the median of the others (%s)%s. Warm up before "
		 "measuring (torch.compile compilation, cudnn.benchmark autotuning, allocator "
		 "growth) or leave the first step out of timings.",
		 FMT(a, f->e.first_step_ns, UNIT_NS), FMT(v, f->value, UNIT_FACTOR),
		 FMT(b, f->e.others_median_ns, UNIT_NS), where);
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

static void msg_fps(char *m, size_t n, const struct finding *f, const char *where)
{
	char what[256], slow[64], ph[64], cat[64], fps[METRIC_FMT_MAX], tgt[METRIC_FMT_MAX];
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
	if (f->value > 0)
		snprintf(slow, sizeof(slow), ", %s too slow", FMT(a, 1 / f->value, UNIT_FACTOR));
	else
		slow[0] = '\0';
	snprintf(m, n,
		 "Generation runs at %s fps against a target of %s fps (%s real time%s)%s. %s, or "
		 "spread each video over more GPUs (sequence parallelism).",
		 FMT(fps, e->fps, UNIT_NUMBER), FMT(tgt, e->target_fps, UNIT_NUMBER),
		 FMT(rt, f->value, UNIT_FACTOR), slow, where, what);
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
	/* The message of f into m[0..n); where is "" or " on all 8 ranks (worst: rank 3)". */
	void (*message)(char *m, size_t n, const struct finding *f, const char *where);
};

/*
 * The rules, in the order suggestions of equal severity are given.  The
 * threshold texts are README's "fires when" column.
 */
static const struct rule rules[] = {
	{ "low-gpu-utilization", "gpu.utilization", SEV_MEDIUM, 1,
	  { { "utilization", 0.6, "fraction",
	      "GPU busy / active span is below this (medium); where collectives matched, the "
	      "effective utilization (busy less waiting), so a rank spinning in a collective for "
	      "a late rank does not pass for a busy one" },
	    { "utilization_high", 0.4, "fraction", "... below this (high)" } },
	  eval_low_util, msg_low_util },
	{ "launch-bound", "kernels.median_ns", SEV_HIGH, 1,
	  { { "kernel_us", 20, "us", "the median kernel is shorter than this many us ..." },
	    { "idle_share", 0.2, "fraction",
	      "... and GPU idle time is above this share of its active span" } },
	  eval_launch, msg_launch },
	{ "comm-heavy-low-overlap", "gpu.comm_share", SEV_HIGH, 0,
	  { { "comm_share", 0.2, "fraction",
	      "communication is above this share of GPU busy time (where collectives matched, "
	      "the transfer over busy time less waiting: waiting is the stragglers' doing) ..." },
	    { "comm_overlap", 0.5, "fraction",
	      "... and less than this share of it overlaps compute" } },
	  eval_comm, msg_comm },
	{ "straggler", NULL, SEV_HIGH, 0, { { NULL, 0, NULL, NULL } }, NULL, msg_straggler },
	{ "vae-decode-dominant", "phase:*.share", SEV_MEDIUM, 0,
	  { { "vae_share", 0.3, "fraction",
	      "a phase named `*vae*` or `*decode*` takes more than this share of the span" } },
	  eval_vae, msg_vae },
	{ "text-encoding-dominant", "phase:*.share", SEV_MEDIUM, 0,
	  { { "text_share", 0.15, "fraction",
	      "a phase named `*text_encod*`, `*encode_prompt*` or `*pre_denoising*` takes more "
	      "than this share" } },
	  eval_text, msg_text },
	{ "attention-dominant", "kernels.attention.share", SEV_MEDIUM, 0,
	  { { "attention_share", 0.5, "fraction",
	      "attention kernels take more than this share of kernel time" } },
	  eval_attention, msg_attention },
	{ "many-denoising-steps", "steps.count", SEV_MEDIUM, 0,
	  { { "steps", 30, "steps", "there are more denoising steps than this" } },
	  eval_steps, msg_steps },
	{ "memcpy-heavy", "gpu.memory_share", SEV_MEDIUM, 0,
	  { { "memcpy_share", 0.1, "fraction",
	      "memcpy/memset time is above this share of GPU busy time" } },
	  eval_memcpy, msg_memcpy },
	{ "host-sync", "cpu_ops.sync_share", SEV_MEDIUM, 0,
	  { { "sync_share", 0.05, "fraction",
	      "synchronising calls (`aten::item`, `aten::_local_scalar_dense`, or the "
	      "runtime calls of `gpu.host_sync_ns`, whichever is larger) hold the CPU for "
	      "more than this share of the span" } },
	  eval_sync, msg_sync },
	{ "memory-near-capacity", "memory:*.reserved_share", SEV_MEDIUM, 0,
	  { { "memory_share", 0.9, "fraction",
	      "peak reserved memory is above this share of the device's capacity" } },
	  eval_memory, msg_memory },
	{ "slow-first-step", "steps.first_ratio", SEV_LOW, 0,
	  { { "first_step_ratio", 1.5, "ratio",
	      "the first step is longer than this times the median of the others (medium "
	      "above twice this)" } },
	  eval_first_step, msg_first_step },
	{ "below-target-fps", "throughput.realtime_factor", SEV_HIGH, 1,
	  { { "realtime_factor", 1, "ratio",
	      "with `--target-fps`, the real-time factor is below this" } },
	  eval_fps, msg_fps },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))

_Static_assert(NR_RULES <= SUGGEST_MAX_RULES, "raise SUGGEST_MAX_RULES");

const size_t suggest_nr_rules = NR_RULES;

/* The straggler rule's index: its findings come from crossrank. */
static size_t straggler_rule(void)
{
	size_t i = 0;

	while (i < NR_RULES && rules[i].eval)
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

/* Room for one more hit at the end of h, or NULL when out of memory. */
static struct hit *hit_add(struct hits *h)
{
	if (ALLOC_GROW(h->v, h->n + 1, h->cap))
		return NULL;
	return &h->v[h->n++];
}

/*
 * Every rule with an evaluator on rank r (index seq): hits go to h, and
 * elig[rule] counts the ranks that have the rule's inputs.  -1 when out of
 * memory.
 */
static int eval_rank(struct hits *h, size_t *elig, struct arena *a, const struct report_rank *r,
		     size_t seq, const struct suggest_opts *o)
{
	for (size_t i = 0; i < NR_RULES; i++) {
		struct finding f;
		struct hit *x;
		int rc;

		if (!rules[i].eval)
			continue;
		memset(&f, 0, sizeof(f));
		f.sev = rules[i].sev;
		f.metric = rules[i].metric;
		rc = rules[i].eval(r, o->t[i], a, &f);
		if (rc < 0)
			return -1;
		if (rc == NO_INPUTS)
			continue;
		elig[i]++;
		if (rc != FIRES)
			continue;
		if (!(x = hit_add(h)))
			return -1;
		x->rule = i;
		x->rank = r->rank;
		x->seq = seq;
		x->f = f;
	}
	return 0;
}

static int cmp_hit(const void *pa, const void *pb)
{
	const struct hit *a = pa, *b = pb;

	if (a->f.sev != b->f.sev)
		return a->f.sev > b->f.sev ? -1 : 1;
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* 1 when a is further past the threshold than b. */
static int worse(const struct hit *a, const struct hit *b)
{
	return rules[a->rule].below ? a->f.value < b->f.value : a->f.value > b->f.value;
}

int suggest_compute(struct report *rep, const struct suggest_opts *o)
{
	struct suggest_opts defaults;
	struct hits h = { 0 };
	struct hit *out = NULL;
	struct report_suggestion *sg;
	size_t elig[NR_RULES] = { 0 }, nhit[NR_RULES] = { 0 }, nr_out = 0, strag = straggler_rule();
	int collapse[NR_RULES] = { 0 };
	int rc = -1;

	rep->suggestions = NULL;
	rep->nr_suggestions = 0;
	if (!o) {
		suggest_opts_init(&defaults);
		o = &defaults;
	}
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (eval_rank(&h, elig, &rep->arena, &rep->ranks[i], i, o))
			goto out;
	for (size_t i = 0; i < rep->nr_stragglers && strag < NR_RULES; i++) {
		const struct report_straggler *st = &rep->stragglers[i];
		struct hit *x = hit_add(&h);

		if (!x)
			goto out;
		memset(x, 0, sizeof(*x));
		x->rule = strag;
		x->rank = st->rank;
		x->seq = rep->nr_ranks + i;
		x->f.sev = rules[strag].sev;
		x->f.metric = st->metric ? st->metric : "?";
		x->f.value = st->value;
		x->f.threshold = st->median;
		x->f.e.excess = st->excess;
		x->f.e.rank = st->rank;
		x->f.e.last_share = st->last_share;
		x->f.e.delays = st->by_wait ? st->delays_name : NULL;
	}
	if (!h.n) {
		rc = 0;
		goto out;
	}

	for (size_t i = 0; i < h.n; i++)
		nhit[h.v[i].rule]++;
	for (size_t r = 0; r < NR_RULES; r++)
		collapse[r] = r != strag && rep->nr_ranks >= 2 && elig[r] >= 2 &&
			      nhit[r] == elig[r];

	/* the collapsed rules keep their worst hit, as rank -1 with the worst severity */
	out = malloc(h.n * sizeof(*out));
	if (!out)
		goto out;
	{
		size_t at[NR_RULES];

		for (size_t r = 0; r < NR_RULES; r++)
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
				enum report_severity sev = out[k].f.sev > x->f.sev ? out[k].f.sev
										   : x->f.sev;

				if (worse(x, &out[k]))
					out[k] = *x;
				out[k].f.sev = sev;
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
				snprintf(where, sizeof(where),
					 " on all %zu ranks (worst: rank %" PRId64 ")",
					 nhit[x->rule], x->rank);
			else
				snprintf(where, sizeof(where),
					 " on every rank that has the data (%zu of %zu; worst: "
					 "rank %" PRId64 ")",
					 nhit[x->rule], rep->nr_ranks, x->rank);
		}
		rules[x->rule].message(m, sizeof(m), &x->f, where);
		sg[i].id = rules[x->rule].id;
		sg[i].severity = x->f.sev;
		sg[i].rank = collapse[x->rule] ? -1 : x->rank;
		sg[i].metric = x->f.metric;
		sg[i].value = x->f.value;
		sg[i].threshold = x->f.threshold;
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
