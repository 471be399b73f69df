/*
 * crossrank: see crossrank.h.
 *
 * The metrics come in a fixed order: the scalars of the metric catalogue
 * (metric.h) marked MF_CROSS, in table order, then one per phase path
 * (sorted by bytes), then two per memory device (sorted by number).  Phases
 * and memory are gathered from all ranks into one array of (key, rank
 * index) pairs and sorted, so no hashing decides the order.
 * Scratch arrays are malloc'd and freed here; only the results go into the
 * report's arena.
 */
#include "crossrank.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"

/* One rank's value of a metric. */
struct sample {
	double v;
	int64_t rank;
};

/* One phase entry or memory entry of one rank, to be sorted by key. */
struct keyed {
	const char *path;		/* phases */
	int64_t device;			/* memory */
	size_t idx;			/* index in rep->ranks */
	size_t pos;			/* index in that rank's array */
};

/* A rank's position when stragglers are ordered by rank number. */
struct rank_order {
	int64_t rank;
	size_t idx;
};

/* n elements of size bytes, or NULL on overflow or when malloc fails. */
static void *alloc_n(size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	return malloc(n ? n * size : 1);
}

/* 1 for the catalogue's scalars that have a cross_rank statistic. */
static int is_cross(const struct metric_def *m)
{
	return (m->flags & MF_CROSS) && (m->get || m->store != STORE_BY_HAND);
}

/* The statistic of metric name in out[0..n), or NULL. */
static const struct report_stat *find_stat(const struct report_stat *out, size_t n,
					   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].metric, name))
			return &out[i];
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The statistics of s[0..n), n > 0, in ranks order; tmp holds n doubles.
 * The sums run in that order and the variance takes a second pass over the
 * mean, so the result does not depend on how the samples were gathered.
 */
static void stat_of(struct report_stat *st, const char *metric, const struct sample *s, size_t n,
		    double *tmp)
{
	double sum = 0, var = 0, mean;

	memset(st, 0, sizeof(*st));
	st->metric = metric;
	st->count = (int64_t)n;
	st->min = st->max = s[0].v;
	st->min_rank = st->max_rank = s[0].rank;
	for (size_t i = 0; i < n; i++) {
		if (s[i].v < st->min) {
			st->min = s[i].v;
			st->min_rank = s[i].rank;
		}
		if (s[i].v > st->max) {
			st->max = s[i].v;
			st->max_rank = s[i].rank;
		}
		sum += s[i].v;
		tmp[i] = s[i].v;
	}
	mean = sum / (double)n;
	st->avg = mean;
	for (size_t i = 0; i < n; i++)
		var += (s[i].v - mean) * (s[i].v - mean);
	st->stddev = sqrt(var / (double)n);
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	st->median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/*
 * By key (a phase entry's path; a memory entry, whose path is NULL, by
 * device), then rank index, then position: one array holds one kind.
 */
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = x->path ? strcmp(x->path, y->path)
			: (x->device > y->device) - (x->device < y->device);

	if (c)
		return c;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_rank_order(const void *a, const void *b)
{
	const struct rank_order *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* "phase:" path ".total_ns" in the arena, or NULL. */
static const char *phase_metric(struct arena *a, const char *path)
{
	size_t n = strlen(path);
	char *s = arena_alloc(a, n + sizeof("phase:") + sizeof(".total_ns") - 1);

	if (!s)
		return NULL;
	memcpy(s, "phase:", 6);
	memcpy(s + 6, path, n);
	memcpy(s + 6 + n, ".total_ns", sizeof(".total_ns"));
	return s;
}

/* "memory:" device "." field in the arena, or NULL. */
static const char *memory_metric(struct arena *a, int64_t device, const char *field)
{
	char tmp[96];
	int n = snprintf(tmp, sizeof(tmp), "memory:%" PRId64 ".%s", device, field);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return NULL;
	return arena_strndup(a, tmp, (size_t)n);
}

/*
 * The phase entries (memory: the memory entries) of analysed ranks, sorted
 * by (path or device, rank index, position); *nr_keys gets the number of
 * distinct paths or devices.  NULL (and *n 0) when there are none or
 * malloc fails; *oom tells which.
 */
static struct keyed *gather(const struct report *rep, int memory, size_t *n, size_t *nr_keys,
			    int *oom)
{
	struct keyed *e;
	size_t k = 0, total = 0;

	*n = *nr_keys = 0;
	*oom = 0;
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].analysed)
			total += memory ? rep->ranks[i].nr_memory : rep->ranks[i].nr_phases;
	if (!total)
		return NULL;
	e = alloc_n(total, sizeof(*e));
	if (!e) {
		*oom = 1;
		return NULL;
	}
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *r = &rep->ranks[i];
		size_t count = memory ? r->nr_memory : r->nr_phases;

		if (!r->analysed)
			continue;
		for (size_t j = 0; j < count; j++) {
			/* a rank's other row: no phase of that path (crossrank_compute()) */
			if (!memory && (!r->phases[j].path || r->phases[j].nr_folded))
				continue;
			e[k].path = memory ? NULL : r->phases[j].path;
			e[k].device = memory ? r->memory[j].device : 0;
			e[k].idx = i;
			e[k].pos = j;
			k++;
		}
	}
	if (k > 1)
		qsort(e, k, sizeof(*e), cmp_keyed);
	for (size_t i = 0; i < k; i++)
		if (i == 0 || (memory ? e[i].device != e[i - 1].device
				      : strcmp(e[i].path, e[i - 1].path) != 0))
			(*nr_keys)++;
	*n = k;
	return e;
}

