/*
 * gpu: see gpu.h.  The unions (busy, comm, compute, memory) come from one
 * sweep of the records sorted by start; the kernel table groups them by
 * name with a counting sort.
 */
#include "gpu.h"

#include "category.h"
#include "device.h"
#include "grow.h"
#include "hugepage.h"
#include "interval.h"
#include "launch.h"
#include "sat.h"
#include "sort.h"
#include "varint.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void gpu_init(struct gpu *g, struct names *names, struct name_memo *kcats)
{
	memset(g, 0, sizeof(*g));
	g->names = names;
	g->kcats = kcats;
	name_memo_init(&g->subs, classify_name);
	buf_init(&g->kern_corr);
	interval_list_init(&g->busy);
}

/* What gpu_finish() is done with. */
static void free_records(struct gpu *g)
{
	free(g->recs);
	g->recs = NULL;
	g->nr_recs = g->recs_alloc = 0;
	free(g->long_dur);
	g->long_dur = NULL;
	g->nr_long_dur = g->long_dur_alloc = 0;
	free(g->graph_corr);
	g->graph_corr = NULL;
	g->nr_graph_corr = g->graph_corr_alloc = 0;
	buf_release(&g->kern_corr);
	name_memo_release(&g->subs);	/* the collect's alone */
}

static void free_pending(struct gpu *g)
{
	free(g->pending);
	g->pending = NULL;
	g->nr_pending = g->pending_alloc = 0;
}

static void free_ctask(struct gpu *g)
{
	free(g->ctask);
	g->ctask = NULL;
	g->nr_ctask = g->ctask_alloc = 0;
}

void gpu_release(struct gpu *g)
{
	free(g->proc_rule);
	free_pending(g);
	free_ctask(g);
	free_records(g);
	interval_list_release(&g->busy);
	interval_set_release(&g->comm_tasks);
	interval_set_release(&g->comm_sync);
	interval_set_release(&g->comm_covered);
}

/* The record kind of a collective's host span by classify.h's flags, or -1. */
static int host_comm_kind(unsigned flags)
{
	return flags & CF_HOST_COLL ? HOST_COLL : flags & CF_CPU_COMM ? CPU_COMM : -1;
}

/* A record pending its process name (events without cat). */
struct pend_rec {
	int64_t ts_ns, dur_ns;
	uint32_t name, pid;	/* name ids (names.h) of its name and its pid's text */
	uint32_t plane;		/* its tid as a number, for comm_task's lane */
};

/* The rule slot of pid id `pid` in g->proc_rule, grown as needed; NULL when out of memory. */
static int16_t *proc_slot(struct gpu *g, uint32_t pid)
{
	if (ALLOC_GROW_ZERO(g->proc_rule, (size_t)pid + 1, g->proc_rule_alloc))
		return NULL;
	return &g->proc_rule[pid];
}

/*
 * What device.c says of an event of device rule r named s[0..n): its kind,
 * and for runtime calls the vendor (1 AMD, 2 NVIDIA, 0 neither).  It does
 * not depend on the event, so gpu_collect() asks once per name and batch.
 */
struct dev_answer {
	enum dev_kind kind;
	int vendor;
	int graph;	/* a runtime call that replays a graph */
};

static struct dev_answer dev_answer_of(int r, const char *s, size_t n)
{
	struct dev_answer a = { device_kind(r, s, n), 0, 0 };

	if (a.kind == DK_RUNTIME || a.kind == DK_SYNC) {
		const char *v = device_runtime_vendor(s, n);

		a.vendor = !v ? 0 : !strcmp(v, "amd") ? 1 : !strcmp(v, "nvidia") ? 2 : 0;
		/* the kernels with its correlation were launched by the graph, not a call each */
		a.graph = a.kind == DK_RUNTIME &&
			  (classify_flags(classify_name(s, n)) & CF_GRAPH_LAUNCH);
	}
	return a;
}

/*
 * The record kind of an event of device rule r with answer a, or -1 when
 * it is no record; counts it for the vendor decision.
 */
