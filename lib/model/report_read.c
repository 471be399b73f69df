/*
 * report_read: see report_read.h.
 *
 * The file is parsed into a jdom tree in a scratch arena, then walked once;
 * what the report keeps is copied into r->arena.  The first problem found
 * is remembered in struct rd and every later getter returns a zero value,
 * so the walk reads straight through and the result is checked once.
 */
#include "report_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "jdom.h"
#include "metric.h"
#include "report_fields.h"
#include "sat.h"
#include "trace_read.h"

struct rd {
	struct report *r;
	struct err *err;
	int failed;
	int lean;			/* REPORT_READ_LEAN */
	int compact;			/* the file has no rank tables */
};

static void fail(struct rd *c, const struct jdom *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first failure only: later ones follow from it. */
static void fail(struct rd *c, const struct jdom *at, const char *fmt, ...)
{
	char msg[sizeof(c->err->msg)];
	va_list ap;

	if (c->failed)
		return;
	c->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_set(c->err, at ? at->offset : -1, "%s", msg);
}

/* The member key of obj, of type t; NULL (and failure) when it is not. */
static const struct jdom *need(struct rd *c, const struct jdom *obj, const char *key,
			       enum jdom_type t)
{
	const struct jdom *v = jdom_get(obj, key);

	if (!v) {
		fail(c, obj, "\"%s\" is missing%s", key, "");
		return NULL;
	}
	if (v->type != t) {
		fail(c, v, "\"%s\" should be %s", key, jdom_type_name(t));
		return NULL;
	}
	return v;
}

static int64_t get_i64(struct rd *c, const struct jdom *obj, const char *key)
{
	const struct jdom *v = jdom_get(obj, key);
	int64_t x = 0;

	if (!v)
		fail(c, obj, "\"%s\" is missing%s", key, "");
	else if (jdom_i64(v, &x))
		fail(c, v, "\"%s\" should be %s", key, "an integer");
	return x;
}

/* An integer that may be null: null gives dflt. */
static int64_t get_i64_or(struct rd *c, const struct jdom *obj, const char *key, int64_t dflt)
{
	const struct jdom *v = jdom_get(obj, key);

	return v && v->type == JDOM_NULL ? dflt : get_i64(c, obj, key);
}

static double get_f64(struct rd *c, const struct jdom *obj, const char *key)
{
	const struct jdom *v = jdom_get(obj, key);
	double x = 0;

	if (!v)
		fail(c, obj, "\"%s\" is missing%s", key, "");
	else if (jdom_f64(v, &x))
		fail(c, v, "\"%s\" should be %s", key, "a number or null");
	return x;
}

/* s[0..n) kept as long as the report: interned where the report has a table. */
/* s[0..n) kept with the report; NULL (and failure) when out of memory. */
static const char *keep(struct rd *c, const char *s, size_t n)
{
	struct strtab *t = c->r->strings;
	const char *k;
	uint32_t id;

	if (!t) {
		k = arena_strndup(&c->r->arena, s, n);
	} else {
		id = strtab_intern(t, s, n);
		k = id == STRTAB_OOM ? NULL : strtab_str(t, id);
	}
	if (!k)
		fail(c, NULL, "out of memory%s%s", "", "");
	return k;
}

static const char *copy_str(struct rd *c, const struct jdom *v)
{
	const char *s = keep(c, v->s, v->len);

	return s ? s : "";
}

static const char *get_str(struct rd *c, const struct jdom *obj, const char *key)
{
	const struct jdom *v = need(c, obj, key, JDOM_STRING);

	return v ? copy_str(c, v) : "";
}

/* An array member's elements, all of type t (JDOM_NULL: any); n = 0 on failure. */
static const struct jdom *get_arr(struct rd *c, const struct jdom *obj, const char *key,
				  size_t *n)
{
	const struct jdom *v = need(c, obj, key, JDOM_ARRAY);

	*n = v ? v->n : 0;
	return v ? v->kids : NULL;
}

static void *alloc_n(struct rd *c, size_t n, size_t size)
{
	void *p = arena_alloc(&c->r->arena, (n ? n : 1) * size);

	if (!p)
		fail(c, NULL, "out of memory%s%s", "", "");
	return p;
}

/* obj's array key of integers, or (dbl) numbers and nulls (NaN), *n of them (0 on failure). */
static void *num_array(struct rd *c, const struct jdom *obj, const char *key, int dbl, size_t *n)
{
	const struct jdom *a = get_arr(c, obj, key, n);
	char *v = alloc_n(c, *n, dbl ? sizeof(double) : sizeof(int64_t));

	for (size_t i = 0; v && i < *n; i++)
		if (dbl ? jdom_f64(&a[i], (double *)v + i) : jdom_i64(&a[i], (int64_t *)v + i))
			fail(c, &a[i], "\"%s\" should hold %s", key, dbl ? "numbers" : "integers");
	if (!v || c->failed)
		*n = 0;
	return v;
}

/* The earlier array of t sharing f's count (FF_SAME_N). */
static const char *same_n_key(const struct field_table *t, const struct field *f)
{
	for (const struct field *e = t->f; e < f; e++)
		if ((e->type == FT_I64S || e->type == FT_F64S) && e->aux == f->aux)
			return e->key;
	return "";
}

static void read_fields(struct rd *c, const struct field_table *t, const struct jdom *obj,
			void *row);
static void *rows_of(struct rd *c, const struct field_table *t, const struct jdom *a, size_t m,
		     size_t *n);

/* Field f of obj into row: null or missing is f's null value (field.h). */
static void read_field(struct rd *c, const struct field_table *t, const struct field *f,
		       const struct jdom *obj, void *row)
{
	char *p = (char *)row + f->off;
	const struct jdom *v;
	int64_t x;

	field_null(f, row);
	if ((c->lean && f->flags & FF_LEAN) || f->flags & FF_KEY)
		return;
	v = jdom_get(obj, f->key);
	if (!v && f->flags & FF_NONNULL && !(c->compact && f->flags & FF_TABLE))
		fail(c, obj, "\"%s\" is missing%s", f->key, "");
	if (!v || (v->type == JDOM_NULL && !(f->flags & FF_NONNULL)))
		return;
	switch (f->type) {
	case FT_I64:
		if (jdom_i64(v, (int64_t *)p))
			fail(c, v, "\"%s\" should be %s", f->key, "an integer");
		break;
	case FT_F64:
		if (jdom_f64(v, (double *)p))
			fail(c, v, "\"%s\" should be %s", f->key, "a number or null");
		break;
	case FT_INT:
		/* a hostile report's INT64_MAX depth is the deepest an int holds */
		if (jdom_i64(v, &x))
			fail(c, v, "\"%s\" should be %s", f->key, "an integer");
		*(int *)p = x < INT_MIN ? INT_MIN : x > INT_MAX ? INT_MAX : (int)x;
		break;
	case FT_STR:
		if (v->type != JDOM_STRING)
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_STRING));
		else
			*(const char **)p = copy_str(c, v);
		break;
	case FT_BOOL:
		if (v->type != JDOM_BOOL)
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_BOOL));
		else
			*(int *)p = v->boolean;
		break;
	case FT_ENUM:
		for (unsigned k = 0; v->type == JDOM_STRING && k < f->per; k++)
			if (strlen(f->names[k]) == v->len && !memcmp(f->names[k], v->s, v->len)) {
				*(int *)p = (int)k;
				return;
			}
		fail(c, v, "\"%s\" should be %s", f->key, "one of its names");
		break;
	case FT_I64S:
	case FT_F64S: {
		size_t *n = (size_t *)((char *)row + f->aux), m;
		void *a = num_array(c, obj, f->key, f->type == FT_F64S, &m);

		if (m % f->per)
			fail(c, v, "\"%s\" should hold %u numbers an item", f->key, f->per);
		else if (f->flags & FF_SAME_N && m != *n)
			fail(c, v, "\"%s\" should be as long as \"%s\"", f->key, same_n_key(t, f));
		*(void **)p = a;
		*n = m / f->per;
		break;
	}
	case FT_OBJ:
		if (v->type != JDOM_OBJECT) {
			fail(c, v, "\"%s\" should be %s", f->key, "an object or null");
			break;
		}
		*(int *)((char *)row + f->aux) = 1;
		read_fields(c, f->sub, v, p);
		break;
	case FT_STRS: {
		size_t *n = (size_t *)((char *)row + f->aux);
		const char **s;

		if (v->type != JDOM_ARRAY) {
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_ARRAY));
			break;
		}
		s = alloc_n(c, v->n, sizeof(*s));
		for (size_t i = 0; s && i < v->n; i++) {
			if (v->kids[i].type != JDOM_STRING) {
				fail(c, &v->kids[i], "\"%s\" should hold %s", f->key, "strings");
				break;
			}
			s[i] = copy_str(c, &v->kids[i]);
		}
		*(const char ***)p = s;
		*n = c->failed ? 0 : v->n;
		break;
	}
	case FT_TAGS: {
		size_t *n = (size_t *)((char *)row + f->aux);
		struct report_tag *tags;

		if (v->type != JDOM_OBJECT) {
			fail(c, v, "\"%s\" should be %s", f->key, "an object");
			break;
		}
		tags = alloc_n(c, v->n, sizeof(*tags));
		*(struct report_tag **)p = tags;
		for (size_t i = 0; tags && i < v->n; i++) {
			const struct jdom *kv = &v->kids[i];

			if (kv->type != JDOM_STRING) {
				fail(c, kv, "tag \"%s\" should be %s", "value", "a string");
				return;
			}
			tags[i].key = keep(c, kv->key, kv->key_len);
			tags[i].value = copy_str(c, kv);
			if (!tags[i].key)
				return;
			*n = i + 1;
		}
		break;
	}
	case FT_COUNTS: {
		size_t *n = (size_t *)((char *)row + f->aux);
		struct report_count *cn;

		if (v->type != JDOM_OBJECT) {
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_OBJECT));
			break;
		}
		cn = alloc_n(c, v->n, sizeof(*cn));
		*(struct report_count **)p = cn;
		for (size_t i = 0; cn && i < v->n; i++) {
			const struct jdom *kv = &v->kids[i];

			cn[i].key = keep(c, kv->key, kv->key_len);
			if (!cn[i].key || jdom_i64(kv, &cn[i].n))
				fail(c, kv, "\"%s\" should map names to %s", f->key, "integers");
		}
		*n = cn ? v->n : 0;
		break;
	}
	case FT_GROUP:
		if (v->type != JDOM_OBJECT) {
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_OBJECT));
			break;
		}
		read_fields(c, f->sub, v, row);
		break;
	case FT_ROWS:
		if (v->type != JDOM_ARRAY) {
			fail(c, v, "\"%s\" should be %s", f->key, jdom_type_name(JDOM_ARRAY));
			break;
		}
		*(void **)p = rows_of(c, f->sub, v->kids, v->n, (size_t *)((char *)row + f->aux));
		break;
	}
}

