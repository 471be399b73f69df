/*
 * test_crossrank: unit tests for lib/stats/crossrank.c, the statistics over ranks
 * and the stragglers.
 *
 * Reports are built by hand; every expected number is worked out in the
 * comments next to it.
 */
#include "crossrank.h"

#include <math.h>

#include "check.h"

#define CHECK_NEAR(a, b, eps)                                                          \
	CHECKF(fabs((double)(a) - (double)(b)) <= (eps), "got %.17g, want %.17g", (double)(a), \
	       (double)(b))

/* A report with n analysed ranks numbered 0..n-1 and plausible values. */
static struct report_rank *make(struct report *rep, size_t n)
{
	struct report_rank *rk;

	report_init(rep, "vanalyze");
	rk = arena_alloc(&rep->arena, (n ? n : 1) * sizeof(*rk));
	if (!rk) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	memset(rk, 0, (n ? n : 1) * sizeof(*rk));
	for (size_t i = 0; i < n; i++) {
		struct report_rank *r = &rk[i];

		r->rank = (int64_t)i;
		r->source = "rank.json";
		r->path = "rank.json";
		r->format = "kineto";
		r->complete = 1;
		r->analysed = 1;
		r->has_phases = 1;
		r->has_throughput = 1;
		r->events_total = 1000;
		r->span_ns = 1000000;
		r->gpu.kernels = 50;
		r->gpu.kernel_time_ns = 500000;
		r->gpu.busy_ns = 400000;
		r->gpu.active_span_ns = 800000;
		r->gpu.idle_ns = 400000;
		r->gpu.utilization = 0.5;
		r->gpu.comm_ns = 100000;
		r->gpu.compute_ns = 300000;
		r->gpu.memory_ns = 10000;
		r->gpu.comm_compute_overlap = 0.25;
		/* no wait measured: null, as the analysis leaves it */
		r->gpu.comm_wait_ns = r->gpu.comm_transfer_ns = INT64_MIN;
		r->gpu.comm_sync_ns = r->gpu.comm_idle_ns = INT64_MIN;
		r->gpu.effective_utilization = NAN;
		r->steps.pattern = "ProfilerStep#*";
		r->steps.d.count = 4;
		r->steps.d.median_ns = 200000;
		r->steps.d.avg_ns = 210000;
		r->throughput.frames = 16;
		r->throughput.blocks = 4;
		r->throughput.wall_ns = 900000;
		r->throughput.fps = 16 / 0.0009;
		r->throughput.bps = 4 / 0.0009;
		r->throughput.first_block_ns = 300000;
	}
	rep->ranks = rk;
	rep->nr_ranks = n;
	return rk;
}

static const struct report_stat *find_stat(const struct report *rep, const char *metric)
{
	for (size_t i = 0; i < rep->nr_cross_rank; i++)
		if (strcmp(rep->cross_rank[i].metric, metric) == 0)
			return &rep->cross_rank[i];
	return NULL;
}

/* Check every field of a stat, reporting the caller's line. */
static void check_stat_at(int line, const struct report *rep, const char *metric, int64_t count,
			  double min, double max, double avg, double median, double stddev,
			  int64_t min_rank, int64_t max_rank)
{
	const struct report_stat *st = find_stat(rep, metric);
	double eps;

	check_nr++;
	if (!st) {
		check_fail_at(__FILE__, line);
		printf("metric \"%s\" missing\n", metric);
		return;
	}
	eps = 1e-12 * (fabs(max) > 1 ? fabs(max) : 1);
	if (st->count == count && fabs(st->min - min) <= eps && fabs(st->max - max) <= eps &&
	    fabs(st->avg - avg) <= eps && fabs(st->median - median) <= eps &&
	    fabs(st->stddev - stddev) <= eps && st->min_rank == min_rank &&
	    st->max_rank == max_rank)
		return;
	check_fail_at(__FILE__, line);
	printf("%s: got count %" PRId64 " min %.17g max %.17g avg %.17g median %.17g stddev %.17g "
	       "min_rank %" PRId64 " max_rank %" PRId64 "; want %" PRId64 " %.17g %.17g %.17g "
	       "%.17g %.17g %" PRId64 " %" PRId64 "\n",
	       metric, st->count, st->min, st->max, st->avg, st->median, st->stddev, st->min_rank,
	       st->max_rank, count, min, max, avg, median, stddev, min_rank, max_rank);
}

