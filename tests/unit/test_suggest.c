/*
 * test_suggest: unit tests for lib/stats/suggest.c and its rules (rule.h), the
 * bottleneck suggestions.
 *
 * Reports are built by hand from a "quiet" rank on which no rule fires; each
 * test moves one metric to just on its threshold (nothing), then just past
 * it (one suggestion).  Shares are ratios of integers chosen so that the
 * quotient is the very double the threshold literal is.
 */
#include "suggest.h"

#include <math.h>
#include <stddef.h>

#include "crossrank.h"

#include "check.h"

#define MS 1000000LL

#define CHECK_NEAR(a, b, eps)                                                          \
	CHECKF(fabs((double)(a) - (double)(b)) <= (eps), "got %.17g, want %.17g", (double)(a), \
	       (double)(b))

static void *zalloc(struct report *rep, size_t n)
{
	void *p = arena_alloc(&rep->arena, n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	memset(p, 0, n ? n : 1);
	return p;
}

/*
 * n ranks on which nothing fires: 90 % utilization, 8 ms kernels, no
 * communication, 1 % memcpy, one 80 % "denoise" phase under "generate",
 * four equal 100 ms steps, no target fps, half the device memory, no sync
 * calls.  Each rank has room for 4 kernels, 4 phases, 4 CPU ops, 2 devices,
 * 64 steps.
 */
static struct report_rank *quiet(struct report *rep, size_t n)
{
	struct report_rank *rk;

	report_init(rep, "vanalyze");
	rk = zalloc(rep, n * sizeof(*rk));
	for (size_t i = 0; i < n; i++) {
		struct report_rank *r = &rk[i];

		r->rank = (int64_t)i;
		r->source = r->path = "rank.json";
		r->format = "kineto";
		r->complete = r->analysed = r->has_phases = r->has_throughput = 1;
		r->device.vendor = "nvidia";	/* the advice's words (vendor_words.h) */
		r->events_total = 1000;
		r->span_ns = 1000 * MS;
		r->gpu.kernels = 100;
		r->gpu.kernel_time_ns = 800 * MS;
		r->gpu.busy_ns = 900 * MS;
		r->gpu.active_span_ns = 1000 * MS;
		r->gpu.idle_ns = 100 * MS;
		r->gpu.utilization = 0.9;
		r->gpu.compute_ns = 800 * MS;
		r->gpu.memory_ns = 10 * MS;
		r->gpu.comm_compute_overlap = NAN;
		r->gpu.kernel_median_ns = 8 * MS;

		r->kernels = zalloc(rep, 4 * sizeof(*r->kernels));
		r->nr_kernels = 1;
		r->kernels[0].name = "sm90_xmma_gemm";
		r->kernels[0].category = "gemm";
		r->kernels[0].d.count = 100;
		r->kernels[0].d.total_ns = 800 * MS;
		r->kernels[0].d.avg_ns = 8 * MS;
		r->kernels[0].share = 1;

		r->phases = zalloc(rep, 4 * sizeof(*r->phases));
		r->nr_phases = 2;
		r->phases[0].name = "generate";
		r->phases[0].path = "generate";
		r->phases[0].depth = 0;
		r->phases[0].d.count = 1;
		r->phases[0].d.total_ns = 950 * MS;
		r->phases[0].share = 0.95;
		r->phases[1].name = "denoise";
		r->phases[1].path = "generate/denoise";
		r->phases[1].depth = 1;
		r->phases[1].d.count = 1;
		r->phases[1].d.total_ns = 800 * MS;
		r->phases[1].share = 0.8;

		r->steps.pattern = "denoise_step_*";
		r->steps.durations_ns = zalloc(rep, 64 * sizeof(int64_t));
		r->steps.nr_durations = 4;
		for (int k = 0; k < 4; k++)
			r->steps.durations_ns[k] = 100 * MS;
		r->steps.d.count = 4;
		r->steps.d.median_ns = 100 * MS;
		r->steps.d.avg_ns = 100 * MS;

		r->throughput.frames = 81;
		r->throughput.blocks = 4;
		r->throughput.wall_ns = 950 * MS;
		r->throughput.fps = 81 / 0.95;
		r->throughput.realtime_factor = NAN;

		r->memory = zalloc(rep, 2 * sizeof(*r->memory));
		r->nr_memory = 2;
		r->memory[0].device = -1;
		r->memory[0].peak_reserved = 100LL * 1000 * MS;
		r->memory[0].capacity = INT64_MIN;
		r->memory[1].device = 0;
		r->memory[1].peak_allocated = 30LL * 1000 * MS;
		r->memory[1].peak_reserved = 40LL * 1000 * MS;
		r->memory[1].capacity = 80LL * 1000 * MS;

		r->cpu_ops = zalloc(rep, 4 * sizeof(*r->cpu_ops));
		r->nr_cpu_ops = 1;
		r->cpu_ops[0].name = "aten::mm";
		r->cpu_ops[0].count = 100;
		r->cpu_ops[0].total_ns = 200 * MS;
	}
	rep->ranks = rk;
	rep->nr_ranks = n;
	return rk;
}

static size_t count_id(const struct report *rep, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nr_suggestions; i++)
		n += strcmp(rep->suggestions[i].id, id) == 0;
	return n;
}

static const struct report_suggestion *find(const struct report *rep, const char *id)
{
	for (size_t i = 0; i < rep->nr_suggestions; i++)
		if (strcmp(rep->suggestions[i].id, id) == 0)
			return &rep->suggestions[i];
	return NULL;
}

/* text in the short message or the details */
static int has(const struct report_suggestion *s, const char *text)
{
	return s && ((s->message && strstr(s->message, text)) ||
		     (s->details && strstr(s->details, text)));
}

