/* metrics: see metrics.h. */
#include "compare_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "grow.h"

static struct metric *push(struct metric_list *l)
{
	if (ALLOC_GROW(l->v, l->n + 1, l->alloc))
		return NULL;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].order = l->n;
	return &l->v[l->n++];
}

/*
 * Add name with the unit and direction of the catalogue's entry for it (a
 * scalar or a family).
 */
static int add(struct metric_list *l, const char *name, double value, const int64_t *samples,
	       size_t n)
{
	const struct metric_def *d;
	struct metric *m;

	if (!isfinite(value))
		return 0;	/* the rank has no such figure (null in the report) */
	/* the name first: a row without one would be sorted with the others */
	if (!name || !(d = metric_find(name)) || !(m = push(l)))
		return -1;
	*m = (struct metric){ name, d->dir, d->unit, value, samples, n, 0, 0, m->order };
	return 0;
}

/* "PREFIX" + middle + "SUFFIX" in a. */
static const char *join(struct arena *a, const char *prefix, const char *middle,
			const char *suffix)
{
	size_t p = strlen(prefix), m = strlen(middle), s = strlen(suffix);
	char *r = arena_alloc(a, p + m + s + 1);

	if (r) {
		memcpy(r, prefix, p);
		memcpy(r + p, middle, m);
		memcpy(r + p + m, suffix, s + 1);
	}
	return r;
}

/*
 * A phase's path without the ProfilerStep#* wrapper: a run profiled with
 * the schedule's step spans and one without share their phases.  NULL for
 * the wrapper itself.
 */
static const char *phase_path(const char *path)
{
	static const char wrap[] = "ProfilerStep#*";
	size_t k = sizeof(wrap) - 1;

	if (strncmp(path, wrap, k))
		return path;
	return path[k] == '/' ? path + k + 1 : path[k] ? path : NULL;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t p = *(const int64_t *)x, q = *(const int64_t *)y;

	return (p > q) - (p < q);
}

static int cmp_order_name(const void *x, const void *y)
{
	const struct metric *p = x, *q = y;
	int c = strcmp(p->name, q->name);

	return c ? c : (p->order > q->order) - (p->order < q->order);
}

/* Join m and its namesake d (the same phase inside and outside the wrapper). */
static int join_phase(struct metric *m, const struct metric *d, struct arena *a)
{
	size_t n = m->nr_samples + d->nr_samples;
	int64_t *pool = arena_alloc(a, (n ? n : 1) * sizeof(*pool));

	if (!pool)
		return -1;
	if (m->nr_samples)
		memcpy(pool, m->samples, m->nr_samples * sizeof(*pool));
	if (d->nr_samples)
		memcpy(pool + m->nr_samples, d->samples, d->nr_samples * sizeof(*pool));
	m->samples = pool;
	m->nr_samples = n;
	if (!strcmp(m->name + strlen(m->name) - strlen(".total_ns"), ".total_ns")) {
		m->value += d->value;
	} else if (n) {
		int64_t *sorted = arena_alloc(a, n * sizeof(*sorted));

		if (!sorted)
			return -1;
		memcpy(sorted, pool, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_i64);
		m->value = n % 2 ? (double)sorted[n / 2]
				 : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
	}
	return 0;
}

/*
 * Phases l->v[from..] whose names repeat (a phase found inside and outside
 * the step wrapper) become one: totals add up, instances pool, and the
 * median is the pooled instances' (DESIGN.md's: the mean of the two middle
 * ones for an even count).  Sorting by name finds them in n log n; the
 * caller sorts the list again anyway.
 */
static int join_repeated(struct metric_list *l, size_t from, struct arena *a)
{
	size_t k = from;

	if (l->n - from < 2)
		return 0;
	qsort(l->v + from, l->n - from, sizeof(*l->v), cmp_order_name);
	for (size_t i = from; i < l->n; i++) {
		if (k > from && !strcmp(l->v[k - 1].name, l->v[i].name)) {
			if (join_phase(&l->v[k - 1], &l->v[i], a))
				return -1;
			continue;
		}
		l->v[k++] = l->v[i];
	}
	l->n = k;
	for (size_t i = from; i < l->n; i++)
		l->v[i].order = i;
	return 0;
}

