/* track: see track.h. */
#include "track.h"

#include <string.h>

/* "pid\x1ftid" from their text, each cut at 127 bytes. */
static size_t track_key(const struct strtab *st, const struct trace_event *ev, char *key)
{
	size_t np = ev->pid ? strtab_len(st, ev->pid) : 0;
	size_t nt = ev->tid ? strtab_len(st, ev->tid) : 0;

	if (np > 127)
		np = 127;
	if (nt > 127)
		nt = 127;
	if (np)
		memcpy(key, strtab_str(st, ev->pid), np);
	key[np] = '\x1f';
	if (nt)
		memcpy(key + np + 1, strtab_str(st, ev->tid), nt);
	return np + 1 + nt;
}

uint32_t track_miss(struct strtab *tracks, struct track_cache *c, const struct event_batch *b,
		    const struct trace_event *ev)
{
	uint64_t k;
	unsigned slot = track_slot(ev, &k);
	char key[256];
	uint32_t id;

	if (c->batch != b) {	/* track_id() has looked in this batch's entries only */
		memset(c->key, 0, sizeof(c->key));
		c->batch = b;
	}
	id = strtab_intern(tracks, key, track_key(&b->strs, ev, key));
	if (id != STRTAB_OOM) {
		c->key[slot] = k;
		c->id[slot] = id;
	}
	return id;
}
