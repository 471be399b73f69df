/*
 * calls: see calls.h.  Differences are taken and summed in uint64_t,
 * which wraps exactly, so any int64 comes back as it went in.
 */
#include "calls.h"

#include <stdlib.h>

#include "classify.h"
#include "launch.h"
#include "track.h"

_Static_assert(CALL_F_USERS_SHIFT + LAUNCH_NR_USERS <= 8, "the users fit the flags byte");

void calls_init(struct calls *l, struct names *names)
{
	buf_init(&l->bytes);
	l->last_ts = l->last_corr = 0;
	l->last_track = 0;
	l->n = l->nr_idle = 0;
	l->marks = NULL;
	l->names = names;
}

void calls_release(struct calls *l)
{
	buf_release(&l->bytes);
	free(l->marks);
	calls_init(l, l->names);
}

/* Append a call (sticky out of memory: buf_ok()). */
static void add(struct calls *l, const struct call *c)
{
	unsigned char tmp[1 + 6 * VARINT_MAX], *p = tmp + 1;
	unsigned f = c->users << CALL_F_USERS_SHIFT | (c->idle ? CALL_F_IDLE : 0);

	p = varint_put(p, varint_zigzag(l->last_ts, c->ts_ns));
	if (c->has_corr) {
		f |= CALL_F_CORR;
		p = varint_put(p, varint_zigzag(l->last_corr, c->corr));
		l->last_corr = c->corr;
	}
	if (c->track != l->last_track) {
		f |= CALL_F_TRACK;
		p = varint_put(p, c->track);
		l->last_track = c->track;
	}
	if (c->what) {
		f |= CALL_F_WHAT;
		p = varint_put(p, c->what);
	}
	p = varint_put(p, c->name);
	p = varint_put(p, (uint64_t)(c->dur_ns > 0 ? c->dur_ns : 0));
	tmp[0] = (unsigned char)f;
	buf_add(&l->bytes, tmp, (size_t)(p - tmp));
	l->last_ts = c->ts_ns;
	l->n++;
	l->nr_idle += c->idle != 0;
}

int calls_collect(struct calls *l, const struct event_batch *b, const unsigned char *tag,
		  const unsigned char *cls, const unsigned char *sub, struct strtab *tracks)
{
	const unsigned users = (1u << LAUNCH_NR_USERS) - 1;	/* LAUNCH_CALL()'s bits */
	struct track_cache cache = { 0 };

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		unsigned t = tag[i], c = evc_call_class(cls[i], sub[i]);
		int idle = evc_is_call(c) && ev_is_complete(ev);
		struct call r;

		/* most events: look no further */
		if (!(t & (users | LAUNCH_WHAT(~0u))) && !idle)
			continue;
		r = (struct call){ ev->ts_ns, ev->correlation, track_id(tracks, &cache, b, ev),
				   names_id(l->names, ev->name), ev->dur_ns, t & users,
				   launch_what(t), (unsigned)idle,
				   (ev->flags & EV_CORRELATION) != 0 };
		if (r.track == STRTAB_OOM || r.name == STRTAB_OOM)
			return -1;
		add(l, &r);
	}
	return buf_ok(&l->bytes) ? 0 : -1;
}

int calls_marks(struct calls *l)
{
	free(l->marks);
	l->marks = calloc(l->n ? l->n : 1, 1);
	return l->marks ? 0 : -1;
}
