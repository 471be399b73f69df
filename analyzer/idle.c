/*
 * idle: see idle.h and doc/idle.md.
 *
 * The gaps are the complement of the busy runs in the rank's span.  Each
 * gap's next device item leads by correlation (or by time) to its launch:
 * a thread and a time.  The gaps are then visited per thread in time order
 * beside that thread's host spans, which come in as the gaps advance; the
 * rules ask the spans open at a gap through trees (struct open_spans), not
 * one by one, so the attribution is a few sorts, one sweep and searches:
 * O(n log n) however deep the spans nest.
 */
#include "idle.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "grow.h"
#include "hugepage.h"
#include "launch.h"
#include "namematch.h"
#include "sat.h"
#include "sort.h"
#include "sync_calls.h"
#include "track.h"

/*
 * The classes of host spans by name, first match wins (doc/idle.md's
 * table, in its order, which also breaks ties between causes).  Sources:
 * the CUDA runtime and driver API, HIP, AscendCL, cuDNN/cuBLAS handles;
 * PyTorch's DataLoader iterators, c10d and ProcessGroupGloo; torch._dynamo's
 * and Inductor's dynamo_timed spans; cudagraph_trees' CUDAGraphNode.record
 * and vLLM's capture_* annotations.
 */
#define NO_CLASS IDLE_NR_CAUSES	/* no class; fits beside the causes, + 1 too */
#define WRAPPER (IDLE_NR_CAUSES + 1)	/* a wrapper of steady execution: no span at all */

static const struct name_rule {
	unsigned cause;		/* enum idle_cause, or WRAPPER */
	enum name_how how;
	const char *pat;	/* NULL: by another table (by_table()) */
} name_rules[] = {
	{ IDLE_CAPTURE, NAME_HAS_ANYCASE, "capture" },
	{ IDLE_CAPTURE, NAME_STARTS, "cudaGraphInstantiate" },
	{ IDLE_CAPTURE, NAME_STARTS, "cuGraphInstantiate" },
	{ IDLE_CAPTURE, NAME_STARTS, "hipGraphInstantiate" },
	{ IDLE_CAPTURE, NAME_STARTS, "aclmdlRICapture" },
	{ IDLE_CAPTURE, NAME_IS, "CUDAGraphNode.record" },
	/*
	 * Wrappers every call of compiled code runs inside, steady state
	 * too: where a gap is, not why (dynamo's per-call wrapper, the region
	 * annotation, AOTAutograd's autograd.Function).  Before compilation
	 * proper, which would otherwise claim them by "compile".
	 */
	{ WRAPPER, NAME_HAS, "compile_wrapper" },
	{ WRAPPER, NAME_STARTS, "Torch-Compiled Region" },
	{ WRAPPER, NAME_HAS, "CompiledFunction" },
	/*
	 * Compilation proper: dynamo's frame conversion, its dynamo_timed spans
	 * (entire_frame_compile, backend_compile, inductor_compile,
	 * async_compile.*, fx_codegen_and_compile, call_user_compiler), the
	 * Inductor entry points and code generation, Triton's autotuning and
	 * benchmarking.  Not a file path holding "compile" (compile_fx.py's
	 * cudagraph runner runs every replay).
	 */
	{ IDLE_COMPILE, NAME_HAS, "convert_frame" },
	{ IDLE_COMPILE, NAME_HAS, "_compile" },
	{ IDLE_COMPILE, NAME_HAS, "compile_inner" },
	{ IDLE_COMPILE, NAME_STARTS, "compile_fx" },
	{ IDLE_COMPILE, NAME_ENDS, ": compile_fx" },
	{ IDLE_COMPILE, NAME_ENDS, ": compile_fx_inner" },
	{ IDLE_COMPILE, NAME_HAS, "compile_to_module" },
	{ IDLE_COMPILE, NAME_HAS, "compile_file" },
	{ IDLE_COMPILE, NAME_HAS, "codegen" },
	{ IDLE_COMPILE, NAME_HAS_ANYCASE, "autotune" },
	{ IDLE_COMPILE, NAME_HAS, "benchmark_all_configs" },
	{ IDLE_COMPILE, NAME_HAS, "do_bench" },
	{ IDLE_COMPILE, NAME_HAS, "dynamo_timed" },
	{ IDLE_COMPILE, NAME_IS, "dynamo" },
	{ IDLE_INIT, NAME_IS, NULL },	/* classify.h's CF_INIT calls: cudaStreamCreate, ... */
	{ IDLE_DATA_LOADING, NAME_HAS_ANYCASE, "dataloader" },
	{ IDLE_COLLECTIVE_WAIT, NAME_IS, NULL },	/* gloo:*, c10d::wait, c10d::barrier */
	{ IDLE_MEMORY_MGMT, NAME_IS, NULL },	/* CF_MEMORY calls: cudaMalloc, ... */
	{ IDLE_SYNC, NAME_IS, NULL },	/* aten::item: sync_calls.h's operators */
};

#define NR_NAME_RULES (sizeof(name_rules) / sizeof(name_rules[0]))

/* The classes in the order of the table: rule 1's tie-break. */
static const enum idle_cause class_order[] = { IDLE_CAPTURE, IDLE_COMPILE, IDLE_INIT,
					       IDLE_DATA_LOADING, IDLE_COLLECTIVE_WAIT,
					       IDLE_MEMORY_MGMT, IDLE_SYNC };

#define NR_CLASSES (sizeof(class_order) / sizeof(class_order[0]))

/*
 * Whether rule r, one without a pattern, holds the span named s[0..n) of
 * classify.h's flags: the runtime calls that set up or manage memory and
 * the collectives that wait are classify.h's, the synchronising operators
 * sync_calls.h's.
 */
static int by_table(const struct name_rule *r, const char *s, size_t n, unsigned flags)
{
	switch (r->cause) {
	case IDLE_INIT:
		return (flags & CF_INIT) != 0;
	case IDLE_COLLECTIVE_WAIT:
		return (flags & CF_COLL_WAIT) != 0;
	case IDLE_MEMORY_MGMT:
		return (flags & CF_MEMORY) != 0;
	case IDLE_SYNC:
		return sync_call_of(s, n) == SYNC_OP;
	default:
		return 0;
	}
}

/*
 * The class of a host span named s[0..n) of classify.h's flags; sync: a
 * synchronising runtime call (gpu_collect()'s EVC_SYNC).
 */
static unsigned char class_of(const char *s, size_t n, unsigned flags, int sync)
{
	for (size_t i = 0; i < NR_NAME_RULES; i++) {
		const struct name_rule *r = &name_rules[i];

		if (r->cause == IDLE_SYNC && sync)
			return IDLE_SYNC;	/* every earlier class has been tried */
		if (r->pat ? name_matches(r->how, r->pat, s, n) : by_table(r, s, n, flags))
			return (unsigned char)r->cause;
	}
	return sync ? IDLE_SYNC : NO_CLASS;
}

/* What idle.c keeps per span name: counts for the slow first call, and its class. */
struct idle_name_stat {
	int64_t n, sum_ns;		/* spans of the name, their summed durations */
	size_t calls;			/* of them runtime calls (idle's in the calls table) */
	int64_t first_ts, first_dur;	/* the earliest (first in the file on ties) */
	int64_t med2;			/* twice the median runtime call of the name; 0: none */
	unsigned char cls[2];		/* class_of() + 1 as plain span, as sync call; 0 unknown */
	unsigned char capture;		/* CAPTURE_BEGIN, CAPTURE_END or 0 */
	unsigned char queue;		/* QUEUE_EVENT_WAIT, QUEUE_GRAPH or 0 */
};

enum { CAPTURE_BEGIN = 1, CAPTURE_END };

/* What a runtime call tells of the device's queue: a stream waits on an event, a graph runs. */
enum { QUEUE_EVENT_WAIT = 1, QUEUE_GRAPH };

/* Why a span is init by its duration: against its name's median call, or its later calls. */
enum { OUTLIER_MEDIAN = 1, OUTLIER_FIRST };

/*
 * A runtime call hundreds of times its name's median (lazy module loading,
 * PTX JIT, a library's first set-up), exactly: dur >= FACTOR * median.
 */
static int call_outlier(const struct idle_name_stat *t, int64_t dur)
{
	return t->med2 > 0 && dur >= IDLE_SLOW_FIRST_NS &&
	       (__int128)2 * dur >= (__int128)IDLE_SLOW_FIRST_FACTOR * t->med2;
}

