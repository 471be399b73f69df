/*
 * test_buf_arena: unit tests for lib/util/buf.c (the growable byte buffer) and
 * lib/util/arena.c (the bump allocator).
 */
#include "arena.h"
#include "buf.h"

#include "check.h"

static void test_buf(void)
{
	struct buf b;
	char *data;
	size_t cap;

	buf_init(&b);
	CHECK(b.data == NULL && b.len == 0 && buf_ok(&b));
	buf_add(&b, NULL, 0);
	CHECK(b.len == 0 && buf_ok(&b));

	buf_adds(&b, "abc");
	buf_addc(&b, 'd');
	buf_add(&b, "e\0f", 3);
	CHECK_EQ_MEM(b.data, b.len, "abcde\0f", 7);
	CHECK_EQ_INT(b.data[b.len], '\0');
	CHECK(b.cap > b.len);

	buf_printf(&b, "|%d|%s|%05.1f|", -42, "x", 2.5);
	CHECK_EQ_MEM(b.data, b.len, "abcde\0f|-42|x|002.5|", 20);
	CHECK_EQ_INT(b.data[b.len], '\0');

	/* printf longer than the first reservation */
	buf_reset(&b);
	CHECK_EQ_INT(b.len, 0);
	CHECK_EQ_STR(b.data, "");
	{
		char want[10001];

		memset(want, 'z', 10000);
		want[10000] = '\0';
		buf_printf(&b, "%s", want);
		CHECK_EQ_STR(b.data, want);
		CHECK_EQ_INT(b.len, 10000);
		buf_printf(&b, "%s%d", want, 7);
		CHECK_EQ_INT(b.len, 20001);
		CHECK_EQ_INT(b.data[20000], '7');
		CHECK_EQ_INT(b.data[20001], '\0');
	}
	/* exactly at the edge of the capacity, for every length around 64 */
	for (size_t pre = 0; pre < 300; pre++) {
		struct buf c;
		char s[200];

		buf_init(&c);
		memset(s, 'p', pre % 150);
		s[pre % 150] = '\0';
		buf_adds(&c, s);
		for (size_t n = 60; n < 70; n++) {
			size_t len0 = c.len;
			char want[80];

			memset(want, 'q', n);
			want[n] = '\0';
			buf_printf(&c, "%s", want);
			if (!CHECKF(c.len == len0 + n && memcmp(c.data + len0, want, n) == 0 &&
					    c.data[c.len] == '\0',
				    "printf of %zu after %zu bytes", n, len0))
				break;
		}
		buf_release(&c);
	}

	/* reset keeps the memory */
	data = b.data;
	cap = b.cap;
	buf_reset(&b);
	CHECK(b.data == data && b.cap == cap && b.len == 0);
	buf_adds(&b, "again");
	CHECK_EQ_STR(b.data, "again");

	/* growth by single bytes */
	buf_reset(&b);
	for (int i = 0; i < 1 << 20; i++)
		buf_addc(&b, (char)('a' + i % 26));
	CHECK_EQ_INT(b.len, 1 << 20);
	CHECK_EQ_INT(b.data[(1 << 20) - 1], 'a' + ((1 << 20) - 1) % 26);
	CHECK_EQ_INT(b.data[1 << 20], '\0');
	CHECK(buf_ok(&b));

	/* failure is sticky: a request that cannot fit */
	buf_reset(&b);
	buf_adds(&b, "keep");
	CHECK_EQ_INT(buf_reserve(&b, (size_t)-1), -1);
	CHECK(!buf_ok(&b));
	buf_adds(&b, "more");
	buf_printf(&b, "%d", 1);
	buf_addc(&b, 'x');
	CHECK_EQ_INT(b.len, 4);
	CHECK_EQ_INT(buf_reserve(&b, 1), -1);
	CHECK_EQ_MEM(b.data, b.len, "keep", 4);
	buf_release(&b);
	CHECK(b.data == NULL && b.len == 0 && buf_ok(&b));
	CHECK_EQ_INT(buf_reserve(&b, 100), 0);
	CHECK(b.cap >= 101);
	buf_release(&b);

	/* vprintf through a wrapper, twice, so va_list reuse is exercised */
	{
		struct buf c;

		buf_init(&c);
		for (int i = 0; i < 100; i++)
			buf_printf(&c, "%d:%s;", i, "abcdefghijklmnopqrstuvwxyz0123456789");
		CHECK_EQ_INT(c.len, 10 * 39 + 90 * 40);
		CHECK(strncmp(c.data + c.len - 40, "99:abcdefghijklmnopqrstuvwxyz0123456789;", 40)
		      == 0);
		buf_release(&c);
	}
}

static int overlaps(const char *a, size_t na, const char *b, size_t nb)
{
	return a < b + nb && b < a + na;
}

