/*
 * test_grow: ALLOC_GROW keeps what the array held, grows to at least the
 * count asked for, leaves the array alone when there is room, and fails
 * cleanly (array and capacity unchanged) when the size would overflow;
 * ALLOC_GROW_ZERO also zeroes what it adds.  Past GROW_LEAP bytes an
 * array leaps to GROW_MAPPED (the zeroing one does not: it would write it).
 * From HUGEPAGE_MIN bytes on, every capacity (of grow and of buf) is a
 * whole number of huge pages less malloc's header, hugepage_round()'s.
 */
#include "buf.h"
#include "check.h"
#include "grow.h"
#include "hugepage.h"

static void test_push(void)
{
	int64_t *v = NULL;
	size_t n = 0, alloc = 0, reallocs = 0, short_of_room = 0;
	int failed = 0;

	for (int64_t i = 0; i < 100000 && !failed; i++) {
		size_t before = alloc;

		failed = ALLOC_GROW(v, n + 1, alloc);
		if (failed)
			break;
		reallocs += alloc != before;
		short_of_room += alloc < n + 1;
		v[n++] = i * 3;
	}
	CHECK(!failed);
	CHECK_EQ_INT(short_of_room, 0);
	for (size_t i = 0; i < n; i++)
		if (v[i] != (int64_t)i * 3) {
			CHECK_MSG(0, "element %zu lost: %lld", i, (long long)v[i]);
			break;
		}
	CHECK_MSG(reallocs < 40, "%zu reallocs for 100,000 pushes: growth is not geometric",
		  reallocs);
	free(v);
}

static void test_room_and_jump(void)
{
	char *s = NULL;
	size_t alloc = 0;
	char *before;

	CHECK(ALLOC_GROW(s, 5, alloc) == 0);
	CHECK(alloc >= GROW_MIN);
	before = s;
	CHECK(ALLOC_GROW(s, alloc, alloc) == 0);	/* room: nothing moves */
	CHECK(s == before);
	CHECK(ALLOC_GROW(s, 1000, alloc) == 0);		/* a jump past 1.5x */
	CHECK(alloc >= 1000);
	free(s);
}

static void test_overflow(void)
{
	struct big {
		char b[1 << 12];
	} *v = NULL;
	size_t alloc = 0;

	CHECK(ALLOC_GROW(v, 4, alloc) == 0);
	CHECK(ALLOC_GROW(v, SIZE_MAX / 2, alloc) == -1);
	CHECK(v != NULL && alloc >= 4 && alloc < 1000);
	free(v);
}

/* Ids that skip ahead: every element below the capacity reads zero until set. */
static void test_zero(void)
{
	static const size_t ids[] = { 3, 40, 41, 1000, 7, 5000 };
	int64_t *v = NULL;
	size_t alloc = 0, nonzero = 0, failed = 0;

	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		if (ALLOC_GROW_ZERO(v, ids[k] + 1, alloc)) {
			failed++;
			break;
		}
		v[ids[k]] += (int64_t)ids[k];
	}
	CHECK(!failed && alloc >= 5001);
	for (size_t i = 0; !failed && i < alloc; i++) {
		int set = i == 3 || i == 7 || i == 40 || i == 41 || i == 1000 || i == 5000;

		nonzero += v[i] != (set ? (int64_t)i : 0);
	}
	CHECK_EQ_INT(nonzero, 0);
	CHECK(ALLOC_GROW_ZERO(v, SIZE_MAX / 4, alloc) == -1);
	CHECK(alloc >= 5001 && alloc < SIZE_MAX / 16 && v[5000] == 5000);
	free(v);
}

static void test_leap(void)
{
	int64_t *v = NULL, *z = NULL;
	size_t n = 0, alloc = 0, zalloc = 0, below = 0, off = 0;
	int failed = 0;

	/*
	 * Every capacity from GROW_LEAP bytes on is at least GROW_MAPPED, and
	 * from HUGEPAGE_MIN bytes on whole huge pages (hugepage_round()).
	 */
	while (!failed && n * sizeof(*v) < 3 * HUGEPAGE_MIN) {
		size_t bytes;

		if ((failed = ALLOC_GROW(v, n + 1, alloc)) != 0)
			break;
		bytes = alloc * sizeof(*v);
		below += bytes >= GROW_LEAP && bytes < GROW_MAPPED;
		off += bytes >= HUGEPAGE_MIN && hugepage_round(bytes) != bytes;
		v[n] = (int64_t)n;
		n++;
	}
	CHECK(!failed);
	CHECK_EQ_INT(below, 0);
	CHECK_EQ_INT(off, 0);
	for (size_t i = 0; i < n; i++)
		if (v[i] != (int64_t)i) {
			CHECK_MSG(0, "element %zu lost across the leap", i);
			break;
		}
	CHECK(ALLOC_GROW_ZERO(z, GROW_LEAP / sizeof(*z) + 1, zalloc) == 0);
	CHECK(zalloc * sizeof(*z) < GROW_MAPPED);
	free(v);
	free(z);
}

/* hugepage_round(): n itself below HUGEPAGE_MIN; else the least such size that holds n. */
static void test_round(void)
{
	static const size_t sizes[] = { 0, 1, HUGEPAGE_MIN - 1, HUGEPAGE_MIN, HUGEPAGE_MIN + 1,
					3u << 20, (4u << 20) - 32, (4u << 20) - 31, 100000000,
					SIZE_MAX - 1, SIZE_MAX };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], r = hugepage_round(n);

		if (n < HUGEPAGE_MIN || n > SIZE_MAX / 2) {
			CHECK_MSG(r == n, "%zu rounded to %zu", n, r);
			continue;
		}
		CHECK_MSG(r >= n && r - n < HUGEPAGE_SIZE, "%zu rounded to %zu", n, r);
		CHECK_MSG((r + 32) % HUGEPAGE_SIZE == 0, "%zu rounded to %zu", n, r);
	}
	CHECK(hugepage_round((4u << 20) - 32) == (4u << 20) - 32);
	CHECK(hugepage_round((4u << 20) - 31) == (6u << 20) - 32);
}

/* A buf's capacity, like an array's, is whole huge pages from HUGEPAGE_MIN on. */
static void test_buf_capacity(void)
{
	struct buf b;

	buf_init(&b);
	CHECK(buf_reserve(&b, HUGEPAGE_MIN) == 0);
	CHECK(b.cap >= HUGEPAGE_MIN + 1 && hugepage_round(b.cap) == b.cap);
	buf_release(&b);
}

int main(void)
{
	test_push();
	test_leap();
	test_round();
	test_buf_capacity();
	test_room_and_jump();
	test_overflow();
	test_zero();
	return check_done("test_grow");
}
