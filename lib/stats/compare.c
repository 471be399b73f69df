/* compare: see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "compare_metrics.h"

struct rows {
	struct row *v;
	size_t n, alloc;
};

static struct row *push_row(struct rows *r)
{
	if (ALLOC_GROW(r->v, r->n + 1, r->alloc))
		return NULL;
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	return &r->v[r->n++];
}

static int cmp_kernel_value(const void *x, const void *y)
{
	const struct metric *p = *(const struct metric *const *)x;
	const struct metric *q = *(const struct metric *const *)y;

	if (p->value != q->value)
		return p->value > q->value ? -1 : 1;
	return strcmp(p->name, q->name);
}

/*
 * Mark in keep[] (parallel to l) the top kernels of l by value.  l is
 * sorted by name; ties of value go by name so the choice is stable.
 */
static int top_kernels(const struct metric_list *l, size_t top, char *keep)
{
	const struct metric **k = malloc((l->n ? l->n : 1) * sizeof(*k));
	size_t n;

	if (!k)
		return -1;
	/* the kernels, then the CPU operators: the top of each */
	for (int ops = 0; ops < 2; ops++) {
		n = 0;
		for (size_t i = 0; i < l->n; i++)
			if (ops ? l->v[i].is_op : l->v[i].is_kernel)
				k[n++] = &l->v[i];
		qsort(k, n, sizeof(*k), cmp_kernel_value);
		for (size_t i = 0; i < n && i < top; i++)
			keep[k[i] - l->v] = 1;
	}
	free(k);
	return 0;
}

/* What is compared: kernels in either side's top, like with like (compare.h). */
struct selection {
	const struct report *rb, *rn;
	const struct metric_list *base, *new;
	char *keep_base, *keep_new;
	int no_steps;		/* the sides count different spans as steps */
	int effective;		/* both have effective utilization: it stands for utilization */
};

static int selected(const struct selection *s, const struct metric *m)
{
	const struct metric *b, *n;

	if (s->no_steps && !strncmp(m->name, "steps.", 6))
		return 0;
	if (s->effective && !strcmp(m->name, MK_GPU_UTILIZATION))
		return 0;
	if (!m->is_kernel && !m->is_op)
		return 1;
	b = metrics_find(s->base, m->name);
	n = metrics_find(s->new, m->name);
	if (m->is_op && (!b || !n))
		return 0;	/* an operator on one side only: no row */
	return (b && s->keep_base[b - s->base->v]) || (n && s->keep_new[n - s->new->v]);
}

/* The sum over rep's ranks (or rank r alone, r >= 0) of scalar path. */
static double sum_of(const struct report *rep, int64_t r, const char *path)
{
	const struct metric_def *d = metric_find(path);
	double sum = 0, v;

	for (size_t i = 0; d && i < rep->nr_ranks; i++)
		if ((r < 0 || rep->ranks[i].rank == r) && metric_value(d, &rep->ranks[i], &v))
			sum += v;
	return sum;
}

/* Busy time grew no more than communication time did (rank r, or the run). */
static int more_waiting(const struct selection *s, int64_t r)
{
	double busy = sum_of(s->rn, r, MK_GPU_BUSY_NS) - sum_of(s->rb, r, MK_GPU_BUSY_NS);
	double comm = sum_of(s->rn, r, MK_GPU_COMM_NS) - sum_of(s->rb, r, MK_GPU_COMM_NS);

	return comm > 0 && busy <= comm;
}

/* 1 when metric name is derived from busy time (the catalogue's MF_BUSY). */
static int busy_derived(const char *name)
{
	const struct metric_def *d = metric_find(name);

	return d && (d->flags & MF_BUSY);
}

/* "kernel:NAME.total_ns" -> NAME, in a */
static const char *kernel_name(struct arena *a, const char *metric)
{
	size_t pre = strlen("kernel:"), suf = strlen(".total_ns");

	return arena_strndup(a, metric + pre, strlen(metric) - pre - suf);
}

static int add_kernel(struct kernel_delta *v, size_t *n, double *sum, struct arena *a,
		      const struct metric *m)
{
	v[*n].name = kernel_name(a, m->name);
	v[*n].total_ns = m->value;
	*sum += m->value;
	return v[(*n)++].name ? 0 : -1;
}

/* Rows for one pair of lists (the run, or one rank), by merging names. */
static int merge(struct rows *out, const struct metric_list *b, const struct metric_list *n,
		 const struct selection *sel, int64_t rank, const struct thresholds *t,
		 struct comparison *c)
{
	const struct metric *span = metrics_find(b, MK_SPAN_NS);
	size_t i = 0, j = 0;