#define CHECK_STAT(rep, metric, ...) check_stat_at(__LINE__, rep, metric, __VA_ARGS__)

/* The stragglers, as "rank:metric" joined by spaces. */
static const char *stragglers(const struct report *rep)
{
	static char s[1024];
	size_t n = 0;

	s[0] = 0;
	for (size_t i = 0; i < rep->nr_stragglers && n < sizeof(s) - 100; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%" PRId64 ":%s", i ? " " : "",
				      rep->stragglers[i].rank, rep->stragglers[i].metric);
	return s;
}

/* The metric names in order, joined by spaces. */
static const char *metrics(const struct report *rep)
{
	static char s[4096];
	size_t n = 0;

	s[0] = 0;
	for (size_t i = 0; i < rep->nr_cross_rank && n < sizeof(s) - 200; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s", i ? " " : "",
				      rep->cross_rank[i].metric);
	return s;
}

static void test_one_rank(void)
{
	struct report rep;

	make(&rep, 1);
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_INT(rep.nr_cross_rank, 0);
	CHECK(rep.cross_rank == NULL);
	CHECK_EQ_INT(rep.nr_stragglers, 0);
	report_release(&rep);

	make(&rep, 0);
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_INT(rep.nr_cross_rank, 0);
	CHECK_EQ_INT(rep.nr_stragglers, 0);
	report_release(&rep);
}

static void test_two_ranks(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 2);

	rk[0].span_ns = 100;
	rk[1].span_ns = 300;
	rk[0].events_total = 7;
	rk[1].events_total = 7;
	rk[0].gpu.utilization = 0.25;
	rk[1].gpu.utilization = 0.75;
	rk[1].steps.d.median_ns = 200000;	/* both equal: no straggler */
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(metrics(&rep),
		     "events.total span_ns gpu.kernels gpu.kernel_time_ns gpu.busy_ns "
		     "gpu.active_span_ns gpu.idle_ns gpu.utilization gpu.comm_ns gpu.compute_ns "
		     "gpu.memory_ns gpu.comm_compute_overlap gpu.host_sync_ns gpu.host_sync_count "
		     "gpu.kernel_median_ns gpu.graph_launches gpu.graph_kernels "
		     "gpu.step_utilization steps.median_ns steps.avg_ns "
		     "throughput.wall_ns throughput.fps throughput.bps throughput.first_block_ns "
		     "throughput.blocks");
	/* 100 and 300: mean 200, deviations ±100, population stddev 100 */
	CHECK_STAT(&rep, "span_ns", 2, 100, 300, 200, 200, 100, 0, 1);
	/* a tie: the first rank holds both min and max */
	CHECK_STAT(&rep, "events.total", 2, 7, 7, 7, 7, 0, 0, 0);
	CHECK_STAT(&rep, "gpu.utilization", 2, 0.25, 0.75, 0.5, 0.5, 0.25, 0, 1);
	/* span 300 is 50 % over the median 200, but steps exist: they decide */
	CHECK_EQ_STR(stragglers(&rep), "");
	report_release(&rep);
}

