/*
 * test_perf_model: each formula of lib/model/perf_model.c on shapes as
 * torch.profiler writes them; the first three are TraceLens's published
 * rows for its H100 Qwen trace (GFLOP per call, MiB moved).
 */
#include <math.h>

#include "check.h"
#include "perf_model.h"

static struct perf_call eval(const char *name, const char *dims, const char *types,
			     const char *conc)
{
	struct perf_args a = { dims, types, conc, dims ? strlen(dims) : 0,
			       types ? strlen(types) : 0, conc ? strlen(conc) : 0 };
	struct perf_call c;

	perf_model_eval(name, strlen(name), &a, &c);
	return c;
}

#define NEAR(x, want) CHECKF(fabs((x) - (double)(want)) <= 1e-9 * fabs((double)(want)) + 1e-9, \
			     "%.6f != %.6f", (double)(x), (double)(want))

static void test_tracelens_rows(void)
{
	struct perf_call c;

	c = eval("aten::mm", "[[8944, 1024], [1024, 2816]]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\"]", "[\"\", \"\"]");
	CHECK(c.known);
	NEAR(c.flops, 51581550592.0);	/* 2 * 8944 * 1024 * 2816: 51.5816 GFLOP */
	NEAR(c.bytes / 1048576, 71.0078125);
	CHECK_EQ_INT(c.dtype, PERF_BF16);
	CHECK_EQ_STR(c.family, "gemm");

	c = eval("aten::addmm", "[[1024], [8944, 1024], [1024, 1024], [], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		 "\"Scalar\"]",
		 "[\"\", \"\", \"\", \"1\", \"1\"]");
	CHECK(c.known);
	NEAR(c.flops, 18766086144.0);
	NEAR(c.bytes / 1048576, 36.939453125);

	c = eval("aten::_scaled_dot_product_flash_attention",
		 "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		 "\"Scalar\", \"Scalar\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"0.125\"]");
	CHECK(c.known);
	NEAR(c.flops, 10239377408.0);
	NEAR(c.bytes / 1048576, 69.875);
	CHECK_EQ_STR(c.family, "attention");
}

static void test_gemm(void)
{
	struct perf_call c;

	c = eval("aten::bmm", "[[4, 8, 16], [4, 16, 32]]", "[\"float\", \"float\"]", NULL);
	NEAR(c.flops, 2.0 * 4 * 8 * 32 * 16);
	NEAR(c.bytes, 4.0 * (4 * 8 * 16 + 4 * 16 * 32 + 4 * 8 * 32));
	CHECK_EQ_INT(c.dtype, PERF_FP32);
	c = eval("aten::baddbmm", "[[4, 8, 32], [4, 8, 16], [4, 16, 32], [], []]",
		 "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"Scalar\", \"Scalar\"]", NULL);
	NEAR(c.flops, 2.0 * 4 * 8 * 32 * 16 + 4 * 8 * 32);
	NEAR(c.bytes, 2.0 * (2 * 4 * 8 * 32 + 4 * 8 * 16 + 4 * 16 * 32));
	CHECK_EQ_INT(c.dtype, PERF_FP16);
	c = eval("aten::linear", "[[2, 10, 64], [128, 64], [128]]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", NULL);
	NEAR(c.flops, 2.0 * 20 * 128 * 64 + 20 * 128);
	NEAR(c.bytes, 2.0 * (20 * 64 + 128 * 64 + 128 + 20 * 128));
	c = eval("aten::linear", "[[20, 64], [128, 64], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]", NULL);
	NEAR(c.flops, 2.0 * 20 * 128 * 64);
	c = eval("aten::matmul", "[[3, 5, 7], [7, 2]]", "[\"float\", \"float\"]", NULL);
	NEAR(c.flops, 2.0 * 3 * 5 * 2 * 7);
	c = eval("aten::_scaled_mm", "[[64, 128], [128, 256], [], [], [], [], []]",
		 "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", "
		 "\"\", \"ScalarType\"]",
		 NULL);
	NEAR(c.flops, 2.0 * 64 * 128 * 256);
	NEAR(c.bytes, 64.0 * 128 + 128 * 256 + 64 * 256 * 2 + 4 + 4);
	CHECK_EQ_INT(c.dtype, PERF_FP8);
	/* shapes that do not multiply: no figure */
	c = eval("aten::mm", "[[8, 3], [4, 5]]", "[\"float\", \"float\"]", NULL);
	CHECK(!c.known && isnan(c.flops));
	CHECK_EQ_STR(c.family, "gemm");
}

