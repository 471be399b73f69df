/* test_rankset: ranks as words, the runs and the edges. */
#include "check.h"

#include <string.h>

#include "rankset.h"

static void expect(const int64_t *r, size_t n, size_t all, size_t size, const char *want)
{
	char out[256];

	rankset_text(out, size, r, n, all);
	CHECKF(strcmp(out, want) == 0, "got '%s', want '%s'", out, want);
}

int main(void)
{
	static const int64_t seven[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const int64_t mixed[] = { 0, 1, 3, 4, 5, 9 };
	static const int64_t two[] = { 2, 5 };
	static const int64_t many[] = { 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28 };

	expect(seven, 1, 8, 64, "rank 0");
	expect(seven, 7, 8, 64, "ranks 0\xe2\x80\x93" "6");
	expect(seven, 7, 7, 64, "all 7 ranks");
	expect(seven, 1, 1, 64, "rank 0");	/* one rank of one: named, not "all 1" */
	expect(mixed, 6, 16, 64, "ranks 0, 1, 3\xe2\x80\x93" "5, 9");
	expect(two, 2, 0, 64, "ranks 2, 5");
	expect(two, 2, 2, 64, "both ranks");
	expect(seven, 0, 8, 64, "");
	/* what does not fit is counted */
	expect(many, 15, 32, 48, "ranks 0, 2, 4, 6, 8, 10 and 9 more");
	return check_done("test_rankset");
}
