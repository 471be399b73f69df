/*
 * name_memo: the answers of a function of a name, kept for a whole file.
 *
 * The collectors see the events a batch at a time, and a batch's string
 * ids mean nothing in the next one, so a function that matches a name
 * against tables of patterns (classify_name(), opcat_of()) ran once per
 * name and batch: a few thousand batches of the same few hundred names in
 * a gigabyte of trace.  A memo keeps each distinct name's answer (a copy
 * of the name, hashed once per batch) so the function runs once per name.
 */
#ifndef VT_NAME_MEMO_H
#define VT_NAME_MEMO_H

#include <stddef.h>

#include "strtab.h"

struct name_memo {
	unsigned (*fn)(const char *s, size_t n);	/* answers 0 to 254 */
	struct strtab names;	/* copies */
	unsigned char *val;	/* per name id: the answer + 1; 0 not asked yet */
	size_t alloc;
};

void name_memo_init(struct name_memo *m, unsigned (*fn)(const char *, size_t));
void name_memo_release(struct name_memo *m);

/* fn(s, n), asked once per distinct s; -1 when out of memory. */
int name_memo_get(struct name_memo *m, const char *s, size_t n);

#endif
