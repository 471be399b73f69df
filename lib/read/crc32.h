/*
 * crc32: the CRC-32 of gzip's trailer (and zlib's crc32()), fast.
 *
 * Checking a gigabyte's trailer took ISA-L's own CRC (128-bit carry-less
 * multiplies, 8 lanes) 6 % of a run at -j 1; where the CPU has AVX2 and
 * VPCLMULQDQ, 256-bit multiplies fold 128 bytes a step at twice its speed.
 * Elsewhere ISA-L's CRC does it, or zlib's crc32() in a build without
 * ISA-L.  All give zlib's answer for every input; test_crc32 checks that
 * they do.
 */
#ifndef VT_CRC32_H
#define VT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of p[0..n) continued from crc (0 to start), as zlib's crc32(). */
uint32_t crc32_of(uint32_t crc, const void *p, size_t n);

/* Whether crc32_of() folds with VPCLMULQDQ on this CPU (tests, benchmarks). */
int crc32_folds(void);

/* The same with zlib's crc32(), whatever the CPU and build (tests). */
uint32_t crc32_portable(uint32_t crc, const void *p, size_t n);

#endif
