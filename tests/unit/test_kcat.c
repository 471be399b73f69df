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

/* The report's word for the category of s[0..n). */
static const char *kc(const char *s, size_t n)
{
	return category_name(kcat_of(s, n));
}

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
		CHECK_MSG(!strcmp(kc(name, strlen(name)), want), "%s: got %s, want %s", name,
			  kc(name, strlen(name)), want);
		n++;
	}
	fclose(f);
	/* the families: triton, flashinfer, nvjet, cutlass, fp8/fp4, aclnn, b200 */
	CHECKF(n >= 80, "only %ld names in the corpus", n);
}

static void test_edges(void)
{
	static char big[5000];

	CHECK_EQ_STR(kc("", 0), "other");
	CHECK_EQ_STR(kc("NCCLDEVKERNEL_ALLGATHER", 23), "comm");
	CHECK_EQ_STR(kc("SDMA_copy", 9), "other");	/* exact, not a prefix */
	/* a name is read as its length says, not to a NUL */
	CHECK_EQ_STR(kc("gemmX", 3), "other");
	/* past 4096 bytes a word is not seen */
	memset(big, 'x', sizeof(big));
	memcpy(big + 4094, "gemm", 4);		/* bytes 4094..4097: cut */
	CHECK_EQ_STR(kc(big, sizeof(big)), "other");
	memcpy(big + 4092, "gemm", 4);		/* bytes 4092..4095: seen */
	CHECK_EQ_STR(kc(big, sizeof(big)), "gemm");
}

#define CAT(name, want) CHECK_EQ_STR(kc(name, strlen(name)), want)

/* The name rules, each with the misfire it fixes. */
static void test_rules(void)
{
	/* inductor: the shape decides, not the aten ops fused in (was gemm) */
	CAT("triton_poi_fused_addmm_gelu_3", "elementwise");
	CAT("triton_poi_fused__scaled_dot_product_flash_attention_0", "elementwise");
	CAT("triton_red_fused_addmm_sum_1", "reduce");
	CAT("triton_per_fused__softmax_bmm_2", "reduce");
	CAT("triton_per_fused_convolution_mean_4", "reduce");
	CAT("triton_red_fused_add_mean_mul_pow_rsqrt_0", "norm");
	CAT("triton_per_fused_native_layer_norm_0", "norm");
	CAT("triton_red_fused_native_group_norm_5", "norm");
	/* SageAttention (was other) */
	CAT("sage_fwd", "attention");
	CAT("void sageattn::qk_int8_sv_f8_attn_kernel<128>", "attention");
	CAT("SageAttnKernel", "attention");
	/* a norm + RoPE prologue named after the attention it feeds (was attention) */
	CAT("fused_qk_rmsnorm_rope_cache_fmha_v3_fwd_kernel", "norm");
	CAT("add_rms_norm_rotary_for_fmha_v3_fwd", "norm");
	CAT("aiter::fmha_v3_fwd_kernel", "attention");
	CAT("flash_fwd_rotary_kernel", "attention");
	/* Ascend: by the operator the name starts with */
	CAT("aclnnMm_TransData_TransData", "gemm");		/* was other */
	CAT("aclnnMm_CastAiCore_Cast", "gemm");		/* was elementwise */
	CAT("aclnnAddmm_TransData_TransData", "gemm");
	CAT("aclnnBatchMatMul_TransposeAiCore_Transpose", "gemm");
	CAT("aclnnBaddbmm_MulAiCore_Mul", "gemm");
	CAT("aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore", "attention");
	CAT("aclnnFusedInferAttentionScore_TransData_TransData", "attention");
	CAT("aclnnLayerNorm_LayerNormV4_LayerNormV4", "norm");
	CAT("aclnnRmsNorm_Cast_Cast", "norm");
	CAT("aclnnInplaceAddRmsNorm_AddRmsNorm_AddRmsNorm", "norm");
	CAT("aclnnConvolution_TransData_TransData", "conv");
	CAT("aclnnSoftmax_SoftmaxV2AiCore_SoftmaxV2", "reduce");
	CAT("aclnnAdaptiveAvgPool2dBackward_AdaptiveAvgPool3dGradAiCore_AdaptiveAvgPool3dGrad",
	    "reduce");						/* was conv (3dgrad) */
	CAT("aclnnCast_CastAiCpu_Cast", "elementwise");	/* was other */
	CAT("aclnnInplaceRelu_Relu_Relu", "elementwise");	/* by the general rules on "relu" */
	CAT("aclnnArgMax_CastAiCore_Cast", "reduce");
	CAT("aclnn", "other");
	CAT("aclnn_", "other");
	CAT("aclnnInplace", "other");
}

int main(void)
{
	test_corpus();
	test_edges();
	test_rules();
	return check_done("test_kcat");
}