	while (i < b->n || j < n->n) {
		int cmp = i == b->n   ? 1
			  : j == n->n ? -1
				       : metrics_cmp_names(b->v[i].name, n->v[j].name);
		const struct metric *mb = cmp <= 0 ? &b->v[i] : NULL;
		const struct metric *mn = cmp >= 0 ? &n->v[j] : NULL;
		const struct metric *any = mb ? mb : mn;
		struct row *r;

		i += cmp <= 0;
		j += cmp >= 0;
		/* A kernel on one side only is listed as added or removed, not as a row. */
		if (any->is_kernel && (!mb || !mn)) {
			if (rank < 0 && (mb ? add_kernel(c->removed, &c->nr_removed,
							 &c->removed_ns, &c->arena, mb)
					    : add_kernel(c->added, &c->nr_added, &c->added_ns,
							 &c->arena, mn)))
				return -1;
			continue;
		}
		if (!selected(sel, any))
			continue;
		r = push_row(out);
		if (!r || verdict_row(r, mb, mn, t, span ? span->value : NAN))
			return -1;
		r->rank = rank;
		if (r->verdict == V_IMPROVED && busy_derived(r->metric) && more_waiting(sel, rank))
			r->verdict = V_WAITING;
	}
	return 0;
}

static int cmp_delta(const void *x, const void *y)
{
	const struct kernel_delta *p = x, *q = y;

	if (p->total_ns != q->total_ns)
		return p->total_ns > q->total_ns ? -1 : 1;
	return strcmp(p->name, q->name);
}

/* The steps.pattern of rep's first rank that found steps, or "". */
static const char *steps_pattern(const struct report *rep)
{
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (rk->has_phases && rk->steps.pattern && rk->steps.nr_durations)
			return rk->steps.pattern;
	}
	return "";
}

/* Ranks of rep with rank number r: the first such rank, or NULL. */
static const struct report_rank *find_rank(const struct report *rep, int64_t r)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].rank == r)
			return &rep->ranks[i];
	return NULL;
}

/*
 * What a rank profiled, to compare totals by: its generations (videos)
 * where it has some, else its steps; 0 without either.  *what says which.
 */
static size_t units_of(const struct report_rank *rk, int gens)
{
	if (!rk || !rk->has_phases)
		return 0;
	if (gens)
		return rk->has_throughput ? rk->throughput.nr_generations : 0;
	return rk->steps.pattern ? rk->steps.nr_durations : 0;
}

/* The units of rep's first rank that has some, 0 without. */
static size_t run_units(const struct report *rep, int gens)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (units_of(&rep->ranks[i], gens))
			return units_of(&rep->ranks[i], gens);
	return 0;
}

/* A total over the run (span, phase and kernel totals, busy times): it grows with the steps. */
static int is_total(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, MK_SPAN_NS) || (n > 9 && !strcmp(name + n - 9, ".total_ns")) ||
	       !strcmp(name, MK_GPU_MEMORY_NS) || !strcmp(name, MK_GPU_COMM_WAIT_NS);
}

/*
 * Where the sides profiled different numbers of videos (one against two),
 * their totals are compared per video; with as many videos, or none, and
 * different numbers of steps (profiling windows of other lengths), per
 * step: each divided by its side's count.  Samples (instance durations)
 * are left as they are.
 */
static void per_step(struct metric_list *l, size_t steps)
{
	for (size_t i = 0; i < l->n; i++)
		if (is_total(l->v[i].name))
			l->v[i].value /= (double)steps;
}

static int per_rank(struct rows *out, const struct report *base, const struct report *new,
		    const struct selection *sel, const struct thresholds *t, struct comparison *c)
{
	int64_t *ids = malloc((base->nr_ranks + new->nr_ranks + 1) * sizeof(*ids));
	size_t n = 0;
	int rc = 0;

	if (!ids)
		return -1;
	/* Every rank number of either side once, in order (ranks are sorted). */
	for (size_t i = 0, j = 0; i < base->nr_ranks || j < new->nr_ranks;) {
		int64_t x = i < base->nr_ranks ? base->ranks[i].rank : INT64_MAX;
		int64_t y = j < new->nr_ranks ? new->ranks[j].rank : INT64_MAX;
		int64_t r = x < y ? x : y;

		if (!n || ids[n - 1] != r)
			ids[n++] = r;
		i += x == r;
		j += y == r;
	}
	for (size_t k = 0; k < n && !rc; k++) {
		const struct report_rank *rb = find_rank(base, ids[k]),
					 *rn = find_rank(new, ids[k]);
		struct metric_list lb = { 0 }, ln = { 0 };

		if (!rb || !rn) {
			if (rb)
				c->ranks_only_base[c->nr_only_base++] = ids[k];
			else
				c->ranks_only_new[c->nr_only_new++] = ids[k];
			continue;
		}
		rc |= metrics_of_rank(rb, &c->arena, &lb);
		rc |= metrics_of_rank(rn, &c->arena, &ln);
		if (c->per_step_base && units_of(rb, c->per_generation) &&
		    units_of(rn, c->per_generation)) {
			per_step(&lb, units_of(rb, c->per_generation));
			per_step(&ln, units_of(rn, c->per_generation));
		}
		metrics_sort(&lb);
		metrics_sort(&ln);
		if (!rc)
			rc = merge(out, &lb, &ln, sel, ids[k], t, c);
		metrics_release(&lb);
		metrics_release(&ln);
	}
	free(ids);
	return rc;
}

static const struct row *rule_rows;

