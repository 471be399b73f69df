/*
 * collectives: see collectives.h.
 *
 * The series of all ranks are gathered into one array of (key, rank index)
 * entries and sorted, so a key's participants sit together in rank order
 * and no hashing decides anything.  Each key is matched on its first m
 * instances, m the smallest count among its ranks.  Sums run in that order,
 * so the result depends on rep->ranks alone.  Scratch arrays are malloc'd
 * and freed here; only results go into the report's arena.
 */
#include "collectives.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metric.h"
#include "sat.h"
#include "sort.h"

struct entry {
	const struct report_comm_series *s;
	size_t idx;			/* in rep->ranks */
};

/* One key: entries e[first .. first + p), matched on m instances. */
struct key {
	size_t first, p, m;
};

/* Per rank accumulators. */
struct acc {
	int64_t wait, imposed, last, matched;
	int64_t best_wait;		/* the collective it delays most, */
	const struct report_comm_series *best;	/* and what it imposes there */
};

static int cmp_str_null(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

static int cmp_series(const struct report_comm_series *x, const struct report_comm_series *y)
{
	int c = cmp_str_null(x->group, y->group);

	return c ? c : strcmp(x->name, y->name);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = cmp_series(x->s, y->s);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void *alloc_n(size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		return NULL;
	return calloc(n ? n : 1, size);
}

/* nccl-tests' bus bandwidth factor of a collective over n ranks, by its name. */
static double bus_factor(const char *name, int64_t n)
{
	static const char *const ring[] = { "allgather", "all_gather", "reducescatter",
					    "reduce_scatter", "alltoall", "all_to_all" };
	char low[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof(low) - 1; i++)
		low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
	low[i] = '\0';
	if (n < 1)
		return 1;
	if (strstr(low, "allreduce") || strstr(low, "all_reduce"))
		return 2.0 * (double)(n - 1) / (double)n;
	for (i = 0; i < sizeof(ring) / sizeof(ring[0]); i++)
		if (strstr(low, ring[i]))
			return (double)(n - 1) / (double)n;
	return 1;	/* broadcast, reduce, send/recv */
}

/*
 * Warnings are kept aside while keys are matched and added to their ranks
 * at the end, all at once: appended one by one, each would scan the rank's
 * warnings for a duplicate and copy the array, square in the number of
 * unmatched keys in time and in arena memory.
 */
struct pending {
	size_t idx;		/* in rep->ranks */
	size_t seq;		/* order made; a rank's own warnings: SIZE_MAX */
	const char *text;	/* malloc'd, or a rank's own warning */
};

struct warns {
	struct pending *v;	/* those made, in order */
	size_t n, alloc;
};

/* Keep "text" for rank idx.  -1 when out of memory. */
static int warn_rank(struct warns *w, size_t idx, const char *text)
{
	char *s;

	if (ALLOC_GROW(w->v, w->n + 1, w->alloc) || !(s = strdup(text)))
		return -1;
	w->v[w->n] = (struct pending){ idx, w->n, s };
	w->n++;
	return 0;
}

static void warns_release(struct warns *w)
{
	for (size_t i = 0; i < w->n; i++)
		free((char *)w->v[i].text);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* By rank, text, then a rank's own warnings before those made, in order. */
static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	if ((c = strcmp(x->text, y->text)))
		return c;
	if (x->seq != y->seq)
		return x->seq == SIZE_MAX ? -1 : y->seq == SIZE_MAX ? 1 : x->seq < y->seq ? -1 : 1;
	return 0;
}

/*
 * Append the warnings made to their ranks, in the order made, but none a
 * rank has already (a report read back and matched again) or was given
 * earlier.  -1 when out of memory.
 */
static int warns_flush(struct report *rep, struct warns *w)
{
	size_t n = rep->nr_ranks, total = w->n, k = 0;
	size_t *add = calloc(n ? n : 1, sizeof(*add));
	unsigned char *keep = calloc(w->n ? w->n : 1, 1);
	struct pending *all = NULL;
	int rc = -1;

	if (!w->n) {
		rc = 0;
		goto out;
	}
	if (!add || !keep)
		goto out;
	for (size_t i = 0; i < w->n; i++)
		add[w->v[i].idx] = 1;
	for (size_t r = 0; r < n; r++)
		if (add[r])
			total += rep->ranks[r].nr_warnings;
	if (!(all = calloc(total ? total : 1, sizeof(*all))))
		goto out;
	for (size_t r = 0; r < n; r++) {
		for (size_t i = 0; add[r] && i < rep->ranks[r].nr_warnings; i++)
			all[k++] = (struct pending){ r, SIZE_MAX, rep->ranks[r].warnings[i] };
		add[r] = 0;
	}
	memcpy(all + k, w->v, w->n * sizeof(*all));
	qsort(all, total, sizeof(*all), cmp_pending);
	for (size_t i = 0; i < total; i++) {
		if (all[i].seq == SIZE_MAX ||
		    (i && all[i - 1].idx == all[i].idx && !strcmp(all[i - 1].text, all[i].text)))
			continue;
		keep[all[i].seq] = 1;
		add[all[i].idx]++;
	}
	for (size_t r = 0; r < n; r++) {
		struct report_rank *rk = &rep->ranks[r];
		const char **v;

		if (!add[r])
			continue;
		if (!(v = arena_alloc(&rep->arena, (rk->nr_warnings + add[r]) * sizeof(*v))))
			goto out;
		if (rk->nr_warnings)
			memcpy(v, rk->warnings, rk->nr_warnings * sizeof(*v));
		rk->warnings = v;
	}
	for (size_t i = 0; i < w->n; i++) {
		struct report_rank *rk = &rep->ranks[w->v[i].idx];
		const char *s = w->v[i].text;

		if (!keep[i])
			continue;
		if (!(rk->warnings[rk->nr_warnings] = arena_strndup(&rep->arena, s, strlen(s))))
			goto out;
		rk->nr_warnings++;
	}
	rc = 0;
out:
	free(add);
	free(keep);
	free(all);
	return rc;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), n > 0, sorting v; the mean of the middle two rounds down. */
static int64_t median_i64(int64_t *v, size_t n)
{
	if (sort_i64(v, n) && n > 1)
		qsort(v, n, sizeof(*v), cmp_i64);
	if (n % 2)
		return v[n / 2];
	return sat_add(v[n / 2 - 1], sat_sub(v[n / 2], v[n / 2 - 1]) / 2);
}

/* Match key k: per-rank sums into acc, one table row into row. */
static int match_key(struct report *rep, const struct entry *e, const struct key *k,
		     struct acc *acc, int64_t *key_imp, int64_t *key_last,
		     struct report_collective *row, struct warns *warns)
{
	const struct report_comm_series *s0 = e[k->first].s;
	int64_t group_size = -1, bytes = 0;
	int bytes_known = 1;

	memset(row, 0, sizeof(*row));
	row->group = s0->group;
	row->name = s0->name;
	row->ranks = (int64_t)k->p;
	row->instances = (int64_t)k->m;
	memset(key_imp, 0, k->p * sizeof(*key_imp));
	memset(key_last, 0, k->p * sizeof(*key_last));
	for (size_t i = 0; i < k->p; i++) {
		const struct report_comm_series *s = e[k->first + i].s;

		if ((int64_t)(s->n - k->m) > row->unmatched)
			row->unmatched = (int64_t)(s->n - k->m);
		if (s->group_size > group_size)
			group_size = s->group_size;
	}
	for (size_t j = 0; j < k->m; j++) {
		int64_t lo = INT64_MAX, sum = 0, b = -1;
		size_t last = 0;

		for (size_t i = 0; i < k->p; i++) {
			const struct report_comm_series *s = e[k->first + i].s;

			if (s->dur_ns[j] < lo) {
				lo = s->dur_ns[j];
				last = i;
			}
			if (b < 0 && s->bytes && s->bytes[j] >= 0)
				b = s->bytes[j];
		}
		for (size_t i = 0; i < k->p; i++) {
			int64_t w = sat_sub(e[k->first + i].s->dur_ns[j], lo);
			struct acc *a = &acc[e[k->first + i].idx];

			a->wait = sat_add(a->wait, w);
			sum = sat_add(sum, w);
		}
		key_imp[last] = sat_add(key_imp[last], sum);
		key_last[last]++;
		row->wait_ns = sat_add(row->wait_ns, sum);
		row->transfer_ns = sat_add(row->transfer_ns, lo);
		if (b < 0)
			bytes_known = 0;
		else
			bytes = sat_add(bytes, b);
	}
	for (size_t i = 0; i < k->p; i++) {
		struct acc *a = &acc[e[k->first + i].idx];

		a->imposed = sat_add(a->imposed, key_imp[i]);
		a->last += key_last[i];
		a->matched += (int64_t)k->m;
		if (key_imp[i] > a->best_wait) {
			a->best_wait = key_imp[i];
			a->best = e[k->first + i].s;
		}
		if (key_last[i] > row->last_count) {
			row->last_count = key_last[i];
			row->last_rank = rep->ranks[e[k->first + i].idx].rank;
		}
	}
	if (!row->last_count)
		row->last_rank = rep->ranks[e[k->first].idx].rank;
	row->bytes = bytes_known && k->m ? bytes : INT64_MIN;
	row->algbw = row->busbw = NAN;
	if (row->bytes >= 0 && row->transfer_ns > 0) {
		row->algbw = (double)row->bytes / (double)row->transfer_ns;
		row->busbw = row->algbw * bus_factor(row->name,
						     group_size > 0 ? group_size : (int64_t)k->p);
	}

	/* instances some rank lacks: warned about on the ranks that have them */
	for (size_t i = 0; i < k->p && row->unmatched; i++) {
		const struct report_comm_series *s = e[k->first + i].s;
		char text[512];

		if (s->n == k->m)
			continue;
		snprintf(text, sizeof(text),
			 "collective \"%.200s\"%s%.100s%s: %zu of its %zu instances have no match "
			 "on every rank that took part (a cut-off trace?) and were left out",
			 s->name, s->group ? " (group \"" : "", s->group ? s->group : "",
			 s->group ? "\")" : "", s->n - k->m, s->n);
		if (warn_rank(warns, e[k->first + i].idx, text))
			return -1;
	}
	return 0;
}

/*
 * The series of rank index idx under key k, or NULL: a key's entries are
 * sorted by rank index, so a binary search (the last of equal ones, as a
 * scan would keep) makes the clock offsets linear in the ranks, not square.
 */
static const struct report_comm_series *series_of(const struct entry *e, const struct key *k,
						  size_t idx)
{
	size_t lo = 0, hi = k->p;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[k->first + mid].idx <= idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && e[k->first + lo - 1].idx == idx ? e[k->first + lo - 1].s : NULL;
}

/* Each rank's clock against the reference rank ref, from the matched ends. */
static int clock_offsets(struct report *rep, const struct entry *e, const struct key *keys,
			 size_t nk, const struct acc *acc, size_t ref, size_t total)
{
	int64_t *d = alloc_n(total, sizeof(*d));

	if (!d)
		return -1;
	for (size_t r = 0; r < rep->nr_ranks; r++) {
		struct report_rank *rk = &rep->ranks[r];
		size_t n = 0;

		if (!acc[r].matched)
			continue;
		for (size_t k = 0; k < nk; k++) {
			const struct report_comm_series *sr = series_of(e, &keys[k], r);
			const struct report_comm_series *sf = series_of(e, &keys[k], ref);

			/* ends count from each rank's start_ns, on its own clock */
			for (size_t j = 0; sr && sf && j < keys[k].m; j++)
				d[n++] = sat_add(sat_sub(rk->start_ns, rep->ranks[ref].start_ns),
						 sat_sub(sr->end_ns[j], sf->end_ns[j]));
		}
		if (!n)
			continue;
		rk->has_clock = 1;
		rk->clock_offset_ns = median_i64(d, n);	/* sorts d */
		rk->clock_offset_spread_ns = sat_sub(d[n - 1], d[0]);
	}
	free(d);
	return 0;
}

struct cand {
	size_t idx;
	int64_t imposed;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->imposed != y->imposed)
		return x->imposed > y->imposed ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The ranks the others wait for, most wait first. */
static int find_stragglers(struct report *rep, const struct acc *acc)
{
	size_t n = rep->nr_ranks, p = 0;
	struct cand *c = alloc_n(n, sizeof(*c));
	int64_t *tmp = alloc_n(n, sizeof(*tmp)), total = 0, med_imposed, med_span;
	struct report_straggler *out;
	int rc = -1;

	if (!c || !tmp)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!acc[i].matched)
			continue;
		c[p].idx = i;
		c[p].imposed = acc[i].imposed;
		total = sat_add(total, acc[i].imposed);
		p++;
	}
	for (size_t i = 0; i < p; i++)
		tmp[i] = c[i].imposed;
	med_imposed = median_i64(tmp, p);
	for (size_t i = 0; i < p; i++)
		tmp[i] = rep->ranks[c[i].idx].span_ns;
	med_span = median_i64(tmp, p);
	qsort(c, p, sizeof(*c), cmp_cand);
	out = arena_alloc(&rep->arena, p * sizeof(*out));
	if (!out)
		goto out;
	rep->stragglers = out;
	for (size_t i = 0; i < p; i++) {
		const struct report_rank *rk = &rep->ranks[c[i].idx];
		const struct acc *a = &acc[c[i].idx];
		double others = (double)(total - a->imposed) / (double)(p - 1);
		struct report_straggler *sg;

		if (!rk->complete || a->imposed <= 0 ||
		    (double)a->imposed <= COLLECTIVES_STRAGGLER_FACTOR * others ||
		    (double)a->imposed / (double)(p - 1) <
			    COLLECTIVES_STRAGGLER_MIN_SHARE * (double)med_span)
			continue;
		sg = &out[rep->nr_stragglers++];
		memset(sg, 0, sizeof(*sg));
		sg->rank = rk->rank;
		sg->metric = MK_COMM_WAIT_IMPOSED_NS;
		sg->value = (double)a->imposed;
		sg->median = (double)med_imposed;
		sg->excess = others > 0 ? (double)a->imposed / others - 1 : NAN;
		sg->by_wait = 1;
		sg->wait_imposed_ns = a->imposed;
		sg->last_share = (double)a->last / (double)a->matched;
		sg->delays.group = a->best ? a->best->group : NULL;
		sg->delays.name = a->best ? a->best->name : "";
		sg->delays.wait_ns = a->best_wait;
	}
	if (!rep->nr_stragglers)
		rep->stragglers = NULL;
	rc = 0;
out:
	free(c);
	free(tmp);
	return rc;
}

