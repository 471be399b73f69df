/*
 * evparse: see evparse.h.
 *
 * One pass, no recursion except into args (one level; values not used are
 * passed over by jscan_skip_fast, bracket to bracket).
 * Keys are matched by length first, then bytes; the keys we do not use are
 * skipped without decoding.  Where the bytes between two values are those
 * of an event of the same shape before, the key is known without either
 * (struct memo).  Values of unexpected types (a null cat, an
 * object as pid) leave the field absent rather than failing the event:
 * producers disagree about types, and the event still counts.
 */
#include "evparse.h"

#include <string.h>

#include "jscan.h"
#include "sat.h"

/*
 * Neighbouring events mostly share ph, cat, pid and tid, and names come in
 * short repeating patterns (aten::linear, aten::mm, cudaLaunchKernel, ...),
 * so each field keeps recent strings in a small direct-mapped cache: a
 * length check and a compare of whole words then replace hashing and
 * probing for most values.  The slot is picked from the length, the last
 * byte and the middle one (names share their first bytes: "aten::",
 * "void at::native::"), which cost nothing to read.  A training step cycles
 * through a few dozen operator and kernel names: 64 slots missed 6 % of
 * the names of the real-shaped bench trace, 8 slots keyed on the length and
 * last byte 26 %.  Colliding strings only miss, so a hostile trace gains
 * nothing by choosing them.
 */
enum field { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_COLL, F_PG, F_DTYPE, F_ARG_NAME, NR_FIELDS };

#define RECENT 64

struct last_str {
	const char *s;
	uint64_t head;		/* the first bytes, up to 8, zero-padded */
	uint64_t mask;		/* the bits of head that hold them */
	size_t n;
	uint32_t id;
};

/* The keys read, by what they are; K_OTHER values are skipped. */
enum key { K_OTHER, K_END, K_PH, K_TS, K_ID, K_CAT, K_PID, K_TID, K_DUR, K_NAME, K_ARGS };
enum arg_key {
	A_OTHER, A_END, A_NAME, A_BYTES, A_DTYPE, A_STREAM, A_DEVICE, A_GROUP_SIZE,
	A_CORRELATION, A_EXTERNAL_ID, A_IN_NELEMS, A_OUT_NELEMS, A_TOTAL_RESERVED,
	A_TOTAL_ALLOCATED, A_COLL_NAME, A_PG_NAME, A_VALUE, A_IN_DIMS, A_IN_TYPES, A_IN_CONCRETE
};

/*
 * Most events of a trace come in a few shapes, and a writer puts the same
 * bytes between the values of events of one shape: ', "cat": ' or
 * ',\n    "ts": ' after each value, '\n  }' after the last.  So each
 * object level learns, as its members are lexed, a tree of these runs
 * (from the end of a value, or the '{', to the start of the next value, or
 * past the '}'), each with what its key is, and tries the children of the
 * run it is at before lexing: where the text holds one of them byte for
 * byte, its key and the value's place are known without finding a quote or
 * matching a key.  The lexer had accepted those bytes, so the result is
 * the same.  The tree is bounded, and learns nothing more once full.
 */
#define MEMO_SEP_MAX 48			/* longer runs are not learned */
#define MEMO_NODES 128
#define MEMO_CHILDREN 8			/* tried at most per member */
#define MEMO_NONE 0xffffu		/* off the tree until the next object */
#define MEMO_ROOM (MEMO_SEP_MAX + 8)	/* text a try may read */

struct memo_node {
	uint16_t child, sibling;	/* first child, next sibling: 0 none (0 is the root) */
	uint8_t len, code, nr_children;
	uint64_t tail;			/* the bits of the last word that are the run's */
	char sep[MEMO_SEP_MAX + 8];	/* the run, zero-padded to whole words */
};

struct memo {
	struct memo_node node[MEMO_NODES];	/* [0]: the root, at '{' */
	unsigned n;
};