/* Messages are plain-text sentences (UTF-8: the en dash of "ranks 0–6") ending in a full stop. */
static void check_messages(const struct report *rep)
{
	for (size_t i = 0; i < rep->nr_suggestions; i++) {
		const char *m = rep->suggestions[i].message;
		size_t n = m ? strlen(m) : 0;
		int ascii = 1;

		for (size_t k = 0; k < n; k++)
			if ((unsigned char)m[k] < 0x20 || (unsigned char)m[k] == 0x7f)
				ascii = 0;
		CHECKF(m && n > 20 && n < 1024 && m[n - 1] == '.' && ascii, "message '%s'",
		       m ? m : "(null)");
		CHECK(rep->suggestions[i].metric && rep->suggestions[i].metric[0]);
	}
}

/* Run the defaults on rep; check the messages; return the count. */
static size_t run(struct report *rep)
{
	CHECK_EQ_INT(suggest_compute(rep, NULL), 0);
	check_messages(rep);
	return rep->nr_suggestions;
}

static void test_quiet(void)
{
	struct report rep;

	quiet(&rep, 1);
	CHECK_EQ_INT(run(&rep), 0);
	CHECK(rep.suggestions == NULL);
	report_release(&rep);

	quiet(&rep, 4);
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_INT(rep.nr_stragglers, 0);
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);

	/* no ranks at all */
	report_init(&rep, "vaggregate");
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);

	/* a rank that was not analysed gives nothing, whatever its zeroes say */
	quiet(&rep, 1);
	memset(&rep.ranks[0].gpu, 0, sizeof(rep.ranks[0].gpu));
	rep.ranks[0].analysed = rep.ranks[0].has_phases = rep.ranks[0].has_throughput = 0;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);

	/* a CPU-only trace: no GPU figures at all */
	quiet(&rep, 1);
	memset(&rep.ranks[0].gpu, 0, sizeof(rep.ranks[0].gpu));
	rep.ranks[0].gpu.utilization = NAN;
	rep.ranks[0].gpu.comm_compute_overlap = NAN;
	rep.ranks[0].nr_kernels = 0;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_utilization(void)
{
	struct report rep;
	const struct report_suggestion *s;

	quiet(&rep, 1);
	rep.ranks[0].gpu.utilization = 0.6;
	CHECK_EQ_INT(run(&rep), 0);

	rep.ranks[0].gpu.utilization = 0.5999;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "low-gpu-utilization");
	CHECK(s && s->severity == SEV_MEDIUM && s->rank == 0);
	CHECK(s && strcmp(s->metric, "gpu.utilization") == 0);
	CHECK(s && s->value == 0.5999 && s->threshold == 0.6);
	CHECKF(has(s, "60.0%"), "%s", s ? s->message : "");

	rep.ranks[0].gpu.utilization = 0.4;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(rep.suggestions[0].severity == SEV_MEDIUM);

	rep.ranks[0].gpu.utilization = 0.3999;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "low-gpu-utilization");
	CHECK(s && s->severity == SEV_HIGH && s->threshold == 0.4);

	/* matched collectives: the effective utilization is judged, busy is not */
	rep.ranks[0].gpu.utilization = 0.9;
	rep.ranks[0].gpu.has_wait = 1;
	rep.ranks[0].gpu.comm_wait_ns = 300 * MS;
	rep.ranks[0].gpu.effective_utilization = 0.6;
	CHECK_EQ_INT(run(&rep), 0);
	rep.ranks[0].gpu.effective_utilization = 0.5999;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "low-gpu-utilization");
	CHECK(s && s->severity == SEV_MEDIUM && s->value == 0.5999 && s->threshold == 0.6);
	CHECK(s && strcmp(s->metric, "gpu.effective_utilization") == 0);
	CHECKF(has(s, "useful work only 60.0%") && has(s, "300 ms waiting") &&
		       has(s, "straggler"),
	       "%s", s ? s->message : "");
	/* a low busy figure alone no longer fires once the wait is known */
	rep.ranks[0].gpu.utilization = 0.3;
	rep.ranks[0].gpu.effective_utilization = 0.6;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_launch_bound(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	/* the median over every kernel (gpu.kernel_median_ns), 10 us */
	r = quiet(&rep, 1);
	r->gpu.kernels = 5;
	r->gpu.kernel_median_ns = 10000;
	r->gpu.idle_ns = 200 * MS;	/* exactly 0.2 of the active span */
	CHECK_EQ_INT(run(&rep), 0);

	r->gpu.idle_ns = 200 * MS + 1;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "launch-bound");
	CHECK(s && s->severity == SEV_HIGH && s->rank == 0);
	CHECK(s && strcmp(s->metric, "gpu.kernel_median_ns") == 0);
	CHECK(s && s->value == 10000 && s->threshold == 20000 && s->impact_ns == 200 * MS + 1);
	CHECKF(has(s, "10.0 us") && has(s, "CUDA graphs") && has(s, "reduce-overhead"), "%s",
	       s ? s->message : "");

	/* exactly 20 us is no hit, 1 ns less is */
	r->gpu.idle_ns = 300 * MS;
	r->gpu.kernel_median_ns = 20000;
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.kernel_median_ns = 19999;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(find(&rep, "launch-bound") && find(&rep, "launch-bound")->value == 19999);

	/* an older report without the median: kernel_time / kernels */
	r->gpu.kernel_median_ns = INT64_MIN;
	r->gpu.kernels = 1000;
	r->gpu.kernel_time_ns = 20 * MS;	/* 20 us each */
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.kernel_time_ns = 20 * MS - 1000;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(find(&rep, "launch-bound") && find(&rep, "launch-bound")->value == 19999);

	/* short kernels but a busy GPU: not launch-bound */
	r->gpu.idle_ns = 100 * MS;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_comm(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->gpu.comm_ns = 180 * MS;		/* 0.2 of busy */
	r->gpu.comm_compute_overlap = 0.1;
	CHECK_EQ_INT(run(&rep), 0);

	r->gpu.comm_ns = 180 * MS + 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-heavy-low-overlap");
	CHECK(s && s->severity == SEV_HIGH && strcmp(s->metric, "gpu.comm_share") == 0);
	CHECK_NEAR(s ? s->value : 0, (180e6 + 1000) / 900e6, 1e-15);
	CHECK(s && s->threshold == 0.2);
	CHECKF(has(s, "10.0%") && has(s, "all-to-all"), "%s", s ? s->message : "");

	r->gpu.comm_compute_overlap = 0.5;
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.comm_compute_overlap = 0.4999;
	CHECK_EQ_INT(run(&rep), 1);
	r->gpu.comm_compute_overlap = NAN;
	CHECK_EQ_INT(run(&rep), 0);

	/*
	 * matched collectives: transfer / (busy - wait).  400 ms of comm of
	 * which 300 ms waiting: 120 ms transfer of 600 ms is exactly 0.2.
	 */
	r->gpu.comm_ns = 400 * MS;
	r->gpu.comm_compute_overlap = 0.1;
	r->gpu.has_wait = 1;
	r->gpu.effective_utilization = 0.6;
	r->gpu.comm_wait_ns = 300 * MS;
	r->gpu.comm_transfer_ns = 120 * MS;
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.comm_transfer_ns = 120 * MS + 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-heavy-low-overlap");
	CHECK_NEAR(s ? s->value : 0, (120e6 + 1000) / 600e6, 1e-15);
	CHECKF(has(s, "120 ms of transfer"), "%s", s ? s->details : "");
	CHECKF(has(s, "NVLink") && has(s, "NCCL") && has(s, "GPU busy"), "%s",
	       s ? s->details : "");
	/* each vendor's words, and only theirs (vendor_words.h) */
	r->device.vendor = "ascend";
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-heavy-low-overlap");
	CHECKF(has(s, "HCCS") && has(s, "HCCL") && has(s, "NPU busy") && !has(s, "NVLink") &&
		       !has(s, "NCCL") && !has(s, "GPU"),
	       "%s %s", s ? s->message : "", s ? s->details : "");
	r->device.vendor = "amd";
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-heavy-low-overlap");
	CHECKF(has(s, "xGMI") && has(s, "RCCL") && !has(s, "NVLink"), "%s", s ? s->details : "");
	report_release(&rep);
}