/*
 * Per rank: the wait, the transfer that is left, and the work the GPU did;
 * not where the rank's device tasks gave them (gpu.h).
 */
static int rank_results(struct report *rep, const struct acc *acc, struct warns *warns)
{
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		struct report_rank *rk = &rep->ranks[i];
		struct report_gpu *g = &rk->gpu;
		int64_t work;

		/* the device's own tasks measured all the waiting, not only the arrival */
		if (!acc[i].matched || g->wait_from_tasks)
			continue;
		g->has_wait = 1;
		g->comm_wait_ns = acc[i].wait;
		/* matching sees only who arrived last: all of it is waiting for a peer */
		g->comm_sync_ns = acc[i].wait;
		g->comm_idle_ns = 0;
		g->comm_transfer_ns = sat_sub(g->comm_ns, acc[i].wait);
		if (g->comm_transfer_ns < 0) {
			char text[160];

			/* comm_ns is a union, the wait a sum: overlapping collectives */
			snprintf(text, sizeof(text),
				 "comm wait (%lld ns) exceeds comm time (%lld ns): collectives "
				 "overlap; comm_transfer_ns clamped to 0",
				 (long long)acc[i].wait, (long long)g->comm_ns);
			g->comm_transfer_ns = 0;
			if (warn_rank(warns, i, text))
				return -1;
		}
		/* The waiting is inside busy time: a spinning kernel counts as busy. */
		work = sat_sub(g->busy_ns, g->cpu_comm ? 0 : acc[i].wait);
		if (work < 0)
			work = 0;
		g->effective_utilization = g->active_span_ns > 0 ?
			(double)work / (double)g->active_span_ns : NAN;
		if (g->util_from_samples)
			g->effective_utilization = NAN;
	}
	return 0;
}

