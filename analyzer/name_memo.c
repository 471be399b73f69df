/* name_memo: see name_memo.h. */
#include "name_memo.h"

#include <stdlib.h>

#include "grow.h"

void name_memo_init(struct name_memo *m, unsigned (*fn)(const char *, size_t))
{
	m->fn = fn;
	strtab_init(&m->names, 1);
	m->val = NULL;
	m->alloc = 0;
}

void name_memo_release(struct name_memo *m)
{
	strtab_release(&m->names);
	free(m->val);
	name_memo_init(m, m->fn);
}

int name_memo_get(struct name_memo *m, const char *s, size_t n)
{
	uint32_t id = strtab_intern(&m->names, s, n);

	if (id == STRTAB_OOM || ALLOC_GROW_ZERO(m->val, (size_t)id + 1, m->alloc))
		return -1;
	if (!m->val[id])
		m->val[id] = (unsigned char)(m->fn(s, n) + 1);
	return m->val[id] - 1;
}
