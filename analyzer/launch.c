/*
 * launch: see launch.h.  The calls sorted by correlation find each
 * correlation's first launch; the sort by thread and time is stable
 * (lib/sort), so each user's records keep the order they had when each
 * user placed its own.
 */
#include "launch.h"

#include <stdint.h>
#include <stdlib.h>

#include "grow.h"
#include "hugepage.h"
#include "sat.h"
#include "sort.h"
#include "track.h"


void launches_init(struct launches *l)
{
	l->calls = NULL;
	l->device = NULL;
	l->nr_calls = l->calls_alloc = l->nr_device = l->device_alloc = 0;
	l->any_device = 0;
	strtab_init(&l->knames, 1);
	l->keep_device = 0;
}

void launches_release(struct launches *l)
{
	free(l->calls);
	free(l->device);
	strtab_release(&l->knames);
	launches_init(l);
}

int launches_collect(struct launches *l, const struct event_batch *b, const unsigned char *tag,
		     struct strtab *tracks)
{
	const unsigned calls = (1u << LAUNCH_NR_USERS) - 1;
	struct track_cache cache = { 0 };
	uint32_t *map = NULL;	/* batch name id -> knames', made at the first kernel */
	int rc = -1;

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned t = tag[i];

		if (!t)		/* most events: look no further */
			continue;
		if (t & (calls | LAUNCH_WHAT(~0u))) {
			struct launch_call c = { ev->flags & EV_CORRELATION ? ev->correlation : 0,
						 ev->ts_ns, track_id(tracks, &cache, b, ev),
						 (uint16_t)(t & calls),
						 (uint16_t)(t >> LAUNCH_WHAT_SHIFT) };

			if (c.track == STRTAB_OOM ||
			    ALLOC_GROW(l->calls, l->nr_calls + 1, l->calls_alloc))
				goto out;
			l->calls[l->nr_calls++] = c;
		}
		/* never both a call and device work by device.h, but exact if so */
		if ((t >> LAUNCH_NR_USERS) & calls) {
			struct launch_dev d = { ev->correlation, ev->ts_ns, ev->dur_ns,
						ev->flags & EV_STREAM ? ev->stream : -1,
						(t >> LAUNCH_NR_USERS) & calls, 0 };

			if ((t & LAUNCH_DEV(LAUNCH_PHASES)) && ev->name) {
				if (!map && !(map = calloc((size_t)strtab_count(&b->strs) + 1,
							   sizeof(*map))))
					goto out;
				d.name = strtab_map(&l->knames, &b->strs, ev->name, map);
				if (d.name == STRTAB_OOM)
					goto out;
			}
			if (ALLOC_GROW(l->device, l->nr_device + 1, l->device_alloc))
				goto out;
			l->any_device |= d.users;
			l->device[l->nr_device++] = d;
		}
	}
	rc = 0;
out:
	free(map);
	return rc;
}

/*
 * Each correlation's first call per user.  The calls are sorted by
 * correlation, stably (lib/sort), so that a correlation's calls are one run
 * in file order, and each run is cut down to the calls that are some
 * user's first: at most one per user, each keeping the bits of the users
 * it is first for.  Device work comes in about the order of its launches,
 * so a run is found by galloping from the one found before, through memory
 * just read: a hash table cost two cache misses per lookup.  Neither step
 * depends on what the correlations are, so no crafted trace slows them.
 */
struct first_calls {
	struct launch_call *c;		/* sorted by correlation, one run per correlation */
	size_t n, at;			/* at: where the last run was found */
};

/* Sort t's calls and keep the firsts of each run.  -1 when out of memory. */
static int first_calls_init(struct first_calls *t)
{
	struct launch_call *c = t->c;
	size_t k = 0;

	if (sort_by_first_i64(c, t->n, sizeof(*c)))	/* corr is the first field */
		return -1;
	for (size_t i = 0, j; i < t->n; i = j) {
		unsigned seen = 0;

		for (j = i; j < t->n && c[j].corr == c[i].corr; j++) {
			unsigned mine = c[j].users & ~seen;

			if (mine) {
				c[k] = c[j];
				c[k++].users = mine;
				seen |= mine;
			}
		}
	}
	t->n = k;
	t->at = 0;
	return 0;
}

/* The first index of t's calls with a correlation not below corr. */
static size_t lower_bound(struct first_calls *t, int64_t corr)
{
	/* corr first */
	t->at = first_i64_lower_bound_from(t->c, sizeof(*t->c), t->n, t->at, corr);
	return t->at;
}

/* s[u]: 1 + the index of corr's first call for user u, 0 when none. */
static void first_of(struct first_calls *t, int64_t corr, uint32_t s[LAUNCH_NR_USERS])
{
	for (int w = 0; w < LAUNCH_NR_USERS; w++)
		s[w] = 0;
	for (size_t i = lower_bound(t, corr); i < t->n && t->c[i].corr == corr; i++)
		for (int w = 0; w < LAUNCH_NR_USERS; w++)
			if (t->c[i].users & (1u << w))
				s[w] = (uint32_t)i + 1;
}

