/*
 * launch: see launch.h.  The calls sorted by correlation find each
 * correlation's first launch; the sort by thread and time is stable, so
 * each user's records keep the order they had when each user placed its
 * own.  Both are lib/sort's (the correlation through a key function, as
 * it is a packed word or a value held aside).
 */
#include "launch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "grow.h"
#include "hugepage.h"
#include "sat.h"
#include "sort.h"
#include "track.h"


/*
 * A call in the join (launches_link()): sorted by correlation, one run
 * per correlation, then cut down to the calls that are some user's first.
 */
struct link_call {
	int64_t ts_ns;
	uint32_t corr;		/* see LAUNCH_WIDE */
	uint32_t bits;		/* track << LINK_TRACK_SHIFT | LINK_* | users */
};

#define LINK_IDLE (1u << LAUNCH_NR_USERS)	/* idle.h reads the call */
/* On a run's first: idle.h reads device work of its correlation; a call idle.h reads is seen */
#define LINK_HIT (LINK_IDLE << 1)
#define LINK_SEEN (LINK_IDLE << 2)
#define LINK_TRACK_SHIFT (LAUNCH_NR_USERS + 3)
_Static_assert(LAUNCH_TRACK_MAX == UINT32_MAX >> LINK_TRACK_SHIFT, "a track fits its word");

static inline uint32_t link_track(const struct link_call *c)
{
	return c->bits >> LINK_TRACK_SHIFT;
}

static inline unsigned link_users(const struct link_call *c)
{
	return c->bits & ((1u << LAUNCH_NR_USERS) - 1);
}

void launches_init(struct launches *l, struct names *names)
{
	l->device = NULL;
	l->nr_device = l->device_alloc = 0;
	l->first = NULL;
	l->nr_first = 0;
	l->wide = NULL;
	l->nr_wide = l->wide_alloc = 0;
	l->any_device = 0;
	l->names = names;
	l->keep_device = 0;
}

void launches_release_records(struct launches *l)
{
	free(l->first);
	free(l->device);
	l->first = NULL;
	l->nr_first = 0;
	l->device = NULL;
	l->nr_device = l->device_alloc = 0;
}

void launches_release(struct launches *l)
{
	launches_release_records(l);
	free(l->wide);
	launches_init(l, l->names);
}

/* *w: v held in l->wide (see launch.h).  -1 when out of memory or wide is full. */
static int widen(struct launches *l, int64_t v, uint32_t *w)
{
	if (l->nr_wide >= LAUNCH_WIDE || ALLOC_GROW(l->wide, l->nr_wide + 1, l->wide_alloc))
		return -1;
	*w = LAUNCH_WIDE | (uint32_t)l->nr_wide;
	l->wide[l->nr_wide++] = v;
	return 0;
}

/*
 * *w: the word for v + off (off 0 or 1) when that lies in [0, LAUNCH_WIDE),
 * else v held wide.  Inline, as nearly every value fits.  -1 as widen().
 */
static inline int narrow(struct launches *l, int64_t v, unsigned off, uint32_t *w)
{
	uint64_t u = (uint64_t)v + off;	/* wraps: -1 + 1 is 0, below -off is huge */

	if (u < LAUNCH_WIDE) {
		*w = (uint32_t)u;
		return 0;
	}
	return widen(l, v, w);
}

int launches_collect(struct launches *l, const struct event_batch *b,
		     const unsigned char *tag)
{
	const unsigned all = (1u << LAUNCH_NR_USERS) - 1;
	int rc = -1;

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned users = (tag[i] >> LAUNCH_NR_USERS) & all;

		/* most events: look no further (the calls are calls.h's) */
		if (users) {
			unsigned idle = ev_is_complete(ev) ? LAUNCH_DEV_IDLE : 0;
			struct launch_dev d = { ev->ts_ns, 0, 0, 0, idle | users };
			uint32_t name = 0;

			if ((users & 1u << LAUNCH_PHASES) && ev->name) {
				name = names_id(l->names, ev->name);
				if (name > LAUNCH_NAME_MAX)	/* STRTAB_OOM too */
					goto out;
				d.name_users |= name << LAUNCH_DEV_NAME_SHIFT;
			}
			if (narrow(l, ev->correlation, 0, &d.corr) ||
			    narrow(l, ev->dur_ns, 0, &d.dur) ||
			    narrow(l, ev->flags & EV_STREAM ? ev->stream : -1, 1, &d.stream) ||
			    ALLOC_GROW(l->device, l->nr_device + 1, l->device_alloc))
				goto out;
			l->any_device |= users;
			l->device[l->nr_device++] = d;
		}
	}
	rc = 0;
out:
	return rc;
}