/* Every field of t from obj into row. */
static void read_fields(struct rd *c, const struct field_table *t, const struct jdom *obj,
			void *row)
{
	for (size_t i = 0; i < t->n; i++)
		read_field(c, t, &t->f[i], obj, row);
}

/* The m objects a[] as rows of t, *n of them (0 on failure). */
static void *rows_of(struct rd *c, const struct field_table *t, const struct jdom *a, size_t m,
		     size_t *n)
{
	char *v = alloc_n(c, m, t->size);

	for (size_t i = 0; v && i < m && !c->failed; i++) {
		memset(v + i * t->size, 0, t->size);
		read_fields(c, t, &a[i], v + i * t->size);
	}
	*n = c->failed ? 0 : m;
	return v;
}

/* The array t->name of obj as rows of t, *n of them (0 on failure). */
static void *read_rows(struct rd *c, const struct jdom *obj, const struct field_table *t,
		       size_t *n)
{
	size_t m;
	const struct jdom *a = get_arr(c, obj, t->name, &m);

	return rows_of(c, t, a, m, n);
}

/*
 * The metric catalogue's scalars stored in obj, the report's group object:
 * null or missing (a report written before the metric existed) is no value.
 */
static void read_stored(struct rd *c, const struct jdom *obj, struct report_rank *rk,
			const char *group)
{
	const struct metric_def *d;

	for (size_t i = 0; obj && (d = metric_next_stored(group, &i));) {
		const char *key = d->path + strlen(group) + 1;
		const struct jdom *v = jdom_get(obj, key);
		char *p = (char *)rk + d->field;
		int64_t x = INT64_MIN;
		double f = NAN;

		if (d->store == STORE_F64) {
			if (v)
				f = get_f64(c, obj, key);
			memcpy(p, &f, sizeof(f));
		} else {
			if (v)
				x = get_i64_or(c, obj, key, INT64_MIN);
			memcpy(p, &x, sizeof(x));
		}
	}
}

