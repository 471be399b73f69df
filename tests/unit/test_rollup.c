/*
 * test_rollup: unit tests for lib/stats/rollup.c, the kernels, operators
 * and phases summed over ranks.
 *
 * Ranks are built by hand from lists of instances; each expectation is
 * worked out from the instances themselves (every instance of a name on
 * every rank, pooled), not from the ranks' summaries the roll-up merges.
 */
#include "rollup.h"

#include <math.h>

#include "check.h"

#define CHECK_NEAR(a, b, eps)                                                          \
	CHECKF(fabs((double)(a) - (double)(b)) <= (eps), "got %.17g, want %.17g", (double)(a), \
	       (double)(b))

#define BIG INT64_C(4600000000000000000)	/* 4.6e18 ns: inside sat.h's time limit */

static void *xalloc(struct report *rep, size_t n)
{
	void *p = arena_alloc(&rep->arena, n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	memset(p, 0, n ? n : 1);
	return p;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorted here): the mean of the two middle ones for an even n. */
static double median_of(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/*
 * A kernel row of n instances, as vanalyze writes it: count, total, min,
 * max, mean, population deviation, median; keep of them kept as samples
 * (keep < n: only quantiles, as beyond REPORT_SAMPLES_MAX).
 */
/* rollup_kernel_median(), which must not run out of memory here */
static double kernel_median(const struct rollup *ru, const struct rollup_kernel *k)
{
	double m;

	CHECK(rollup_kernel_median(ru, k, &m) == 0);
	return m;
}

static struct report_kernel kernel(struct report *rep, const char *name, const char *cat,
				   const char *src, const int64_t *inst, size_t n, size_t keep)
{
	struct report_kernel k = { .name = name, .category = cat, .category_source = src };
	int64_t *v = xalloc(rep, n * sizeof(*v));
	double mean, sq = 0;

	memcpy(v, inst, n * sizeof(*v));
	k.d.count = (int64_t)n;
	for (size_t i = 0; i < n; i++)
		k.d.total_ns += v[i];
	mean = (double)k.d.total_ns / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	k.d.avg_ns = mean;
	k.d.stddev_ns = sqrt(sq / (double)n);
	k.d.median_ns = median_of(v, n);
	k.d.min_ns = v[0];
	k.d.max_ns = v[n - 1];
	k.samples.v = v;
	k.samples.n = keep;
	return k;
}

static struct report_rank *ranks(struct report *rep, size_t n)
{
	report_init(rep, "vanalyze");
	rep->ranks = xalloc(rep, n * sizeof(*rep->ranks));
	rep->nr_ranks = n;
	for (size_t i = 0; i < n; i++) {
		rep->ranks[i].rank = (int64_t)i;
		rep->ranks[i].analysed = 1;
		rep->ranks[i].has_phases = 1;
	}
	return rep->ranks;
}

static const struct rollup_kernel *find_kernel(const struct rollup *ru, const char *name)
{
	for (size_t i = 0; i < ru->nr_kernels; i++)
		if (!strcmp(ru->kernels[i].name, name))
			return &ru->kernels[i];
	return NULL;
}

/* The population deviation of every instance of the nl lists l[i] (n[i] each), pooled. */
static double pooled_stddev(const int64_t *const *l, const size_t *n, size_t nl)
{
	double sum = 0, sq = 0, cnt = 0, mean;

	for (size_t i = 0; i < nl; i++)
		for (size_t j = 0; j < n[i]; j++) {
			sum += (double)l[i][j];
			cnt++;
		}
	mean = sum / cnt;
	for (size_t i = 0; i < nl; i++)
		for (size_t j = 0; j < n[i]; j++)
			sq += ((double)l[i][j] - mean) * ((double)l[i][j] - mean);
	return sqrt(sq / cnt);
}

static void test_kernels(void)
{
	static const int64_t g0[] = { 10, 20, 30 }, g1[] = { 40, 50 }, g3[] = { 35, 45, 5, 15 };
	static const int64_t a0[] = { 100 }, b1[] = { 70, 30 }, b3[] = { 60, 40, 10, 90, 50 };
	static const int64_t z1[] = { 7 }, hidden[] = { 1000000000 };
	struct report rep;
	struct report_rank *rk = ranks(&rep, 4);
	struct rollup ru;
	const struct rollup_kernel *k;
	int64_t pool[9];

	/* rank 0: gemm_a, attn and the "other" row of folded kernels (not a name) */
	rk[0].kernels = xalloc(&rep, 3 * sizeof(*rk[0].kernels));
	rk[0].kernels[0] = kernel(&rep, "gemm_a", "gemm", "op", g0, 3, 3);
	rk[0].kernels[1] = kernel(&rep, "attn", "attention", "module", a0, 1, 1);
	rk[0].kernels[2] = kernel(&rep, "(other kernels)", "other", NULL, hidden, 1, 0);
	rk[0].kernels[2].nr_folded = 7;
	rk[0].nr_kernels = 3;
	rk[0].gpu.kernel_time_ns = 1000000160;
	/* rank 1: gemm_a again, under another category (the first rank's stands) */
	rk[1].kernels = xalloc(&rep, 3 * sizeof(*rk[1].kernels));
	rk[1].kernels[0] = kernel(&rep, "beta", "reduce", "name", b1, 2, 2);
	rk[1].kernels[1] = kernel(&rep, "gemm_a", "elementwise", "name", g1, 2, 2);
	rk[1].kernels[2] = kernel(&rep, "zeta", "norm", "name", z1, 1, 1);
	rk[1].nr_kernels = 3;
	rk[1].gpu.kernel_time_ns = 200;
	/* rank 2: not analysed, so none of its kernels or time count */
	rk[2].analysed = 0;
	rk[2].kernels = xalloc(&rep, sizeof(*rk[2].kernels));
	rk[2].kernels[0] = kernel(&rep, "gemm_a", "gemm", "op", hidden, 1, 1);
	rk[2].nr_kernels = 1;
	rk[2].gpu.kernel_time_ns = 1000000000;
	/* rank 3: beta with only 3 of its 5 instances kept as samples */
	rk[3].kernels = xalloc(&rep, 2 * sizeof(*rk[3].kernels));
	rk[3].kernels[0] = kernel(&rep, "beta", "reduce", "name", b3, 5, 3);
	rk[3].kernels[1] = kernel(&rep, "gemm_a", "gemm", "op", g3, 4, 4);
	rk[3].nr_kernels = 2;
	rk[3].gpu.kernel_time_ns = 350;

	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	/* gemm_a 60 + 90 + 100 = 250, beta 100 + 250 = 350, attn 100, zeta 7 */
	CHECK_EQ_INT(ru.nr_kernels, 4);
	CHECK_EQ_INT(ru.kernel_time_ns, 1000000160 + 200 + 350);
	if (ru.nr_kernels == 4) {
		CHECK_EQ_STR(ru.kernels[0].name, "beta");
		CHECK_EQ_STR(ru.kernels[1].name, "gemm_a");
		CHECK_EQ_STR(ru.kernels[2].name, "attn");
		CHECK_EQ_STR(ru.kernels[3].name, "zeta");
	}
	k = find_kernel(&ru, "gemm_a");
	if (CHECK(k != NULL)) {
		const int64_t *l[] = { g0, g1, g3 };
		const size_t n[] = { 3, 2, 4 };

		CHECK_EQ_STR(k->category, "gemm");
		CHECK_EQ_STR(k->category_source, "op");
		CHECK_EQ_INT(k->ranks, 3);
		CHECK_EQ_INT(k->count, 9);
		CHECK_EQ_INT(k->total_ns, 250);
		CHECK_EQ_INT(k->min_ns, 5);
		CHECK_EQ_INT(k->max_ns, 50);
		CHECK_NEAR(k->avg_ns, 250.0 / 9, 1e-9);
		CHECK_NEAR(k->stddev_ns, pooled_stddev(l, n, 3), 1e-9);
		CHECK_NEAR(k->share, 250.0 / 1000000710, 1e-18);
		/* every instance kept on each rank: the pooled median, 30 of 5..50 */
		memcpy(pool, g0, sizeof(g0));
		memcpy(pool + 3, g1, sizeof(g1));
		memcpy(pool + 5, g3, sizeof(g3));
		CHECK_NEAR(kernel_median(&ru, k), median_of(pool, 9), 0);
		CHECK_NEAR(kernel_median(&ru, k), 30, 0);
	}
	k = find_kernel(&ru, "beta");
	if (CHECK(k != NULL)) {
		CHECK_EQ_STR(k->category, "reduce");
		CHECK_EQ_INT(k->count, 7);
		CHECK_EQ_INT(k->total_ns, 350);
		/* rank 3 kept quantiles only: no exact median over the ranks */
		CHECK(isnan(kernel_median(&ru, k)));
	}
	k = find_kernel(&ru, "attn");
	if (CHECK(k != NULL)) {
		/* one rank: its own median; one instance: no deviation */
		CHECK_NEAR(kernel_median(&ru, k), 100, 0);
		CHECK_NEAR(k->stddev_ns, 0, 0);
		CHECK_EQ_INT(k->ranks, 1);
	}
	CHECK(find_kernel(&ru, "(other kernels)") == NULL);
	rollup_release(&ru);
	CHECK_EQ_INT(ru.nr_kernels, 0);
	report_release(&rep);
}

static void test_ops(void)
{
	struct report rep;
	struct report_rank *rk = ranks(&rep, 3);
	struct rollup ru;

	rk[0].cpu_ops = xalloc(&rep, 3 * sizeof(*rk[0].cpu_ops));
	rk[0].cpu_ops[0] = (struct report_cpu_op){ "aten::mm", 2, 500, 300, -1, -1, 0 };
	rk[0].cpu_ops[1] = (struct report_cpu_op){ "aten::add", 4, 40, 40, -1, -1, 0 };
	rk[0].cpu_ops[2] = (struct report_cpu_op){ "(other operators)", 9, 9000, 9000, 9, 9, 3 };
	rk[0].nr_cpu_ops = 3;
	rk[1].cpu_ops = xalloc(&rep, 2 * sizeof(*rk[1].cpu_ops));
	rk[1].cpu_ops[0] = (struct report_cpu_op){ "aten::add", 1, 560, 10, -1, -1, 0 };
	rk[1].cpu_ops[1] = (struct report_cpu_op){ "aten::mm", 1, 100, 50, 70, 20, 0 };
	rk[1].nr_cpu_ops = 2;
	rk[2].cpu_ops = xalloc(&rep, sizeof(*rk[2].cpu_ops));
	rk[2].cpu_ops[0] = (struct report_cpu_op){ "aten::mm", 5, 5, 5, 5, 5, 0 };
	rk[2].nr_cpu_ops = 1;
	rk[2].analysed = 0;	/* not counted */

	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	CHECK_EQ_INT(ru.nr_ops, 2);
	if (ru.nr_ops == 2) {
		/* both total 600: by name */
		CHECK_EQ_STR(ru.ops[0].name, "aten::add");
		CHECK_EQ_INT(ru.ops[0].count, 5);
		CHECK_EQ_INT(ru.ops[0].total_ns, 600);
		CHECK_EQ_INT(ru.ops[0].self_ns, 50);
		CHECK_EQ_INT(ru.ops[0].device_ns, -1);	/* unknown on every rank */
		CHECK_EQ_INT(ru.ops[0].self_device_ns, -1);
		CHECK_EQ_STR(ru.ops[1].name, "aten::mm");
		CHECK_EQ_INT(ru.ops[1].count, 3);
		CHECK_EQ_INT(ru.ops[1].total_ns, 600);
		CHECK_EQ_INT(ru.ops[1].self_ns, 350);
		CHECK_EQ_INT(ru.ops[1].device_ns, 70);	/* the rank that knows it */
		CHECK_EQ_INT(ru.ops[1].self_device_ns, 20);
	}
	rollup_release(&ru);
	report_release(&rep);
}

static struct report_op_perf shape(const char *name, const char *dims, int64_t count,
				   int64_t total_ns, double flops, double tflops)
{
	return (struct report_op_perf){ .name = name, .input_dims = dims, .input_types = "[]",
					.concrete_inputs = "[]", .count = count,
					.total_ns = total_ns, .flops = flops,
					.tflops_median = tflops };
}

static void test_shapes(void)
{
	struct report rep;
	struct report_rank *rk = ranks(&rep, 3);
	struct rollup ru;

	rk[0].ops_perf = xalloc(&rep, 4 * sizeof(*rk[0].ops_perf));
	rk[0].ops_perf[0] = shape("aten::mm", "[[4, 4]]", 2, 100, 1e9, 10);
	rk[0].ops_perf[1] = shape("aten::mm", "[[8, 8]]", 1, 60, 1e9, 5);
	rk[0].ops_perf[2] = shape("aten::add", "[[4]]", 9, 9000, NAN, NAN);	/* no model */
	rk[0].ops_perf[3] = shape("aten::mm", "[[2, 2]]", 1, 120, 1e9, 1);
	rk[0].nr_ops_perf = 4;
	rk[1].ops_perf = xalloc(&rep, 2 * sizeof(*rk[1].ops_perf));
	rk[1].ops_perf[0] = shape("aten::mm", "[[8, 8]]", 2, 60, 1e9, 7);
	rk[1].ops_perf[1] = shape("aten::mm", "[[4, 4]]", 3, 300, 1e9, 30);
	rk[1].nr_ops_perf = 2;
	rk[2].ops_perf = xalloc(&rep, sizeof(*rk[2].ops_perf));
	rk[2].ops_perf[0] = shape("aten::mm", "[[4, 4]]", 1, 50, 1e9, 20);
	rk[2].nr_ops_perf = 1;

	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	CHECK_EQ_INT(ru.nr_shapes, 3);
	CHECK_EQ_INT(ru.modelled_ns, 100 + 60 + 120 + 60 + 300 + 50);
	if (ru.nr_shapes == 3) {
		CHECK_EQ_STR(ru.shapes[0].first->input_dims, "[[4, 4]]");
		CHECK_EQ_INT(ru.shapes[0].ranks, 3);
		CHECK_EQ_INT(ru.shapes[0].count, 6);
		CHECK_EQ_INT(ru.shapes[0].total_ns, 450);
		CHECK_NEAR(ru.shapes[0].tflops, 20, 0);	/* of 10, 30, 20 */
		/* 120 each: by name, then by the inputs */
		CHECK_EQ_STR(ru.shapes[1].first->input_dims, "[[2, 2]]");
		CHECK_NEAR(ru.shapes[1].tflops, 1, 0);
		CHECK_EQ_STR(ru.shapes[2].first->input_dims, "[[8, 8]]");
		CHECK(ru.shapes[2].first == &rk[0].ops_perf[1]);	/* the first rank's row */
		CHECK_EQ_INT(ru.shapes[2].count, 3);
		CHECK_NEAR(ru.shapes[2].tflops, 5, 0);	/* the lower of 5 and 7 */
	}
	rollup_release(&ru);
	report_release(&rep);
}

static void test_phases(void)
{
	struct report rep;
	struct report_rank *rk = ranks(&rep, 3);
	struct rollup ru;

	rk[0].span_ns = 1000;
	rk[0].phases = xalloc(&rep, 2 * sizeof(*rk[0].phases));
	rk[0].phases[0] = (struct report_phase){ .name = "step", .path = "step", .depth = 0,
						 .d = { .count = 1, .total_ns = 900 } };
	rk[0].phases[1] = (struct report_phase){ .name = "fwd", .path = "step/fwd", .depth = 1,
						 .d = { .count = 2, .total_ns = 500 } };
	rk[0].nr_phases = 2;
	rk[1].span_ns = 2000;
	rk[1].phases = xalloc(&rep, 3 * sizeof(*rk[1].phases));
	rk[1].phases[0] = (struct report_phase){ .name = "step", .path = "step", .depth = 0,
						 .d = { .count = 3, .total_ns = 800 } };
	rk[1].phases[1] = (struct report_phase){ .name = "vae", .path = "vae", .depth = 0,
						 .d = { .count = 1, .total_ns = 50 } };
	rk[1].phases[2] = (struct report_phase){ .name = "text", .path = "text", .depth = 0,
						 .d = { .count = 1, .total_ns = 50 } };
	rk[1].nr_phases = 3;
	/* rank 2: no phase tables (a compact report): neither its span nor its rows count */
	rk[2].has_phases = 0;
	rk[2].span_ns = 1000000;
	rk[2].phases = rk[1].phases;
	rk[2].nr_phases = 3;

	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	CHECK_EQ_INT(ru.span_ns, 3000);
	CHECK_EQ_INT(ru.nr_phases, 4);
	if (ru.nr_phases == 4) {
		CHECK_EQ_STR(ru.phases[0].path, "step");
		CHECK_EQ_INT(ru.phases[0].count, 4);
		CHECK_EQ_INT(ru.phases[0].total_ns, 1700);
		CHECK_NEAR(ru.phases[0].share, 1700.0 / 3000, 1e-15);
		CHECK_EQ_INT(ru.phases[0].first, 0);
		CHECK_EQ_STR(ru.phases[1].path, "step/fwd");
		CHECK_EQ_STR(ru.phases[1].name, "fwd");
		CHECK_EQ_INT(ru.phases[1].depth, 1);
		CHECK_EQ_INT(ru.phases[1].first, 1);
		/* text and vae both 50: by path; first seen: vae 2, text 3 */
		CHECK_EQ_STR(ru.phases[2].path, "text");
		CHECK_EQ_INT(ru.phases[2].first, 3);
		CHECK_EQ_STR(ru.phases[3].path, "vae");
		CHECK_EQ_INT(ru.phases[3].first, 2);
	}
	rollup_release(&ru);
	report_release(&rep);
}

/*
 * Three ranks each with one kernel, operator and phase of 4.6e18 ns (each
 * inside the time limit): the sums stop at INT64_MAX instead of wrapping
 * to a negative time.
 */
static void test_saturation(void)
{
	struct report rep;
	struct report_rank *rk = ranks(&rep, 3);
	struct rollup ru;
	int64_t one = BIG;

	for (size_t i = 0; i < 3; i++) {
		rk[i].span_ns = BIG;
		rk[i].gpu.kernel_time_ns = BIG;
		rk[i].kernels = xalloc(&rep, sizeof(*rk[i].kernels));
		rk[i].kernels[0] = kernel(&rep, "k", "gemm", "op", &one, 1, 1);
		rk[i].nr_kernels = 1;
		rk[i].cpu_ops = xalloc(&rep, sizeof(*rk[i].cpu_ops));
		rk[i].cpu_ops[0] = (struct report_cpu_op){ "aten::mm", 1, BIG, BIG, BIG, BIG, 0 };
		rk[i].nr_cpu_ops = 1;
		rk[i].phases = xalloc(&rep, sizeof(*rk[i].phases));
		rk[i].phases[0] = (struct report_phase){ .name = "denoise", .path = "denoise",
							 .d = { .count = 1, .total_ns = BIG } };
		rk[i].nr_phases = 1;
	}
	/* counts saturate too */
	rk[1].cpu_ops[0].count = INT64_MAX;
	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	CHECK_EQ_INT(ru.kernel_time_ns, INT64_MAX);
	CHECK_EQ_INT(ru.span_ns, INT64_MAX);
	if (CHECK(ru.nr_kernels == 1 && ru.nr_ops == 1 && ru.nr_phases == 1)) {
		CHECK_EQ_INT(ru.kernels[0].total_ns, INT64_MAX);
		CHECK_EQ_INT(ru.kernels[0].count, 3);
		CHECK_EQ_INT(ru.kernels[0].min_ns, BIG);
		CHECK_EQ_INT(ru.kernels[0].max_ns, BIG);
		/* the mean and the share of the sum unsaturated: 3 x 4.6e18 / 3, all of the time */
		CHECK_NEAR(ru.kernels[0].avg_ns, (double)BIG, 0);
		CHECK_NEAR(ru.kernels[0].share, 1, 0);
		/* three equal instances: no deviation but for the rounding of squares near 2^124 */
		CHECK(ru.kernels[0].stddev_ns >= 0 && ru.kernels[0].stddev_ns < 1e-6 * (double)BIG);
		CHECK_NEAR(kernel_median(&ru, &ru.kernels[0]), (double)BIG, 0);
		CHECK_EQ_INT(ru.ops[0].count, INT64_MAX);
		CHECK_EQ_INT(ru.ops[0].total_ns, INT64_MAX);
		CHECK_EQ_INT(ru.ops[0].self_ns, INT64_MAX);
		CHECK_EQ_INT(ru.ops[0].device_ns, INT64_MAX);
		CHECK_EQ_INT(ru.ops[0].self_device_ns, INT64_MAX);
		CHECK_EQ_INT(ru.phases[0].total_ns, INT64_MAX);
		CHECK_NEAR(ru.phases[0].share, 1, 0);
		CHECK_EQ_INT(ru.phases[0].count, 3);
	}
	rollup_release(&ru);
	report_release(&rep);
}

/*
 * A spread of a few ns around a mean of 10^12 ns (17 minutes): pooled from
 * sums of squares (4e24, rounded to 2^29) nothing of it is left.
 */
static void test_small_spread(void)
{
	static const int64_t a[] = { 1000000000000, 1000000000002 };
	static const int64_t b[] = { 1000000000004, 1000000000006, 1000000000008 };
	const int64_t *l[] = { a, b };
	const size_t n[] = { 2, 3 };
	struct report rep;
	struct report_rank *rk = ranks(&rep, 2);
	struct rollup ru;

	for (size_t i = 0; i < 2; i++) {
		rk[i].kernels = xalloc(&rep, sizeof(*rk[i].kernels));
		rk[i].kernels[0] = kernel(&rep, "k", "gemm", "op", l[i], n[i], n[i]);
		rk[i].nr_kernels = 1;
	}
	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	if (CHECK(ru.nr_kernels == 1)) {
		/* 0, 2, 4, 6, 8 around 4: sqrt(8) */
		CHECK_NEAR(ru.kernels[0].stddev_ns, pooled_stddev(l, n, 2), 1e-9);
		CHECK_NEAR(ru.kernels[0].stddev_ns, sqrt(8), 1e-9);
	}
	rollup_release(&ru);
	report_release(&rep);
}

static void test_empty(void)
{
	struct report rep;
	struct rollup ru;

	ranks(&rep, 0);
	CHECK_EQ_INT(rollup_init(&ru, &rep), 0);
	CHECK_EQ_INT(ru.nr_kernels + ru.nr_ops + ru.nr_phases, 0);
	CHECK_EQ_INT(ru.kernel_time_ns, 0);
	rollup_release(&ru);
	report_release(&rep);
}

int main(void)
{
	test_kernels();
	test_ops();
	test_shapes();
	test_phases();
	test_saturation();
	test_small_spread();
	test_empty();
	return check_done("test_rollup");
}
