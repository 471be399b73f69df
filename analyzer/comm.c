/*
 * comm: see comm.h.
 *
 * A collective's name comes from the "Collective name" of the op that
 * launched it (record_param_comms, linked to the kernel by "External id"),
 * else from the kernel or span name cut before its arguments or template
 * ('(' or '<'), so that ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*,
 * ...) matches across ranks whatever the pointer types print as.  Instances of
 * one (group, name) are numbered in start order, file order breaking ties.
 */
#include "comm.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "category.h"
#include "classify.h"
#include "device.h"
#include "gpu.h"
#include "grow.h"
#include "sat.h"
#include "sort.h"

/* A collective kernel, device operator or CPU span: one for each of millions. */
struct comm_rec {
	int64_t ts_ns;
	int64_t ext;		/* "External id", -1 without */
	uint32_t dur;		/* ns, or COMM_LONG_DUR | index in the list's long_dur */
	uint32_t name;		/* name id (c->names) */
};

#define COMM_LONG_DUR 0x80000000u

/* The bytes an operator's own args give (HCCL), for record i of its list. */
struct comm_bytes {
	size_t i;
	int64_t bytes;
};

static int64_t rec_dur(const struct comm_recs *l, const struct comm_rec *r)
{
	return r->dur < COMM_LONG_DUR ? (int64_t)r->dur : l->long_dur[r->dur & ~COMM_LONG_DUR];
}

/* Record r's own bytes, -1 unknown. */
static int64_t rec_bytes(const struct comm_recs *l, const struct comm_rec *r)
{
	size_t i = (size_t)(r - l->v), lo = 0, hi = l->nr_bytes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->bytes[mid].i < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nr_bytes && l->bytes[lo].i == i ? l->bytes[lo].bytes : -1;
}

struct comm_meta {
	int64_t ext;
	int64_t in_nelems, out_nelems, group_size;	/* -1 unknown */
	uint64_t seq;					/* file order: the first one wins */
	uint32_t coll, group, dtype;			/* name ids (c->names), 0 absent */
	uint32_t pad;
};

void comm_init(struct comm *c, struct names *names, struct name_memo *kcats)
{
	memset(c, 0, sizeof(*c));
	c->names = names;
	c->kcats = kcats;
}

static void free_recs(struct comm_recs *r)
{
	free(r->v);
	free(r->long_dur);
	free(r->bytes);
	memset(r, 0, sizeof(*r));
}

void comm_release(struct comm *c)
{
	free_recs(&c->kernels);
	free_recs(&c->spans);
	free(c->meta);
	comm_init(c, c->names, c->kcats);
}

/* Append a record of duration dur_ns (at least 0) and own bytes (-1 unknown). */
static int push(struct comm_recs *to, const struct comm_rec *r, int64_t dur_ns, int64_t bytes)
{
	struct comm_rec *x;

	if (ALLOC_GROW(to->v, to->n + 1, to->alloc))
		return -1;
	x = &to->v[to->n];
	*x = *r;
	x->dur = (uint32_t)dur_ns;
	if (dur_ns < 0 || dur_ns >= COMM_LONG_DUR) {
		if (to->nr_long_dur >= COMM_LONG_DUR ||
		    ALLOC_GROW(to->long_dur, to->nr_long_dur + 1, to->long_dur_alloc))
			return -1;
		x->dur = COMM_LONG_DUR | (uint32_t)to->nr_long_dur;
		to->long_dur[to->nr_long_dur++] = dur_ns;
	}
	if (bytes >= 0) {
		if (ALLOC_GROW(to->bytes, to->nr_bytes + 1, to->bytes_alloc))
			return -1;
		to->bytes[to->nr_bytes++] = (struct comm_bytes){ to->n, bytes };
	}
	to->n++;
	return 0;
}

/*
 * Bytes per element of a dtype as record_param_comms prints PyTorch's, or as
 * HCCL's hcom_* ops name theirs (data_type "FP32", "BFP16", ...); 0 unknown.
 */
