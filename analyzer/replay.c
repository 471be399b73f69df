/*
 * replay: see replay.h.  Captures are grouped by their launch kinds (a
 * hash, then a compare), so that each replay costs a bisection among the
 * groups and a pass over its own records, however many captures and
 * replays a trace holds.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "classify.h"
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

/* What a runtime call of classify.h's flags is here. */
static unsigned call_kind(unsigned flags)
{
	if (flags & CF_CAPTURE_BEGIN)
		return RC_BEGIN;
	if (flags & CF_CAPTURE_END)
		return RC_END;
	if (flags & CF_GRAPH_RUN)
		return RC_GRAPH;
	if (flags & CF_LAUNCH_KERNEL)
		return RC_KERNEL;
	if (flags & CF_COPY)
		return RC_OTHER;
	return RC_NONE;
}

int replay_collect(struct replay *rp, const struct event_batch *b, const unsigned char *cls,
		   const unsigned char *sub, unsigned char *tag)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned k;

		if (ev->phase != 'X' || !(ev->flags & EV_TS))
			continue;
		if ((cls[i] != EVC_RUNTIME && cls[i] != EVC_SYNC) || !ev->name)
			continue;
		k = call_kind(classify_flags(sub[i]));
		if (k == RC_NONE || (k == RC_GRAPH && !(ev->flags & EV_CORRELATION)))
			continue;
		rp->any_graph |= k == RC_GRAPH;
		tag[i] |= (unsigned char)LAUNCH_WHAT(k);	/* launch.c keeps the call */
	}
	return 0;
}

int replay_take_calls(struct replay *rp, const struct calls *calls)
{
	struct calls_cursor cur;
	struct call c;
	size_t n = 0;

	if (!rp->any_graph)
		return 0;
	calls_begin(&cur, calls);
	while (calls_next(&cur, &c))
		n += c.what != 0;
	free(rp->calls);
	rp->nr_calls = rp->calls_alloc = 0;
	rp->calls = malloc((n ? n : 1) * sizeof(*rp->calls));
	if (!rp->calls)
		return -1;
	calls_begin(&cur, calls);
	while (calls_next(&cur, &c))
		if (c.what)	/* a correlation of 0 where none, as the replays read it */
			rp->calls[rp->nr_calls++] = (struct replay_call){
				c.ts_ns, c.has_corr ? c.corr : 0, c.track, c.what };
	rp->calls_alloc = n;
	return 0;
}

int replay_wants_device(const struct replay *rp)
{
	return rp->any_graph;
}

/*
 * launch.h keeps the same device work replay needs (all with a
 * correlation, kernels or not, in file order, a kernel's name), so a
 * trace without graph replays pays for no copy.
 */
int replay_device(struct replay *rp, struct launches *l)
{
	const struct launch_dev *d = l->device;
	size_t n = l->nr_device;

	if (!rp->any_graph)
		return 0;
	free(rp->dev);
	rp->nr_dev = 0;
	rp->dev = malloc((n ? n : 1) * sizeof(*rp->dev));
	if (!rp->dev)
		return -1;
	for (size_t i = 0; i < n; i++)
		rp->dev[i] = (struct replay_dev){ launch_dev_corr(l, &d[i]), d[i].ts_ns,
						  launch_dev_dur(l, &d[i]),
						  launch_dev_stream(l, &d[i]),
						  (launch_dev_users(&d[i]) >> LAUNCH_PHASES) & 1u,
						  (uint32_t)i, launch_dev_name(&d[i]) };
	rp->nr_dev = n;
	launches_release_records(l);
	return 0;
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

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
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
	uint32_t ordinal;	/* its operator's rank in the capture by first launch; 0 none */
	int known;
	double flops;
	uint32_t dtype;
};

/* A kernel name and the figures of the eager calls that launched it. */
struct named {
	uint32_t name;
	int ok;			/* each launched it alone, all with these known figures */
	double flops;
	uint32_t dtype;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;

	return (x->name > y->name) - (x->name < y->name);
}