int metrics_of_rank(const struct report_rank *rk, struct arena *a, struct metric_list *out)
{
	size_t first_phase;
	int rc = 0, wrapped = 0;

	for (size_t i = 0; i < metric_nr; i++) {
		const struct metric_def *d = &metric_table[i];
		const int64_t *smp = NULL;
		size_t n = 0;
		double v;

		if (!(d->flags & MF_COMPARE) || strchr(d->path, '*') || !metric_value(d, rk, &v))
			continue;
		if (d->samples)
			n = d->samples(rk, &smp);
		rc |= add(out, d->path, v, smp, n);
	}
	if (!rk->analysed)
		return rc ? -1 : 0;
	first_phase = out->n;
	for (size_t i = 0; rk->has_phases && i < rk->nr_phases; i++) {
		const struct report_phase *ph = &rk->phases[i];
		const char *path;

		if (ph->nr_folded)	/* the other row: no phase of that path to compare */
			continue;
		path = phase_path(ph->path);
		if (!path)
			continue;	/* the step wrapper itself: steps.* compare it */
		wrapped |= path != ph->path;
		rc |= add(out, join(a, "phase:", path, ".total_ns"), (double)ph->d.total_ns,
			  ph->samples.v, ph->samples.n);
		rc |= add(out, join(a, "phase:", path, ".median_ns"), ph->d.median_ns,
			  ph->samples.v, ph->samples.n);
	}
	if (wrapped && !rc)
		rc = join_repeated(out, first_phase, a);
	for (size_t i = 0; i < rk->nr_kernels; i++) {
		const struct report_kernel *k = &rk->kernels[i];

		if (k->nr_folded)	/* the other row: no kernel of that name to compare */
			continue;
		rc |= add(out, join(a, "kernel:", k->name, ".total_ns"), (double)k->d.total_ns,
			  k->samples.v, k->samples.n);
		if (!rc)
			out->v[out->n - 1].is_kernel = 1;
	}
	for (size_t i = 0; i < rk->nr_cpu_ops; i++) {
		const struct report_cpu_op *op = &rk->cpu_ops[i];

		if (op->nr_folded)
			continue;
		rc |= add(out, join(a, "op:", op->name, ".total_ns"), (double)op->total_ns,
			  NULL, 0);
		if (!rc)
			out->v[out->n - 1].is_op = 1;
	}
	for (size_t i = 0; i < rk->nr_ops_perf; i++) {
		const struct report_op_perf *o = &rk->ops_perf[i];
		const char *what;

		if (isnan(o->tflops_median) || o->implausible)
			continue;
		if (!(what = join(a, o->name, " ", o->input_dims)))
			return -1;
		rc |= add(out, join(a, "tflops:", what, ".median"), o->tflops_median, NULL, 0);
	}
	for (size_t i = 0; i < rk->nr_memory; i++) {
		const struct report_memory *m = &rk->memory[i];
		char dev[32];

		snprintf(dev, sizeof(dev), "%lld.", (long long)m->device);
		rc |= add(out, join(a, "memory:", dev, METRIC_MEMORY_KEY(peak_allocated)),
			  (double)m->peak_allocated, NULL, 0);
		if (m->peak_reserved != INT64_MIN)	/* null: unknown */
			rc |= add(out, join(a, "memory:", dev, METRIC_MEMORY_KEY(peak_reserved)),
				  (double)m->peak_reserved, NULL, 0);
	}
	return rc ? -1 : 0;
}

/* Rows read best in this order: the run as a whole first, the details after. */
static int group(const char *name)
{
	static const char *const prefix[] = { MK_SPAN_NS, "steps.", "throughput.", "gpu.", "phase:",
					      "kernel:", "op:", "memory:" };

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return (int)i;
	return (int)(sizeof(prefix) / sizeof(prefix[0]));
}

int metrics_cmp_names(const char *a, const char *b)
{
	int ga = group(a), gb = group(b);

	return ga != gb ? ga - gb : strcmp(a, b);
}

static int cmp_name(const void *x, const void *y)
{
	const struct metric *p = x, *q = y;
	int c = metrics_cmp_names(p->name, q->name);

	/* equal names keep rank order: pooled samples come out the same every run */
	return c ? c : (p->order < q->order ? -1 : p->order > q->order);
}

void metrics_sort(struct metric_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_name);
}

const struct metric *metrics_find(const struct metric_list *l, const char *name)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = metrics_cmp_names(l->v[mid].name, name);

		if (!c)
			return &l->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int metrics_of_run(const struct report *rep, struct arena *a, struct metric_list *out)
{
	struct metric_list all = { 0 };
	int rc = 0;

	for (size_t i = 0; i < rep->nr_ranks && !rc; i++)
		rc = metrics_of_rank(&rep->ranks[i], a, &all);
	if (!rc)
		metrics_sort(&all);
	for (size_t i = 0; !rc && i < all.n;) {
		size_t j = i, n = 0;
		struct metric *m = push(out);
		int64_t *pool;

		while (j < all.n && !strcmp(all.v[j].name, all.v[i].name))
			n += all.v[j++].nr_samples;
		if (!m) {
			rc = -1;
			break;
		}
		*m = all.v[i];
		for (size_t k = i + 1; k < j; k++)
			if (m->dir == DIR_LOWER ? all.v[k].value > m->value
						      : all.v[k].value < m->value)
				m->value = all.v[k].value;
		m->samples = NULL;
		m->nr_samples = 0;
		if (n) {
			pool = arena_alloc(a, n * sizeof(*pool));
			if (!pool) {
				rc = -1;
				break;
			}
			for (size_t k = i; k < j; k++) {
				if (all.v[k].nr_samples)
					memcpy(pool + m->nr_samples, all.v[k].samples,
					       all.v[k].nr_samples * sizeof(*pool));
				m->nr_samples += all.v[k].nr_samples;
			}
			m->samples = pool;
		}
		i = j;
	}
	metrics_release(&all);
	return rc;
}

void metrics_release(struct metric_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