/* read_stored() of group and of every object nested in it, as stored_tree() writes them. */
static void read_stored_tree(struct rd *c, const struct jdom *obj, struct report_rank *rk,
			     const char *group)
{
	const char *name;
	char sub[128];

	read_stored(c, obj, rk, group);
	for (size_t i = 0; (name = metric_next_group(group, &i));) {
		const struct jdom *o = obj ? jdom_get(obj, name) : NULL;

		snprintf(sub, sizeof(sub), "%s.%s", group, name);
		read_stored_tree(c, o && o->type == JDOM_OBJECT ? o : NULL, rk, sub);
	}
}

/* ranks[].idle: null, missing (an older report) or the object idle_json() writes. */
static void read_idle(struct rd *c, const struct jdom *o, struct report_rank *rk)
{
	const struct jdom *id = jdom_get(o, REPORT_KEY_IDLE), *w;
	struct report_idle *out = &rk->idle;
	struct report_idle_bucket *hist;
	size_t n;

	report_idle_null(out);
	if (!id || id->type == JDOM_NULL) {
		read_stored_tree(c, NULL, rk, REPORT_KEY_IDLE);	/* every figure null */
		return;
	}
	if (id->type != JDOM_OBJECT) {
		fail(c, id, "\"%s\" should be %s", REPORT_KEY_IDLE, "an object or null");
		return;
	}
	w = need(c, id, REPORT_KEY_IDLE_WINDOW, JDOM_STRING);
	out->window = w && w->len == 5 && !memcmp(w->s, "steps", 5) ? "steps" : "trace";
	read_stored_tree(c, id, rk, REPORT_KEY_IDLE);
	hist = read_rows(c, id, &idle_bucket_fields, &n);
	for (size_t i = 0; hist && i < n && i < IDLE_HIST_BUCKETS; i++)
		out->hist[i] = hist[i];
	out->top = read_rows(c, id, &idle_gap_fields, &out->nr_top);
	if (out->nr_top > IDLE_TOP_MAX)
		out->nr_top = IDLE_TOP_MAX;
}