static void test_attention(void)
{
	struct perf_call c;

	/* not causal, GQA: Q 32 heads, K and V 8 */
	c = eval("aten::_scaled_dot_product_flash_attention",
		 "[[2, 32, 100, 128], [2, 8, 300, 128], [2, 8, 300, 128], [], [], [], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		 "\"Scalar\", \"Scalar\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"\"]");
	NEAR(c.flops, 4.0 * 2 * 32 * 100 * 300 * 128);
	NEAR(c.bytes, 2.0 * (2 * 32 * 100 * 128 * 2 + 2 * 2 * 8 * 300 * 128));
	/* is_causal unknown (no Concrete Inputs): no guess */
	c = eval("aten::_scaled_dot_product_flash_attention",
		 "[[2, 32, 100, 128], [2, 8, 300, 128], [2, 8, 300, 128], [], [], [], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
		 "\"Scalar\", \"Scalar\", \"Scalar\"]",
		 NULL);
	CHECK(!c.known);
	c = eval("aten::_scaled_dot_product_efficient_attention",
		 "[[1, 4, 64, 32], [1, 4, 64, 32], [1, 4, 64, 32], [], [], [], [], []]",
		 "[\"float\", \"float\", \"float\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", "
		 "\"\"]",
		 "[\"\", \"\", \"\", \"\", \"True\", \"0.\", \"True\", \"\"]");
	NEAR(c.flops, 2.0 * 4 * 64 * 64 * 32);
	/* flash_attn layout [B, N, H, d] */
	c = eval("flash_attn::_flash_attn_forward",
		 "[[2, 1024, 16, 64], [2, 1024, 16, 64], [2, 1024, 16, 64], [], [], []]",
		 "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"Scalar\", \"Scalar\", "
		 "\"Scalar\"]",
		 "[\"\", \"\", \"\", \"0.\", \"0.125\", \"False\"]");
	NEAR(c.flops, 4.0 * 2 * 16 * 1024 * 1024 * 64);
	/* the backward: 2.5 times */
	c = eval("aten::_scaled_dot_product_flash_attention_backward",
		 "[[1, 2, 8, 4], [1, 2, 8, 4], [1, 2, 8, 4], [1, 2, 8, 4], [1, 2, 8, 4], [1, 2, "
		 "8], [], [], [], [], [], [], [], [], []]",
		 "[\"float\", \"float\", \"float\", \"float\", \"float\", \"float\", \"\", \"\", "
		 "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"8\", \"8\", \"0.\", "
		 "\"False\", \"\", \"\", \"\"]");
	NEAR(c.flops, 2.5 * 4 * 2 * 8 * 8 * 4);
}