static void test_step_straggler(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 4);
	const struct report_straggler *sg;

	rk[2].steps.d.median_ns = 260000;	/* 30 % over 200000 */
	rk[2].span_ns = 1300000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	/* 200000 x3 and 260000: sorted 200000 200000 200000 260000, median 200000;
	 * mean 215000; deviations -15000 x3, +45000: (3 * 225e6 + 2025e6) / 4 = 675e6 */
	CHECK_STAT(&rep, "steps.median_ns", 4, 200000, 260000, 215000, 200000, sqrt(675e6), 0, 2);
	CHECK_EQ_STR(stragglers(&rep), "2:steps.median_ns");
	if (rep.nr_stragglers == 1) {
		sg = &rep.stragglers[0];
		CHECK_NEAR(sg->excess, 0.3, 1e-12);
		CHECK_NEAR(sg->value, 260000, 0);
		CHECK_NEAR(sg->median, 200000, 0);
	}
	report_release(&rep);

	/* exactly 10 % over is not "more than 10 %" */
	rk = make(&rep, 4);
	rk[2].steps.d.median_ns = 220000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "");
	report_release(&rep);

	/* here 1000 * 1.1 rounds to exactly 1100: still not a straggler */
	rk = make(&rep, 3);
	rk[0].steps.d.median_ns = 1000;
	rk[1].steps.d.median_ns = 1100;
	rk[2].steps.d.median_ns = 1000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "");
	rk[1].steps.d.median_ns = 1101;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "1:steps.median_ns");
	report_release(&rep);

	/* a threshold of 50 % lets 30 % pass */
	rk = make(&rep, 4);
	rk[2].steps.d.median_ns = 260000;
	{
		struct crossrank_opts o = { 0.5, 0.3 };

		CHECK_EQ_INT(crossrank_compute_opts(&rep, &o), 0);
		CHECK_EQ_STR(stragglers(&rep), "");
		o.straggler_excess = 0.29;
		CHECK_EQ_INT(crossrank_compute_opts(&rep, &o), 0);
		CHECK_EQ_STR(stragglers(&rep), "2:steps.median_ns");
	}
	report_release(&rep);
}

static void test_comm_deficit(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 4);

	/* the straggler computes while the others wait in all-reduce */
	rk[0].gpu.comm_ns = 500000;
	rk[1].gpu.comm_ns = 500000;
	rk[2].gpu.comm_ns = 50000;
	rk[3].gpu.comm_ns = 500000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	/* median of 50000 500000 500000 500000 is 500000; 50000 / 500000 - 1 = -0.9 */
	CHECK_STAT(&rep, "gpu.comm_ns", 4, 50000, 500000, 387500, 500000,
		   sqrt((3 * 112500.0 * 112500.0 + 337500.0 * 337500.0) / 4), 2, 0);
	CHECK_EQ_STR(stragglers(&rep), "2:gpu.comm_ns");
	if (rep.nr_stragglers == 1) {
		CHECK_NEAR(rep.stragglers[0].excess, -0.9, 1e-12);
		CHECK_NEAR(rep.stragglers[0].value, 50000, 0);
		CHECK_NEAR(rep.stragglers[0].median, 500000, 0);
	}
	report_release(&rep);

	/* exactly 30 % below is not "more than 30 %"; 31 % is */
	rk = make(&rep, 3);
	rk[0].gpu.comm_ns = 1000;
	rk[1].gpu.comm_ns = 700;
	rk[2].gpu.comm_ns = 1000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "");
	rk[1].gpu.comm_ns = 690;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "1:gpu.comm_ns");
	report_release(&rep);

	/* nobody communicates: the median is 0 and rule (b) is off */
	rk = make(&rep, 3);
	for (int i = 0; i < 3; i++)
		rk[i].gpu.comm_ns = 0;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep), "");
	CHECK_STAT(&rep, "gpu.comm_ns", 3, 0, 0, 0, 0, 0, 0, 0);
	report_release(&rep);

	/* both rules on one rank, ranks out of order in rep->ranks: sorted by rank,
	 * (a) before (b); duplicate rank numbers keep ranks order */
	rk = make(&rep, 5);
	rk[0].rank = 3;
	rk[1].rank = 1;
	rk[2].rank = 2;
	rk[3].rank = 0;
	rk[4].rank = 1;
	rk[0].steps.d.median_ns = 300000;
	rk[0].gpu.comm_ns = 10000;
	rk[4].gpu.comm_ns = 20000;
	rk[1].steps.d.median_ns = 250000;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(stragglers(&rep),
		     "1:steps.median_ns 1:gpu.comm_ns 3:steps.median_ns 3:gpu.comm_ns");
	if (rep.nr_stragglers == 4) {
		CHECK_NEAR(rep.stragglers[0].excess, 0.25, 1e-12);
		CHECK_NEAR(rep.stragglers[1].excess, -0.8, 1e-12);
		CHECK_NEAR(rep.stragglers[2].excess, 0.5, 1e-12);
		CHECK_NEAR(rep.stragglers[3].excess, -0.9, 1e-12);
	}
	report_release(&rep);
}

