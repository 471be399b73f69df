/*
 * phases: see phases.h.
 *
 * Spans are kept as 32-byte records while the file is read.  At the end
 * they are sorted per thread by start (longest first) and nested with a
 * stack by containment, which gives each span its path; rows group spans by
 * path across threads.  A kernel counts towards a phase when the runtime
 * call that launched it (same args.correlation) started on the phase's
 * thread inside one of its spans; launch.h places them, once for phases
 * and cpuops.
 */
#include "phases.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "generations.h"
#include "gpu.h"
#include "grow.h"
#include "interval.h"
#include "launch.h"
#include "sat.h"
#include "sort.h"
#include "track.h"

static const char *const default_steps[] = { "denoise_step_*", "*step_[0-9]*" };
static const char profiler_step[] = "ProfilerStep#*";

struct span_rec {
	int64_t ts_ns, dur_ns;
	uint32_t name;		/* raw event name id (p->names) */
	uint32_t track;
	uint64_t seq;
	uint32_t by_name;	/* a phase only by annot.h, if the trace has no cat */
	uint32_t pad;
};

void phase_opts_init(struct phase_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->frames = -1;
}

void phases_init(struct phases *p, const struct phase_opts *o, struct names *names)
{
	p->opts = o;
	p->names = names;
	p->spans = NULL;
	p->nr_spans = p->spans_alloc = 0;
	p->seq = 0;
	p->nr_too_deep = 0;
	p->frame_counts = p->block_counts = p->block_frame_counts = (struct phase_counts){ 0 };
	p->has_frames = p->has_blocks = p->has_block_frames = 0;
	p->has_cat = 0;
}

void phases_release(struct phases *p)
{
	free(p->spans);
	free(p->frame_counts.v);
	free(p->block_counts.v);
	free(p->block_frame_counts.v);
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* fnmatch as Python's fnmatchcase: no backslash escapes, '*' crosses '/'. */
static int glob(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, FNM_NOESCAPE) == 0;
}

static int is_step(const struct phase_opts *o, const char *s)
{
	size_t n = o->nr_step_globs ? o->nr_step_globs : 2;

	for (size_t i = 0; i < n; i++)
		if (glob(o->nr_step_globs ? o->step_globs[i] : default_steps[i], s))
			return 1;
	return 0;
}

static int is_block(const struct phase_opts *o, const char *s)
{
	return glob(o->block_glob ? o->block_glob : "block_*", s);
}

