/*
 * dirwalk: the files under a directory, for the programs' directory
 * arguments (vanalyze's DIR, vaggregate's --reports_dir).
 *
 * The files listed are regular files (symbolic links followed) whose names
 * the caller's want() takes; names starting with '.' are passed over
 * (editor and tool droppings).  The order is deterministic: the entries of
 * each directory sorted by bytes, depth first, so rank_10/ comes after
 * rank_1/ and before rank_2/ whatever readdir() returns.
 *
 * With recurse, subdirectories are entered, through links too, but never
 * one already being walked (the same device and inode on the chain from dir
 * down), so a link loop ends the descent instead of the program, and never
 * deeper than DIRWALK_MAX_DEPTH.  A directory reached twice through
 * different links but not through a loop is walked twice: its files come
 * twice.
 */
#ifndef VT_DIRWALK_H
#define VT_DIRWALK_H

#include "log.h"
#include "pathlist.h"

/* Deeper than any real layout; bounds the stack of the recursion. */
#define DIRWALK_MAX_DEPTH 64

struct dirwalk {
	int (*want)(const char *name);	/* 1: list a file of this name */
	int recurse;			/* enter subdirectories too */
	/*
	 * Told of what the walk passed over below dir: a subdirectory that
	 * cannot be opened, a link back up, one too deep, a name want() takes
	 * that cannot be stat()ed (a dangling link).  NULL: nothing is said.
	 */
	void (*warn)(const char *path, const char *what);
};

/*
 * Append the files under dir that w takes to l, and return how many.
 * Returns -1, with l as it was and *err filled (the message does not name
 * dir), when dir cannot be opened or is not a directory, or when out of
 * memory.
 */
long dirwalk(struct pathlist *l, const char *dir, const struct dirwalk *w, struct err *err);

#endif