struct parser {
	struct jscan js;
	struct event_batch *b;
	int64_t nr_neg_dur, first_neg_dur;	/* first_neg_dur: input offset */
	/*
	 * Values of a JSON type a field never has ("ts": true, "name": 7,
	 * "args": [], null): read as absent, counted in the event (odd) and,
	 * once it is whole, in nr_odd.
	 */
	int64_t odd, nr_odd, first_odd;
	int oom;
	struct last_str last[NR_FIELDS][RECENT];
	struct memo memo_event, memo_args;
};

/*
 * The readers of one value and intern run a few times per event: inlined
 * into read_member and read_arg, they cost no call, and the constants
 * their callers pass (field, scale) fold away.
 */
#define HOT static inline __attribute__((always_inline))

#define KEY_IS(k, n, lit) ((n) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

static int oom(struct parser *ps, const char *p)
{
	ps->oom = 1;
	err_set(ps->js.err, jscan_off(&ps->js, p), "out of memory");
	return JS_BAD;
}

static int bad(struct parser *ps, const char *p, const char *msg)
{
	err_set(ps->js.err, jscan_off(&ps->js, p), "%s", msg);
	return JS_BAD;
}

/* The n (0 to 8) first bytes of s, zero-padded, as jscan_load8 of s places them. */
static inline uint64_t head_of(const char *s, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, s, n);
	return w;
}

/*
 * Whether s[0..n) is the cached string c.  room: how many bytes from s on
 * may be read (the text goes on past a string borrowed from it), so that a
 * short string is one load and a compare.  Longer ones compare a word at a
 * time, the last word overlapping, up to 32 bytes; past that, memcmp.
 */
static inline int cached(const struct last_str *c, const char *s, size_t n, size_t room)
{
	if (c->n != n)
		return 0;
	if (n < 8) {
		uint64_t w = room >= 8 ? jscan_load8(s) & c->mask : head_of(s, n);

		return w == c->head;
	}
	if (jscan_load8(s) != c->head)
		return 0;
	if (n > 32)
		return memcmp(c->s + 8, s + 8, n - 8) == 0;
	for (size_t i = 8; i + 8 < n; i += 8)
		if (jscan_load8(s + i) != jscan_load8(c->s + i))
			return 0;
	return jscan_load8(s + n - 8) == jscan_load8(c->s + n - 8);
}

HOT int intern(struct parser *ps, const char *p, const char *s, size_t n, size_t room, uint32_t *id,
	       enum field f)
{
	size_t slot = n * 7 + (n ? (unsigned char)s[n - 1] + 3u * (unsigned char)s[n / 2] : 0);
	struct last_str *last = &ps->last[f][slot % RECENT];
	uint32_t v;

	if (cached(last, s, n, room)) {
		*id = last->id;
		return JS_OK;
	}
	v = strtab_intern(&ps->b->strs, s, n);
	if (v == STRTAB_OOM)
		return oom(ps, p);
	last->s = strtab_str(&ps->b->strs, v);
	last->head = head_of(s, n < 8 ? n : 8);
	last->mask = head_of("\xff\xff\xff\xff\xff\xff\xff\xff", n < 8 ? n : 8);
	last->n = n;
	last->id = v;
	*id = v;
	return JS_OK;
}

/*
 * jscan_skip_fast through a copy of *pp: the position of the member loops
 * then stays in a register (see jscan_string).
 */
HOT int skip_fast(struct parser *ps, const char **pp);

/* A value of a type its field never has: skipped, counted. */
static int skip_odd(struct parser *ps, const char **pp)
{
	ps->odd++;
	return skip_fast(ps, pp);
}

HOT int skip_fast(struct parser *ps, const char **pp)
{
	const char *t = *pp;
	int rc = jscan_skip_fast(&ps->js, &t);

	*pp = t;
	return rc;
}

/*
 * A string value into *id, and its one character into *one when it has
 * exactly one (else 0; one may be NULL); any other value is skipped and
 * leaves both alone.
 */
