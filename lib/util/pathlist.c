/*
 * pathlist: see pathlist.h.
 */
#include "pathlist.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

void pathlist_init(struct pathlist *l)
{
	l->paths = NULL;
	l->n = l->alloc = 0;
}

void pathlist_release(struct pathlist *l)
{
	pathlist_truncate(l, 0);
	free(l->paths);
	pathlist_init(l);
}

int pathlist_add(struct pathlist *l, const char *path)
{
	char *s;

	if (ALLOC_GROW(l->paths, l->n + 1, l->alloc) || !(s = strdup(path)))
		return -1;
	l->paths[l->n++] = s;
	return 0;
}

void pathlist_truncate(struct pathlist *l, size_t n)
{
	while (l->n > n)
		free(l->paths[--l->n]);
}