static void test_nan_and_optional(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 3);

	rk[0].gpu.utilization = 0.5;
	rk[1].gpu.utilization = NAN;
	rk[2].gpu.utilization = 0.7;
	for (int i = 0; i < 3; i++) {
		rk[i].gpu.comm_compute_overlap = NAN;	/* no comm anywhere: metric left out */
		rk[i].throughput.fps = NAN;
		rk[i].throughput.frames = INT64_MIN;
	}
	rk[0].throughput.first_block_ns = INT64_MIN;
	rk[1].throughput.first_block_ns = 100;
	rk[2].throughput.first_block_ns = 300;
	/* no blocks and no wall time: no throughput.blocks value */
	rk[1].throughput.blocks = 0;
	rk[1].throughput.wall_ns = 0;
	rk[0].throughput.blocks = 0;		/* wall time without blocks: 0 blocks counts */
	rk[2].throughput.blocks = 6;
	rk[2].steps.d.count = 0;		/* no steps on rank 2 */
	rk[0].steps.d.median_ns = 100;
	rk[1].steps.d.median_ns = 300;
	rk[2].steps.d.median_ns = 1e9;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	/* 0.5 and 0.7; NaN skipped */
	CHECK_STAT(&rep, "gpu.utilization", 2, 0.5, 0.7, 0.6, 0.6, 0.1, 0, 2);
	CHECK(find_stat(&rep, "gpu.comm_compute_overlap") == NULL);
	CHECK(find_stat(&rep, "throughput.fps") == NULL);
	CHECK_STAT(&rep, "throughput.first_block_ns", 2, 100, 300, 200, 200, 100, 1, 2);
	CHECK_STAT(&rep, "throughput.blocks", 2, 0, 6, 3, 3, 3, 0, 2);
	CHECK_STAT(&rep, "steps.median_ns", 2, 100, 300, 200, 200, 100, 0, 1);
	/* 300 is 50 % over the median 200 of the ranks with steps */
	CHECK_EQ_STR(stragglers(&rep), "1:steps.median_ns");
	CHECK_EQ_STR(metrics(&rep),
		     "events.total span_ns gpu.kernels gpu.kernel_time_ns gpu.busy_ns "
		     "gpu.active_span_ns gpu.idle_ns gpu.utilization gpu.comm_ns gpu.compute_ns "
		     "gpu.memory_ns gpu.host_sync_ns gpu.host_sync_count "
		     "gpu.kernel_median_ns gpu.graph_launches gpu.graph_kernels "
		     "gpu.step_utilization steps.median_ns steps.avg_ns "
		     "throughput.wall_ns throughput.bps throughput.first_block_ns "
		     "throughput.blocks");
	report_release(&rep);
}

