/* metrics: see metrics.h. */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static struct metric *push(struct metric_list *l)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? 2 * l->alloc : 64;
		struct metric *v = realloc(l->v, alloc * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->alloc = alloc;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].order = l->n;
	return &l->v[l->n++];
}

static int add(struct metric_list *l, const char *name, enum direction dir, enum unit unit,
	       double value, const int64_t *samples, size_t n)
{
	struct metric *m;

	if (!isfinite(value))
		return 0;	/* the rank has no such figure (null in the report) */
	m = push(l);
	if (!m || !name)
		return -1;
	*m = (struct metric){ name, dir, unit, value, samples, n, 0, m->order };
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

int metrics_of_rank(const struct report_rank *rk, struct arena *a, struct metric_list *out)
{
	const struct report_steps *st = &rk->steps;
	const struct report_throughput *t = &rk->throughput;
	int rc = 0;

	rc |= add(out, "span_ns", LOWER_IS_BETTER, UNIT_NS, (double)rk->span_ns, NULL, 0);
	if (!rk->analysed)
		return rc;
	if (rk->has_phases && st->d.count) {
		size_t skip = st->warmup && st->nr_durations ? 1 : 0;

		rc |= add(out, "steps.median_ns", LOWER_IS_BETTER, UNIT_NS, st->d.median_ns,
			  st->durations_ns + skip, st->nr_durations - skip);
	}
	for (size_t i = 0; rk->has_phases && i < rk->nr_phases; i++) {
		const struct report_phase *ph = &rk->phases[i];

		rc |= add(out, join(a, "phase:", ph->path, ".total_ns"), LOWER_IS_BETTER, UNIT_NS,
			  (double)ph->d.total_ns, ph->samples.v, ph->samples.n);
		rc |= add(out, join(a, "phase:", ph->path, ".median_ns"), LOWER_IS_BETTER, UNIT_NS,
			  ph->d.median_ns, ph->samples.v, ph->samples.n);
	}
	if (rk->has_throughput) {
		rc |= add(out, "throughput.fps", HIGHER_IS_BETTER, UNIT_RATE, t->fps, NULL, 0);
		if (t->blocks > 0)
			rc |= add(out, "throughput.bps", HIGHER_IS_BETTER, UNIT_RATE, t->bps, NULL, 0);
		if (t->has_first_block)
			rc |= add(out, "throughput.first_block_ns", LOWER_IS_BETTER, UNIT_NS,
				  (double)t->first_block_ns, NULL, 0);
	}
	rc |= add(out, "gpu.utilization", HIGHER_IS_BETTER, UNIT_FRACTION, rk->gpu.utilization,
		  NULL, 0);
	rc |= add(out, "gpu.comm_compute_overlap", HIGHER_IS_BETTER, UNIT_FRACTION,
		  rk->gpu.comm_compute_overlap, NULL, 0);
	for (size_t i = 0; i < rk->nr_kernels; i++) {
		const struct report_kernel *k = &rk->kernels[i];

		rc |= add(out, join(a, "kernel:", k->name, ".total_ns"), LOWER_IS_BETTER, UNIT_NS,
			  (double)k->d.total_ns, k->samples.v, k->samples.n);
		if (!rc)
			out->v[out->n - 1].is_kernel = 1;
	}
	for (size_t i = 0; i < rk->nr_memory; i++) {
		const struct report_memory *m = &rk->memory[i];
		char dev[32];

		snprintf(dev, sizeof(dev), "%lld", (long long)m->device);
		rc |= add(out, join(a, "memory:", dev, ".peak_allocated"), LOWER_IS_BETTER,
			  UNIT_BYTES, (double)m->peak_allocated, NULL, 0);
		rc |= add(out, join(a, "memory:", dev, ".peak_reserved"), LOWER_IS_BETTER,
			  UNIT_BYTES, (double)m->peak_reserved, NULL, 0);
	}
	return rc ? -1 : 0;
}

/* Rows read best in this order: the run as a whole first, the details after. */
static int group(const char *name)
{
	static const char *const prefix[] = { "span_ns", "steps.", "throughput.", "gpu.", "phase:",
					      "kernel:", "memory:" };

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
			if (m->dir == LOWER_IS_BETTER ? all.v[k].value > m->value
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
