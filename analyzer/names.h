/*
 * names: the strings of one rank's events, interned once.
 *
 * A batch's string ids mean nothing past its batch, so each analysis that
 * kept a name (a kernel's, an operator's, a span's), a pid's text or a
 * collective's group carried it into a table of its own: seven tables
 * hashed the same strings once per batch each and held a copy each.  One
 * table per rank holds them now, and a batch's string is carried into it
 * at most once, by the first analysis that asks (names_id()).  Ids are the
 * rank's, the same in every analysis, so a record of one can be read by
 * another, and a fact about a name can be kept per id for the whole file
 * (name_memo.h) instead of per batch.
 *
 * Ids start at 1 in order of first asking; 0 is no string.  No output
 * depends on that order: every table sorted by a name breaks its ties by
 * the name's bytes.  The collectors run one at a time (analyze.c), and the
 * finishing steps only read.
 */
#ifndef VT_NAMES_H
#define VT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "strtab.h"

struct names {
	struct strtab t;		/* copies */
	const struct event_batch *batch;	/* the batch map[] belongs to */
	uint32_t *map;			/* batch string id -> id in t; 0: not asked yet */
	size_t map_alloc;
};

void names_init(struct names *n);
void names_release(struct names *n);

/* Begin batch b: none of its strings asked yet.  -1 when out of memory. */
int names_batch(struct names *n, const struct event_batch *b);

/*
 * The rank's id of the current batch's string id (0: 0).  STRTAB_OOM when
 * out of memory.
 */
static inline uint32_t names_id(struct names *n, uint32_t id)
{
	return id ? strtab_map(&n->t, &n->batch->strs, id, n->map) : 0;
}

static inline const char *names_str(const struct names *n, uint32_t id)
{
	return strtab_str(&n->t, id);
}

static inline uint32_t names_len(const struct names *n, uint32_t id)
{
	return strtab_len(&n->t, id);
}

/* The ids in use are 1..names_count(). */
static inline uint32_t names_count(const struct names *n)
{
	return strtab_count(&n->t);
}

#endif
