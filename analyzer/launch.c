/*
 * launch: see launch.h.  The sorts are permutations built by linear-time
 * radix sorts (lib/sort), stable, so the first launch of a correlation in
 * file order stays first, and each user's records keep the order they had
 * when each user placed its own.
 */
#include "launch.h"

#include <stdlib.h>

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

		if (tag[i] & calls) {
			struct launch_call c = { ev->correlation, ev->ts_ns,
						 track_id(tracks, &cache, b, ev), tag[i] & calls };

			if (c.track == STRTAB_OOM)
				return -1;
			buf_add(&l->calls, &c, sizeof(c));
		}
		if (tag[i] >> LAUNCH_NR_USERS) {	/* never both by device.h, but exact if so */
			struct launch_dev d = { ev->correlation, ev->dur_ns,
						(unsigned)tag[i] >> LAUNCH_NR_USERS, 0 };

			l->any_device |= d.users;
			buf_add(&l->device, &d, sizeof(d));
		}
	}
	return buf_ok(&l->calls) && buf_ok(&l->device) ? 0 : -1;
}

/*
 * Sort the calls by correlation (file order on ties) and keep, per
 * correlation, each user's first call: one record when the users agree (as
 * they nearly always do), its users the bits of those that chose it.
 * Returns how many are kept.
 */
static size_t first_calls(struct launch_call *c, size_t n)
{
	size_t u = 0;

	for (size_t i = 0, j; i < n; i = j) {
		size_t first[LAUNCH_NR_USERS];
		struct launch_call keep[LAUNCH_NR_USERS];
		size_t k = 0;

		for (int w = 0; w < LAUNCH_NR_USERS; w++)
			first[w] = SIZE_MAX;
		for (j = i; j < n && c[j].corr == c[i].corr; j++)
			for (int w = 0; w < LAUNCH_NR_USERS; w++)
				if (first[w] == SIZE_MAX && (c[j].users & (1u << w)))
					first[w] = j;
		/* the chosen calls in file order, then written over the run's start */
		for (size_t x = i; x < j; x++) {
			unsigned users = 0;

			for (int w = 0; w < LAUNCH_NR_USERS; w++)
				users |= first[w] == x ? 1u << w : 0;
			if (users) {
				keep[k] = c[x];
				keep[k++].users = users;
			}
		}
		for (size_t x = 0; x < k; x++)
			c[u++] = keep[x];
	}
	return u;
}

/* The index of the first of c[0..n) (sorted by correlation) with correlation corr, or n. */
static size_t find_corr(const struct launch_call *c, size_t n, int64_t corr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c[lo].corr == corr ? lo : n;
}

/* Append {ts, dur per user, track} to *out (room for *cap), growing it.  -1 when out of memory. */
static int push_placed(struct placed **out, size_t *n, size_t *cap, const struct launch_call *c,
		       unsigned users, int64_t dur)
{
	struct placed *p;

	if (*n + 1 >= *cap) {	/* room for the sentinel too */
		p = realloc(*out, *cap * 2 * sizeof(*p));
		if (!p)
			return -1;
		*out = p;
		*cap *= 2;
	}
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
	size_t nc = l->calls.len / sizeof(*c), nd = l->device.len / sizeof(*d), u, n = 0;
	size_t cap = nd + 2;
	struct placed *out = malloc(cap * sizeof(*out));
	uint64_t *key = NULL;
	uint32_t *track = NULL;
	int64_t sum[LAUNCH_NR_USERS] = { 0 };

	pl->v = NULL;
	pl->n = 0;
	pl->nr_tracks = nr_tracks;
	pl->any_device = l->any_device;
	/* by correlation, file order on ties: corr comes first in a launch_call */
	if (!out || sort_by_first_i64(c, nc, sizeof(*c)))
		goto fail;
	u = first_calls(c, nc);
	for (size_t i = 0; i < nd; i++) {
		for (size_t k = find_corr(c, u, d[i].corr); k < u && c[k].corr == d[i].corr; k++) {
			unsigned users = c[k].users & d[i].users;

			if (users && push_placed(&out, &n, &cap, &c[k], users, d[i].dur_ns))
				goto fail;
		}
	}
	/* out holds what the calls and device work gave: free them before the sort's arrays */
	launches_release(l);
	key = malloc((n ? n : 1) * sizeof(*key));
	track = malloc((n ? n : 1) * sizeof(*track));
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

static int below(const struct placed *p, uint32_t track, int64_t ts)
{
	return p->track < track || (p->track == track && p->ts_ns < ts);
}

/*
 * The first index at or after from in the sorted v[0..n) not below (track,
 * ts), all before from being below: gallop forward from from, then bisect
 * the last step, so the cost grows with the distance, not with n.
 */
static size_t seek(const struct placed *v, size_t n, size_t from, uint32_t track, int64_t ts)
{
	size_t lo = from, hi, step = 1;

	if (lo >= n || !below(&v[lo], track, ts))
		return lo;
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