static inline int kind_of(struct gpu *g, int r, struct dev_answer a)
{
	switch (a.kind) {
	case DK_KERNEL:
	case DK_MEMCPY:
	case DK_MEMSET:
	case DK_COMM_TASK:
		if (r >= 0 && r < GPU_MAX_RULES)
			g->nr_device[r]++;
		return a.kind == DK_KERNEL   ? GPU_KERNEL
		       : a.kind == DK_MEMCPY ? GPU_MEMCPY
		       : a.kind == DK_MEMSET ? GPU_MEMSET
					     : GPU_COMM_TASK;
	case DK_RUNTIME:
	case DK_SYNC:
		if (r >= 0 && r < GPU_MAX_RULES)
			g->nr_runtime[r]++;
		g->nr_hip += a.vendor == 1;
		g->nr_cuda += a.vendor == 2;
		if (a.kind == DK_SYNC)
			return HOST_SYNC;
		return a.graph ? GRAPH_LAUNCH : -1;
	default:
		return -1;
	}
}

/*
 * A record of 16 bytes: durations below 2^31 ns (2.1 s, nearly all) inline,
 * others (and negative ones from broken traces) as GPU_LONG_DUR | their
 * index in g->long_dur, exact either way; the name id shares a word with
 * the kind.  -1 when out of memory (or past 2^29 names).
 */
static int push_rec(struct gpu *g, int64_t ts, int64_t dur, uint32_t name, int kind)
{
	struct gpu_rec rec = { ts, (uint32_t)dur, name << GPU_KIND_BITS | (uint32_t)kind };

	if (name >= 1u << (32 - GPU_KIND_BITS))
		return -1;
	if (ALLOC_GROW(g->recs, g->nr_recs + 1, g->recs_alloc))
		return -1;
	if (dur < 0 || dur >= GPU_LONG_DUR) {
		size_t idx = g->nr_long_dur;

		if (idx >= GPU_LONG_DUR || ALLOC_GROW(g->long_dur, idx + 1, g->long_dur_alloc))
			return -1;
		rec.dur = GPU_LONG_DUR | (uint32_t)idx;
		g->long_dur[g->nr_long_dur++] = dur;
	}
	g->recs[g->nr_recs++] = rec;
	return 0;
}

/*
 * Kernel correlations, kept only to count the kernels of graph replays at
 * the end (graph launches may come after their kernels in the file): as
 * the zigzag varint of the difference from the one before, which in file
 * order is small, so most take one or two bytes instead of eight.
 */
static int add_kern_corr(struct gpu *g, int64_t corr)
{
	unsigned char v[VARINT_MAX];
	size_t k = (size_t)(varint_put(v, varint_zigzag(g->last_kern_corr, corr)) - v);

	g->last_kern_corr = corr;
	buf_add(&g->kern_corr, v, k);
	return buf_ok(&g->kern_corr) ? 0 : -1;
}

/* The text of string id of st ("" for none) and its length in *n, read only when asked about. */
static const char *name_text(const struct strtab *st, uint32_t id, size_t *n)
{
	*n = id ? strtab_len(st, id) : 0;
	return id ? strtab_str(st, id) : "";
}

static inline uint32_t rec_name(const struct gpu_rec *r)
{
	return r->name_kind >> GPU_KIND_BITS;
}

static inline unsigned rec_kind(const struct gpu_rec *r)
{
	return r->name_kind & ((1u << GPU_KIND_BITS) - 1);
}

/* The category of a kernel named id (0: no name), which gpu_finish() asked kcats first. */
static enum category kernel_cat(const struct name_memo *kcats, uint32_t id)
{
	return (enum category)(kcats->val[id] - 1);
}

