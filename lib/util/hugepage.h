/*
 * hugepage: ask the kernel for transparent huge pages behind big arrays.
 *
 * A gigabyte of trace leaves tens of megabytes of records and sort buffers,
 * first touched one 4 KiB page at a time; in the VMs we measured, a page
 * fault costs about 4 µs, which added 8 % to a run.  Where THP is set to
 * "madvise" (Debian's default), a 2 MiB page replaces 512 faults.  Only a
 * hint: it does nothing where THP is off, and never fails.
 */
#ifndef VT_HUGEPAGE_H
#define VT_HUGEPAGE_H

#include <stddef.h>

/* Smaller blocks are left alone: they would not fill a huge page. */
#define HUGEPAGE_MIN (2u << 20)
#define HUGEPAGE_SIZE (2u << 20)

/*
 * Advise the block [p, p + n), if n >= HUGEPAGE_MIN: the kernel backs the
 * 2 MiB-aligned parts of it that are not touched yet with huge pages.
 */
void hugepage_advise(void *p, size_t n);

/*
 * The size to ask malloc for to hold n bytes: n itself below HUGEPAGE_MIN,
 * else a little less than a whole number of huge pages, so that the block
 * malloc maps for it is that whole number.  The kernel (Linux 6.7 on)
 * places such a mapping, and a larger one mremap moves it to, on a huge
 * page boundary: every huge page of it can be backed as one, from the
 * first, and a block that grows by mremap keeps its huge pages.  An
 * unaligned block of 4 MiB had half its pages faulted in one at a time,
 * and a move split those it had.  The pages past n are not touched.
 */
size_t hugepage_round(size_t n);

/* malloc(n) and calloc(n, size), advised when large.  Free with free(). */
void *hugepage_malloc(size_t n);
void *hugepage_calloc(size_t n, size_t size);

#endif