/*
 * comm-wait: the rank's own HCCL tasks show it waiting; quiet at its
 * thresholds, where the wait came from matching, and on a matched rank.
 */
static void test_comm_wait(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->device.vendor = "ascend";
	r->gpu.comm_ns = 100 * MS;
	r->gpu.has_wait = 1;
	r->gpu.wait_from_tasks = 1;
	r->gpu.effective_utilization = 0.9;
	r->gpu.comm_wait_ns = 50 * MS;		/* exactly half of comm: quiet */
	r->gpu.comm_transfer_ns = 50 * MS;
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.comm_wait_ns = 50 * MS + 1000;
	r->gpu.comm_transfer_ns = 50 * MS - 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-wait");
	CHECK(s && !strcmp(s->metric, "gpu.comm_wait_share"));
	CHECKF(has(s, "Rank 0 waits 50.0 ms inside HCCL collectives") && has(s, "vanalyze DIR") &&
		       !has(s, "NVLink") && !has(s, "NCCL") && !has(s, "CUDA"),
	       "%s %s", s ? s->message : "", s ? s->details : "");
	CHECK_NEAR(s ? s->impact_ns : 0, 50e6 + 1000, 1e-6);
	/* the wait split: idle outweighs waiting for peers, and the words follow it */
	r->gpu.comm_sync_ns = 10 * MS;
	r->gpu.comm_idle_ns = 40 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-wait");
	CHECKF(s && has(s, "Rank 0 sits idle 40.0 ms inside HCCL collectives, neither moving data "
			   "nor waiting for a peer (40.0% of its communication time); 10.0 ms "
			   "waits for its peers") && !has(s, "collectives for its peers") &&
		       has(s, "The peers were on time"),
	       "%s %s", s ? s->message : "", s ? s->details : "");
	r->gpu.comm_sync_ns = 40 * MS;		/* synchronisation dominates: a late peer */
	r->gpu.comm_idle_ns = 10 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-wait");
	CHECKF(s && has(s, "Rank 0 waits 50.0 ms inside HCCL collectives for its peers"), "%s",
	       s ? s->message : "");
	/* matched with other ranks, idle still outweighs waiting: no straggler's, a finding */
	r->gpu.comm_sync_ns = 10 * MS;
	r->gpu.comm_idle_ns = 40 * MS;
	r->has_clock = 1;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "comm-wait");
	CHECK(s && s->impact_ns == 40 * MS);
	r->has_clock = 0;
	r->gpu.comm_sync_ns = r->gpu.comm_idle_ns = 0;
	/* a small wait against the span (5 %): quiet */
	r->gpu.comm_ns = 50 * MS;
	r->gpu.comm_wait_ns = 50 * MS;
	r->gpu.comm_transfer_ns = 0;
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.comm_ns = r->gpu.comm_wait_ns = 50 * MS + 1000;
	CHECK_EQ_INT(run(&rep), 1);
	/* matched with other ranks: the straggler rule speaks */
	r->has_clock = 1;
	CHECK_EQ_INT(run(&rep), 0);
	r->has_clock = 0;
	/* a wait from matching alone is not the rank's own measure */
	r->gpu.wait_from_tasks = 0;
	run(&rep);
	CHECK(!find(&rep, "comm-wait"));
	report_release(&rep);
}

