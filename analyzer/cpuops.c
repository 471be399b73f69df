/*
 * cpuops: see cpuops.h.  Nesting is found per thread by ordering its spans by
 * start (longest first on ties) and sweeping with a stack of open spans; the
 * order is a permutation built by linear-time sorts (lib/sort), as there
 * are a million operator events in a gigabyte of trace.
 */
#include "cpuops.h"

#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "sort.h"
#include "track.h"

struct cpu_rec {
	int64_t ts_ns, dur_ns;
	int64_t child_ns;	/* summed durations of direct children */
	uint32_t name, track;
};

void cpuops_init(struct cpuops *c)
{
	strtab_init(&c->names, 1);
	strtab_init(&c->tracks, 1);
	buf_init(&c->recs);
}

void cpuops_release(struct cpuops *c)
{
	strtab_release(&c->names);
	strtab_release(&c->tracks);
	buf_release(&c->recs);
}

int cpuops_collect(struct cpuops *c, const struct event_batch *b)
{
	const struct strtab *st = &b->strs;
	uint32_t cpu_op = strtab_find(st, "cpu_op", 6);
	uint32_t op2021 = strtab_find(st, "Operator", 8);	/* Kineto 2021's cpu_op */
	struct track_cache cache = { 0 };
	uint32_t *map;
	int rc = -1;

	if (!cpu_op && !op2021)
		return 0;
	map = calloc(strtab_count(st) + 1, sizeof(*map));
	if (!map || buf_reserve(&c->recs, b->n * sizeof(struct cpu_rec))) {
		free(map);
		return -1;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct cpu_rec rec;

		if (!ev->cat || (ev->cat != cpu_op && ev->cat != op2021) || ev->phase != 'X' ||
		    !(ev->flags & EV_TS))
			continue;
		rec.ts_ns = ev->ts_ns;
		rec.dur_ns = ev->dur_ns;
		rec.child_ns = 0;
		rec.name = ev->name ? strtab_map(&c->names, st, ev->name, map) : 0;
		if (rec.name == STRTAB_OOM)
			goto out;
		rec.track = track_id(&c->tracks, &cache, b, ev);
		if (rec.track == STRTAB_OOM)
			goto out;
		/* room for the whole batch was reserved above */
		memcpy(c->recs.data + c->recs.len, &rec, sizeof(rec));
		c->recs.len += sizeof(rec);
	}
	c->recs.data[c->recs.len] = '\0';	/* buf's invariant, kept by hand */
	rc = 0;
out:
	free(map);
	return rc;
}

/*
 * perm: the records by thread, then start, then longest first (a parent
 * before the children that start with it), then file order.
 */
static int nesting_order(struct cpuops *c, const struct cpu_rec *r, size_t n, uint32_t *perm)
{
	uint64_t *key = malloc((n ? n : 1) * sizeof(*key));
	uint32_t *track = malloc((n ? n : 1) * sizeof(*track));
	int rc = -1;

	if (!key || !track)
		goto out;
	for (size_t i = 0; i < n; i++) {
		key[i] = sort_key_i64(r[i].ts_ns);
		track[i] = r[i].track;
	}
	if (sort_perm_u64(key, perm, n) ||
	    sort_perm_id(track, strtab_count(&c->tracks), perm, n))
		goto out;
	/* Runs with one thread and start: longest first, by insertion (runs are short). */
	for (size_t i = 1; i < n; i++) {
		uint32_t x = perm[i];
		size_t j = i;

		while (j > 0 && r[perm[j - 1]].track == r[x].track &&
		       r[perm[j - 1]].ts_ns == r[x].ts_ns && r[perm[j - 1]].dur_ns < r[x].dur_ns) {
			perm[j] = perm[j - 1];
			j--;
		}
		perm[j] = x;
	}
	rc = 0;
out:
	free(key);
	free(track);
	return rc;
}

static int cmp_row(const void *a, const void *b)
{
	const struct report_cpu_op *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cpuops_finish(struct cpuops *c, struct arena *a, struct report_rank *rk)
{
	struct cpu_rec *r = (struct cpu_rec *)c->recs.data;
	size_t n = c->recs.len / sizeof(*r), depth = 0, rows = 0;
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack)), *perm = sort_identity(n);
	uint32_t *names = malloc((n ? n : 1) * sizeof(*names));
	int rc = -1;

	if (!stack || !perm || !names || nesting_order(c, r, n, perm))
		goto out;
	for (size_t k = 0; k < n; k++) {
		struct cpu_rec *s = &r[perm[k]];

		if (k && s->track != r[perm[k - 1]].track)
			depth = 0;
		while (depth && s->ts_ns >= r[stack[depth - 1]].ts_ns + r[stack[depth - 1]].dur_ns)
			depth--;
		if (depth)
			r[stack[depth - 1]].child_ns = sat_add(r[stack[depth - 1]].child_ns, s->dur_ns);
		stack[depth++] = perm[k];
	}

	/* One row per name: group the records by name id. */
	for (size_t i = 0; i < n; i++) {
		perm[i] = (uint32_t)i;
		names[i] = r[i].name;
	}
	if (sort_perm_id(names, strtab_count(&c->names), perm, n))
		goto out;
	rk->cpu_ops = arena_alloc(a, (n ? n : 1) * sizeof(*rk->cpu_ops));
	if (!rk->cpu_ops)
		goto out;
	for (size_t i = 0; i < n;) {
		struct report_cpu_op *op = &rk->cpu_ops[rows++];
		uint32_t name = r[perm[i]].name;
		size_t j = i;

		op->name = name ? arena_strndup(a, strtab_str(&c->names, name),
						strtab_len(&c->names, name))
				: "";
		if (!op->name)
			goto out;
		op->count = op->total_ns = op->self_ns = 0;
		for (; j < n && r[perm[j]].name == name; j++) {
			op->count++;
			op->total_ns = sat_add(op->total_ns, r[perm[j]].dur_ns);
			op->self_ns = sat_add(op->self_ns, sat_sub(r[perm[j]].dur_ns, r[perm[j]].child_ns));
		}
		i = j;
	}
	if (rows > 1)
		qsort(rk->cpu_ops, rows, sizeof(*rk->cpu_ops), cmp_row);
	rk->nr_cpu_ops = rows;
	rc = 0;
out:
	free(stack);
	free(perm);
	free(names);
	return rc;
}