/* The tid id of batch strings st as a number (HCCL's planes are 0, 1, ...); 0 if it is none. */
static uint32_t tid_number(const struct strtab *st, uint32_t tid)
{
	size_t n;
	const char *s = name_text(st, tid, &n);
	uint32_t v = 0;

	for (size_t i = 0; i < n && i < 9; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	return v;
}

/*
 * Keep an event of device rule r named s[0..n) as a comm_task (gpu.h)
 * when it is a task inside a collective: one that moves data, or HCCL's
 * Notify Wait (the wait for a peer; Notify Record only signals).  HCCL's
 * own tasks keep their plane as the lane, the device's streams share lane
 * 0.  -1 when out of memory.
 */
static int add_ctask(struct gpu *g, int r, const char *s, size_t n, int64_t ts, int64_t dur,
		     uint32_t plane)
{
	const struct dev_rule *d = device_rule(r);
	enum dev_kind k = device_kind(r, s, n);
	int wait = k == DK_WAIT && n == 11 && !memcmp(s, "Notify", 6) && !memcmp(s + 7, "Wait", 4);
	struct comm_task t = { ts, dur, 0, (uint32_t)wait };

	if (k != DK_COMM_TASK && !wait)
		return 0;
	if (d->by_process && !strcmp(d->key, "HCCL"))
		t.lane = 1 + plane;
	if (ALLOC_GROW(g->ctask, g->nr_ctask + 1, g->ctask_alloc))
		return -1;
	g->ctask[g->nr_ctask++] = t;
	return 0;
}

/*
 * The launch.h tag of an event of kind k: runtime calls and device work
 * with a correlation id, by cat (the vendors whose device events carry no
 * cat carry no correlation either).  cpuops counts all device work, phases
 * the kernels (report.json's phases gpu_ns).
 */
static unsigned launch_tag(const struct trace_event *ev, enum dev_kind k)
{
	if (ev->phase != 'X' || !(ev->flags & EV_CORRELATION))
		return 0;
	if (k == DK_KERNEL)
		return LAUNCH_DEV(LAUNCH_CPUOPS) | LAUNCH_DEV(LAUNCH_PHASES);
	if (k == DK_MEMCPY || k == DK_MEMSET || k == DK_COMM_TASK)
		return LAUNCH_DEV(LAUNCH_CPUOPS);
	if (k == DK_RUNTIME || k == DK_SYNC)
		return LAUNCH_CALL(LAUNCH_CPUOPS) | LAUNCH_CALL(LAUNCH_PHASES);
	return 0;
}

/* classify.h's class of an event of device.h's kind k. */
static unsigned char ev_class_of(enum dev_kind k)
{
	switch (k) {
	case DK_KERNEL:
		return EVC_KERNEL;
	case DK_MEMCPY:
	case DK_MEMSET:
	case DK_COMM_TASK:
		return EVC_DEVICE;
	case DK_RUNTIME:
		return EVC_RUNTIME;
	case DK_SYNC:
		return EVC_SYNC;
	default:
		return EVC_NONE;
	}
}

int gpu_collect(struct gpu *g, const struct event_batch *b, unsigned char *tag,
		unsigned char *cls, unsigned char *sub)
{
	const struct strtab *st = &b->strs;
	uint32_t pname = strtab_find(st, "process_name", 12);
	uint32_t nstr = strtab_count(st) + 1;
	int16_t *cat_rule = calloc(nstr, sizeof(*cat_rule));	/* 0 unknown, 1 none, r + 2 */
	struct dev_answer *ans = malloc(nstr * sizeof(*ans));	/* by name, for ans_rule */
	int16_t *ans_rule = calloc(nstr, sizeof(*ans_rule));	/* 0 none yet, else r + 1 */
	unsigned char *host_cls = calloc(nstr, 1);	/* by cat: 0 unknown, else ev_class + 1 */
	int rc = -1;

	if (!cat_rule || !ans || !ans_rule || !host_cls)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		int kind = -1, r;
		uint32_t name;
		const char *text;
		size_t n;

		if (ev->phase == 'M' && pname && ev->name == pname && ev->arg_name && ev->pid) {
			uint32_t pid = names_id(g->names, ev->pid);
			int16_t *slot = pid == STRTAB_OOM ? NULL : proc_slot(g, pid);

			if (!slot)
				goto out;
			r = device_process_rule(strtab_str(st, ev->arg_name),
						strtab_len(st, ev->arg_name));
			*slot = (int16_t)(r < 0 ? 1 : r + 2);
			continue;
		}
		if (!(ev->flags & EV_TS))
			continue;
		if (ev->cat) {
			if (!cat_rule[ev->cat]) {
				r = device_cat_rule(strtab_str(st, ev->cat),
						    strtab_len(st, ev->cat));
				cat_rule[ev->cat] = (int16_t)(r < 0 ? 1 : r + 2);
			}
			if (cat_rule[ev->cat] > 1) {
				r = cat_rule[ev->cat] - 2;
				if (ans_rule[ev->name] != r + 1) {
					text = name_text(st, ev->name, &n);
					ans[ev->name] = dev_answer_of(r, text, n);
					ans_rule[ev->name] = (int16_t)(r + 1);
				}
				kind = kind_of(g, r, ans[ev->name]);
				tag[i] |= (unsigned char)launch_tag(ev, ans[ev->name].kind);
				cls[i] = ev_class_of(ans[ev->name].kind);
			} else {
				if (!host_cls[ev->cat])
					host_cls[ev->cat] = (unsigned char)(1 + classify_host_cat(
						strtab_str(st, ev->cat), strtab_len(st, ev->cat)));
				cls[i] = host_cls[ev->cat] - 1;
			}
		}
		if (ev->phase == 'X' && ev->name) {
			name = names_id(g->names, ev->name);
			if (name == STRTAB_OOM || (r = name_memo_get(&g->subs, g->names, name)) < 0)
				goto out;
			sub[i] = (unsigned char)r;
			if (ev->cat)
				sub[i] &= EVS_ROW;	/* runtime calls by name only without cat */
			if (kind < 0 && (sub[i] & EVS_ROW))	/* most spans have no row */
				kind = host_comm_kind(classify_flags(sub[i]));
		}
		if (kind < 0 && !ev->cat && ev->phase == 'X' && ev->pid) {
			uint32_t pid = names_id(g->names, ev->pid);
			int16_t *slot = pid == STRTAB_OOM ? NULL : proc_slot(g, pid);

			if (!slot)
				goto out;
			if (*slot == 0) {
				struct pend_rec p = { ev->ts_ns, ev->dur_ns, 0, pid,
						      tid_number(st, ev->tid) };

				p.name = names_id(g->names, ev->name);
				if (p.name == STRTAB_OOM ||
				    ALLOC_GROW(g->pending, g->nr_pending + 1, g->pending_alloc))
					goto out;
				g->pending[g->nr_pending++] = p;
				continue;
			}
			if (*slot > 1) {
				text = name_text(st, ev->name, &n);
				kind = kind_of(g, *slot - 2, dev_answer_of(*slot - 2, text, n));
				if (add_ctask(g, *slot - 2, text, n, ev->ts_ns, ev->dur_ns,
					      tid_number(st, ev->tid)))
					goto out;
			}
		}
		if (kind < 0)
			continue;
		if (kind == GRAPH_LAUNCH) {
			if (ev->flags & EV_CORRELATION) {
				if (ALLOC_GROW(g->graph_corr, g->nr_graph_corr + 1,
					       g->graph_corr_alloc))
					goto out;
				g->graph_corr[g->nr_graph_corr++] = ev->correlation;
			}
			g->nr_graph_launches++;
			continue;
		}
		if (kind == GPU_KERNEL && (ev->flags & EV_CORRELATION) &&
		    add_kern_corr(g, ev->correlation))
			goto out;
		name = names_id(g->names, ev->name);
		if (name == STRTAB_OOM || push_rec(g, ev->ts_ns, ev->dur_ns, name, kind))
			goto out;
	}
	rc = 0;
out:
	free(cat_rule);
	free(ans);
	free(ans_rule);
	free(host_cls);
	return rc;
}