static void test_medians(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 5);
	static const int64_t odd[] = { 7, 1, 9, 3, 5 };
	static const int64_t even[] = { 4, 1, 3, 10 };

	for (int i = 0; i < 5; i++) {
		rk[i].span_ns = odd[i];
		rk[i].gpu.kernels = i < 4 ? even[i] : 0;
	}
	rk[4].analysed = 0;		/* only span and events.total from it */
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	/* 1 3 5 7 9: median 5, mean 5, squares 4 16 16 4 0 -> 40 / 5 = 8 */
	CHECK_STAT(&rep, "span_ns", 5, 1, 9, 5, 5, sqrt(8), 1, 2);
	/* 1 3 4 10: median (3 + 4) / 2, mean 4.5, squares .25 12.25 2.25 30.25 -> 45 / 4 */
	CHECK_STAT(&rep, "gpu.kernels", 4, 1, 10, 4.5, 3.5, sqrt(11.25), 1, 3);
	CHECK_STAT(&rep, "events.total", 5, 1000, 1000, 1000, 1000, 0, 0, 0);
	CHECK_STAT(&rep, "gpu.busy_ns", 4, 400000, 400000, 400000, 400000, 0, 0, 0);
	report_release(&rep);
}

static void test_ties_and_duplicates(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 5);
	static const int64_t num[] = { 10, 11, 11, 12, 13 };
	static const int64_t span[] = { 5, 2, 9, 2, 9 };

	for (int i = 0; i < 5; i++) {
		rk[i].rank = num[i];
		rk[i].span_ns = span[i];
		rk[i].steps.d.count = 0;
	}
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	/* every entry is a sample: 2 2 5 9 9, mean 27 / 5 = 5.4, median 5;
	 * squares 11.56 11.56 0.16 12.96 12.96 -> 49.2 / 5 = 9.84.
	 * min 2 first at index 1 (rank 11), max 9 first at index 2 (rank 11) */
	CHECK_STAT(&rep, "span_ns", 5, 2, 9, 5.4, 5, sqrt(9.84), 11, 11);
	/* no steps: span decides; 9 is 80 % over 5, once per entry */
	CHECK_EQ_STR(stragglers(&rep), "11:span_ns 13:span_ns");
	report_release(&rep);
}

