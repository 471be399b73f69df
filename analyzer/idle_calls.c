/*
 * idle_calls: see idle_calls.h.  Differences are taken and summed in
 * uint64_t, which wraps exactly, so any int64 comes back as it went in.
 */
#include "idle_calls.h"

#include <stdlib.h>

void idle_calls_init(struct idle_calls *l)
{
	buf_init(&l->bytes);
	l->last_ts = l->last_corr = 0;
	l->n = 0;
	l->flags = NULL;
}

void idle_calls_release(struct idle_calls *l)
{
	buf_release(&l->bytes);
	free(l->flags);
	idle_calls_init(l);
}

static unsigned char *put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* The difference b - a, zigzagged: small either way, small varint. */
static uint64_t zigzag(int64_t a, int64_t b)
{
	uint64_t d = (uint64_t)b - (uint64_t)a;

	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

void idle_calls_add(struct idle_calls *l, const struct idle_call *c)
{
	unsigned char tmp[40], *p = tmp;
	int has = c->corr != INT64_MIN;

	p = put(p, zigzag(l->last_ts, c->ts_ns));
	p = put(p, (uint64_t)c->track << 1 | (uint64_t)has);
	if (has) {
		p = put(p, zigzag(l->last_corr, c->corr));
		l->last_corr = c->corr;
	}
	p = put(p, c->name);
	buf_add(&l->bytes, tmp, (size_t)(p - tmp));
	l->last_ts = c->ts_ns;
	l->n++;
}

int idle_calls_ok(const struct idle_calls *l)
{
	return buf_ok(&l->bytes);
}

int idle_calls_flags(struct idle_calls *l)
{
	free(l->flags);
	l->flags = calloc(l->n ? l->n : 1, 1);
	return l->flags ? 0 : -1;
}

void idle_calls_begin(struct idle_calls_cursor *c, const struct idle_calls *l)
{
	c->p = (const unsigned char *)l->bytes.data;
	c->end = c->p ? c->p + l->bytes.len : NULL;
	c->ts = c->corr = 0;
	c->i = 0;
}

/* A varint the stream holds (written by put(): never past the end). */
static uint64_t get(const unsigned char **p)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (**p & 0x80) {
		v |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
		(*p)++;
	}
	v |= (uint64_t)**p << shift;
	(*p)++;
	return v;
}

static int64_t unzigzag(int64_t a, uint64_t z)
{
	uint64_t d = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);

	return (int64_t)((uint64_t)a + d);
}

int idle_calls_next(struct idle_calls_cursor *c, struct idle_call *out)
{
	uint64_t tr;

	if (c->p == c->end)
		return 0;
	c->ts = unzigzag(c->ts, get(&c->p));
	tr = get(&c->p);
	out->corr = INT64_MIN;
	if (tr & 1)
		out->corr = c->corr = unzigzag(c->corr, get(&c->p));
	out->ts_ns = c->ts;
	out->track = (uint32_t)(tr >> 1);
	out->name = (uint32_t)get(&c->p);
	c->i++;
	return 1;
}
