/*
 * event: see event.h.  The record array of a batch is malloc'd and reused
 * across resets, so a reader that recycles batches allocates nothing per
 * chunk once warmed up.
 */
#include "event.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

void event_batch_init(struct event_batch *b)
{
	b->ev = NULL;
	b->n = b->cap = 0;
	b->shapes = NULL;
	b->nr_shapes = b->cap_shapes = 0;
	strtab_init(&b->strs, 0);
	arena_init(&b->arena);
}

void event_batch_release(struct event_batch *b)
{
	free(b->ev);
	free(b->shapes);
	strtab_release(&b->strs);
	arena_release(&b->arena);
	event_batch_init(b);
}

void event_batch_reset(struct event_batch *b)
{
	b->n = 0;
	b->nr_shapes = 0;
	strtab_reset(&b->strs);
	arena_release(&b->arena);
}