static int cmp_run_row(const void *a, const void *b)
{
	return strcmp(rule_rows[*(const size_t *)a].metric, rule_rows[*(const size_t *)b].metric);
}

/*
 * One rule for the run and its ranks: a rank's change that its own few
 * samples cannot test takes the test of the run's row of the metric, which
 * pools every rank's samples: noise there is noise for the rank too.
 * -1 when out of memory.
 */
static int one_rule(struct rows *out)
{
	size_t *run = malloc((out->n ? out->n : 1) * sizeof(*run)), n = 0;

	if (!run)
		return -1;
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].rank < 0)
			run[n++] = i;
	rule_rows = out->v;
	qsort(run, n, sizeof(*run), cmp_run_row);
	for (size_t i = 0; i < out->n; i++) {
		struct row *r = &out->v[i];
		size_t lo = 0, hi = n;

		if (r->rank < 0 || r->tested ||
		    (r->verdict != V_REGRESSED && r->verdict != V_IMPROVED))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(out->v[run[mid]].metric, r->metric) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && !strcmp(out->v[run[lo]].metric, r->metric) &&
		    out->v[run[lo]].tested && out->v[run[lo]].verdict == V_NOISE) {
			r->verdict = V_NOISE;
			r->tested = 1;
			r->p = out->v[run[lo]].p;
		}
	}
	free(run);
	return 0;
}

int compare_reports(struct comparison *c, const struct report *base, const struct report *new,
		    const struct thresholds *t, size_t top)
{
	struct metric_list rb = { 0 }, rn = { 0 };
	struct selection sel = { base, new, &rb, &rn, NULL, NULL, 0, 0 };
	const char *pb = steps_pattern(base), *pn = steps_pattern(new);
	struct rows out = { 0 };
	int rc = -1;

	memset(c, 0, sizeof(*c));
	arena_init(&c->arena);
	if (metrics_of_run(base, &c->arena, &rb) || metrics_of_run(new, &c->arena, &rn))
		goto out;
	if (*pb && *pn && strcmp(pb, pn)) {
		sel.no_steps = 1;
		c->steps_base = pb;
		c->steps_new = pn;
	}
	/*
	 * Videos are videos whatever each side calls a step: one against two
	 * compares per video even then; per step only where the steps agree.
	 */
	for (int gens = 1; gens >= (sel.no_steps ? 1 : 0) && !c->per_step_base; gens--) {
		size_t ub = run_units(base, gens), un = run_units(new, gens);

		if (ub && un && ub != un) {
			c->per_generation = gens;
			c->per_step_base = ub;
			c->per_step_new = un;
		} else if (gens && ub && un) {
			break;	/* as many videos: their totals compare as they are */
		}
	}
	if (c->per_step_base) {
		per_step(&rb, c->per_step_base);
		per_step(&rn, c->per_step_new);
	}
	sel.effective = metrics_find(&rb, MK_GPU_EFFECTIVE_UTILIZATION) &&
			metrics_find(&rn, MK_GPU_EFFECTIVE_UTILIZATION);
	sel.keep_base = calloc(rb.n + 1, 1);
	sel.keep_new = calloc(rn.n + 1, 1);
	c->added = calloc(rn.n + 1, sizeof(*c->added));
	c->removed = calloc(rb.n + 1, sizeof(*c->removed));
	c->ranks_only_base = calloc(base->nr_ranks + 1, sizeof(*c->ranks_only_base));
	c->ranks_only_new = calloc(new->nr_ranks + 1, sizeof(*c->ranks_only_new));
	if (!c->ranks_only_base || !c->ranks_only_new || !sel.keep_base || !sel.keep_new ||
	    !c->added || !c->removed ||
	    top_kernels(&rb, top, sel.keep_base) || top_kernels(&rn, top, sel.keep_new))
		goto out;
	if (merge(&out, &rb, &rn, &sel, -1, t, c))
		goto out;
	qsort(c->added, c->nr_added, sizeof(*c->added), cmp_delta);
	qsort(c->removed, c->nr_removed, sizeof(*c->removed), cmp_delta);
	if ((base->nr_ranks > 1 || new->nr_ranks > 1) && per_rank(&out, base, new, &sel, t, c))
		goto out;
	if (one_rule(&out))
		goto out;
	for (size_t i = 0; i < out.n; i++) {
		c->regressions += out.v[i].verdict == V_REGRESSED;
		c->run_regressions += out.v[i].verdict == V_REGRESSED && out.v[i].rank < 0;
		c->improvements += out.v[i].verdict == V_IMPROVED;
		c->unchanged += out.v[i].verdict == V_SAME;
	}
	rc = 0;
out:
	c->rows = out.v;
	c->nr_rows = out.n;
	free(sel.keep_base);
	free(sel.keep_new);
	metrics_release(&rb);
	metrics_release(&rn);
	return rc;
}

void comparison_release(struct comparison *c)
{
	free(c->rows);
	free(c->added);
	free(c->removed);
	free(c->ranks_only_base);
	free(c->ranks_only_new);
	arena_release(&c->arena);
	memset(c, 0, sizeof(*c));
}