/* Whether a call of classify.h's flags begins or ends a graph capture (capture_regions()). */
static unsigned char capture_edge(unsigned flags)
{
	return flags & CF_CAPTURE_BEGIN ? CAPTURE_BEGIN : flags & CF_CAPTURE_END ? CAPTURE_END : 0;
}

/*
 * What a call of classify.h's flags queues on the device: a stream's wait
 * on an event, or a graph (CUDA, HIP, AscendCL's model runs): what a
 * device-side wait is named after.
 */
static unsigned char queue_kind(unsigned flags)
{
	return flags & CF_EVENT_WAIT ? QUEUE_EVENT_WAIT : flags & CF_GRAPH_QUEUE ? QUEUE_GRAPH : 0;
}

/* The next call idle reads, in file order; 0 at the end. */
static inline __attribute__((always_inline)) int next_call(struct calls_cursor *c,
							    struct call *out)
{
	while (calls_next(c, out))
		if (out->idle)
			return 1;
	return 0;
}

/*
 * A launching call where it runs, for "a host span launched something";
 * also a stream's event wait, with its name.
 */
struct launch_at {
	int64_t ts_ns;
	uint32_t track, name;
};

struct idle_span {
	int64_t ts_ns, dur_ns;
	uint32_t name, track;
	unsigned char cls;	/* enum idle_cause of a class, or NO_CLASS */
	unsigned char launched;	/* a launching call on its thread starts inside it */
	unsigned char outlier;	/* init as OUTLIER_MEDIAN or OUTLIER_FIRST, or 0 */
	unsigned char pad[5];
};

/* Append r to d->spans.  -1 when out of memory. */
static int push_span(struct idle *d, const struct idle_span *r)
{
	if (ALLOC_GROW(d->spans, d->nr_spans + 1, d->spans_alloc))
		return -1;
	d->spans[d->nr_spans++] = *r;
	return 0;
}

void idle_init(struct idle *d, struct names *names, struct calls *calls)
{
	memset(d, 0, sizeof(*d));
	d->names = names;
	d->calls = calls;
}

/* What the tally no longer reads: all but the names, their statistics and the gaps. */
static void release_attributed(struct idle *d)
{
	free(d->next);
	d->next = NULL;
	d->nr_next = 0;
	free(d->spans);
	free(d->launches);
	free(d->waits);
	d->spans = NULL;
	d->launches = d->waits = NULL;
	d->nr_spans = d->spans_alloc = d->nr_launches = d->nr_waits = d->waits_alloc = 0;
}

void idle_release(struct idle *d)
{
	release_attributed(d);
	free(d->stats);
	free(d->gaps);
}

int idle_collect(struct idle *d, const struct event_batch *b, const unsigned char *cls,
		 const unsigned char *sub, struct strtab *tracks)
{
	struct track_cache cache = { 0 };

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct idle_name_stat *s;
		unsigned c = cls[i], sync;
		uint32_t name, track;

		/* as calls.c and launch.c tell what idle reads; the device work is launch.c's */
		if (!ev_is_complete(ev) || evc_is_device(c) || c == EVC_GPU_ANNOT)
			continue;
		c = evc_call_class(c, sub[i]);	/* torch_npu's, without cat */
		sync = c == EVC_SYNC;
		name = names_id(d->names, ev->name);
		if (name == STRTAB_OOM ||
		    ALLOC_GROW_ZERO(d->stats, (size_t)name + 1, d->stats_alloc))
			return -1;
		s = &d->stats[name];
		if (!s->n || ev->ts_ns < s->first_ts) {
			s->first_ts = ev->ts_ns;
			s->first_dur = ev->dur_ns;
		}
		s->n++;
		s->sum_ns = sat_add(s->sum_ns, ev->dur_ns);
		track = track_id(tracks, &cache, b, ev);
		if (track == STRTAB_OOM)
			return -1;
		if (track > d->max_track)
			d->max_track = track;
		if (evc_is_call(c))	/* the calls table's (calls.h) too */
			s->calls++;
		if (!s->cls[sync]) {	/* once per name and file: the rules match many patterns */
			const char *t = name ? names_str(d->names, name) : "";
			size_t n = name ? names_len(d->names, name) : 0;
			unsigned flags = classify_flags(sub[i]);

			s->cls[sync] = (unsigned char)(class_of(t, n, flags, (int)sync) + 1);
			s->capture = capture_edge(flags);
			s->queue = queue_kind(flags);
		}
		if (c == EVC_RUNTIME && s->queue == QUEUE_EVENT_WAIT) {
			if (ALLOC_GROW(d->waits, d->nr_waits + 1, d->waits_alloc))
				return -1;
			d->waits[d->nr_waits++] = (struct launch_at){ ev->ts_ns, track, name };
		}
		/*
		 * A wrapper is no span: not a class, not host work, not a slow
		 * first call (its first call holds the compilation it wraps).
		 */
		if (s->cls[sync] - 1 == WRAPPER)
			continue;
		if (s->cls[sync] - 1 != NO_CLASS || ev->dur_ns >= IDLE_HOST_WORK_NS) {
			struct idle_span r = { ev->ts_ns, ev->dur_ns, name, track,
					       (unsigned char)(s->cls[sync] - 1), 0, 0, { 0 } };

			if (push_span(d, &r))
				return -1;
		}
	}
	return 0;
}

/* A gap [a, b) and what its attribution found. */
struct gap {
	int64_t a, b;
	int64_t l;		/* the launch's start; b where none was found */
	int64_t l_dur;		/* the launching call's duration where found, else 0 */
	int64_t host_dur;	/* the host span named, for an outlier's ratio */
	uint32_t track;		/* the launching thread */
	uint32_t host;		/* a name id (d->names); 0: none */
	unsigned char found;	/* the thread is known */
	unsigned char by_time;	/* ... from the last call before b, not by correlation */
	unsigned char by_corr;	/* ... by correlation */
	unsigned char has_next;	/* b is a device item's start */
	unsigned char cause;	/* enum idle_cause */
	unsigned char host_outlier;	/* the host span's outlier kind, or 0 */
	unsigned char l_outlier;	/* the launching call is a median outlier (launch_end()) */
	unsigned char in_window;	/* some of it is inside the window (tally_gap()) */
};

/* A gap per busy run: there are hundreds of thousands in a gigabyte of trace. */
_Static_assert(sizeof(struct gap) == 56, "a gap takes 56 bytes");

/* Where the launch of gap g ends for the rules: an outlier call's end, else its start. */
static int64_t launch_end(const struct gap *g)
{
	return g->l_outlier ? sat_add(g->l, g->l_dur) : g->l;
}

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

/*
 * The next gap after *prev (the end of the busy time so far; t0 at first)
 * from the busy runs left in *busy: the rank's span [t0, t1) less the
 * busy runs; *done once they are all read.  0 when there is none.
 */
static int next_gap(struct interval_cursor *busy, int64_t t1, int *done, int64_t *prev,
		    struct gap *g)
{
	struct interval run;

	while (!*done) {
		int more = interval_cursor_next(busy, &run);
		int64_t lo = more ? run.lo : t1, at = *prev;

		*done = !more;
		if (more)
			*prev = imax(*prev, run.hi);
		if (lo > at) {
			*g = (struct gap){ .a = at, .b = lo, .l = lo,
					   .has_next = (unsigned char)more, .cause = IDLE_OTHER };
			return 1;
		}
	}
	return 0;
}

/*
 * The gaps of d's busy runs in [t0, t1), in time order (ends_only 0), or
 * only the ends of those with a next item, all but perhaps the last
 * (ends_only 1): a gap has the same index in both.  The index is a 32-bit
 * word (struct gap_corr, attribute_all()'s order): more busy runs than it
 * holds (4 G device items) are out of memory.  NULL when out of memory.
 */
static void *gaps_of(const struct idle *d, int ends_only, size_t *n)
{
	size_t size = ends_only ? sizeof(int64_t) : sizeof(struct gap);
	void *v = d->busy->n < UINT32_MAX ? hugepage_malloc((d->busy->n + 1) * size) : NULL;
	struct gap *g = v, x;
	int64_t *ends = v, prev = d->t0;
	struct interval_cursor cur;
	int done = 0;

	*n = 0;
	interval_cursor_init(&cur, d->busy);
	while (v && next_gap(&cur, d->t1, &done, &prev, &x)) {
		if (!ends_only)
			g[(*n)++] = x;
		else if (x.has_next)
			ends[(*n)++] = x.b;
	}
	return v;
}

