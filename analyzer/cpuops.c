/*
 * cpuops: see cpuops.h.  Nesting is found per thread by ordering its spans by
 * start (longest first on ties) and sweeping with a stack of open spans; the
 * order is a permutation built by linear-time sorts (lib/sort), as there
 * are a million operator events in a gigabyte of trace.  Device time is
 * placed at its launch by launch.h, as for phases; the sweep asks about the
 * operators in thread and start order, so each question moves launch.h's
 * cursor a few records forward instead of searching all of them.
 */
#include "cpuops.h"

#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "classify.h"
#include "grow.h"
#include "hugepage.h"
#include "launch.h"
#include "opsperf.h"
#include "perf_model.h"
#include "sat.h"
#include "sort.h"
#include "track.h"

/*
 * 24 bytes: a million of them in a gigabyte of trace.  The duration is
 * inline below CPU_LONG_DUR ns (2.1 s: all but a few real operators);
 * longer ones and negative ones (broken traces) are CPU_LONG_DUR | their
 * index in cpuops.long_dur, exact either way (see rec_dur()).
 */
struct cpu_rec {
	int64_t ts_ns;
	uint32_t dur;
	uint32_t name;
	uint32_t track : 31;
	uint32_t by_name : 1;	/* an operator only by annot.h: dropped if the trace has a cat */
	uint32_t shape;		/* id in cpuops.shapes; 0: none */
};

#define CPU_LONG_DUR 0x80000000u
_Static_assert(sizeof(struct cpu_rec) == 24, "a CPU operator takes 24 bytes");

/*
 * A span open in cpuops_finish()'s sweep, with the sums of its direct
 * children, complete when it closes.
 */
struct cpu_open {
	uint32_t i;		/* the record */
	int64_t end_ns;		/* its start plus its duration */
	int64_t child_ns;	/* summed durations of direct children */
	int64_t child_dev_ns;	/* summed device time of direct children */
};

/* The children's sums per record, where the rows must be added in file order. */
struct cpu_sums {
	int64_t child_ns, child_dev_ns;
};

/* What the sweep finds of each record besides its device time, a byte apart. */
#define CPU_CLAIMED 1	/* a modelled operator inside it launched device work */
#define CPU_INSIDE 2	/* inside a convolution, which takes all it launched */

static inline int64_t rec_dur(const struct cpuops *c, const struct cpu_rec *r)
{
	return r->dur < CPU_LONG_DUR ? (int64_t)r->dur : c->long_dur[r->dur & ~CPU_LONG_DUR];
}

static void free_recs(struct cpuops *c)
{
	free(c->recs);
	c->recs = NULL;
	c->nr_recs = c->recs_alloc = 0;
	free(c->long_dur);
	c->long_dur = NULL;
	c->nr_long_dur = c->long_dur_alloc = 0;
}

static void free_when_flops(struct cpuops *c)
{
	free(c->when_flops.v);
	c->when_flops = (struct opsperf_when){ 0 };
}

void cpuops_init(struct cpuops *c, struct names *names)
{
	c->names = names;
	c->recs = NULL;
	c->nr_recs = c->recs_alloc = 0;
	c->long_dur = NULL;
	c->nr_long_dur = c->long_dur_alloc = 0;
	c->has_cat = 0;
	strtab_init(&c->shapes, 1);
	memset(c->cache, 0, sizeof(c->cache));
	buf_init(&c->key);
	c->when_flops = (struct opsperf_when){ 0 };
	c->has_shapes = c->by_name_shapes = 0;
	replay_init(&c->replay);
}

void cpuops_release(struct cpuops *c)
{
	free_recs(c);
	strtab_release(&c->shapes);
	buf_release(&c->key);
	free_when_flops(c);
	replay_release(&c->replay);
}

/* k[0..n) is s[0..n); s may be NULL when n is 0 (an arg the trace lacks). */
static int same(const char *k, const char *s, size_t n)
{
	return n == 0 || memcmp(k, s, n) == 0;
}

