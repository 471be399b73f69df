/*
 * workload: see workload.h.  Every test is a case-insensitive substring
 * of a phase, operator or kernel name; the tables say which.
 */
#include "workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ASCII only, as the needles are: no locale call per byte of a 60 MB name. */
static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

int workload_text_has(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	unsigned char first = lower((unsigned char)needle[0]);

	if (!hay)
		return 0;
	if (!n)
		return *hay != '\0';
	for (; *hay; hay++) {
		size_t i = 1;

		if (lower((unsigned char)*hay) != first)
			continue;
		while (i < n && hay[i] &&
		       lower((unsigned char)hay[i]) == lower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

static const char *const train_ops[] = { "autograd::engine::evaluate_function", "backward",
					 "optimizer.step" };
static const char *const train_phases[] = { "optimizer.step", "backward" };
static const char *const diff_phases[] = { "denois", "vae", "diffusion", "unet", "fastvideo",
					   "latent" };
static const char *const llm_phases[] = { "prefill", "step[decode", "step[extend",
					  "_generation_", "capture_", "decode_step" };
static const char *const llm_ops[] = { "vllm::", "sglang", "sgl_kernel", "flashinfer" };
static const char *const llm_kernels[] = { "paged_attention", "unified_attention",
					   "flashinfer", "silu_and_mul", "rotary_embedding" };

#define N(a) (sizeof(a) / sizeof(*(a)))

/* The first name of what (0 phases, 1 operators, 2 kernels) containing a needle. */
static const char *find(const struct report_rank *r, int what, const char *const *nd,
			size_t nr)
{
	size_t n = what == 0 ? r->nr_phases : what == 1 ? r->nr_cpu_ops : r->nr_kernels;

	for (size_t i = 0; i < n; i++) {
		const char *s = what == 0 ? r->phases[i].name :
				what == 1 ? r->cpu_ops[i].name : r->kernels[i].name;

		for (size_t k = 0; k < nr; k++)
			if (workload_text_has(s, nd[k]))
				return s;
	}
	return NULL;
}

const char *workload_name(enum workload_kind k)
{
	switch (k) {
	case WL_TRAINING:
		return "training";
	case WL_DIFFUSION:
		return "diffusion";
	case WL_LLM:
		return "llm-serving";
	default:
		return "other";
	}
}

/* A trace's name, printable and short, for the reason. */
static void quote(char *out, size_t n, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 4 < n && k < 60; s++)
		out[k++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	if (s && *s && k + 4 <= n) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k < n ? k : n - 1] = '\0';
}

enum workload_kind workload_of(const struct report *rep, char *reason, size_t n)
{
	static const struct {
		enum workload_kind kind;
		int what;
		const char *const *nd;
		size_t nr;
	} tests[] = {
		{ WL_TRAINING, 1, train_ops, N(train_ops) },
		{ WL_TRAINING, 0, train_phases, N(train_phases) },
		{ WL_DIFFUSION, 0, diff_phases, N(diff_phases) },
		{ WL_LLM, 0, llm_phases, N(llm_phases) },
		{ WL_LLM, 1, llm_ops, N(llm_ops) },
		{ WL_LLM, 2, llm_kernels, N(llm_kernels) },
	};
	static const char *const what[] = { "phase", "operator", "kernel" };

	for (size_t t = 0; t < N(tests); t++) {
		for (size_t i = 0; i < rep->nr_ranks; i++) {
			const char *s = find(&rep->ranks[i], tests[t].what, tests[t].nd,
					     tests[t].nr);
			char q[72];

			if (!s)
				continue;
			quote(q, sizeof(q), s);
			snprintf(reason, n, "%s '%s' on rank %" PRId64, what[tests[t].what], q,
				 rep->ranks[i].rank);
			return tests[t].kind;
		}
	}
	snprintf(reason, n, "no training, diffusion or LLM-serving phase, operator or kernel");
	return WL_OTHER;
}