static void test_phases_and_memory(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 4);
	struct report_phase *ph;
	struct report_memory *mem;
	const char *want;

	ph = arena_alloc(&rep.arena, 8 * sizeof(*ph));
	mem = arena_alloc(&rep.arena, 8 * sizeof(*mem));
	if (!ph || !mem)
		exit(2);
	memset(ph, 0, 8 * sizeof(*ph));
	memset(mem, 0, 8 * sizeof(*mem));
	for (int i = 0; i < 8; i++)
		ph[i].name = "phase";
	/* rank 0: gen 100, gen/denoise 60 */
	ph[0].path = "gen";
	ph[0].d.total_ns = 100;
	ph[1].path = "gen/denoise";
	ph[1].d.total_ns = 60;
	rk[0].phases = ph;
	rk[0].nr_phases = 2;
	/* rank 1: gen 300 */
	ph[2].path = "gen";
	ph[2].d.total_ns = 300;
	rk[1].phases = ph + 2;
	rk[1].nr_phases = 1;
	/* rank 2: none.  rank 3: gen/denoise on two threads (30 + 50), Zeta, a */
	ph[3].path = "gen/denoise";
	ph[3].d.total_ns = 30;
	ph[4].path = "a";
	ph[4].d.total_ns = 5;
	ph[5].path = "gen/denoise";
	ph[5].d.total_ns = 50;
	ph[6].path = "Zeta";
	ph[6].d.total_ns = 1;
	rk[3].phases = ph + 3;
	rk[3].nr_phases = 4;

	/* memory: rank 0 CPU and GPU 0, rank 1 GPU 1 and GPU 0, rank 3 GPU 0 */
	mem[0] = (struct report_memory){ -1, 1000, 2000, -1, NULL, 0, 0 };
	mem[1] = (struct report_memory){ 0, 10, 20, -1, NULL, 0, 0 };
	rk[0].memory = mem;
	rk[0].nr_memory = 2;
	mem[2] = (struct report_memory){ 1, 7, 8, -1, NULL, 0, 0 };
	mem[3] = (struct report_memory){ 0, 30, 40, -1, NULL, 0, 0 };
	rk[1].memory = mem + 2;
	rk[1].nr_memory = 2;
	mem[4] = (struct report_memory){ 0, 20, 60, -1, NULL, 0, 0 };
	rk[3].memory = mem + 4;
	rk[3].nr_memory = 1;

	/* an unanalysed rank keeps its phases and memory out */
	{
		struct report_rank *more = arena_alloc(&rep.arena, 5 * sizeof(*more));

		if (!more)
			exit(2);
		memcpy(more, rk, 4 * sizeof(*more));
		more[4] = rk[3];
		more[4].rank = 4;
		more[4].analysed = 0;
		mem[5] = (struct report_memory){ 5, 1, 1, -1, NULL, 0, 0 };
		more[4].memory = mem + 5;
		more[4].nr_memory = 1;
		rep.ranks = more;
		rep.nr_ranks = 5;
	}

	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	want = "events.total span_ns gpu.kernels gpu.kernel_time_ns gpu.busy_ns "
	       "gpu.active_span_ns gpu.idle_ns gpu.utilization gpu.comm_ns gpu.compute_ns "
	       "gpu.memory_ns gpu.comm_compute_overlap gpu.host_sync_ns gpu.host_sync_count "
		     "gpu.kernel_median_ns gpu.graph_launches gpu.graph_kernels "
		     "gpu.step_utilization steps.median_ns steps.avg_ns "
	       "throughput.wall_ns throughput.fps throughput.bps throughput.first_block_ns "
	       "throughput.blocks "
	       "phase:Zeta.total_ns phase:a.total_ns phase:gen.total_ns "
	       "phase:gen/denoise.total_ns "
	       "memory:-1.peak_allocated memory:-1.peak_reserved "
	       "memory:0.peak_allocated memory:0.peak_reserved "
	       "memory:1.peak_allocated memory:1.peak_reserved";
	CHECK_EQ_STR(metrics(&rep), want);
	CHECK_STAT(&rep, "phase:Zeta.total_ns", 1, 1, 1, 1, 1, 0, 3, 3);
	CHECK_STAT(&rep, "phase:gen.total_ns", 2, 100, 300, 200, 200, 100, 0, 1);
	/* rank 0: 60, rank 3: 30 + 50 = 80 */
	CHECK_STAT(&rep, "phase:gen/denoise.total_ns", 2, 60, 80, 70, 70, 10, 0, 3);
	CHECK_STAT(&rep, "memory:-1.peak_allocated", 1, 1000, 1000, 1000, 1000, 0, 0, 0);
	/* 10 30 20: mean 20, median 20, squares 100 100 0 -> 200 / 3 */
	CHECK_STAT(&rep, "memory:0.peak_allocated", 3, 10, 30, 20, 20, sqrt(200.0 / 3), 0, 1);
	/* 20 40 60 */
	CHECK_STAT(&rep, "memory:0.peak_reserved", 3, 20, 60, 40, 40, sqrt(800.0 / 3), 0, 3);
	CHECK_STAT(&rep, "memory:1.peak_reserved", 1, 8, 8, 8, 8, 0, 1, 1);
	CHECK(find_stat(&rep, "memory:5.peak_allocated") == NULL);
	/* span from all 5 ranks, gpu from the 4 analysed ones */
	CHECK_STAT(&rep, "span_ns", 5, 1000000, 1000000, 1000000, 1000000, 0, 0, 0);
	CHECK_STAT(&rep, "gpu.kernels", 4, 50, 50, 50, 50, 0, 0, 0);

	/* the names make it into the JSON */
	{
		struct buf b;

		buf_init(&b);
		report_to_json(&rep, &b);
		CHECK(buf_ok(&b));
		CHECK(b.data && strstr(b.data, "\"phase:gen/denoise.total_ns\"") != NULL);
		CHECK(b.data && strstr(b.data, "\"memory:-1.peak_reserved\"") != NULL);
		buf_release(&b);
	}
	report_release(&rep);
}