/* ranks[].gpu: the two flags that its nulls stand for, from them (report_fields.c). */
static void read_gpu(struct rd *c, const struct jdom *g, struct report_gpu *out)
{
	if (g->type != JDOM_OBJECT)
		fail(c, g, "\"%s\" should be %s", gpu_fields.name, "an object");
	read_fields(c, &gpu_fields, g, out);
	out->no_device = out->kernels == INT64_MIN;
	out->has_wait = out->comm_wait_ns != INT64_MIN;
}

/* comm_instances and the clock came with the collectives matching; older reports lack them. */
static void read_comm(struct rd *c, const struct jdom *o, struct report_rank *rk)
{
	read_fields(c, &clock_fields, o, rk);
	rk->has_clock = rk->clock_offset_ns != INT64_MIN;
	if (!jdom_get(o, comm_fields.name))
		return;
	rk->comm = read_rows(c, o, &comm_fields, &rk->nr_comm);
}

static void read_device(struct rd *c, const struct jdom *o, struct report_device *out)
{
	const struct jdom *d = jdom_get(o, device_fields.name);

	out->vendor = out->source = NULL;
	if (!d)
		return;		/* reports from before the device table */
	if (d->type != JDOM_OBJECT) {
		fail(c, d, "\"%s\" should be %s", device_fields.name, "an object");
		return;
	}
	read_fields(c, &device_fields, d, out);
}