static void test_arena(void)
{
	struct arena a;
	char *p[1000];
	size_t sz[1000];
	long bad = 0;

	arena_init(&a);
	CHECK_EQ_INT(a.total, 0);

	/* many allocations of mixed sizes: aligned, disjoint, intact */
	for (size_t i = 0; i < 1000; i++) {
		sz[i] = (i * 37) % 300 + (i % 50 == 0 ? ARENA_BLOCK : 0);
		p[i] = arena_alloc(&a, sz[i]);
		if (!p[i] || ((uintptr_t)p[i] & 7))
			bad++;
		else
			memset(p[i], (int)(i & 0xff), sz[i]);
	}
	CHECKF(bad == 0, "%ld allocations NULL or misaligned", bad);
	for (size_t i = 0; i < 1000 && !bad; i++) {
		for (size_t j = 0; j < sz[i]; j++)
			if ((unsigned char)p[i][j] != (i & 0xff)) {
				bad++;
				break;
			}
		for (size_t k = i + 1; k < 1000; k += 7)
			if (sz[i] && sz[k] && overlaps(p[i], sz[i], p[k], sz[k]))
				bad++;
	}
	CHECKF(bad == 0, "%ld allocations overwritten or overlapping", bad);
	CHECK(a.total >= 20 * ARENA_BLOCK);

	/* zero bytes: still a distinct pointer */
	{
		char *x = arena_alloc(&a, 0), *y = arena_alloc(&a, 0);

		CHECK(x && y && x != y);
	}

	/* a big one-off request leaves the current block for small ones */
	{
		struct arena f;
		char *s1, *big, *s2;

		arena_init(&f);
		s1 = arena_alloc(&f, 16);
		big = arena_alloc(&f, 4 * ARENA_BLOCK);
		s2 = arena_alloc(&f, 16);
		CHECK(s1 && big && s2);
		CHECK(s2 == s1 + 16);
		memset(big, 1, 4 * ARENA_BLOCK);
		CHECK(f.total >= 4 * ARENA_BLOCK + ARENA_FIRST);
		arena_release(&f);
	}

	/* strndup copies and terminates */
	{
		char *s = arena_strndup(&a, "hello world", 5), *e = arena_strndup(&a, "", 0);
		char *z = arena_strndup(&a, "a\0b", 3);

		CHECK_EQ_STR(s, "hello");
		CHECK_EQ_STR(e, "");
		CHECK_EQ_MEM(z, 4, "a\0b\0", 4);
	}
	arena_release(&a);
	CHECK(a.head == NULL && a.total == 0);

	/* reusable after release */
	{
		char *s = arena_strndup(&a, "again", 5);

		CHECK_EQ_STR(s, "again");
		CHECK(a.total >= ARENA_FIRST);
	}
	arena_release(&a);

	/*
	 * A few small strings take one small block (vanalyze keeps an arena per
	 * input to the end); blocks then double up to ARENA_BLOCK, so a large
	 * arena costs no more blocks than before, give or take seven.
	 */
	{
		size_t blocks = 0;

		for (int i = 0; i < 4; i++)
			arena_strndup(&a, "rank-12.json", 12);
		CHECKF(a.total <= ARENA_FIRST + 64, "4 small strings: %zu bytes", a.total);
		for (int i = 0; i < 40000; i++)
			if (!arena_alloc(&a, 100))
				blocks = SIZE_MAX;
		for (struct arena_block **b = &a.head; blocks != SIZE_MAX && *b; blocks++)
			b = (struct arena_block **)*b;	/* next is a block's first member */
		/* 40,000 * 104 bytes (rounded up to 8) */
		CHECKF(blocks <= 4160000 / ARENA_BLOCK + 8, "4 MB in %zu blocks", blocks);
		CHECK(a.total < 4160000 + 2 * ARENA_BLOCK);
	}
	arena_release(&a);
	arena_release(&a);	/* twice is harmless */

	/* sizes whose rounding to 8 wraps around must fail, not return 8 bytes */
	{
		void *q = arena_alloc(&a, (size_t)-1 - 8);

		CHECKF(q == NULL, "arena_alloc(SIZE_MAX - 8) = %p", q);
		q = arena_alloc(&a, (size_t)-1);
		CHECKF(q == NULL,
		       "LIB BUG: arena_alloc(SIZE_MAX) returned %p, an 8-byte block: (n + 7) & ~7 "
		       "wraps to 0 and becomes 8 (want NULL)", q);
		q = arena_alloc(&a, (size_t)-1 - 3);
		CHECKF(q == NULL, "LIB BUG: arena_alloc(SIZE_MAX - 3) returned %p (want NULL)", q);
	}
	arena_release(&a);
}

int main(void)
{
	test_buf();
	test_arena();
	return check_done("test_buf_arena");
}