/* Whether cache entry e holds the key of name[0..n) and shapes sh. */
static int cached_key(const struct cpuops *c, const struct shape_cache *e, const char *name,
		      size_t n, const struct event_shapes *sh)
{
	const char *k = strtab_str(&c->shapes, e->id);

	return same(k, name, n) && k[n] == OPSPERF_SEP &&
	       same(k += n + 1, sh->dims, sh->nr_dims) && k[sh->nr_dims] == OPSPERF_SEP &&
	       same(k += sh->nr_dims + 1, sh->types, sh->nr_types) &&
	       k[sh->nr_types] == OPSPERF_SEP &&
	       same(k + sh->nr_types + 1, sh->concrete, sh->nr_concrete);
}

/*
 * The shape key of an operator perf_model knows (opsperf.h: the args'
 * text as the trace has it, opsperf_finish() reformats it), interned; 0
 * for one it does not.  known caches perf_model_family() per name id of
 * the batch: 0 not asked, 1 no, 2 yes.  A million operators carry
 * shapes in a few hundred distinct keys: the cache of recent keys answers
 * most with a compare, without building and hashing the key.
 */
static uint32_t shape_of(struct cpuops *c, const struct event_batch *b,
			 const struct trace_event *ev, signed char *known)
{
	const struct strtab *st = &b->strs;
	const struct event_shapes *sh = &b->shapes[ev->shapes];
	const char *name = strtab_str(st, ev->name);
	uint32_t n = strtab_len(st, ev->name), id;
	size_t len = (size_t)n + 3 + sh->nr_dims + sh->nr_types + sh->nr_concrete;
	struct shape_cache *e = &c->cache[(len * 0x9e3779b1u + sh->nr_dims) % CPUOPS_SHAPE_CACHE];

	if (!known[ev->name])
		known[ev->name] = perf_model_family(name, n) != CAT_NONE ? 2 : 1;
	if (known[ev->name] != 2)
		return 0;
	if (e->id && e->len == len && cached_key(c, e, name, n, sh))
		return e->id;
	buf_reset(&c->key);
	buf_add(&c->key, name, n);
	buf_addc(&c->key, OPSPERF_SEP);
	buf_add(&c->key, sh->dims, sh->nr_dims);
	buf_addc(&c->key, OPSPERF_SEP);
	buf_add(&c->key, sh->types, sh->nr_types);
	buf_addc(&c->key, OPSPERF_SEP);
	buf_add(&c->key, sh->concrete, sh->nr_concrete);
	if (!buf_ok(&c->key))
		return STRTAB_OOM;
	id = strtab_intern(&c->shapes, c->key.data, c->key.len);
	if (id != STRTAB_OOM) {
		e->id = id;
		e->len = len;
	}
	return id;
}

int cpuops_collect(struct cpuops *c, const struct event_batch *b, int has_cat,
		   const unsigned char *cls, struct strtab *tracks)
{
	const struct strtab *st = &b->strs;
	uint32_t device_pid = strtab_find(st, ANNOT_DEVICE_PID, strlen(ANNOT_DEVICE_PID));
	uint32_t nstr = strtab_count(st) + 1;
	struct track_cache cache = { 0 };
	signed char *op_name = calloc(nstr, 1);	/* no cat: 0 unknown, 1 no, 2 an operator */
	signed char *known = calloc(nstr, 1);	/* see shape_of() */
	int rc = -1;

	if (!op_name || !known || ALLOC_GROW(c->recs, c->nr_recs + b->n, c->recs_alloc))
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct cpu_rec rec = { 0 };
		uint32_t track;

		if (ev->phase != 'X' || !(ev->flags & EV_TS))
			continue;
		if (!ev->cat && ev->name && !has_cat && !(device_pid && ev->pid == device_pid)) {
			/* legacy PyTorch writer: operators are the spans that are no annotation */
			if (!op_name[ev->name])
				op_name[ev->name] = annot_is_user(strtab_str(st, ev->name),
								  strtab_len(st, ev->name)) ? 1 : 2;
			if (op_name[ev->name] != 2)
				continue;
			rec.by_name = 1;
		} else if (cls[i] != EVC_CPU_OP) {
			continue;
		}
		rec.ts_ns = ev->ts_ns;
		rec.dur = (uint32_t)ev->dur_ns;
		if (ev->dur_ns < 0 || ev->dur_ns >= CPU_LONG_DUR) {
			size_t idx = c->nr_long_dur;

			if (idx >= CPU_LONG_DUR ||
			    ALLOC_GROW(c->long_dur, idx + 1, c->long_dur_alloc))
				goto out;
			rec.dur = CPU_LONG_DUR | (uint32_t)idx;
			c->long_dur[c->nr_long_dur++] = ev->dur_ns;
		}
		rec.name = names_id(c->names, ev->name);
		if (rec.name == STRTAB_OOM)
			goto out;
		if (ev->shapes) {
			/* one by name stays only if no event has a cat: keep_ops() */
			if (rec.by_name)
				c->by_name_shapes = 1;
			else
				c->has_shapes = 1;
			rec.shape = ev->name ? shape_of(c, b, ev, known) : 0;
			if (rec.shape == STRTAB_OOM)
				goto out;
		}
		track = track_id(tracks, &cache, b, ev);
		if (track >= 1u << 31)	/* STRTAB_OOM, or more threads than the field holds */
			goto out;
		rec.track = track;
		c->recs[c->nr_recs++] = rec;	/* room for the whole batch was made above */
	}
	c->has_cat = has_cat;
	rc = 0;