static void read_phases(struct rd *c, const struct jdom *o, struct report_rank *rk)
{
	const struct jdom *st;
	struct report_steps *s = &rk->steps;

	/* a compact report keeps the steps' figures, not the phase table */
	rk->nr_phases = 0;
	rk->phases = NULL;
	if (!c->compact || jdom_get(o, phase_fields.name))
		rk->phases = read_rows(c, o, &phase_fields, &rk->nr_phases);

	st = need(c, o, steps_fields.name, JDOM_OBJECT);
	if (!st)
		return;
	read_fields(c, &steps_fields, st, s);
	read_stored(c, st, rk, steps_fields.name);
	/* The writer leaves the steps' total out; it is the sum it averaged. */
	for (size_t i = (size_t)s->warmup; i < s->nr_durations; i++)
		s->d.total_ns = sat_add(s->d.total_ns, s->durations_ns[i]);
}

static void read_throughput(struct rd *c, const struct jdom *t, struct report_throughput *out)
{
	read_fields(c, &throughput_fields, t, out);
	if (!(c->lean && generation_fields.flags & FF_LEAN) &&
	    (!c->compact || jdom_get(t, generation_fields.name)))
		out->generations = read_rows(c, t, &generation_fields, &out->nr_generations);
}

/* "ops_perf" and "perf" (report_perf.h); a report from before them has neither. */
static void read_perf(struct rd *c, const struct jdom *o, struct report_rank *rk)
{
	const struct jdom *p = jdom_get(o, perf_fields.name);
	struct report_perf *f = &rk->perf;

	rk->nr_ops_perf = 0;
	rk->ops_perf = NULL;
	if (!(c->lean && op_perf_fields.flags & FF_LEAN) && jdom_get(o, op_perf_fields.name))
		rk->ops_perf = read_rows(c, o, &op_perf_fields, &rk->nr_ops_perf);
	memset(f, 0, sizeof(*f));
	f->peak_tbps = f->peak_tflops = f->flops = f->tflops = f->mfu = f->flops_coverage = NAN;
	if (!p || p->type != JDOM_OBJECT)
		return;
	read_fields(c, &perf_fields, p, f);
}

static void read_analysed(struct rd *c, const struct jdom *o, struct report_rank *rk)
{
	const struct jdom *t = jdom_get(o, throughput_fields.name);

	rk->analysed = 1;
	read_device(c, o, &rk->device);
	read_gpu(c, jdom_get(o, gpu_fields.name), &rk->gpu);
	read_stored(c, jdom_get(o, gpu_fields.name), rk, gpu_fields.name);
	read_idle(c, o, rk);
	if (!c->compact || jdom_get(o, kernel_fields.name))
		rk->kernels = read_rows(c, o, &kernel_fields, &rk->nr_kernels);
	rk->has_phases = jdom_get(o, c->compact ? steps_fields.name : phase_fields.name) != NULL;
	if (rk->has_phases)
		read_phases(c, o, rk);
	rk->has_throughput = t != NULL;
	if (t && t->type == JDOM_OBJECT) {
		read_throughput(c, t, &rk->throughput);
		read_stored(c, t, rk, throughput_fields.name);
	} else if (t) {
		fail(c, t, "\"%s\" should be %s", throughput_fields.name, "an object");
	}

	rk->memory = read_rows(c, o, &memory_fields, &rk->nr_memory);
	rk->nr_cpu_ops = 0;
	if (!c->compact || jdom_get(o, cpu_op_fields.name))
		rk->cpu_ops = read_rows(c, o, &cpu_op_fields, &rk->nr_cpu_ops);
	read_perf(c, o, rk);
	read_comm(c, o, rk);
}

/*
 * Say on rk that dropped tags were left out, as vanalyze does for a trace
 * with more than TRACE_MAX_TAGS: every later step is linear in the tags it
 * keeps, and a rank's tags are read once per rank.
 */
static void tags_dropped(struct rd *c, struct report_rank *rk, size_t dropped)
{
	const char **w = alloc_n(c, rk->nr_warnings + 1, sizeof(*w));
	char text[96];

	if (!w)
		return;
	snprintf(text, sizeof(text), "%zu metadata keys beyond the first %d left out", dropped,
		 TRACE_MAX_TAGS);
	if (rk->nr_warnings)
		memcpy(w, rk->warnings, rk->nr_warnings * sizeof(*w));
	if (!(w[rk->nr_warnings] = keep(c, text, strlen(text))))
		return;
	rk->warnings = w;
	rk->nr_warnings++;
}