/* A gap's next item's correlation (its launch.h word), and the gap's index. */
struct gap_corr {
	uint32_t corr;
	uint32_t gap;
};

/* Set gap g's launch to call c, found by time. */
static void found_by_time(const struct idle *d, struct gap *g, const struct call *c)
{
	g->track = c->track;
	g->host = c->name;
	g->found = 1;
	if (g->has_next) {
		g->l = c->ts_ns;
		g->l_dur = c->dur_ns;
		g->l_outlier = (unsigned char)call_outlier(&d->stats[c->name], c->dur_ns);
		g->by_time = 1;
	}
}

/* Where the gap's launch by time must start before: b inclusive, a for the last gap. */
static int64_t by_time_limit(const struct gap *g)
{
	return g->has_next ? sat_add(g->b, 1) : g->a;
}

/*
 * A gap's launch by time, found as the calls go by in file order: the last
 * call to start before its limit; ties: the last in the file.
 */
struct by_time {
	int64_t lim;
	struct call best;
	int any;
};

static void by_time_init(struct by_time *t, const struct gap *g)
{
	t->lim = by_time_limit(g);
	t->any = 0;
}

static void by_time_see(struct by_time *t, const struct call *c)
{
	if (c->ts_ns < t->lim && (!t->any || c->ts_ns >= t->best.ts_ns)) {
		t->best = *c;
		t->any = 1;
	}
}

/*
 * Each gap's next item, the first in the file that starts at its end, and
 * its correlation's word in l (launch.h): the items are l's records idle
 * reads, in file order.  The gaps are in time order, so their ends
 * ascend: a search over them by end, galloping from the last answer, as
 * items come in about time order.  Only the ends are made here, 8 bytes a
 * gap where a gap takes 56: this runs beside the join, and the gaps made
 * here beside the join's records were the finish's peak; idle_attribute()
 * makes them once the join is made.  -1 when out of memory.
 */
static int next_items(struct idle *d, const struct launches *l)
{
	size_t ng, n = 0;
	int64_t *b = gaps_of(d, 1, &ng);
	struct gap_corr *gc = hugepage_malloc((ng ? ng : 1) * sizeof(*gc));
	unsigned char *has = hugepage_calloc(ng / 8 + 1, 1);	/* per gap: its item is found */

	if (!b || !gc || !has) {
		free(b);
		free(gc);
		free(has);
		return -1;
	}
	for (size_t i = 0, at = 0; ng && i < l->nr_device; i++) {
		const struct launch_dev *x = &l->device[i];

		if (!(x->name_users & LAUNCH_DEV_IDLE))
			continue;
		at = first_i64_lower_bound_from(b, sizeof(*b), ng, at, x->ts_ns);
		for (size_t k = at; k < ng && b[k] == x->ts_ns; k++)
			if (!(has[k / 8] & 1u << (k % 8))) {
				has[k / 8] |= (unsigned char)(1u << (k % 8));
				gc[n++] = (struct gap_corr){ x->corr, (uint32_t)k };
			}
	}
	free(b);
	free(has);
	d->next = gc;
	d->nr_next = n;
	return 0;
}

/* A gap's next item's correlation, its sort key (sort_recs_by_key()); ctx: the launches. */
static int64_t next_corr(const void *rec, const void *ctx)
{
	return launch_wide(ctx, ((const struct gap_corr *)rec)->corr);
}

/*
 * Each gap's launch: the first call with its next item's correlation (the
 * calls marked first are looked up among the gaps' correlations, sorted).
 * In the same pass over the calls, the trace's last gap, which has no
 * next item, gets its launch by time (launches_by_time()'s rule).
 * Releases the gaps' correlations.
 */
static int launches_by_corr(struct idle *d, const struct launches *l, struct gap *g, size_t ng,
			    size_t *found)
{
	struct gap *last = ng && !g[ng - 1].has_next ? &g[ng - 1] : NULL;
	struct gap_corr *gc = d->next;
	size_t ngc = d->nr_next;
	struct by_time t;
	struct calls_cursor cur;
	struct call c;

	d->next = NULL;
	d->nr_next = 0;
	/*
	 * By correlation (the join is made: its wide values are whole; without
	 * any a word is its correlation): each call marked first then finds
	 * its gaps in one run.
	 */
	if (l->nr_wide ? sort_recs_by_key(gc, ngc, sizeof(*gc), next_corr, l)
		       : sort_by_u32_at(gc, ngc, sizeof(*gc), offsetof(struct gap_corr, corr))) {
		free(gc);
		return -1;
	}
	if (last)
		by_time_init(&t, last);
	calls_begin(&cur, d->calls);
	for (size_t at = 0; (ngc || last) && next_call(&cur, &c);) {
		if (last)
			by_time_see(&t, &c);
		if (!ngc || !(d->calls->marks[cur.i - 1] & CALL_FIRST))
			continue;
		/* the calls' correlations mostly ascend: gallop from the last */
		at = key_lower_bound_from(gc, sizeof(*gc), ngc, at, next_corr, l, c.corr);
		for (size_t k = at; k < ngc && next_corr(&gc[k], l) == c.corr; k++) {
			struct gap *x = &g[gc[k].gap];

			*found += 1;	/* once a gap: one call a correlation is marked first */
			x->l = c.ts_ns;
			x->l_dur = c.dur_ns;
			x->l_outlier = (unsigned char)call_outlier(&d->stats[c.name], c.dur_ns);
			x->track = c.track;
			x->host = c.name;
			x->found = 1;
			x->by_corr = 1;
		}
	}
	if (last && t.any) {
		found_by_time(d, last, &t.best);
		*found += 1;
	}
	free(gc);
	return 0;
}

#define IDLE_SCAN_LOST 8	/* this few gaps lost: a scan of the calls each, no sort */

/*
 * The gaps whose launch no correlation found: the last call (any thread)
 * starting at or before b, or before a for the trace's last gap, which has
 * no next item; ties: the last in the file.  Every trace has that last
 * gap, and most have no other: a few such gaps scan the calls, more sort
 * them by time (stably: file order within a time), unpacked.
 */
static int launches_by_time(struct idle *d, struct gap *g, size_t ng, size_t lost)
{
	struct calls_cursor cur;
	struct call c, *v;
	size_t nc = d->calls->nr_idle, nv = 0;

	if (lost && lost <= IDLE_SCAN_LOST) {
		/* from the end, where the trace's last gap is, until each lost one is met */
		for (size_t i = ng, left = lost; left && i-- > 0;) {
			struct by_time t;

			if (g[i].found)
				continue;
			left--;
			by_time_init(&t, &g[i]);
			calls_begin(&cur, d->calls);
			while (next_call(&cur, &c))
				by_time_see(&t, &c);
			if (t.any)
				found_by_time(d, &g[i], &t.best);
		}
		return 0;
	}
	if (!lost)
		return 0;
	if (!(v = hugepage_malloc((nc ? nc : 1) * sizeof(*v))))
		return -1;
	calls_begin(&cur, d->calls);
	while (nv < nc && next_call(&cur, &v[nv]))
		nv++;
	if (sort_by_first_i64(v, nc, sizeof(*v))) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < ng; i++) {
		size_t k = first_i64_lower_bound(v, sizeof(*v), 0, nc, by_time_limit(&g[i]));

		if (!g[i].found && k)
			found_by_time(d, &g[i], &v[k - 1]);
	}
	free(v);
	return 0;
}

/*
 * The first of n records of `size` bytes, sorted by thread, then time, at
 * or after (tr, t): each starts with its int64 time, its uint32 thread at
 * track_off.
 */
