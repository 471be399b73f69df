/*
 * crc32: see crc32.h.
 *
 * The folding method of Gopal et al. ("Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ", Intel, 2009), in the bit-reflected form
 * gzip's CRC takes.  Eight 16-byte lanes (four 256-bit registers) each
 * stand for the message so far moved to their place: a step multiplies
 * every lane's two 64-bit halves by x^(D+32) and x^(D-32) modulo the
 * polynomial (D = 1024 bits, the distance to the next 128 bytes) and adds
 * the next 128 bytes.  At the end the lanes fold into one the same way
 * (D = 128), and the last 16 bytes and the tail go through zlib's crc32(),
 * whose pre- and post-inversion the ~ around it undoes.  The constants are
 * computed from the polynomial at start-up, not copied in.
 */
#include "crc32.h"

#include <limits.h>
#include <zlib.h>

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32_X86 1
#include <immintrin.h>
#endif

#define CRC32_POLY 0x104c11db7ull	/* x^32 + x^26 + ... + 1, bit i for x^i */
#define FOLD_MIN 256			/* shorter inputs: crc32_unfolded() */

/*
 * Without the fold: ISA-L's CRC where it is built in (128-bit carry-less
 * multiplies, 12.8 GB/s here; zlib's table method runs at 3.7), else zlib's.
 */
static uint32_t crc32_unfolded(uint32_t crc, const void *p, size_t n)
{
#ifdef HAVE_ISAL
	return crc32_gzip_refl(crc, p, n);
#else
	return crc32_portable(crc, p, n);
#endif
}

uint32_t crc32_portable(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n > 0) {
		uInt k = n > UINT_MAX ? UINT_MAX : (uInt)n;

		crc = (uint32_t)crc32(crc, b, k);
		b += k;
		n -= k;
	}
	return crc;
}

#ifdef CRC32_X86
static int folds;
static uint64_t k1024[2], k128[2];	/* [0] the low halves' factor, [1] the high halves' */

/* x^n modulo the polynomial. */
static uint32_t xpow_mod(unsigned n)
{
	uint64_t r = 1;

	while (n--) {
		r <<= 1;
		if (r >> 32)
			r ^= CRC32_POLY;
	}
	return (uint32_t)r;
}

static uint32_t reflect32(uint32_t v)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/* The factor that moves a 64-bit half n - 32 bits along, in the reflected domain. */
static uint64_t fold_factor(unsigned n)
{
	return (uint64_t)reflect32(xpow_mod(n)) << 1;
}

__attribute__((constructor)) static void crc32_setup(void)
{
	__builtin_cpu_init();
	folds = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
	k1024[0] = fold_factor(1024 + 32);
	k1024[1] = fold_factor(1024 - 32);
	k128[0] = fold_factor(128 + 32);
	k128[1] = fold_factor(128 - 32);
}

#define FOLD_TARGET __attribute__((target("avx2,pclmul,vpclmulqdq")))

FOLD_TARGET static inline __m256i fold256(__m256i x, __m256i k, __m256i next)
{
	return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(x, k, 0x00),
						 _mm256_clmulepi64_epi128(x, k, 0x11)),
				next);
}

FOLD_TARGET static inline __m128i fold128(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)),
			     next);
}

FOLD_TARGET static __m256i load256(const unsigned char *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* n >= FOLD_MIN. */
FOLD_TARGET static uint32_t crc32_fold(uint32_t crc, const unsigned char *p, size_t n)
{
	const __m256i k = _mm256_set_epi64x((long long)k1024[1], (long long)k1024[0],
					    (long long)k1024[1], (long long)k1024[0]);
	const __m128i k1 = _mm_set_epi64x((long long)k128[1], (long long)k128[0]);
	__m256i y[4];
	__m128i x;
	unsigned char last[16];

	for (int i = 0; i < 4; i++)
		y[i] = load256(p + 32 * i);
	/* the register before the message, inverted as gzip starts it, on its first bytes */
	y[0] = _mm256_xor_si256(y[0], _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)~crc));
	for (p += 128, n -= 128; n >= 128; p += 128, n -= 128)
		for (int i = 0; i < 4; i++)
			y[i] = fold256(y[i], k, load256(p + 32 * i));
	x = _mm256_castsi256_si128(y[0]);
	x = fold128(x, k1, _mm256_extracti128_si256(y[0], 1));
	for (int i = 1; i < 4; i++) {
		x = fold128(x, k1, _mm256_castsi256_si128(y[i]));
		x = fold128(x, k1, _mm256_extracti128_si256(y[i], 1));
	}
	for (; n >= 16; p += 16, n -= 16)
		x = fold128(x, k1, _mm_loadu_si128((const __m128i *)(const void *)p));
	/*
	 * x now stands for the whole message before p, from a register of 0:
	 * its CRC without the inversions (zlib's with them undone), then the tail.
	 */
	_mm_storeu_si128((__m128i *)(void *)last, x);
	crc = ~(uint32_t)crc32(0xffffffffu, last, sizeof(last));
	return (uint32_t)crc32(~crc, p, (uInt)n);
}

int crc32_folds(void)
{
	return folds;
}

uint32_t crc32_of(uint32_t crc, const void *p, size_t n)
{
	if (folds && n >= FOLD_MIN)
		return crc32_fold(crc, p, n);
	return crc32_unfolded(crc, p, n);
}
#else
int crc32_folds(void)
{
	return 0;
}

uint32_t crc32_of(uint32_t crc, const void *p, size_t n)
{
	return crc32_unfolded(crc, p, n);
}
#endif