out:
	free(op_name);
	free(known);
	return rc;
}

int cpuops_collect_replay(struct cpuops *c, const struct event_batch *b, const unsigned char *cls,
			  const unsigned char *sub, unsigned char *tag)
{
	return replay_collect(&c->replay, b, cls, sub, tag);
}

#define RUN_BY_INSERTION 16	/* longer runs of one thread and start: a radix sort */

/* key, made at its first use (n records' worth); NULL when out of memory. */
static uint64_t *key_array(uint64_t **key, size_t n)
{
	if (!*key)
		*key = hugepage_malloc((n ? n : 1) * sizeof(**key));
	return *key;
}

/*
 * perm: the records by thread, then start, then longest first (a parent
 * before the children that start with it), then file order.  The records
 * are counted out by thread straight into perm, and a thread's run is
 * sorted by start only where it is not in that order already (spans mostly
 * come so): beyond perm nothing a record is allocated unless some run
 * needs sorting, as this runs while every analysis's records are held.
 */
static int nesting_order(const struct cpuops *c, uint32_t nr_tracks, size_t n, uint32_t *perm)
{
	const struct cpu_rec *r = c->recs;
	size_t *start = hugepage_calloc((size_t)nr_tracks + 2, sizeof(*start));
	uint64_t *key = NULL;
	int rc = -1;

	if (!start)
		goto out;
	for (size_t i = 0; i < n; i++)
		start[r[i].track + 1]++;
	for (size_t t = 1; t <= (size_t)nr_tracks + 1; t++)
		start[t] += start[t - 1];
	for (size_t i = 0; i < n; i++)	/* start[t] ends as the end of thread t's run */
		perm[start[r[i].track]++] = (uint32_t)i;
	for (size_t t = 0, lo = 0; t <= nr_tracks; lo = start[t++]) {
		size_t hi = start[t], i = lo + 1;

		while (i < hi && r[perm[i - 1]].ts_ns <= r[perm[i]].ts_ns)
			i++;
		if (i >= hi)
			continue;
		if (!key_array(&key, n))
			goto out;
		for (i = lo; i < hi; i++)
			key[perm[i]] = sort_key_i64(r[perm[i]].ts_ns);
		if (sort_perm_u64(key, perm + lo, hi - lo))	/* stable: file order on ties */
			goto out;
	}
	/*
	 * Runs with one thread and start: longest first, keeping file order.
	 * Real runs are a few spans, sorted by insertion; a hostile trace can
	 * start every span of a thread at once, so a long run is radix sorted
	 * (its records get their durations, descending, as keys).
	 */
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const struct cpu_rec *x = &r[perm[lo]];

		for (hi = lo + 1; hi < n && r[perm[hi]].track == x->track &&
				  r[perm[hi]].ts_ns == x->ts_ns; hi++)
			;
		if (hi - lo > RUN_BY_INSERTION) {
			if (!key_array(&key, n))
				goto out;
			for (size_t i = lo; i < hi; i++)
				key[perm[i]] = ~sort_key_i64(rec_dur(c, &r[perm[i]]));
			if (sort_perm_u64(key, perm + lo, hi - lo))
				goto out;
			continue;
		}
		for (size_t i = lo + 1; i < hi; i++) {
			uint32_t y = perm[i];
			int64_t dur = rec_dur(c, &r[y]);
			size_t j = i;

			while (j > lo && rec_dur(c, &r[perm[j - 1]]) < dur) {
				perm[j] = perm[j - 1];
				j--;
			}
			perm[j] = y;
		}
	}
	rc = 0;
