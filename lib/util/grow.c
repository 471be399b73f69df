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

int grow_array(void *pp, size_t elem, size_t nr, size_t *alloc)
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

int grow_array_zero(void *pp, size_t elem, size_t nr, size_t *alloc)
{
	size_t old = *alloc;
	char *p;

	if (grow_array(pp, elem, nr, alloc))
		return -1;
	memcpy(&p, pp, sizeof(p));
	memset(p + old * elem, 0, (*alloc - old) * elem);
	return 0;
}
