/*
 * idle: see idle.h and doc/idle.md.
 *
 * The gaps are the complement of the busy runs in the rank's span.  Each
 * gap's next device item leads by correlation (or by time) to its launch:
 * a thread and a time.  The gaps are then visited per thread in time order
 * beside that thread's host spans, keeping the spans open at the gap (a
 * few: the nesting depth), so the whole attribution is a few sorts and one
 * sweep, linear in the records after sorting.
 */
#include "idle.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device.h"
#include "grow.h"
#include "sat.h"
#include "sort.h"
#include "track.h"

/*
 * The classes of host spans by name, first match wins (doc/idle.md's
 * table, in its order, which also breaks ties between causes).  Sources:
 * the CUDA runtime and driver API, HIP, AscendCL, cuDNN/cuBLAS handles;
 * PyTorch's DataLoader iterators, c10d and ProcessGroupGloo; torch._dynamo's
 * and Inductor's dynamo_timed spans; cudagraph_trees' CUDAGraphNode.record
 * and vLLM's capture_* annotations.
 */
enum how { HAS, HAS_ANYCASE, STARTS, IS };

static const struct name_rule {
	enum idle_cause cause;
	enum how how;
	const char *pat;
} name_rules[] = {
	{ IDLE_CAPTURE, HAS_ANYCASE, "capture" },
	{ IDLE_CAPTURE, STARTS, "cudaGraphInstantiate" },
	{ IDLE_CAPTURE, STARTS, "cuGraphInstantiate" },
	{ IDLE_CAPTURE, STARTS, "hipGraphInstantiate" },
	{ IDLE_CAPTURE, STARTS, "aclmdlRICapture" },
	{ IDLE_CAPTURE, IS, "CUDAGraphNode.record" },
	{ IDLE_COMPILE, HAS, "compile" },
	{ IDLE_COMPILE, HAS, "dynamo_timed" },
	{ IDLE_COMPILE, IS, "dynamo" },
	{ IDLE_INIT, STARTS, "cudaStreamCreate" },
	{ IDLE_INIT, STARTS, "cudaEventCreate" },
	{ IDLE_INIT, STARTS, "cudaDeviceGetStreamPriorityRange" },
	{ IDLE_INIT, STARTS, "cudaGetDeviceCount" },
	{ IDLE_INIT, STARTS, "cudaGetDeviceProperties" },
	{ IDLE_INIT, STARTS, "cuInit" },
	{ IDLE_INIT, STARTS, "cuDevicePrimaryCtxRetain" },
	{ IDLE_INIT, STARTS, "cuCtxCreate" },
	{ IDLE_INIT, STARTS, "cuModuleLoad" },
	{ IDLE_INIT, STARTS, "cuLibraryLoad" },
	{ IDLE_INIT, STARTS, "cudnnCreate" },
	{ IDLE_INIT, STARTS, "cublasCreate" },
	{ IDLE_INIT, STARTS, "cublasLtCreate" },
	{ IDLE_INIT, STARTS, "hipStreamCreate" },
	{ IDLE_INIT, STARTS, "hipEventCreate" },
	{ IDLE_INIT, STARTS, "hipInit" },
	{ IDLE_INIT, STARTS, "hipModuleLoad" },
	{ IDLE_INIT, STARTS, "AscendCL@aclInit" },
	{ IDLE_INIT, STARTS, "AscendCL@aclrtSetDevice" },
	{ IDLE_INIT, STARTS, "AscendCL@aclrtCreateStream" },
	{ IDLE_INIT, STARTS, "AscendCL@aclrtCreateContext" },
	{ IDLE_DATA_LOADING, HAS_ANYCASE, "dataloader" },
	{ IDLE_COLLECTIVE_WAIT, STARTS, "gloo:" },
	{ IDLE_COLLECTIVE_WAIT, STARTS, "c10d::wait" },
	{ IDLE_COLLECTIVE_WAIT, STARTS, "c10d::barrier" },
	{ IDLE_COLLECTIVE_WAIT, STARTS, "c10d::monitored_barrier" },
	{ IDLE_MEMORY_MGMT, STARTS, "cudaMalloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "cudaFree" },
	{ IDLE_MEMORY_MGMT, STARTS, "cudaHostAlloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "cudaHostRegister" },
	{ IDLE_MEMORY_MGMT, STARTS, "cuMemAlloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "cuMemFree" },
	{ IDLE_MEMORY_MGMT, STARTS, "cuMemCreate" },
	{ IDLE_MEMORY_MGMT, STARTS, "cuMemMap" },
	{ IDLE_MEMORY_MGMT, STARTS, "hipMalloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "hipFree" },
	{ IDLE_MEMORY_MGMT, STARTS, "hipHostMalloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "hipHostFree" },
	{ IDLE_MEMORY_MGMT, STARTS, "hipExtMallocWithFlags" },
	{ IDLE_MEMORY_MGMT, STARTS, "AscendCL@aclrtMalloc" },
	{ IDLE_MEMORY_MGMT, STARTS, "AscendCL@aclrtFree" },
	{ IDLE_SYNC, IS, "aten::item" },	/* the synchronising runtime calls: device.c */
	{ IDLE_SYNC, IS, "aten::_local_scalar_dense" },
};

#define NR_NAME_RULES (sizeof(name_rules) / sizeof(name_rules[0]))

/* The classes in the order of the table: rule 1's tie-break. */
static const enum idle_cause class_order[] = { IDLE_CAPTURE, IDLE_COMPILE, IDLE_INIT,
					       IDLE_DATA_LOADING, IDLE_COLLECTIVE_WAIT,
					       IDLE_MEMORY_MGMT, IDLE_SYNC };

#define NR_CLASSES (sizeof(class_order) / sizeof(class_order[0]))
#define NO_CLASS 0xff

static int rule_matches(const struct name_rule *r, const char *s, size_t n)
{
	size_t k = strlen(r->pat);

	switch (r->how) {
	case HAS:
		return memmem(s, n, r->pat, k) != NULL;
	case HAS_ANYCASE:
		for (size_t i = 0; i + k <= n; i++)
			if (!strncasecmp(s + i, r->pat, k))
				return 1;
		return 0;
	case STARTS:
		return n >= k && !memcmp(s, r->pat, k);
	case IS:
		return n == k && !memcmp(s, r->pat, k);
	}
	return 0;
}

/* The class of a host span named s[0..n); sync: a synchronising runtime call. */
static unsigned char class_of(const char *s, size_t n, int sync)
{
	for (size_t i = 0; i < NR_NAME_RULES; i++) {
		if (name_rules[i].cause == IDLE_SYNC && sync)
			return IDLE_SYNC;	/* every earlier class has been tried */
		if (rule_matches(&name_rules[i], s, n))
			return (unsigned char)name_rules[i].cause;
	}
	return sync ? IDLE_SYNC : NO_CLASS;
}

struct idle_name_stat {
	int64_t n, sum_ns;		/* spans of the name, their summed durations */
	int64_t first_ts, first_dur;	/* the earliest (first in the file on ties) */
};

struct idle_dev {
	int64_t ts_ns, corr;
};

struct idle_call {
	int64_t ts_ns, dur_ns;
	int64_t corr;		/* INT64_MIN: none */
	uint32_t track : 31;
	uint32_t launched : 1;	/* its correlation is some device item's */
	uint32_t name;
};

struct idle_span {
	int64_t ts_ns, dur_ns;
	uint32_t name, track;
	unsigned char cls;	/* enum idle_cause of a class, or NO_CLASS */
	unsigned char launched;	/* a launching call on its thread starts inside it */
	unsigned char pad[6];
};

void idle_init(struct idle *d)
{
	memset(d, 0, sizeof(*d));
	strtab_init(&d->names, 1);
	buf_init(&d->stats);
	buf_init(&d->dev);
	buf_init(&d->calls);
	buf_init(&d->spans);
	d->cann_rule = device_process_rule("CANN", 4);
}

void idle_release(struct idle *d)
{
	strtab_release(&d->names);
	buf_release(&d->stats);
	buf_release(&d->dev);
	buf_release(&d->calls);
	buf_release(&d->spans);
}

int idle_collect(struct idle *d, const struct event_batch *b, const unsigned char *cls,
		 struct strtab *tracks)
{
	const struct strtab *st = &b->strs;
	uint32_t gpu_annot = strtab_find(st, "gpu_user_annotation", 19);
	uint32_t nstr = strtab_count(st) + 1;
	uint32_t *map = calloc(nstr, sizeof(*map));		/* local name id -> ours */
	unsigned char *klass = calloc(nstr, 2);		/* [2 id + sync]: class + 1, 0 unknown */
	unsigned char *npu = calloc(nstr, 1);			/* no cat: 0 unknown, 1 no, 2 call, 3 sync */
	struct track_cache cache = { 0 };
	int rc = -1;

	if (!map || !klass || !npu)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct idle_name_stat *s;
		unsigned c = cls[i], sync;
		uint32_t name, track;

		if (ev->phase != 'X' || (ev->flags & (EV_TS | EV_DUR)) != (EV_TS | EV_DUR) ||
		    ev->dur_ns < 0)
			continue;
		if (c == EVC_DEVICE) {
			if (ev->flags & EV_CORRELATION) {
				struct idle_dev r = { ev->ts_ns, ev->correlation };

				buf_add(&d->dev, &r, sizeof(r));
			}
			continue;
		}
		if (ev->cat && ev->cat == gpu_annot)
			continue;
		if (c == EVC_NONE && !ev->cat && ev->name && d->cann_rule >= 0) {
			/* torch_npu writes no cat: its AscendCL calls by name */
			if (!npu[ev->name]) {
				const char *t = strtab_str(st, ev->name);
				size_t n = strtab_len(st, ev->name);
				enum dev_kind k = device_kind(d->cann_rule, t, n);

				npu[ev->name] = n < 9 || memcmp(t, "AscendCL@", 9) ? 1
						: k == DK_SYNC			 ? 3
										 : 2;
			}
			c = npu[ev->name] == 3 ? EVC_SYNC : npu[ev->name] == 2 ? EVC_RUNTIME : c;
		}
		sync = c == EVC_SYNC;
		name = ev->name ? strtab_map(&d->names, st, ev->name, map) : 0;
		if (name == STRTAB_OOM || !(s = buf_slot(&d->stats, name, sizeof(*s))))
			goto out;
		if (!s->n || ev->ts_ns < s->first_ts) {
			s->first_ts = ev->ts_ns;
			s->first_dur = ev->dur_ns;
		}
		s->n++;
		s->sum_ns = sat_add(s->sum_ns, ev->dur_ns);
		track = track_id(tracks, &cache, b, ev);
		if (track == STRTAB_OOM)
			goto out;
		if (c == EVC_RUNTIME || c == EVC_SYNC) {
			struct idle_call r = { ev->ts_ns, ev->dur_ns,
					       ev->flags & EV_CORRELATION ? ev->correlation : INT64_MIN,
					       track, 0, name };

			buf_add(&d->calls, &r, sizeof(r));
		}
		if (!klass[2 * ev->name + sync]) {
			const char *t = ev->name ? strtab_str(st, ev->name) : "";
			size_t n = ev->name ? strtab_len(st, ev->name) : 0;

			klass[2 * ev->name + sync] = (unsigned char)(class_of(t, n, (int)sync) + 1);
		}
		if (klass[2 * ev->name + sync] - 1 != NO_CLASS || ev->dur_ns >= IDLE_HOST_WORK_NS) {
			struct idle_span r = { ev->ts_ns, ev->dur_ns, name, track,
					       (unsigned char)(klass[2 * ev->name + sync] - 1), 0,
					       { 0 } };

			buf_add(&d->spans, &r, sizeof(r));
		}
	}
	rc = buf_ok(&d->dev) && buf_ok(&d->calls) && buf_ok(&d->spans) ? 0 : -1;
out:
	free(map);
	free(klass);
	free(npu);
	return rc;
}

/* A gap [a, b) and what its attribution found. */
struct gap {
	int64_t a, b;
	int64_t l;		/* the launch's start; b where none was found */
	int64_t corr;		/* the next item's correlation; INT64_MIN: none */
	uint32_t track;		/* the launching thread */
	uint32_t host;		/* a name id of d->names; 0: none */
	unsigned char found;	/* the thread is known */
	unsigned char by_time;	/* ... from the last call before b, not by correlation */
	unsigned char has_next;	/* b is a device item's start */
	unsigned char cause;	/* enum idle_cause */
	int64_t in_ns;		/* its time inside the window (account()) */
};

static int64_t imax(int64_t x, int64_t y)
{
	return x > y ? x : y;
}

static int64_t imin(int64_t x, int64_t y)
{
	return x < y ? x : y;
}

static int64_t span_end(const struct idle_span *s)
{
	return sat_add(s->ts_ns, s->dur_ns);
}

/* The gaps: the rank's span [t0, t1) less the busy runs. */
static struct gap *make_gaps(const struct interval *busy, size_t nr_busy, int64_t t0, int64_t t1,
			     size_t *n)
{
	struct gap *g = malloc((nr_busy + 1) * sizeof(*g));
	int64_t prev = t0;
	size_t k = 0;

	if (!g)
		return NULL;
	for (size_t i = 0; i <= nr_busy; i++) {
		int64_t lo = i < nr_busy ? busy[i].lo : t1;

		if (lo > prev)
			g[k++] = (struct gap){ prev, lo, lo, INT64_MIN, 0, 0, 0, 0, i < nr_busy, 0, 0 };
		if (i < nr_busy)
			prev = imax(prev, busy[i].hi);
	}
	*n = k;
	return g;
}

/*
 * Each gap's next item by time, its correlation, and the first call with
 * it; mark the calls that launched some item.  Leaves the calls sorted by
 * correlation.
 */
static int launches_by_corr(struct idle *d, struct gap *g, size_t ng)
{
	struct idle_dev *dev = (struct idle_dev *)(void *)d->dev.data;
	struct idle_call *c = (struct idle_call *)(void *)d->calls.data;
	size_t ndev = d->dev.len / sizeof(*dev), nc = d->calls.len / sizeof(*c);
	int64_t *corrs = malloc((ndev ? ndev : 1) * sizeof(*corrs));
	uint32_t *id = calloc(nc ? nc : 1, sizeof(*id));
	uint64_t *key = malloc((nc ? nc : 1) * sizeof(*key));
	int rc = -1;

	if (!corrs || !id || !key || sort_by_first_i64(dev, ndev, sizeof(*dev)))
		goto out;
	for (size_t i = 0; i < ng; i++) {
		size_t k = first_i64_lower_bound(dev, sizeof(*dev), 0, ndev, g[i].b);

		if (g[i].has_next && k < ndev && dev[k].ts_ns == g[i].b)
			g[i].corr = dev[k].corr;
	}
	for (size_t i = 0; i < ndev; i++)
		corrs[i] = dev[i].corr;
	for (size_t i = 0; i < nc; i++)
		key[i] = sort_key_i64(c[i].corr);
	if (sort_i64(corrs, ndev) || sort_recs_id_key(c, nc, sizeof(*c), id, 0, key))
		goto out;
	for (size_t i = 0, k = 0; i < nc; i++) {
		while (k < ndev && corrs[k] < c[i].corr)
			k++;
		c[i].launched = c[i].corr != INT64_MIN && k < ndev && corrs[k] == c[i].corr;
	}
	for (size_t i = 0; i < ng; i++) {
		size_t lo = 0, hi = nc;

		if (g[i].corr == INT64_MIN)
			continue;
		while (lo < hi) {	/* the first call with the correlation: file order kept */
			size_t mid = lo + (hi - lo) / 2;

			if (c[mid].corr < g[i].corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nc && c[lo].corr == g[i].corr) {
			g[i].l = c[lo].ts_ns;
			g[i].track = c[lo].track;
			g[i].host = c[lo].name;
			g[i].found = 1;
		}
	}
	rc = 0;
out:
	free(corrs);
	free(id);
	free(key);
	return rc;
}

/*
 * The gaps whose launch no correlation found: the last call starting at or
 * before b (before a for the last gap, which has no next item).  Leaves the
 * calls sorted by time.
 */
static int launches_by_time(struct idle *d, struct gap *g, size_t ng)
{
	struct idle_call *c = (struct idle_call *)(void *)d->calls.data;
	size_t nc = d->calls.len / sizeof(*c);

	if (sort_by_first_i64(c, nc, sizeof(*c)))
		return -1;
	for (size_t i = 0; i < ng; i++) {
		/* calls before k start at or before b (strictly before a for the last gap) */
		size_t k = g[i].has_next ? first_i64_lower_bound(c, sizeof(*c), 0, nc, sat_add(g[i].b, 1))
					 : first_i64_lower_bound(c, sizeof(*c), 0, nc, g[i].a);

		if (g[i].found || k == 0)
			continue;
		g[i].track = c[k - 1].track;
		g[i].host = c[k - 1].name;
		g[i].found = 1;
		if (g[i].has_next) {
			g[i].l = c[k - 1].ts_ns;
			g[i].by_time = 1;
		}
	}
	return 0;
}

/* Whether (track, ts) of a record comes before (tr, t). */
static int before(uint32_t track, int64_t ts, uint32_t tr, int64_t t)
{
	return track < tr || (track == tr && ts < t);
}

/* The first call of c[0..n) (sorted by thread, then time) at or after (tr, t). */
static size_t call_bound(const struct idle_call *c, size_t n, uint32_t tr, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(c[mid].track, c[mid].ts_ns, tr, t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Likewise for spans. */
static size_t span_bound(const struct idle_span *s, size_t n, uint32_t tr, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(s[mid].track, s[mid].ts_ns, tr, t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 when name id of d->names contains p. */
static int name_has(const struct idle *d, uint32_t id, const char *p)
{
	return id && memmem(strtab_str(&d->names, id), strtab_len(&d->names, id), p, strlen(p));
}

/*
 * Graph capture as one span per capture: from a stream's BeginCapture call
 * to the next EndCapture call on the same thread (CUDA runtime and driver,
 * HIP), or AscendCL's aclmdlRICaptureBegin to ...End.  Kernels launched
 * meanwhile do not run, so the device idles for the whole of it.  c[0..nc)
 * are sorted by thread, then time.  -1 when out of memory.
 */
static int capture_regions(struct idle *d, const struct idle_call *c, size_t nc)
{
	size_t open = SIZE_MAX;

	for (size_t i = 0; i < nc; i++) {
		if (open != SIZE_MAX && c[open].track != c[i].track)
			open = SIZE_MAX;
		if (name_has(d, c[i].name, "BeginCapture") || name_has(d, c[i].name, "CaptureBegin")) {
			open = i;
		} else if (open != SIZE_MAX &&
			   (name_has(d, c[i].name, "EndCapture") || name_has(d, c[i].name, "CaptureEnd"))) {
			struct idle_span r = { c[open].ts_ns,
					       sat_sub(sat_add(c[i].ts_ns, c[i].dur_ns), c[open].ts_ns),
					       c[open].name, c[open].track, IDLE_CAPTURE, 0, { 0 } };

			buf_add(&d->spans, &r, sizeof(r));
			open = SIZE_MAX;
		}
	}
	return buf_ok(&d->spans) ? 0 : -1;
}

/*
 * Sort the calls and spans by thread, then time; mark each span that a
 * launching call on its thread starts inside, and the slow first calls
 * (init, unless a class before init in the table claimed the span).
 */
static int prepare_spans(struct idle *d, uint32_t max_track)
{
	struct idle_call *c = (struct idle_call *)(void *)d->calls.data;
	struct idle_span *s = (struct idle_span *)(void *)d->spans.data;
	const struct idle_name_stat *st = (const struct idle_name_stat *)(void *)d->stats.data;
	size_t nc = d->calls.len / sizeof(*c), ns = d->spans.len / sizeof(*s);
	size_t nmax = (nc > ns ? nc : ns) + nc / 2;	/* the capture regions may add nc / 2 spans */
	uint32_t *id = malloc((nmax ? nmax : 1) * sizeof(*id));
	uint64_t *key = malloc((nmax ? nmax : 1) * sizeof(*key));
	size_t *pre = malloc((nc + 1) * sizeof(*pre));	/* launching calls before each */
	int rc = -1;

	if (!id || !key || !pre)
		goto out;
	for (size_t i = 0; i < nc; i++) {
		id[i] = c[i].track;
		key[i] = sort_key_i64(c[i].ts_ns);
	}
	if (sort_recs_id_key(c, nc, sizeof(*c), id, max_track, key))
		goto out;
	if (capture_regions(d, c, nc))
		goto out;
	s = (struct idle_span *)(void *)d->spans.data;	/* it may have grown */
	ns = d->spans.len / sizeof(*s);
	for (size_t i = 0; i < ns; i++) {
		id[i] = s[i].track;
		key[i] = sort_key_i64(s[i].ts_ns);
	}
	if (sort_recs_id_key(s, ns, sizeof(*s), id, max_track, key))
		goto out;
	pre[0] = 0;
	for (size_t i = 0; i < nc; i++)
		pre[i + 1] = pre[i] + c[i].launched;
	for (size_t i = 0; i < ns; i++) {
		const struct idle_name_stat *t = &st[s[i].name];
		size_t lo = call_bound(c, nc, s[i].track, s[i].ts_ns);
		size_t hi = call_bound(c, nc, s[i].track, span_end(&s[i]));
		int later = s[i].cls == NO_CLASS || s[i].cls == IDLE_DATA_LOADING ||
			    s[i].cls == IDLE_COLLECTIVE_WAIT || s[i].cls == IDLE_MEMORY_MGMT ||
			    s[i].cls == IDLE_SYNC;

		s[i].launched = pre[hi] > pre[lo];
		/* the slow first call: dur * (n - 1) >= FACTOR * (sum - dur), exactly */
		if (later && t->n >= 2 && s[i].ts_ns == t->first_ts && s[i].dur_ns == t->first_dur &&
		    s[i].dur_ns >= IDLE_SLOW_FIRST_NS &&
		    (__int128)s[i].dur_ns * (t->n - 1) >=
			    (__int128)IDLE_SLOW_FIRST_FACTOR * (t->sum_ns - s[i].dur_ns))
			s[i].cls = IDLE_INIT;
	}
	rc = 0;
out:
	free(id);
	free(key);
	free(pre);
	return rc;
}

static int cmp_lo(const void *x, const void *y)
{
	const struct interval *a = x, *b = y;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The part of span s inside [a, w1). */
static int64_t overlap(const struct idle_span *s, int64_t a, int64_t w1)
{
	int64_t lo = imax(s->ts_ns, a), hi = imin(span_end(s), w1);

	return hi > lo ? hi - lo : 0;
}

/* The length of the union of v[0..n), which it sorts by start. */
static int64_t union_length(struct interval *v, size_t n)
{
	int64_t len = 0, hi = INT64_MIN;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_lo);
	for (size_t i = 0; i < n; i++) {
		int64_t lo = imax(v[i].lo, hi);

		if (v[i].hi > lo)
			len += v[i].hi - lo;
		hi = imax(hi, v[i].hi);
	}
	return len;
}

/* The length of the union of the parts inside [a, w1) of the spans act[] of class k. */
static int64_t coverage(const struct idle_span *s, const size_t *act, size_t nact, unsigned k,
			int64_t a, int64_t w1, struct interval *tmp)
{
	size_t n = 0;

	for (size_t i = 0; i < nact; i++) {
		const struct idle_span *x = &s[act[i]];

		if (x->cls == k && overlap(x, a, w1) > 0)
			tmp[n++] = (struct interval){ imax(x->ts_ns, a), imin(span_end(x), w1) };
	}
	return union_length(tmp, n);
}

/* doc/idle.md's rules for gap g, given the spans act[] open on its thread. */
static void attribute(struct gap *g, const struct idle_span *s, const size_t *act, size_t nact,
		      struct interval *tmp)
{
	int64_t a = g->a, w1 = imax(a, g->l), wl = w1 - a;
	size_t best = SIZE_MAX;

	if (wl > 0) {
		int64_t cov = 0;
		unsigned cls = NO_CLASS;
		size_t nh = 0;


		/* 1: a class covers most of W */
		for (size_t k = 0; k < NR_CLASSES; k++) {
			int64_t c = coverage(s, act, nact, class_order[k], a, w1, tmp);

			if (c > cov) {
				cov = c;
				cls = class_order[k];
			}
		}
		if (cls != NO_CLASS && 2 * cov >= wl) {
			for (size_t i = 0; i < nact; i++) {
				const struct idle_span *x = &s[act[i]];

				if (x->cls == cls &&
				    (best == SIZE_MAX || overlap(x, a, w1) > overlap(&s[best], a, w1) ||
				     (overlap(x, a, w1) == overlap(&s[best], a, w1) &&
				      x->ts_ns < s[best].ts_ns)))
					best = act[i];
			}
			g->cause = (unsigned char)cls;
			g->host = s[best].name;
			return;
		}
		/* 2: host work covers most of W, named after the span covering most of it */
		for (size_t i = 0; i < nact; i++) {
			const struct idle_span *x = &s[act[i]];
			int64_t o = overlap(x, a, w1), ob;

			if (x->cls != NO_CLASS || x->launched || x->dur_ns < IDLE_HOST_WORK_NS || !o)
				continue;
			tmp[nh++] = (struct interval){ imax(x->ts_ns, a), imin(span_end(x), w1) };
			ob = best == SIZE_MAX ? -1 : overlap(&s[best], a, w1);
			if (o > ob || (o == ob && (x->dur_ns < s[best].dur_ns ||
						   (x->dur_ns == s[best].dur_ns &&
						    x->ts_ns < s[best].ts_ns))))
				best = act[i];
		}
		if (best != SIZE_MAX && 2 * union_length(tmp, nh) >= wl) {
			g->cause = IDLE_HOST_COMPUTE;
			g->host = s[best].name;
			return;
		}
		best = SIZE_MAX;
	}
	/* 3: a sync drained the queue */
	for (size_t i = 0; i < nact; i++) {
		const struct idle_span *x = &s[act[i]];

		if (x->cls == IDLE_SYNC && x->ts_ns <= a && span_end(x) >= a &&
		    (best == SIZE_MAX || x->dur_ns > s[best].dur_ns ||
		     (x->dur_ns == s[best].dur_ns && x->ts_ns < s[best].ts_ns)))
			best = act[i];
	}
	if (best != SIZE_MAX) {
		g->cause = IDLE_SYNC;
		g->host = s[best].name;
		return;
	}
	/*
	 * 4: a short gap; 5: host time outside any traced span (the launch's
	 * name stays for 4); 6: the trace's last gap has no launch
	 */
	if (g->has_next && g->b - g->a <= IDLE_LAUNCH_GAP_NS) {
		g->cause = IDLE_LAUNCH;
		return;
	}
	g->cause = g->has_next ? IDLE_HOST_COMPUTE : IDLE_OTHER;
	g->host = 0;
}

/*
 * The gaps with a known thread, per thread in time order, beside that
 * thread's spans: act[] holds the spans that overlap the gap's host window
 * or reach its start.  The windows of a thread are disjoint and in order,
 * so a span enters act[] once and stays only while it reaches the next
 * gap: the sweep is linear but for the spans open across many gaps (the
 * nesting depth).  -1 when out of memory.
 */
static int attribute_all(struct idle *d, struct gap *g, size_t ng, uint32_t max_track)
{
	const struct idle_span *s = (const struct idle_span *)(void *)d->spans.data;
	size_t ns = d->spans.len / sizeof(*s);
	uint32_t *perm = sort_identity(ng), *id = malloc((ng ? ng : 1) * sizeof(*id));
	uint64_t *key = malloc((ng ? ng : 1) * sizeof(*key));
	size_t *act = NULL, nact = 0, act_alloc = 0, tmp_alloc = 0, sp = 0;
	struct interval *tmp = NULL;
	uint32_t cur = UINT32_MAX;
	int rc = -1;

	if (!perm || !id || !key)
		goto out;
	for (size_t i = 0; i < ng; i++) {
		id[i] = g[i].found ? g[i].track : 0;
		key[i] = sort_key_i64(g[i].a);
	}
	if (sort_perm_id_key(id, max_track, key, perm, ng))
		goto out;
	for (size_t k = 0; k < ng; k++) {
		struct gap *x = &g[perm[k]];
		int64_t lim = x->l > x->a ? x->l : sat_add(x->a, 1);	/* spans starting before */
		size_t keep = 0;

		if (!x->found) {
			x->cause = IDLE_OTHER;
			continue;
		}
		if (x->track != cur) {
			cur = x->track;
			nact = 0;
			sp = span_bound(s, ns, cur, INT64_MIN);
		}
		for (; sp < ns && s[sp].track == cur && s[sp].ts_ns < lim; sp++) {
			if (span_end(&s[sp]) < x->a)
				continue;
			if (ALLOC_GROW(act, nact + 1, act_alloc))
				goto out;
			act[nact++] = sp;
		}
		if (ALLOC_GROW(tmp, nact, tmp_alloc))
			goto out;
		for (size_t i = 0; i < nact; i++)
			if (span_end(&s[act[i]]) >= x->a)
				act[keep++] = act[i];
		nact = keep;
		attribute(x, s, act, nact, tmp);
	}
	rc = 0;
out:
	free(perm);
	free(id);
	free(key);
	free(act);
	free(tmp);
	return rc;
}

/* The steady window: the steps after the warm-up, less a cut-off last one, merged. */
static size_t steady_window(const struct report_rank *rk, struct interval *w)
{
	const struct report_steps *st = &rk->steps;
	size_t n = st->nr_durations, k = 0;
	size_t first = (size_t)(st->warmup ? 1 : 0);
	size_t last = n - (st->cut_off == 1 && n ? 1 : 0);

	if (!st->starts_ns)	/* phases_finish() found none */
		return 0;
	for (size_t i = first; i < last; i++) {
		int64_t lo = st->starts_ns[i], hi = sat_add(lo, st->durations_ns[i]);

		if (hi <= lo)
			continue;
		if (k && lo <= w[k - 1].hi)
			w[k - 1].hi = imax(w[k - 1].hi, hi);
		else
			w[k++] = (struct interval){ lo, hi };
	}
	return k;
}

/* The index of the step holding t, or -1. */
static int64_t step_at(const struct report_steps *st, int64_t t)
{
	size_t k;

	if (!st->starts_ns || t == INT64_MAX)
		return -1;
	/* the first step starting after t: the one before may hold it */
	k = first_i64_lower_bound(st->starts_ns, sizeof(int64_t), 0, st->nr_durations, t + 1);
	if (k && t < sat_add(st->starts_ns[k - 1], st->durations_ns[k - 1]))
		return (int64_t)(k - 1);
	return -1;
}

/* gap i is longer than gap j, or as long and earlier. */
static int longer(const struct gap *i, const struct gap *j)
{
	return i->b - i->a > j->b - j->a || (i->b - i->a == j->b - j->a && i->a < j->a);
}

/* Add the gaps, split at the window's edges, to rk->idle. */
static int account(struct idle *d, struct gap *g, size_t ng, const struct interval *w,
		   size_t nw, int with_steps, struct arena *a, struct report_rank *rk)
{
	struct report_idle *id = &rk->idle;
	struct report_idle_part *in = &id->in, *out = &id->outside;
	const struct report_steps *st = &rk->steps;
	int64_t t0 = rk->start_ns, first_step = with_steps ? st->starts_ns[0] : INT64_MIN;
	int64_t total = 0;
	size_t top[IDLE_TOP_MAX], ntop = 0, wi = 0;

	in->window_ns = in->idle_ns = in->gaps = out->idle_ns = out->gaps = id->gaps_by_time = 0;
	for (int k = 0; k < IDLE_NR_CAUSES; k++)
		in->by_cause[k] = out->by_cause[k] = 0;
	for (size_t i = 0; i < nw; i++)
		in->window_ns += w[i].hi - w[i].lo;
	for (size_t i = 0; i < ng; i++) {
		/* before the first step: start-up, whatever the rules said */
		int64_t lo = imin(imax(g[i].a, first_step), g[i].b), pre = lo - g[i].a, part = 0, rest;
		size_t j;

		out->by_cause[IDLE_INIT] += pre;
		while (wi < nw && w[wi].hi <= lo)
			wi++;
		for (j = wi; j < nw && w[j].lo < g[i].b; j++)
			part += imax(0, imin(w[j].hi, g[i].b) - imax(w[j].lo, lo));
		rest = (g[i].b - lo) - part;
		g[i].in_ns = part;
		if (part > 0) {
			size_t h = 0;

			while (h + 1 < IDLE_HIST_BUCKETS && part > idle_hist_max_ns(h))
				h++;
			id->hist_gaps[h]++;
			id->hist_ns[h] += part;
			in->by_cause[g[i].cause] += part;
			in->idle_ns += part;
			in->gaps++;
			id->gaps_by_time += g[i].by_time;
		}
		if (rest > 0)
			out->by_cause[g[i].cause] += rest;
		out->gaps += pre + rest > 0;
		total += g[i].b - g[i].a;
		/* the longest gaps, kept in order */
		if (ntop < IDLE_TOP_MAX || longer(&g[i], &g[top[ntop - 1]])) {
			size_t k = ntop < IDLE_TOP_MAX ? ntop++ : ntop - 1;

			for (; k > 0 && longer(&g[i], &g[top[k - 1]]); k--)
				top[k] = top[k - 1];
			top[k] = i;
		}
	}
	in->busy_ns = in->window_ns - in->idle_ns;
	out->window_ns = rk->span_ns - in->window_ns;
	out->idle_ns = total - in->idle_ns;
	out->busy_ns = out->window_ns - out->idle_ns;
	id->top = arena_alloc(a, (ntop ? ntop : 1) * sizeof(*id->top));
	if (!id->top)
		return -1;
	for (size_t k = 0; k < ntop; k++) {
		const struct gap *x = &g[top[k]];
		struct report_idle_gap *y = &id->top[k];

		y->start_ns = x->a - t0;
		y->dur_ns = x->b - x->a;
		y->cause = with_steps && x->b <= first_step ? IDLE_INIT : (enum idle_cause)x->cause;
		y->in_window = x->in_ns > 0;
		y->step = with_steps ? step_at(st, x->a) : -1;
		y->host = x->host ? arena_strndup(a, strtab_str(&d->names, x->host),
						  strtab_len(&d->names, x->host))
				  : NULL;
		if (x->host && !y->host)
			return -1;
	}
	id->nr_top = ntop;
	return 0;
}

int idle_finish(struct idle *d, const struct interval *busy, size_t nr_busy, struct arena *a,
		struct report_rank *rk)
{
	uint32_t max_track = 0;
	struct interval *w = NULL;
	struct gap *g = NULL;
	size_t ng = 0, nw;
	int rc = -1;

	report_idle_null(&rk->idle);
	rk->gpu.step_utilization = NAN;
	if (rk->gpu.no_device || !nr_busy || rk->span_ns <= 0) {
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < d->calls.len / sizeof(struct idle_call); i++)
		max_track = imax(max_track, ((struct idle_call *)(void *)d->calls.data)[i].track);
	for (size_t i = 0; i < d->spans.len / sizeof(struct idle_span); i++)
		max_track = imax(max_track, ((struct idle_span *)(void *)d->spans.data)[i].track);
	g = make_gaps(busy, nr_busy, rk->start_ns, sat_add(rk->start_ns, rk->span_ns), &ng);
	w = malloc((rk->steps.nr_durations + 1) * sizeof(*w));
	if (!g || !w || launches_by_corr(d, g, ng) || launches_by_time(d, g, ng) ||
	    prepare_spans(d, max_track) || attribute_all(d, g, ng, max_track))
		goto out;
	nw = steady_window(rk, w);
	rk->idle.window = nw ? "steps" : "trace";
	if (!nw) {
		w[0] = (struct interval){ rk->start_ns, sat_add(rk->start_ns, rk->span_ns) };
		nw = 1;
	}
	if (account(d, g, ng, w, nw, rk->idle.window[0] == 's', a, rk))
		goto out;
	if (rk->idle.window[0] == 's' && rk->idle.in.window_ns > 0)
		rk->gpu.step_utilization =
			(double)rk->idle.in.busy_ns / (double)rk->idle.in.window_ns;
	rc = 0;
out:
	free(g);
	free(w);
	idle_release(d);
	idle_init(d);
	return rc;
}