/* Severity follows the time at stake: capped by its share, never above a larger finding's. */
static void test_severity(void)
{
	struct report rep;
	struct report_rank *r;

	r = quiet(&rep, 1);
	r->gpu.comm_ns = 180 * MS + 1000;	/* comm-heavy: high, 1.8e-4 of the span at stake */
	r->gpu.comm_compute_overlap = 0.1;
	r->gpu.comm_transfer_ns = -1;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(rep.suggestions[0].severity == SEV_HIGH && rep.suggestions[0].impact_share >= 0.10);
	r->span_ns = 100000 * MS;	/* the same time at stake, 0.16 % of a 100 s span: low */
	CHECK_EQ_INT(run(&rep), 1);
	CHECKF(rep.suggestions[0].severity == SEV_LOW, "severity %d at %.4f of the span",
	       rep.suggestions[0].severity, rep.suggestions[0].impact_share);
	r->span_ns = 5000 * MS;		/* 3.2 %: medium */
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(rep.suggestions[0].severity == SEV_MEDIUM);
	for (size_t i = 1; i < rep.nr_suggestions; i++)
		if (rep.suggestions[i].impact_ns >= 0 && rep.suggestions[i - 1].impact_ns >= 0)
			CHECK(rep.suggestions[i].severity <= rep.suggestions[i - 1].severity);
	report_release(&rep);
}

static void test_stragglers(void)
{
	struct report rep;
	struct report_rank *rk;
	const struct report_suggestion *s;

	/* by hand: two stragglers by steps and comm: one finding, naming both */
	quiet(&rep, 4);
	rep.stragglers = zalloc(&rep, 2 * sizeof(*rep.stragglers));
	rep.nr_stragglers = 2;
	rep.stragglers[0] = (struct report_straggler){ .rank = 1, .metric = "gpu.comm_ns",
						       .value = 40 * MS, .median = 100 * MS,
						       .excess = -0.6 };
	rep.stragglers[1] = (struct report_straggler){ .rank = 2, .metric = "steps.median_ns",
						       .value = 131 * MS, .median = 100 * MS,
						       .excess = 0.31 };
	CHECK_EQ_INT(run(&rep), 1);
	CHECK_EQ_INT(count_id(&rep, "straggler"), 1);
	s = &rep.suggestions[0];
	CHECK(s->rank == INT64_MIN && s->nr_ranks == 2 && s->ranks[0] == 1 && s->ranks[1] == 2);
	CHECKF(s->ranks_text && !strcmp(s->ranks_text, "ranks 1, 2"), "%s", s->ranks_text);
	/* the worst is the one with more time at stake: 60 ms below the median */
	CHECK(s->worst_rank == 1 && s->impact_ns == 60 * MS &&
	      strcmp(s->metric, "gpu.comm_ns") == 0);
	CHECKF(has(s, "Ranks 1, 2 spend 40.0 ms in communication where the median rank spends "
		      "100 ms: the others wait for them") && has(s, "throttling"),
	       "%s", s->message);
	report_release(&rep);

	/* from the collectives rule: the rank the others wait for, and who waits */
	rk = quiet(&rep, 4);
	for (int i = 0; i < 4; i++) {
		rk[i].gpu.has_wait = 1;
		rk[i].gpu.effective_utilization = 0.8;
		rk[i].gpu.comm_ns = 100 * MS;
		rk[i].gpu.comm_wait_ns = i == 3 ? 0 : (20 + 10 * i) * MS;
		rk[i].gpu.comm_sync_ns = rk[i].gpu.comm_wait_ns;	/* as matching gives */
	}
	rep.stragglers = zalloc(&rep, sizeof(*rep.stragglers));
	rep.nr_stragglers = 1;
	rep.stragglers[0] = (struct report_straggler){ .rank = 3,
						       .metric = "comm.wait_imposed_ns",
						       .value = 137 * MS, .median = MS,
						       .excess = 136, .by_wait = 1,
						       .last_share = 0.75,
						       .delays.name = "all_to_all" };
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "straggler");
	CHECK(s && s->rank == 3 && strcmp(s->metric, "comm.wait_imposed_ns") == 0);
	/* ranks 0-2 wait 20+30+40 of 300 ms: 30 %; the longest wait, 40 ms, is at stake */
	CHECKF(has(s, "Rank 3 holds the others back: it arrives last at 75.0% of its "
		      "collectives, and ranks 0\xe2\x80\x93" "2 wait for it 137 ms in all") &&
		       has(s, "Rank 2 waits longest (40.0 ms inside collectives)") &&
		       has(s, "spend 30.0% of their communication time waiting") &&
		       has(s, "Most of the wait is at all_to_all") && has(s, "throttling"),
	       "%s", s ? s->message : "");
	CHECK(s && s->impact_ns == 40 * MS && s->impact_share == 0.04);
	report_release(&rep);

	/* from crossrank: rank 2's steps are 20 % slower than the median */
	rk = quiet(&rep, 4);
	rk[2].steps.d.median_ns = 120 * MS;
	CHECK_EQ_INT(crossrank_compute(&rep), 0);
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "straggler");
	CHECK(s && s->rank == 2);
	report_release(&rep);
}

/* An incomplete rank: one finding, and no other rule sees it. */
static void test_incomplete(void)
{
	struct report rep;
	struct report_rank *rk;
	const struct report_suggestion *s;

	rk = quiet(&rep, 8);
	rk[7].complete = 0;
	rk[7].gpu.utilization = 0.1;	/* would fire, were it complete */
	rk[6].complete = 0;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "incomplete-ranks");
	CHECK(s && s->nr_ranks == 2 && s->impact_ns == INT64_MIN);
	CHECKF(s && !strcmp(s->ranks_text, "ranks 6, 7"), "%s", s ? s->ranks_text : "");
	CHECK(!find(&rep, "low-gpu-utilization"));
	report_release(&rep);
}

/*
 * The interactions the rule table declares: low-gpu-utilization yields to
 * launch-bound on the same rank only, and the idle-* rules to
 * profile-window as it judges at its default, whatever --threshold says.
 */