/*
 * Each correlation's first call per user.  The calls are sorted by
 * correlation, stably, so that a correlation's calls are one run in file
 * order; the device work idle.h reads marks the runs of its correlations,
 * whose calls idle.h reads are marked in the calls table; then each run is
 * cut down to the calls that are some user's first: at most one per user,
 * each keeping the bits of the users it is first for.  Device work comes
 * in about the order of its launches, so a run is found by galloping from
 * the one found before, through memory just read: a hash table cost two
 * cache misses per lookup.  Neither step depends on what the correlations
 * are, so no crafted trace slows them.
 *
 * Calls come nearly in the order of their correlations, so the sort
 * (lib/sort) needs no copy of them all: the calls that break the
 * ascending run move aside, are sorted there, and merge back from the
 * end.  When most break it, a radix sort through one copy costs less, and
 * either way no more than a copy of the calls is allocated.
 */
struct first_calls {
	struct link_call *c;		/* sorted by correlation, one run per correlation */
	size_t n, at;			/* at: where the last run was found */
	const struct launches *l;	/* the wide values */
};

static int64_t link_corr(const struct launches *l, const struct link_call *c)
{
	return launch_wide(l, c->corr);
}

/* A call's correlation, its sort key (sort_recs_by_key()); ctx: the launches. */
static int64_t call_corr(const void *rec, const void *ctx)
{
	return link_corr(ctx, rec);
}

/*
 * The first index of t's calls with a correlation not below corr,
 * galloping from the last answer (lib/sort): correlations asked in about
 * ascending order cost a few steps each instead of a whole bisection.
 */
static size_t lower_bound(struct first_calls *t, int64_t corr)
{
	t->at = key_lower_bound_from(t->c, sizeof(*t->c), t->n, t->at, call_corr, t->l, corr);
	return t->at;
}

/*
 * The calls with a correlation that a user counts or idle.h reads, in
 * file order, into t.  -1 when out of memory, or past LAUNCH_TRACK_MAX
 * threads.
 */
static int take_calls(struct first_calls *t, struct launches *l, const struct calls *calls)
{
	struct calls_cursor cur;
	struct call c;
	size_t k = 0;

	t->n = 0;
	if (!(t->c = hugepage_malloc((calls->n ? calls->n : 1) * sizeof(*t->c))))
		return -1;
	calls_begin(&cur, calls);
	while (calls_next(&cur, &c)) {
		struct link_call *x = &t->c[k];

		if (!c.has_corr || (!c.users && !c.idle))
			continue;
		if (c.track > LAUNCH_TRACK_MAX || narrow(l, c.corr, 0, &x->corr))
			return -1;
		x->ts_ns = c.ts_ns;
		x->bits = c.track << LINK_TRACK_SHIFT | (c.idle ? LINK_IDLE : 0) | c.users;
		k++;
	}
	t->n = k;
	return 0;
}

/*
 * For idle.h, mark the calls it reads whose correlation device work it
 * reads has: launched, and the first in the file of each correlation
 * first.  The runs of those correlations are marked hit on their first
 * record; then, the calls in file order, each finds its run (galloping:
 * they come in about the order of their correlations), and the first of
 * a run to be seen is its first in the file.
 */
static void mark_idle(struct first_calls *t, const struct launches *l, struct calls *calls)
{
	struct calls_cursor cur;
	struct call c;

	for (size_t i = 0; i < l->nr_device; i++) {
		const struct launch_dev *d = &l->device[i];
		size_t at;

		if (!(d->name_users & LAUNCH_DEV_IDLE))
			continue;
		at = lower_bound(t, launch_dev_corr(l, d));
		if (at < t->n && link_corr(l, &t->c[at]) == launch_dev_corr(l, d))
			t->c[at].bits |= LINK_HIT;
	}
	t->at = 0;
	calls_begin(&cur, calls);
	while (calls_next(&cur, &c)) {
		struct link_call *run;
		size_t at;

		if (!c.idle || !c.has_corr)
			continue;
		at = lower_bound(t, c.corr);	/* found: it is one of the run */
		run = &t->c[at];
		if (!(run->bits & LINK_HIT))
			continue;
		calls->marks[cur.i - 1] =
			(unsigned char)(CALL_LAUNCHED | (run->bits & LINK_SEEN ? 0 : CALL_FIRST));
		run->bits |= LINK_SEEN;
	}
	t->at = 0;
}

/* Keep the calls that are some user's first in each run. */
static void cut_runs(struct first_calls *t)
{
	const unsigned all = (1u << LAUNCH_NR_USERS) - 1;
	struct link_call *c = t->c;
	size_t k = 0;

	for (size_t i = 0, j; i < t->n; i = j) {
		int64_t corr = link_corr(t->l, &c[i]);
		unsigned seen = 0;

		for (j = i; j < t->n && link_corr(t->l, &c[j]) == corr; j++) {
			unsigned mine = link_users(&c[j]) & ~seen;

			if (mine) {
				c[k] = c[j];
				c[k++].bits = (c[j].bits & ~all) | mine;
				seen |= mine;
			}
		}
	}
	t->n = k;
}