/* Whether s[0..n) is "ProfilerStep#" and digits. */
static int is_profiler_step(const char *s, size_t n)
{
	size_t k = sizeof("ProfilerStep#") - 1;

	if (n <= k || memcmp(s, "ProfilerStep#", k) != 0)
		return 0;
	for (; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return 0;
	return 1;
}

/* Whether a span without cat is a phase: a NUL-terminated raw name. */
static int has_rule(const struct phase_opts *o, const char *s)
{
	if (starts_with(s, "fastvideo.region::") || starts_with(s, "profiler_region_") ||
	    glob(profiler_step, s) || is_step(o, s) || is_block(o, s))
		return 1;
	for (size_t i = 0; i < o->nr_rules; i++)
		if (glob(o->rules[i].glob, s))
			return 1;
	return 0;
}

/* The phase name of a raw span name, into out. */
static void phase_name(const struct phase_opts *o, const char *raw, struct buf *out)
{
	size_t n, d;

	buf_reset(out);
	for (size_t i = 0; i < o->nr_rules; i++) {
		if (glob(o->rules[i].glob, raw)) {
			buf_adds(out, o->rules[i].name);
			return;
		}
	}
	if (starts_with(raw, "fastvideo.region::"))
		raw += strlen("fastvideo.region::");
	if (starts_with(raw, "profiler_region_"))
		raw += strlen("profiler_region_");
	n = strlen(raw);
	for (d = n; d > 0 && raw[d - 1] >= '0' && raw[d - 1] <= '9'; d--)
		;
	if (d < n && d > 0 && (raw[d - 1] == '_' || raw[d - 1] == '#')) {
		buf_add(out, raw, d);
		buf_addc(out, '*');
	} else {
		buf_adds(out, raw);
	}
}

/* The collector's counters of frames and blocks, as vtrace-export writes them (lib/read/vtr.c). */
struct counter_ids {
	uint32_t cat, frames, block_frames, blocks;
};

static void counter_ids_of(struct counter_ids *c, const struct strtab *st)
{
	c->cat = strtab_find(st, "vtrace", 6);
	c->frames = strtab_find(st, "vtrace.frames", 13);
	c->block_frames = strtab_find(st, "vtrace.block_frames", 19);
	c->blocks = strtab_find(st, "vtrace.blocks", 13);
}

/* EV_FRAMES or EV_BLOCKS for an exported counter of them, else 0. */
static unsigned exported_count(const struct counter_ids *c, const struct trace_event *ev)
{
	if (!c->cat || ev->cat != c->cat || !ev->name)
		return 0;
	if (ev->name == c->frames || ev->name == c->block_frames)
		return EV_FRAMES;
	return ev->name == c->blocks ? EV_BLOCKS : 0;
}

int phases_collect(struct phases *p, const struct event_batch *b, int has_cat,
		   struct strtab *tracks, const unsigned char *cls)
{
	const struct strtab *st = &b->strs;
	struct counter_ids counters;
	uint32_t device_pid = strtab_find(st, ANNOT_DEVICE_PID, strlen(ANNOT_DEVICE_PID));
	uint32_t nstr = strtab_count(st) + 1;
	unsigned char *rule = calloc(nstr, 1);	/* 0 unknown, 1 no, 2 yes, 3 by name */
	unsigned char *pstep = calloc(nstr, 1);	/* ProfilerStep#N: 0 unknown, 1 no, 2 yes */
	struct track_cache cache = { 0 };
	struct buf name;
	int rc = -1;

	buf_init(&name);
	counter_ids_of(&counters, st);
	if (!rule || !pstep)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned produced = ev->flags & (EV_FRAMES | EV_BLOCKS);
		int span = 0, by_name = 0;

		if (!produced && ev->phase == 'C' && (ev->flags & EV_VALUE))
			produced = exported_count(&counters, ev);
		if (produced) {
			/* a region's block_size: its block is told by the region's track and end */
			int by_block = (produced & EV_FRAMES) && counters.block_frames &&
				       ev->name == counters.block_frames;
			struct phase_counts *to = by_block ? &p->block_frame_counts :
						  produced & EV_FRAMES ? &p->frame_counts :
									 &p->block_counts;
			uint32_t track = by_block ? track_id(tracks, &cache, b, ev) : 0;

			if (track == STRTAB_OOM || ALLOC_GROW(to->v, to->n + 1, to->alloc))
				goto out;
			to->v[to->n++] =
				(struct gen_count){ ev->flags & EV_TS ? ev->ts_ns : INT64_MIN,
						    ev->value, track, 0 };
			p->has_block_frames |= by_block;
			p->has_frames |= (produced & EV_FRAMES) && !by_block;
			p->has_blocks |= (produced & EV_BLOCKS) != 0;
		}
		if (!(ev->flags & EV_TS))
			continue;
		if (ev->phase == 'X' && ev->name && cls[i] == EVC_ANNOT) {
			span = 1;
		} else if (ev->phase == 'X' && ev->name && !ev->cat) {
			if (!rule[ev->name]) {
				buf_reset(&name);
				buf_add(&name, strtab_str(st, ev->name), strtab_len(st, ev->name));
				if (!buf_ok(&name))
					goto out;
				rule[ev->name] = !name.data ? 1 : has_rule(p->opts, name.data) ? 2 :
						 annot_is_user(name.data, name.len) ? 3 : 1;
			}
			/* by name only while no event had a cat, never device work */
			by_name = rule[ev->name] == 3;
			span = rule[ev->name] == 2 ||
			       (by_name && !has_cat && !(device_pid && ev->pid == device_pid));
		} else if (ev->phase == 'X' && ev->name && cls[i] != EVC_GPU_ANNOT) {
			/*
			 * ProfilerStep#N whatever its cat: cpu_op (torch_npu), Operator
			 * (2021); not gpu_user_annotation, the GPU's copy of the span.
			 */
			if (!pstep[ev->name])
				pstep[ev->name] =
					is_profiler_step(strtab_str(st, ev->name),
							 strtab_len(st, ev->name)) ? 2 : 1;
			span = pstep[ev->name] == 2;
		}
		if (span) {
			struct span_rec s = { ev->ts_ns, ev->dur_ns,
					      names_id(p->names, ev->name),
					      track_id(tracks, &cache, b, ev), p->seq++,
					      by_name, 0 };

			if (s.name == STRTAB_OOM || s.track == STRTAB_OOM ||
			    ALLOC_GROW(p->spans, p->nr_spans + 1, p->spans_alloc))
				goto out;
			p->spans[p->nr_spans++] = s;
		}
	}
	p->has_cat = has_cat;
	rc = 0;
out:
	buf_release(&name);
	free(rule);
	free(pstep);
	return rc;
}