static size_t track_time_bound(const void *v, size_t n, size_t size, size_t track_off,
			       uint32_t tr, int64_t t)
{
	const char *r = v;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t ts;
		uint32_t track;

		memcpy(&ts, r + mid * size, sizeof(ts));
		memcpy(&track, r + mid * size + track_off, sizeof(track));
		if (track < tr || (track == tr && ts < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t span_bound(const struct idle_span *s, size_t n, uint32_t tr, int64_t t)
{
	return track_time_bound(s, n, sizeof(*s), offsetof(struct idle_span, track), tr, t);
}

static size_t launch_bound(const struct launch_at *l, size_t n, uint32_t tr, int64_t t)
{
	return track_time_bound(l, n, sizeof(*l), offsetof(struct launch_at, track), tr, t);
}

/*
 * Graph capture as one span per capture: from a stream's BeginCapture call
 * to the end of the next EndCapture call on the same thread (CUDA runtime
 * and driver, HIP), or AscendCL's aclmdlRICaptureBegin to ...End.  Kernels
 * launched meanwhile do not run, so the device idles for the whole of it.
 * The calls are capture spans themselves; s[0..n) are sorted by thread,
 * then time.  Appends the regions to d->spans: 1 when it added some, -1
 * when out of memory.
 */
static int capture_regions(struct idle *d, const struct idle_span *s, size_t n)
{
	const struct idle_name_stat *st = d->stats;
	size_t open = SIZE_MAX, added = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i].cls != IDLE_CAPTURE)
			continue;
		if (open != SIZE_MAX && s[open].track != s[i].track)
			open = SIZE_MAX;
		if (st[s[i].name].capture == CAPTURE_BEGIN) {
			open = i;
		} else if (open != SIZE_MAX && st[s[i].name].capture == CAPTURE_END) {
			struct idle_span r = {
				s[open].ts_ns, sat_sub(span_end(&s[i]), s[open].ts_ns),
				s[open].name, s[open].track, IDLE_CAPTURE, 0, 0, { 0 }
			};

			if (push_span(d, &r))	/* s may move: r is copied first */
				return -1;
			s = d->spans;
			open = SIZE_MAX;
			added++;
		}
	}
	return added > 0;
}

/*
 * Sort the spans by thread, then time (and the stream waits), and mark the
 * slow first calls (init, unless a class before init in the table claimed
 * the span).  Needs the calls' medians.
 */
static int prepare_spans(struct idle *d, uint32_t max_track)
{
	struct idle_span *s = d->spans;
	const struct idle_name_stat *st = d->stats;
	size_t ns;
	int added;

	if (sort_by_id_first_i64(d->waits, d->nr_waits, sizeof(*d->waits),
				 offsetof(struct launch_at, track), max_track))
		return -1;
	for (int pass = 0; pass < 2; pass++) {	/* again after capture regions were added */
		s = d->spans;
		ns = d->nr_spans;
		if (sort_by_id_first_i64(s, ns, sizeof(*s), offsetof(struct idle_span, track),
					 max_track))
			return -1;
		if (pass || (added = capture_regions(d, s, ns)) == 0)
			break;
		if (added < 0)
			return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		const struct idle_name_stat *t = &st[s[i].name];
		int later = s[i].cls == NO_CLASS || s[i].cls == IDLE_DATA_LOADING ||
			    s[i].cls == IDLE_COLLECTIVE_WAIT || s[i].cls == IDLE_MEMORY_MGMT ||
			    s[i].cls == IDLE_SYNC;

		if (s[i].cls == NO_CLASS && call_outlier(t, s[i].dur_ns)) {
			s[i].cls = IDLE_INIT;
			s[i].outlier = OUTLIER_MEDIAN;
			continue;
		}
		/* the slow first call: dur * (n - 1) >= FACTOR * (sum - dur), exactly */
		if (later && t->n >= 2 && s[i].ts_ns == t->first_ts &&
		    s[i].dur_ns == t->first_dur && s[i].dur_ns >= IDLE_SLOW_FIRST_NS &&
		    (__int128)s[i].dur_ns * (t->n - 1) >=
			    (__int128)IDLE_SLOW_FIRST_FACTOR * (t->sum_ns - s[i].dur_ns)) {
			s[i].cls = IDLE_INIT;
			s[i].outlier = OUTLIER_FIRST;
		}
	}
	return 0;
}

/*
 * After idle_prepare() and launches_link(): mark each span that a
 * launching call on its thread starts inside (those calls sorted the same
 * way, apart, so that the calls keep file order).  The calls are counted
 * out by thread straight into place, in two passes over them, where a
 * sort of them in file order would scatter them through a copy: this
 * runs beside the operators' finish, at the finish's peak.
 */
static int mark_launched(struct idle *d, uint32_t max_track)
{
	struct idle_span *s = d->spans;
	size_t nl, ns = d->nr_spans;
	size_t *end = hugepage_calloc((size_t)max_track + 2, sizeof(*end));
	struct launch_at *l;
	struct calls_cursor cur;
	struct call c;

	if (!end)
		return -1;
	calls_begin(&cur, d->calls);
	while (next_call(&cur, &c))
		if (d->calls->marks[cur.i - 1] & CALL_LAUNCHED)
			end[c.track + 1]++;
	for (size_t t = 1; t <= (size_t)max_track + 1; t++)
		end[t] += end[t - 1];
	nl = end[max_track + 1];
	if (!(l = hugepage_malloc((nl ? nl : 1) * sizeof(*l)))) {
		free(end);
		return -1;
	}
	calls_begin(&cur, d->calls);
	while (next_call(&cur, &c))	/* end[t] ends as the end of thread t's run */
		if (d->calls->marks[cur.i - 1] & CALL_LAUNCHED)
			l[end[c.track]++] = (struct launch_at){ c.ts_ns, c.track, 0 };
	if (sort_runs_by_first_i64(l, sizeof(*l), end, max_track)) {
		free(end);
		free(l);
		return -1;
	}
	free(end);
	/*
	 * The spans and the launches both by thread, then time: the first
	 * launch at or after each span's start only moves forward, a walk
	 * beside the spans rather than a search per span (a quarter of the
	 * preparation on a real-shaped gigabyte).
	 */
	for (size_t i = 0, lo = 0; i < ns; i++) {
		while (lo < nl && (l[lo].track < s[i].track ||
				   (l[lo].track == s[i].track && l[lo].ts_ns < s[i].ts_ns)))
			lo++;
		/* a launch on its thread starting inside [ts, end) */
		s[i].launched = lo < nl && l[lo].track == s[i].track &&
				l[lo].ts_ns < span_end(&s[i]);
	}
	d->launches = l;	/* the device-side waits look back to the last launch */
	d->nr_launches = nl;
	return 0;
}

/* Twice the median of v[0..n) (n > 0): the middle one twice, or the middle two summed. */
static int64_t twice_median(const int64_t *v, size_t n)
{
	int64_t lo, hi;

	sort_middle_i64(v, n, &lo, &hi);
	return sat_add(lo, hi);
}

/* Whether the calls named id need a median: only unclassed ones (a long sync keeps its kind). */
static int needs_median(const struct idle *d, uint32_t id)
{
	return d->stats[id].cls[0] == NO_CLASS + 1 && !d->stats[id].cls[1];
}

/*
 * Each unclassed runtime call name's median duration (twice it, so that
 * an even count's mean of the middle two stays exact): the durations
 * grouped by name (a counting sort, 8 bytes a call), then selected per
 * name.  This runs beside the launches' placement while every record is
 * held, so it keeps no more than the durations.
 */
static int call_medians(struct idle *d)
{
	size_t nr_names = d->stats_alloc, total = 0;
	size_t *start = calloc(nr_names + 1, sizeof(*start));
	int64_t *dur = NULL;
	struct calls_cursor cur;
	struct call c;
	int rc = -1;

	if (!start)
		goto out;
	for (size_t id = 0; id < nr_names; id++)
		start[id + 1] = start[id] +
				(needs_median(d, (uint32_t)id) ? d->stats[id].calls : 0);
	total = start[nr_names];
	if (!(dur = hugepage_malloc((total ? total : 1) * sizeof(*dur))))
		goto out;
	calls_begin(&cur, d->calls);
	while (next_call(&cur, &c))	/* start[id] ends as the end of id's group */
		if (needs_median(d, c.name))
			dur[start[c.name]++] = c.dur_ns;
	for (size_t id = 0, lo = 0; id < nr_names; lo = start[id++])
		if (start[id] > lo)
			d->stats[id].med2 = twice_median(dur + lo, start[id] - lo);
	rc = 0;
out:
	free(dur);
	free(start);
	return rc;
}

int idle_prepare(struct idle *d)
{
	if (!d->calls->nr_idle)	/* idle_finish() then needs no thread: nothing to prepare */
		return 0;
	return call_medians(d) || prepare_spans(d, d->max_track) ? -1 : 0;
}

