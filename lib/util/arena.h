/*
 * arena: a bump allocator.  Many small allocations, one release.
 *
 * Blocks are malloc'd on demand and freed together by arena_release().
 * The first is ARENA_FIRST bytes and each next one as large as all before,
 * up to ARENA_BLOCK (or the request, if larger): an arena that holds a tiny
 * file's few strings stays tiny, and vanalyze keeps one per input until
 * the report is written.  Nothing is freed individually.  Not thread-safe:
 * each thread or input owns its own arena.
 */
#ifndef VT_ARENA_H
#define VT_ARENA_H

#include <stddef.h>

#define ARENA_FIRST 512u
#define ARENA_BLOCK (64u * 1024)

struct arena_block;

struct arena {
	struct arena_block *head;
	char *cur, *end;
	size_t total;		/* bytes malloc'd, for memory accounting */
};

void arena_init(struct arena *a);

/* n bytes aligned to 8, or NULL when malloc fails.  Valid until release. */
void *arena_alloc(struct arena *a, size_t n);

/* A copy of s[0..n) with a NUL after it, or NULL when malloc fails. */
char *arena_strndup(struct arena *a, const char *s, size_t n);

/*
 * Move every block of src into dst: what was allocated from src now lives
 * until arena_release(dst).  src is left empty and reusable.
 */
void arena_adopt(struct arena *dst, struct arena *src);

/* Free every block; the arena is empty and reusable afterwards. */
void arena_release(struct arena *a);

#endif