/* Decide the pending records now that every process name has been read. */
static int resolve_pending(struct gpu *g)
{
	const struct pend_rec *p = g->pending;
	size_t n = g->nr_pending, nr_rules = g->proc_rule_alloc;
	const int16_t *rule = g->proc_rule;

	for (size_t i = 0; i < n; i++) {
		int16_t r = p[i].pid < nr_rules ? rule[p[i].pid] : 0;
		const char *s = p[i].name ? names_str(g->names, p[i].name) : "";
		size_t len = p[i].name ? names_len(g->names, p[i].name) : 0;
		int kind;

		if (r < 2)
			continue;
		kind = kind_of(g, r - 2, dev_answer_of(r - 2, s, len));
		if (add_ctask(g, r - 2, s, len, p[i].ts_ns, p[i].dur_ns, p[i].plane))
			return -1;
		if (kind == GRAPH_LAUNCH) {	/* no correlation kept here: counted only */
			g->nr_graph_launches++;
			continue;
		}
		if (kind >= 0 && push_rec(g, p[i].ts_ns, p[i].dur_ns, p[i].name, kind))
			return -1;
	}
	free_pending(g);
	return 0;
}

/*
 * Which recogniser applied: the rule behind most device events; CUDA's
 * cats serve ROCm and XPU too, told apart by their runtime calls.
 */
static void device_of(const struct gpu *g, struct report_device *d)
{
	int best = -1;
	int64_t xpu = 0;

	d->vendor = d->source = NULL;
	for (int r = 0; r < GPU_MAX_RULES && device_rule(r); r++) {
		if (g->nr_device[r] > 0 && (best < 0 || g->nr_device[r] > g->nr_device[best]))
			best = r;
		if (!strcmp(device_rule(r)->vendor, "intel"))
			xpu += g->nr_runtime[r];
	}
	if (best < 0)
		return;
	d->vendor = device_rule(best)->vendor;
	d->source = device_rule(best)->source;
	if (strcmp(d->vendor, "nvidia"))
		return;
	if (xpu > 0) {
		d->vendor = "intel";
		d->source = "kineto-xpu";
	} else if (g->nr_hip > g->nr_cuda) {
		d->vendor = "amd";
	}
}

