/*
 * test_collectives: unit tests for lib/collectives.c, matching collective
 * instances across ranks, the waits, the clock offsets and the ranks the
 * others wait for.
 *
 * Reports are built by hand; every expected number is worked out in the
 * comments next to it.
 */
#include "collectives.h"

#include <math.h>
#include <string.h>

#include "check.h"
#include "crossrank.h"

#define CHECK_NEAR(a, b, eps)                                                          \
	CHECKF(fabs((double)(a) - (double)(b)) <= (eps), "got %.17g, want %.17g", (double)(a), \
	       (double)(b))

/* n complete analysed ranks 0..n-1, span 1000 ns, busy 100 of 200 ns, comm 50 ns. */
static struct report_rank *make(struct report *rep, size_t n)
{
	report_init(rep, "vanalyze");
	for (size_t i = 0; i < n; i++) {
		struct report_rank *r = report_add_rank(rep);

		if (!r)
			exit(2);
		r->rank = (int64_t)i;
		r->source = r->path = "rank.json";
		r->format = "kineto";
		r->complete = r->analysed = 1;
		r->span_ns = 1000;
		r->gpu.busy_ns = 100;
		r->gpu.active_span_ns = 200;
		r->gpu.comm_ns = 50;
		r->gpu.utilization = 0.5;
	}
	return rep->ranks;
}

/* Give rank r one series of n instances (ends may be NULL: dur as end). */
static void series(struct report *rep, size_t r, const char *group, const char *name,
		   const int64_t *dur, const int64_t *end, const int64_t *bytes, size_t n)
{
	struct report_rank *rk = &rep->ranks[r];
	struct report_comm_series *s, *all;

	all = arena_alloc(&rep->arena, (rk->nr_comm + 1) * sizeof(*all));
	if (rk->nr_comm)
		memcpy(all, rk->comm, rk->nr_comm * sizeof(*all));
	s = &all[rk->nr_comm];
	memset(s, 0, sizeof(*s));
	s->group = group;
	s->name = name;
	s->group_size = INT64_MIN;
	s->n = n;
	s->dur_ns = arena_alloc(&rep->arena, n * sizeof(int64_t));
	s->end_ns = arena_alloc(&rep->arena, n * sizeof(int64_t));
	memcpy(s->dur_ns, dur, n * sizeof(int64_t));
	memcpy(s->end_ns, end ? end : dur, n * sizeof(int64_t));
	if (bytes) {
		s->bytes = arena_alloc(&rep->arena, n * sizeof(int64_t));
		memcpy(s->bytes, bytes, n * sizeof(int64_t));
	}
	rk->comm = all;
	rk->nr_comm++;
}

static void test_none(void)
{
	struct report rep;

	make(&rep, 0);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK(rep.straggler_rule == NULL);
	report_release(&rep);

	/* one rank: nobody to match with */
	make(&rep, 1);
	series(&rep, 0, NULL, "ar", (int64_t[]){ 5 }, NULL, NULL, 1);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK(rep.straggler_rule == NULL);
	CHECK_EQ_INT(rep.ranks[0].gpu.has_wait, 0);
	report_release(&rep);

	/* two ranks with different collectives: still nothing matched, step rule */
	make(&rep, 2);
	series(&rep, 0, NULL, "ar", (int64_t[]){ 5 }, NULL, NULL, 1);
	series(&rep, 1, NULL, "ag", (int64_t[]){ 5 }, NULL, NULL, 1);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK(rep.straggler_rule == NULL);
	CHECK_EQ_INT(rep.nr_collectives, 0);
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(rep.straggler_rule, "span");
	report_release(&rep);
}