HOT int read_str1(struct parser *ps, const char **pp, uint32_t *id, enum field f, char *one)
{
	const char *s, *at = *pp;
	size_t n;
	int rc;

	if (*at != '"')
		return skip_odd(ps, pp);
	if ((rc = jscan_string(&ps->js, pp, &s, &n)) != JS_OK)
		return rc;
	if (one)
		*one = n == 1 ? s[0] : 0;
	/* Borrowed from the text, or decoded into the arena (n bytes and a NUL). */
	return intern(ps, at, s, n, s == at + 1 ? (size_t)(ps->js.end - s) : n, id, f);
}

HOT int read_str(struct parser *ps, const char **pp, uint32_t *id, enum field f)
{
	return read_str1(ps, pp, id, f, NULL);
}

/* pid and tid: the text of a string or of a number, interned alike. */
HOT int read_id_text(struct parser *ps, const char **pp, uint32_t *id, enum field f)
{
	const char *at = *pp;
	int rc;

	if (*at == '"')
		return read_str(ps, pp, id, f);
	if (*at == '-' || JSCAN_IS_DIGIT(*at)) {
		if ((rc = jscan_skip_number(&ps->js, pp)) != JS_OK)
			return rc;
		return intern(ps, at, at, (size_t)(*pp - at), (size_t)(ps->js.end - at), id, f);
	}
	return skip_odd(ps, pp);
}

/*
 * One of the shape args (event.h's struct event_shapes), kept as where its
 * text lies; the event's entry is made by the first of them.
 */
static int read_shape(struct parser *ps, const char **pp, struct trace_event *ev, unsigned key)
{
	struct event_batch *b = ps->b;
	const char *at = *pp;
	struct event_shapes *sh;
	int rc = skip_fast(ps, pp);

	if (rc != JS_OK || *pp - at > UINT32_MAX)
		return rc;
	if (!ev->shapes) {
		if (!b->nr_shapes)
			b->nr_shapes = 1;	/* 0 is "none" */
		if (b->nr_shapes > UINT32_MAX - 1 ||
		    ALLOC_GROW(b->shapes, b->nr_shapes + 1, b->cap_shapes))
			return oom(ps, at);
		memset(&b->shapes[b->nr_shapes], 0, sizeof(*b->shapes));
		ev->shapes = (uint32_t)b->nr_shapes++;
	}
	sh = &b->shapes[ev->shapes];
	if (key == A_IN_DIMS) {
		sh->dims = at;
		sh->nr_dims = (uint32_t)(*pp - at);
	} else if (key == A_IN_TYPES) {
		sh->types = at;
		sh->nr_types = (uint32_t)(*pp - at);
	} else {
		sh->concrete = at;
		sh->nr_concrete = (uint32_t)(*pp - at);
	}
	return JS_OK;
}

/*
 * A number, or a string holding one, scaled by 10^scale.  Returns JS_OK and
 * sets *set to 1 when a value was stored, to -1 when it was out of range.
 */
HOT int read_num(struct parser *ps, const char **pp, int scale, int64_t *out, int *set)
{
	const char *s;
	size_t n;
	int rc;

	*set = 0;
	if (**pp == '"') {
		if ((rc = jscan_string(&ps->js, pp, &s, &n)) != JS_OK)
			return rc;
		rc = jscan_number_text(s, n, scale, out);
		/* not counted: producers write ids as text ("stream": "0x0", ROCm) */
		*set = rc == JS_OK ? 1 : rc == JS_RANGE ? -1 : 0;
		return JS_OK;
	}
	if (**pp == '-' || JSCAN_IS_DIGIT(**pp)) {
		rc = jscan_number_quick(&ps->js, pp, scale, out);
		if (rc == JS_RANGE) {
			*set = -1;
			return JS_OK;
		}
		if (rc == JS_OK)
			*set = 1;
		return rc;
	}
	return skip_odd(ps, pp);
}

HOT int read_time(struct parser *ps, const char **pp, struct trace_event *ev, int64_t *out,
		  uint32_t flag)
{
	int set, rc = read_num(ps, pp, 3, out, &set);

	if (set > 0)
		ev->flags |= flag;
	else if (set < 0)
		ev->flags |= EV_BAD_TIME;
	return rc;
}

