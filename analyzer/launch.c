/*
 * launch: see launch.h.  The sorts are permutations built by linear-time
 * radix sorts (lib/sort), stable, so the first launch of a correlation in
 * file order stays first.
 */
#include "launch.h"

#include <stdlib.h>

#include "sat.h"
#include "sort.h"

struct launch_call {
	int64_t corr, ts_ns;
	uint32_t track, pad;
};

struct launch_dev {
	int64_t corr, dur_ns;
};

void launches_init(struct launches *l)
{
	buf_init(&l->calls);
	buf_init(&l->device);
}

void launches_release(struct launches *l)
{
	buf_release(&l->calls);
	buf_release(&l->device);
}

int launches_add_call(struct launches *l, int64_t corr, int64_t ts_ns, uint32_t track)
{
	struct launch_call c = { corr, ts_ns, track, 0 };

	buf_add(&l->calls, &c, sizeof(c));
	return buf_ok(&l->calls) ? 0 : -1;
}

int launches_add_device(struct launches *l, int64_t corr, int64_t dur_ns)
{
	struct launch_dev d = { corr, dur_ns };

	buf_add(&l->device, &d, sizeof(d));
	return buf_ok(&l->device) ? 0 : -1;
}

int launches_any_device(const struct launches *l)
{
	return l->device.len > 0;
}

/* Order v[0..n) by key, then by track: a stable permutation applied in place. */
static int order_by(void *v, size_t n, size_t size, const uint64_t *key, const uint32_t *track,
		    uint32_t nr_tracks)
{
	uint32_t *perm = sort_identity(n);
	int rc = -1;

	if (!perm || sort_perm_u64(key, perm, n) || sort_perm_id(track, nr_tracks, perm, n) ||
	    sort_apply(v, n, size, perm))
		goto out;
	rc = 0;
out:
	free(perm);
	return rc;
}

struct placed *launches_place(struct launches *l, uint32_t nr_tracks, size_t *nr)
{
	struct launch_call *c = (struct launch_call *)(void *)l->calls.data;
	const struct launch_dev *d = (const struct launch_dev *)(void *)l->device.data;
	size_t nc = l->calls.len / sizeof(*c), nd = l->device.len / sizeof(*d), u = 0, n = 0;
	struct placed *out = malloc((nd ? nd : 1) * sizeof(*out));
	uint64_t *key = malloc((nd ? nd : 1) * sizeof(*key));
	uint32_t *track = malloc((nd ? nd : 1) * sizeof(*track));
	int64_t sum = 0;

	if (!out || !key || !track)
		goto fail;
	/* by correlation, file order on ties: corr comes first in a launch_call */
	if (sort_by_first_i64(c, nc, sizeof(*c)))
		goto fail;
	for (size_t i = 0; i < nc; i++)	/* the first launch of each correlation */
		if (!u || c[i].corr != c[u - 1].corr)
			c[u++] = c[i];
	for (size_t i = 0; i < nd; i++) {
		size_t lo = 0, hi = u;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c[mid].corr < d[i].corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < u && c[lo].corr == d[i].corr)
			out[n++] = (struct placed){ c[lo].ts_ns, d[i].dur_ns, 0, c[lo].track, 0 };
	}
	for (size_t i = 0; i < n; i++) {
		key[i] = sort_key_i64(out[i].ts_ns);
		track[i] = out[i].track;
	}
	/* out holds what the calls and device work gave: free them before the sort's arrays */
	launches_release(l);
	if (order_by(out, n, sizeof(*out), key, track, nr_tracks))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		out[i].sum_before = sum;
		sum = sat_add(sum, out[i].dur_ns);
	}
	free(key);
	free(track);
	*nr = n;
	return out;
fail:
	free(out);
	free(key);
	free(track);
	return NULL;
}

/* First index in the sorted v[] at or after (track, ts). */
static size_t placed_at(const struct placed *v, size_t n, uint32_t track, int64_t ts)
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

int64_t placed_within(const struct placed *v, size_t n, uint32_t track, int64_t lo, int64_t hi)
{
	size_t a = placed_at(v, n, track, lo), b = placed_at(v, n, track, hi);
	int64_t end = b < n ? v[b].sum_before : (n ? sat_add(v[n - 1].sum_before, v[n - 1].dur_ns) : 0);

	return a < b ? sat_sub(end, v[a].sum_before) : 0;
}
