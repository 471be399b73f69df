/*
 * test_rank: unit tests for analyzer/rank.c, the rank named in a file name.
 *
 * rank.h: tokens rank<N>, rank-<N>, rank_<N>, worker<N>, not preceded by a
 * letter; the last one in the base name wins; -1 when there is none.
 */
#include "rank.h"

#include "check.h"

static const struct {
	const char *path;
	int64_t rank;
} cases[] = {
	{ "rank3.json", 3 },
	{ "x-rank-12.json.gz", 12 },
	{ "rank_7", 7 },
	{ "rank-0.json", 0 },
	{ "worker5_step_12.1694128201545.pt.trace.json.gz", 5 },
	{ "prank3", -1 },
	{ "xworker3.json", -1 },
	{ "Rank3.json", -1 },		/* tokens are lower case */
	{ "RANK3.json", -1 },
	/* "4rank" follows a digit, not a letter, so it could be a token, but
	 * "rank-straggler2" has no number after the prefix; "-rank2" wins */
	{ "dev-4rank-straggler2-rank2.trace.json.gz", 2 },
	{ "dev-4rank-straggler2-meta.json", -1 },
	{ "4rank3.json", 3 },		/* a digit before the token is allowed */
	{ "_rank9", 9 },
	{ ".rank9", 9 },
	{ "rank3rank4", 4 },		/* the second token follows '3', not a letter */
	{ "rank3_worker7.json", 7 },
	{ "worker7_rank3.json", 3 },
	{ "rank", -1 },
	{ "rank-", -1 },
	{ "rank_.json", -1 },
	{ "rank-x1", -1 },
	{ "rank--1", -1 },
	{ "ranks3", -1 },
	{ "rank007.json", 7 },
	{ "", -1 },
	{ "trace.json", -1 },
	/* the directories do not count, only the base name */
	{ "/data/rank9/trace.json", -1 },
	{ "/data/rank9/rank2.json", 2 },
	{ "runs/worker3/", -1 },
	{ "rank5/", -1 },
	{ "a/b/c/rank_11.pt.trace.json", 11 },
	{ "./rank1.json", 1 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t got = rank_from_name(cases[i].path);

		CHECKF(got == cases[i].rank, "rank_from_name(\"%s\") = %lld, want %lld",
		       cases[i].path, (long long)got, (long long)cases[i].rank);
	}

	CHECK_EQ_STR(rank_basename("a/b/c.json"), "c.json");
	CHECK_EQ_STR(rank_basename("c.json"), "c.json");
	CHECK_EQ_STR(rank_basename("/c"), "c");
	CHECK_EQ_STR(rank_basename("dir/"), "");
	{
		const char *p = "x/y";

		CHECK(rank_basename(p) == p + 2);
	}

	/* a long number is read, not overflowed */
	{
		int64_t r = rank_from_name("rank99999999999999999999999.json");

		CHECKF(r >= 0, "got %lld", (long long)r);
	}
	return check_done("test_rank");
}
