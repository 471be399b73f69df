/*
 * test_strtab: unit tests for lib/util/strtab.c, string interning.
 *
 * Covers dense ids from 1, equal strings to equal ids, borrowing versus
 * copying, growth to 100,000 strings, embedded NULs, the empty string,
 * strtab_find and reuse after strtab_reset.
 */
#include "strtab.h"

#include "check.h"

#define BIG 100000

static void name_of(char *out, size_t cap, size_t i)
{
	snprintf(out, cap, "aten::op_%zu_%zx", i, i * 2654435761u);
}

static void test_basic(int copy)
{
	struct strtab t;
	char buf[32];
	uint32_t a, b, c;

	strtab_init(&t, copy);
	CHECK_EQ_INT(strtab_count(&t), 0);
	CHECK_EQ_INT(strtab_find(&t, "x", 1), STRTAB_NONE);

	a = strtab_intern(&t, "alpha", 5);
	b = strtab_intern(&t, "beta", 4);
	c = strtab_intern(&t, "alpha", 5);
	CHECK_EQ_INT(a, 1);
	CHECK_EQ_INT(b, 2);
	CHECK_EQ_INT(c, a);
	CHECK_EQ_INT(strtab_count(&t), 2);
	CHECK_EQ_MEM(strtab_str(&t, a), strtab_len(&t, a), "alpha", 5);
	CHECK_EQ_MEM(strtab_str(&t, b), strtab_len(&t, b), "beta", 4);
	CHECK_EQ_INT(strtab_find(&t, "alpha", 5), a);
	CHECK_EQ_INT(strtab_find(&t, "beta", 4), b);
	CHECK_EQ_INT(strtab_find(&t, "gamma", 5), STRTAB_NONE);
	/* a prefix is a different string */
	CHECK_EQ_INT(strtab_find(&t, "alph", 4), STRTAB_NONE);
	CHECK_EQ_INT(strtab_intern(&t, "alph", 4), 3);
	CHECK_EQ_INT(strtab_find(&t, "alpha", 5), a);

	/* the length counts, not a NUL */
	memcpy(buf, "betamax", 8);
	CHECK_EQ_INT(strtab_intern(&t, buf, 4), b);

	/* the empty string is a string like any other, not id 0 */
	{
		uint32_t e = strtab_intern(&t, "", 0);

		CHECK_EQ_INT(e, 4);
		CHECK_EQ_INT(strtab_len(&t, e), 0);
		CHECK_EQ_INT(strtab_intern(&t, "", 0), e);
		CHECK_EQ_INT(strtab_find(&t, "", 0), e);
		CHECK_EQ_INT(strtab_find(&t, "zzz", 0), e);
	}

	/* embedded NULs */
	{
		uint32_t x = strtab_intern(&t, "a\0b", 3), y = strtab_intern(&t, "a\0c", 3);
		uint32_t z = strtab_intern(&t, "a", 1), w = strtab_intern(&t, "a\0b", 3);

		CHECK(x != y);
		CHECK(x != z && y != z);
		CHECK_EQ_INT(w, x);
		CHECK_EQ_INT(strtab_len(&t, x), 3);
		CHECK_EQ_MEM(strtab_str(&t, x), strtab_len(&t, x), "a\0b", 3);
		CHECK_EQ_MEM(strtab_str(&t, y), strtab_len(&t, y), "a\0c", 3);
		CHECK_EQ_INT(strtab_find(&t, "a\0c", 3), y);
		CHECK_EQ_INT(strtab_find(&t, "a\0d", 3), STRTAB_NONE);
	}

	/* hashing is a pure function of the bytes */
	CHECK_EQ_INT(strtab_hash("abc", 3), strtab_hash("abcd", 3));
	CHECK(strtab_hash("abc", 3) != strtab_hash("abd", 3));
	CHECK(strtab_hash("", 0) != strtab_hash("\0", 1));
	/*
	 * Two words that the unkeyed multiply-xorshift hash strtab had sent to
	 * one value for any seed (bit 63 flipped in the first, bits 63 and 34
	 * in the second): keyed, they part (but for a 2^-32 chance).
	 */
	{
		char w1[16], w2[16];

		memcpy(w1, "kernel_aaaaaaaaa", 16);
		memcpy(w2, w1, 16);
		w2[7] ^= (char)0x80;
		w2[15] ^= (char)0x80;
		w2[12] ^= 0x04;
		CHECK(strtab_hash(w1, 16) != strtab_hash(w2, 16));
	}
	strtab_release(&t);
	CHECK_EQ_INT(strtab_count(&t), 0);
	CHECK_EQ_INT(strtab_find(&t, "alpha", 5), STRTAB_NONE);
	/* a released table is empty and usable */
	CHECK_EQ_INT(strtab_intern(&t, "again", 5), 1);
	strtab_release(&t);
}

