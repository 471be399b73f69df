/* hugepage: see hugepage.h. */
#include "hugepage.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_SIZE ((uintptr_t)2 << 20)

void hugepage_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)p + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(HUGE_SIZE - 1);

	if (p && n >= HUGEPAGE_MIN && hi > lo)
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