static int64_t dtype_bytes(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int bytes;
	} table[] = {
		{ "float", 4 },	   { "float32", 4 }, { "double", 8 },  { "float64", 8 },
		{ "half", 2 },	   { "float16", 2 }, { "bfloat16", 2 }, { "long", 8 },
		{ "int64", 8 },	   { "int", 4 },     { "int32", 4 },	{ "short", 2 },
		{ "int16", 2 },	   { "char", 1 },    { "byte", 1 },	{ "int8", 1 },
		{ "uint8", 1 },	   { "bool", 1 },    { "float8_e4m3fn", 1 },
		{ "float8_e5m2", 1 },
		{ "fp32", 4 },	   { "fp16", 2 },    { "bfp16", 2 },	{ "bf16", 2 },
		{ "fp64", 8 },	   { "uint16", 2 },  { "uint32", 4 },	{ "uint64", 8 },
	};

	if (n >= 5 && !strncmp(s, "c10::", 5)) {
		s += 5;
		n -= 5;
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strlen(table[i].name) == n && !strncasecmp(s, table[i].name, n))
			return table[i].bytes;
	return 0;
}

int comm_collect(struct comm *c, const struct event_batch *b, const unsigned char *cls,
		 const unsigned char *sub)
{
	const struct strtab *st = &b->strs;
	uint32_t nstr = strtab_count(st) + 1;
	unsigned char *kind = calloc(nstr, 1);	/* name: 0 unknown, 1 comm, 2 not */
	int rc = -1;

	if (!kind)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		int is_kernel = cls[i] == EVC_KERNEL;

		if (!is_kernel && ev->flags & EV_EXTERNAL_ID &&
		    (ev->coll_name || ev->pg_name || ev->flags & (EV_IN_NELEMS | EV_OUT_NELEMS))) {
			struct comm_meta m = { ev->external_id, -1, -1, -1,
					       c->nr_meta, 0, 0, 0, 0 };

			if (ev->flags & EV_IN_NELEMS)
				m.in_nelems = ev->in_nelems;
			if (ev->flags & EV_OUT_NELEMS)
				m.out_nelems = ev->out_nelems;
			if (ev->flags & EV_GROUP_SIZE)
				m.group_size = ev->group_size;
			if (ev->coll_name)
				m.coll = names_id(c->names, ev->coll_name);
			if (ev->pg_name)
				m.group = names_id(c->names, ev->pg_name);
			if (ev->dtype)
				m.dtype = names_id(c->names, ev->dtype);
			if (m.coll == STRTAB_OOM || m.group == STRTAB_OOM ||
			    m.dtype == STRTAB_OOM ||
			    ALLOC_GROW(c->meta, c->nr_meta + 1, c->meta_alloc))
				goto out;
			c->meta[c->nr_meta++] = m;
			continue;
		}
		if (!(ev->flags & EV_TS) || !ev->name || (!is_kernel && ev->phase != 'X'))
			continue;
		if (!kind[ev->name]) {
			const char *s = strtab_str(st, ev->name);
			size_t n = strtab_len(st, ev->name);
			uint32_t id;
			int yes;

			if (is_kernel) {	/* by its category, asked once per name */
				id = names_id(c->names, ev->name);
				yes = id == STRTAB_OOM ? -1 : name_memo_get(c->kcats, c->names, id);
				if (yes >= 0)
					yes = yes == CAT_COMM;
			} else if (device_collective_op(s, n))
				yes = 3;
			else	/* a CPU span that is the collective itself, not its enqueue */
				yes = (classify_flags(sub[i]) & CF_COLL_SPAN) != 0;

			if (yes < 0)
				goto out;
			kind[ev->name] = yes == 3 ? 3 : yes ? 1 : 2;
		}
		/* a collective operator on the device's track: no cat (torch_npu) */
		if (kind[ev->name] == 3 && ev->cat)
			continue;
		if (kind[ev->name] == 2)
			continue;
		{
			struct comm_rec r = { ev->ts_ns,
					      ev->flags & EV_EXTERNAL_ID ? ev->external_id : -1,
					      0, 0 };
			int64_t bytes = -1;
			int dev = is_kernel || kind[ev->name] == 3;

			if (kind[ev->name] == 3 && ev->flags & EV_IN_NELEMS && ev->dtype) {
				int64_t size = dtype_bytes(strtab_str(st, ev->dtype),
							     strtab_len(st, ev->dtype));

				if (size && ev->in_nelems >= 0 && ev->in_nelems <= INT64_MAX / size)
					bytes = ev->in_nelems * size;
			}
			r.name = names_id(c->names, ev->name);
			if (r.name == STRTAB_OOM ||
			    push(dev ? &c->kernels : &c->spans, &r, ev->dur_ns, bytes))
				goto out;
		}
	}
	rc = 0;
