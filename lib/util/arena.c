/*
 * arena: see arena.h.  Each block starts with its header; the newest block
 * is the head of a singly linked list.
 */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t size;
	/* data follows, 16-byte aligned by the header size */
	max_align_t data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->cur = a->end = NULL;
	a->total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b;
	size_t size;
	char *p;

	if (n > SIZE_MAX - 7)
		return NULL;
	n = (n + 7) & ~(size_t)7;
	if (n == 0)
		n = 8;
	if ((size_t)(a->end - a->cur) >= n && a->cur) {
		p = a->cur;
		a->cur += n;
		return p;
	}
	/* doubling from ARENA_FIRST to ARENA_BLOCK: total counts the headers too */
	size = a->total < ARENA_FIRST ? ARENA_FIRST
	       : a->total < ARENA_BLOCK ? a->total : ARENA_BLOCK;
	size = n > size ? n : size;
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->size = size;
	b->next = a->head;
	a->head = b;
	a->total += sizeof(*b) + size;
	p = (char *)b->data;
	/* A big one-off request keeps the current block for later small ones. */
	if (size == n && a->cur && (size_t)(a->end - a->cur) > 256)
		return p;
	a->cur = p + n;
	a->end = p + size;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	if (n)			/* s may be NULL when n is 0 (an empty buf) */
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void arena_adopt(struct arena *dst, struct arena *src)
{
	struct arena_block *last = src->head;

	if (!last)
		return;
	while (last->next)
		last = last->next;
	/* Behind dst's head, so dst keeps allocating from its current block. */
	if (dst->head) {
		last->next = dst->head->next;
		dst->head->next = src->head;
	} else {
		dst->head = src->head;
		dst->cur = src->cur;
		dst->end = src->end;
	}
	dst->total += src->total;
	arena_init(src);
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head;

	while (b) {
		struct arena_block *next = b->next;

		free(b);
		b = next;
	}
	arena_init(a);
}