HOT int read_int(struct parser *ps, const char **pp, struct trace_event *ev, int64_t *out,
		 uint32_t flag)
{
	int set, rc = read_num(ps, pp, 0, out, &set);

	if (set > 0)
		ev->flags |= flag;
	return rc;
}

/*
 * A value nobody uses.  Most are numbers ("Ev Idx", "cbid", "queued"):
 * stepped over inline, with jscan_skip_fast's result and errors.
 */
HOT int skip_value(struct parser *ps, const char **pp)
{
	if (JSCAN_IS_DIGIT(**pp))
		return jscan_skip_number(&ps->js, pp);
	return skip_fast(ps, pp);
}

static void memo_init(struct memo *m)
{
	m->n = 1;
	memset(&m->node[0], 0, sizeof(m->node[0]));
}

/* Whether the text at p, with MEMO_ROOM bytes to read, starts with node m's run. */
static inline int memo_is(const struct memo_node *m, const char *p)
{
	size_t i = 0;

	for (; i + 8 < m->len; i += 8)
		if (jscan_load8(p + i) != jscan_load8(m->sep + i))
			return 0;
	return ((jscan_load8(p + i) ^ jscan_load8(m->sep + i)) & m->tail) == 0;
}

/* The child of node `at` whose run the text at p starts with, or 0. */
static inline unsigned memo_find(const struct memo *m, unsigned at, const char *p)
{
	for (unsigned c = m->node[at].child; c; c = m->node[c].sibling)
		if (memo_is(&m->node[c], p))
			return c;
	return 0;
}

/*
 * Learn the run [from, to), lexed as a member with key `code` (or the
 * close), as a child of node `at`; returns it, or MEMO_NONE when the run
 * is too long or the tree or node full.
 */
static unsigned memo_learn(struct memo *m, unsigned at, const char *from, const char *to,
			   unsigned code)
{
	size_t len = (size_t)(to - from);
	struct memo_node *parent, *c;
	uint16_t *link;

	if (at == MEMO_NONE || !len || len > MEMO_SEP_MAX || m->n >= MEMO_NODES)
		return MEMO_NONE;
	parent = &m->node[at];
	if (parent->nr_children >= MEMO_CHILDREN)
		return MEMO_NONE;
	c = &m->node[m->n];
	memset(c, 0, sizeof(*c));
	memcpy(c->sep, from, len);
	c->len = (uint8_t)len;
	c->code = (uint8_t)code;
	c->tail = ~0ull >> (64 - 8 * (len - (len - 1) / 8 * 8));
	parent->nr_children++;
	/* after the children already there: the first shapes seen are the common ones */
	for (link = &parent->child; *link; link = &m->node[*link].sibling)
		;
	*link = (uint16_t)m->n;
	return m->n++;
}

/*
 * The next member of an object, as jscan_member() steps to it (first: *pp
 * at the '{'; else just past a value), by its key's code (`code_of`), or
 * `end` once *pp is past the '}'; *at is the memo's node, 0 at the '{'.
 */
HOT int next_member(struct parser *ps, struct memo *m, unsigned *at, const char **pp, int first,
		    unsigned (*code_of)(const char *, size_t), unsigned end, const char *what,
		    unsigned *code)
{
	const char *p = *pp, *k;
	size_t n;
	int rc, more;

	if (*at != MEMO_NONE && ps->js.end - p >= MEMO_ROOM) {
		unsigned c = memo_find(m, *at, p);

		/*
		 * The lexer also saw that the value starts there, at a byte
		 * that is not whitespace: a run followed by more spaces here
		 * is not the same member.
		 */
		if (c && (m->node[c].code == end || (unsigned char)p[m->node[c].len] > ' ')) {
			*at = c;
			*code = m->node[c].code;
			*pp = p + m->node[c].len;
			return JS_OK;
		}
	}
	if ((rc = jscan_member(&ps->js, &p, first, &k, &n, &more, what)) != JS_OK)
		return rc;
	*code = more ? code_of(k, n) : end;
	*at = memo_learn(m, *at, *pp, p, *code);
	*pp = p;
	return JS_OK;
}