int launches_link(struct launches *l, struct calls *calls)
{
	struct first_calls t = { .l = l };
	struct link_call *v;

	if (calls_marks(calls) || take_calls(&t, l, calls) ||
	    /* without values held wide, a word is its correlation: the faster sort */
	    (l->nr_wide ? sort_recs_by_key(t.c, t.n, sizeof(*t.c), call_corr, l)
			: sort_by_u32_at(t.c, t.n, sizeof(*t.c),
					 offsetof(struct link_call, corr)))) {
		free(t.c);
		return -1;
	}
	mark_idle(&t, l, calls);
	cut_runs(&t);
	/* a big block shrinks in place, giving back what the cut freed */
	if ((v = realloc(t.c, (t.n ? t.n : 1) * sizeof(*v))))
		t.c = v;
	free(l->first);
	l->first = t.c;
	l->nr_first = t.n;
	return 0;
}

/* s[u]: 1 + the index of corr's first call for user u, 0 when none. */
static void first_of(struct first_calls *t, int64_t corr, uint32_t s[LAUNCH_NR_USERS])
{
	for (int w = 0; w < LAUNCH_NR_USERS; w++)
		s[w] = 0;
	for (size_t i = lower_bound(t, corr); i < t->n && link_corr(t->l, &t->c[i]) == corr;
	     i++)
		for (int w = 0; w < LAUNCH_NR_USERS; w++)
			if (link_users(&t->c[i]) & (1u << w))
				s[w] = (uint32_t)i + 1;
}

/*
 * A record placed, before the placement is made: its launch's time and
 * thread, its device time and name, and the users that place it here.
 * The same size as the device work, so that it is written over the device
 * work already read when the caller does not keep it.
 */
struct pre {
	int64_t ts_ns, dur_ns;
	uint32_t track;
	uint32_t name_users;	/* as struct launch_dev's */
};

_Static_assert(sizeof(struct pre) == sizeof(struct launch_dev), "struct pre replaces launch_dev");
_Static_assert(sizeof(struct pre) == sizeof(struct placed), "struct placed replaces pre");

/* A device record's second record (two users, two launches): it goes before pre[at]. */
struct pre_extra {
	struct pre p;
	size_t at;
};

/*
 * Turn the n sorted records and the sentinel r[n] into pl's placement, in
 * place: the prefix sums of each block of PLACED_BLOCK records worked out
 * from its records' durations, then written over them (see launch.h).  pl
 * owns r, also after a failure.  -1 when out of memory.
 */
static int make_placement(struct pre *r, size_t n, struct placement *pl)
{
	size_t nb = n / PLACED_BLOCK + 1, nr_wide = 0, wide_alloc = 0;
	int64_t sum[LAUNCH_NR_USERS] = { 0 };

	pl->v = (struct placed *)(void *)r;
	pl->n = n;
	if (!(pl->blocks = malloc(nb * sizeof(*pl->blocks))))
		return -1;
	for (size_t b = 0; b < nb; b++) {
		struct placed_block *blk = &pl->blocks[b];
		size_t lo = b * PLACED_BLOCK;
		size_t hi = n + 1 - lo < PLACED_BLOCK ? n + 1 : lo + PLACED_BLOCK;
		int64_t s[PLACED_BLOCK][LAUNCH_NR_USERS];
		int fits = 1;

		for (int w = 0; w < LAUNCH_NR_USERS; w++)
			blk->base[w] = sum[w];
		blk->wide = 0;
		for (size_t i = lo; i < hi; i++) {
			const struct pre *p = &r[i];

			for (int w = 0; w < LAUNCH_NR_USERS; w++) {
				s[i - lo][w] = sum[w];
				fits &= sum[w] >= blk->base[w] &&
					(uint64_t)sum[w] - (uint64_t)blk->base[w] <= UINT32_MAX;
				if (p->name_users & (1u << w))
					sum[w] = sat_add(sum[w], p->dur_ns);
			}
		}
		if (!fits) {
			if (nr_wide >= UINT32_MAX - 1 ||
			    ALLOC_GROW(pl->wide, (nr_wide + 1) * PLACED_BLOCK * LAUNCH_NR_USERS,
				       wide_alloc))
				return -1;
			memcpy(&pl->wide[nr_wide * PLACED_BLOCK * LAUNCH_NR_USERS], s,
			       (hi - lo) * sizeof(s[0]));
			blk->wide = (uint32_t)++nr_wide;
		}
		for (size_t i = lo; i < hi; i++) {
			struct pre p;
			struct placed q;

			memcpy(&p, &r[i], sizeof(p));
			q.ts_ns = p.ts_ns;
			q.track = p.track;
			q.name = p.name_users >> LAUNCH_NR_USERS;
			for (int w = 0; w < LAUNCH_NR_USERS; w++)
				q.sum_lo[w] = fits ? (uint32_t)(s[i - lo][w] - blk->base[w]) : 0;
			memcpy(&pl->v[i], &q, sizeof(q));
		}
	}
	return 0;
}

