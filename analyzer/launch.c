/*
 * launch: see launch.h.  A hash table finds each correlation's first
 * launch; the sort by thread and time is stable (lib/sort), so each user's
 * records keep the order they had when each user placed its own.
 */
#include "launch.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>

#include "grow.h"
#include "hugepage.h"
#include "sat.h"
#include "sort.h"
#include "track.h"

struct launch_call {
	int64_t corr, ts_ns;
	uint32_t track;
	uint32_t users;		/* bit u: user u counts this call */
};

struct launch_dev {
	int64_t corr, dur_ns;
	uint32_t users, pad;
};

void launches_init(struct launches *l)
{
	buf_init(&l->calls);
	buf_init(&l->device);
	l->any_device = 0;
}

void launches_release(struct launches *l)
{
	buf_release(&l->calls);
	buf_release(&l->device);
}

int launches_collect(struct launches *l, const struct event_batch *b, const unsigned char *tag,
		     struct strtab *tracks)
{
	const unsigned calls = (1u << LAUNCH_NR_USERS) - 1;
	struct track_cache cache = { 0 };

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned t = tag[i];

		if (!t)		/* most events: look no further */
			continue;
		if (t & calls) {
			struct launch_call c = { ev->correlation, ev->ts_ns,
						 track_id(tracks, &cache, b, ev), t & calls };

			if (c.track == STRTAB_OOM)
				return -1;
			buf_add(&l->calls, &c, sizeof(c));
		}
		if (t >> LAUNCH_NR_USERS) {	/* never both by device.h, but exact if so */
			struct launch_dev d = { ev->correlation, ev->dur_ns, t >> LAUNCH_NR_USERS,
						0 };

			l->any_device |= d.users;
			buf_add(&l->device, &d, sizeof(d));
		}
	}
	return buf_ok(&l->calls) && buf_ok(&l->device) ? 0 : -1;
}

/*
 * Each correlation's first call per user, in a hash table built in file
 * order: a slot holds, per user, 1 + the index of that call (0: none yet);
 * the slot's correlation is that of its calls.  Open addressing, at most
 * half full, so a lookup costs a probe or two; the calls need no sorting.
 */
struct first_calls {
	uint32_t (*slot)[LAUNCH_NR_USERS];
	size_t mask;
	uint64_t seed;
	const struct launch_call *c;
};

/*
 * Correlations come from the trace, and traces come from anywhere: with a
 * fixed hash, a crafted file could put every correlation in one cluster
 * and make the probing quadratic.  The hash is seeded afresh per table;
 * slots only find calls, so no result depends on where they land.
 */
static uint64_t fresh_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)&s;
	return s;
}

/* Where the probe for corr starts. */
static size_t home_of(const struct first_calls *t, int64_t corr)
{
	uint64_t z = (uint64_t)corr + t->seed;	/* splitmix64's finaliser */

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(z ^ (z >> 31)) & t->mask;
}

static size_t slot_of(const struct first_calls *t, int64_t corr)
{
	for (size_t i = home_of(t, corr);; i = (i + 1) & t->mask) {
		const uint32_t *s = t->slot[i];
		int used = 0;

		for (int w = 0; w < LAUNCH_NR_USERS; w++) {
			if (s[w] && t->c[s[w] - 1].corr == corr)
				return i;
			used |= s[w] != 0;
		}
		if (!used)
			return i;
	}
}

/*
 * A lookup reads two places far from each other and from the last lookup's:
 * its home slot, and the call that slot holds.  A loop of lookups asks the
 * memory for them ahead of time: the home slot of the lookup PREFETCH_AHEAD
 * on, and the call in the slot of the one half as far, by now in the cache.
 */
#define PREFETCH_AHEAD 16

static void prefetch_lookup(const struct first_calls *t, int64_t far, int64_t near)
{
	const uint32_t *s = t->slot[home_of(t, near)];

	__builtin_prefetch(t->slot[home_of(t, far)]);
	if (s[0])
		__builtin_prefetch(&t->c[s[0] - 1]);
}

static int first_calls_init(struct first_calls *t, const struct launch_call *c, size_t n)
{
	size_t size = 2;

	while (size < 2 * n)
		size *= 2;
	t->c = c;
	t->mask = size - 1;
	t->seed = fresh_seed();
	t->slot = n < UINT32_MAX ? hugepage_calloc(size, sizeof(*t->slot)) : NULL;
	if (!t->slot)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t *s;

		if (i + PREFETCH_AHEAD < n)
			prefetch_lookup(t, c[i + PREFETCH_AHEAD].corr, c[i + PREFETCH_AHEAD / 2].corr);
		s = t->slot[slot_of(t, c[i].corr)];

		for (int w = 0; w < LAUNCH_NR_USERS; w++)
			if (!s[w] && (c[i].users & (1u << w)))
				s[w] = (uint32_t)i + 1;
	}
	return 0;
}

/* Append {ts, dur per user, track} to *out (room for *cap), growing it.  -1 when out of memory. */
static int push_placed(struct placed **out, size_t *n, size_t *cap, const struct launch_call *c,
		       unsigned users, int64_t dur)
{
	struct placed *p;

	if (ALLOC_GROW(*out, *n + 2, *cap))	/* room for the sentinel too */
		return -1;
	p = &(*out)[(*n)++];
	p->ts_ns = c->ts_ns;
	for (int w = 0; w < LAUNCH_NR_USERS; w++)
		p->sum_before[w] = users & (1u << w) ? dur : 0;	/* a duration until summed */
	p->track = c->track;
	p->pad = 0;
	return 0;
}

int launches_place(struct launches *l, uint32_t nr_tracks, struct placement *pl)
{
	struct launch_call *c = (struct launch_call *)(void *)l->calls.data;
	const struct launch_dev *d = (const struct launch_dev *)(void *)l->device.data;
	size_t nc = l->calls.len / sizeof(*c), nd = l->device.len / sizeof(*d), n = 0;
	struct first_calls first = { .c = c };
	size_t cap = nd + 2;
	struct placed *out = hugepage_malloc(cap * sizeof(*out));
	uint64_t *key = NULL;
	uint32_t *track = NULL;
	int64_t sum[LAUNCH_NR_USERS] = { 0 };

	pl->v = NULL;
	pl->n = 0;
	pl->nr_tracks = nr_tracks;
	pl->any_device = l->any_device;
	if (!out || first_calls_init(&first, c, nc))
		goto fail;
	for (size_t i = 0; i < nd; i++) {
		const uint32_t *s;

		if (i + PREFETCH_AHEAD < nd)
			prefetch_lookup(&first, d[i + PREFETCH_AHEAD].corr,
					d[i + PREFETCH_AHEAD / 2].corr);
		s = first.slot[slot_of(&first, d[i].corr)];

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
			if (push_placed(&out, &n, &cap, &c[s[w] - 1], users, d[i].dur_ns))
				goto fail;
		}
	}
	/* out holds what the calls and device work gave: free them before the sort's arrays */
	free(first.slot);
	first.slot = NULL;
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
	out[n].pad = 0;
	free(key);
	free(track);
	pl->v = out;
	pl->n = n;
	return 0;
fail:
	free(first.slot);
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
