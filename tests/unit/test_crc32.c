/*
 * test_crc32: crc32_of() gives the CRC-32 of gzip and zlib for every
 * length, alignment and starting value.
 *
 * The oracle is the definition, a bit at a time, written here; zlib's
 * crc32() is checked against it too.  Lengths 0 to 1,100 at every offset
 * 0 to 32 cover the fold's thresholds (256 bytes), its 128-byte steps, the
 * 16-byte steps after them and every tail; larger and chained inputs the
 * long runs a gzip member makes.  Each buffer is allocated at exactly its
 * length, so a read past the end trips ASan.  Below 256 bytes, and where
 * the CPU cannot fold (no VPCLMULQDQ, or under valgrind), crc32_of() is
 * ISA-L's (zlib's without it); the test says which.
 */
#include "crc32.h"

#include <zlib.h>

#include "check.h"

static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static unsigned char *random_bytes(size_t n)
{
	unsigned char *p = check_xmalloc(n ? n : 1);

	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)next_rand();
	return p;
}

static void test_check_value(void)
{
	const char *s = "123456789";

	CHECK(crc32_of(0, s, 9) == 0xcbf43926u);
	CHECK(crc32_portable(0, s, 9) == 0xcbf43926u);
	CHECK(crc32_of(0, s, 0) == 0);
	CHECK(crc32_of(0x12345678u, NULL, 0) == 0x12345678u);
}

/* Whether crc32_of() and zlib's give the definition's CRC of p[0..n) from init. */
static int agrees(uint32_t init, const unsigned char *p, size_t n, size_t off)
{
	static int said;
	uint32_t want = crc_bitwise(init, p, n), got = crc32_of(init, p, n);
	uint32_t zlib = crc32_portable(init, p, n);

	if (got == want && zlib == want)
		return 1;
	if (said++ < 10)	/* the first few */
		printf("length %zu offset %zu from %08x: %08x, zlib %08x, want %08x\n", n, off,
		       init, got, zlib, want);
	return 0;
}

/* Every length to 1,100 at offsets 0 to 32, each from a random start. */
static void test_lengths(void)
{
	unsigned char *src = random_bytes(1200);
	long bad = 0;

	for (size_t n = 0; n <= 1100; n++) {
		for (size_t off = 0; off <= 32; off++) {
			unsigned char *p = check_xmalloc(n ? n : 1);

			memcpy(p, src + off, n);
			bad += !agrees(next_rand(), p, n, off);
			free(p);
		}
	}
	CHECK_MSG(bad == 0, "%ld of %d lengths and offsets differ", bad, 1101 * 33);
	free(src);
}

/* Long inputs, and a stream cut anywhere gives the CRC of the whole. */
static void test_long_and_chained(void)
{
	size_t n = (1u << 20) + 77;
	unsigned char *p = random_bytes(n);
	uint32_t whole = crc_bitwise(0, p, n);

	CHECK(crc32_of(0, p, n) == whole);
	CHECK((uint32_t)crc32(0, p, (uInt)n) == whole);
	for (int i = 0; i < 200; i++) {
		size_t cut = next_rand() % (n + 1), cut2 = cut + next_rand() % (n - cut + 1);
		uint32_t c = crc32_of(0, p, cut);

		c = crc32_of(c, p + cut, cut2 - cut);
		c = crc32_of(c, p + cut2, n - cut2);
		if (!CHECK_MSG(c == whole, "cut at %zu and %zu: %08x, want %08x", cut, cut2, c,
			       whole))
			break;
	}
	/* all zeros and all ones: no lane may cancel another */
	memset(p, 0, n);
	CHECK(crc32_of(0, p, n) == crc_bitwise(0, p, n));
	memset(p, 0xff, n);
	CHECK(crc32_of(0xffffffffu, p, n) == crc_bitwise(0xffffffffu, p, n));
	free(p);
}

int main(void)
{
	printf("test_crc32: %s\n", crc32_folds() ? "folding with VPCLMULQDQ"
						 : "no fold on this CPU: ISA-L's or zlib's CRC");
	test_check_value();
	test_lengths();
	test_long_and_chained();
	return check_done("test_crc32");
}
