/* compare: see compare.h. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metrics.h"

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
	size_t n = 0;

	if (!k)
		return -1;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].is_kernel)
			k[n++] = &l->v[i];
	qsort(k, n, sizeof(*k), cmp_kernel_value);
	for (size_t i = 0; i < n && i < top; i++)
		keep[k[i] - l->v] = 1;
	free(k);
	return 0;
}

/* The kernel selection by name: in either side's top. */
struct selection {
	const struct metric_list *base, *new;
	char *keep_base, *keep_new;
};

static int selected(const struct selection *s, const struct metric *m)
{
	const struct metric *b, *n;

	if (!m->is_kernel)
		return 1;
	b = metrics_find(s->base, m->name);
	n = metrics_find(s->new, m->name);
	return (b && s->keep_base[b - s->base->v]) || (n && s->keep_new[n - s->new->v]);
}

/* Rows for one pair of lists (the run, or one rank), by merging names. */
static int merge(struct rows *out, const struct metric_list *b, const struct metric_list *n,
		 const struct selection *sel, int64_t rank, const struct thresholds *t,
		 struct comparison *c)
{
	const struct metric *span = metrics_find(b, "span_ns");
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
		if (!selected(sel, any))
			continue;
		/* A kernel on one side only is listed as added or removed, not as a row. */
		if (any->is_kernel && (!mb || !mn)) {
			if (rank >= 0)
				continue;
			if (mb) {
				c->removed[c->nr_removed++] = mb->name;
			} else {
				c->added[c->nr_added++] = mn->name;
			}
			continue;
		}
		r = push_row(out);
		if (!r || verdict_row(r, mb, mn, t, span ? span->value : NAN))
			return -1;
		r->rank = rank;
	}
	return 0;
}

/* Ranks of rep with rank number r: the first such rank, or NULL. */
static const struct report_rank *find_rank(const struct report *rep, int64_t r)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].rank == r)
			return &rep->ranks[i];
	return NULL;
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
		const struct report_rank *rb = find_rank(base, ids[k]), *rn = find_rank(new, ids[k]);
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

int compare_reports(struct comparison *c, const struct report *base, const struct report *new,
		    const struct thresholds *t, size_t top)
{
	struct metric_list rb = { 0 }, rn = { 0 };
	struct selection sel = { &rb, &rn, NULL, NULL };
	struct rows out = { 0 };
	int rc = -1;

	memset(c, 0, sizeof(*c));
	arena_init(&c->arena);
	if (metrics_of_run(base, &c->arena, &rb) || metrics_of_run(new, &c->arena, &rn))
		goto out;
	sel.keep_base = calloc(rb.n + 1, 1);
	sel.keep_new = calloc(rn.n + 1, 1);
	c->added = calloc(rn.n + 1, sizeof(*c->added));
	c->removed = calloc(rb.n + 1, sizeof(*c->removed));
	c->ranks_only_base = calloc(base->nr_ranks + 1, sizeof(*c->ranks_only_base));
	c->ranks_only_new = calloc(new->nr_ranks + 1, sizeof(*c->ranks_only_new));
	if (!c->ranks_only_base || !c->ranks_only_new || !sel.keep_base || !sel.keep_new || !c->added || !c->removed ||
	    top_kernels(&rb, top, sel.keep_base) || top_kernels(&rn, top, sel.keep_new))
		goto out;
	if (merge(&out, &rb, &rn, &sel, -1, t, c))
		goto out;
	if ((base->nr_ranks > 1 || new->nr_ranks > 1) && per_rank(&out, base, new, &sel, t, c))
		goto out;
	for (size_t i = 0; i < out.n; i++) {
		c->regressions += out.v[i].verdict == V_REGRESSED;
		c->run_regressions += out.v[i].verdict == V_REGRESSED && out.v[i].rank < 0;
		c->improvements += out.v[i].verdict == V_IMPROVED;
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
