/* gaps: see gaps.h. */
#include "gaps.h"

#include <stdlib.h>

#include "buf.h"
#include "log.h"

int64_t gaps_world_size(const struct report *rep)
{
	const struct report_rank *first = NULL;

	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (rk->world_size <= 0)
			continue;
		if (!first) {
			first = rk;
		} else if (rk->world_size != first->world_size) {
			log_msg("the reports disagree on the world size: %lld in '%s' (rank %lld), "
				"%lld in '%s' (rank %lld); give --expect-ranks",
				(long long)first->world_size, first->path, (long long)first->rank,
				(long long)rk->world_size, rk->path, (long long)rk->rank);
			return -1;
		}
	}
	return first ? first->world_size : 0;
}

/* Append "a" or "a-b" to a list of ranges in b. */
static void add_range(struct buf *b, int64_t lo, int64_t hi)
{
	buf_printf(b, "%s%lld", b->len ? ", " : "", (long long)lo);
	if (hi > lo)
		buf_printf(b, "-%lld", (long long)hi);
}

/* The ranks are sorted by number, so one pass finds the gaps, without a bitmap. */
int64_t gaps_report(const struct report *rep, int64_t world, const char *how)
{
	struct buf missing, outside, cut;
	int64_t nr_missing = 0, next = 0;

	if (world <= 0)
		return 0;
	buf_init(&missing);
	buf_init(&outside);
	buf_init(&cut);
	for (size_t i = 0; i <= rep->nr_ranks; i++) {
		int64_t r = i < rep->nr_ranks ? rep->ranks[i].rank : world;

		if (i < rep->nr_ranks && (r < 0 || r >= world)) {
			add_range(&outside, r, r);
			continue;
		}
		if (r > next) {
			add_range(&missing, next, r - 1);
			nr_missing += r - next;
		}
		if (r + 1 > next)
			next = r + 1;
		if (i < rep->nr_ranks && !rep->ranks[i].complete)
			add_range(&cut, r, r);
	}
	if (!buf_ok(&missing) || !buf_ok(&outside) || !buf_ok(&cut))
		log_msg("out of memory listing the missing ranks");
	if (nr_missing)
		log_msg("%lld of %lld ranks missing (%s %lld): %s %s", (long long)nr_missing,
			(long long)world, how, (long long)world, nr_missing > 1 ? "ranks" : "rank",
			missing.data ? missing.data : "");
	if (outside.len)
		log_msg("warning: ranks outside 0-%lld (%s %lld): %s", (long long)world - 1, how,
			(long long)world, outside.data);
	if (cut.len)
		log_msg("warning: incomplete ranks (cut-off traces; their figures cover only what "
			"was read): %s", cut.data);
	buf_release(&missing);
	buf_release(&outside);
	buf_release(&cut);
	return nr_missing;
}