/*
 * The order of r[0..n) by name id, keeping their order within a name
 * (the table's statistics do not depend on it): a permutation, not a
 * sorted copy, so that a trace of nothing but kernels does not hold its
 * records twice.  NULL when out of memory.
 */
static uint32_t *group_by_name(struct gpu *g, const struct gpu_rec *r, size_t n)
{
	uint32_t *ids = hugepage_malloc((n ? n : 1) * sizeof(*ids)), *perm = sort_identity(n);

	if (!ids || !perm)
		goto fail;
	for (size_t i = 0; i < n; i++)
		ids[i] = rec_name(&r[i]);
	if (sort_perm_id(ids, names_count(g->names), perm, n))
		goto fail;
	free(ids);
	return perm;
fail:
	free(ids);
	free(perm);
	return NULL;
}

static int cmp_kernel_row(const void *a, const void *b)
{
	const struct report_kernel *x = a, *y = b;

	if (x->d.total_ns != y->d.total_ns)
		return x->d.total_ns > y->d.total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Kernels launched by a graph replay: those whose correlation is one of a
 * graph launch's.  Sorts the launches' list; decodes add_kern_corr()'s.
 */
static int64_t graph_kernels(struct gpu *g)
{
	int64_t *gc = g->graph_corr;
	const unsigned char *p = (const unsigned char *)g->kern_corr.data, *end;
	size_t ng = g->nr_graph_corr;
	int64_t hits = 0, corr = 0;

	if (!ng)
		return 0;
	qsort(gc, ng, sizeof(*gc), cmp_i64);
	if (!g->kern_corr.len)
		return 0;	/* no kernel has a correlation: data is NULL */
	end = p + g->kern_corr.len;
	while (p < end) {
		corr = varint_unzigzag(corr, varint_get(&p));
		hits += bsearch(&corr, gc, ng, sizeof(*gc), cmp_i64) != NULL;
	}
	return hits;
}

/* A kernel record's duration, its key for sort_middle_by_key(); ctx: the gpu. */
static int64_t rec_dur_key(const void *rec, const void *ctx)
{
	return gpu_rec_dur(ctx, rec);
}

/*
 * The median duration over all n kernel records (not per name): DESIGN.md's
 * median, as report_dist_of() computes it, but selected rather than sorted
 * so that it takes no per-record memory.
 */
static void kernel_median(const struct gpu *g, const struct gpu_rec *r, size_t n, int64_t *med)
{
	int64_t lo, hi;

	*med = INT64_MIN;
	if (!n)
		return;
	sort_middle_by_key(r, n, sizeof(*r), rec_dur_key, g, &lo, &hi);
	/* an even count's median is a half-ns mean: truncated, as sub-ns digits are */
	*med = (int64_t)(((double)lo + (double)hi) / 2);
}

/*
 * One row per kernel name; r[perm[0..n)] are grouped by name, and kcats
 * holds each one's category.
 */
static int kernel_table(struct gpu *g, const struct gpu_rec *recs, const uint32_t *perm, size_t n,
			const struct name_memo *kcats, struct arena *a, struct report_rank *rk)
{
	int64_t *durs = hugepage_malloc((n ? n : 1) * sizeof(*durs));
	size_t rows = 0, nr_names = n ? 1 : 0;

	/* A row per name, not per record: the rows stay in the report. */
	for (size_t i = 1; i < n; i++)
		nr_names += rec_name(&recs[perm[i]]) != rec_name(&recs[perm[i - 1]]);
	rk->kernels = arena_alloc(a, (nr_names ? nr_names : 1) * sizeof(*rk->kernels));
	if (!durs || !rk->kernels) {
		free(durs);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		struct report_kernel *k = &rk->kernels[rows++];
		uint32_t id = rec_name(&recs[perm[i]]);
		const char *name = id ? names_str(g->names, id) : "";
		size_t len = id ? names_len(g->names, id) : 0;
		size_t j = i;

		for (; j < n && rec_name(&recs[perm[j]]) == id; j++)
			durs[j - i] = gpu_rec_dur(g, &recs[perm[j]]);
		report_dist_of(&k->d, durs, j - i);
		k->name = arena_strndup(a, name, len);
		k->category = category_name(kernel_cat(kcats, id));
		k->nr_folded = 0;
		k->category_source = "name";	/* until kctx.h finds its launch */
		k->share = rk->gpu.kernel_time_ns ?
				   (double)k->d.total_ns / (double)rk->gpu.kernel_time_ns : 0.0;
		if (!k->name || report_samples_of(&k->samples, a, durs, j - i)) {
			free(durs);
			return -1;
		}
		i = j;
	}
	free(durs);
	if (rows > 1)
		qsort(rk->kernels, rows, sizeof(*rk->kernels), cmp_kernel_row);
	rk->nr_kernels = rows;
	return 0;
}

/*
 * The length of the union of tasks t[k0..k1) (in start order) of lane lane
 * that are waits (which 1), data moves (0) or either (2), cut to [lo, hi);
 * each merged piece is pushed into out where out is not NULL.  -1 when out
 * of memory.
 */
static int64_t lane_length(const struct comm_task *t, size_t k0, size_t k1, uint32_t lane,
			   int which, int64_t lo, int64_t hi, struct interval_set *out)
{
	int64_t len = 0, a = 0, b = 0;
	int open = 0;

	for (size_t k = k0; k < k1; k++) {
		int64_t x = t[k].ts_ns > lo ? t[k].ts_ns : lo;
		int64_t y = sat_add(t[k].ts_ns, t[k].dur_ns);

		y = y < hi ? y : hi;
		if (t[k].lane != lane || (which != 2 && (int)t[k].wait != which) || y <= x)
			continue;
		if (open && x <= b) {
			b = y > b ? y : b;
			continue;
		}
		if (open) {
			len = sat_add(len, sat_sub(b, a));
			if (out && interval_union_push(out, a, b))
				return -1;
		}
		a = x;
		b = y;
		open = 1;
	}
	if (open) {
		len = sat_add(len, sat_sub(b, a));
		if (out && interval_union_push(out, a, b))
			return -1;
	}
	return len;
}

/*
 * Split the collective operators (coll: disjoint, in time order) by their
 * tasks, as torch_npu's communication analysis does: each operator is read
 * on one lane, the first HCCL plane that waits for a peer (the others copy
 * locally and never synchronise), else the first that has tasks, else the
 * device's streams as one.  On it, transfer is what its data moves cover,
 * synchronisation its Notify Wait before the first move (the peer is not
 * there yet), the later Notify Waits are waiting between the algorithm's
 * steps, and idle the rest of the operator: neither moving data nor
 * waiting for a peer.  g->comm_tasks becomes the moves of the lanes read,
 * so the per-instance transfer of comm.c agrees.  -1 when out of memory.
 */
static int split_ops(struct gpu *g, struct report_gpu *gp, const struct interval_set *coll)
{
	struct comm_task *t = g->ctask;
	size_t nt = g->nr_ctask, j = 0;
	struct interval_set moved = { 0 };
	int64_t sync = 0, idle = 0;

	if (sort_by_first_i64(t, nt, sizeof(*t)))
		return -1;
	for (size_t i = 0; i < coll->n; i++) {
		int64_t lo = coll->v[i].lo, hi = coll->v[i].hi, first = hi, moves, covered, s;
		uint32_t lane = UINT32_MAX, any = UINT32_MAX;
		size_t k1;

		while (j < nt && t[j].ts_ns < lo)
			j++;
		for (k1 = j; k1 < nt && t[k1].ts_ns < hi; k1++) {
			if (t[k1].wait && t[k1].lane < lane && t[k1].lane)
				lane = t[k1].lane;
			if (t[k1].lane < any)
				any = t[k1].lane;
		}
		if (lane == UINT32_MAX)
			lane = any;
		if (lane == UINT32_MAX) {	/* no task: the operator only sat there */
			idle = sat_add(idle, sat_sub(hi, lo));
			continue;
		}
		for (size_t k = j; k < k1; k++)
			if (t[k].lane == lane && !t[k].wait && t[k].ts_ns < first)
				first = t[k].ts_ns > lo ? t[k].ts_ns : lo;
		moves = lane_length(t, j, k1, lane, 0, lo, hi, &moved);
		covered = lane_length(t, j, k1, lane, 2, lo, hi, &g->comm_covered);
		s = lane_length(t, j, k1, lane, 1, lo, first, &g->comm_sync);
		if (moves < 0 || covered < 0 || s < 0)
			goto oom;
		sync = sat_add(sync, s);
		idle = sat_add(idle, sat_sub(sat_sub(hi, lo), covered));
		j = k1;
	}
	interval_set_release(&g->comm_tasks);
	g->comm_tasks = moved;
	gp->comm_sync_ns = sync;
	gp->comm_idle_ns = idle;
	g->split = 1;
	free_ctask(g);
	return 0;
oom:
	interval_set_release(&moved);
	return -1;
}

/*
 * Where the collective operators' own device tasks are recorded (HCCL), the
 * waiting inside collectives is measured on the rank itself: what of the
 * operators' time (coll) no data-moving task (tasks) covers is waiting for
 * the peers (their Notify Wait, and the idle time between tasks), and the
 * device's useful work is everything but the operators: compute, copies and
 * the tasks (work).  Matching across ranks would see only the arrival.
 */
static void wait_from_tasks(struct report_gpu *gp, const struct interval_set *coll,
			    const struct interval_set *tasks, int64_t work)
{
	const struct interval *c = coll->v, *t = tasks->v;
	size_t nc = coll->n, nt = tasks->n;

	gp->has_wait = 1;
	gp->wait_from_tasks = 1;
	gp->comm_transfer_ns = interval_overlap(c, nc, t, nt);
	gp->comm_wait_ns = sat_sub(interval_length(c, nc), gp->comm_transfer_ns);
	gp->effective_utilization = gp->active_span_ns ? (double)work / (double)gp->active_span_ns
						       : NAN;
}

int gpu_finish(struct gpu *g, struct arena *a, struct report_rank *rk)
{
	struct gpu_rec *r;
	size_t n, nk = 0, ndev = 0, ncomm = 0, ndev_comm = 0, nsweep = 0, ntask = 0;
	struct interval_sweep mem = { 0 }, comm = { 0 }, comp = { 0 }, comm_comp = { 0 };
	struct interval_sweep busy = { 0 }, work = { 0 };
	struct interval_set coll = { 0 };	/* the union of the collective operators */
	struct interval run = { 0, 0 };	/* the busy run open in the sweep, for idle.h */
	int run_open = 0;
	struct report_gpu *gp = &rk->gpu;
	uint32_t *perm = NULL;
	int64_t first = 0, last = 0;
	int any = 0, rc = -1;

	if (resolve_pending(g))
		goto out;
	r = g->recs;
	n = g->nr_recs;
	memset(gp, 0, sizeof(*gp));
	/* no wait until the device's tasks or matched collectives give one */
	gp->comm_wait_ns = gp->comm_transfer_ns = INT64_MIN;
	gp->comm_sync_ns = gp->comm_idle_ns = INT64_MIN;
	gp->effective_utilization = NAN;
	device_of(g, &rk->device);
	for (size_t i = 0; i < n; i++)
		if (rec_kind(&r[i]) == GPU_KERNEL &&
		    name_memo_get(g->kcats, g->names, rec_name(&r[i])) < 0)
			goto out;
	for (size_t i = 0; i < n; i++) {
		if (rec_kind(&r[i]) == HOST_SYNC) {
			gp->host_sync_count++;
			gp->host_sync_ns += gpu_rec_dur(g, &r[i]);
		}
		if (rec_kind(&r[i]) > GPU_LAST_DEVICE)	/* not device work */
			continue;
		ndev++;
		ntask += rec_kind(&r[i]) == GPU_COMM_TASK;
		if (!any || r[i].ts_ns < first)
			first = r[i].ts_ns;
		if (!any || r[i].ts_ns + gpu_rec_dur(g, &r[i]) > last)
			last = r[i].ts_ns + gpu_rec_dur(g, &r[i]);
		any = 1;
		if (rec_kind(&r[i]) == GPU_KERNEL) {
			nk++;
			gp->kernel_time_ns = sat_add(gp->kernel_time_ns, gpu_rec_dur(g, &r[i]));
		}
	}
	gp->no_device = ndev == 0;
	gp->kernels = (int64_t)nk;
	gp->active_span_ns = any ? last - first : 0;

	/*
	 * The unions in one sweep of the records in time order (sorted in
	 * place, stably, no copy when they come in order): no interval arrays,
	 * which on a trace of nothing but kernels were the peak of the run.
	 * Kernels split by category into comm and compute; host spans of
	 * collectives count as comm, CPU ones only where there are no kernels,
	 * MTIA's hccl:* always (its device records no collective); busy is
	 * device work only.  The overlap of comm and compute is what their
	 * union lacks of their sum.
	 */
	for (size_t i = 0; i < n; i++) {	/* only what a sweep takes: fewer to sort */
		unsigned kind = rec_kind(&r[i]);

		if (kind <= GPU_LAST_DEVICE || (kind == CPU_COMM && nk == 0) || kind == HOST_COLL)
			r[nsweep++] = r[i];
	}
	n = nsweep;
	if (sort_by_first_i64(r, n, sizeof(*r)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		int64_t lo = r[i].ts_ns, hi = r[i].ts_ns + gpu_rec_dur(g, &r[i]);
		unsigned kind = rec_kind(&r[i]);

		/* as interval_sweep_add() joins them */
		if (kind <= GPU_LAST_DEVICE && hi > lo) {
			if (run_open && lo <= run.hi) {
				run.hi = hi > run.hi ? hi : run.hi;
			} else {
				if (run_open)
					interval_list_add(&g->busy, run.lo, run.hi);
				run = (struct interval){ lo, hi };
				run_open = 1;
			}
		}
		if (kind == GPU_MEMCPY || kind == GPU_MEMSET) {
			interval_sweep_add(&mem, lo, hi);
			interval_sweep_add(&busy, lo, hi);
			interval_sweep_add(&work, lo, hi);
		} else if (kind == GPU_COMM_TASK) {
			ndev_comm++;
			interval_sweep_add(&comm, lo, hi);
			interval_sweep_add(&comm_comp, lo, hi);
			interval_sweep_add(&busy, lo, hi);
			interval_sweep_add(&work, lo, hi);
			if (interval_union_push(&g->comm_tasks, lo, hi))
				goto out;
		} else if (kind == GPU_KERNEL) {
			int c = kernel_cat(g->kcats, rec_name(&r[i])) == CAT_COMM;

			ndev_comm += (size_t)c;
			interval_sweep_add(c ? &comm : &comp, lo, hi);
			interval_sweep_add(&comm_comp, lo, hi);
			interval_sweep_add(&busy, lo, hi);
			if (!c)
				interval_sweep_add(&work, lo, hi);
			else if (ntask && interval_union_push(&coll, lo, hi))
				goto out;
		} else if ((kind == CPU_COMM && nk == 0) || kind == HOST_COLL) {
			ncomm++;
			interval_sweep_add(&comm, lo, hi);
			interval_sweep_add(&comm_comp, lo, hi);
		}
	}
	if (run_open)
		interval_list_add(&g->busy, run.lo, run.hi);
	if (!buf_ok(&g->busy.bytes))
		goto out;
	ncomm += ndev_comm;
	gp->memory_ns = interval_sweep_length(&mem);
	gp->comm_ns = interval_sweep_length(&comm);
	gp->compute_ns = interval_sweep_length(&comp);
	gp->cpu_comm = ndev_comm == 0 && ncomm > 0;
	if (nk == 0)
		gp->cpu_comm = 1;
	/* no kernels, nothing to overlap with: null, not 0 */
	gp->comm_compute_overlap =
		gp->comm_ns && nk ? (double)sat_sub(sat_add(gp->comm_ns, gp->compute_ns),
						    interval_sweep_length(&comm_comp)) /
					    (double)gp->comm_ns
				  : NAN;
	gp->busy_ns = interval_sweep_length(&busy);
	gp->idle_ns = sat_sub(gp->active_span_ns, gp->busy_ns);
	gp->utilization = gp->active_span_ns ? (double)gp->busy_ns / (double)gp->active_span_ns
					     : NAN;
	if (coll.n && g->nr_ctask && split_ops(g, gp, &coll))
		goto out;
	if (coll.n && g->comm_tasks.n)
		wait_from_tasks(gp, &coll, &g->comm_tasks, interval_sweep_length(&work));
	/* no device activity: its figures are null, but comm on CPU threads (report.h) */
	if (gp->no_device) {
		gp->kernels = gp->kernel_time_ns = gp->busy_ns = gp->active_span_ns = INT64_MIN;
		gp->idle_ns = gp->compute_ns = gp->memory_ns = INT64_MIN;
		if (!gp->cpu_comm)
			gp->comm_ns = INT64_MIN;
	}

	/* The kernel table: kernels first, grouped by name (in time order within one). */
	for (size_t i = 0, k = 0; i < n; i++)
		if (rec_kind(&r[i]) == GPU_KERNEL)
			r[k++] = r[i];
	g->nr_recs = nk;	/* the other records were folded in above */
	kernel_median(g, r, nk, &gp->kernel_median_ns);
	gp->graph_launches = g->nr_graph_launches;
	gp->graph_kernels = graph_kernels(g);
	perm = group_by_name(g, r, nk);
	if (!perm)
		goto out;
	rc = kernel_table(g, r, perm, nk, g->kcats, a, rk);
out:
	interval_set_release(&coll);
	free(perm);
	/* The report holds what the records gave: free them for comm_finish's peak. */
	free_records(g);
	return rc;
}
