/*
 * rules_device: the rules of what the device runs (rule.h): attention,
 * memory copies, memory near capacity and operators below their roofline.
 */
#include "rule.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vendor_words.h"

/* attention-dominant: attention kernels above t[0] of kernel time. */
static int eval_attention(const struct report_rank *r, const double *t, struct arena *a,
			  struct finding *f)
{
	struct attention_ev *e = &f->e.attention;
	double attn = 0, share;

	(void)a;
	if (!r->analysed || r->gpu.kernel_time_ns <= 0)
		return NO_INPUTS;
	for (size_t i = 0; i < r->nr_kernels; i++)
		if (category_of(r->kernels[i].category) == CAT_ATTENTION)
			attn += (double)r->kernels[i].d.total_ns;
	share = attn / (double)r->gpu.kernel_time_ns;
	if (!(share > t[0]))
		return QUIET;
	f->value = share;
	f->threshold = t[0];
	f->impact_ns = attn;
	f->basis = "attention kernel time (an upper bound)";
	e->kernel_ns = attn;
	return FIRES;
}

static void msg_attention(struct text *t, const struct finding *f)
{
	const struct attention_ev *e = &f->e.attention;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: attention kernels take %s of kernel time.", t->where,
		 FMT(v, f->value, UNIT_RATIO));
	if (f->wl == WL_DIFFUSION)
		snprintf(t->d, sizeof(t->d),
			 "%s of attention. Long video token sequences make attention quadratic: "
			 "use sparse or sliding-window attention, FP8 attention (e.g. "
			 "SageAttention), or %s.",
			 FMT(a, e->kernel_ns, UNIT_NS), vendor_words(f->vendor)->fast_attention);
	else
		snprintf(t->d, sizeof(t->d),
			 "%s of attention. Use the fused attention kernels of the device "
			 "(FlashAttention, SDPA's flash or memory-efficient backend), lower "
			 "precision (FP8) where accuracy allows, or shorter sequences.",
			 FMT(a, e->kernel_ns, UNIT_NS));
}

/* memcpy-heavy: memcpy/memset above t[0] of GPU busy time. */
static int eval_memcpy(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	struct memcpy_ev *e = &f->e.memcpy;
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
	e->memory_ns = (double)r->gpu.memory_ns;
	return FIRES;
}

static void msg_memcpy(struct text *t, const struct finding *f)
{
	const struct memcpy_ev *e = &f->e.memcpy;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	snprintf(t->m, sizeof(t->m), "%s: memory copies take %s of %s busy time.", t->where,
		 FMT(v, f->value, UNIT_RATIO), rule_device(f));
	snprintf(t->d, sizeof(t->d),
		 "%s of copies. Use pinned host memory and non_blocking=True copies, keep %s on "
		 "the device, and avoid .cpu() and .item() inside %s.",
		 FMT(a, e->memory_ns, UNIT_NS),
		 f->wl == WL_DIFFUSION ? "latents and embeddings" : "tensors",
		 rule_loop_words(f->wl));
}

/*
 * Reserved up front: at a moment in the first quarter of m's timeline the
 * allocator holds at least 80 % of its peak reservation and at least twice
 * what tensors use then (doc/findings.md).  A cache that grows with the
 * work reaches its peak late, or holds about what tensors use.
 */
static int up_front(const struct report_memory *m, struct memory_ev *e)
{
	const int64_t *v = m->timeline;
	size_t n = m->nr_timeline;
	int64_t t0, t1;

	if (n < 2 || m->peak_reserved <= 0)
		return 0;
	t0 = v[0];
	t1 = v[3 * (n - 1)];
	for (size_t i = 0; i < n; i++) {
		int64_t t = v[3 * i], alloc = v[3 * i + 1], res = v[3 * i + 2];

		if ((double)(t - t0) > 0.25 * (double)(t1 - t0))
			break;
		if ((double)res >= 0.8 * (double)m->peak_reserved && alloc >= 0 &&
		    (double)res >= 2.0 * (double)alloc) {
			e->early_reserved = (double)res;
			e->early_allocated = (double)alloc;
			return 1;
		}
	}
	return 0;
}

/* memory-near-capacity: the fullest GPU's peak reserved above t[0] of its capacity. */
static int eval_memory(const struct report_rank *r, const double *t, struct arena *a,
		       struct finding *f)
{
	struct memory_ev *e = &f->e.memory;
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
	if (!(f->metric = rule_fmt(a, "memory:%" PRId64 ".reserved_share", best->device)))
		return -1;
	f->value = bs;
	f->threshold = t[0];
	e->capacity = (double)best->capacity;
	e->device = best->device;
	e->alloc_share = best->peak_allocated >= 0
				 ? (double)best->peak_allocated / (double)best->capacity
				 : NAN;
	e->up_front = up_front(best, e);
	return FIRES;
}