/* The part of span s inside [a, w1). */
static int64_t overlap(const struct idle_span *s, int64_t a, int64_t w1)
{
	int64_t lo = imax(s->ts_ns, a), hi = imin(span_end(s), w1);

	return hi > lo ? hi - lo : 0;
}

/*
 * The spans of one thread beside its gaps, for attribute_all(), per group
 * (a class, or host work): no rule looks at each span open at a gap, as a
 * deep stack of them would make it gaps times depth.
 *
 * - What a group covers of a host window W = [a, w1) is read from the
 *   union of its spans, merged once, with running lengths.
 * - The span overlapping W most is one of three: of the spans starting
 *   at or before a ("in", added as the gaps advance), the one reaching
 *   furthest, or where some cover W the best of those (a tree per group
 *   over its spans by end keeps the best in); of the spans starting
 *   inside W, the best reaching past w1, or the longest inside it.  Those
 *   two are found per thread after its sweep, the queries by w1, the
 *   spans added to a tree over their starts by end: windows that overlap
 *   (a launch after its item) cost no more than others.
 */
#define NR_GROUPS (NR_CLASSES + 1)	/* the classes of class_order, then host work */
#define HOST_WORK NR_CLASSES
#define NO_GROUP 0xff
#define NONE UINT32_MAX

/* Which span of two a tree keeps (the thread's spans by start: by index, by start). */
enum pick {
	BY_FIRST,		/* the first */
	BY_SHORTEST,		/* the shortest, then the first */
	BY_LONGEST,		/* the longest, then the first */
	BY_FIRST_SHORTEST,	/* the first to start, then the shortest, then the first */
};

struct open_spans {
	const struct idle_span *s;	/* the thread's spans, by start */
	size_t n, in;			/* spans [0, in) start at or before the gap */
	unsigned char *group;		/* per span: its group, or NO_GROUP */
	uint32_t *pos;			/* per span: its place in its group's order by end */
	uint32_t *at;			/* per span: its place in its group's order by start */
	/* per group g, from off[g] (m[g] of them; the trees 2 m[g] from 2 off[g]) */
	uint32_t *by_start, *by_end;	/* its spans by start, by end */
	uint32_t *tree;			/* the best in (BY_FIRST; host work BY_SHORTEST),
					 * then attribute_late()'s */
	uint32_t *sync;			/* the sync class's spans in, BY_LONGEST (rule 3) */
	int64_t *lo, *hi;		/* the union of its spans, u[g] parts */
	uint64_t *run;			/* the parts' lengths before each (u[g] + 1: mod 2^64) */
	uint64_t *key;
	size_t off[NR_GROUPS], m[NR_GROUPS], u[NR_GROUPS];
	uint32_t far[NR_GROUPS];	/* the span in reaching furthest, as widest() ranks */
};

/* A gap whose host span attribute_late() finds: group's widest over W. */
struct late {
	struct gap *gap;
	int64_t a, w1;
	uint32_t best;			/* the best span in, or NONE */
	uint32_t first, last;		/* the group's spans by start inside W: [first, last) */
	unsigned group;
};

static unsigned group_of(const struct idle_span *x)
{
	for (unsigned k = 0; k < NR_CLASSES; k++)
		if (x->cls == class_order[k])
			return k;
	if (x->cls == NO_CLASS && !x->launched && x->dur_ns >= IDLE_HOST_WORK_NS)
		return HOST_WORK;
	return NO_GROUP;
}

static int is_sync(unsigned g)
{
	return g < NR_CLASSES && class_order[g] == IDLE_SYNC;
}

static uint32_t pick(const struct idle_span *s, enum pick how, uint32_t x, uint32_t y)
{
	if (x == NONE || y == NONE)
		return x == NONE ? y : x;
	if (how == BY_FIRST_SHORTEST && s[x].ts_ns != s[y].ts_ns)
		return s[x].ts_ns < s[y].ts_ns ? x : y;
	if (how != BY_FIRST && s[x].dur_ns != s[y].dur_ns)
		return (s[x].dur_ns < s[y].dur_ns) == (how != BY_LONGEST) ? x : y;
	return x < y ? x : y;
}

/* Leaf p of the tree t over m leaves becomes span v. */
static void tree_set(const struct idle_span *s, enum pick how, uint32_t *t, size_t m, size_t p,
		     uint32_t v)
{
	t[p += m] = v;
	for (p /= 2; p > 0; p /= 2)
		t[p] = pick(s, how, t[2 * p], t[2 * p + 1]);
}

/* The span kept of leaves [p, q). */
static uint32_t tree_best(const struct idle_span *s, enum pick how, const uint32_t *t, size_t m,
			  size_t p, size_t q)
{
	uint32_t best = NONE;

	for (size_t lo = p + m, hi = q + m; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1)
			best = pick(s, how, best, t[lo++]);
		if (hi & 1)
			best = pick(s, how, best, t[--hi]);
	}
	return best;
}