static unsigned arg_key(const char *k, size_t n)
{
	switch (n) {
	case 4:
		if (KEY_IS(k, n, "name"))
			return A_NAME;
		break;
	case 5:
		if (KEY_IS(k, n, "Bytes"))
			return A_BYTES;
		if (KEY_IS(k, n, "dtype"))
			return A_DTYPE;
		if (KEY_IS(k, n, "value"))	/* counters, as vtrace-export writes them */
			return A_VALUE;
		if (KEY_IS(k, n, "count"))	/* HCCL's hcom_* ops: elements, as In msg nelems */
			return A_IN_NELEMS;
		break;
	case 6:
		if (KEY_IS(k, n, "stream"))
			return A_STREAM;
		if (KEY_IS(k, n, "device"))
			return A_DEVICE;
		break;
	case 9:
		if (KEY_IS(k, n, "Device Id"))
			return A_DEVICE;
		if (KEY_IS(k, n, "data_type"))	/* HCCL's hcom_* ops: "FP32", as dtype */
			return A_DTYPE;
		break;
	case 10:
		if (KEY_IS(k, n, "Group size"))
			return A_GROUP_SIZE;
		if (KEY_IS(k, n, "Input Dims"))
			return A_IN_DIMS;
		if (KEY_IS(k, n, "Input type"))
			return A_IN_TYPES;
		break;
	case 11:
		if (KEY_IS(k, n, "correlation"))
			return A_CORRELATION;
		if (KEY_IS(k, n, "External id"))
			return A_EXTERNAL_ID;
		break;
	case 13:
		if (KEY_IS(k, n, "In msg nelems"))
			return A_IN_NELEMS;
		break;
	case 14:
		if (KEY_IS(k, n, "Total Reserved"))
			return A_TOTAL_RESERVED;
		if (KEY_IS(k, n, "Out msg nelems"))
			return A_OUT_NELEMS;
		break;
	case 15:
		if (KEY_IS(k, n, "Total Allocated"))
			return A_TOTAL_ALLOCATED;
		if (KEY_IS(k, n, "Collective name"))
			return A_COLL_NAME;
		if (KEY_IS(k, n, "Concrete Inputs"))
			return A_IN_CONCRETE;
		break;
	case 18:
		if (KEY_IS(k, n, "Process Group Name"))
			return A_PG_NAME;
		break;
	}
	return A_OTHER;
}

/* One arg value: the few keys the analyses use are kept. */
HOT int read_arg(struct parser *ps, const char **pp, struct trace_event *ev, unsigned key)
{
	switch (key) {
	case A_NAME:
		return read_str(ps, pp, &ev->arg_name, F_ARG_NAME);
	case A_BYTES:
		return read_int(ps, pp, ev, &ev->mem_bytes, EV_MEM_BYTES);
	case A_DTYPE:
		return read_str(ps, pp, &ev->dtype, F_DTYPE);
	case A_STREAM:
		return read_int(ps, pp, ev, &ev->stream, EV_STREAM);
	case A_DEVICE:
		return read_int(ps, pp, ev, &ev->device, EV_DEVICE);
	case A_GROUP_SIZE:
		return read_int(ps, pp, ev, &ev->group_size, EV_GROUP_SIZE);
	case A_CORRELATION:
		return read_int(ps, pp, ev, &ev->correlation, EV_CORRELATION);
	case A_EXTERNAL_ID:
		return read_int(ps, pp, ev, &ev->external_id, EV_EXTERNAL_ID);
	case A_IN_NELEMS:
		return read_int(ps, pp, ev, &ev->in_nelems, EV_IN_NELEMS);
	case A_OUT_NELEMS:
		return read_int(ps, pp, ev, &ev->out_nelems, EV_OUT_NELEMS);
	case A_TOTAL_RESERVED:
		return read_int(ps, pp, ev, &ev->mem_reserved, EV_MEM_RESERVED);
	case A_TOTAL_ALLOCATED:
		return read_int(ps, pp, ev, &ev->mem_allocated, EV_MEM_ALLOCATED);
	case A_COLL_NAME:
		return read_str(ps, pp, &ev->coll_name, F_COLL);
	case A_PG_NAME:
		return read_str(ps, pp, &ev->pg_name, F_PG);
	case A_VALUE:
		return read_int(ps, pp, ev, &ev->value, EV_VALUE);
	case A_IN_DIMS:
	case A_IN_TYPES:
	case A_IN_CONCRETE:
		return read_shape(ps, pp, ev, key);
	}
	return skip_value(ps, pp);
}

