/*
 * grow: see grow.h.  The array pointer is read and written through memcpy,
 * so that any object pointer type can be passed as void * without an
 * aliasing cast of the pointer variable itself.
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hugepage.h"

/*
 * grow_array(), and with leap a block that reaches GROW_LEAP bytes grows
 * straight to GROW_MAPPED.  Below GROW_MAPPED a block lives in malloc's
 * heap, and each growth copies it into a new block (the record arrays of
 * a big trace copied 25 MB so, into fresh pages); from it on, malloc maps
 * the block alone and realloc moves its pages (mremap) instead.  The
 * pages of the leap that are never written are never touched: it costs
 * no memory.
 */
static int grow_to(void *pp, size_t elem, size_t nr, size_t *alloc, int leap)
{
	size_t cap = *alloc;
	void *p;

	if (nr <= cap)
		return 0;
	cap = cap < SIZE_MAX / 3 ? cap + cap / 2 : nr;
	if (cap < nr)
		cap = nr;
	if (cap < GROW_MIN)
		cap = GROW_MIN;
	if (elem && cap > SIZE_MAX / elem)
		return -1;
	if (leap && elem && cap * elem >= GROW_LEAP && cap * elem < GROW_MAPPED)
		cap = (GROW_MAPPED + elem - 1) / elem;
	if (elem)	/* whole huge pages, once large (hugepage.h) */
		cap = hugepage_round(cap * elem) / elem;
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, cap * elem);
	if (!p)
		return -1;
	/*
	 * The whole block: realloc may have moved it, and then the copy of
	 * the old part is the first to touch it.
	 */
	hugepage_advise(p, cap * elem);
	memcpy(pp, &p, sizeof(p));
	*alloc = cap;
	return 0;
}

int grow_array(void *pp, size_t elem, size_t nr, size_t *alloc)
{
	return grow_to(pp, elem, nr, alloc, 1);
}

/* No leap: the new elements are zeroed, which would touch its pages. */
int grow_array_zero(void *pp, size_t elem, size_t nr, size_t *alloc)
{
	size_t old = *alloc;
	char *p;

	if (grow_to(pp, elem, nr, alloc, 0))
		return -1;
	memcpy(&p, pp, sizeof(p));
	memset(p + old * elem, 0, (*alloc - old) * elem);
	return 0;
}
