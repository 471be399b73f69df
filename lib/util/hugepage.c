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

/*
 * glibc's header of a block it maps on its own, and its rounding: a
 * request of k huge pages less this many bytes is mapped as exactly k huge
 * pages (checked with strace on glibc 2.36).  With another malloc the
 * block is only a little larger than asked, as before.
 */
#define MAPPED_HEADER 32u

size_t hugepage_round(size_t n)
{
	if (n < HUGEPAGE_MIN || n > SIZE_MAX - HUGEPAGE_SIZE - MAPPED_HEADER)
		return n;
	return (n + MAPPED_HEADER + HUGEPAGE_SIZE - 1) / HUGEPAGE_SIZE * HUGEPAGE_SIZE -
	       MAPPED_HEADER;
}

/*
 * A block of a known size: mapped on a huge-page boundary (hugepage_round),
 * but only its n bytes are advised: the pages past them are never used, and
 * a huge page would back them all the same.  The block never grows, so the
 * advice may split its mapping.
 */
void *hugepage_malloc(size_t n)
{
	void *p = malloc(hugepage_round(n));

	hugepage_advise(p, n);
	return p;
}

void *hugepage_calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	total = n * size;
	p = calloc(hugepage_round(total), 1);
	/* A big calloc is a fresh mapping, not touched yet: advise it now. */
	hugepage_advise(p, total);
	return p;
}