static void test_waits_and_straggler(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 3);

	/*
	 * Instance 0: durations 10, 4, 10: rank 1 arrived last; ranks 0 and 2
	 * wait 6 each, rank 1 imposes 12.  Instance 1: 20, 20, 5: rank 2 last;
	 * ranks 0 and 1 wait 15, rank 2 imposes 30.  Waits 21, 15, 6.
	 */
	series(&rep, 0, NULL, "ar", (int64_t[]){ 10, 20 }, (int64_t[]){ 100, 200 }, NULL, 2);
	series(&rep, 1, NULL, "ar", (int64_t[]){ 4, 20 }, (int64_t[]){ 103, 200 }, NULL, 2);
	series(&rep, 2, NULL, "ar", (int64_t[]){ 10, 5 }, (int64_t[]){ 100, 204 }, NULL, 2);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_STR(rep.straggler_rule, "collectives");
	CHECK_EQ_INT(rk[0].gpu.comm_wait_ns, 21);
	CHECK_EQ_INT(rk[1].gpu.comm_wait_ns, 15);
	CHECK_EQ_INT(rk[2].gpu.comm_wait_ns, 6);
	CHECK_EQ_INT(rk[0].gpu.comm_transfer_ns, 50 - 21);
	/* effective: (busy 100 - wait 21) / active 200 */
	CHECK_NEAR(rk[0].gpu.effective_utilization, 79.0 / 200, 1e-15);
	/*
	 * Total imposed 42 over 3 ranks.  Rank 2: 30 > 2 * (12 / 2) and 30 / 2
	 * >= 1% of the median span 1000: named.  Rank 1: 12 > 2 * (30 / 2)?
	 * No.  Rank 0 imposes nothing.
	 */
	CHECK_EQ_INT(rep.nr_stragglers, 1);
	CHECK_EQ_INT(rep.stragglers[0].rank, 2);
	CHECK_EQ_INT(rep.stragglers[0].wait_imposed_ns, 30);
	CHECK_NEAR(rep.stragglers[0].last_share, 0.5, 0);
	CHECK_EQ_STR(rep.stragglers[0].delays.name, "ar");
	CHECK_EQ_INT(rep.stragglers[0].delays.wait_ns, 30);
	CHECK_NEAR(rep.stragglers[0].median, 12, 0);		/* of 0, 12, 30 */
	CHECK_NEAR(rep.stragglers[0].excess, 30.0 / 6 - 1, 1e-15);
	/* the table: one row, wait 42, transfer 4 + 5, rank 1 and 2 last once each: rank 1 */
	CHECK_EQ_INT(rep.nr_collectives, 1);
	CHECK_EQ_INT(rep.collectives[0].instances, 2);
	CHECK_EQ_INT(rep.collectives[0].wait_ns, 42);
	CHECK_EQ_INT(rep.collectives[0].transfer_ns, 9);
	CHECK_EQ_INT(rep.collectives[0].last_rank, 1);
	CHECK_EQ_INT(rep.collectives[0].last_count, 1);
	CHECK_EQ_INT(rep.collectives[0].bytes, INT64_MIN);
	CHECK(isnan(rep.collectives[0].algbw));
	/* clocks: rank 1's ends differ by 3 and 0 (median 1, rounded down), rank 2's by 0 and 4 */
	CHECK_EQ_INT(rk[0].clock_offset_ns, 0);
	CHECK_EQ_INT(rk[1].clock_offset_ns, 1);
	CHECK_EQ_INT(rk[1].clock_offset_spread_ns, 3);
	CHECK_EQ_INT(rk[2].clock_offset_ns, 2);
	CHECK_EQ_INT(rk[2].clock_offset_spread_ns, 4);
	/* the step rule stays out, and the wait metrics get statistics */
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(rep.straggler_rule, "collectives");
	CHECK_EQ_INT(rep.nr_stragglers, 1);
	{
		int found = 0;

		for (size_t i = 0; i < rep.nr_cross_rank; i++)
			if (!strcmp(rep.cross_rank[i].metric, "gpu.comm_wait_ns")) {
				found = 1;
				CHECK_NEAR(rep.cross_rank[i].max, 21, 0);
				CHECK_EQ_INT(rep.cross_rank[i].max_rank, 0);
			}
		CHECK(found);
	}
	/* a second run replaces the results, without doubling anything */
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rk[0].gpu.comm_wait_ns, 21);
	CHECK_EQ_INT(rep.nr_stragglers, 1);
	report_release(&rep);
}