/* Append {ts, dur per user, track} to *out (room for *cap), growing it.  -1 when out of memory. */
static int push_placed(struct placed **out, size_t *n, size_t *cap, const struct launch_call *c,
		       unsigned users, const struct launch_dev *d)
{
	struct placed *p;

	if (ALLOC_GROW(*out, *n + 2, *cap))	/* room for the sentinel too */
		return -1;
	p = &(*out)[(*n)++];
	p->ts_ns = c->ts_ns;
	/* a duration until summed */
	for (int w = 0; w < LAUNCH_NR_USERS; w++)
		p->sum_before[w] = users & (1u << w) ? d->dur_ns : 0;
	p->track = c->track;
	p->name = users & (1u << LAUNCH_PHASES) ? d->name : 0;
	return 0;
}

int launches_place(struct launches *l, uint32_t nr_tracks, struct placement *pl)
{
	struct launch_call *c = l->calls;
	const struct launch_dev *d = l->device;
	size_t nc = l->nr_calls, nd = l->nr_device, n = 0;
	struct first_calls first = { .c = c, .n = nc };
	size_t cap = nd + 2;
	struct placed *out = hugepage_malloc(cap * sizeof(*out));
	uint64_t *key = NULL;
	uint32_t *track = NULL;
	int64_t sum[LAUNCH_NR_USERS] = { 0 };

	pl->v = NULL;
	pl->n = 0;
	pl->nr_tracks = nr_tracks;
	pl->any_device = l->any_device;
	pl->knames = l->knames;	/* moved: the records' names */
	strtab_init(&l->knames, 1);
	if (!out || nc > UINT32_MAX || first_calls_init(&first))
		goto fail;
	for (size_t i = 0; i < nd; i++) {
		uint32_t s[LAUNCH_NR_USERS];

		first_of(&first, d[i].corr, s);

		/* one record per call chosen, each with the users that chose it */
		for (int w = 0; w < LAUNCH_NR_USERS; w++) {
			unsigned users = 0;

			if (!s[w] || !(d[i].users & (1u << w)))
				continue;
			for (int x = 0; x < LAUNCH_NR_USERS; x++)
				if (s[x] == s[w] && (d[i].users & (1u << x)))
					users |= 1u << x;
			if (users & ((1u << w) - 1))	/* placed with an earlier user's */
				continue;
			if (push_placed(&out, &n, &cap, &c[s[w] - 1], users, &d[i]))
				goto fail;
		}
	}
	/* out holds what the calls and device work gave: free them before the sort's arrays */
	free(l->calls);
	l->calls = NULL;
	l->nr_calls = l->calls_alloc = 0;
	if (!l->keep_device)
		launches_release(l);
	key = hugepage_malloc((n ? n : 1) * sizeof(*key));
	track = hugepage_malloc((n ? n : 1) * sizeof(*track));
	if (!key || !track)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		key[i] = sort_key_i64(out[i].ts_ns);
		track[i] = out[i].track;
	}
	if (sort_recs_id_key(out, n, sizeof(*out), track, nr_tracks, key))
		goto fail;
	for (size_t i = 0; i <= n; i++) {
		for (int w = 0; w < LAUNCH_NR_USERS; w++) {
			int64_t dur = i < n ? out[i].sum_before[w] : 0;

			out[i].sum_before[w] = sum[w];
			sum[w] = sat_add(sum[w], dur);
		}
	}
	out[n].ts_ns = INT64_MAX;	/* the sentinel: no search reaches it */
	out[n].track = UINT32_MAX;
	out[n].name = 0;
	free(key);
	free(track);
	pl->v = out;
	pl->n = n;
	return 0;
fail:
	free(out);
	free(key);
	free(track);
	return -1;
}

void placement_release(struct placement *pl)
{
	free(pl->v);
	pl->v = NULL;
	pl->n = 0;
	strtab_release(&pl->knames);
}

static inline int below(const struct placed *p, uint32_t track, int64_t ts)
{
	return p->track < track || (p->track == track && p->ts_ns < ts);
}

/*
 * The first index at or after from in the sorted v[0..n) not below (track,
 * ts), all before from being below: gallop forward from from, then bisect
 * the last step, so the cost grows with the distance, not with n.  Inline
 * for the common answer, from itself (a span that launched nothing).
 */
static size_t gallop(const struct placed *v, size_t n, size_t lo, uint32_t track, int64_t ts);

static inline size_t seek(const struct placed *v, size_t n, size_t from, uint32_t track,
			  int64_t ts)
{
	return from >= n || !below(&v[from], track, ts) ? from : gallop(v, n, from, track, ts);
}

/* seek() past v[lo], which is below. */
static size_t gallop(const struct placed *v, size_t n, size_t lo, uint32_t track, int64_t ts)
{
	size_t hi, step = 1;

	for (;;) {	/* v[lo] is below */
		hi = lo + step;
		if (hi >= n) {
			hi = n;
			break;
		}
		if (!below(&v[hi], track, ts))
			break;
		lo = hi;
		step *= 2;
	}
	for (lo++; lo < hi;) {	/* the answer is in [lo, hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (below(&v[mid], track, ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t placed_within(const struct placement *pl, enum launch_user u, size_t *at, uint32_t track,
		      int64_t lo, int64_t hi)
{
	size_t a = seek(pl->v, pl->n, *at, track, lo), b = seek(pl->v, pl->n, a, track, hi);

	*at = a;
	return a < b ? sat_sub(pl->v[b].sum_before[u], pl->v[a].sum_before[u]) : 0;
}
