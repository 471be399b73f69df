/*
 * varint: unsigned LEB128, seven bits a byte, the low ones first, the top
 * bit set on every byte but the last: a small number takes a byte, any
 * uint64_t at most ten.  For records read once in order (the busy runs, the
 * runtime calls idle.c keeps), where a struct would take 16 or 24 bytes.
 */
#ifndef VT_VARINT_H
#define VT_VARINT_H

#include <stdint.h>

#define VARINT_MAX 10		/* bytes of the largest */

/* Write v at p; returns the byte after it. */
static inline unsigned char *varint_put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Read the varint at *p, which varint_put() wrote (it never runs past its end). */
static inline uint64_t varint_get(const unsigned char **p)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (**p & 0x80) {
		v |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
		(*p)++;
	}
	v |= (uint64_t)**p << shift;
	(*p)++;
	return v;
}

/* b - a zigzagged (0, -1, 1, -2... as 0, 1, 2, 3): small either way, a small varint. */
static inline uint64_t varint_zigzag(int64_t a, int64_t b)
{
	uint64_t d = (uint64_t)b - (uint64_t)a;

	return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

/* a plus the difference varint_zigzag() gave. */
static inline int64_t varint_unzigzag(int64_t a, uint64_t z)
{
	uint64_t d = (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);

	return (int64_t)((uint64_t)a + d);
}

#endif