static int read_args(struct parser *ps, const char **pp, struct trace_event *ev)
{
	const char *p = *pp;
	unsigned at = 0, key;
	int rc;

	if (*p != '{')
		return skip_odd(ps, pp);
	for (rc = next_member(ps, &ps->memo_args, &at, &p, 1, arg_key, A_END, "", &key);
	     rc == JS_OK && key != A_END;
	     rc = next_member(ps, &ps->memo_args, &at, &p, 0, arg_key, A_END,
			      "expected ',' or '}' in args", &key))
		if ((rc = read_arg(ps, &p, ev, key)) != JS_OK)
			return rc;
	*pp = p;
	return rc;
}

static unsigned event_key(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (KEY_IS(k, n, "ph"))
			return K_PH;
		if (KEY_IS(k, n, "ts"))
			return K_TS;
		if (KEY_IS(k, n, "id"))
			return K_ID;
		break;
	case 3:
		if (KEY_IS(k, n, "cat"))
			return K_CAT;
		if (KEY_IS(k, n, "pid"))
			return K_PID;
		if (KEY_IS(k, n, "tid"))
			return K_TID;
		if (KEY_IS(k, n, "dur"))
			return K_DUR;
		break;
	case 4:
		if (KEY_IS(k, n, "name"))
			return K_NAME;
		if (KEY_IS(k, n, "args"))
			return K_ARGS;
		break;
	}
	return K_OTHER;
}

HOT int read_member(struct parser *ps, const char **pp, struct trace_event *ev, unsigned key)
{
	uint32_t ph;
	char phase;
	int rc;

	switch (key) {
	case K_PH:
		/* A repeated "ph" replaces the first, a non-string one clears it. */
		ph = 0;
		phase = 0;
		if ((rc = read_str1(ps, pp, &ph, F_PH, &phase)) != JS_OK)
			return rc;
		ev->ph = ph;
		ev->phase = phase;
		return JS_OK;
	case K_TS:
		return read_time(ps, pp, ev, &ev->ts_ns, EV_TS);
	case K_ID:
		return read_int(ps, pp, ev, &ev->flow_id, EV_FLOW_ID);
	case K_CAT:
		return read_str(ps, pp, &ev->cat, F_CAT);
	case K_PID:
		return read_id_text(ps, pp, &ev->pid, F_PID);
	case K_TID:
		return read_id_text(ps, pp, &ev->tid, F_TID);
	case K_DUR:
		return read_time(ps, pp, ev, &ev->dur_ns, EV_DUR);
	case K_NAME:
		return read_str(ps, pp, &ev->name, F_NAME);
	case K_ARGS: {
		const char *t = *pp;	/* a copy, as in skip_fast */

		rc = read_args(ps, &t, ev);
		*pp = t;
		return rc;
	}
	}
	return skip_value(ps, pp);
}

