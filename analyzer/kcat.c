/*
 * kcat: see kcat.h.  Order matters: the telling word sits anywhere in a
 * templated name, and names carry words of other categories in their
 * template arguments (flash attention's cutlass::bfloat16_t, RMSNorm's
 * _typeConvert, a cutlass implicit-GEMM convolution), so the specific
 * families come before the words that merely appear in them.  Every
 * pattern is lower case; names are compared lower-cased.
 */
#include "kcat.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

enum how { HAS, PREFIX, EXACT };

struct kcat_rule {
	const char *category;
	enum how how;
	const char *pat;
	const char *also;	/* and the name contains this too, or NULL */
};

static const struct kcat_rule rules[] = {
	/* Collectives: NCCL/RCCL kernels, torch symmetric memory, Ascend HCCL. */
	{ "comm", HAS, "nccl", NULL },
	{ "comm", HAS, "rccl", NULL },
	{ "comm", HAS, "all_reduce", NULL },	/* multimem_all_reduce_kernel */
	{ "comm", HAS, "allreduce", NULL },
	{ "comm", HAS, "allgather", NULL },
	{ "comm", HAS, "all_gather", NULL },
	{ "comm", HAS, "reduce_scatter", NULL },
	{ "comm", HAS, "reducescatter", NULL },
	{ "comm", HAS, "sendrecv", NULL },
	{ "comm", HAS, "alltoall", NULL },
	{ "comm", HAS, "all_to_all", NULL },
	{ "comm", PREFIX, "hcom_", NULL },	/* torch_npu HCCL operators */
	{ "comm", EXACT, "sdma", NULL },	/* HCCL's copy task on Ascend Hardware */

	/* Attention: FlashAttention, fmha (cuDNN, TRT-LLM, CK), triton, vLLM, flashinfer. */
	{ "attention", HAS, "flash_fwd", NULL },
	{ "attention", HAS, "flash_bwd", NULL },
	{ "attention", HAS, "flash_attn", NULL },
	{ "attention", HAS, "fmha", NULL },	/* fmhaSm100aKernel, FmhaBatchPrefill */
	{ "attention", HAS, "attention", NULL },	/* paged_attention, unified_attention */
	{ "attention", HAS, "attn_fwd", NULL },	/* triton attn_fwd */
	{ "attention", HAS, "attn_bwd", NULL },
	{ "attention", EXACT, "_fwd_kernel", NULL },	/* triton's flash attention tutorial */
	{ "attention", EXACT, "_bwd_kernel", NULL },
	{ "attention", HAS, "sdpa", NULL },
	{ "attention", HAS, "prefillwithpagedkv", NULL },	/* flashinfer */
	{ "attention", HAS, "decodewithpagedkv", NULL },
	{ "attention", HAS, "mha_fwd", NULL },
	{ "attention", HAS, "mha_bwd", NULL },

	/* Normalisation, before conv and gemm: vllm's rms_norm has _typeConvert. */
	{ "norm", HAS, "layer_norm", NULL },
	{ "norm", HAS, "layernorm", NULL },
	{ "norm", HAS, "rms_norm", NULL },
	{ "norm", HAS, "rmsnorm", NULL },	/* aiter, ck_tile Rmsnorm2dFwd, flashinfer */
	{ "norm", HAS, "group_norm", NULL },
	{ "norm", HAS, "groupnorm", NULL },
	{ "norm", HAS, "batch_norm", NULL },
	{ "norm", HAS, "batchnorm", NULL },
	{ "norm", HAS, "instance_norm", NULL },
	{ "norm", HAS, "bn_fw", NULL },		/* cudnn::bn_fw_tr_1C11_kernel_NCHW */
	{ "norm", HAS, "bn_bw", NULL },
	{ "norm", PREFIX, "triton_red_fused", "rsqrt" },	/* inductor's fused RMSNorm */
	{ "norm", PREFIX, "triton_per_fused", "rsqrt" },

	/* Convolution: cuDNN, MIOpen/CK, cutlass implicit GEMM, Ascend Conv2D. */
	{ "conv", HAS, "conv1d", NULL },
	{ "conv", HAS, "conv2d", NULL },
	{ "conv", HAS, "conv3d", NULL },
	{ "conv", HAS, "convolution", NULL },
	{ "conv", HAS, "convolve", NULL },	/* implicit_convolve_sgemm */
	{ "conv", HAS, "conv_fwd", NULL },	/* ck kernel_grouped_conv_fwd */
	{ "conv", HAS, "conv_bwd", NULL },
	{ "conv", HAS, "scudnn", NULL },	/* volta_scudnn_128x64_relu_interior_nn_v1 */
	{ "conv", HAS, "dgrad", NULL },
	{ "conv", HAS, "wgrad", NULL },
	{ "conv", HAS, "winograd", NULL },
	{ "conv", HAS, "igemm_", NULL },	/* MIOpen igemm_fwd_gtcx3 */
	{ "conv", HAS, "implicit_gemm", NULL },

	/* MoE routing and finalize carry cutlass types but do no GEMM. */
	{ "other", HAS, "moe::dev::routing", NULL },
	{ "reduce", HAS, "moe::dev::finalize", NULL },
	{ "reduce", PREFIX, "_finalize_matmul", NULL },	/* triton matmul_ogs epilogue */

	/* GEMM: cuBLAS(Lt) incl. nvjet and bmm_*, cutlass, hipBLASLt, triton, Ascend, MTIA. */
	{ "gemm", HAS, "gemm", NULL },
	{ "gemm", HAS, "gemv", NULL },
	{ "gemm", HAS, "matmul", NULL },	/* _matmul_ogs_*, Ascend MatMulV2, MTIA */
	{ "gemm", HAS, "cutlass", NULL },
	{ "gemm", HAS, "cublas", NULL },
	{ "gemm", HAS, "wgmma", NULL },
	{ "gemm", HAS, "xmma", NULL },
	{ "gemm", PREFIX, "nvjet_", NULL },	/* cuBLASLt on Hopper/Blackwell */
	{ "gemm", PREFIX, "bmm_", NULL },	/* cuBLASLt/TRT-LLM fp8/fp4 batched GEMM */
	{ "gemm", PREFIX, "cijk_", NULL },	/* hipBLASLt/Tensile */
	{ "gemm", HAS, "addmm", NULL },
	{ "gemm", PREFIX, "fc-dtype", NULL },	/* MTIA fully connected */

	/* Reductions (after comm, which owns all_reduce and reduce_scatter). */
	{ "reduce", HAS, "reduce", NULL },	/* at::native::reduce_kernel, ReduceSum */
	{ "reduce", PREFIX, "triton_red_", NULL },
	{ "reduce", PREFIX, "triton_per_", NULL },
	{ "reduce", HAS, "softmax", NULL },
	{ "reduce", HAS, "argmax", NULL },
	{ "reduce", HAS, "topk", NULL },
	{ "reduce", HAS, "vector_norm", NULL },

	/* Element-wise: PyTorch's kernels, inductor pointwise, activations, casts, quantisation. */
	{ "elementwise", HAS, "elementwise", NULL },
	{ "elementwise", PREFIX, "triton_poi_", NULL },
	{ "elementwise", HAS, "catarraybatchedcopy", NULL },
	{ "elementwise", HAS, "multi_tensor_apply", NULL },
	{ "elementwise", HAS, "act_and_mul", NULL },
	{ "elementwise", HAS, "rotary_embedding", NULL },
	{ "elementwise", HAS, "quant", NULL },	/* scaled_fp8_quant, quantize_with_block_size */
	{ "elementwise", HAS, "aicore_", NULL },	/* Ascend AddAiCore_Add, CastAiCore_Cast */
	{ "elementwise", PREFIX, "trans_", NULL },	/* Ascend trans_Cast_N, trans_TransData_N */
	{ "elementwise", HAS, "relu", NULL },
	{ "elementwise", PREFIX, "add-dtype", NULL },	/* MTIA */
	{ "elementwise", PREFIX, "divide-dtype", NULL },
	{ "elementwise", PREFIX, "aten::mul", NULL },
	{ "elementwise", HAS, "_mul_const", NULL },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))

