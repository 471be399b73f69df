/*
 * jsimd: see jsimd.h.
 *
 * The vector versions test a whole block at once and hand the block's tail
 * (under 16 or 32 bytes) to the scalar loop, so the scalar code is the
 * reference and the vector code only ever answers earlier-or-equal to it in
 * whole blocks.  AVX2 code is compiled with a target attribute, not for
 * the whole build, so one binary runs on any x86-64 and uses AVX2 where the
 * CPU has it.  Whitespace runs in traces are short (an indent), so the
 * whitespace search checks its first byte before loading a block.
 */
#include "jsimd.h"

#include <stdlib.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && defined(__SSE2__)
#define JSIMD_X86 1
#include <immintrin.h>
#endif

static inline int is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline int is_struct(char c)
{
	return c == '"' || c == '[' || c == ']' || c == '{' || c == '}';
}

static const char *skip_ws_scalar(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static const char *find_quote_scalar(const char *p, const char *end)
{
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

static const char *find_struct_scalar(const char *p, const char *end)
{
	while (p < end && !is_struct(*p))
		p++;
	return p;
}

#ifdef JSIMD_X86
static const char *skip_ws_sse2(const char *p, const char *end)
{
	if (p < end && !is_ws(*p))
		return p;
	while (end - p >= 16) {
		unsigned m = jsimd_mask16(p, 0);

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
	return skip_ws_scalar(p, end);
}

static const char *find_quote_sse2(const char *p, const char *end)
{
	while (end - p >= 16) {
		unsigned m = jsimd_mask16(p, 1);

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
	return find_quote_scalar(p, end);
}

static const char *find_struct_sse2(const char *p, const char *end)
{
	while (end - p >= 16) {
		unsigned m = jsimd_mask16(p, 2);

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
	return find_struct_scalar(p, end);
}

#define AVX2 __attribute__((target("avx2")))

/* jsimd_mask16 for 32 bytes. */
AVX2 static inline unsigned mask_avx2(const char *p, int what)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p), r;

	if (what == 0) {
		r = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')),
						    _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))),
				    _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r')),
						    _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t'))));
		return ~(unsigned)_mm256_movemask_epi8(r);
	}
	if (what == 1) {
		r = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
				    _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
	} else {
		__m256i l = _mm256_or_si256(v, _mm256_set1_epi8(0x20));

		r = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
				    _mm256_or_si256(_mm256_cmpeq_epi8(l, _mm256_set1_epi8('{')),
						    _mm256_cmpeq_epi8(l, _mm256_set1_epi8('}'))));
	}
	return (unsigned)_mm256_movemask_epi8(r);
}

AVX2 static const char *skip_ws_avx2(const char *p, const char *end)
{
	if (p < end && !is_ws(*p))
		return p;
	while (end - p >= 32) {
		unsigned m = mask_avx2(p, 0);

		if (m)
			return p + __builtin_ctz(m);
		p += 32;
	}
	return skip_ws_sse2(p, end);
}

AVX2 static const char *find_quote_avx2(const char *p, const char *end)
{
	while (end - p >= 32) {
		unsigned m = mask_avx2(p, 1);

		if (m)
			return p + __builtin_ctz(m);
		p += 32;
	}
	return find_quote_sse2(p, end);
}

AVX2 static const char *find_struct_avx2(const char *p, const char *end)
{
	while (end - p >= 32) {
		unsigned m = mask_avx2(p, 2);

		if (m)
			return p + __builtin_ctz(m);
		p += 32;
	}
	return find_struct_sse2(p, end);
}
#endif

static const struct jsimd_ops ops[JSIMD_NR_LEVELS] = {
	[JSIMD_SCALAR] = { skip_ws_scalar, find_quote_scalar, find_struct_scalar, 0 },
#ifdef JSIMD_X86
	[JSIMD_SSE2] = { skip_ws_sse2, find_quote_sse2, find_struct_sse2, 1 },
	[JSIMD_AVX2] = { skip_ws_avx2, find_quote_avx2, find_struct_avx2, 1 },
#endif
};

struct jsimd_ops jsimd = { skip_ws_scalar, find_quote_scalar, find_struct_scalar, 0 };
static enum jsimd_level in_use;

static int cpu_runs(enum jsimd_level level)
{
	if (level == JSIMD_SCALAR)
		return 1;
#ifdef JSIMD_X86
	if (level == JSIMD_SSE2)
		return 1;	/* every build with __SSE2__ runs on a CPU that has it */
	if (level == JSIMD_AVX2)
		return __builtin_cpu_supports("avx2");
#endif
	return 0;
}

const struct jsimd_ops *jsimd_ops_of(enum jsimd_level level)
{
	if ((unsigned)level >= JSIMD_NR_LEVELS || !cpu_runs(level))
		return NULL;
	return &ops[level];
}

enum jsimd_level jsimd_use(enum jsimd_level level)
{
	if ((unsigned)level >= JSIMD_NR_LEVELS)
		level = JSIMD_NR_LEVELS - 1;
	while (level > JSIMD_SCALAR && !cpu_runs(level))
		level--;
	jsimd = ops[level];
	in_use = level;
	return level;
}

enum jsimd_level jsimd_level(void)
{
	return in_use;
}

/* Before main(), so that no reader thread ever sees the table change. */
__attribute__((constructor)) static void jsimd_setup(void)
{
	const char *cap = getenv("VT_SIMD");
	enum jsimd_level level = JSIMD_AVX2;

#ifdef JSIMD_X86
	__builtin_cpu_init();
#endif
	if (cap && !strcmp(cap, "scalar"))
		level = JSIMD_SCALAR;
	else if (cap && !strcmp(cap, "sse2"))
		level = JSIMD_SSE2;
	jsimd_use(level);
}
