/*
 * test_scaling: lib/stats/scaling.c on hand-made reports whose every part
 * is known: a run on one rank against four ranks with exposed
 * communication, a late rank, a phase that shrank (a little slower than
 * its ideal share) and one run whole on every rank; the same run twice;
 * weak scaling forced; the threshold of "did not shrink" exactly at and
 * just past its midpoint; a workload that differs.
 */
#include <math.h>

#include "check.h"
#include "scaling.h"

static void phase(struct report *rep, struct report_rank *rk, const char *path, int64_t ns)
{
	struct report_phase *ph;

	if (!rk->phases)
		rk->phases = arena_alloc(&rep->arena, 8 * sizeof(*rk->phases));
	ph = &rk->phases[rk->nr_phases++];
	memset(ph, 0, sizeof(*ph));
	ph->name = ph->path = path;
	ph->d.total_ns = ns;
	ph->gpu_ns = INT64_MIN;
	rk->has_phases = 1;
}

/* A host-only rank of span ns with comm_ns of collectives, wait_ns of them waiting. */
static struct report_rank *rank(struct report *rep, int64_t span, int64_t comm, int64_t wait)
{
	struct report_rank *rk = report_add_rank(rep);

	rk->rank = (int64_t)rep->nr_ranks - 1;
	rk->span_ns = span;
	rk->analysed = 1;
	rk->gpu.comm_ns = comm;
	rk->gpu.has_wait = 1;
	rk->gpu.comm_wait_ns = wait;
	rk->gpu.comm_compute_overlap = NAN;
	rk->steps.nr_durations = 4;
	rk->has_phases = 1;
	report_idle_null(&rk->idle);
	return rk;
}

/* BASE: one rank of 100 ns, A 60 and B 40. */
static void base_run(struct report *b)
{
	struct report_rank *rk;

	report_init(b, "vanalyze");
	rk = rank(b, 100, 0, 0);
	phase(b, rk, "A", 60);
	phase(b, rk, "B", 40);
}

/* NEW: four ranks; A shrank to 15 (19 on rank 3, late), B stayed 40; 5 ns of collectives each. */
static void new_run(struct report *n, int64_t b_ns)
{
	report_init(n, "vanalyze");
	for (int r = 0; r < 4; r++) {
		struct report_rank *rk = rank(n, r == 3 ? 64 : 60, 5, r == 0 ? 2 : 0);

		phase(n, rk, "A", r == 3 ? 19 : 15);
		phase(n, rk, "B", b_ns);
	}
}