static int cmp_nesting(const void *a, const void *b)
{
	const struct span_rec *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What finish() knows of each distinct path. */
struct path_info {
	uint32_t pname;		/* phase name, in the names table of finish() */
	uint32_t parent;	/* parent path id, 0 for a root */
	int depth;
	int64_t first_ts;
};

struct finish {
	struct phases *p;
	struct span_rec *s;
	size_t n;
	uint32_t *path_of;	/* per span */
	unsigned char *core;	/* per span: a root that holds denoising */
	struct strtab pnames, paths;	/* copies */
	struct path_info *info;	/* by path id, 1..nr_paths */
	uint32_t nr_paths;
	uint32_t *pname_of_raw;	/* raw name id -> phase name id */
	unsigned char *step_raw, *block_raw;
	const struct placement *placed;
	int64_t min_ts;		/* the rank's first timestamp, origin of spans_ns */
};

/*
 * Each span name's phase name, step and block marks.  The phase names are
 * interned in the order of their names' first spans, before any span is
 * dropped (drop_by_name()), as every report has had them.
 */
static int name_tables(struct finish *f)
{
	uint32_t nraw = names_count(f->p->names);
	struct buf b;
	int rc = -1;

	f->pname_of_raw = calloc(nraw + 1, sizeof(*f->pname_of_raw));
	f->step_raw = calloc(nraw + 1, 1);
	f->block_raw = calloc(nraw + 1, 1);
	if (!f->pname_of_raw || !f->step_raw || !f->block_raw)
		return -1;
	buf_init(&b);
	for (size_t i = 0; i < f->n; i++) {
		uint32_t id = f->s[i].name;
		const char *raw;

		if (f->pname_of_raw[id])	/* done: ids from 1 */
			continue;
		raw = names_str(f->p->names, id);
		phase_name(f->p->opts, raw, &b);
		if (!buf_ok(&b))
			goto out;
		f->pname_of_raw[id] = strtab_intern(&f->pnames, b.data, b.len);
		if (f->pname_of_raw[id] == STRTAB_OOM)
			goto out;
		f->step_raw[id] = (unsigned char)is_step(f->p->opts, raw);
		f->block_raw[id] = (unsigned char)is_block(f->p->opts, raw);
	}
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

/* Nest the spans of each thread and give each its path id. */
static int nest(struct finish *f)
{
	size_t *stack = malloc((f->n ? f->n : 1) * sizeof(*stack)), depth = 0, info_alloc = 0;
	struct buf path;
	int rc = -1;
	uint32_t pstep = strtab_find(&f->pnames, profiler_step, strlen(profiler_step));

	f->path_of = malloc((f->n ? f->n : 1) * sizeof(*f->path_of));
	f->core = calloc(f->n ? f->n : 1, 1);
	f->info = NULL;
	buf_init(&path);
	if (!stack || !f->path_of || !f->core || ALLOC_GROW(f->info, 1, info_alloc))
		goto out;
	if (f->n > 1)
		qsort(f->s, f->n, sizeof(*f->s), cmp_nesting);
	for (size_t i = 0; i < f->n; i++) {
		const struct span_rec *s = &f->s[i];
		uint32_t pname = f->pname_of_raw[s->name], parent, id;

		if (i && s->track != f->s[i - 1].track)
			depth = 0;
		while (depth) {
			const struct span_rec *top = &f->s[stack[depth - 1]];

			if (top->ts_ns <= s->ts_ns &&
			    s->ts_ns + s->dur_ns <= top->ts_ns + top->dur_ns)
				break;
			depth--;
		}
		if (depth >= PHASE_MAX_DEPTH) {
			f->path_of[i] = 0;	/* dropped below */
			f->p->nr_too_deep++;
			continue;
		}
		parent = depth ? f->path_of[stack[depth - 1]] : 0;
		/* Denoising (a step or a block) makes its root a generation's core. */
		if (depth && (f->step_raw[s->name] || f->block_raw[s->name]) && pname != pstep) {
			const struct span_rec *root = &f->s[stack[0]];

			if (!f->step_raw[root->name] && !f->block_raw[root->name])
				f->core[stack[0]] = 1;
		}
		buf_reset(&path);
		if (parent) {
			buf_add(&path, strtab_str(&f->paths, parent),
				strtab_len(&f->paths, parent));
			buf_addc(&path, '/');
		}
		buf_add(&path, strtab_str(&f->pnames, pname), strtab_len(&f->pnames, pname));
		if (!buf_ok(&path))
			goto out;
		id = strtab_intern(&f->paths, path.data, path.len);
		if (id == STRTAB_OOM)
			goto out;
		if (ALLOC_GROW(f->info, (size_t)id + 1, info_alloc))
			goto out;
		if (id > f->nr_paths) {		/* ids are dense: a new path */
			f->nr_paths = id;
			f->info[id].pname = pname;
			f->info[id].parent = parent;
			f->info[id].depth = (int)depth;
			f->info[id].first_ts = s->ts_ns;
		} else if (s->ts_ns < f->info[id].first_ts) {
			f->info[id].first_ts = s->ts_ns;
		}
		f->path_of[i] = id;
		stack[depth++] = i;
	}
	if (f->p->nr_too_deep) {
		size_t k = 0;

		for (size_t i = 0; i < f->n; i++) {
			if (!f->path_of[i])
				continue;
			f->s[k] = f->s[i];
			f->core[k] = f->core[i];
			f->path_of[k++] = f->path_of[i];
		}
		f->n = k;
	}
	rc = 0;
out:
	free(stack);
	buf_release(&path);
	return rc;
}

/* Rows in depth-first order, siblings by first start, then path. */
static int cmp_sibling(const void *a, const void *b, void *ctx)
{
	const struct finish *sort_ctx = ctx;
	const struct path_info *x = &sort_ctx->info[*(const uint32_t *)a];
	const struct path_info *y = &sort_ctx->info[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return strcmp(strtab_str(&sort_ctx->paths, *(const uint32_t *)a),
		      strtab_str(&sort_ctx->paths, *(const uint32_t *)b));
}

/*
 * order[0..nr_paths): path ids in depth-first pre-order.  Sorted by parent,
 * each path's children are one run of by_parent[]; first[id] is where it
 * starts, so the walk is linear in the paths (a rank may have a million).
 */
static int dfs_order(struct finish *f, uint32_t *order)
{
	size_t n = f->nr_paths, k = 0, sp = 0;
	uint32_t *by_parent = malloc((n ? n : 1) * sizeof(*by_parent));
	uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t *first = malloc((n + 2) * sizeof(*first));

	if (!by_parent || !stack || !first) {
		free(by_parent);
		free(stack);
		free(first);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		by_parent[i] = (uint32_t)(i + 1);
	if (n > 1)
		qsort_r(by_parent, n, sizeof(*by_parent), cmp_sibling, f);
	/* first[id]..first[id + 1]: the children of id (0: the roots) */
	for (size_t id = 0, i = 0; id <= n + 1; id++) {
		while (i < n && f->info[by_parent[i]].parent < id)
			i++;
		first[id] = i;
	}
	/* Push siblings in reverse so the first is visited first. */
	for (size_t i = first[1]; i-- > first[0];)
		stack[sp++] = by_parent[i];
	while (sp) {
		uint32_t id = stack[--sp];

		order[k++] = id;
		for (size_t i = first[id + 1]; i-- > first[id];)
			stack[sp++] = by_parent[i];
	}
	free(by_parent);
	free(stack);
	free(first);
	return 0;
}

static int cmp_span_path(const void *a, const void *b, void *ctx)
{
	const struct finish *f = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (f->path_of[i] != f->path_of[j])
		return f->path_of[i] < f->path_of[j] ? -1 : 1;
	if (f->s[i].track != f->s[j].track)
		return f->s[i].track < f->s[j].track ? -1 : 1;
	return i < j ? -1 : i > j;
}

/*
 * The timeline of a row: its union iv[0..n) relative to the rank's start,
 * merged in equal groups of consecutive intervals beyond REPORT_SPANS_MAX so
 * that a report stays small however many steps a run has.
 */
static int keep_spans(struct finish *f, const struct interval *iv, size_t n, struct arena *a,
		      struct report_phase *row)
{
	size_t k = n < REPORT_SPANS_MAX ? n : REPORT_SPANS_MAX;

	row->spans_ns = arena_alloc(a, (k ? 2 * k : 1) * sizeof(*row->spans_ns));
	if (!row->spans_ns)
		return -1;
	for (size_t g = 0; g < k; g++) {
		size_t first = g * n / k, last = (g + 1) * n / k - 1;

		row->spans_ns[2 * g] = iv[first].lo - f->min_ts;
		row->spans_ns[2 * g + 1] = iv[last].hi - f->min_ts;
	}
	row->nr_spans = k;
	return 0;
}

/* One report row per path, from its spans idx[0..n). */
static int make_row(struct finish *f, uint32_t id, const size_t *idx, size_t n,
		    struct arena *a, struct report_rank *rk, struct report_phase *row)
{
	int64_t *durs = malloc((n ? n : 1) * sizeof(*durs));
	struct interval *iv = malloc((n ? n : 1) * sizeof(*iv));
	size_t k;
	int rc = -1;

	if (!durs || !iv)
		goto out;
	row->name = arena_strndup(a, strtab_str(&f->pnames, f->info[id].pname),
				  strtab_len(&f->pnames, f->info[id].pname));
	row->path = arena_strndup(a, strtab_str(&f->paths, id), strtab_len(&f->paths, id));
	if (!row->name || !row->path)
		goto out;
	row->depth = f->info[id].depth;
	row->gpu_ns = 0;
	row->spans_ns = NULL;
	row->nr_spans = 0;
	row->nr_folded = 0;
	/* gpu_ns: the union of the spans on each thread, then its launches. */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		for (k = 0; j < n && f->s[idx[j]].track == f->s[idx[i]].track; j++, k++) {
			iv[k].lo = f->s[idx[j]].ts_ns;
			iv[k].hi = f->s[idx[j]].ts_ns + f->s[idx[j]].dur_ns;
		}
		k = interval_union(iv, k);
		for (size_t m = 0, at = 0; m < k; m++)	/* in start order: at moves on */
			row->gpu_ns = sat_add(row->gpu_ns,
					      placed_within(f->placed, LAUNCH_PHASES, &at,
							    f->s[idx[i]].track,
							    iv[m].lo, iv[m].hi));
		i = j;
	}
	for (size_t i = 0; i < n; i++) {
		durs[i] = f->s[idx[i]].dur_ns;
		iv[i].lo = f->s[idx[i]].ts_ns;
		iv[i].hi = f->s[idx[i]].ts_ns + f->s[idx[i]].dur_ns;
	}
	report_dist_of(&row->d, durs, n);
	if (report_samples_of(&row->samples, a, durs, n))
		goto out;
	k = interval_union(iv, n);
	row->d.total_ns = interval_length(iv, k);
	if (row->depth <= REPORT_SPANS_DEPTH && keep_spans(f, iv, k, a, row))
		goto out;
	row->share = rk->span_ns ? (double)row->d.total_ns / (double)rk->span_ns : 0.0;
	rc = 0;
out:
	free(durs);
	free(iv);
	return rc;
}

static int rows(struct finish *f, struct arena *a, struct report_rank *rk)
{
	size_t *idx = malloc((f->n ? f->n : 1) * sizeof(*idx));
	size_t *start = malloc((f->nr_paths + 2) * sizeof(*start));
	uint32_t *order = malloc((f->nr_paths ? f->nr_paths : 1) * sizeof(*order));
	int rc = -1;

	rk->phases = arena_alloc(a, (f->nr_paths ? f->nr_paths : 1) * sizeof(*rk->phases));
	if (!idx || !start || !order || !rk->phases || dfs_order(f, order))
		goto out;
	for (size_t i = 0; i < f->n; i++)
		idx[i] = i;
	if (f->n > 1)
		qsort_r(idx, f->n, sizeof(*idx), cmp_span_path, f);
	/* start[id]: the first of path id's spans in idx */
	for (size_t i = f->n; i-- > 0;)
		start[f->path_of[idx[i]]] = i;
	start[f->nr_paths + 1] = f->n;
	for (uint32_t k = 0; k < f->nr_paths; k++) {
		uint32_t id = order[k];

		if (make_row(f, id, idx + start[id], start[id + 1] - start[id], a, rk,
			     &rk->phases[k]))
			goto out;
	}
	rk->nr_phases = f->nr_paths;
	rc = 0;
out:
	free(idx);
	free(start);
	free(order);
	return rc;
}

static int cmp_time(const void *a, const void *b, void *ctx)
{
	const struct span_rec *s = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (s[i].ts_ns != s[j].ts_ns)
		return s[i].ts_ns < s[j].ts_ns ? -1 : 1;
	return s[i].seq < s[j].seq ? -1 : s[i].seq > s[j].seq;
}

/* Indices of the spans that pick() chooses, in time order. */
static size_t select_spans(struct finish *f, int (*pick)(struct finish *, size_t), size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		if (pick(f, i))
			out[n++] = i;
	if (n > 1)
		qsort_r(out, n, sizeof(*out), cmp_time, f->s);
	return n;
}

static uint32_t profiler_step_id(struct finish *f)
{
	return strtab_find(&f->pnames, profiler_step, strlen(profiler_step));
}

static int pick_profiler_step(struct finish *f, size_t i)
{
	uint32_t id = profiler_step_id(f);

	return id && f->pname_of_raw[f->s[i].name] == id;
}

static int pick_step(struct finish *f, size_t i)
{
	return f->step_raw[f->s[i].name];
}

/*
 * 1 when the last of the n steps idx[] was cut off by the end of the
 * trace.  torch.profiler opens a step at each step() and closes the open
 * one when profiling stops, so a trace taken without a schedule ends in a
 * step that holds only what ran between the last step() and the stop:
 * shorter than the others' median, and launching less than half of their
 * median kernel time.  Its duration is no step's, so it stays out of the
 * statistics and of the warm-up test.
 */
static int cut_off(struct finish *f, const size_t *idx, size_t n)
{
	int64_t *dur, *gpu;
	const struct span_rec *last;
	struct report_dist dd, dg;
	int64_t last_gpu;
	size_t at = 0;	/* the steps are in time order, but may be on any thread */
	int cut = 0;

	if (n < 2)
		return 0;
	dur = malloc((n - 1) * sizeof(*dur));
	gpu = malloc((n - 1) * sizeof(*gpu));
	if (!dur || !gpu)
		goto out;	/* no memory: keep the step, as before */
	for (size_t i = 0; i + 1 < n; i++) {
		const struct span_rec *s = &f->s[idx[i]];

		at = 0;
		dur[i] = s->dur_ns;
		gpu[i] = placed_within(f->placed, LAUNCH_PHASES, &at, s->track, s->ts_ns,
				       sat_add(s->ts_ns, s->dur_ns));
	}
	report_dist_of(&dd, dur, n - 1);
	report_dist_of(&dg, gpu, n - 1);
	last = &f->s[idx[n - 1]];
	at = 0;
	last_gpu = placed_within(f->placed, LAUNCH_PHASES, &at, last->track, last->ts_ns,
				 sat_add(last->ts_ns, last->dur_ns));
	cut = dg.median_ns > 0 && (double)last_gpu < 0.5 * dg.median_ns &&
	      (double)last->dur_ns < dd.median_ns;
out:
	free(dur);
	free(gpu);
	return cut;
}

static int steps(struct finish *f, struct arena *a, struct report_rank *rk, size_t *idx)
{
	struct report_steps *st = &rk->steps;
	const struct phase_opts *o = f->p->opts;
	size_t n = select_spans(f, pick_profiler_step, idx);
	int64_t *rest;
	struct buf pattern;

	buf_init(&pattern);
	if (n) {
		buf_adds(&pattern, profiler_step);
	} else {
		n = select_spans(f, pick_step, idx);
		for (size_t i = 0; i < (o->nr_step_globs ? o->nr_step_globs : 2); i++) {
			if (i)
				buf_addc(&pattern, '|');
			buf_adds(&pattern, o->nr_step_globs ? o->step_globs[i] : default_steps[i]);
		}
	}
	st->pattern = buf_ok(&pattern) ? arena_strndup(a, pattern.data, pattern.len)
				       : NULL;
	buf_release(&pattern);
	st->durations_ns = arena_alloc(a, (n ? n : 1) * sizeof(*st->durations_ns));
	st->starts_ns = arena_alloc(a, (n ? n : 1) * sizeof(*st->starts_ns));
	rest = malloc((n ? n : 1) * sizeof(*rest));
	if (!st->pattern || !st->durations_ns || !st->starts_ns || !rest) {
		free(rest);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		st->durations_ns[i] = f->s[idx[i]].dur_ns;
		st->starts_ns[i] = f->s[idx[i]].ts_ns;
	}
	st->nr_durations = n;
	st->cut_off = cut_off(f, idx, n);
	n -= (size_t)st->cut_off;
	st->warmup = 0;
	if (n >= 2) {
		struct report_dist others;

		memcpy(rest, st->durations_ns + 1, (n - 1) * sizeof(*rest));
		report_dist_of(&others, rest, n - 1);
		st->warmup = (double)st->durations_ns[0] > 1.5 * others.median_ns;
	}
	memcpy(rest, st->durations_ns, n * sizeof(*rest));
	report_dist_of(&st->d, rest + st->warmup, n - (size_t)st->warmup);
	if (!st->d.count) {	/* no step: its statistics are unknown, not 0 */
		st->d.avg_ns = st->d.median_ns = st->d.stddev_ns = NAN;
		st->d.min_ns = st->d.max_ns = INT64_MIN;
	}
	free(rest);
	return 0;
}

static int cmp_span_end(const void *a, const void *b)
{
	const struct span_rec *x = a, *y = b;
	int64_t xe = x->ts_ns + x->dur_ns, ye = y->ts_ns + y->dur_ns;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (xe != ye)
		return xe < ye ? -1 : 1;
	return (x->dur_ns > y->dur_ns) - (x->dur_ns < y->dur_ns);
}

/*
 * Name each block_size counter after its region: the shortest span of its
 * thread that ends at the counter's time (the reader puts the counter at
 * the region's end).  A counter without one keeps raw 0 and counts alone.
 */
static int block_frame_names(struct finish *f)
{
	struct phase_counts *c = &f->p->block_frame_counts;
	struct span_rec *by_end;

	if (!c->n)
		return 0;
	by_end = malloc((f->n ? f->n : 1) * sizeof(*by_end));
	if (!by_end)
		return -1;
	memcpy(by_end, f->s, f->n * sizeof(*by_end));
	if (f->n > 1)
		qsort(by_end, f->n, sizeof(*by_end), cmp_span_end);
	for (size_t i = 0; i < c->n; i++) {
		struct gen_count *g = &c->v[i];
		size_t lo = 0, hi = f->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct span_rec *s = &by_end[mid];

			if (s->track < g->track ||
			    (s->track == g->track && s->ts_ns + s->dur_ns < g->ts_ns))
				lo = mid + 1;
			else
				hi = mid;
		}
		g->raw = 0;
		if (lo < f->n && by_end[lo].track == g->track &&
		    by_end[lo].ts_ns + by_end[lo].dur_ns == g->ts_ns)
			g->raw = by_end[lo].name;
	}
	free(by_end);
	return 0;
}

/*
 * Roots and block spans for generations.h: every root counts towards the
 * wall time except a ProfilerStep# that holds no denoising.
 */
static int throughput(struct finish *f, int64_t min_ts, struct arena *a, struct report_rank *rk)
{
	struct phases *p = f->p;
	uint32_t pstep = profiler_step_id(f);
	struct gen_root *roots = malloc((f->n ? f->n : 1) * sizeof(*roots));
	struct gen_block *blocks = malloc((f->n ? f->n : 1) * sizeof(*blocks));
	struct gen_input in;
	int rc = -1;

	memset(&in, 0, sizeof(in));
	if (!roots || !blocks || block_frame_names(f))
		goto out;
	for (size_t i = 0; i < f->n; i++) {
		const struct span_rec *s = &f->s[i];

		if (f->info[f->path_of[i]].depth == 0) {
			struct gen_root *r = &roots[in.nr_roots++];

			r->ts_ns = s->ts_ns;
			r->end_ns = s->ts_ns + s->dur_ns;
			r->seq = s->seq;
			r->pname = f->pname_of_raw[s->name];
			r->core = f->core[i];
			r->extent = f->core[i] || !pstep || r->pname != pstep;
		}
		if (f->block_raw[s->name]) {
			struct gen_block *b = &blocks[in.nr_blocks++];

			b->ts_ns = s->ts_ns;
			b->end_ns = s->ts_ns + s->dur_ns;
			b->raw = s->name;
		}
	}
	in.roots = roots;
	in.blocks = blocks;
	in.frames = p->frame_counts.v;
	in.nr_frames = p->frame_counts.n;
	in.block_counts = p->block_counts.v;
	in.nr_block_counts = p->block_counts.n;
	in.block_frames = p->block_frame_counts.v;
	in.nr_block_frames = p->block_frame_counts.n;
	in.has_frame_counts = p->has_frames || p->has_block_frames;
	in.has_block_counts = p->has_blocks;
	in.min_ts = min_ts;
	in.span_ns = rk->span_ns;
	in.opts = p->opts;
	rc = generations_fill(&in, a, &rk->throughput);
out:
	free(roots);
	free(blocks);
	return rc;
}

/* Without any cat in the trace, spans kept by name are phases; else not. */
static void drop_by_name(struct finish *f)
{
	size_t k = 0;

	if (!f->p->has_cat)
		return;
	for (size_t i = 0; i < f->n; i++)
		if (!f->s[i].by_name)
			f->s[k++] = f->s[i];
	f->n = k;
}

int phases_finish(struct phases *p, int64_t min_ts, const struct placement *pl, struct arena *a,
		  struct report_rank *rk)
{
	struct finish f;
	size_t *idx = NULL;
	int rc = -1;

	memset(&f, 0, sizeof(f));
	f.p = p;
	f.min_ts = min_ts;
	f.placed = pl;
	f.s = p->spans;
	f.n = p->nr_spans;
	strtab_init(&f.pnames, 1);
	strtab_init(&f.paths, 1);
	if (name_tables(&f))
		goto out;
	drop_by_name(&f);
	idx = malloc((f.n ? f.n : 1) * sizeof(*idx));
	if (!idx || nest(&f))
		goto out;
	if (rows(&f, a, rk) || steps(&f, a, rk, idx) ||
	    throughput(&f, min_ts, a, rk))
		goto out;
	rc = 0;
out:
	free(idx);
	free(f.path_of);
	free(f.core);
	free(f.info);
	free(f.pname_of_raw);
	free(f.step_raw);
	free(f.block_raw);
	strtab_release(&f.pnames);
	strtab_release(&f.paths);
	return rc;
}

void phases_device_unknown(struct report_rank *rk)
{
	for (size_t i = 0; i < rk->nr_phases; i++)
		rk->phases[i].gpu_ns = INT64_MIN;
}
