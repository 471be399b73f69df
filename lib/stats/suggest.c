/*
 * suggest: the findings engine; see suggest.h.  The rules are apart
 * (rule.h): this file knows what a rule is and nothing of any one rule.
 *
 * Two passes.  The first evaluates every rule on every rank it sees and
 * keeps each firing as a hit: the value, the threshold, the time at stake
 * and the evidence its message needs, with strings borrowed from the
 * report.  Where a rule yields to another that fired on the same rank, its
 * hit is dropped; the run-wide rules then add theirs.  The second groups
 * the hits by rule, keeps the worst of each group, sorts the groups by
 * impact and only then writes the messages into the arena, so a rule costs
 * one message however many ranks it fired on.  Scratch arrays are malloc'd
 * and freed here.
 */
#include "suggest.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rankset.h"
#include "rule.h"

const char *suggest_rule_id(size_t i)
{
	return i < suggest_nr_rules ? rule_table[i]->id : NULL;
}

void suggest_opts_init(struct suggest_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < suggest_nr_rules; i++)
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rule_table[i]->thr[k].name; k++)
			o->t[i][k] = rule_table[i]->thr[k].def;
}

size_t suggest_nr_thresholds(void)
{
	size_t n = 0;

	for (size_t i = 0; i < suggest_nr_rules; i++)
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rule_table[i]->thr[k].name; k++)
			n++;
	return n;
}

