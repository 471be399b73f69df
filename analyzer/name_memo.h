/*
 * name_memo: the answers of a function of a name, kept for a whole file.
 *
 * The collectors see the events a batch at a time; a function that matches
 * a name against tables of patterns (classify_name(), opcat_of()) ran once
 * per name and batch: a few thousand batches of the same few hundred names
 * in a gigabyte of trace.  A memo keeps each name's answer by its id in the
 * rank's names (names.h), so the function runs once per name and a batch
 * asks with one array read.
 */
#ifndef VT_NAME_MEMO_H
#define VT_NAME_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "names.h"

struct name_memo {
	unsigned (*fn)(const char *s, size_t n);	/* answers 0 to 254 */
	unsigned char *val;	/* per name id: the answer + 1; 0 not asked yet */
	size_t alloc;
};

void name_memo_init(struct name_memo *m, unsigned (*fn)(const char *, size_t));
void name_memo_release(struct name_memo *m);

/* name_memo_get() when id's answer is not kept yet. */
int name_memo_ask(struct name_memo *m, const struct names *nm, uint32_t id);

/* fn() of name id of nm (0: the empty name), asked once per id; -1 when out of memory. */
static inline int name_memo_get(struct name_memo *m, const struct names *nm, uint32_t id)
{
	if (id < m->alloc && m->val[id])
		return m->val[id] - 1;
	return name_memo_ask(m, nm, id);
}

#endif