static void test_copy_vs_borrow(void)
{
	struct strtab tc, tb;
	char buf[16];
	uint32_t ic, ib;

	strtab_init(&tc, 1);
	strtab_init(&tb, 0);
	memcpy(buf, "kernel", 7);
	ic = strtab_intern(&tc, buf, 6);
	ib = strtab_intern(&tb, buf, 6);
	CHECK(strtab_str(&tc, ic) != buf);
	CHECK(strtab_str(&tb, ib) == buf);
	/* a copy is NUL-terminated */
	CHECK_EQ_INT(strtab_str(&tc, ic)[6], '\0');
	/* overwrite the source: the copy keeps its bytes, the borrowed view changes */
	memcpy(buf, "KERNEL", 6);
	CHECK_EQ_STR(strtab_str(&tc, ic), "kernel");
	CHECK_EQ_MEM(strtab_str(&tb, ib), 6, "KERNEL", 6);
	CHECK_EQ_INT(strtab_find(&tc, "kernel", 6), ic);
	CHECK_EQ_INT(strtab_find(&tc, "KERNEL", 6), STRTAB_NONE);

	/* copies of strings with no NUL in the middle come back as C strings */
	{
		char big[5000];

		memset(big, 'x', sizeof(big));
		ic = strtab_intern(&tc, big, sizeof(big));
		CHECK_EQ_INT(strtab_len(&tc, ic), 5000);
		CHECK_EQ_INT(strlen(strtab_str(&tc, ic)), 5000);
		memset(big, 'y', sizeof(big));
		CHECK_EQ_INT(strtab_find(&tc, big, sizeof(big)), STRTAB_NONE);
		memset(big, 'x', sizeof(big));
		CHECK_EQ_INT(strtab_find(&tc, big, sizeof(big)), ic);
	}
	strtab_release(&tc);
	strtab_release(&tb);
}

static void test_many(int copy)
{
	struct strtab t;
	char **names = check_xmalloc(BIG * sizeof(*names));
	long bad = 0;

	for (size_t i = 0; i < BIG; i++) {
		char buf[64];

		name_of(buf, sizeof(buf), i);
		names[i] = strdup(buf);
	}
	strtab_init(&t, copy);
	for (size_t i = 0; i < BIG; i++)
		if (strtab_intern(&t, names[i], strlen(names[i])) != i + 1)
			bad++;
	CHECKF(bad == 0, "%ld of %d ids not dense in order (copy %d)", bad, BIG, copy);
	CHECK_EQ_INT(strtab_count(&t), BIG);
	bad = 0;
	for (size_t i = 0; i < BIG; i++) {
		uint32_t id = (uint32_t)(i + 1);

		if (strtab_intern(&t, names[i], strlen(names[i])) != id ||
		    strtab_find(&t, names[i], strlen(names[i])) != id ||
		    strtab_len(&t, id) != strlen(names[i]) ||
		    memcmp(strtab_str(&t, id), names[i], strlen(names[i])) != 0)
			bad++;
	}
	CHECKF(bad == 0, "%ld of %d lookups wrong (copy %d)", bad, BIG, copy);
	CHECK_EQ_INT(strtab_count(&t), BIG);
	CHECK_EQ_INT(strtab_find(&t, "aten::op_", 9), STRTAB_NONE);

	/* reset forgets everything and numbering starts over */
	strtab_reset(&t);
	CHECK_EQ_INT(strtab_count(&t), 0);
	CHECK_EQ_INT(strtab_find(&t, names[0], strlen(names[0])), STRTAB_NONE);
	CHECK_EQ_INT(strtab_find(&t, names[BIG - 1], strlen(names[BIG - 1])), STRTAB_NONE);
	CHECK_EQ_INT(strtab_intern(&t, "new", 3), 1);
	CHECK_EQ_INT(strtab_intern(&t, names[5], strlen(names[5])), 2);
	CHECK_EQ_INT(strtab_find(&t, names[5], strlen(names[5])), 2);
	CHECK_EQ_INT(strtab_find(&t, names[6], strlen(names[6])), STRTAB_NONE);

	/* and keeps working through another round of growth, in reverse order */
	strtab_reset(&t);
	bad = 0;
	for (size_t i = 0; i < BIG; i++) {
		size_t j = BIG - 1 - i;

		if (strtab_intern(&t, names[j], strlen(names[j])) != i + 1)
			bad++;
	}
	for (size_t i = 0; i < BIG; i++) {
		size_t j = BIG - 1 - i;

		if (strtab_find(&t, names[j], strlen(names[j])) != i + 1 ||
		    memcmp(strtab_str(&t, (uint32_t)(i + 1)), names[j], strlen(names[j])) != 0)
			bad++;
	}
	CHECKF(bad == 0, "%ld wrong after reset (copy %d)", bad, copy);
	CHECK_EQ_INT(strtab_count(&t), BIG);
	strtab_release(&t);
	for (size_t i = 0; i < BIG; i++)
		free(names[i]);
	free(names);
}

/* Strings that differ only past the first 8 bytes, or only in length. */
static void test_similar(void)
{
	struct strtab t;
	char buf[64];
	long bad = 0;

	strtab_init(&t, 1);
	memset(buf, 'q', sizeof(buf));
	for (size_t len = 0; len <= sizeof(buf); len++)
		if (strtab_intern(&t, buf, len) != len + 1)
			bad++;
	for (size_t pos = 0; pos < sizeof(buf); pos++) {
		uint32_t id;

		buf[pos] = 'r';
		id = strtab_intern(&t, buf, sizeof(buf));
		if (id != sizeof(buf) + 2 + pos)
			bad++;
		buf[pos] = 'q';
	}
	CHECKF(bad == 0, "%ld similar strings got wrong ids", bad);
	CHECK_EQ_INT(strtab_count(&t), 2 * sizeof(buf) + 1);
	strtab_release(&t);
}

int main(void)
{
	test_basic(0);
	test_basic(1);
	test_copy_vs_borrow();
	test_many(0);
	test_many(1);
	test_similar();
	return check_done("test_strtab");
}
