/*
 * jsimd: the byte searches under the JSON scanner, 16 or 32 bytes a step.
 *
 * Three searches cover almost every byte the readers look at: the end of a
 * run of whitespace (pretty-printed traces indent every member), the next
 * '"' or '\\' (the end of a string), and the next structural byte
 * ('"', '[', ']', '{', '}') when a whole value is skipped without being
 * tokenised.  Each has a scalar, an SSE2 and an AVX2 version; the best one
 * the CPU runs is picked once at start-up (__builtin_cpu_supports), and
 * VT_SIMD=scalar|sse2|avx2 in the environment caps the choice, so that every
 * version can be run on the same inputs.  All versions return the same
 * answer for every input; test_jsimd checks that they do.
 *
 * Each function takes [p, end) and returns the position found, or end.
 */
#ifndef VT_JSIMD_H
#define VT_JSIMD_H

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * A bit per byte of the 16 at p: what 0 a byte that is not whitespace,
 * 1 '"' or '\\', 2 a structural byte.  Inline here for jscan's first look
 * at a block, and for the SSE2 searches of jsimd.c.  '[' and '{' differ
 * only in bit 0x20, as do ']' and '}': or-ing it in finds both brackets of
 * a kind with one compare.
 */
static inline unsigned jsimd_mask16(const char *p, int what)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p), r;

	if (what == 0) {
		r = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
				 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
		return ~(unsigned)_mm_movemask_epi8(r) & 0xffffu;
	}
	if (what == 1) {
		r = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
				 _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	} else {
		__m128i l = _mm_or_si128(v, _mm_set1_epi8(0x20));

		r = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
				 _mm_or_si128(_mm_cmpeq_epi8(l, _mm_set1_epi8('{')),
					      _mm_cmpeq_epi8(l, _mm_set1_epi8('}'))));
	}
	return (unsigned)_mm_movemask_epi8(r);
}
#endif

enum jsimd_level { JSIMD_SCALAR, JSIMD_SSE2, JSIMD_AVX2, JSIMD_NR_LEVELS };

struct jsimd_ops {
	const char *(*skip_ws)(const char *p, const char *end);		/* first non-whitespace */
	const char *(*find_quote)(const char *p, const char *end);	/* first '"' or '\\' */
	const char *(*find_struct)(const char *p, const char *end);	/* first of "[]{} */
	int sse2;	/* callers may test a 16-byte block inline with SSE2 first */
};

/* The searches in use; set before main() runs, read-only afterwards. */
extern struct jsimd_ops jsimd;

/* The level in use. */
enum jsimd_level jsimd_level(void);

/*
 * The searches of one level, for tests and benchmarks; NULL when this CPU
 * (or this build) cannot run it.
 */
const struct jsimd_ops *jsimd_ops_of(enum jsimd_level level);

/*
 * Use level (or the best below it this CPU runs) from now on; returns the
 * level chosen.  For tests: not thread-safe with readers running.
 */
enum jsimd_level jsimd_use(enum jsimd_level level);

#endif
