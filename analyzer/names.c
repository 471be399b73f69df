/* names: see names.h. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

void names_init(struct names *n)
{
	strtab_init(&n->t, 1);
	n->batch = NULL;
	n->map = NULL;
	n->map_alloc = 0;
}

void names_release(struct names *n)
{
	strtab_release(&n->t);
	free(n->map);
	names_init(n);
}

int names_batch(struct names *n, const struct event_batch *b)
{
	size_t nstr = (size_t)strtab_count(&b->strs) + 1;

	if (ALLOC_GROW(n->map, nstr, n->map_alloc))
		return -1;
	memset(n->map, 0, nstr * sizeof(*n->map));
	n->batch = b;
	return 0;
}
