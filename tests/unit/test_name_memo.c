/*
 * test_name_memo: analyzer/name_memo.c gives each name the function's own
 * answer, asks the function once per distinct name whatever the order and
 * repeats (names equal byte for byte, NULs and all, are one), and tells
 * names that differ only past a shared prefix apart.
 */
#include <string.h>

#include "check.h"
#include "classify.h"
#include "name_memo.h"

static size_t asked;

/* The length and the first byte: distinct names get distinct answers here. */
static unsigned answer_of(const char *s, size_t n)
{
	return (unsigned)((n * 7 + (n ? (unsigned char)s[0] : 0)) % 200);
}

/* answer_of(), counting the memo's questions. */
static unsigned answer(const char *s, size_t n)
{
	asked++;
	return answer_of(s, n);
}

static void test_once_each(void)
{
	static const char *const names[] = { "aten::mm", "aten::mm_", "", "cudaLaunchKernel",
					     "aten::mm", "void at::native::kernel<float>", "",
					     "cudaLaunchKernel", "aten::mm_" };
	struct name_memo m;

	asked = 0;
	name_memo_init(&m, answer);
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t n = strlen(names[i]);

			CHECK_EQ_INT(name_memo_get(&m, names[i], n), answer_of(names[i], n));
		}
	CHECK_EQ_INT(asked, 5);	/* the distinct names */
	CHECK_EQ_INT(name_memo_get(&m, "a\0b", 3), answer_of("a\0b", 3));
	CHECK_EQ_INT(name_memo_get(&m, "a\0c", 3), answer_of("a\0c", 3));
	CHECK_EQ_INT(asked, 7);	/* two more */
	name_memo_release(&m);
}

/* With the classifier gpu.c memoises: the same answers as asking it each time. */
static void test_classify(void)
{
	static const char *const names[] = { "gloo:all_reduce", "c10d::wait", "cudaMalloc",
					     "cudaGraphLaunch", "AscendCL@aclrtSynchronizeStream",
					     "aten::linear", "record_param_comms", "cudaFree" };
	struct name_memo m;

	name_memo_init(&m, classify_name);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t n = strlen(names[i]);

			CHECK_EQ_INT(name_memo_get(&m, names[i], n), classify_name(names[i], n));
		}
	name_memo_release(&m);
}

int main(void)
{
	test_once_each();
	test_classify();
	return check_done("test_name_memo");
}