static void msg_memory(struct text *t, const struct finding *f)
{
	const struct memory_ev *e = &f->e.memory;
	char v[METRIC_FMT_MAX], a[METRIC_FMT_MAX];

	char al[METRIC_FMT_MAX], r0[METRIC_FMT_MAX], a0[METRIC_FMT_MAX];

	/* reserved: what the caching allocator holds; allocated: what tensors use of it */
	if (isnan(e->alloc_share))
		snprintf(al, sizeof(al), "an unknown share");
	else
		FMT(al, e->alloc_share, UNIT_RATIO);
	if (e->up_front) {
		snprintf(t->m, sizeof(t->m),
			 "%s: device %" PRId64 "'s memory is reserved up front: the allocator "
			 "holds %s of its %s, tensors at most %s.", t->where, e->device,
			 FMT(v, f->value, UNIT_RATIO), FMT(a, e->capacity, UNIT_BYTES), al);
		snprintf(t->d, sizeof(t->d),
			 "Early in the trace %s was already reserved while tensors used %s: a "
			 "deliberate reservation, as an inference engine makes for its KV cache "
			 "or a memory pool, not a leak or fragmentation. Nothing to fix unless "
			 "another process needs the memory (then lower the engine's share, "
			 "such as vLLM's gpu_memory_utilization) or the allocated peak nears "
			 "the reservation.",
			 FMT(r0, e->early_reserved, UNIT_BYTES),
			 FMT(a0, e->early_allocated, UNIT_BYTES));
		return;
	}
	snprintf(t->m, sizeof(t->m),
		 "%s: peak reserved memory on device %" PRId64 " is %s of its %s (tensors "
		 "allocated at most %s).", t->where, e->device, FMT(v, f->value, UNIT_RATIO),
		 FMT(a, e->capacity, UNIT_BYTES), al);
	snprintf(t->d, sizeof(t->d),
		 "Reserved is what the caching allocator holds, allocated what tensors use "
		 "of it. No time is at stake yet, but the next size up will not fit. %s, and "
		 "set %s against fragmentation.",
		 f->wl == WL_DIFFUSION
			 ? "Reduce batch or resolution per device, enable VAE tiling, offload "
			   "activations or the text encoder"
		 : f->wl == WL_TRAINING
			 ? "Reduce the batch per device, use activation checkpointing, or shard "
			   "optimizer state (FSDP/ZeRO)"
		 : f->wl == WL_LLM
			 ? "Lower the KV-cache fraction or the batch size, or quantize the "
			   "weights or the KV cache"
			 : "Reduce the batch per device or offload what is not in use",
		 rule_alloc_conf(f));
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
	struct roof_ev *e = &f->e.roof;
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
		e->family = report_perf_family_name(k);
		e->family_share = ns / kernel;
		e->family_ns = ns;
		e->top = fam->top;
		e->top_roof_share = fam->top_roof_share;
	}
	return stake > 0 ? FIRES : any ? QUIET : NO_INPUTS;
}

static void msg_roof(struct text *t, const struct finding *f)
{
	const struct roof_ev *e = &f->e.roof;
	char v[METRIC_FMT_MAX], s[METRIC_FMT_MAX], n[METRIC_FMT_MAX], r[METRIC_FMT_MAX];
	char name[128];
	const char *fam = e->family, *fix;

	if (!strcmp(fam, "attention"))
		fix = "a fused attention kernel (SDPA's flash or cuDNN backend, not matmul, "
		      "softmax and matmul apart), bf16/fp16, a head dimension that is a multiple "
		      "of 64 and longer sequences per call";
	else if (!strcmp(fam, "conv"))
		fix = "channels_last layouts, torch.backends.cudnn.benchmark = True, bf16/fp16, "
		      "channel counts that are multiples of 8 and a larger batch";
	else
		fix = "bf16/fp16 (or fp8) instead of fp32, contiguous operands, dimensions that "
		      "are multiples of 8 (16 for fp8) and larger or batched matrices (a small M "
		      "leaves the device memory-bound)";
	snprintf(t->m, sizeof(t->m),
		 "%s: %s operators take %s of kernel time but reach only %s of their roofline.",
		 t->where, !strcmp(fam, "gemm") ? "GEMM" : !strcmp(fam, "conv") ? "convolution"
								 : "attention",
		 FMT(s, e->family_share, UNIT_RATIO), FMT(v, f->value, UNIT_RATIO));
	snprintf(t->d, sizeof(t->d),
		 "%s of them; the one with the most time, %s, reaches %s of its roof. What "
		 "usually fixes it: %s.",
		 FMT(n, e->family_ns, UNIT_NS), rule_plain(name, sizeof(name), e->top),
		 FMT(r, e->top_roof_share, UNIT_RATIO), fix);
}

const struct rule rule_attention = {
	.id = "attention-dominant",
	.metric = MK_KERNELS_ATTENTION_SHARE,
	.sev = SEV_MEDIUM,
	.thr = { { "attention_share", 0.5, "fraction",
		   "attention kernels take more than this share of kernel time" } },
	.eval = eval_attention,
	.message = msg_attention,
};

const struct rule rule_memcpy = {
	.id = "memcpy-heavy",
	.metric = MK_GPU_MEMORY_SHARE,
	.sev = SEV_MEDIUM,
	.thr = { { "memcpy_share", 0.1, "fraction",
		   "memcpy/memset time is above this share of GPU busy time" } },
	.eval = eval_memcpy,
	.message = msg_memcpy,
};

const struct rule rule_memory = {
	.id = "memory-near-capacity",
	.metric = "memory:*.reserved_share",
	.sev = SEV_MEDIUM,
	.thr = { { "memory_share", 0.9, "fraction",
		   "peak reserved memory is above this share of the device's capacity" } },
	.eval = eval_memory,
	.message = msg_memory,
};

const struct rule rule_roof = {
	.id = "below-roof",
	.metric = MK_PERF_ROOF_SHARE,
	.sev = SEV_MEDIUM,
	.below = 1,
	.thr = { { "roof_family_share", 0.2, "fraction",
		   "with shapes (doc/perf-model.md), GEMM, attention or convolution operators "
		   "take more than this share of kernel time ..." },
		 { "roof_share", 0.3, "fraction",
		   "... and reach, weighted by time, less than this share of their roofline" } },
	.eval = eval_roof,
	.message = msg_roof,
};
