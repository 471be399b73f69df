/* hugepage: see hugepage.h. */
#include "hugepage.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void hugepage_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	long sz;
	uintptr_t page, lo, hi;

	if (!p || n < HUGEPAGE_MIN)
		return;
	sz = sysconf(_SC_PAGESIZE);	/* a stored value, no system call */
	page = sz > 0 ? (uintptr_t)sz : 4096;
	/*
	 * Whole small pages around the block, not just the huge pages inside
	 * it: malloc maps a big block on its own, and advising all of that
	 * mapping keeps it one mapping.  Advising only a part would split it,
	 * and mremap, which lets realloc grow a block without copying it,
	 * refuses a range that spans two mappings: realloc would then copy.
	 */
	lo = (uintptr_t)p & ~(page - 1);
	hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void *hugepage_malloc(size_t n)
{
	void *p = malloc(n);

	hugepage_advise(p, n);
	return p;
}

void *hugepage_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	/* A big calloc is a fresh mapping, not touched yet: advise it now. */
	hugepage_advise(p, n * size);
	return p;
}
