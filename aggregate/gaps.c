/* gaps: see gaps.h. */
#include "gaps.h"

#include <stdlib.h>

#include "log.h"
#include "ranges.h"

void gaps_drop_implausible(struct report *rep)
{
	size_t nr = 0;

	for (size_t i = 0; i < rep->nr_ranks; i++) {
		struct report_rank *rk = &rep->ranks[i];

		if (rk->world_size <= REPORT_WORLD_SIZE_MAX)
			continue;
		if (!nr++)
			log_msg("warning: '%s' (rank %lld): world_size %lld is beyond any real job "
				"(more than %lld ranks): ignored", rk->path, (long long)rk->rank,
				(long long)rk->world_size, (long long)REPORT_WORLD_SIZE_MAX);
		rk->world_size = INT64_MIN;
	}
	if (nr > 1)
		log_msg("warning: %zu more reports with such a world_size: ignored too", nr - 1);
}

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

/* The ranks are sorted by number, so one pass finds the gaps, without a bitmap. */
int64_t gaps_report(const struct report *rep, int64_t world, const char *how)
{
	struct ranges missing, outside, cut;
	int64_t next = 0, nr_missing;

	if (world <= 0)
		return 0;
	ranges_init(&missing);
	ranges_init(&outside);
	ranges_init(&cut);
	for (size_t i = 0; i <= rep->nr_ranks; i++) {
		int64_t r = i < rep->nr_ranks ? rep->ranks[i].rank : world;

		if (i < rep->nr_ranks && (r < 0 || r >= world)) {
			ranges_add(&outside, r);
			continue;
		}
		if (r > next)
			ranges_add_span(&missing, next, r - 1);
		if (i == rep->nr_ranks)
			break;	/* r is world, which may be INT64_MAX: no r + 1 */
		if (r >= next)
			next = r + 1;	/* r < world */
		if (!rep->ranks[i].complete)
			ranges_add(&cut, r);
	}
	nr_missing = missing.count;
	if (nr_missing)
		log_msg("%lld of %lld ranks missing (%s %lld): %s %s", (long long)nr_missing,
			(long long)world, how, (long long)world, nr_missing > 1 ? "ranks" : "rank",
			ranges_str(&missing));
	if (outside.count)
		log_msg("warning: ranks outside 0-%lld (%s %lld): %s", (long long)world - 1, how,
			(long long)world, ranges_str(&outside));
	if (cut.count)
		log_msg("warning: %lld incomplete %s (cut-off traces; their figures cover only "
			"what was read): %s", (long long)cut.count,
			cut.count > 1 ? "ranks" : "rank", ranges_str(&cut));
	ranges_release(&missing);
	ranges_release(&outside);
	ranges_release(&cut);
	return nr_missing;
}
