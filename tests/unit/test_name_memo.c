/*
 * test_name_memo: analyzer/names.c gives a string the same id in every
 * batch whatever its id there, distinct strings distinct ids (NULs and
 * all), the batch's string 0 the id 0, and ids from 1 in order of first
 * asking, keeping none that is not asked; analyzer/name_memo.c gives each
 * name the function's own answer, asks the function once per distinct
 * name whatever the order and repeats, over batches whose string ids
 * differ, and tells names that differ only past a shared prefix apart.
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

/* The rank's id of s[0..n), a string of batch b. */
static uint32_t id_of(struct names *nm, const struct event_batch *b, const char *s, size_t n)
{
	return names_id(nm, strtab_find(&b->strs, s, n));
}

/* names.c alone: the rank's ids of a batch's strings. */
static void test_names(void)
{
	static const char *const one[] = { "aten::mm", "gemm", "x\0y", "x\0z", "unasked" };
	static const size_t one_len[] = { 8, 4, 3, 3, 7 };
	static const char *const two[] = { "x\0z", "new", "gemm", "aten::mm", "x\0y" };
	static const size_t two_len[] = { 3, 3, 4, 8, 3 };
	struct event_batch b;
	struct names nm;
	uint32_t mm, gemm, xy, xz;

	event_batch_init(&b);
	names_init(&nm);
	batch_of(&nm, &b, one, one_len, 5);
	CHECK_EQ_INT(names_id(&nm, 0), 0);
	mm = id_of(&nm, &b, "aten::mm", 8);
	gemm = id_of(&nm, &b, "gemm", 4);
	xy = id_of(&nm, &b, "x\0y", 3);
	xz = id_of(&nm, &b, "x\0z", 3);
	CHECK_EQ_INT(mm, 1);	/* in order of first asking */
	CHECK_EQ_INT(gemm, 2);
	CHECK_EQ_INT(xy, 3);
	CHECK_EQ_INT(xz, 4);
	CHECK_EQ_INT(id_of(&nm, &b, "gemm", 4), gemm);	/* asked again: the same */
	CHECK_EQ_INT(names_count(&nm), 4);	/* "unasked" is not kept */
	/* another batch, its ids in another order: the rank's ids hold */
	batch_of(&nm, &b, two, two_len, 5);
	CHECK_EQ_INT(id_of(&nm, &b, "x\0z", 3), xz);
	CHECK_EQ_INT(id_of(&nm, &b, "aten::mm", 8), mm);
	CHECK_EQ_INT(id_of(&nm, &b, "x\0y", 3), xy);
	CHECK_EQ_INT(id_of(&nm, &b, "gemm", 4), gemm);
	CHECK_EQ_INT(id_of(&nm, &b, "new", 3), 5);
	CHECK_EQ_INT(names_count(&nm), 5);
	CHECK_EQ_INT(names_len(&nm, xy), 3);
	CHECK(!memcmp(names_str(&nm, xy), "x\0y", 4));	/* a copy, NUL-terminated */
	CHECK(!strcmp(names_str(&nm, mm), "aten::mm"));
	names_release(&nm);
	event_batch_release(&b);
}

/* The memo's answer for s[0..n), a string of the batch b, as a collector asks it. */
static int ask(struct name_memo *m, struct names *nm, struct event_batch *b, const char *s,
	       size_t n)
{
	uint32_t id = id_of(nm, b, s, n);

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
	CHECK_EQ_INT(name_memo_get(&m, &nm, 0), answer_of("", 0));	/* no name */
	CHECK_EQ_INT(name_memo_get(&m, &nm, 0), answer_of("", 0));
	CHECK_EQ_INT(asked, 8);
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
	test_names();
	test_once_each();
	test_classify();
	return check_done("test_name_memo");
}