/* The first place in group g's order by end whose span ends at or after t. */
static size_t first_reaching(const struct open_spans *o, unsigned g, int64_t t)
{
	const uint32_t *v = o->by_end + o->off[g];
	size_t lo = 0, hi = o->m[g];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (span_end(&o->s[v[mid]]) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first place in group g's order by start whose span starts after t (at t: at). */
static size_t first_after(const struct open_spans *o, unsigned g, int64_t t, int at)
{
	const uint32_t *v = o->by_start + o->off[g];
	size_t lo = 0, hi = o->m[g];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t ts = o->s[v[mid]].ts_ns;

		if (ts < t || (ts == t && !at))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for threads of up to n spans.  -1 when out of memory. */
static int open_init(struct open_spans *o, size_t n)
{
	memset(o, 0, sizeof(*o));
	n = n ? n : 1;
	o->group = malloc(n);
	o->pos = hugepage_malloc(n * sizeof(*o->pos));
	o->at = hugepage_malloc(n * sizeof(*o->at));
	o->by_start = hugepage_malloc(n * sizeof(*o->by_start));
	o->by_end = hugepage_malloc(n * sizeof(*o->by_end));
	o->tree = hugepage_malloc(2 * n * sizeof(*o->tree));
	o->sync = hugepage_malloc(2 * n * sizeof(*o->sync));
	o->lo = hugepage_malloc(n * sizeof(*o->lo));
	o->hi = hugepage_malloc(n * sizeof(*o->hi));
	o->run = hugepage_malloc((n + NR_GROUPS) * sizeof(*o->run));
	o->key = hugepage_malloc(n * sizeof(*o->key));
	return o->group && o->pos && o->at && o->by_start && o->by_end && o->tree && o->sync &&
			       o->lo && o->hi && o->run && o->key
		       ? 0
		       : -1;
}

static void open_release(struct open_spans *o)
{
	free(o->group);
	free(o->pos);
	free(o->at);
	free(o->by_start);
	free(o->by_end);
	free(o->tree);
	free(o->sync);
	free(o->lo);
	free(o->hi);
	free(o->run);
	free(o->key);
}

/* Group g's spans (by start) merged into the parts of their union. */
static void open_union(struct open_spans *o, unsigned g)
{
	const uint32_t *v = o->by_start + o->off[g];
	int64_t *lo = o->lo + o->off[g], *hi = o->hi + o->off[g];
	uint64_t *run = o->run + o->off[g] + g;
	size_t u = 0;

	for (size_t k = 0; k < o->m[g]; k++) {
		const struct idle_span *x = &o->s[v[k]];

		if (span_end(x) <= x->ts_ns)
			continue;	/* covers nothing */
		if (u && x->ts_ns <= hi[u - 1]) {
			hi[u - 1] = imax(hi[u - 1], span_end(x));
			continue;
		}
		lo[u] = x->ts_ns;
		hi[u++] = span_end(x);
	}
	run[0] = 0;
	for (size_t k = 0; k < u; k++)
		run[k + 1] = run[k] + (uint64_t)hi[k] - (uint64_t)lo[k];
	o->u[g] = u;
}

/* Start on a thread's n spans s, none in.  -1 when out of memory. */
static int open_thread(struct open_spans *o, const struct idle_span *s, size_t n)
{
	size_t at[NR_GROUPS] = { 0 };

	o->s = s;
	o->n = n;
	o->in = 0;
	memset(o->m, 0, sizeof(o->m));
	for (size_t i = 0; i < n; i++) {
		o->group[i] = (unsigned char)group_of(&s[i]);
		if (o->group[i] != NO_GROUP)
			o->m[o->group[i]]++;
	}
	for (unsigned g = 0; g < NR_GROUPS; g++) {
		o->off[g] = g ? o->off[g - 1] + o->m[g - 1] : 0;
		o->far[g] = NONE;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned g = o->group[i];

		if (g == NO_GROUP)
			continue;
		o->at[i] = (uint32_t)at[g];
		o->by_start[o->off[g] + at[g]] = o->by_end[o->off[g] + at[g]] = (uint32_t)i;
		at[g]++;
		o->key[i] = sort_key_i64(span_end(&s[i]));
	}
	for (unsigned g = 0; g < NR_GROUPS; g++) {
		uint32_t *v = o->by_end + o->off[g];

		if (sort_perm_u64(o->key, v, o->m[g]))
			return -1;
		for (size_t p = 0; p < o->m[g]; p++)
			o->pos[v[p]] = (uint32_t)p;
		open_union(o, g);
	}
	for (size_t i = 0; i < 2 * n; i++)
		o->tree[i] = o->sync[i] = NONE;
	return 0;
}

/* The next span by start is in. */
static void open_add(struct open_spans *o)
{
	const struct idle_span *s = o->s;
	uint32_t i = (uint32_t)o->in++, f;
	unsigned g = o->group[i];

	if (g == NO_GROUP)
		return;
	/* host work: the shortest of those reaching as far (the latest start) */
	f = o->far[g];
	if (f == NONE || span_end(&s[i]) > span_end(&s[f]) ||
	    (g == HOST_WORK && span_end(&s[i]) == span_end(&s[f]) && s[i].ts_ns > s[f].ts_ns))
		o->far[g] = i;
	tree_set(s, g == HOST_WORK ? BY_SHORTEST : BY_FIRST, o->tree + 2 * o->off[g], o->m[g],
		 o->pos[i], i);
	if (is_sync(g))
		tree_set(s, BY_LONGEST, o->sync, o->m[g], o->pos[i], i);
}

/* The length of the union of group g's spans clipped to W = [a, w1). */
static int64_t covered(const struct open_spans *o, unsigned g, int64_t a, int64_t w1)
{
	const int64_t *lo = o->lo + o->off[g], *hi = o->hi + o->off[g];
	const uint64_t *run = o->run + o->off[g] + g;
	size_t u = o->u[g], p, q, l, r, k;

	/* parts [p, q): the first ending after a, to the last starting before w1 */
	for (l = 0, r = u; l < r;)
		if (hi[k = l + (r - l) / 2] <= a)
			l = k + 1;
		else
			r = k;
	for (p = l, r = u; l < r;)
		if (lo[k = l + (r - l) / 2] < w1)
			l = k + 1;
		else
			r = k;
	q = l;
	if (p >= q)
		return 0;
	/* modulo 2^64: the parts and their ends may pass it, never what lies in W */
	return (int64_t)(run[q] - run[p] - (lo[p] < a ? (uint64_t)a - (uint64_t)lo[p] : 0) -
			 (hi[q - 1] > w1 ? (uint64_t)hi[q - 1] - (uint64_t)w1 : 0));
}

/*
 * Span x overlaps W = [a, w1) more than span y, or as much and is first as
 * the rules rank them: the earliest (rule 1), the shortest then the
 * earliest (rule 2, host work), then the first in the file.
 */
static int wider(const struct idle_span *s, uint32_t x, uint32_t y, unsigned g, int64_t a,
		 int64_t w1)
{
	int64_t ox, oy;

	if (x == NONE || y == NONE)
		return y == NONE && x != NONE;
	ox = overlap(&s[x], a, w1);
	oy = overlap(&s[y], a, w1);
	if (ox != oy)
		return ox > oy;
	if (g == HOST_WORK && s[x].dur_ns != s[y].dur_ns)
		return s[x].dur_ns < s[y].dur_ns;
	if (s[x].ts_ns != s[y].ts_ns)
		return s[x].ts_ns < s[y].ts_ns;
	return x < y;
}

/*
 * Gap x's host span: the span of group g overlapping W = [a, w1) most.
 * Spans in that cover W overlap it most: the tree has the best, and the
 * gap is done.  Else the one in reaching furthest is weighed by
 * attribute_late() against those starting inside W: *late filled, 1.
 */
/* Name gap x after host span h, keeping what an outlier's ratio needs. */
static void name_span(struct gap *x, const struct idle_span *h)
{
	x->host = h->name;
	x->host_dur = h->dur_ns;
	x->host_outlier = h->outlier;
}

static int widest(const struct open_spans *o, unsigned g, struct gap *x, int64_t a, int64_t w1,
		  struct late *late)
{
	const struct idle_span *s = o->s;
	enum pick how = g == HOST_WORK ? BY_SHORTEST : BY_FIRST;
	uint32_t best = o->far[g];

	if (best != NONE && span_end(&s[best]) >= w1) {
		best = tree_best(s, how, o->tree + 2 * o->off[g], o->m[g],
				 first_reaching(o, g, w1), o->m[g]);
		name_span(x, &s[best]);
		return 0;
	}
	if (best != NONE && span_end(&s[best]) <= a)
		best = NONE;
	*late = (struct late){ x, a, w1, best, (uint32_t)first_after(o, g, a, 0),
			       (uint32_t)first_after(o, g, w1, 1), g };
	return 1;
}

/* The longest sync span in that reaches a (ties: the earliest); NONE when none does. */
static uint32_t sync_at(const struct open_spans *o, int64_t a)
{
	unsigned g = 0;

	while (!is_sync(g))
		g++;
	return tree_best(o->s, BY_LONGEST, o->sync, o->m[g], first_reaching(o, g, a), o->m[g]);
}

/*
 * Rule 0: the gap's next item was launched (by correlation) at least
 * IDLE_DEVICE_WAIT_NS and half the gap before the device started it.  The
 * host had handed the work over; whatever it did next, the device held the
 * item back.  1 when it applies, g named after what the device waited on:
 * a graph launch, else the thread's last event wait with no launch between
 * it and this one, else nothing.
 */
static int device_wait(const struct idle *d, struct gap *g)
{
	/* the launching call's end: the device had the item from then on */
	int64_t held = sat_sub(g->b, sat_add(g->l, g->l_dur)), len = g->b - g->a;
	size_t w, p;

	if (!g->by_corr || !g->has_next || held < IDLE_DEVICE_WAIT_NS || held < len - len / 2)
		return 0;
	g->cause = IDLE_DEVICE_WAIT;
	if (d->stats[g->host].queue == QUEUE_GRAPH)
		return 1;
	g->host = 0;
	w = launch_bound(d->waits, d->nr_waits, g->track, sat_add(g->l, 1));
	p = launch_bound(d->launches, d->nr_launches, g->track, g->l);
	if (w && d->waits[w - 1].track == g->track &&
	    !(p && d->launches[p - 1].track == g->track &&
	      d->launches[p - 1].ts_ns > d->waits[w - 1].ts_ns))
		g->host = d->waits[w - 1].name;
	return 1;
}

/*
 * doc/idle.md's rules for gap g, given its thread's spans o, those up to
 * g->a in.  1 when the rule's host span is for attribute_late() (*late).
 */
static int attribute(const struct idle *d, struct gap *g, const struct open_spans *o,
		     struct late *late)
{
	/* a launching call that is itself an outlier holds the gap: W reaches its end */
	int64_t a = g->a, w1 = imax(a, imax(g->l, imin(g->b, launch_end(g)))), wl = w1 - a;
	uint32_t best;

	if (device_wait(d, g))
		return 0;
	if (wl > 0) {
		int64_t cov = 0, hw;
		unsigned cls = NO_GROUP;

		/* 1: a class covers most of W */
		for (unsigned k = 0; k < NR_CLASSES; k++) {
			int64_t c = covered(o, k, a, w1);

			if (c > cov) {
				cov = c;
				cls = k;
			}
		}
		if (cls != NO_GROUP && 2 * cov >= wl) {
			g->cause = (unsigned char)class_order[cls];
			return widest(o, cls, g, a, w1, late);
		}
		/* 2: host work covers most of W, named after the span covering most of it */
		hw = covered(o, HOST_WORK, a, w1);
		if (hw > 0 && 2 * hw >= wl) {
			g->cause = IDLE_HOST_COMPUTE;
			return widest(o, HOST_WORK, g, a, w1, late);
		}
	}
	/* 3: a sync drained the queue */
	if ((best = sync_at(o, a)) != NONE) {
		g->cause = IDLE_SYNC;
		g->host = o->s[best].name;
		return 0;
	}
	/*
	 * 4: a short gap; 5: host time outside any traced span (the launch's
	 * name stays for 4); 6: the trace's last gap has no launch
	 */
	if (g->has_next && g->b - g->a <= IDLE_LAUNCH_GAP_NS) {
		g->cause = IDLE_LAUNCH;
		return 0;
	}
	g->cause = g->has_next ? IDLE_HOST_COMPUTE : IDLE_OTHER;
	g->host = 0;
	return 0;
}

/*
 * The host spans of the gaps in l[0..n) (a thread's, after its sweep): of
 * group g's spans starting inside W, the best reaching past w1 (the
 * windows by w1 descending, the spans added by end descending) and the
 * longest ending inside W (both ascending), each from a tree over the
 * spans by start.  -1 when out of memory.
 */
static int attribute_late(struct open_spans *o, struct late *l, size_t n, uint32_t *perm,
			  uint64_t *key)
{
	const struct idle_span *s = o->s;

	for (unsigned g = 0; g < NR_GROUPS; g++) {
		const uint32_t *e = o->by_end + o->off[g];
		uint32_t *t = o->tree + 2 * o->off[g];
		size_t m = o->m[g], nq = 0, p;

		for (size_t k = 0; k < n; k++)
			if (l[k].group == g) {
				perm[nq++] = (uint32_t)k;
				key[k] = sort_key_i64(l[k].w1);
			}
		if (!nq)
			continue;
		if (sort_perm_u64(key, perm, nq))
			return -1;
		for (size_t i = 0; i < 2 * m; i++)
			t[i] = NONE;
		p = 0;
		for (size_t k = 0; k < nq; k++) {	/* ending inside W: the longest */
			struct late *q = &l[perm[k]];
			uint32_t c;

			for (; p < m && span_end(&s[e[p]]) < q->w1; p++)
				tree_set(s, BY_LONGEST, t, m, o->at[e[p]], e[p]);
			c = tree_best(s, BY_LONGEST, t, m, q->first, q->last);
			if (c != NONE && overlap(&s[c], q->a, q->w1) > 0 &&
			    wider(s, c, q->best, g, q->a, q->w1))
				q->best = c;
		}
		for (size_t i = 0; i < 2 * m; i++)
			t[i] = NONE;
		p = m;
		for (size_t k = nq; k-- > 0;) {	/* reaching past w1: the first to start */
			enum pick how = g == HOST_WORK ? BY_FIRST_SHORTEST : BY_FIRST;
			struct late *q = &l[perm[k]];
			uint32_t c;

			for (; p > 0 && span_end(&s[e[p - 1]]) >= q->w1; p--)
				tree_set(s, how, t, m, o->at[e[p - 1]], e[p - 1]);
			c = tree_best(s, how, t, m, q->first, q->last);
			if (c != NONE && wider(s, c, q->best, g, q->a, q->w1))
				q->best = c;
		}
	}
	for (size_t k = 0; k < n; k++)
		if (l[k].best == NONE)
			l[k].gap->host = 0;
		else
			name_span(l[k].gap, &s[l[k].best]);
	return 0;
}

/*
 * The gaps g[perm[0..n)] of one thread, in time order, beside that
 * thread's spans (struct open_spans): the spans starting at or before a
 * gap come in as the gaps advance, and the gaps whose host span may start
 * inside their window are named after the thread's sweep.  Writes only
 * those gaps.  -1 when out of memory.
 */
static int attribute_thread(const struct idle *d, struct gap *g, const uint32_t *perm, size_t n)
{
	const struct idle_span *s = d->spans;
	uint32_t track = g[perm[0]].track, *ids = NULL;
	size_t ns = d->nr_spans, sp = span_bound(s, ns, track, INT64_MIN), end = sp, nl = 0;
	size_t late_alloc = 0;
	uint64_t *keys = NULL;	/* ids and keys: attribute_late()'s room */
	struct late *late = NULL;
	struct open_spans o;
	int rc = -1;

	while (end < ns && s[end].track == track)
		end++;
	/* no spans at all: s is NULL, and NULL + 0 is no pointer in C */
	if (open_init(&o, end - sp) || open_thread(&o, ns ? s + sp : s, end - sp))
		goto out;
	for (size_t k = 0; k < n; k++) {
		struct gap *x = &g[perm[k]];

		while (o.in < o.n && o.s[o.in].ts_ns <= x->a)
			open_add(&o);
		if (ALLOC_GROW(late, nl + 1, late_alloc))
			goto out;
		nl += attribute(d, x, &o, &late[nl]);
	}
	if (nl && (!(ids = malloc(nl * sizeof(*ids))) || !(keys = malloc(nl * sizeof(*keys))) ||
		   attribute_late(&o, late, nl, ids, keys)))
		goto out;
	rc = 0;
out:
	free(ids);
	free(keys);
	free(late);
	open_release(&o);
	return rc;
}

/* A thread with this many gaps is attributed as a task of its own, beside the others. */
#define IDLE_TASK_GAPS 4096

/*
 * The gaps with a known thread, per thread (attribute_thread()); the
 * others are "other".  A thread's gaps touch only its own spans and gaps,
 * so the threads with many are attributed side by side: a training step
 * has a forward and a backward thread, each with about half the gaps.
 * -1 when out of memory.
 */
static int attribute_all(struct idle *d, struct gap *g, size_t ng, uint32_t max_track)
{
	size_t *start = calloc((size_t)max_track + 2, sizeof(*start));
	uint32_t *perm = hugepage_malloc((ng ? ng : 1) * sizeof(*perm));
	int rc = 0;

	if (!perm || !start) {
		free(perm);
		free(start);
		return -1;
	}
	/*
	 * The gaps by thread (0: not known), counted out into perm: they are in
	 * time order, so each thread's stay so, without a key or a sort.
	 */
	for (size_t i = 0; i < ng; i++)
		start[(g[i].found ? g[i].track : 0) + 1]++;
	for (size_t t = 1; t <= (size_t)max_track + 1; t++)
		start[t] += start[t - 1];
	for (size_t i = 0; i < ng; i++)
		perm[start[g[i].found ? g[i].track : 0]++] = (uint32_t)i;
	/* start[t] is now the end of thread t's gaps */
	for (size_t i = 0; i < start[0]; i++)
		g[perm[i]].cause = IDLE_OTHER;
	for (size_t t = 1; t <= max_track; t++) {
		size_t lo = start[t - 1], n = start[t] - lo;

		if (n >= IDLE_TASK_GAPS) {
#pragma omp task default(none) firstprivate(d, g, perm, lo, n) shared(rc)
			if (attribute_thread(d, g, perm + lo, n)) {
#pragma omp atomic write
				rc = -1;
			}
		} else if (n && attribute_thread(d, g, perm + lo, n)) {
#pragma omp atomic write
			rc = -1;
		}
	}
#pragma omp taskwait
	free(start);
	free(perm);
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
		return INT64_MIN;
	/* the first step starting after t: the one before may hold it */
	k = first_i64_lower_bound(st->starts_ns, sizeof(int64_t), 0, st->nr_durations, t + 1);
	if (k && t < sat_add(st->starts_ns[k - 1], st->durations_ns[k - 1]))
		return (int64_t)(k - 1);
	return INT64_MIN;
}

/* gap i is longer than gap j, or as long and earlier. */
static int longer(const struct gap *i, const struct gap *j)
{
	return i->b - i->a > j->b - j->a || (i->b - i->a == j->b - j->a && i->a < j->a);
}

/* The gaps added up as they come, in time order, into rk->idle. */
struct tally {
	const struct interval *w;	/* the window, merged, in order */
	size_t nw, wi;			/* wi: the first window part not yet behind */
	int64_t first_step;		/* INT64_MIN without steps */
	int64_t total;			/* every gap's length */
	struct gap top[IDLE_TOP_MAX];	/* the longest, longest first */
	size_t ntop;
};

static void tally_init(struct tally *t, const struct interval *w, size_t nw, int64_t first_step,
		       struct report_rank *rk)
{
	struct report_idle_part *in = &rk->idle.in, *out = &rk->idle.outside;

	memset(t, 0, sizeof(*t));
	t->w = w;
	t->nw = nw;
	t->first_step = first_step;
	in->window_ns = in->idle_ns = in->gaps = out->idle_ns = out->gaps = 0;
	rk->idle.gaps_by_time = 0;
	for (int k = 0; k < IDLE_NR_CAUSES; k++)
		in->by_cause[k] = out->by_cause[k] = 0;
	for (size_t i = 0; i < nw; i++)
		in->window_ns += w[i].hi - w[i].lo;
}

/* Add gap x (after every gap before it), split at the window's edges. */
static void tally_gap(struct tally *t, struct gap x, struct report_idle *id)
{
	const struct interval *w = t->w;
	/* before the first step: start-up, whatever the rules said */
	int64_t lo = imin(imax(x.a, t->first_step), x.b), pre = lo - x.a, part = 0, rest;

	id->outside.by_cause[IDLE_INIT] += pre;
	while (t->wi < t->nw && w[t->wi].hi <= lo)
		t->wi++;
	for (size_t j = t->wi; j < t->nw && w[j].lo < x.b; j++)
		part += imax(0, imin(w[j].hi, x.b) - imax(w[j].lo, lo));
	rest = (x.b - lo) - part;
	x.in_window = part > 0;
	if (part > 0) {
		size_t h = 0;

		while (h + 1 < IDLE_HIST_BUCKETS && part > idle_hist_max_ns(h))
			h++;
		id->hist[h].gaps++;
		id->hist[h].idle_ns += part;
		id->in.by_cause[x.cause] += part;
		id->in.idle_ns += part;
		id->in.gaps++;
		id->gaps_by_time += x.by_time;
	}
	if (rest > 0)
		id->outside.by_cause[x.cause] += rest;
	id->outside.gaps += pre + rest > 0;
	t->total += x.b - x.a;
	if (t->ntop < IDLE_TOP_MAX || longer(&x, &t->top[t->ntop - 1])) {
		size_t k = t->ntop < IDLE_TOP_MAX ? t->ntop++ : t->ntop - 1;

		for (; k > 0 && longer(&x, &t->top[k - 1]); k--)
			t->top[k] = t->top[k - 1];
		t->top[k] = x;
	}
}

/*
 * A gap's host activity as idle.top names it: an outlier that made it init
 * with its ratio (floored) to its name's median call, or to the mean of its
 * name's later calls for a slow first call.
 */
static char *host_name(const struct idle *d, const struct gap *x, struct arena *a)
{
	const struct idle_name_stat *t = &d->stats[x->host];
	const char *s = names_str(d->names, x->host);
	size_t n = names_len(d->names, x->host), k = 0;
	int64_t rest = t->sum_ns - x->host_dur;
	char suffix[96], *out;

	if (x->host_outlier == OUTLIER_MEDIAN && t->med2 > 0)
		k = (size_t)snprintf(suffix, sizeof(suffix), " (%lldx its median)",
				     (long long)((__int128)2 * x->host_dur / t->med2));
	else if (x->host_outlier == OUTLIER_FIRST && rest > 0)
		k = (size_t)snprintf(suffix, sizeof(suffix),
				     " (first call, %lldx the mean of the later ones)",
				     (long long)((__int128)x->host_dur * (t->n - 1) / rest));
	if (!k)
		return arena_strndup(a, s, n);
	if (!(out = arena_alloc(a, n + k + 1)))
		return NULL;
	memcpy(out, s, n);
	memcpy(out + n, suffix, k + 1);
	return out;
}

/* The totals, and the longest gaps with their names in a. */
static int tally_finish(struct tally *t, const struct idle *d, struct arena *a,
			struct report_rank *rk)
{
	struct report_idle *id = &rk->idle;
	int with_steps = t->first_step != INT64_MIN;

	id->in.busy_ns = id->in.window_ns - id->in.idle_ns;
	id->outside.window_ns = rk->span_ns - id->in.window_ns;
	id->outside.idle_ns = t->total - id->in.idle_ns;
	id->outside.busy_ns = id->outside.window_ns - id->outside.idle_ns;
	id->top = arena_alloc(a, (t->ntop ? t->ntop : 1) * sizeof(*id->top));
	if (!id->top)
		return -1;
	for (size_t k = 0; k < t->ntop; k++) {
		const struct gap *x = &t->top[k];
		struct report_idle_gap *y = &id->top[k];

		y->start_ns = x->a - rk->start_ns;
		y->dur_ns = x->b - x->a;
		y->cause = with_steps && x->b <= t->first_step ? IDLE_INIT
							       : (enum idle_cause)x->cause;
		y->in_window = x->in_window;
		y->step = with_steps ? step_at(&rk->steps, x->a) : INT64_MIN;
		y->host = x->host ? host_name(d, x, a) : NULL;
		if (x->host && !y->host)
			return -1;
	}
	id->nr_top = t->ntop;
	return 0;
}

/* No gap to attribute: without device work, busy runs or a span (idle_finish() says why). */
static int nothing_to_attribute(const struct interval_list *busy, const struct report_rank *rk)
{
	return rk->gpu.no_device || !busy->n || rk->span_ns <= 0;
}

int idle_gaps(struct idle *d, const struct launches *l, const struct interval_list *busy,
	      const struct report_rank *rk)
{
	int64_t t0 = rk->start_ns, t1 = sat_add(rk->start_ns, rk->span_ns);

	if (!d->calls->nr_idle || nothing_to_attribute(busy, rk))
		return 0;	/* idle_finish() adds the gaps up as "other" as they come */
	d->busy = busy;
	d->t0 = t0;
	d->t1 = t1;
	return next_items(d, l);
}

int idle_attribute(struct idle *d, const struct launches *l)
{
	size_t found = 0;

	if (!d->busy)
		return 0;	/* idle_gaps() found nothing to attribute */
	if (!(d->gaps = gaps_of(d, 0, &d->nr_gaps)) ||
	    mark_launched(d, d->max_track))
		return -1;
	if (launches_by_corr(d, l, d->gaps, d->nr_gaps, &found) ||
	    launches_by_time(d, d->gaps, d->nr_gaps, d->nr_gaps - found))
		return -1;
	/* the gaps have their launches: the rules read the spans, not the calls */
	calls_release(d->calls);
	if (attribute_all(d, d->gaps, d->nr_gaps, d->max_track))
		return -1;
	release_attributed(d);
	return 0;
}

int idle_finish(struct idle *d, const struct interval_list *busy, struct arena *a,
		struct report_rank *rk)
{
	int64_t t0 = rk->start_ns, t1 = sat_add(rk->start_ns, rk->span_ns);
	struct interval *w = NULL;
	struct tally *t = NULL;
	size_t nw;
	int rc = -1;

	report_idle_null(&rk->idle);
	rk->gpu.step_utilization = NAN;
	if (nothing_to_attribute(busy, rk)) {
		rc = 0;
		goto out;
	}
	w = malloc((rk->steps.nr_durations + 1) * sizeof(*w));
	t = malloc(sizeof(*t));
	if (!w || !t)
		goto out;
	nw = steady_window(rk, w);
	rk->idle.window = nw ? "steps" : "trace";
	if (!nw) {
		w[0] = (struct interval){ t0, t1 };
		nw = 1;
	}
	tally_init(t, w, nw, rk->idle.window[0] == 's' ? rk->steps.starts_ns[0] : INT64_MIN, rk);
	if (d->gaps) {
		for (size_t i = 0; i < d->nr_gaps; i++)
			tally_gap(t, d->gaps[i], &rk->idle);
	} else {
		/* no runtime call to tell a thread: every gap is "other", added as it comes */
		struct interval_cursor cur;
		struct gap x;
		int64_t prev = t0;
		int done = 0;

		interval_cursor_init(&cur, busy);
		while (next_gap(&cur, t1, &done, &prev, &x))
			tally_gap(t, x, &rk->idle);
	}
	if (tally_finish(t, d, a, rk))
		goto out;
	if (rk->idle.window[0] == 's' && rk->idle.in.window_ns > 0)
		rk->gpu.step_utilization =
			(double)rk->idle.in.busy_ns / (double)rk->idle.in.window_ns;
	rc = 0;
out:
	free(w);
	free(t);
	idle_release(d);
	idle_init(d, d->names, d->calls);
	return rc;
}
