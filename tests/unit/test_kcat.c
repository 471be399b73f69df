/*
 * test_kcat: the kernel categories of analyzer/kcat.c.
 *
 * Every line of testdata/kernel-categories.tsv (real kernel names from the
 * shared traces with the category each must get) is checked, and a few
 * edges: case, the name cut at 4096 bytes, the empty name.  The corpus
 * is found through $VT_ROOT (tests/run.sh sets it) or the current directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kcat.h"

static FILE *open_corpus(void)
{
	const char *root = getenv("VT_ROOT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/testdata/kernel-categories.tsv", root ? root : ".");
	return fopen(path, "r");
}

static void test_corpus(void)
{
	static char line[16384];
	FILE *f = open_corpus();
	long n = 0;

	if (!CHECK_MSG(f != NULL, "testdata/kernel-categories.tsv cannot be opened"))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *want = line, *src, *name;
		size_t len = strcspn(line, "\n");

		line[len] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		src = strchr(want, '\t');
		name = src ? strchr(src + 1, '\t') : NULL;
		if (!CHECK_MSG(name != NULL, "malformed corpus line: %s", line))
			continue;
		*src = *name = '\0';
		name++;
		CHECK_MSG(!strcmp(kcat_of(name, strlen(name)), want), "%s: got %s, want %s", name,
			  kcat_of(name, strlen(name)), want);
		n++;
	}
	fclose(f);
	/* the families: triton, flashinfer, nvjet, cutlass, fp8/fp4, aclnn, b200 */
	CHECKF(n >= 80, "only %ld names in the corpus", n);
}

static void test_edges(void)
{
	static char big[5000];

	CHECK_EQ_STR(kcat_of("", 0), "other");
	CHECK_EQ_STR(kcat_of("NCCLDEVKERNEL_ALLGATHER", 23), "comm");
	CHECK_EQ_STR(kcat_of("SDMA_copy", 9), "other");	/* exact, not a prefix */
	/* a name is read as its length says, not to a NUL */
	CHECK_EQ_STR(kcat_of("gemmX", 3), "other");
	/* past 4096 bytes a word is not seen */
	memset(big, 'x', sizeof(big));
	memcpy(big + 4094, "gemm", 4);		/* bytes 4094..4097: cut */
	CHECK_EQ_STR(kcat_of(big, sizeof(big)), "other");
	memcpy(big + 4092, "gemm", 4);		/* bytes 4092..4095: seen */
	CHECK_EQ_STR(kcat_of(big, sizeof(big)), "gemm");
}

int main(void)
{
	test_corpus();
	test_edges();
	return check_done("test_kcat");
}