out:
	free(kind);
	return rc;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct comm_meta *x = a, *y = b;

	if (x->ext != y->ext)
		return x->ext < y->ext ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The first op with args for External id ext, or NULL. */
static const struct comm_meta *meta_find(const struct comm_meta *m, size_t n, int64_t ext)
{
	size_t lo = first_i64_lower_bound(m, sizeof(*m), 0, n, ext);	/* ext comes first */

	return lo < n && m[lo].ext == ext ? &m[lo] : NULL;
}

/* The key of an instance: its group (NULL without metadata) and name. */
struct key_view {
	const char *group, *name;
	size_t name_len;
};

/* The metadata of r, NULL: none. */
static const struct comm_meta *meta_of(const struct comm_rec *r, const struct comm_meta *m,
				       size_t nm)
{
	return r->ext >= 0 ? meta_find(m, nm, r->ext) : NULL;
}

/* r's key, of r and its metadata md, into *k. */
static void key_of(const struct comm *c, const struct comm_rec *r, const struct comm_meta *md,
		   struct key_view *k)
{
	const char *name = names_str(c->names, r->name);
	size_t len = names_len(c->names, r->name), cut = 0;

	while (cut < len && name[cut] != '(' && name[cut] != '<')
		cut++;
	k->name = name;
	k->name_len = cut ? cut : len;
	if (md && md->coll) {
		k->name = names_str(c->names, md->coll);
		k->name_len = names_len(c->names, md->coll);
	}
	k->group = md && md->group ? names_str(c->names, md->group) : NULL;
}

/* The bytes of an instance: its metadata's (nccl-tests' S), else its own; -1 unknown. */
static int64_t bytes_of(const struct comm *c, const struct comm_recs *l,
			const struct comm_rec *r, const struct comm_meta *md)
{
	if (md && md->dtype && (md->in_nelems >= 0 || md->out_nelems >= 0)) {
		int64_t el = md->in_nelems > md->out_nelems ? md->in_nelems : md->out_nelems;
		int64_t size = dtype_bytes(names_str(c->names, md->dtype),
					   names_len(c->names, md->dtype));

		/* the larger buffer (all-gather out, reduce-scatter in) */
		if (size && el <= INT64_MAX / size)
			return el * size;
	}
	return rec_bytes(l, r);
}

static int cmp_str_null(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return strcmp(a, b);
}

/* The order of series: group (NULL first), then name's bytes, shorter first. */
static int cmp_key(const struct key_view *x, const struct key_view *y)
{
	int c = cmp_str_null(x->group, y->group);
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;

	if (c)
		return c;
	if ((c = memcmp(x->name, y->name, n)))
		return c;
	return x->name_len != y->name_len ? (x->name_len < y->name_len ? -1 : 1) : 0;
}

static int cmp_key_at(const void *a, const void *b)
{
	return cmp_key(*(const struct key_view *const *)a, *(const struct key_view *const *)b);
}

/*
 * The distinct keys of the records, each an id from 0 in the order series
 * are reported: keys[id] says it.  A key is interned as the pair (its
 * group up to a NUL, as strcmp() sees it; its name's bytes); consecutive
 * records mostly share one, so the last is remembered.
 */
struct keys {
	struct strtab groups, names, pairs;
	struct key_view *v;	/* by pair id - 1 */
	size_t alloc;
};

