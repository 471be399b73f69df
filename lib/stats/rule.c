/*
 * rule: the rule table and the words and tests its rules share; see rule.h.
 */
#include "rule.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vendor_words.h"

/*
 * The rules, in the order findings of equal impact and severity are
 * given, and their thresholds in --help and doc/findings.md.
 */
const struct rule *const rule_table[] = {
	&rule_incomplete,
	&rule_low_util,
	&rule_launch,
	&rule_window,
#define RULE_IDLE_REF(u, l, id) &rule_idle_##l,
	IDLE_CAUSES_FOUND(RULE_IDLE_REF)
#undef RULE_IDLE_REF
	&rule_comm,
	&rule_comm_wait,
	&rule_straggler,
	&rule_vae,
	&rule_text,
	&rule_attention,
	&rule_steps,
	&rule_memcpy,
	&rule_sync,
	&rule_memory,
	&rule_first_step,
	&rule_roof,
	&rule_fps,
};

#define NR_RULES (sizeof(rule_table) / sizeof(rule_table[0]))

_Static_assert(NR_RULES <= SUGGEST_MAX_RULES, "raise SUGGEST_MAX_RULES");

const size_t suggest_nr_rules = NR_RULES;

const char *rule_fmt(struct arena *a, const char *fmt, ...)
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

const char *rule_plain(char *b, size_t n, const char *s)
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

const char *rule_device(const struct finding *f)
{
	const char *d = vendor_words(f->vendor)->device;

	return d ? d : "device";
}

const char *rule_alloc_conf(const struct finding *f)
{
	const char *c = vendor_words(f->vendor)->alloc_conf;

	return c ? c : "the allocator's expandable_segments:True";
}

const char *rule_graph_words(const char *vendor)
{
	const char *g = vendor_words(vendor)->graphs;

	return g ? g : "graphs";
}

const char *rule_loop_words(enum workload_kind wl)
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

struct graph_ev rule_graphs(const struct report_rank *r)
{
	struct graph_ev g;

	g.kernels = r->gpu.kernels > 0 ? (double)r->gpu.kernels : 0;	/* null: none */
	g.graph_kernels = r->gpu.graph_kernels > 0 ? (double)r->gpu.graph_kernels : 0;
	return g;
}

int rule_graphs_in_use(const struct graph_ev *g)
{
	return g->kernels > 0 && g->graph_kernels * 2 > g->kernels;
}

int rule_has_gpu_wait(const struct report_gpu *g)
{
	return g->has_wait && isfinite(g->effective_utilization) && !g->cpu_comm;
}