/* The run (run_info.h), as vanalyze or vaggregate computed it; reports before it lack it. */
static void read_run_info(struct rd *c, const struct jdom *root, struct report *r)
{
	const struct jdom *run = jdom_get(root, run_fields.name);

	if (!run)
		return;
	if (run->type != JDOM_OBJECT) {
		fail(c, run, "\"%s\" should be %s", run_fields.name, "an object");
		return;
	}
	read_fields(c, &run_fields, run, &r->run);
	r->run.computed = !c->failed;
}

/* inputs[i] describes ranks[i]; a report without inputs still reads. */
static void read_rank(struct rd *c, const struct jdom *o, const struct jdom *in,
		      struct report_rank *rk)
{
	if (o->type != JDOM_OBJECT) {
		fail(c, o, "a rank should be %s%s", "an object", "");
		return;
	}
	read_fields(c, &rank_fields, o, rk);
	if (jdom_get(o, gpu_fields.name))
		read_analysed(c, o, rk);

	if (in && in->type == JDOM_OBJECT) {
		int64_t rank = rk->rank;

		read_fields(c, &input_fields, in, rk);
		rk->rank = rank;	/* the rank is ranks[i]'s; inputs[i] says it again */
		/* vanalyze keeps a trace's first TRACE_MAX_TAGS; a report may hold more */
		if (rk->nr_tags > TRACE_MAX_TAGS) {
			tags_dropped(c, rk, rk->nr_tags - TRACE_MAX_TAGS);
			rk->nr_tags = TRACE_MAX_TAGS;
		}
	} else {
		/* no inputs: its own path and rank, the rest unknown */
		rk->path = rk->source;
		for (size_t i = 0; i < input_fields.n; i++)
			if (!(input_fields.f[i].flags & FF_NONNULL))
				field_null(&input_fields.f[i], rk);
	}
}

static void read_run(struct rd *c, const struct jdom *root, struct report *r)
{
	const struct jdom *cr = jdom_get(root, stat_fields.name), *tool, *w;

	tool = jdom_get(root, REPORT_KEY_TOOL);
	if (tool)
		r->tool = get_str(c, tool, REPORT_KEY_TOOL_NAME);
	r->nr_cross_rank = 0;
	if (cr && cr->type == JDOM_OBJECT) {
		r->cross_rank = alloc_n(c, cr->n, sizeof(*r->cross_rank));
		for (size_t i = 0; r->cross_rank && i < cr->n; i++) {
			struct report_stat *st = &r->cross_rank[i];
			const struct jdom *v = &cr->kids[i];

			read_fields(c, &stat_fields, v, st);
			st->metric = arena_strndup(&r->arena, v->key, v->key_len);
			if (!st->metric)
				fail(c, v, "out of memory%s%s", "", "");
		}
		r->nr_cross_rank = cr->n;
	}

	r->stragglers = read_rows(c, root, &straggler_fields, &r->nr_stragglers);
	read_fields(c, &straggler_rule_fields, root, r);
	r->nr_collectives = 0;
	if (jdom_get(root, collective_fields.name)) {
		r->collectives = read_rows(c, root, &collective_fields, &r->nr_collectives);
	}

	r->suggestions = read_rows(c, root, &suggestion_fields, &r->nr_suggestions);
	w = jdom_get(root, workload_fields.name);
	if (w && w->type == JDOM_OBJECT)
		read_fields(c, &workload_fields, w, r);
}

/*
 * What REPORT_READ_LEAN leaves out is passed over unparsed (most of a
 * report's numbers): room for the keys report_lean_keys() gives, and the
 * NULL after them.
 */
#define LEAN_KEYS_MAX 32