static void test_decomposed(void)
{
	struct report b, n, *news[1] = { &n };
	const char *labels[1] = { "new" };
	struct scaling sc;
	const struct scaling_point *p;
	enum scaling_part top[3];
	double sum = 0;

	base_run(&b);
	new_run(&n, 40);
	CHECK(scaling_compute(&sc, &b, "base", news, labels, 1, SCALING_AUTO) == 0);
	p = &sc.points[0];
	CHECK(!sc.weak && !sc.forced);
	CHECK(sc.base_time_ns == 100 && p->time_ns == 64 && p->ranks == 4);
	CHECK(fabs(p->speedup - 100.0 / 64) < 1e-12);
	CHECK(fabs(p->efficiency - 100.0 / 256) < 1e-12);
	CHECK(fabs(p->karp_flatt - (64.0 / 100 - 0.25) / 0.75) < 1e-12);
	CHECK(fabs(p->loss - 156.0 / 256) < 1e-12);
	/* rank 0 waited 2 of its 5 ns: 3 exposed there, 5 on the others */
	CHECK(p->parts_rank_ns[SCALING_COMM] == 18);
	/* the wait, and three ranks done 4 ns before rank 3 */
	CHECK(p->parts_rank_ns[SCALING_LATE] == 2 + 12);
	/* A: 64 rank-ns against 60; B: 160 against 40, run whole on every rank */
	CHECK(p->parts_rank_ns[SCALING_COMPUTE] == 4);
	CHECK(p->parts_rank_ns[SCALING_SERIAL] == 120);
	CHECK(p->parts_rank_ns[SCALING_IDLE] == 0);
	CHECK(p->parts_rank_ns[SCALING_OTHER] == 156 - 18 - 14 - 4 - 120);
	for (int k = 0; k < SCALING_NR_PARTS; k++)
		sum += p->parts_share[k];
	CHECK(fabs(sum - p->loss) < 1e-15);
	CHECK(p->late_rank == 3);
	CHECK(p->nr_phases == 2 && !p->phases[0].not_shrunk && p->phases[1].not_shrunk);
	CHECK(p->replicated == 1);
	CHECK(p->phases[1].ideal_ns == 10 && p->phases[1].new_ns == 40);
	CHECK(fabs(p->phases[0].efficiency - 15.0 / 16) < 1e-12);
	CHECK(scaling_top_parts(p, top) == 3 && top[0] == SCALING_SERIAL &&
	      top[1] == SCALING_COMM && top[2] == SCALING_LATE);
	CHECK(p->nr_mismatch == 0);
	scaling_release(&sc);

	/* weak scaling, as asked: the ideal is 4 x 100 rank-ns, more than spent */
	CHECK(scaling_compute(&sc, &b, "base", news, labels, 1, SCALING_WEAK) == 0);
	p = &sc.points[0];
	CHECK(sc.weak && sc.forced);
	CHECK(fabs(p->efficiency - 100.0 / 64) < 1e-12 && p->loss < 0);
	CHECK(p->parts_rank_ns[SCALING_COMM] == 18);
	/* B: 160 against 4 x 40, not more than its ideal share */
	CHECK(p->parts_rank_ns[SCALING_SERIAL] == 0 && !p->phases[1].not_shrunk);
	scaling_release(&sc);
	report_release(&n);
	report_release(&b);
}

/* The midpoint of B between its ideal share (10) and no split (40) is 25. */
static void test_not_shrunk_threshold(void)
{
	struct report b, n, *news[1] = { &n };
	const char *labels[1] = { "new" };
	struct scaling sc;

	base_run(&b);
	new_run(&n, 25);
	CHECK(scaling_compute(&sc, &b, "base", news, labels, 1, SCALING_STRONG) == 0);
	CHECK(!sc.points[0].phases[1].not_shrunk);
	CHECK(sc.points[0].parts_rank_ns[SCALING_COMPUTE] == 4 + 60);
	scaling_release(&sc);
	report_release(&n);
	new_run(&n, 26);
	CHECK(scaling_compute(&sc, &b, "base", news, labels, 1, SCALING_STRONG) == 0);
	CHECK(sc.points[0].phases[1].not_shrunk);
	CHECK(sc.points[0].parts_rank_ns[SCALING_SERIAL] == 4 * 26 - 40);
	scaling_release(&sc);
	report_release(&n);
	report_release(&b);
}

static void test_same_run(void)
{
	struct report b, n, *news[1] = { &n };
	const char *labels[1] = { "again" };
	struct scaling sc;

	base_run(&b);
	base_run(&n);
	n.ranks[0].steps.nr_durations = 5;	/* another workload */
	CHECK(scaling_compute(&sc, &b, "base", news, labels, 1, SCALING_AUTO) == 0);
	CHECK(sc.points[0].speedup == 1 && sc.points[0].efficiency == 1);
	CHECK(sc.points[0].loss == 0 && isnan(sc.points[0].karp_flatt));
	for (int k = 0; k < SCALING_NR_PARTS; k++)
		CHECK(sc.points[0].parts_rank_ns[k] == 0);
	CHECK(sc.points[0].late_rank == -1);
	CHECK(sc.points[0].nr_mismatch == 1 && !strcmp(sc.points[0].mismatch[0], "steps"));
	scaling_release(&sc);
	report_release(&n);
	report_release(&b);
}

int main(void)
{
	test_decomposed();
	test_not_shrunk_threshold();
	test_same_run();
	return check_done("test_scaling");
}
