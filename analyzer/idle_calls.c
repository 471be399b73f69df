/*
 * idle_calls: see idle_calls.h.  Differences are taken and summed in
 * uint64_t, which wraps exactly, so any int64 comes back as it went in.
 */
#include "idle_calls.h"

#include <stdlib.h>

#include "varint.h"

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

void idle_calls_add(struct idle_calls *l, const struct idle_call *c)
{
	unsigned char tmp[5 * VARINT_MAX], *p = tmp;
	int has = c->corr != INT64_MIN;

	p = varint_put(p, varint_zigzag(l->last_ts, c->ts_ns));
	p = varint_put(p, (uint64_t)c->track << 1 | (uint64_t)has);
	if (has) {
		p = varint_put(p, varint_zigzag(l->last_corr, c->corr));
		l->last_corr = c->corr;
	}
	p = varint_put(p, c->name);
	p = varint_put(p, (uint64_t)(c->dur_ns > 0 ? c->dur_ns : 0));
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