out:
	free(key);
	free(start);
	return rc;
}

static int cmp_row(const void *a, const void *b)
{
	const struct report_cpu_op *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Drop the operators found by name when the trace turned out to have cats. */
static size_t keep_ops(struct cpuops *c)
{
	struct cpu_rec *r = c->recs;
	size_t k = 0;

	if (!c->has_cat) {
		c->has_shapes |= c->by_name_shapes;
		return c->nr_recs;
	}
	for (size_t i = 0; i < c->nr_recs; i++)
		if (!r[i].by_name)
			r[k++] = r[i];
	c->nr_recs = k;
	return k;
}

/*
 * rk->ops_perf from the calls of the innermost modelled operators that
 * launched device work, with all the device work they launched: aten::mm
 * inside aten::matmul inside aten::linear, and the SDPA operator above
 * its _flash_attention_forward (which the model leaves out for that), as
 * TraceLens reports them; the operators above would count it twice.  A
 * convolution is the exception: its bias add_ (or a backward's bias sum),
 * modelled operators under it, would otherwise take the row from the
 * convolution whose cuDNN or MIOpen kernels ran below them.
 */
static int ops_perf(struct cpuops *c, size_t n, const int64_t *dev, const unsigned char *flag,
		    int has_device, struct arena *a, struct report_rank *rk)
{
	const struct cpu_rec *r = c->recs;
	struct opsperf_call *calls = NULL;
	struct replay_eager *eager = NULL;	/* the same calls, for replay_finish() */
	size_t k = 0;
	int rc = -1;

	rk->perf.has_shapes = c->has_shapes;
	for (size_t i = 0; has_device && i < n; i++)
		k += r[i].shape && dev[i] > 0 && !flag[i];
	if (!(calls = malloc((k ? k : 1) * sizeof(*calls))) ||
	    !(eager = malloc((k ? k : 1) * sizeof(*eager))))
		goto out;
	k = 0;
	for (size_t i = 0; has_device && i < n; i++)
		if (r[i].shape && dev[i] > 0 && !flag[i]) {
			int64_t end = sat_add(r[i].ts_ns, rec_dur(c, &r[i]));

			eager[k] = (struct replay_eager){ r[i].ts_ns, end, r[i].track, r[i].shape };
			calls[k++] = (struct opsperf_call){ r[i].ts_ns, dev[i], r[i].shape };
		}
	rc = opsperf_finish(&c->shapes, calls, k, a, rk, &c->when_flops);
	if (!rc)
		rc = replay_finish(&c->replay, &c->shapes, rk->device_name, eager, k,
				   &c->when_flops);
out:
	free(calls);
	free(eager);
	strtab_release(&c->shapes);
	return rc;
}

int cpuops_perf_steps(struct cpuops *c, struct arena *a, struct report_rank *rk)
{
	int rc = opsperf_steps(&c->when_flops, a, rk);

	free_when_flops(c);
	return rc;
}

/* Per shape id of c->shapes (0 included): 1 for a convolution's; NULL when out of memory. */
static unsigned char *conv_shapes(const struct strtab *shapes)
{
	uint32_t n = strtab_count(shapes);
	unsigned char *v = calloc((size_t)n + 1, 1);

	for (uint32_t id = 1; v && id <= n; id++) {
		const char *k = strtab_str(shapes, id), *sep;
		size_t len = strtab_len(shapes, id), head;

		sep = memchr(k, OPSPERF_SEP, len);
		head = sep ? (size_t)(sep - k) : len;
		v[id] = perf_model_family(k, head) == CAT_CONV;
	}
	return v;
}

/*
 * The operator that made launch call l of a graph capture, from the open
 * spans stack[0..depth) of the sweep (spans of l's thread that began at or
 * before it): the outermost convolution, which takes all it launched, else
 * the innermost operator the model knows, as ops_perf() gives rows.
 */
static void own_launch(struct replay_launch *l, const struct cpuops *c,
		       const struct cpu_open *stack, size_t depth, const unsigned char *whole)
{
	const struct cpu_rec *r = c->recs;

	if (!depth || r[stack[0].i].track != l->track)
		return;
	while (depth && l->ts_ns >= sat_add(r[stack[depth - 1].i].ts_ns,
					    rec_dur(c, &r[stack[depth - 1].i])))
		depth--;
	for (size_t d = 0; d < depth; d++)
		if (whole[r[stack[d].i].shape]) {
			l->owner = stack[d].i + 1;
			l->shape = r[stack[d].i].shape;
			return;
		}
	for (size_t d = depth; d-- > 0;)
		if (r[stack[d].i].shape) {
			l->owner = stack[d].i + 1;
			l->shape = r[stack[d].i].shape;
			return;
		}
}

/*
 * The names of the n records kept, renumbered 1, 2, ... in the order of
 * their first record (0 stays "no name"), so that the rows by name are as
 * many as the operators' names, not as the file's (names.h holds every
 * analysis's: a trace of a million frames and kernels has a million
 * names no operator has).  (*name_of)[k] is row k's name id, of *nr rows.
 * -1 when out of memory.
 */
static int op_names(struct cpuops *c, size_t n, uint32_t **name_of, uint32_t *nr)
{
	uint32_t *row_of = calloc((size_t)names_count(c->names) + 1, sizeof(*row_of));
	uint32_t *of = malloc(sizeof(*of)), k = 0;
	size_t alloc = 1;

	*name_of = NULL;
	if (!row_of || !of)
		goto fail;
	of[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = c->recs[i].name;

		if (id && !row_of[id]) {
			if (ALLOC_GROW(of, (size_t)k + 2, alloc))
				goto fail;
			row_of[id] = ++k;
			of[k] = id;
		}
		c->recs[i].name = row_of[id];
	}
	free(row_of);
	*name_of = of;
	*nr = k;
	return 0;
fail:
	free(row_of);
	free(of);
	return -1;
}

/* The rows by name, empty. */
static void rows_reset(struct report_cpu_op *by_name, uint32_t nr_names, int has_device)
{
	for (uint32_t id = 0; id <= nr_names; id++) {
		struct report_cpu_op *op = &by_name[id];

		op->count = op->total_ns = op->self_ns = 0;
		op->device_ns = op->self_device_ns = has_device ? 0 : INT64_MIN;
		op->nr_folded = 0;
	}
}

/* The sweep closes span o: its self times into its name's row. */
static inline void close_span(const struct cpuops *c, const struct cpu_open *o, const int64_t *dev,
		       int has_device, struct report_cpu_op *by_name)
{
	const struct cpu_rec *s = &c->recs[o->i];
	struct report_cpu_op *op = &by_name[s->name];

	op->self_ns = sat_add(op->self_ns, sat_sub(rec_dur(c, s), o->child_ns));
	if (has_device)
		op->self_device_ns = sat_add(op->self_device_ns,
					     sat_sub(dev[o->i], o->child_dev_ns));
}

/*
 * Whether no sum of the rows can leave the int64 range, whatever the
 * order of the additions: a total, a span's children's, a self time (a
 * duration less its children's) and a sum of those stay within twice the
 * sum of all durations (each counts once as a span and at most once as a
 * child), and likewise for device time.  Then the rows the sweep added up
 * are those of file order, which the sat.h helpers would make otherwise.
 */
static int rows_exact(uint64_t span, uint64_t device)
{
	return span <= INT64_MAX / 2 && device <= INT64_MAX / 2;
}

/* sum + |v|, at most 2^63 (|v| is below: times stay within sat.h's limits). */
static inline uint64_t add_size(uint64_t sum, int64_t v)
{
	uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	return sum + m > 1ull << 63 ? 1ull << 63 : sum + m;
}

/*
 * The rows added up in file order, through the children's sums of every
 * record: for the traces whose sums may saturate (rows_exact()), where the
 * order changes the figures.
 */
static int rows_in_file_order(const struct cpuops *c, size_t n, const uint32_t *perm,
			      const int64_t *dev, int has_device, struct report_cpu_op *by_name,
			      uint32_t nr_names, size_t *rows)
{
	const struct cpu_rec *r = c->recs;
	struct cpu_sums *sum = hugepage_malloc((n ? n : 1) * sizeof(*sum));
	uint32_t *stack = hugepage_malloc((n ? n : 1) * sizeof(*stack));
	size_t depth = 0;
	int rc = -1;

	if (!sum || !stack)
		goto out;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = perm[k];

		sum[i] = (struct cpu_sums){ 0 };
		if (k && r[i].track != r[perm[k - 1]].track)
			depth = 0;
		while (depth && r[i].ts_ns >= r[stack[depth - 1]].ts_ns +
						       rec_dur(c, &r[stack[depth - 1]]))
			depth--;
		if (depth) {
			struct cpu_sums *up = &sum[stack[depth - 1]];

			up->child_ns = sat_add(up->child_ns, rec_dur(c, &r[i]));
			up->child_dev_ns = sat_add(up->child_dev_ns, dev[i]);
		}
		stack[depth++] = i;
	}
	rows_reset(by_name, nr_names, has_device);
	*rows = 0;
	for (size_t i = 0; i < n; i++) {
		struct report_cpu_op *op = &by_name[r[i].name];
		int64_t dur = rec_dur(c, &r[i]);

		*rows += op->count++ == 0;
		op->total_ns = sat_add(op->total_ns, dur);
		op->self_ns = sat_add(op->self_ns, sat_sub(dur, sum[i].child_ns));
		if (!has_device)
			continue;
		op->device_ns = sat_add(op->device_ns, dev[i]);
		op->self_device_ns = sat_add(op->self_device_ns,
					     sat_sub(dev[i], sum[i].child_dev_ns));
	}
	rc = 0;
out:
	free(sum);
	free(stack);
	return rc;
}

