/* name_memo: see name_memo.h. */
#include "name_memo.h"

#include <stdlib.h>

#include "grow.h"

void name_memo_init(struct name_memo *m, unsigned (*fn)(const char *, size_t))
{
	m->fn = fn;
	m->val = NULL;
	m->alloc = 0;
}

void name_memo_release(struct name_memo *m)
{
	free(m->val);
	name_memo_init(m, m->fn);
}

int name_memo_ask(struct name_memo *m, const struct names *nm, uint32_t id)
{
	if (ALLOC_GROW_ZERO(m->val, (size_t)id + 1, m->alloc))
		return -1;
	if (!m->val[id])	/* id 0, no name, is asked as the empty one */
		m->val[id] = (unsigned char)(m->fn(id ? names_str(nm, id) : "",
						   id ? names_len(nm, id) : 0) + 1);
	return m->val[id] - 1;
}