static void test_threshold(void)
{
	struct report rep;

	/*
	 * Two ranks, rank 1 last at both instances, imposing 3 + 3 = 6; the
	 * others impose 0, so 6 > 2 * 0.  Named while 6 / 1 >= 1% of the span:
	 * span 600 gives exactly 6 (named), span 601 gives 6.01 (not).
	 */
	for (int64_t span = 600; span <= 601; span++) {
		make(&rep, 2);
		rep.ranks[0].span_ns = rep.ranks[1].span_ns = span;
		series(&rep, 0, NULL, "x", (int64_t[]){ 5, 5 }, NULL, NULL, 2);
		series(&rep, 1, NULL, "x", (int64_t[]){ 2, 2 }, NULL, NULL, 2);
		CHECK_EQ_INT(collectives_compute(&rep), 0);
		CHECK_EQ_INT(rep.nr_stragglers, span == 600 ? 1 : 0);
		report_release(&rep);
	}
	/*
	 * Four ranks, span 100.  Instance 0: rank 1 last, the three others wait
	 * 5 each (imposes 15); instance 1: rank 2 likewise (15); instance 2:
	 * rank 3 last, the others wait d each (3d).  Rank 3 is named when 3d >
	 * 2 * 30 / 3 = 20: d = 7 yes (21), d = 6 no (18).  Ranks 1 and 2: 15 >
	 * 2 * (15 + 3d) / 3?  Never.  Each rank is last once: the table names
	 * the first of the tie, rank 1.
	 */
	for (int64_t d = 7; d >= 6; d--) {
		make(&rep, 4);
		for (size_t r = 0; r < 4; r++)
			rep.ranks[r].span_ns = 100;
		series(&rep, 0, NULL, "x", (int64_t[]){ 6, 6, 1 + d }, NULL, NULL, 3);
		series(&rep, 1, NULL, "x", (int64_t[]){ 1, 6, 1 + d }, NULL, NULL, 3);
		series(&rep, 2, NULL, "x", (int64_t[]){ 6, 1, 1 + d }, NULL, NULL, 3);
		series(&rep, 3, NULL, "x", (int64_t[]){ 6, 6, 1 }, NULL, NULL, 3);
		CHECK_EQ_INT(collectives_compute(&rep), 0);
		CHECK_EQ_INT(rep.collectives[0].last_rank, 1);
		CHECK_EQ_INT(rep.collectives[0].last_count, 1);
		CHECK_EQ_INT(rep.nr_stragglers, d == 7 ? 1 : 0);
		if (rep.nr_stragglers) {
			CHECK_EQ_INT(rep.stragglers[0].rank, 3);
			CHECK_EQ_INT(rep.stragglers[0].wait_imposed_ns, 21);
			CHECK_NEAR(rep.stragglers[0].last_share, 1.0 / 3, 1e-15);
		}
		report_release(&rep);
	}
}

static void test_unmatched_and_incomplete(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 3);

	/* rank 2 is cut off after one instance; rank 2 is the late one there */
	rk[2].complete = 0;
	series(&rep, 0, "pg", "ar", (int64_t[]){ 50, 7, 7 }, NULL, NULL, 3);
	series(&rep, 1, "pg", "ar", (int64_t[]){ 50, 7, 7 }, NULL, NULL, 3);
	series(&rep, 2, "pg", "ar", (int64_t[]){ 1 }, NULL, NULL, 1);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rep.collectives[0].instances, 1);
	CHECK_EQ_INT(rep.collectives[0].unmatched, 2);
	CHECK_EQ_STR(rep.collectives[0].group, "pg");
	CHECK_EQ_INT(rep.nr_stragglers, 0);	/* rank 2 would be, but it is incomplete */
	CHECK_EQ_INT(rep.nr_incomplete_ranks, 1);
	CHECK_EQ_INT(rep.incomplete_ranks[0], 2);
	CHECK_EQ_INT(rk[0].nr_warnings, 1);
	CHECK(rk[0].nr_warnings && strstr(rk[0].warnings[0], "2 of its 3 instances"));
	CHECK_EQ_INT(rk[2].nr_warnings, 0);
	/* the wait of rank 0 exceeds its comm time 50: transfer clamped, and said */
	CHECK_EQ_INT(rk[0].gpu.comm_wait_ns, 49);
	CHECK_EQ_INT(rk[0].gpu.comm_transfer_ns, 1);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rk[0].nr_warnings, 1);	/* not warned twice */
	rk[0].gpu.comm_ns = 10;
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rk[0].gpu.comm_transfer_ns, 0);
	CHECK_EQ_INT(rk[0].nr_warnings, 2);
	/* incomplete ranks are never named by the step rule either */
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	for (size_t i = 0; i < rep.nr_stragglers; i++)
		CHECK(rep.stragglers[i].rank != 2);
	report_release(&rep);
}

