/*
 * replay: see replay.h.  Captures are grouped by their launch kinds (a
 * hash, then a compare), so that each replay costs a bisection among the
 * groups and a pass over its own records, however many captures and
 * replays a trace holds.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "grow.h"
#include "perf_model.h"
#include "sat.h"
#include "track.h"

enum { RC_NONE, RC_BEGIN, RC_END, RC_GRAPH, RC_KERNEL, RC_OTHER };

void replay_init(struct replay *rp)
{
	memset(rp, 0, sizeof(*rp));
}

void replay_release(struct replay *rp)
{
	free(rp->calls);
	free(rp->dev);
	free(rp->launches);
	free(rp->windows);
	memset(rp, 0, sizeof(*rp));
}

static int has(const char *s, size_t n, const char *pat)
{
	return memmem(s, n, pat, strlen(pat)) != NULL;
}

/* What a runtime call named s[0..n) is here. */
static unsigned call_kind(const char *s, size_t n)
{
	if (has(s, n, "StreamBeginCapture"))
		return RC_BEGIN;
	if (has(s, n, "StreamEndCapture"))
		return RC_END;
	if (has(s, n, "GraphLaunch"))
		return RC_GRAPH;
	if (has(s, n, "LaunchKernel") || has(s, n, "LaunchCooperativeKernel"))
		return RC_KERNEL;
	if (has(s, n, "Memset") || has(s, n, "Memcpy"))
		return RC_OTHER;
	return RC_NONE;
}

int replay_collect(struct replay *rp, const struct event_batch *b, const unsigned char *cls,
		   struct strtab *tracks)
{
	const struct strtab *st = &b->strs;
	unsigned char *kind = calloc((size_t)strtab_count(st) + 1, 1);	/* by name: kind + 1 */
	struct track_cache cache = { 0 };
	int rc = -1;

	if (!kind)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned k;
		uint32_t track;

		if (ev->phase != 'X' || !(ev->flags & EV_TS))
			continue;
		if (evc_is_device(cls[i])) {
			if (!(ev->flags & EV_CORRELATION))
				continue;
			if (ALLOC_GROW(rp->dev, rp->nr_dev + 1, rp->dev_alloc))
				goto out;
			rp->dev[rp->nr_dev] = (struct replay_dev){
				ev->correlation, ev->ts_ns, ev->dur_ns,
				ev->flags & EV_STREAM ? ev->stream : -1, cls[i] == EVC_KERNEL,
				(uint32_t)rp->nr_dev };
			rp->nr_dev++;
			continue;
		}
		if ((cls[i] != EVC_RUNTIME && cls[i] != EVC_SYNC) || !ev->name)
			continue;
		if (!kind[ev->name])
			kind[ev->name] = (unsigned char)(call_kind(strtab_str(st, ev->name),
								   strtab_len(st, ev->name)) + 1);
		k = kind[ev->name] - 1u;
		if (k == RC_NONE || (k == RC_GRAPH && !(ev->flags & EV_CORRELATION)))
			continue;
		track = track_id(tracks, &cache, b, ev);
		if (track == STRTAB_OOM || ALLOC_GROW(rp->calls, rp->nr_calls + 1, rp->calls_alloc))
			goto out;
		rp->any_graph |= k == RC_GRAPH;
		rp->calls[rp->nr_calls++] = (struct replay_call){
			ev->ts_ns, ev->flags & EV_CORRELATION ? ev->correlation : 0, track, k };
	}
	rc = 0;
out:
	free(kind);
	return rc;
}

