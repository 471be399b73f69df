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
#define HUGEPAGE_MIN (4u << 20)

/*
 * Advise the block [p, p + n), if n >= HUGEPAGE_MIN: the kernel backs the
 * 2 MiB-aligned parts of it that are not touched yet with huge pages.
 */
void hugepage_advise(void *p, size_t n);

/* malloc(n) and calloc(n, size), advised when large.  Free with free(). */
void *hugepage_malloc(size_t n);
void *hugepage_calloc(size_t n, size_t size);

#endif