/* The pair id - 1 of key k (interned), or -1 when out of memory. */
static int64_t key_id(struct keys *t, const struct key_view *k)
{
	uint32_t p[2], id;

	p[0] = k->group ? strtab_intern(&t->groups, k->group, strlen(k->group)) : 0;
	p[1] = strtab_intern(&t->names, k->name, k->name_len);
	if (p[0] == STRTAB_OOM || p[1] == STRTAB_OOM)
		return -1;
	id = strtab_intern(&t->pairs, (const char *)p, sizeof(p));
	if (id == STRTAB_OOM || ALLOC_GROW(t->v, id, t->alloc))
		return -1;
	t->v[id - 1] = *k;	/* the same key again for an old id */
	return (int64_t)id - 1;
}

/*
 * Each record's key as its series' index, in series order, into id[]; the
 * number of series into *nr.  -1 when out of memory.
 */
static int series_of(const struct comm *c, const struct comm_rec *r, size_t n,
		     const struct comm_meta *m, size_t nm, uint32_t *id, size_t *nr)
{
	struct keys t = { 0 };
	const struct key_view **by = NULL;
	uint32_t *rank = NULL, last_name = 0;
	const struct comm_meta *last_md = NULL;
	int64_t last = -1;
	size_t k;
	int rc = -1;

	strtab_init(&t.groups, 0);	/* borrowed from c->names, which outlives them */
	strtab_init(&t.names, 0);
	strtab_init(&t.pairs, 1);
	for (size_t i = 0; i < n; i++) {
		const struct comm_meta *md = meta_of(&r[i], m, nm);

		if (last < 0 || r[i].name != last_name || md != last_md) {
			struct key_view kv;

			key_of(c, &r[i], md, &kv);
			if ((last = key_id(&t, &kv)) < 0)
				goto out;
			last_name = r[i].name;
			last_md = md;
		}
		id[i] = (uint32_t)last;
	}
	k = strtab_count(&t.pairs);
	by = malloc((k ? k : 1) * sizeof(*by));
	rank = malloc((k ? k : 1) * sizeof(*rank));
	if (!by || !rank)
		goto out;
	for (size_t i = 0; i < k; i++)
		by[i] = &t.v[i];
	qsort(by, k, sizeof(*by), cmp_key_at);	/* distinct keys: no ties */
	for (size_t i = 0; i < k; i++)
		rank[by[i] - t.v] = (uint32_t)i;
	for (size_t i = 0; i < n; i++)
		id[i] = rank[id[i]];
	*nr = k;
	rc = 0;
out:
	free(by);
	free(rank);
	free(t.v);
	strtab_release(&t.groups);
	strtab_release(&t.names);
	strtab_release(&t.pairs);
	return rc;
}

/* What comm_finish() splits each instance's time by: the device's own tasks. */
struct splits {
	const struct interval_set *tasks;		/* transfer: NULL unknown */
	const struct interval_set *sync, *covered;	/* sync and idle: NULL unknown */
};

/*
 * Fill series s from the n records at[0..n) of r, of one key, in the
 * order they are numbered (start, then file order).
 */
