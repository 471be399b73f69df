/*
 * rules_pipeline: the rules of a pipeline's phases and steps (rule.h):
 * VAE decoding, text encoding, the number of steps, a slow first step and
 * a target frame rate.
 */
#include "rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* A phase of r named like one of the needles whose share is above t. */
static int eval_phase(const struct report_rank *r, double t, struct arena *a, struct finding *f,
		      const char *const *needles, size_t nr_needles)
{
	struct phase_ev *e = &f->e.phase;
	const struct report_phase *p;

	if (!r->has_phases || f->wl != WL_DIFFUSION)
		return NO_INPUTS;
	p = phase_match(r, needles, nr_needles);
	if (!p || !(p->share > t))
		return QUIET;
	if (!(f->metric = rule_fmt(a, "phase:%s.share", p->path ? p->path : p->name)))
		return -1;
	f->value = p->share;
	f->threshold = t;
	f->impact_ns = (double)p->d.total_ns;
	f->basis = "the phase's time";
	e->phase = p->name;
	e->phase_ns = (double)p->d.total_ns;
	e->phase_calls = (double)p->d.count;
	return FIRES;
}

/* vae-decode-dominant: in diffusion pipelines, a *vae* or *decode* phase above t[0] of the span. */
static int eval_vae(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f)
{
	return eval_phase(r, t[0], a, f, vae_needles, sizeof(vae_needles) / sizeof(*vae_needles));
}

static void msg_vae(struct text *t, const struct finding *f)
{
	const struct phase_ev *e = &f->e.phase;
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: the VAE phase '%s' takes %s of the trace.", t->where,
		 rule_plain(name, sizeof(name), e->phase), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s in the phase. Decode in spatial tiles and temporal chunks, run the decode on "
		 "a separate stream or overlap it with the next generation, or use a lighter "
		 "(distilled or tiny) decoder.",
		 FMT(a, e->phase_ns, UNIT_NS));
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
	const struct phase_ev *e = &f->e.phase;
	char name[64], v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], c[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: text encoding (phase '%s') takes %s of the trace.",
		 t->where, rule_plain(name, sizeof(name), e->phase), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s in %s calls. Cache prompt embeddings and run the text encoder once per "
		 "prompt, not per block or step; offload it to another device or quantize it "
		 "(FP8/INT8).",
		 FMT(a, e->phase_ns, UNIT_NS), FMT(c, e->phase_calls, UNIT_COUNT));
}

/*
 * many-denoising-steps: in a diffusion pipeline, more than t[0] steps, the
 * warm-up one included.  At stake: the steps beyond t[0] at the median step.
 */
static int eval_steps(const struct report_rank *r, const double *t, struct arena *a,
		      struct finding *f)
{
	struct steps_ev *e = &f->e.steps;
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
	e->step_median_ns = r->steps.d.median_ns;
	e->pattern = r->steps.pattern;
	return FIRES;
}

static void msg_steps(struct text *t, const struct finding *f)
{
	const struct steps_ev *e = &f->e.steps;
	char v[METRIC_FMT_MAX], pat[64], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: %s denoising steps (median %s).", t->where,
		 FMT(v, f->value, UNIT_COUNT), FMT(a, e->step_median_ns, UNIT_NS));
	snprintf(t->d, sizeof(t->d),
		 "Steps are spans matching %s. Cut the step count with a step-distilled model or "
		 "a fewer-step sampler, or reuse DiT features across neighbouring steps (TeaCache "
		 "or FasterCache style step caching).",
		 rule_plain(pat, sizeof(pat), e->pattern));
}

/*
 * slow-first-step: the first step over t[0] times the others' median;
 * medium over twice.  A last step cut off by the end of the trace is none
 * of "the others".  At stake: the first step less that median.
 */
static int eval_first_step(const struct report_rank *r, const double *t, struct arena *a,
			   struct finding *f)
{
	struct first_step_ev *e = &f->e.first_step;
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
	e->first_step_ns = (double)r->steps.durations_ns[0];
	e->others_median_ns = med;
	e->cut_off = r->steps.cut_off == 1;
	return FIRES;
}

