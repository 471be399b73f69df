/*
 * track: the threads events ran on, as dense per-file ids.
 *
 * A thread is its pid and tid, compared by their text (so tid 7 and "7"
 * are one thread).  A batch has a handful of threads but hundreds of
 * thousands of events, so a small per-batch cache keyed by the batch's own
 * string ids saves building and hashing the key for every event.
 */
#ifndef VT_TRACK_H
#define VT_TRACK_H

#include <stdint.h>

#include "event.h"
#include "strtab.h"

#define TRACK_CACHE_SLOTS 64

struct track_cache {
	const struct event_batch *batch;	/* the batch the entries belong to */
	uint64_t key[TRACK_CACHE_SLOTS];	/* (pid id << 32 | tid id) + 1; 0 empty */
	uint32_t id[TRACK_CACHE_SLOTS];
};

/* ev's cache key ((pid id << 32 | tid id) + 1, never 0) in *key, and its slot. */
static inline unsigned track_slot(const struct trace_event *ev, uint64_t *key)
{
	*key = ((uint64_t)ev->pid << 32 | ev->tid) + 1;
	return (unsigned)((*key * 0x9e3779b97f4a7c15ull) >> 58);
}

/* track_id() on a cache miss: interns the key and caches it. */
uint32_t track_miss(struct strtab *tracks, struct track_cache *c, const struct event_batch *b,
		    const struct trace_event *ev);

/*
 * The track id of ev, an event of batch b, interned into tracks (a copying
 * strtab of "pid\x1ftid" keys).  STRTAB_OOM when out of memory.  Inline,
 * as it is asked per event and nearly always answered by the cache.
 */
static inline uint32_t track_id(struct strtab *tracks, struct track_cache *c,
				const struct event_batch *b, const struct trace_event *ev)
{
	uint64_t k;
	unsigned slot = track_slot(ev, &k);

	if (c->batch == b && c->key[slot] == k)
		return c->id[slot];
	return track_miss(tracks, c, b, ev);
}

#endif