int cpuops_finish(struct cpuops *c, const struct placement *pl, struct arena *a,
		  struct report_rank *rk)
{
	size_t n = keep_ops(c), depth = 0, stack_alloc = 0, rows = 0, at = 0, li = 0;
	struct cpu_rec *r = c->recs;
	struct replay_launch *lv = c->replay.launches;	/* by thread and time */
	uint32_t *perm = hugepage_malloc((n ? n : 1) * sizeof(*perm));	/* nesting_order() */
	uint64_t span = 0, device = 0;	/* for rows_exact() */
	struct cpu_open *stack = NULL;	/* as deep as the nesting */
	/* else device times are null */
	int has_device = (pl->any_device & 1u << LAUNCH_CPUOPS) != 0;
	/* after nesting_order(), not beside its arrays */
	int64_t *dev = NULL;		/* device time launched inside each span */
	unsigned char *flag = NULL;	/* CPU_CLAIMED, CPU_INSIDE per record */
	unsigned char *whole = NULL;	/* per shape id: a convolution's */
	struct report_cpu_op *by_name = NULL;	/* the rows by name, op_names()' */
	uint32_t *name_of = NULL, nr_names = 0;
	int rc = -1;

	if (!perm || op_names(c, n, &name_of, &nr_names) ||
	    nesting_order(c, pl->nr_tracks, n, perm) ||
	    !(dev = hugepage_malloc((n ? n : 1) * sizeof(*dev))) ||
	    !(flag = hugepage_malloc(n ? n : 1)) ||
	    !(by_name = malloc(((size_t)nr_names + 1) * sizeof(*by_name))) ||
	    !(whole = conv_shapes(&c->shapes)) || replay_windows(&c->replay))
		goto out;
	rows_reset(by_name, nr_names, has_device);
	lv = c->replay.launches;
	/*
	 * One row per name, added up as the sweep goes: each span's total as it
	 * opens, its self times as it closes (its children's sums kept on the
	 * stack, not per record).
	 */
	for (size_t k = 0; k < n; k++) {
		uint32_t i = perm[k];
		struct cpu_rec *s = &r[i];
		struct report_cpu_op *op = &by_name[s->name];
		int64_t dur = rec_dur(c, s);

		/* the capture's launches before this span, with the spans open at them */
		for (; li < c->replay.nr_launches &&
		       (lv[li].track < s->track || (lv[li].track == s->track &&
						    lv[li].ts_ns < s->ts_ns)); li++)
			own_launch(&lv[li], c, stack, depth, whole);

		flag[i] = 0;
		/* perm is in thread and start order: the cursor only moves on */
		dev[i] = has_device ? placed_within(pl, LAUNCH_CPUOPS, &at, s->track, s->ts_ns,
						    sat_add(s->ts_ns, dur))
				    : 0;
		if (k && s->track != r[perm[k - 1]].track)
			while (depth)
				close_span(c, &stack[--depth], dev, has_device, by_name);
		while (depth && s->ts_ns >= stack[depth - 1].end_ns)
			close_span(c, &stack[--depth], dev, has_device, by_name);
		/*
		 * The innermost modelled operator gets the calls' rows (ops_perf()):
		 * its ancestors are claimed, from the top of the stack down to one
		 * claimed before, whose own ancestors were claimed with it; so each
		 * span is claimed once, whatever the nesting depth.
		 */
		if (depth && ((flag[stack[depth - 1].i] & CPU_INSIDE) ||
			      whole[r[stack[depth - 1].i].shape]))
			flag[i] = CPU_INSIDE;
		if (s->shape && dev[i] > 0 && !flag[i])
			for (size_t d = depth; d-- > 0 && !(flag[stack[d].i] & CPU_CLAIMED);)
				flag[stack[d].i] |= CPU_CLAIMED;
		if (depth) {
			struct cpu_open *up = &stack[depth - 1];

			up->child_ns = sat_add(up->child_ns, dur);
			up->child_dev_ns = sat_add(up->child_dev_ns, dev[i]);
		}
		rows += op->count++ == 0;
		op->total_ns = sat_add(op->total_ns, dur);
		span = add_size(span, dur);
		if (has_device) {
			op->device_ns = sat_add(op->device_ns, dev[i]);
			device = add_size(device, dev[i]);
		}
		if (ALLOC_GROW(stack, depth + 1, stack_alloc))
			goto out;
		/* within sat.h's time limits: the end cannot overflow */
		stack[depth++] = (struct cpu_open){ i, s->ts_ns + dur, 0, 0 };
	}
	for (; li < c->replay.nr_launches; li++)
		own_launch(&lv[li], c, stack, depth, whole);
	while (depth)
		close_span(c, &stack[--depth], dev, has_device, by_name);
	free(stack);
	stack = NULL;
	if (!rows_exact(span, device) &&
	    rows_in_file_order(c, n, perm, dev, has_device, by_name, nr_names, &rows))
		goto out;
	free(perm);
	perm = NULL;