static int read_event(struct parser *ps, const char **pp, struct trace_event *ev)
{
	const char *p = *pp;
	unsigned at = 0, key;
	int rc;

	ps->odd = 0;
	for (rc = next_member(ps, &ps->memo_event, &at, &p, 1, event_key, K_END, "", &key);
	     rc == JS_OK && key != K_END;
	     rc = next_member(ps, &ps->memo_event, &at, &p, 0, event_key, K_END,
			      "expected ',' or '}' in event", &key))
		if ((rc = read_member(ps, &p, ev, key)) != JS_OK)
			return rc;
	if (rc != JS_OK)
		return rc;
	if (!(ev->flags & EV_DUR))
		ev->dur_ns = 0;
	/* Times past what the analyses can subtract safely (sat.h): the caller drops it. */
	if ((ev->flags & EV_TS && !sat_time_ok(ev->ts_ns)) ||
	    (ev->flags & EV_DUR && (!sat_time_ok(ev->dur_ns) ||
				    !sat_time_ok(ev->ts_ns + ev->dur_ns))))
		ev->flags |= EV_BAD_TIME;
	else if ((ev->flags & EV_DUR) && ev->dur_ns < 0) {
		/* No producer means it; a negative span would subtract from every sum. */
		ev->flags &= ~(uint32_t)(EV_TS | EV_DUR);
		ev->flags |= EV_NEG_DUR;
		ev->dur_ns = 0;	/* without EV_DUR, dur_ns is 0 (event.h) */
		if (!ps->nr_neg_dur++)
			ps->first_neg_dur = jscan_off(&ps->js, *pp);
	}
	if (ps->odd) {	/* the event is whole: a partial one is read again */
		if (!ps->nr_odd)
			ps->first_odd = jscan_off(&ps->js, *pp);
		ps->nr_odd += ps->odd;
	}
	*pp = p;
	return JS_OK;
}

int evparse_run(const char *text, size_t len, int64_t offset, enum evparse_state start,
		struct event_batch *b, struct evparse_result *r)
{
	struct parser ps;
	const char *p = text, *end = text + len, *elem;
	enum evparse_state state = start;
	struct trace_event *ev;
	int rc;

	memset(r, 0, sizeof(*r));
	err_clear(&r->err);
	jscan_init(&ps.js, text, len, offset, &b->arena, &r->err);
	ps.b = b;
	ps.nr_neg_dur = 0;
	ps.first_neg_dur = -1;
	ps.odd = ps.nr_odd = 0;
	ps.first_odd = -1;
	ps.oom = 0;
	for (int f = 0; f < NR_FIELDS; f++)
		for (int i = 0; i < RECENT; i++)
			ps.last[f][i].n = SIZE_MAX;	/* no string is that long: empty */
	memo_init(&ps.memo_event);
	memo_init(&ps.memo_args);

	for (;;) {
		p = jscan_ws(p, end);
		if (p >= end) {
			r->end = EVP_CLEAN;
			r->state = state;
			r->pos = len;
			break;
		}
		if (state == EVP_NEXT) {
			if (*p == ',') {
				state = EVP_VALUE;
				p++;
				continue;
			}
			if (*p == ']') {
				r->end = EVP_ARRAY_END;
				r->pos = (size_t)(p + 1 - text);
				break;
			}
			bad(&ps, p, "expected ',' or ']' after event");
			goto error;
		}
		if (state == EVP_FIRST && *p == ']') {
			r->end = EVP_ARRAY_END;
			r->pos = (size_t)(p + 1 - text);
			break;
		}
		elem = p;
		ev = event_batch_push(b);
		if (!ev) {
			oom(&ps, p);
			goto error;
		}
		if (*p == '{') {
			rc = read_event(&ps, &p, ev);
		} else {
			rc = jscan_skip(&ps.js, &p);
			r->nr_not_object += rc == JS_OK;
		}
		if (rc == JS_OK) {
			state = EVP_NEXT;
			if (ev->flags & EV_BAD_TIME) {
				if (!r->nr_bad_time++)
					r->bad_time_pos = (size_t)(elem - text);
				b->n--;
			}
			continue;
		}
		b->n--;
		if (rc == JS_MORE) {
			r->end = EVP_PARTIAL;
			r->state = state;
			r->pos = (size_t)(elem - text);
			break;
		}
		goto error;
	}
	r->nr_neg_dur = ps.nr_neg_dur;
	r->first_neg_dur = ps.first_neg_dur;
	r->nr_odd = ps.nr_odd;
	r->first_odd = ps.first_odd;
	return 0;
error:
	r->end = EVP_ERROR;
	r->pos = r->err.offset >= 0 ? (size_t)(r->err.offset - offset) : (size_t)(p - text);
	r->nr_neg_dur = ps.nr_neg_dur;
	r->first_neg_dur = ps.first_neg_dur;
	r->nr_odd = ps.nr_odd;
	r->first_odd = ps.first_odd;
	return ps.oom ? -1 : 0;
}