static void clear(struct report *rep)
{
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		struct report_rank *rk = &rep->ranks[i];

		if (!rk->gpu.wait_from_tasks) {	/* the rank's own, not the matching's */
			rk->gpu.has_wait = 0;
			rk->gpu.comm_wait_ns = rk->gpu.comm_transfer_ns = INT64_MIN;
			rk->gpu.comm_sync_ns = rk->gpu.comm_idle_ns = INT64_MIN;
			rk->gpu.effective_utilization = NAN;
		}
		rk->has_clock = 0;
		rk->clock_offset_ns = rk->clock_offset_spread_ns = INT64_MIN;
	}
	rep->collectives = NULL;
	rep->nr_collectives = 0;
	rep->stragglers = NULL;
	rep->nr_stragglers = 0;
	rep->straggler_rule = NULL;
	rep->incomplete_ranks = NULL;
	rep->nr_incomplete_ranks = 0;
}

int collectives_compute(struct report *rep)
{
	size_t n = rep->nr_ranks, ne = 0, nk = 0, maxp = 0, total = 0, ref = SIZE_MAX, ni = 0;
	struct entry *e = NULL;
	struct key *keys = NULL;
	struct acc *acc = NULL;
	int64_t *key_imp = NULL, *key_last = NULL;
	struct warns warns = { NULL, 0, 0 };
	int rc = -1;

	clear(rep);
	for (size_t i = 0; i < n; i++)
		ni += !rep->ranks[i].complete;
	if (ni) {
		rep->incomplete_ranks = arena_alloc(&rep->arena, ni * sizeof(int64_t));
		if (!rep->incomplete_ranks)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (!rep->ranks[i].complete)
				rep->incomplete_ranks[rep->nr_incomplete_ranks++] =
					rep->ranks[i].rank;
	}
	for (size_t i = 0; i < n; i++)
		if (rep->ranks[i].analysed)
			ne += rep->ranks[i].nr_comm;
	if (n < 2 || !ne)
		return 0;
	e = alloc_n(ne, sizeof(*e));
	keys = alloc_n(ne, sizeof(*keys));
	acc = alloc_n(n, sizeof(*acc));
	if (!e || !keys || !acc)
		goto out;
	ne = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; rep->ranks[i].analysed && j < rep->ranks[i].nr_comm; j++) {
			if (rep->ranks[i].comm[j].nr_folded)
				continue;	/* the other row: no instances, nothing to match */
			e[ne].s = &rep->ranks[i].comm[j];
			e[ne].idx = i;
			ne++;
		}
	qsort(e, ne, sizeof(*e), cmp_entry);
	for (size_t i = 0; i < ne;) {
		size_t j = i + 1, m = e[i].s->n;

		while (j < ne && !cmp_series(e[j].s, e[i].s)) {
			if (e[j].s->n < m)
				m = e[j].s->n;
			j++;
		}
		/* a collective of one rank has nobody to match with */
		if (j - i >= 2) {
			keys[nk].first = i;
			keys[nk].p = j - i;
			keys[nk].m = m;
			if (j - i > maxp)
				maxp = j - i;
			total += m;
			nk++;
		}
		i = j;
	}
	if (!nk || !total) {
		rc = 0;
		goto out;
	}
	key_imp = alloc_n(maxp, sizeof(*key_imp));
	key_last = alloc_n(maxp, sizeof(*key_last));
	rep->collectives = arena_alloc(&rep->arena, nk * sizeof(*rep->collectives));
	if (!key_imp || !key_last || !rep->collectives)
		goto out;
	for (size_t k = 0; k < nk; k++)
		if (match_key(rep, e, &keys[k], acc, key_imp, key_last, &rep->collectives[k],
			      &warns))
			goto out;
	rep->nr_collectives = nk;
	for (size_t i = 0; i < n && ref == SIZE_MAX; i++)
		if (acc[i].matched)
			ref = i;
	rep->straggler_rule = "collectives";
	if (rank_results(rep, acc, &warns) || clock_offsets(rep, e, keys, nk, acc, ref, total) ||
	    find_stragglers(rep, acc) || warns_flush(rep, &warns))
		goto out;
	rc = 0;
out:
	if (rc)
		clear(rep);
	free(e);
	free(keys);
	free(acc);
	free(key_imp);
	free(key_last);
	warns_release(&warns);
	return rc;
}
