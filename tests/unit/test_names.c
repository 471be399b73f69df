/*
 * test_names: analyzer/names.c gives a string the same id in every batch
 * whatever its id there, distinct strings distinct ids (NULs and all),
 * the batch's string 0 the id 0, and ids from 1 in order of first asking;
 * a batch's strings are carried in once, and one not asked is not kept.
 */
#include <string.h>

#include "check.h"
#include "names.h"

/* A new batch in b holding n strings s[], begun in nm. */
static void batch_of(struct names *nm, struct event_batch *b, const char *const *s,
		     const size_t *len, size_t n)
{
	event_batch_reset(b);
	for (size_t i = 0; i < n; i++)
		strtab_intern(&b->strs, s[i], len[i]);
	CHECK(names_batch(nm, b) == 0);
}

static uint32_t id_of(struct names *nm, const struct event_batch *b, const char *s, size_t n)
{
	return names_id(nm, strtab_find(&b->strs, s, n));
}

int main(void)
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
	return check_done("test_names");
}