/* The rule and position of the i-th threshold, or of the one called name; -1: none. */
static int locate(size_t i, const char *name, size_t *rule, size_t *pos)
{
	for (size_t r = 0; r < suggest_nr_rules; r++) {
		for (size_t k = 0; k < SUGGEST_RULE_THRESHOLDS && rule_table[r]->thr[k].name; k++) {
			if (name ? strcmp(rule_table[r]->thr[k].name, name) == 0 : i == 0) {
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
		*rule = rule_table[r]->id;
	return &rule_table[r]->thr[k];
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
	size_t rule;			/* index in rule_table[] */
	int64_t rank;
	size_t seq;			/* index in rep->ranks; run-wide firings after them */
	struct finding f;
};

struct hits {
	struct hit *v;
	size_t n, cap;
	/* for rule_fire(): the run-wide rule being evaluated, the next seq */
	size_t rule, seq;
	enum workload_kind wl;
};

/* Room for one more hit at the end of h, zeroed, or NULL when out of memory. */
static struct hit *hit_add(struct hits *h)
{
	if (ALLOC_GROW(h->v, h->n + 1, h->cap))
		return NULL;
	memset(&h->v[h->n], 0, sizeof(h->v[h->n]));
	return &h->v[h->n++];
}

/* f as it stands before rule i's evaluator runs. */
static void finding_init(struct finding *f, size_t i, enum workload_kind wl, double span_ns)
{
	memset(f, 0, sizeof(*f));
	f->sev = rule_table[i]->sev;
	f->metric = rule_table[i]->metric;
	f->impact_ns = -1;
	f->wl = wl;
	f->span_ns = span_ns;
}

/* The words of advice: the rank's vendor; none for a CPU-only rank. */
static const char *rank_vendor(const struct report_rank *r)
{
	return !r->analysed || r->gpu.no_device ? NULL
	       : r->device.vendor		? r->device.vendor
					: "unknown";
}

struct finding *rule_fire(struct hits *h, const struct report_rank *r)
{
	struct hit *x = hit_add(h);

	if (!x)
		return NULL;
	x->rule = h->rule;
	x->rank = r->rank;
	x->seq = h->seq++;
	finding_init(&x->f, h->rule, h->wl, (double)r->span_ns);
	x->f.vendor = rank_vendor(r);
	return &x->f;
}

/* The index of rule p in rule_table[]. */
static size_t index_of(const struct rule *p)
{
	size_t i = 0;

	while (i < suggest_nr_rules && rule_table[i] != p)
		i++;
	return i;
}

/* 1 when rule rl is evaluated on r: the incomplete ranks are incomplete-ranks' alone. */
static int sees(const struct rule *rl, const struct report_rank *r)
{
	return rl->eval && (rl->incomplete ? !r->complete : r->complete);
}

/* Rule i on r against thresholds t into *f: its evaluator's result. */
static int evaluate(size_t i, const struct report_rank *r, const double *t, struct arena *a,
		    enum workload_kind wl, struct finding *f)
{
	finding_init(f, i, wl, (double)r->span_ns);
	f->vendor = rank_vendor(r);
	return rule_table[i]->eval(r, t, a, f);
}

/*
 * 1 when the rank rule y fires on r: at its default thresholds (def) when
 * the rule yielding to it says so, else at those in force (the hits of r,
 * from first on, hold those).  -1 when out of memory.
 */
static int fired(const struct hits *h, size_t first, size_t y, int at_default,
		 const struct report_rank *r, struct arena *a, const struct suggest_opts *def)
{
	struct finding f;
	int rc;

	if (!at_default) {
		for (size_t k = first; k < h->n; k++)
			if (h->v[k].rule == y)
				return 1;
		return 0;
	}
	if (!sees(rule_table[y], r))
		return 0;
	rc = evaluate(y, r, def->t[y], a, h->wl, &f);
	return rc < 0 ? -1 : rc == FIRES;
}

/*
 * Every rank rule that sees r (index seq: the complete ranks, or the
 * incomplete ones) on r: hits go to h.  Then each hit of a rule that
 * yields to another that fired on r is dropped, judged on the hits before
 * any is dropped.  -1 when out of memory.
 */
static int eval_rank(struct hits *h, struct arena *a, const struct report_rank *r, size_t seq,
		     const struct suggest_opts *o, const struct suggest_opts *def)
{
	size_t first = h->n, n;
	char drop[SUGGEST_MAX_RULES] = { 0 };

	for (size_t i = 0; i < suggest_nr_rules; i++) {
		const struct rule *rl = rule_table[i];
		struct finding f;
		struct hit *x;
		int rc;

		if (!sees(rl, r))
			continue;
		rc = evaluate(i, r, o->t[i], a, h->wl, &f);
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
	}
	for (size_t k = first; k < h->n; k++) {
		const struct rule *rl = rule_table[h->v[k].rule];
		int rc;

		if (!rl->yields_to)
			continue;
		rc = fired(h, first, index_of(rl->yields_to), rl->yields_at_default, r, a, def);
		if (rc < 0)
			return -1;
		drop[h->v[k].rule] = (char)rc;
	}
	n = first;
	for (size_t k = first; k < h->n; k++)
		if (!drop[h->v[k].rule])
			h->v[n++] = h->v[k];
	h->n = n;
	return 0;
}

/* Every run-wide rule on rep, after the ranks' (the first seq: nr_ranks). */
static int eval_run(struct hits *h, struct report *rep, const struct suggest_opts *o)
{
	h->seq = rep->nr_ranks;
	for (size_t i = 0; i < suggest_nr_rules; i++) {
		if (!rule_table[i]->eval_run)
			continue;
		h->rule = i;
		if (rule_table[i]->eval_run(rep, o->t[i], h))
			return -1;
	}
	return 0;
}

/* 1 when a is the worse evidence of one rule: more time at stake, else further past. */
static int worse(const struct hit *a, const struct hit *b)
{
	if (a->f.impact_ns != b->f.impact_ns)
		return a->f.impact_ns > b->f.impact_ns;
	if (a->f.value != b->f.value)
		return rule_table[a->rule]->below ? a->f.value < b->f.value
						   : a->f.value > b->f.value;
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
	rule_table[x->rule]->message(&t, &x->f);
	where[0] = (char)tolower((unsigned char)where[0]);
	sg->id = rule_table[x->rule]->id;
	sg->severity = g->sev;
	sg->rank = n == 1 ? ranks[0] : INT64_MIN;
	sg->ranks = ranks;
	sg->nr_ranks = n;
	sg->worst_rank = x->rank >= 0 ? x->rank : INT64_MIN;
	sg->metric = x->f.metric ? x->f.metric : rule_table[x->rule]->metric;
	sg->value = x->f.value;
	sg->threshold = x->f.threshold;
	sg->impact_ns = x->f.impact_ns >= 0 ? (int64_t)x->f.impact_ns : INT64_MIN;
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
	size_t ng = 0;
	char reason[160];
	int rc = -1;

	rep->suggestions = NULL;
	rep->nr_suggestions = 0;
	suggest_opts_init(&defaults);
	if (!o)
		o = &defaults;
	h.wl = workload_of(rep, reason, sizeof(reason));
	rep->workload = workload_name(h.wl);
	if (!(rep->workload_reason = arena_strndup(&rep->arena, reason, strlen(reason))))
		goto out;
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (eval_rank(&h, &rep->arena, &rep->ranks[i], i, o, &defaults))
			goto out;
	if (eval_run(&h, rep, o))
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