static void msg_first_step(struct text *t, const struct finding *f)
{
	const struct first_step_ev *e = &f->e.first_step;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: the first step takes %s the median of the others.",
		 t->where, FMT(v, f->value, UNIT_FACTOR));
	snprintf(t->d, sizeof(t->d),
		 "%s against %s%s. Warm up before measuring (torch.compile compilation, "
		 "cudnn.benchmark autotuning, allocator growth) or leave the first step out of "
		 "timings.",
		 FMT(a, e->first_step_ns, UNIT_NS), FMT(b, e->others_median_ns, UNIT_NS),
		 e->cut_off ? " (the last step, cut off by the end of the trace, left out)" : "");
}

/* below-target-fps: with --target-fps, a real-time factor below t[0]. */
static int eval_fps(const struct report_rank *r, const double *t, struct arena *a,
		    struct finding *f)
{
	struct fps_ev *e = &f->e.fps;
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
	e->fps = tp->fps;
	e->target_fps = tp->target_fps;
	e->phase = p ? p->name : NULL;
	e->phase_share = p ? p->share : 0;
	e->category = r->analysed ? top_category(r, &cat_ns) : NULL;
	e->category_share = e->category && r->gpu.kernel_time_ns > 0
				      ? cat_ns / (double)r->gpu.kernel_time_ns
				      : 0;
	return FIRES;
}

static void msg_fps(struct text *t, const struct finding *f)
{
	char what[256], ph[64], cat[64], fps[METRIC_FMT_MAX], tgt[METRIC_FMT_MAX];
	char rt[METRIC_FMT_MAX], a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];
	const struct fps_ev *e = &f->e.fps;

	if (e->phase && e->category)
		snprintf(what, sizeof(what),
			 "Most time goes to phase '%s' (%s of the trace) and to %s kernels (%s of "
			 "kernel time): speed those up first",
			 rule_plain(ph, sizeof(ph), e->phase), FMT(a, e->phase_share, UNIT_RATIO),
			 rule_plain(cat, sizeof(cat), e->category),
			 FMT(b, e->category_share, UNIT_RATIO));
	else if (e->phase)
		snprintf(what, sizeof(what),
			 "Most time goes to phase '%s' (%s of the trace): speed it up first",
			 rule_plain(ph, sizeof(ph), e->phase), FMT(a, e->phase_share, UNIT_RATIO));
	else if (e->category)
		snprintf(what, sizeof(what),
			 "Most kernel time goes to %s kernels (%s): speed those up first",
			 rule_plain(cat, sizeof(cat), e->category),
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

const struct rule rule_vae = {
	.id = "vae-decode-dominant",
	.metric = "phase:*.share",
	.sev = SEV_MEDIUM,
	.thr = { { "vae_share", 0.3, "fraction",
		   "in a diffusion pipeline, a phase named `*vae*` or `*decode*` takes more than "
		   "this share of the span" } },
	.eval = eval_vae,
	.message = msg_vae,
};

const struct rule rule_text = {
	.id = "text-encoding-dominant",
	.metric = "phase:*.share",
	.sev = SEV_MEDIUM,
	.thr = { { "text_share", 0.15, "fraction",
		   "in a diffusion pipeline, a phase named `*text_encod*`, `*encode_prompt*` or "
		   "`*pre_denoising*` takes more than this share" } },
	.eval = eval_text,
	.message = msg_text,
};

const struct rule rule_steps = {
	.id = "many-denoising-steps",
	.metric = MK_STEPS_COUNT,
	.sev = SEV_MEDIUM,
	.thr = { { "steps", 30, "steps",
		   "in a diffusion pipeline, there are more denoising steps than this" } },
	.eval = eval_steps,
	.message = msg_steps,
};

const struct rule rule_first_step = {
	.id = "slow-first-step",
	.metric = MK_STEPS_FIRST_RATIO,
	.sev = SEV_LOW,
	.thr = { { "first_step_ratio", 1.5, "ratio",
		   "the first step is longer than this times the median of the others (medium "
		   "above twice this; a last step cut off by the end of the trace is left out)" } },
	.eval = eval_first_step,
	.message = msg_first_step,
};

const struct rule rule_fps = {
	.id = "below-target-fps",
	.metric = MK_THROUGHPUT_REALTIME_FACTOR,
	.sev = SEV_HIGH,
	.below = 1,
	.thr = { { "realtime_factor", 1, "ratio",
		   "with `--target-fps`, the real-time factor is below this" } },
	.eval = eval_fps,
	.message = msg_fps,
};
