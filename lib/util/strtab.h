/*
 * strtab: string interning.  Equal byte strings get equal small ids.
 *
 * Ids are dense and start at 1 in order of first interning; 0 means "no
 * string" everywhere in vtrace.  A table either borrows the bytes it is given
 * (they must outlive it: a parse batch points into its own chunk text) or
 * copies them into its own arena (the per-file table that outlives chunks).
 * Not thread-safe: each chunk and each file owns one.
 */
#ifndef VT_STRTAB_H
#define VT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#define STRTAB_NONE 0u
#define STRTAB_OOM UINT32_MAX

struct strtab_entry {
	const char *s;		/* NUL-terminated when the table copies */
	uint32_t len;
	uint32_t hash;
};

struct strtab {
	struct strtab_entry *ents;	/* ents[id], ents[0] unused */
	uint32_t n;			/* ids in use are 1..n-1 */
	size_t alloc;			/* ents' room, for ALLOC_GROW */
	uint32_t *slots;		/* open addressing, 0 = empty */
	uint32_t mask;
	int copy;
	struct arena arena;		/* copies live here when copy */
};

/* copy: 1 to keep private copies of interned bytes, 0 to borrow them. */
void strtab_init(struct strtab *t, int copy);
void strtab_release(struct strtab *t);

/* Forget every string but keep the memory, for tables reused per chunk. */
void strtab_reset(struct strtab *t);

/* The id of s[0..len), interning it if new.  STRTAB_OOM when out of memory. */
uint32_t strtab_intern(struct strtab *t, const char *s, size_t len);

/* The id of s[0..len) if present, else STRTAB_NONE. */
uint32_t strtab_find(const struct strtab *t, const char *s, size_t len);

/* Bytes of id (1..n-1): pointer and length.  Borrowed from the table. */
static inline const char *strtab_str(const struct strtab *t, uint32_t id)
{
	return t->ents[id].s;
}

static inline uint32_t strtab_len(const struct strtab *t, uint32_t id)
{
	return t->ents[id].len;
}

/* Number of strings interned. */
static inline uint32_t strtab_count(const struct strtab *t)
{
	return t->n ? t->n - 1 : 0;
}

/*
 * The id in t of string id of table from, memoised in map[id] (zeroed by
 * the caller, one slot per id of from).  STRTAB_OOM when out of memory.
 * Used to carry a batch's strings into a longer-lived table.
 */
uint32_t strtab_map(struct strtab *t, const struct strtab *from, uint32_t id, uint32_t *map);

/* The hash strtab uses, exposed for tests and other tables. */
uint32_t strtab_hash(const char *s, size_t len);

#endif
