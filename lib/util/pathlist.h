/*
 * pathlist: a list of file paths, each an owned copy, in the order added.
 *
 * What the programs' inputs are made of: the paths named on a command line
 * and the files a directory walk found (dirwalk.h).
 */
#ifndef VT_PATHLIST_H
#define VT_PATHLIST_H

#include <stddef.h>

struct pathlist {
	char **paths;		/* owned, each owned; pathlist_release() frees */
	size_t n, alloc;
};

void pathlist_init(struct pathlist *l);
void pathlist_release(struct pathlist *l);

/* Append a copy of path.  Returns 0, or -1 when out of memory (l unchanged). */
int pathlist_add(struct pathlist *l, const char *path);

/* Free the paths from n on, so that l holds its first n again. */
void pathlist_truncate(struct pathlist *l, size_t n);

#endif
