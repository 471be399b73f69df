/*
 * category: see category.h.  The kernel words are those report.json has
 * always written (doc/report.md's kernel rows); the family words those of
 * its ops_perf rows and perf.families, which say "reduction" where a
 * kernel says "reduce".
 */
#include "category.h"

#include <string.h>

static const struct {
	const char *kernel;	/* a kernel row's category */
	const char *family;	/* an ops_perf row's family; NULL: never one */
} names[NR_CATEGORIES] = {
	[CAT_NONE] = { "", NULL },
	[CAT_COMM] = { "comm", NULL },
	[CAT_ATTENTION] = { "attention", "attention" },
	[CAT_NORM] = { "norm", "norm" },
	[CAT_CONV] = { "conv", "conv" },
	[CAT_GEMM] = { "gemm", "gemm" },
	[CAT_REDUCE] = { "reduce", "reduction" },
	[CAT_ELEMENTWISE] = { "elementwise", "elementwise" },
	[CAT_OTHER] = { "other", NULL },
	[CAT_SOFTMAX] = { "reduce", "softmax" },
};

enum category category_kernel(enum category c)
{
	return c == CAT_SOFTMAX ? CAT_REDUCE : c;
}

const char *category_name(enum category c)
{
	return (unsigned)c < NR_CATEGORIES ? names[c].kernel : "";
}

const char *category_family(enum category c)
{
	return (unsigned)c < NR_CATEGORIES ? names[c].family : NULL;
}

enum category category_of(const char *s)
{
	for (int c = CAT_COMM; s && c <= CAT_OTHER; c++)
		if (!strcmp(names[c].kernel, s))
			return (enum category)c;
	return CAT_NONE;
}

enum category category_of_family(const char *s)
{
	for (int c = CAT_NONE + 1; s && c < NR_CATEGORIES; c++)
		if (names[c].family && !strcmp(names[c].family, s))
			return (enum category)c;
	return CAT_NONE;
}