static void test_interactions(void)
{
	struct suggest_opts o;
	struct report rep;
	struct report_rank *rk;
	const struct report_suggestion *s;

	/* both half idle; rank 0 with short kernels, launch-bound */
	rk = quiet(&rep, 2);
	for (int i = 0; i < 2; i++) {
		rk[i].gpu.idle_ns = 500 * MS;
		rk[i].gpu.busy_ns = 500 * MS;
		rk[i].gpu.utilization = 0.5;
	}
	rk[0].gpu.kernel_median_ns = 10 * 1000;
	CHECK_EQ_INT(run(&rep), 2);
	s = find(&rep, "launch-bound");
	CHECK(s && s->nr_ranks == 1 && s->rank == 0);
	s = find(&rep, "low-gpu-utilization");
	CHECK(s && s->nr_ranks == 1 && s->rank == 1);
	report_release(&rep);

	/* a trace 30 % start-up: profile-window, and no idle-* */
	rk = quiet(&rep, 1);
	rk[0].idle.window = "trace";
	rk[0].idle.in.window_ns = 1000 * MS;
	rk[0].idle.in.by_cause[IDLE_INIT] = 300 * MS;
	rk[0].idle.in.by_cause[IDLE_SYNC] = 100 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(find(&rep, "profile-window"));
	/* judged at the default: a higher one_time_share quiets profile-window, not the yield */
	suggest_opts_init(&o);
	CHECK_EQ_INT(suggest_set(&o, "one_time_share", 0.5), 0);
	CHECK_EQ_INT(suggest_compute(&rep, &o), 0);
	CHECK_EQ_INT(rep.nr_suggestions, 0);
	/* below the default share, the causes speak */
	rk[0].idle.in.by_cause[IDLE_INIT] = 200 * MS;
	CHECK_EQ_INT(run(&rep), 2);
	CHECK(find(&rep, "idle-init") && find(&rep, "idle-sync") && !find(&rep, "profile-window"));
	report_release(&rep);
}

/* The workload decides the wording; the diffusion rules need a diffusion pipeline. */
static void test_workload(void)
{
	struct report rep;
	struct report_rank *rk;
	const struct report_suggestion *s;

	rk = quiet(&rep, 1);
	CHECK_EQ_INT(run(&rep), 0);
	CHECK(rep.workload && !strcmp(rep.workload, "diffusion"));
	report_release(&rep);

	/* an LLM-serving "decode" phase is no VAE */
	rk = quiet(&rep, 1);
	rk[0].phases[0].name = rk[0].phases[0].path = "step[DECODE bs=32]";
	rk[0].phases[1].name = "decode";
	rk[0].phases[1].path = "step[DECODE bs=32]/decode";
	rk[0].gpu.kernel_median_ns = 5 * 1000;
	rk[0].gpu.idle_ns = 500 * MS;
	rk[0].gpu.kernels = 555;
	rk[0].gpu.graph_kernels = 544;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(!strcmp(rep.workload, "llm-serving"));
	CHECK(!find(&rep, "vae-decode-dominant"));
	s = find(&rep, "launch-bound");
	CHECKF(s && has(s, "544 of the 555") && !has(s, "Capture") && !has(s, "denois"), "%s",
	       s ? s->details : "");
	report_release(&rep);

	/* training: backward operators; no diffusion words */
	rk = quiet(&rep, 1);
	rk[0].cpu_ops[0].name = "autograd::engine::evaluate_function: AddmmBackward0";
	rk[0].gpu.kernel_median_ns = 5 * 1000;
	rk[0].gpu.idle_ns = 500 * MS;
	rk[0].steps.nr_durations = 40;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(!strcmp(rep.workload, "training"));
	s = find(&rep, "launch-bound");
	CHECKF(s && has(s, "Capture the training step") && !has(s, "RoPE"), "%s",
	       s ? s->details : "");
	report_release(&rep);
}

static void test_vae(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->nr_phases = 4;
	r->phases[1].share = 0.5;
	r->phases[2] = (struct report_phase){ .name = "VAE_Decode", .path = "generate/VAE_Decode",
					      .depth = 1,
					      .d = { 1, 300 * MS, 300 * MS, 300 * MS, 300 * MS,
						300 * MS, 0 },
					      .share = 0.3 };
	r->phases[3] = (struct report_phase){ .name = "decode_chunk",
					      .path = "generate/VAE_Decode/decode_chunk",
					      .depth = 2,
					      .d = { 3, 250 * MS, 80 * MS, 90 * MS, 83 * MS,
						80 * MS, 4 },
					      .share = 0.25 };
	CHECK_EQ_INT(run(&rep), 0);

	r->phases[2].share = 0.3001;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "vae-decode-dominant");
	CHECK(s && s->severity == SEV_MEDIUM && s->value == 0.3001 && s->threshold == 0.3);
	CHECK(s && strcmp(s->metric, "phase:generate/VAE_Decode.share") == 0);
	CHECKF(has(s, "VAE phase 'VAE_Decode'") && has(s, "300 ms") && has(s, "30.0%") &&
		       has(s, "tiles") &&
		       has(s, "separate stream"),
	       "%s", s ? s->message : "");

	/* the inner phase alone, past the threshold: it is the one named */
	r->phases[2].share = 0.2;
	r->phases[3].share = 0.31;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "vae-decode-dominant");
	CHECK(s && strcmp(s->metric, "phase:generate/VAE_Decode/decode_chunk.share") == 0);

	/* a name from the trace with bytes that are not plain ASCII */
	r->phases[3].name = "decode\x01\xc3\xa9\"x";
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "vae-decode-dominant");
	CHECKF(has(s, "'decode???\"x'"), "%s", s ? s->message : "");
	report_release(&rep);
}