int report_read(struct report *r, const char *text, size_t len, unsigned flags, struct err *err)
{
	struct rd c = { .r = r, .err = err, .lean = !!(flags & REPORT_READ_LEAN) };
	struct arena scratch;
	const struct jdom *root, *schema, *ranks, *inputs, *tables;
	struct report saved = *r;
	int rc = REPORT_READ_BAD;
	const char *lean_skip[LEAN_KEYS_MAX + 1];

	report_lean_keys(lean_skip, LEAN_KEYS_MAX + 1);
	arena_init(&scratch);
	root = jdom_parse_skip(text, len, &scratch, err, c.lean ? lean_skip : NULL);
	if (!root)
		goto out;
	schema = jdom_get(root, REPORT_KEY_SCHEMA);
	/* In full: "vtrace.report/1\u0000x" decodes to more than the schema's bytes. */
	if (!schema || schema->type != JDOM_STRING || schema->len != strlen(REPORT_SCHEMA) ||
	    memcmp(schema->s, REPORT_SCHEMA, schema->len)) {
		rc = REPORT_READ_OTHER;
		err_set(err, root->offset, "not a vtrace report (schema %s%s%s)",
			schema && schema->type == JDOM_STRING ? "\"" : "",
			schema && schema->type == JDOM_STRING ? schema->s : "missing",
			schema && schema->type == JDOM_STRING ? "\"" : "");
		goto out;
	}
	tables = jdom_get(root, REPORT_KEY_RANK_TABLES);
	c.compact = tables && tables->type == JDOM_BOOL && !tables->boolean;
	ranks = need(&c, root, rank_fields.name, JDOM_ARRAY);
	inputs = jdom_get(root, input_fields.name);
	for (size_t i = 0; ranks && i < ranks->n && !c.failed; i++) {
		struct report_rank *rk = report_add_rank(r);

		if (!rk) {
			fail(&c, &ranks->kids[i], "out of memory%s%s", "", "");
			break;
		}
		read_rank(&c, &ranks->kids[i],
			  inputs && inputs->type == JDOM_ARRAY && i < inputs->n ? &inputs->kids[i]
										 : NULL,
			  rk);
	}
	if (flags & REPORT_READ_RUN && !c.failed) {
		read_run(&c, root, r);
		read_run_info(&c, root, r);
	}
	if (c.compact && !c.failed)
		r->compact = 1;
	if (!c.failed)
		rc = REPORT_READ_OK;
out:
	if (rc != REPORT_READ_OK) {
		/* Back to the caller's report; what the arena gained stays there. */
		struct arena a = r->arena;

		*r = saved;
		r->arena = a;
	}
	arena_release(&scratch);
	return rc;
}

int report_read_file(struct report *r, const char *path, unsigned flags, struct err *err)
{
	gzFile f = gzopen(path, "rb");
	struct buf text;
	int rc = REPORT_READ_BAD, n;

	if (!f)
		return err_set(err, -1, "cannot open: %s", strerror(errno ? errno : ENOMEM));
	buf_init(&text);
	for (;;) {
		if (buf_reserve(&text, 1 << 16)) {
			err_set(err, -1, "out of memory");
			goto out;
		}
		n = gzread(f, text.data + text.len, 1 << 16);
		if (n <= 0)
			break;
		text.len += (size_t)n;
	}
	if (n < 0) {
		int zerr;

		err_set(err, (int64_t)text.len, "cannot read: %s", gzerror(f, &zerr));
		goto out;
	}
	{
		int zerr;

		/* zlib ends a cut-off gzip stream like a whole one, but says so here */
		gzerror(f, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END) {
			err_set(err, (int64_t)text.len, "the gzip stream is cut off");
			goto out;
		}
	}
	rc = report_read(r, text.data, text.len, flags, err);
out:
	gzclose(f);
	buf_release(&text);
	return rc;
}

/*
 * The top-level keys of a JSON object, walked as the bytes come: values
 * are skipped with a depth count and a string state, never parsed, so the
 * walk is a few comparisons a byte in constant memory.  The first key that
 * settles it wins: "schema" with a string value (a report; the writer puts
 * it first, but a report with sorted keys has it after "ranks"), or
 * "traceEvents" (a trace, whose events may hold a "schema" of their own).
 */
enum sniff_state {
	S_START, S_KEY_OR_END, S_KEY, S_COLON, S_VALUE, S_SCHEMA, S_STR, S_NESTED, S_SCALAR,
	S_NEXT, S_DONE,
};

struct sniff {
	enum sniff_state st;
	int esc;		/* the last byte of a string was a lone backslash */
	int64_t depth;		/* of the value skipped: 1 is the top-level object's */
	char key[16];		/* the key's first bytes; klen past the end: longer */
	size_t klen;
	char *schema;		/* the caller's, k bytes of n filled */
	size_t n, k;
	int found;		/* 1: a report */
};