/*
 * One stat per phase path.  A rank that lists a path more than once (the
 * same nesting on two threads) contributes the sum of its entries: the
 * phase's time on that rank.
 */
static void phase_stats(const struct report *rep, const struct keyed *e, size_t n,
			const char **names, struct report_stat *out, size_t *nr_out,
			struct sample *smp, double *tmp)
{
	size_t i = 0, p = 0;

	while (i < n) {
		size_t k = 0;
		const char *path = e[i].path;

		while (i < n && strcmp(e[i].path, path) == 0) {
			size_t idx = e[i].idx;
			double sum = 0;

			for (; i < n && e[i].idx == idx && strcmp(e[i].path, path) == 0; i++)
				sum += (double)rep->ranks[idx].phases[e[i].pos].d.total_ns;
			smp[k].v = sum;
			smp[k].rank = rep->ranks[idx].rank;
			k++;
		}
		stat_of(&out[(*nr_out)++], names[p++], smp, k, tmp);
	}
}

struct path_sum {
	double total;			/* over the ranks */
	size_t first;			/* its first entry */
};

static int cmp_path_sum(const void *a, const void *b)
{
	const struct path_sum *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/*
 * Keep in e[0..*n) (sorted by path) the entries of the max paths with the
 * most time over the ranks, in their order; other[idx] gets each rank's sum
 * of the rest, has_other[idx] whether it has any.  -1 when out of memory.
 */
static int fold_paths(const struct report *rep, struct keyed *e, size_t *n, size_t nr_paths,
		      size_t max, double *other, unsigned char *has_other)
{
	struct path_sum *ps = alloc_n(nr_paths, sizeof(*ps));
	unsigned char *keep = calloc(*n ? *n : 1, 1);
	size_t p = 0, k = 0;

	if (!ps || !keep) {
		free(ps);
		free(keep);
		return -1;
	}
	for (size_t i = 0; i < *n; i++) {
		if (i == 0 || strcmp(e[i].path, e[i - 1].path))
			ps[p++] = (struct path_sum){ 0, i };
		ps[p - 1].total += (double)rep->ranks[e[i].idx].phases[e[i].pos].d.total_ns;
	}
	qsort(ps, nr_paths, sizeof(*ps), cmp_path_sum);
	for (size_t q = 0; q < max; q++)
		keep[ps[q].first] = 1;
	for (size_t i = 0; i < *n; i++) {
		if (i > 0 && !strcmp(e[i].path, e[i - 1].path))
			keep[i] = keep[i - 1];
		if (keep[i]) {
			e[k++] = e[i];
			continue;
		}
		other[e[i].idx] += (double)rep->ranks[e[i].idx].phases[e[i].pos].d.total_ns;
		has_other[e[i].idx] = 1;
	}
	*n = k;
	free(ps);
	free(keep);
	return 0;
}

/*
 * Reports whose phase tables were capped (report_fold_phases()): each
 * rank's other row joins its sum of the paths left out.  How many distinct
 * paths those rows stand for over the ranks is not known; the most one rank
 * folded is the least it can be.
 */
static size_t folded_phases(const struct report *rep, double *other, unsigned char *has_other)
{
	int64_t most = 0;

	for (size_t i = 0; i < rep->nr_ranks; i++)
		for (size_t j = 0; rep->ranks[i].analysed && j < rep->ranks[i].nr_phases; j++) {
			const struct report_phase *ph = &rep->ranks[i].phases[j];

			if (!ph->nr_folded)
				continue;
			other[i] += (double)ph->d.total_ns;
			has_other[i] = 1;
			most = ph->nr_folded > most ? ph->nr_folded : most;
		}
	return (size_t)most;
}

/*
 * Two stats per memory device: peak_allocated, then peak_reserved.  A rank
 * that lists a device twice contributes the larger peak.
 */
static void memory_stats(const struct report *rep, const struct keyed *e, size_t n,
			 const char **names, struct report_stat *out, size_t *nr_out,
			 struct sample *smp, struct sample *smp2, double *tmp)
{
	size_t i = 0, d = 0;

	while (i < n) {
		size_t k = 0, k2 = 0;
		int64_t dev = e[i].device;

		while (i < n && e[i].device == dev) {
			size_t idx = e[i].idx;
			int64_t alloc = INT64_MIN, reserved = INT64_MIN;

			for (; i < n && e[i].idx == idx && e[i].device == dev; i++) {
				const struct report_memory *m = &rep->ranks[idx].memory[e[i].pos];

				if (m->peak_allocated > alloc)
					alloc = m->peak_allocated;
				if (m->peak_reserved > reserved)
					reserved = m->peak_reserved;
			}
			smp[k].v = (double)alloc;
			smp[k].rank = rep->ranks[idx].rank;
			k++;
			/* a rank whose trace gives no Total Reserved (null) has no sample */
			if (reserved != INT64_MIN) {
				smp2[k2].v = (double)reserved;
				smp2[k2++].rank = rep->ranks[idx].rank;
			}
		}
		stat_of(&out[(*nr_out)++], names[2 * d], smp, k, tmp);
		if (k2)
			stat_of(&out[(*nr_out)++], names[2 * d + 1], smp2, k2, tmp);
		d++;
	}
}

/*
 * The stragglers, by rank number, then ranks order, then (a) before (b).
 * sa: the stat for rule (a), metric ma; sb: that of mb (gpu.comm_ns), or NULL.  The
 * comparisons are written as value against median * (1 ± threshold), so a
 * rank exactly on the threshold is no straggler.
 */
static int find_stragglers(struct report *rep, const struct crossrank_opts *o,
			   const struct report_stat *sa, const struct metric_def *ma,
			   const struct report_stat *sb, const struct metric_def *mb)
{
	struct rank_order *ord;
	struct report_straggler *out;
	size_t n = rep->nr_ranks, k = 0;

	if ((!sa || !(sa->median > 0)) && (!sb || !(sb->median > 0)))
		return 0;
	ord = alloc_n(n, sizeof(*ord));
	if (!ord)
		return -1;
	if (n > SIZE_MAX / 2 / sizeof(*out) ||
	    !(out = arena_alloc(&rep->arena, 2 * n * sizeof(*out)))) {
		free(ord);
		return -1;
	}
	memset(out, 0, 2 * n * sizeof(*out));	/* the collectives fields stay unset */
	for (size_t i = 0; i < n; i++) {
		ord[i].rank = rep->ranks[i].rank;
		ord[i].idx = i;
	}
	qsort(ord, n, sizeof(*ord), cmp_rank_order);
	for (size_t i = 0; i < n; i++) {
		const struct report_rank *r = &rep->ranks[ord[i].idx];
		double v;

		if (!r->complete)	/* a cut-off trace is short, not slow */
			continue;
		if (sa && sa->median > 0 && metric_value(ma, r, &v) &&
		    v > sa->median * (1 + o->straggler_excess))
			out[k++] = (struct report_straggler){ .rank = r->rank,
							      .metric = ma->path, .value = v,
							      .median = sa->median,
							      .excess = v / sa->median - 1 };
		if (sb && sb->median > 0 && metric_value(mb, r, &v) &&
		    v < sb->median * (1 - o->comm_deficit))
			out[k++] = (struct report_straggler){ .rank = r->rank,
							      .metric = mb->path, .value = v,
							      .median = sb->median,
							      .excess = v / sb->median - 1 };
	}
	free(ord);
	rep->stragglers = k ? out : NULL;
	rep->nr_stragglers = k;
	return 0;
}

/* Stragglers already found by collectives_compute(): the step rule stays out. */
static int by_collectives(const struct report *rep)
{
	return rep->straggler_rule && !strcmp(rep->straggler_rule, "collectives");
}

int crossrank_compute_opts(struct report *rep, const struct crossrank_opts *o)
{
	size_t n = rep->nr_ranks, np = 0, nr_paths = 0, nm = 0, nr_devices = 0, cap, nr_out = 0;
	size_t nr_folded = 0;
	struct sample *smp = NULL, *smp2 = NULL;
	double *tmp = NULL, *other = NULL;
	unsigned char *has_other = NULL;
	struct keyed *pe = NULL, *me = NULL;
	const char **names = NULL;
	struct report_stat *out;
	const struct metric_def *ma, *mb = metric_find(MK_GPU_COMM_NS);
	const struct report_stat *sa;
	size_t nr_fixed = 0;
	int rc = -1, oom_p, oom_m;

	rep->cross_rank = NULL;
	rep->nr_cross_rank = 0;
	if (!by_collectives(rep)) {
		rep->stragglers = NULL;
		rep->nr_stragglers = 0;
		rep->straggler_rule = NULL;
	}
	if (n < 2)
		return 0;

	smp = alloc_n(n, sizeof(*smp));
	smp2 = alloc_n(n, sizeof(*smp2));
	tmp = alloc_n(n, sizeof(*tmp));
	other = calloc(n, sizeof(*other));
	has_other = calloc(n, 1);
	if (!smp || !smp2 || !tmp || !other || !has_other)
		goto out;
	pe = gather(rep, 0, &np, &nr_paths, &oom_p);
	me = gather(rep, 1, &nm, &nr_devices, &oom_m);
	if (oom_p || oom_m)
		goto out;
	if (!rep->full && nr_paths > REPORT_ROWS_MAX + 1) {
		if (fold_paths(rep, pe, &np, nr_paths, REPORT_ROWS_MAX, other, has_other))
			goto out;
		nr_folded = nr_paths - REPORT_ROWS_MAX;
		nr_paths = REPORT_ROWS_MAX;
	}
	nr_folded += folded_phases(rep, other, has_other);
	for (size_t m = 0; m < metric_nr; m++)
		nr_fixed += is_cross(&metric_table[m]);
	if (nr_devices > SIZE_MAX / 2 - nr_fixed - nr_paths - 1)
		goto out;
	cap = nr_fixed + nr_paths + 1 + 2 * nr_devices;
	if (cap > SIZE_MAX / sizeof(*out))
		goto out;
	out = arena_alloc(&rep->arena, cap * sizeof(*out));
	names = alloc_n(nr_paths + 2 * nr_devices, sizeof(*names));
	if (!out || !names)
		goto out;

	/* the names first, so that the stats below cannot fail half-way */
	for (size_t i = 0, p = 0; i < np; i++) {
		if (i > 0 && strcmp(pe[i].path, pe[i - 1].path) == 0)
			continue;
		if (!(names[p++] = phase_metric(&rep->arena, pe[i].path)))
			goto out;
	}
	for (size_t i = 0, d = nr_paths; i < nm; i++) {
		const char *alloc = METRIC_MEMORY_KEY(peak_allocated);
		const char *reserved = METRIC_MEMORY_KEY(peak_reserved);

		if (i > 0 && me[i].device == me[i - 1].device)
			continue;
		if (!(names[d++] = memory_metric(&rep->arena, me[i].device, alloc)) ||
		    !(names[d++] = memory_metric(&rep->arena, me[i].device, reserved)))
			goto out;
	}

	for (size_t m = 0; m < metric_nr; m++) {
		const struct metric_def *d = &metric_table[m];
		size_t k = 0;

		if (!is_cross(d))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (metric_value(d, &rep->ranks[i], &smp[k].v)) {
				smp[k].rank = rep->ranks[i].rank;
				k++;
			}
		}
		if (k)
			stat_of(&out[nr_out++], d->path, smp, k, tmp);
	}
	phase_stats(rep, pe, np, names, out, &nr_out, smp, tmp);
	if (nr_folded) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (has_other[i])
				smp[k++] = (struct sample){ other[i], rep->ranks[i].rank };
		stat_of(&out[nr_out], CROSSRANK_PHASES_OTHER, smp, k, tmp);
		out[nr_out++].nr_folded = (int64_t)nr_folded;
	}
	memory_stats(rep, me, nm, names + nr_paths, out, &nr_out, smp, smp2, tmp);
	rep->cross_rank = out;
	rep->nr_cross_rank = nr_out;

	/* rule (a): steps where any rank has them, else the span */
	ma = metric_find(MK_STEPS_MEDIAN_NS);
	sa = find_stat(out, nr_out, ma->path);
	if (!sa) {
		ma = metric_find(MK_SPAN_NS);
		sa = find_stat(out, nr_out, ma->path);
	}
	if (by_collectives(rep)) {
		rc = 0;
		goto out;
	}
	rep->straggler_rule = strcmp(ma->path, MK_SPAN_NS) ? "steps" : "span";
	if (find_stragglers(rep, o, sa, ma, find_stat(out, nr_out, mb->path), mb) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0) {
		rep->cross_rank = NULL;
		rep->nr_cross_rank = 0;
		if (!by_collectives(rep)) {
			rep->stragglers = NULL;
			rep->nr_stragglers = 0;
		}
	}
	free(names);
	free(me);
	free(pe);
	free(other);
	free(has_other);
	free(tmp);
	free(smp2);
	free(smp);
	return rc;
}

int crossrank_compute(struct report *rep)
{
	static const struct crossrank_opts defaults = CROSSRANK_OPTS_DEFAULT;

	return crossrank_compute_opts(rep, &defaults);
}