static void test_text(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;
	static const char *const names[] = { "encode_prompt", "Text_Encoder", "PRE_DENOISING" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		r = quiet(&rep, 1);
		r->nr_phases = 3;
		r->phases[2] = (struct report_phase){ .name = names[i], .path = names[i],
					      .depth = 0,
					      .d = { 2, 150 * MS, 75 * MS, 70 * MS, 80 * MS,
							75 * MS, 5 * MS },
					      .share = 0.15 };
		CHECK_EQ_INT(run(&rep), 0);
		r->phases[2].share = 0.1501;
		CHECK_EQ_INT(run(&rep), 1);
		s = find(&rep, "text-encoding-dominant");
		CHECK(s && s->severity == SEV_MEDIUM && s->threshold == 0.15);
		CHECKF(has(s, "15.0%") && has(s, "Cache prompt embeddings") && has(s, names[i]),
		       "%s", s ? s->message : "");
		report_release(&rep);
	}
}

static void test_attention(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->nr_kernels = 3;
	r->kernels[0] = (struct report_kernel){ .name = "flash_fwd", .category = "attention",
						.d = { 10, 300 * MS, 30 * MS, 30 * MS, 30 * MS,
						       30 * MS, 0 } };
	r->kernels[1] = (struct report_kernel){ .name = "fmha_bwd", .category = "attention",
						.d = { 10, 100 * MS, 10 * MS, 10 * MS, 10 * MS,
						       10 * MS, 0 } };
	r->kernels[2] = (struct report_kernel){ .name = "gemm", .category = "gemm",
						.d = { 10, 400 * MS, 40 * MS, 40 * MS, 40 * MS,
						       40 * MS, 0 } };
	r->gpu.kernel_time_ns = 800 * MS;	/* attention: 400 of 800 */
	CHECK_EQ_INT(run(&rep), 0);

	r->kernels[1].d.total_ns = 101 * MS;
	r->gpu.kernel_time_ns = 801 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "attention-dominant");
	CHECK(s && s->severity == SEV_MEDIUM && strcmp(s->metric, "kernels.attention.share") == 0);
	CHECK(s && s->value == 401.0 / 801.0 && s->threshold == 0.5);
	CHECKF(has(s, "50.1%") && has(s, "sliding-window") && has(s, "FP8") &&
		       has(s, "FlashAttention-3"),
	       "%s", s ? s->message : "");
	report_release(&rep);
}

static void test_steps(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->steps.nr_durations = 30;
	for (int k = 0; k < 64; k++)
		r->steps.durations_ns[k] = 100 * MS;
	CHECK_EQ_INT(run(&rep), 0);

	r->steps.nr_durations = 31;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "many-denoising-steps");
	CHECK(s && s->severity == SEV_MEDIUM && s->value == 31 && s->threshold == 30);
	CHECK(s && strcmp(s->metric, "steps.count") == 0);
	CHECKF(has(s, "31 denoising steps") && has(s, "distill") && has(s, "TeaCache"), "%s",
	       s ? s->message : "");
	report_release(&rep);
}

static void test_memcpy(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->gpu.memory_ns = 90 * MS;		/* 0.1 of busy */
	CHECK_EQ_INT(run(&rep), 0);
	r->gpu.memory_ns = 90 * MS + 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "memcpy-heavy");
	CHECK(s && s->severity == SEV_MEDIUM && strcmp(s->metric, "gpu.memory_share") == 0);
	CHECK(s && s->threshold == 0.1);
	CHECKF(has(s, "pinned") && has(s, "non_blocking") && has(s, "90.0 ms"), "%s",
	       s ? s->message : "");
	report_release(&rep);
}

static void test_roof(void)
{
	struct report rep;
	struct report_rank *r;
	struct report_perf_family *g;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	g = &r->perf.families[0];	/* gemm */
	CHECK_EQ_STR(report_perf_family_name(0), "gemm");
	*g = (struct report_perf_family){ 160 * MS, 0.25, "aten::mm", 0.2 };
	CHECK_EQ_INT(run(&rep), 0);		/* 160 of 800 ms: 0.2 of kernel time */
	g->time_ns = 160 * MS + 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "below-roof");
	CHECK(s && s->severity == SEV_MEDIUM && strcmp(s->metric, "perf.roof_share") == 0);
	CHECK(s && s->threshold == 0.3 && s->value == 0.25);
	CHECK_NEAR(s ? s->impact_ns : 0, 0.75 * (160 * MS + 1000), 1);
	CHECKF(has(s, "GEMM") && has(s, "aten::mm") && has(s, "bf16") && has(s, "25.0%") &&
	       has(s, "20.0%"), "%s", s ? s->message : "");
	g->roof_share = 0.3;			/* on the threshold: quiet */
	CHECK_EQ_INT(run(&rep), 0);
	g->time_ns = 0;				/* no row with a roof share */
	g->roof_share = 0.1;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_host_sync(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	/* item encloses _local_scalar_dense encloses the stream sync: 50 ms, not 143 */
	r = quiet(&rep, 1);
	r->nr_cpu_ops = 4;
	r->cpu_ops[1] = (struct report_cpu_op){ "aten::item", 50, 50 * MS, MS, -1, -1, 0 };
	r->cpu_ops[2] = (struct report_cpu_op){ "aten::_local_scalar_dense", 50, 48 * MS, MS,
						  -1, -1, 0 };
	r->cpu_ops[3] = (struct report_cpu_op){ "cudaStreamSynchronize", 50, 45 * MS, 45 * MS,
						  -1, -1, 0 };
	CHECK_EQ_INT(run(&rep), 0);

	r->cpu_ops[1].total_ns = 50 * MS + 1;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "host-sync");
	CHECK(s && s->severity == SEV_MEDIUM && strcmp(s->metric, "cpu_ops.sync_share") == 0);
	CHECK(s && s->value == (50e6 + 1) / 1e9 && s->threshold == 0.05);
	CHECKF(has(s, "aten::item") && has(s, ".item()") && has(s, "events"), "%s",
	       s ? s->message : "");

	/* runtime calls add up: 30 + 30 ms of sync against 40 ms in aten */
	r->cpu_ops[1] = (struct report_cpu_op){ "aten::item", 50, 40 * MS, MS, -1, -1, 0 };
	r->cpu_ops[2] = (struct report_cpu_op){ "cudaDeviceSynchronize", 5, 30 * MS, 30 * MS,
						  -1, -1, 0 };
	r->cpu_ops[3] = (struct report_cpu_op){ "cudaStreamSynchronize", 50, 30 * MS, 30 * MS,
						  -1, -1, 0 };
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "host-sync");
	CHECK(s && s->value == 0.06);
	report_release(&rep);
}