static void test_span_without_steps(void)
{
	struct report rep;
	struct report_rank *rk = make(&rep, 4);
	static const int64_t span[] = { 1000, 1050, 1200, 1000 };

	for (int i = 0; i < 4; i++) {
		rk[i].steps.d.count = 0;
		rk[i].span_ns = span[i];
	}
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK(find_stat(&rep, "steps.median_ns") == NULL);
	CHECK(find_stat(&rep, "steps.avg_ns") == NULL);
	/* 1000 1000 1050 1200: median 1025; 1050 is 2.4 % over, 1200 17.07 % */
	CHECK_EQ_STR(stragglers(&rep), "2:span_ns");
	if (rep.nr_stragglers == 1) {
		CHECK_NEAR(rep.stragglers[0].median, 1025, 0);
		CHECK_NEAR(rep.stragglers[0].value, 1200, 0);
		CHECK_NEAR(rep.stragglers[0].excess, 1200.0 / 1025 - 1, 1e-12);
	}
	report_release(&rep);

	/* an unanalysed rank still has a span and can be the straggler */
	rk = make(&rep, 2);
	rk[0].analysed = 0;
	rk[1].analysed = 0;
	rk[0].span_ns = 100;
	rk[1].span_ns = 200;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_STR(metrics(&rep), "events.total span_ns");
	/* median 150; 200 / 150 - 1 = 1/3 */
	CHECK_EQ_STR(stragglers(&rep), "1:span_ns");
	report_release(&rep);
}

/* Many ranks in any order give the same statistics as the same ranks sorted. */
static void test_order_independence(void)
{
	struct report a, b;
	struct report_rank *ra = make(&a, 64), *rb = make(&b, 64);

	for (int i = 0; i < 64; i++) {
		int j = (i * 37) % 64;		/* a permutation, 37 is prime to 64 */

		ra[i].span_ns = 1000 + (int64_t)((i * 7919) % 101);
		ra[i].gpu.utilization = (double)((i * 13) % 17) / 17;
		rb[j] = ra[i];
	}
	CHECK_EQ_INT(crossrank_compute(&a), 0);
	CHECK_EQ_INT(crossrank_compute(&b), 0);
	CHECK_EQ_INT(a.nr_cross_rank, b.nr_cross_rank);
	for (size_t i = 0; i < a.nr_cross_rank && i < b.nr_cross_rank; i++) {
		const struct report_stat *x = &a.cross_rank[i], *y = &b.cross_rank[i];

		CHECK_EQ_STR(x->metric, y->metric);
		CHECK(x->count == y->count && x->min == y->min && x->max == y->max &&
		      x->median == y->median);
		CHECK_NEAR(x->avg, y->avg, 1e-9 * fabs(x->avg));
		CHECK_NEAR(x->stddev, y->stddev, 1e-9 * (fabs(x->stddev) + 1));
	}
	/* in b, the rank named as min_rank / max_rank holds the min / max */
	{
		const struct report_stat *y = find_stat(&b, "span_ns");

		CHECK(y != NULL);
		for (int i = 0; y && i < 64; i++) {
			if (rb[i].rank == y->min_rank)
				CHECK_NEAR(rb[i].span_ns, y->min, 0);
			if (rb[i].rank == y->max_rank)
				CHECK_NEAR(rb[i].span_ns, y->max, 0);
		}
	}
	report_release(&a);
	report_release(&b);
}

int main(void)
{
	test_one_rank();
	test_two_ranks();
	test_step_straggler();
	test_comm_deficit();
	test_nan_and_optional();
	test_medians();
	test_ties_and_duplicates();
	test_phases_and_memory();
	test_span_without_steps();
	test_order_independence();
	return check_done("test_crossrank");
}
