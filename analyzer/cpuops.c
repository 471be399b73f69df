/*
 * cpuops: see cpuops.h.  Nesting is found per thread by sorting its spans by
 * start (longest first on ties) and sweeping with a stack of open spans.
 */
#include "cpuops.h"

#include <stdlib.h>
#include <string.h>

struct cpu_rec {
	int64_t ts_ns, dur_ns;
	int64_t child_ns;	/* summed durations of direct children */
	uint32_t name, track;
	uint64_t seq;
};

void cpuops_init(struct cpuops *c)
{
	strtab_init(&c->names, 1);
	strtab_init(&c->tracks, 1);
	buf_init(&c->recs);
	c->seq = 0;
}

void cpuops_release(struct cpuops *c)
{
	strtab_release(&c->names);
	strtab_release(&c->tracks);
	buf_release(&c->recs);
}

static uint32_t track_of(struct cpuops *c, const struct strtab *st, const struct trace_event *ev)
{
	char key[EVENT_TRACK_KEY_MAX];

	return strtab_intern(&c->tracks, key, event_track_key(st, ev, key, sizeof(key)));
}

int cpuops_collect(struct cpuops *c, const struct event_batch *b)
{
	const struct strtab *st = &b->strs;
	uint32_t cpu_op = strtab_find(st, "cpu_op", 6);
	uint32_t *map;
	int rc = -1;

	if (!cpu_op)
		return 0;
	map = calloc(strtab_count(st) + 1, sizeof(*map));
	if (!map)
		return -1;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct cpu_rec rec;

		if (ev->cat != cpu_op || ev->phase != 'X' || !(ev->flags & EV_TS))
			continue;
		if (ev->name && !map[ev->name]) {
			map[ev->name] = strtab_intern(&c->names, strtab_str(st, ev->name),
						      strtab_len(st, ev->name));
			if (map[ev->name] == STRTAB_OOM)
				goto out;
		}
		rec.ts_ns = ev->ts_ns;
		rec.dur_ns = ev->dur_ns;
		rec.child_ns = 0;
		rec.name = ev->name ? map[ev->name] : 0;
		rec.track = track_of(c, st, ev);
		rec.seq = c->seq++;
		if (rec.track == STRTAB_OOM)
			goto out;
		buf_add(&c->recs, &rec, sizeof(rec));
	}
	rc = buf_ok(&c->recs) ? 0 : -1;
out:
	free(map);
	return rc;
}

static int cmp_nesting(const void *a, const void *b)
{
	const struct cpu_rec *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_name(const void *a, const void *b)
{
	const struct cpu_rec *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_row(const void *a, const void *b)
{
	const struct report_cpu_op *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cpuops_finish(struct cpuops *c, struct report *rep, struct report_rank *rk)
{
	struct cpu_rec *r = (struct cpu_rec *)c->recs.data;
	size_t n = c->recs.len / sizeof(*r), depth = 0, rows = 0;
	size_t *stack = malloc((n ? n : 1) * sizeof(*stack));

	if (!stack)
		return -1;
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_nesting);
	for (size_t i = 0; i < n; i++) {
		if (i && r[i].track != r[i - 1].track)
			depth = 0;
		while (depth && r[i].ts_ns >= r[stack[depth - 1]].ts_ns + r[stack[depth - 1]].dur_ns)
			depth--;
		if (depth)
			r[stack[depth - 1]].child_ns += r[i].dur_ns;
		stack[depth++] = i;
	}
	free(stack);

	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_name);
	rk->cpu_ops = arena_alloc(&rep->arena, (n ? n : 1) * sizeof(*rk->cpu_ops));
	if (!rk->cpu_ops)
		return -1;
	for (size_t i = 0; i < n;) {
		struct report_cpu_op *op = &rk->cpu_ops[rows++];
		size_t j = i;

		op->name = r[i].name ? arena_strndup(&rep->arena, strtab_str(&c->names, r[i].name),
						     strtab_len(&c->names, r[i].name))
				     : "";
		if (!op->name)
			return -1;
		op->count = op->total_ns = op->self_ns = 0;
		for (; j < n && r[j].name == r[i].name; j++) {
			op->count++;
			op->total_ns += r[j].dur_ns;
			op->self_ns += r[j].dur_ns - r[j].child_ns;
		}
		i = j;
	}
	if (rows > 1)
		qsort(rk->cpu_ops, rows, sizeof(*rk->cpu_ops), cmp_row);
	rk->nr_cpu_ops = rows;
	return 0;
}