static void test_memory(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->memory[1].peak_reserved = 72LL * 1000 * MS;	/* 0.9 of 80 GB */
	CHECK_EQ_INT(run(&rep), 0);
	r->memory[1].peak_reserved += 1000;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "memory-near-capacity");
	CHECK(s && s->severity == SEV_MEDIUM && s->threshold == 0.9 && s->rank == 0);
	CHECK(s && strcmp(s->metric, "memory:0.reserved_share") == 0);
	CHECKF(has(s, "device 0") && has(s, "74.5 GiB") && has(s, "expandable_segments") &&
		       has(s, "VAE tiling"),
	       "%s", s ? s->message : "");

	/* capacity unknown: nothing, however full */
	r->memory[1].capacity = INT64_MIN;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_first_step(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->steps.durations_ns[0] = 150 * MS;	/* 1.5 x the median of the others */
	CHECK_EQ_INT(run(&rep), 0);
	r->steps.durations_ns[0] = 150 * MS + 1;
	r->steps.warmup = 1;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "slow-first-step");
	CHECK(s && s->severity == SEV_LOW && s->threshold == 1.5 && s->value > 1.5);
	CHECK(s && strcmp(s->metric, "steps.first_ratio") == 0);
	CHECKF(has(s, "150 ms") && has(s, "100 ms") && has(s, "Warm up"), "%s",
	       s ? s->message : "");

	/* more than twice the threshold: medium */
	r->steps.durations_ns[0] = 301 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(rep.suggestions[0].severity == SEV_MEDIUM);

	/* an even number of others: the median is the mean of the middle two, 110 ms */
	r->steps.nr_durations = 3;
	r->steps.durations_ns[1] = 100 * MS;
	r->steps.durations_ns[2] = 120 * MS;
	r->steps.durations_ns[0] = 165 * MS;
	CHECK_EQ_INT(run(&rep), 0);
	r->steps.durations_ns[0] = 166 * MS;
	CHECK_EQ_INT(run(&rep), 1);

	/* one step: nothing to compare it with */
	r->steps.nr_durations = 1;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_fps(void)
{
	struct report rep;
	struct report_rank *r;
	const struct report_suggestion *s;

	r = quiet(&rep, 1);
	r->throughput.target_fps = 16;
	r->throughput.fps = 16;
	r->throughput.realtime_factor = 1;
	CHECK_EQ_INT(run(&rep), 0);

	r->throughput.fps = 8;
	r->throughput.realtime_factor = 0.5;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "below-target-fps");
	CHECK(s && s->severity == SEV_HIGH && s->value == 0.5 && s->threshold == 1);
	CHECK(s && strcmp(s->metric, "throughput.realtime_factor") == 0);
	CHECKF(has(s, "8 fps") && has(s, "16 fps") && has(s, "0.500x real time") &&
		       has(s, "'denoise'") && has(s, "gemm kernels"),
	       "%s", s ? s->message : "");

	/* without a target, no verdict */
	r->throughput.target_fps = 0;
	r->throughput.realtime_factor = NAN;
	CHECK_EQ_INT(run(&rep), 0);
	report_release(&rep);
}

static void test_collapse(void)
{
	struct report rep;
	struct report_rank *rk;
	const struct report_suggestion *s;

	/* every rank fires: one finding, all ranks, the worst evidence and severity */
	rk = quiet(&rep, 4);
	for (int i = 0; i < 4; i++)
		rk[i].gpu.utilization = 0.5;
	rk[2].gpu.utilization = 0.3;
	rk[2].gpu.idle_ns = 700 * MS;
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "low-gpu-utilization");
	CHECK(s && s->rank == INT64_MIN && s->value == 0.3 && s->severity == SEV_HIGH &&
	      s->threshold == 0.4 && s->worst_rank == 2 && s->impact_ns == 700 * MS &&
	      s->impact_share == 0.7);
	CHECKF(has(s, "All 4 ranks:") && !strcmp(s->ranks_text, "all 4 ranks"), "%s",
	       s ? s->message : "");

	/* rules that fire above the threshold keep the highest value */
	for (int i = 0; i < 4; i++)
		rk[i].gpu.utilization = 0.9;
	for (int i = 0; i < 4; i++)
		rk[i].steps.nr_durations = 40 + (size_t)i * (i == 1 ? 5 : 1);
	CHECK_EQ_INT(run(&rep), 1);
	s = find(&rep, "many-denoising-steps");
	CHECK(s && s->rank == INT64_MIN && s->value == 45 && s->worst_rank == 1);

	/* three ranks of four: still one finding, the ranks grouped */
	rk[3].steps.nr_durations = 4;
	CHECK_EQ_INT(run(&rep), 1);
	s = &rep.suggestions[0];
	CHECKF(!strcmp(s->ranks_text, "ranks 0\xe2\x80\x93" "2") && s->nr_ranks == 3, "%s",
	       s->ranks_text);
	CHECK(has(s, "Ranks 0\xe2\x80\x93" "2:"));
	report_release(&rep);

	/* one rank: the rank is named */
	rk = quiet(&rep, 1);
	rk[0].rank = 7;
	rk[0].gpu.utilization = 0.5;
	CHECK_EQ_INT(run(&rep), 1);
	CHECK(rep.suggestions[0].rank == 7 && has(&rep.suggestions[0], "Rank 7:"));
	report_release(&rep);
}

