/*
 * grow: one way to grow an array, in the spirit of git's ALLOC_GROW.
 *
 *	struct row *v; size_t n, alloc;
 *	if (ALLOC_GROW(v, n + 1, alloc))
 *		return -1;		// out of memory: v and alloc unchanged
 *	v[n++] = row;
 *
 * The capacity grows by half again (at least to the count asked for, and
 * at least GROW_MIN elements; from HUGEPAGE_MIN bytes on, to whole huge
 * pages: hugepage.h), so n pushes cost O(n) copies; the size is
 * checked for overflow before realloc().  x must be an lvalue pointer to
 * complete objects (sizeof(*x) is the element size), alloc a size_t
 * lvalue.  New elements are not initialised.
 */
#ifndef VT_GROW_H
#define VT_GROW_H

#include <stddef.h>

#define GROW_MIN 16

/*
 * Blocks of GROW_MAPPED bytes and more are mapped on their own (vanalyze
 * sets malloc's M_MMAP_THRESHOLD to it; glibc's own starts lower), and an
 * array past GROW_LEAP bytes grows straight to that size (grow.c).
 */
#define GROW_MAPPED (1u << 20)
#define GROW_LEAP (256u << 10)

#define ALLOC_GROW(x, nr, alloc) \
	((size_t)(nr) <= (alloc) ? 0 : grow_array((void *)&(x), sizeof(*(x)), (nr), &(alloc)))

/*
 * ALLOC_GROW for arrays indexed by an id that may skip ahead (a table per
 * name id): the new elements, from the old capacity to the new, are zeroed,
 * so every element below alloc reads as zero until written.
 */
#define ALLOC_GROW_ZERO(x, nr, alloc) \
	((size_t)(nr) <= (alloc) ? 0 : grow_array_zero((void *)&(x), sizeof(*(x)), (nr), &(alloc)))

/*
 * Make *pp (a pointer to an array of elements of elem bytes, with room for
 * *alloc of them) hold at least nr.  Returns 0, or -1 when out of memory or
 * when the size overflows, with *pp and *alloc unchanged.  Use ALLOC_GROW.
 */
int grow_array(void *pp, size_t elem, size_t nr, size_t *alloc);

/* grow_array(), zeroing the new elements.  Use ALLOC_GROW_ZERO. */
int grow_array_zero(void *pp, size_t elem, size_t nr, size_t *alloc);

#endif