	/* a row per name, not per record: the rows stay in the report */
	rk->cpu_ops = arena_alloc(a, (rows ? rows : 1) * sizeof(*rk->cpu_ops));
	rows = 0;
	if (!rk->cpu_ops)
		goto out;
	for (uint32_t id = 0; id <= nr_names; id++) {
		struct report_cpu_op *op = &rk->cpu_ops[rows];

		if (!by_name[id].count)
			continue;
		*op = by_name[id];
		/* children's device time beyond the parent's (records that overlap): no figure */
		if (op->device_ns < 0)
			op->device_ns = INT64_MIN;
		if (op->self_device_ns < 0)
			op->self_device_ns = INT64_MIN;
		op->name = id ? arena_strndup(a, names_str(c->names, name_of[id]),
					      names_len(c->names, name_of[id]))
			      : "";
		if (!op->name)
			goto out;
		rows++;
	}
	if (rows > 1)
		qsort(rk->cpu_ops, rows, sizeof(*rk->cpu_ops), cmp_row);
	rk->nr_cpu_ops = rows;
	if (ops_perf(c, n, dev, flag, has_device, a, rk))
		goto out;
	rc = 0;
out:
	free(stack);
	free(perm);
	free(dev);
	free(flag);
	free(whole);
	free(by_name);
	free(name_of);
	/* The rows hold what the records gave: free them before comm_finish() runs. */
	free_recs(c);
	return rc;
}