static void test_bandwidth(void)
{
	struct report rep;

	/*
	 * 4 ranks, an allreduce of 1000 bytes per instance, transfer 2 + 3 ns:
	 * algbw 2000 / 5 = 400 B/ns; busbw 400 * 2 * 3 / 4 = 600.  The size of
	 * an instance comes from the first rank that knows it.
	 */
	make(&rep, 4);
	for (size_t r = 0; r < 4; r++) {
		series(&rep, r, "0", "allreduce", (int64_t[]){ r ? 2 : 9, r ? 3 : 9 }, NULL,
		       (int64_t[]){ 1000, 1000 }, 2);
		series(&rep, r, "0", "all_gather", (int64_t[]){ 4, 4 }, NULL,
		       (int64_t[]){ 1000, r ? -1 : 1000 }, 2);
	}
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rep.nr_collectives, 2);
	CHECK_EQ_STR(rep.collectives[0].name, "all_gather");	/* sorted by bytes: '_' < 'r' */
	CHECK_EQ_INT(rep.collectives[0].bytes, 2000);		/* rank 0 knows both sizes */
	CHECK_EQ_STR(rep.collectives[1].name, "allreduce");
	CHECK_EQ_INT(rep.collectives[1].bytes, 2000);
	CHECK_EQ_INT(rep.collectives[1].transfer_ns, 5);
	CHECK_NEAR(rep.collectives[1].algbw, 400, 1e-12);
	CHECK_NEAR(rep.collectives[1].busbw, 600, 1e-12);
	CHECK_NEAR(rep.collectives[0].busbw, 2000.0 / 8 * 3 / 4, 1e-12);
	report_release(&rep);
}

static void test_clock(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 2);

	/*
	 * Rank 1's clock reads 10 s late: its first event is at 10 s + 40, its
	 * ends count from there (60 and 160 are 10 s + 100 and 10 s + 200):
	 * offset 10 s exactly, spread 0.
	 */
	rk[0].start_ns = 0;
	rk[1].start_ns = 10000000040LL;
	series(&rep, 0, NULL, "x", (int64_t[]){ 5, 5 }, (int64_t[]){ 100, 200 }, NULL, 2);
	series(&rep, 1, NULL, "x", (int64_t[]){ 5, 5 }, (int64_t[]){ 60, 160 }, NULL, 2);
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rk[1].has_clock, 1);
	CHECK_EQ_INT(rk[1].clock_offset_ns, 10000000000LL);
	CHECK_EQ_INT(rk[1].clock_offset_spread_ns, 0);
	/* durations near INT64_MAX saturate instead of overflowing */
	rk[0].comm[0].dur_ns[0] = INT64_MAX;
	rk[0].comm[0].dur_ns[1] = INT64_MAX;
	rk[1].comm[0].dur_ns[0] = -5;
	CHECK_EQ_INT(collectives_compute(&rep), 0);
	CHECK_EQ_INT(rk[0].gpu.comm_wait_ns, INT64_MAX);
	report_release(&rep);
}

int main(void)
{
	test_none();
	test_waits_and_straggler();
	test_threshold();
	test_unmatched_and_incomplete();
	test_bandwidth();
	test_clock();
	return check_done("test_collectives");
}
