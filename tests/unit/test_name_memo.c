/*
 * test_name_memo: analyzer/name_memo.c gives each name the function's own
 * answer, asks the function once per distinct name whatever the order and
 * repeats, over batches whose string ids differ (names.h carries them into
 * the rank's ids: names equal byte for byte, NULs and all, are one), and
 * tells names that differ only past a shared prefix apart.
 */
#include <string.h>

#include "check.h"
#include "classify.h"
#include "name_memo.h"
#include "names.h"

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

/* Begin a batch of its own in b holding s[0..n): its strings are b's to ask of. */
static void batch_of(struct names *nm, struct event_batch *b, const char *const *s,
		     const size_t *n, size_t nr)
{
	event_batch_reset(b);
	for (size_t i = 0; i < nr; i++)
		strtab_intern(&b->strs, s[i], n[i]);
	CHECK(names_batch(nm, b) == 0);
}

/* The memo's answer for s[0..n), a string of the batch b, as a collector asks it. */
static int ask(struct name_memo *m, struct names *nm, struct event_batch *b, const char *s,
	       size_t n)
{
	uint32_t id = names_id(nm, strtab_find(&b->strs, s, n));

	return id == STRTAB_OOM ? -1 : name_memo_get(m, nm, id);
}

static void test_once_each(void)
{
	static const char *const names[] = { "aten::mm", "aten::mm_", "", "cudaLaunchKernel",
					     "aten::mm", "void at::native::kernel<float>", "",
					     "cudaLaunchKernel", "aten::mm_" };
	const size_t nr = sizeof(names) / sizeof(names[0]);
	struct name_memo m;
	struct names nm;
	struct event_batch b;

	asked = 0;
	event_batch_init(&b);
	names_init(&nm);
	name_memo_init(&m, answer);
	static const char *const nul[] = { "a\0b", "a\0c" };
	static const size_t nul_len[] = { 3, 3 };
	const char *order[sizeof(names) / sizeof(names[0])];
	size_t len[sizeof(names) / sizeof(names[0])];

	/* each round a batch of its own, its strings interned in another order */
	for (size_t round = 0; round < 3; round++) {
		for (size_t k = 0; k < nr; k++) {
			order[k] = names[(k + round * 4) % nr];
			len[k] = strlen(order[k]);
		}
		batch_of(&nm, &b, order, len, nr);
		for (size_t k = 0; k < nr; k++)
			CHECK_EQ_INT(ask(&m, &nm, &b, order[k], len[k]),
				     answer_of(order[k], len[k]));
	}
	CHECK_EQ_INT(asked, 5);	/* the distinct names */
	batch_of(&nm, &b, nul, nul_len, 2);
	CHECK_EQ_INT(ask(&m, &nm, &b, "a\0b", 3), answer_of("a\0b", 3));
	CHECK_EQ_INT(ask(&m, &nm, &b, "a\0c", 3), answer_of("a\0c", 3));
	CHECK_EQ_INT(asked, 7);	/* two more */
	name_memo_release(&m);
	names_release(&nm);
	event_batch_release(&b);
}

/* With the classifier gpu.c memoises: the same answers as asking it each time. */
static void test_classify(void)
{
	static const char *const names[] = { "gloo:all_reduce", "c10d::wait", "cudaMalloc",
					     "cudaGraphLaunch", "AscendCL@aclrtSynchronizeStream",
					     "aten::linear", "record_param_comms", "cudaFree" };
	const size_t nr = sizeof(names) / sizeof(names[0]);
	size_t len[sizeof(names) / sizeof(names[0])];
	struct name_memo m;
	struct names nm;
	struct event_batch b;

	event_batch_init(&b);
	names_init(&nm);
	name_memo_init(&m, classify_name);
	for (size_t i = 0; i < nr; i++)
		len[i] = strlen(names[i]);
	for (int round = 0; round < 2; round++) {
		batch_of(&nm, &b, names, len, nr);
		for (size_t i = 0; i < nr; i++)
			CHECK_EQ_INT(ask(&m, &nm, &b, names[i], len[i]),
				     classify_name(names[i], len[i]));
	}
	name_memo_release(&m);
	names_release(&nm);
	event_batch_release(&b);
}

int main(void)
{
	test_once_each();
	test_classify();
	return check_done("test_name_memo");
}