int launches_place(struct launches *l, uint32_t nr_tracks, struct placement *pl)
{
	size_t nd = l->nr_device, k = 0, nx = 0, x_alloc = 0, n;
	struct first_calls first = { .c = l->first, .n = l->nr_first, .l = l };
	/* made over the device work already read, unless the caller keeps it */
	struct pre *pre = l->keep_device ? hugepage_malloc((nd ? nd : 1) * sizeof(*pre))
					 : (struct pre *)(void *)l->device;
	const struct launch_dev *d = l->device;
	struct pre_extra *extra = NULL;
	struct pre *v;

	if (!l->keep_device) {	/* pre owns it now */
		l->device = NULL;
		l->nr_device = l->device_alloc = 0;
	}
	pl->v = NULL;
	pl->blocks = NULL;
	pl->wide = NULL;
	pl->n = 0;
	pl->nr_tracks = nr_tracks;
	pl->any_device = l->any_device;
	pl->names = l->names;
	if ((!pre && nd) || first.n > UINT32_MAX)
		goto fail;
	for (size_t i = 0; i < nd; i++) {
		int64_t dur = launch_dev_dur(l, &d[i]);
		unsigned dusers = launch_dev_users(&d[i]);
		uint32_t name = launch_dev_name(&d[i]);
		uint32_t s[LAUNCH_NR_USERS];
		int placed = 0;

		first_of(&first, launch_dev_corr(l, &d[i]), s);

		/* one record per call chosen, each with the users that chose it */
		for (int w = 0; w < LAUNCH_NR_USERS; w++) {
			const struct link_call *c;
			unsigned users = 0;
			struct pre p;

			if (!s[w] || !(dusers & (1u << w)))
				continue;
			for (int x = 0; x < LAUNCH_NR_USERS; x++)
				if (s[x] == s[w] && (dusers & (1u << x)))
					users |= 1u << x;
			if (users & ((1u << w) - 1))	/* placed with an earlier user's */
				continue;
			c = &first.c[s[w] - 1];
			p = (struct pre){ c->ts_ns, dur, link_track(c),
					  (users & (1u << LAUNCH_PHASES) ? name << LAUNCH_NR_USERS
									 : 0) | users };
			/* d[i] is read: pre[k], k <= i, may take its place */
			if (!placed++) {	/* memcpy: the device work's memory may hold it */
				memcpy(&pre[k++], &p, sizeof(p));
			} else {
				if (ALLOC_GROW(extra, nx + 1, x_alloc))
					goto fail;
				extra[nx++] = (struct pre_extra){ p, k };
			}
		}
	}
	/* the calls are placed: free them (and the device work but for the replays) first */
	if (l->keep_device) {
		free(l->first);
		l->first = NULL;
		l->nr_first = 0;
	} else {
		launches_release_records(l);
	}
	/*
	 * The records grow by the extras and the sentinel (a big block is
	 * moved by remapping it, not copied), the extras go in from the last
	 * record on, and the records become the placement where they are.
	 */
	n = k + nx;
	if (!(v = realloc(pre, (n + 1) * sizeof(*v))))
		goto fail;
	pre = v;
	hugepage_advise(pre, (n + 1) * sizeof(*pre));
	/* in the order the records were made, a device record's second after its first */
	for (size_t i = k, j = nx, o = n; j > 0; o--) {
		if (extra[j - 1].at == i)
			pre[o - 1] = extra[--j].p;
		else
			pre[o - 1] = pre[--i];
	}
	free(extra);
	extra = NULL;
	/* the sentinel: no search reaches it */
	pre[n] = (struct pre){ INT64_MAX, 0, UINT32_MAX, 0 };
	/* by thread, then time, stably: nearly so already where one thread launches */
	if (sort_by_id_first_i64(pre, n, sizeof(*pre), offsetof(struct pre, track), nr_tracks))
		goto fail;
	v = pre;
	pre = NULL;	/* pl's now */
	return make_placement(v, n, pl);
fail:
	free(pre);
	free(extra);
	return -1;
}

void placement_release(struct placement *pl)
{
	free(pl->v);
	free(pl->blocks);
	free(pl->wide);
	pl->v = NULL;
	pl->blocks = NULL;
	pl->wide = NULL;
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
	return a < b ? placed_between(pl, u, a, b) : 0;
}