static int cmp_call(const void *a, const void *b)
{
	const struct replay_call *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

int replay_windows(struct replay *rp)
{
	size_t nw = 0, nl = 0, walloc = 0, lalloc = 0;
	int64_t begin = 0;
	int open = 0;

	if (!rp->any_graph)
		return 0;
	if (rp->nr_calls > 1)
		qsort(rp->calls, rp->nr_calls, sizeof(*rp->calls), cmp_call);
	/*
	 * Per thread in time order: a capture is a begin and the end after
	 * it (a second begin restarts it, as the runtime refuses nesting);
	 * its launches are the calls between them.
	 */
	for (size_t i = 0, first = 0; i < rp->nr_calls; i++) {
		const struct replay_call *c = &rp->calls[i];

		if (i && c->track != rp->calls[i - 1].track)
			open = 0;
		if (c->what == RC_BEGIN) {
			open = 1;
			begin = c->ts_ns;
			first = i + 1;
		} else if (c->what == RC_END && open) {
			open = 0;
			if (ALLOC_GROW(rp->windows, 2 * (nw + 1), walloc))
				return -1;
			rp->windows[2 * nw] = begin;
			rp->windows[2 * nw + 1] = c->ts_ns;
			for (size_t j = first; j < i; j++) {
				if (rp->calls[j].what != RC_KERNEL && rp->calls[j].what != RC_OTHER)
					continue;
				if (ALLOC_GROW(rp->launches, nl + 1, lalloc))
					return -1;
				rp->launches[nl++] = (struct replay_launch){
					rp->calls[j].ts_ns, rp->calls[j].track, (uint32_t)nw,
					rp->calls[j].what == RC_KERNEL, 0, 0 };
			}
			nw++;
		}
	}
	rp->nr_windows = (uint32_t)nw;
	rp->nr_launches = nl;
	return 0;
}

/* A capture's launches, as a replay must show them. */
struct capture {
	uint64_t hash;
	size_t first, n;	/* in replay_launch order */
	uint32_t group;		/* the first capture of its kinds: its index */
	int agree;		/* for a group's first: all its captures give the same calls */
};

static uint64_t mix(uint64_t h, unsigned v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct replay_dev *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cmp_graph(const void *a, const void *b)
{
	const struct replay_call *x = a, *y = b;

	return (x->corr > y->corr) - (x->corr < y->corr);
}

struct cap_key {
	uint64_t hash;
	size_t n;
	uint32_t cap;
};

static int cmp_cap_key(const void *a, const void *b)
{
	const struct cap_key *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->cap > y->cap) - (x->cap < y->cap);
}

/* The figures of launch l's operator, for comparing two captures' calls. */
struct owned {
	uint32_t ordinal;	/* its operator among the capture's, in first-launch order; 0 none */
	int known;
	double flops;
	uint32_t dtype;
};

int replay_finish(struct replay *rp, const struct strtab *keys, const char *device_name,
		  struct opsperf_when *when)
{
	size_t nw = rp->nr_windows, ng = 0, nk = 0;
	struct capture *cap = NULL;
	struct cap_key *key = NULL;
	struct owned *own = NULL;
	double ceiling = opsperf_ceiling(device_name);
	int rc = -1;

	if (!rp->any_graph || !nw) {
		rc = 0;
		goto out;
	}
	cap = calloc(nw, sizeof(*cap));
	key = malloc(nw * sizeof(*key));
	own = calloc(rp->nr_launches ? rp->nr_launches : 1, sizeof(*own));
	if (!cap || !key || !own)
		goto out;
	for (size_t l = 0, w = (size_t)-1, nr = 0; l < rp->nr_launches; l++) {
		const struct replay_launch *ln = &rp->launches[l];
		struct capture *c;

		if (ln->window != w) {
			w = ln->window;
			cap[w].first = l;
			cap[w].hash = 0xcbf29ce484222325ull;
			nr = 0;
		}
		c = &cap[w];
		c->n++;
		c->hash = mix(c->hash, ln->kernel);
		if (!ln->owner)
			continue;
		/*
		 * An operator's launches are consecutive: those of a span's
		 * children are its own unless a modelled one owns them.
		 */
		if (l > c->first && rp->launches[l - 1].owner == ln->owner) {
			own[l] = own[l - 1];
		} else {
			struct perf_call pc;

			opsperf_eval(keys, ln->shape, &pc);
			own[l] = (struct owned){ (uint32_t)++nr, pc.known, pc.known ? pc.flops : 0,
						 (uint32_t)pc.dtype };
		}
	}
	/* Groups of captures with the same kinds; a group replays only if all agree. */
	for (size_t w = 0; w < nw; w++)
		key[w] = (struct cap_key){ cap[w].hash, cap[w].n, (uint32_t)w };
	if (nw > 1)
		qsort(key, nw, sizeof(*key), cmp_cap_key);
	for (size_t i = 0; i < nw; i++) {
		struct capture *c = &cap[key[i].cap], *g;
		int same = 0;

		if (i && key[i - 1].n == c->n && key[i - 1].hash == c->hash) {
			g = &cap[cap[key[i - 1].cap].group];
			same = 1;
			for (size_t j = 0; j < c->n && same; j++)
				same = rp->launches[g->first + j].kernel ==
				       rp->launches[c->first + j].kernel;
		}
		if (!same) {
			c->group = key[i].cap;
			c->agree = 1;
			key[ng++] = key[i];	/* the groups, in the same order */
			continue;
		}
		c->group = g->group;
		for (size_t j = 0; j < c->n && g->agree; j++) {
			const struct owned *x = &own[g->first + j], *y = &own[c->first + j];

			g->agree = x->ordinal == y->ordinal && x->known == y->known &&
				   x->flops == y->flops && x->dtype == y->dtype;
		}
	}
	/* The replays: their records by correlation, in device order. */
	if (rp->nr_dev > 1)
		qsort(rp->dev, rp->nr_dev, sizeof(*rp->dev), cmp_dev);
	for (size_t i = 0; i < rp->nr_calls; i++)
		if (rp->calls[i].what == RC_GRAPH)
			rp->calls[nk++] = rp->calls[i];
	if (nk > 1)
		qsort(rp->calls, nk, sizeof(*rp->calls), cmp_graph);	/* stable enough: ties skipped */
	for (size_t i = 0, d = 0; i < nk; i++) {
		const struct replay_call *gl = &rp->calls[i];
		struct cap_key want = { 0xcbf29ce484222325ull, 0, 0 };
		size_t lo = 0, hi = ng, first, n, one_stream = 1;
		const struct capture *g;

		if (i && gl->corr == rp->calls[i - 1].corr)
			continue;	/* the device work counts at its first launch */
		while (d < rp->nr_dev && rp->dev[d].corr < gl->corr)
			d++;
		for (first = d; d < rp->nr_dev && rp->dev[d].corr == gl->corr; d++) {
			want.hash = mix(want.hash, rp->dev[d].kernel);
			one_stream &= rp->dev[d].stream == rp->dev[first].stream;
		}
		n = want.n = d - first;
		/* on several streams, device order need not be the capture's */
		if (!n || !one_stream)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_cap_key(&key[mid], &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == ng || key[lo].n != n || key[lo].hash != want.hash)
			continue;
		g = &cap[key[lo].cap];
		if (!g->agree)
			continue;
		for (size_t j = 0; j < n; j++)
			if (rp->launches[g->first + j].kernel != rp->dev[first + j].kernel)
				break;
			else if (j == n - 1)
				goto matched;
		continue;
matched:
		/* one call per operator: the device time of all the records it launched */
		for (size_t j = 0, m; j < n; j = m) {
			const struct owned *o = &own[g->first + j];
			int64_t dev_ns = 0;

			for (m = j; m < n && own[g->first + m].ordinal == o->ordinal; m++)
				dev_ns = sat_add(dev_ns, rp->dev[first + m].dur_ns);
			if (!o->known || dev_ns <= 0 || !(o->flops / (double)dev_ns / 1e3 <= ceiling))
				continue;
			if (ALLOC_GROW(when->v, when->n + 1, when->alloc))
				goto out;
			when->v[when->n++] = (struct opsperf_flops){ gl->ts_ns, dev_ns, o->flops,
								     o->dtype };
		}
	}
	rc = 0;
out:
	free(cap);
	free(key);
	free(own);
	replay_release(rp);
	return rc;
}