/* The first record of correlation corr in v[0..n) (by correlation), or n. */
static size_t first_dev(const struct replay_dev *v, size_t n, int64_t corr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first call at or after (track, ts) in v[0..n) (by thread and time). */
static size_t first_call(const struct replay_call *v, size_t n, uint32_t track, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].track < track || (v[mid].track == track && v[mid].ts_ns < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * *out: per kernel name that the eager calls launched, whether a replayed
 * kernel of that name gets their figures (rp->dev sorted by correlation,
 * rp->calls by thread and time).  -1 when out of memory.
 */
static int eager_names(const struct replay *rp, const struct strtab *keys,
		       const struct replay_eager *eager, size_t ne, struct named **out,
		       size_t *nout)
{
	struct named *v = NULL;
	size_t n = 0, alloc = 0, k = 0;
	uint32_t nkeys = strtab_count(keys);
	struct perf_call *fig = malloc(((size_t)nkeys + 1) * sizeof(*fig));
	unsigned char *done = calloc((size_t)nkeys + 1, 1);
	int rc = -1;

	if (!fig || !done)
		goto out;
	for (size_t e = 0; e < ne; e++) {
		const struct replay_eager *ec = &eager[e];
		size_t c = first_call(rp->calls, rp->nr_calls, ec->track, ec->ts_ns), from = n;
		const struct perf_call *pc = &fig[ec->shape];

		for (; c < rp->nr_calls && rp->calls[c].track == ec->track &&
		       rp->calls[c].ts_ns < ec->end_ns; c++) {
			int64_t corr = rp->calls[c].corr;

			if (rp->calls[c].what != RC_KERNEL && rp->calls[c].what != RC_OTHER)
				continue;
			for (size_t d = first_dev(rp->dev, rp->nr_dev, corr);
			     d < rp->nr_dev && rp->dev[d].corr == corr; d++) {
				if (!rp->dev[d].kernel || !rp->dev[d].name)
					continue;
				if (ALLOC_GROW(v, n + 1, alloc))
					goto out;
				v[n++].name = rp->dev[d].name;
			}
		}
		if (!done[ec->shape]) {
			opsperf_eval(keys, ec->shape, &fig[ec->shape]);
			done[ec->shape] = 1;
		}
		for (size_t j = from; j < n; j++) {
			v[j].ok = n - from == 1 && pc->known;
			v[j].flops = pc->known ? pc->flops : 0;
			v[j].dtype = (uint32_t)pc->dtype;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_named);
	for (size_t i = 0, j; i < n; i = j) {
		struct named one = v[i];

		for (j = i + 1; j < n && v[j].name == v[i].name; j++)
			one.ok &= v[j].ok && v[j].flops == one.flops && v[j].dtype == one.dtype;
		v[k++] = one;
	}
	*out = v;
	*nout = k;
	v = NULL;
	rc = 0;
out:
	free(v);
	free(fig);
	free(done);
	return rc;
}

static int add_call(struct opsperf_when *when, int64_t ts_ns, int64_t dev_ns, double flops,
		    uint32_t dtype, double ceiling)
{
	if (dev_ns <= 0 || !(flops / (double)dev_ns / 1e3 <= ceiling))
		return 0;
	if (ALLOC_GROW(when->v, when->n + 1, when->alloc))
		return -1;
	when->v[when->n++] = (struct opsperf_flops){ ts_ns, dev_ns, flops, dtype };
	return 0;
}

/* The capture group whose kinds are those of records v[0..n), or NULL. */
static const struct capture *find_capture(const struct replay *rp, const struct capture *cap,
					  const struct cap_key *key, size_t ng,
					  const struct replay_dev *v, size_t n)
{
	struct cap_key want = { 0xcbf29ce484222325ull, n, 0 };
	size_t lo = 0, hi = ng;
	const struct capture *g;

	for (size_t j = 0; j < n; j++) {
		want.hash = mix(want.hash, v[j].kernel);
		/* on several streams, device order need not be the capture's */
		if (v[j].stream != v[0].stream)
			return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_cap_key(&key[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ng || key[lo].n != n || key[lo].hash != want.hash)
		return NULL;
	g = &cap[key[lo].cap];
	for (size_t j = 0; j < n; j++)
		if (rp->launches[g->first + j].kernel != v[j].kernel)
			return NULL;
	return g->agree ? g : NULL;
}

int replay_finish(struct replay *rp, const struct strtab *keys, const char *device_name,
		  const struct replay_eager *eager, size_t ne, struct opsperf_when *when)
{
	size_t nw = rp->nr_windows, ng = 0, nk = 0, nn = 0;
	struct capture *cap = NULL;
	struct cap_key *key = NULL;
	struct owned *own = NULL;
	struct named *named = NULL;
	double ceiling = opsperf_ceiling(device_name);
	int rc = -1;

	if (!rp->any_graph) {
		rc = 0;
		goto out;
	}
	cap = calloc(nw ? nw : 1, sizeof(*cap));
	key = malloc((nw ? nw : 1) * sizeof(*key));
	own = calloc(rp->nr_launches ? rp->nr_launches : 1, sizeof(*own));
	if (!cap || !key || !own)
		goto out;
	if (rp->nr_dev > 1)
		qsort(rp->dev, rp->nr_dev, sizeof(*rp->dev), cmp_dev);
	if (eager_names(rp, keys, eager, ne, &named, &nn))
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
		struct capture *c = &cap[key[i].cap], *g = NULL;
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
	for (size_t i = 0; i < rp->nr_calls; i++)
		if (rp->calls[i].what == RC_GRAPH)
			rp->calls[nk++] = rp->calls[i];
	if (nk > 1)
		qsort(rp->calls, nk, sizeof(*rp->calls), cmp_graph);
	for (size_t i = 0, d = 0; i < nk; i++) {
		const struct replay_call *gl = &rp->calls[i];
		const struct replay_dev *v;
		const struct capture *g;
		size_t first, n;

		if (i && gl->corr == rp->calls[i - 1].corr)
			continue;	/* the device work counts at its first launch */
		while (d < rp->nr_dev && rp->dev[d].corr < gl->corr)
			d++;
		for (first = d; d < rp->nr_dev && rp->dev[d].corr == gl->corr; d++)
			;
		v = &rp->dev[first];
		n = d - first;
		if (!n)
			continue;
		if (!(g = find_capture(rp, cap, key, ng, v, n))) {
			/* no capture names it: each kernel by its name, if eager calls do */
			for (size_t j = 0; j < n; j++) {
				struct named want = { v[j].name, 0, 0, 0 };
				const struct named *m = NULL;

				if (v[j].name && nn)
					m = bsearch(&want, named, nn, sizeof(*named), cmp_named);
				if (m && m->ok && add_call(when, gl->ts_ns, v[j].dur_ns, m->flops,
							   m->dtype, ceiling))
					goto out;
			}
			continue;
		}
		/* one call per operator: the device time of all the records it launched */
		for (size_t j = 0, m; j < n; j = m) {
			const struct owned *o = &own[g->first + j];
			int64_t dev_ns = 0;

			for (m = j; m < n && own[g->first + m].ordinal == o->ordinal; m++)
				dev_ns = sat_add(dev_ns, v[m].dur_ns);
			if (o->known &&
			    add_call(when, gl->ts_ns, dev_ns, o->flops, o->dtype, ceiling))
				goto out;
		}
	}
	rc = 0;
out:
	free(cap);
	free(key);
	free(own);
	free(named);
	replay_release(rp);
	return rc;
}