static void test_conv(void)
{
	struct perf_call c;

	/* 2-D, 3x3, stride 2, pad 1, bias: out 56 -> 28 */
	c = eval("aten::convolution",
		 "[[8, 64, 56, 56], [128, 64, 3, 3], [128], [], [], [], [], [], []]",
		 "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", "
		 "\"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", "
		 "\"1\"]");
	CHECK(c.known);
	NEAR(c.flops, 2.0 * 8 * 128 * 28 * 28 * 64 * 9 + 8 * 128 * 28 * 28);
	NEAR(c.bytes, 2.0 * (8 * 64 * 56 * 56 + 128 * 64 * 9 + 128 + 8 * 128 * 28 * 28));
	/* 3-D, groups 2, one-element lists, no bias */
	c = eval("aten::convolution",
		 "[[1, 4, 8, 16, 16], [6, 2, 1, 3, 3], [], [], [], [], [], [], []]",
		 "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
		 "\"Scalar\", \"ScalarList\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"[1]\", \"[0]\", \"[1]\", \"False\", \"[0]\", \"2\"]");
	NEAR(c.flops, 2.0 * 1 * 6 * 8 * 14 * 14 * 2 * 9);
	/* the cuDNN operator under it is not modelled: aten::convolution gets its row */
	CHECK_EQ_INT(perf_model_family("aten::cudnn_convolution", 23), CAT_NONE);
	/* 1-D transposed: out (10 - 1) * 2 - 0 + 1 * (4 - 1) + 0 + 1 = 22 */
	c = eval("aten::convolution", "[[2, 3, 10], [3, 5, 4], [], [], [], [], [], [], []]",
		 "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
		 "\"Scalar\", \"ScalarList\", \"Scalar\"]",
		 "[\"\", \"\", \"\", \"[2]\", \"[0]\", \"[1]\", \"True\", \"[0]\", \"1\"]");
	NEAR(c.flops, 2.0 * 2 * 3 * 10 * 5 * 4);
	NEAR(c.bytes, 4.0 * (2 * 3 * 10 + 3 * 5 * 4 + 2 * 5 * 22));
	/* backward, both gradients */
	c = eval("aten::convolution_backward",
		 "[[8, 128, 28, 28], [8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], [], "
		 "[]]",
		 "[\"float\", \"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", "
		 "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"\"]",
		 "[\"\", \"\", \"\", \"[128]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
		 "\"[0, 0]\", \"1\", \"[True, True, False]\"]");
	NEAR(c.flops, 2 * 2.0 * 8 * 128 * 28 * 28 * 64 * 9);
}

static void test_memory_bound(void)
{
	struct perf_call c;

	c = eval("aten::native_layer_norm", "[[4, 10, 64], [], [64], [64], []]",
		 "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\"]", NULL);
	NEAR(c.flops, 5.0 * 4 * 10 * 64);
	NEAR(c.bytes, 4.0 * (2 * 4 * 10 * 64 + 64 + 64));
	c = eval("aten::add", "[[4, 10], [10], []]", "[\"c10::Half\", \"c10::Half\", \"Scalar\"]",
		 NULL);
	NEAR(c.flops, 40);
	NEAR(c.bytes, 2.0 * (40 + 10 + 40));
	c = eval("aten::_softmax", "[[8, 100], [], []]",
		 "[\"float\", \"Scalar\", \"Scalar\"]", NULL);
	NEAR(c.flops, 5.0 * 800);
	c = eval("aten::sum", "[[8, 100], [], [], []]",
		 "[\"float\", \"\", \"Scalar\", \"\"]", NULL);
	NEAR(c.flops, 800);
	NEAR(c.bytes, 3200);
}

static void test_unknown(void)
{
	struct perf_call c = eval("aten::copy_", "[[4], [4], []]",
				  "[\"float\", \"float\", \"Scalar\"]", NULL);

	CHECK(!c.known && !c.family && isnan(c.flops));
	CHECK_EQ_INT(perf_model_family("aten::copy_", 11), CAT_NONE);
	CHECK_EQ_INT(perf_model_family("aten::mm", 8), CAT_GEMM);
	CHECK_EQ_STR(category_family(perf_model_family("aten::mm", 8)), "gemm");
	/* hostile text: no figure, no crash */
	c = eval("aten::mm", "[[1, 2", "[\"float\"", "[\"");
	CHECK(!c.known);
	c = eval("aten::mm", "[[99999999999999999999, 2], [2, 3]]", "[\"float\", \"float\"]", NULL);
	CHECK(c.known);
	c = eval("aten::mm", "[[1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 3]]",
		 "[\"float\", \"float\"]", NULL);
	CHECK(!c.known);
	c = eval("aten::mm", "[[1, 2], [2, 3]]", NULL, NULL);
	CHECK(!c.known);
	CHECK_EQ_STR(perf_dtype_name(PERF_BF16), "bf16");
	CHECK(!perf_dtype_name(PERF_DTYPE_UNKNOWN));
}

int main(void)
{
	test_tracelens_rows();
	test_gemm();
	test_attention();
	test_conv();
	test_memory_bound();
	test_unknown();
	return check_done("test_perf_model");
}