/* Findings come by time at stake; at most one per rule. */
static void test_order(void)
{
	struct report rep;
	struct report_rank *rk;
	static const char *const want[] = {
		"launch-bound",		/* 500 ms idle */
		"memcpy-heavy",		/* 200 ms */
		"comm-heavy-low-overlap",	/* 300 ms * 0.8 = 240 ms? no: see below */
		"below-target-fps",
		"slow-first-step",
	};

	(void)want;
	rk = quiet(&rep, 2);
	rk[0].steps.durations_ns[0] = 200 * MS;
	rk[1].gpu.memory_ns = 200 * MS;
	rk[0].gpu.memory_ns = 100 * MS;
	rk[0].throughput.target_fps = 30;
	rk[0].throughput.realtime_factor = 0.9;
	rk[0].gpu.comm_ns = 300 * MS;
	rk[0].gpu.comm_compute_overlap = 0.2;
	rk[0].gpu.utilization = 0.55;
	rk[1].gpu.kernel_median_ns = 1000;
	rk[1].gpu.idle_ns = 500 * MS;
	CHECK(run(&rep) >= 5);
	for (size_t i = 0; i < rep.nr_suggestions; i++)
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(rep.suggestions[i].id, rep.suggestions[k].id) != 0);
	for (size_t i = 1; i < rep.nr_suggestions; i++) {
		int64_t a = rep.suggestions[i - 1].impact_ns, b = rep.suggestions[i].impact_ns;

		CHECKF(b < 0 || a >= b, "%zu: %lld before %lld", i, (long long)a, (long long)b);
	}
	CHECK(!strcmp(rep.suggestions[0].id, "launch-bound") && rep.suggestions[0].rank == 1 &&
	      rep.suggestions[0].impact_ns == 500 * MS);

	/* a second run gives the same, not twice as many */
	{
		size_t n = rep.nr_suggestions;

		CHECK_EQ_INT(run(&rep), n);
	}
	report_release(&rep);
}

static void test_opts(void)
{
	struct suggest_opts o, d;
	struct report rep;
	struct report_rank *r;
	double v;

	suggest_opts_init(&o);
	suggest_opts_init(&d);
	/*
	 * the table: 40 thresholds of 27 rules (15 of the older 13, one of
	 * profile-window, two of each of the 10 idle-* rules, two of comm-wait,
	 * two of below-roof), each named once, at its default
	 */
	CHECK_EQ_INT(suggest_nr_thresholds(), 40);
	CHECK(suggest_threshold_at(40, NULL) == NULL);
	for (size_t i = 0; i < suggest_nr_thresholds(); i++) {
		const char *rule = NULL;
		const struct suggest_threshold *t = suggest_threshold_at(i, &rule);

		CHECK(t && t->name && t->unit && t->meaning && rule);
		CHECK_EQ_INT(suggest_get(&d, t->name, &v), 0);
		CHECKF(v == t->def, "%s", t->name);
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(t->name, suggest_threshold_at(k, NULL)->name) != 0);
		{
			int known = 0;

			for (size_t k = 0; k < suggest_nr_rules; k++)
				known |= strcmp(rule, suggest_rule_id(k)) == 0;
			CHECKF(known, "%s", rule);
		}
	}
	CHECK_EQ_INT(suggest_nr_rules, 27);

	CHECK_EQ_INT(suggest_set(&o, "utilization", 0.7), 0);
	CHECK(suggest_get(&o, "utilization", &v) == 0 && v == 0.7);
	CHECK_EQ_INT(suggest_set(&o, "kernel_us", 50), 0);
	CHECK(suggest_get(&o, "kernel_us", &v) == 0 && v == 50);
	CHECK_EQ_INT(suggest_set(&o, "realtime_factor", 0.5), 0);
	CHECK(suggest_get(&o, "realtime_factor", &v) == 0 && v == 0.5);
	CHECK_EQ_INT(suggest_set(&o, "no_such", 1), -1);
	CHECK_EQ_INT(suggest_set(&o, "", 1), -1);
	CHECK_EQ_INT(suggest_set(&o, "Utilization", 1), -1);
	CHECK_EQ_INT(suggest_set(&o, "utilization", NAN), -1);
	CHECK_EQ_INT(suggest_set(&o, "utilization", INFINITY), -1);
	CHECK(suggest_get(&o, "utilization", &v) == 0 && v == 0.7);
	CHECK_EQ_INT(suggest_get(&o, "no_such", &v), -1);

	/* a threshold set by name changes the verdict */
	r = quiet(&rep, 1);
	r->steps.nr_durations = 40;
	CHECK_EQ_INT(suggest_compute(&rep, &d), 0);
	CHECK_EQ_INT(rep.nr_suggestions, 1);
	CHECK_EQ_INT(suggest_set(&d, "steps", 40), 0);
	CHECK_EQ_INT(suggest_compute(&rep, &d), 0);
	CHECK_EQ_INT(rep.nr_suggestions, 0);
	CHECK_EQ_INT(suggest_set(&d, "steps", 39.5), 0);
	CHECK_EQ_INT(suggest_compute(&rep, &d), 0);
	CHECK_EQ_INT(rep.nr_suggestions, 1);
	CHECK(rep.suggestions[0].threshold == 39.5);
	report_release(&rep);
}

int main(void)
{
	test_quiet();
	test_utilization();
	test_launch_bound();
	test_comm();
	test_comm_wait();
	test_severity();
	test_stragglers();
	test_incomplete();
	test_interactions();
	test_workload();
	test_vae();
	test_text();
	test_attention();
	test_steps();
	test_memcpy();
	test_roof();
	test_host_sync();
	test_memory();
	test_first_step();
	test_fps();
	test_collapse();
	test_order();
	test_opts();
	return check_done("test_suggest");
}