/* Names longer than this are categorised by their first KCAT_MAX bytes. */
#define KCAT_MAX 4096

/*
 * The byte pairs of a lowered name, hashed into a bit set: a pattern can
 * only occur in the name if its first pair does, and testing that skips
 * nearly every memmem() of the hundred rules (a name is asked about once
 * per file and analysis, but a long templated name made kcat_of() cost as
 * much as thousands of events).
 */
#define PAIR_BITS 4096

struct pairs {
	uint64_t bit[PAIR_BITS / 64];
};

static unsigned pair_of(unsigned char a, unsigned char b)
{
	return ((unsigned)a << 5 ^ b) & (PAIR_BITS - 1);
}

static void pairs_of(struct pairs *p, const char *low, size_t n)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 1; i < n; i++) {
		unsigned h = pair_of((unsigned char)low[i - 1], (unsigned char)low[i]);

		p->bit[h / 64] |= 1ull << (h % 64);
	}
}

static int may_have(const struct pairs *p, const char *pat, size_t k)
{
	unsigned h;

	if (k < 2)
		return 1;
	h = pair_of((unsigned char)pat[0], (unsigned char)pat[1]);
	return (p->bit[h / 64] >> (h % 64)) & 1;
}

static int hit(const struct kcat_rule *r, const char *low, size_t n, const struct pairs *p)
{
	size_t k = strlen(r->pat);

	switch (r->how) {
	case HAS:
		if (!may_have(p, r->pat, k) || !memmem(low, n, r->pat, k))
			return 0;
		break;
	case PREFIX:
		if (n < k || memcmp(low, r->pat, k) != 0)
			return 0;
		break;
	case EXACT:
		if (n != k || memcmp(low, r->pat, k) != 0)
			return 0;
		break;
	}
	return !r->also || memmem(low, n, r->also, strlen(r->also)) != NULL;
}

const char *kcat_of(const char *s, size_t n)
{
	char low[KCAT_MAX];
	struct pairs p;

	if (n > KCAT_MAX)
		n = KCAT_MAX;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	pairs_of(&p, low, n);
	for (size_t r = 0; r < NR_RULES; r++)
		if (hit(&rules[r], low, n, &p))
			return rules[r].category;
	return "other";
}