static int sniff_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int sniff_key_is(const struct sniff *s, const char *key)
{
	size_t n = strlen(key);

	return s->klen == n && !memcmp(s->key, key, n);
}

/* Feed t[0..len); returns 1 once settled (s->found says how). */
static int sniff_feed(struct sniff *s, const char *t, size_t len)
{
	for (size_t i = 0; i < len && s->st != S_DONE; i++) {
		char c = t[i];

		switch (s->st) {
		case S_START:
			if ((unsigned char)c == 0xef || (unsigned char)c == 0xbb ||
			    (unsigned char)c == 0xbf || sniff_space(c))
				break;	/* a BOM or blanks before the object */
			s->st = c == '{' ? S_KEY_OR_END : S_DONE;
			break;
		case S_KEY_OR_END:
			if (c == '"') {
				s->st = S_KEY;
				s->klen = 0;
			} else if (!sniff_space(c) && c != ',') {
				s->st = S_DONE;		/* '}' or not JSON: no report */
			}
			break;
		case S_KEY:
			if (s->esc) {
				s->esc = 0;
			} else if (c == '\\') {
				s->esc = 1;
			} else if (c == '"') {
				s->st = S_COLON;
				break;
			}
			if (s->klen < sizeof(s->key))
				s->key[s->klen] = c;
			s->klen++;
			break;
		case S_COLON:
			if (c == ':')
				s->st = S_VALUE;
			else if (!sniff_space(c))
				s->st = S_DONE;
			break;
		case S_VALUE:
			if (sniff_space(c))
				break;
			if (sniff_key_is(s, "traceEvents")) {
				s->st = S_DONE;
			} else if (sniff_key_is(s, REPORT_KEY_SCHEMA) && c == '"') {
				s->st = S_SCHEMA;
			} else if (c == '"') {
				s->st = S_STR;
				s->depth = 1;
			} else if (c == '{' || c == '[') {
				s->st = S_NESTED;
				s->depth = 2;
			} else {
				s->st = S_SCALAR;
			}
			break;
		case S_SCHEMA:
			if (!s->esc && c == '"') {
				s->schema[s->k] = '\0';
				s->found = 1;
				s->st = S_DONE;
				break;
			}
			s->esc = !s->esc && c == '\\';
			if (s->k + 1 < s->n)
				s->schema[s->k++] = (unsigned char)c < 0x20 ? '?' : c;
			break;
		case S_STR:
			if (s->esc)
				s->esc = 0;
			else if (c == '\\')
				s->esc = 1;
			else if (c == '"')
				s->st = s->depth == 1 ? S_NEXT : S_NESTED;
			break;
		case S_NESTED:
			if (c == '"')
				s->st = S_STR;
			else if (c == '{' || c == '[')
				s->depth++;
			else if ((c == '}' || c == ']') && --s->depth == 1)
				s->st = S_NEXT;
			break;
		case S_SCALAR:
		case S_NEXT:
			if (c == ',')
				s->st = S_KEY_OR_END;
			else if (c == '}')
				s->st = S_DONE;
			break;
		case S_DONE:
			break;
		}
	}
	return s->st == S_DONE;
}

static void sniff_init(struct sniff *s, char *schema, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->schema = schema;
	s->n = n;
}

int report_sniff_text(const char *t, size_t len, char *schema, size_t n)
{
	struct sniff s;

	if (!n)
		return 0;
	sniff_init(&s, schema, n);
	sniff_feed(&s, t, len);
	return s.found;
}

int report_sniff(const char *path, char *schema, size_t n)
{
	gzFile f = gzopen(path, "rb");	/* plain files read through unchanged */
	char *chunk = malloc(REPORT_SNIFF_CHUNK);
	int len = -1, rc = -1;
	struct sniff s;

	sniff_init(&s, schema, n);
	if (f && chunk && n) {
		while ((len = gzread(f, chunk, REPORT_SNIFF_CHUNK)) > 0)
			if (sniff_feed(&s, chunk, (size_t)len))
				break;
	}
	if (len >= 0 && n)
		rc = s.found;
	else if (!n)
		rc = 0;
	else if (!errno)
		errno = f ? EIO : ENOMEM;
	if (f)
		gzclose(f);
	free(chunk);
	return rc;
}