static int make_series(struct report_comm_series *s, const struct comm *c,
		       const struct comm_recs *l, const uint32_t *at, size_t n,
		       const struct comm_meta *m, size_t nm, const struct splits *sp,
		       int64_t start_ns, struct arena *a)
{
	struct key_view kv;
	int any_bytes = 0;

	key_of(c, &l->v[at[0]], meta_of(&l->v[at[0]], m, nm), &kv);
	s->group = kv.group ? arena_strndup(a, kv.group, strlen(kv.group)) : NULL;
	s->name = arena_strndup(a, kv.name, kv.name_len);
	s->group_size = -1;
	s->n = n;
	s->dur_ns = arena_alloc(a, n * sizeof(*s->dur_ns));
	s->end_ns = arena_alloc(a, n * sizeof(*s->end_ns));
	s->bytes = s->transfer_ns = s->sync_ns = s->idle_ns = NULL;
	if (sp->tasks)
		s->transfer_ns = arena_alloc(a, n * sizeof(*s->transfer_ns));
	if (sp->sync) {
		s->sync_ns = arena_alloc(a, n * sizeof(*s->sync_ns));
		s->idle_ns = arena_alloc(a, n * sizeof(*s->idle_ns));
	}
	if ((kv.group && !s->group) || !s->name || !s->dur_ns || !s->end_ns ||
	    (sp->tasks && !s->transfer_ns) || (sp->sync && (!s->sync_ns || !s->idle_ns)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct comm_rec *x = &l->v[at[i]];
		const struct comm_meta *md = meta_of(x, m, nm);
		int64_t dur = rec_dur(l, x), end = sat_add(x->ts_ns, dur);

		s->dur_ns[i] = dur;
		/* from the rank's first event: shorter numbers in the report */
		s->end_ns[i] = sat_add(sat_sub(x->ts_ns, start_ns), dur);
		any_bytes |= bytes_of(c, l, x, md) >= 0;
		if (md && md->group_size > s->group_size)
			s->group_size = md->group_size;
		if (sp->tasks)
			s->transfer_ns[i] = interval_covered(sp->tasks->v, sp->tasks->n, x->ts_ns,
							     end);
		if (sp->sync) {
			s->sync_ns[i] = interval_covered(sp->sync->v, sp->sync->n, x->ts_ns, end);
			s->idle_ns[i] = sat_sub(dur, interval_covered(sp->covered->v,
									    sp->covered->n,
									    x->ts_ns, end));
		}
	}
	if (s->group_size < 0)
		s->group_size = INT64_MIN;	/* unknown: null */
	if (any_bytes) {
		s->bytes = arena_alloc(a, n * sizeof(*s->bytes));
		if (!s->bytes)
			return -1;
		for (size_t i = 0; i < n; i++) {
			const struct comm_rec *x = &l->v[at[i]];

			s->bytes[i] = bytes_of(c, l, x, meta_of(x, m, nm));
		}
	}
	return 0;
}

int comm_finish(struct comm *c, const struct interval_set *tasks,
		const struct interval_set *sync, const struct interval_set *covered,
		struct arena *a, struct report_rank *rk)
{
	struct comm_recs *src = c->kernels.n ? &c->kernels : &c->spans;
	const struct comm_rec *r = src->v;
	size_t n = src->n, k = 0;
	/* the device's tasks split the kernels' time, never the CPU spans' */
	struct splits sp = {
		src == &c->kernels && tasks->n ? tasks : NULL,
		src == &c->kernels && sync && covered ? sync : NULL,
		covered,
	};
	uint32_t *id = NULL, *perm = NULL;
	uint64_t *key = NULL;
	int rc = -1;

	rk->comm = NULL;
	rk->nr_comm = 0;
	if (!n)
		return 0;
	/* 32-bit indices: more instances than that would not fit in memory anyway */
	if (n > UINT32_MAX)
		return -1;
	if (c->nr_meta > 1)	/* meta_find(): the first of equal ids */
		qsort(c->meta, c->nr_meta, sizeof(*c->meta), cmp_meta);
	/*
	 * Instances sorted by (series, start, file order) through an index:
	 * 16 bytes an instance beside the records, where a sorted copy of
	 * resolved instances took 88, twice, and was a kernel trace's peak.
	 */
	id = malloc(n * sizeof(*id));
	key = malloc(n * sizeof(*key));
	if (!id || !key || series_of(c, r, n, c->meta, c->nr_meta, id, &k))
		goto out;
	for (size_t i = 0; i < n; i++)
		key[i] = sort_key_i64(r[i].ts_ns);
	if (!(perm = sort_identity(n)) || sort_perm_id_key(id, (uint32_t)k - 1, key, perm, n))
		goto out;
	free(key);
	key = NULL;
	rk->comm = arena_alloc(a, k * sizeof(*rk->comm));
	if (!rk->comm)
		goto out;
	memset(rk->comm, 0, k * sizeof(*rk->comm));
	for (size_t i = 0, s = 0; i < n; s++) {
		size_t j = i + 1;

		while (j < n && id[perm[j]] == id[perm[i]])
			j++;
		if (make_series(&rk->comm[s], c, src, perm + i, j - i, c->meta, c->nr_meta, &sp,
				rk->start_ns, a))
			goto out;
		i = j;
	}
	rk->nr_comm = k;
	rc = 0;
out:
	if (rc)
		rk->comm = NULL;
	free(id);
	free(key);
	free(perm);
	free_recs(src);
	return rc;
}
