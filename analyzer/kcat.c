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

#include "namematch.h"

struct kcat_rule {
	const char *category;
	enum name_how how;	/* of the lowered name */
	const char *pat;
	const char *also;	/* and the name contains this too, or NULL */
};

static const struct kcat_rule rules[] = {
	/*
	 * Inductor names its kernels by their shape, then the aten ops fused
	 * into them: a pointwise kernel is elementwise and a reduction reduce
	 * whatever those ops were (triton_poi_fused_addmm_gelu is the bias and
	 * activation after a GEMM, not the GEMM).  A reduction fused from a
	 * normalisation is that normalisation (mean_mul_pow_rsqrt is RMSNorm).
	 */
	{ "elementwise", NAME_STARTS, "triton_poi_", NULL },
	{ "norm", NAME_STARTS, "triton_red_", "rsqrt" },
	{ "norm", NAME_STARTS, "triton_per_", "rsqrt" },
	{ "norm", NAME_STARTS, "triton_red_", "layer_norm" },
	{ "norm", NAME_STARTS, "triton_per_", "layer_norm" },
	{ "norm", NAME_STARTS, "triton_red_", "group_norm" },
	{ "norm", NAME_STARTS, "triton_per_", "group_norm" },
	{ "reduce", NAME_STARTS, "triton_red_", NULL },
	{ "reduce", NAME_STARTS, "triton_per_", NULL },

	/*
	 * A kernel that normalises and applies rotary embeddings prepares the
	 * q and k of attention; the attention kernel its name may hold
	 * (fused_qk_rmsnorm_rope_..._fmha_v3_fwd) is what it feeds, not what it
	 * runs.  Attention kernels neither normalise nor are named so.
	 */
	{ "norm", NAME_HAS, "rmsnorm", "rope" },
	{ "norm", NAME_HAS, "rms_norm", "rope" },
	{ "norm", NAME_HAS, "layernorm", "rope" },
	{ "norm", NAME_HAS, "layer_norm", "rope" },
	{ "norm", NAME_HAS, "rmsnorm", "rotary" },
	{ "norm", NAME_HAS, "rms_norm", "rotary" },
	{ "norm", NAME_HAS, "layernorm", "rotary" },
	{ "norm", NAME_HAS, "layer_norm", "rotary" },

	/* Collectives: NCCL/RCCL kernels, torch symmetric memory, Ascend HCCL. */
	{ "comm", NAME_HAS, "nccl", NULL },
	{ "comm", NAME_HAS, "rccl", NULL },
	{ "comm", NAME_HAS, "all_reduce", NULL },	/* multimem_all_reduce_kernel */
	{ "comm", NAME_HAS, "allreduce", NULL },
	{ "comm", NAME_HAS, "allgather", NULL },
	{ "comm", NAME_HAS, "all_gather", NULL },
	{ "comm", NAME_HAS, "reduce_scatter", NULL },
	{ "comm", NAME_HAS, "reducescatter", NULL },
	{ "comm", NAME_HAS, "sendrecv", NULL },
	{ "comm", NAME_HAS, "alltoall", NULL },
	{ "comm", NAME_HAS, "all_to_all", NULL },
	{ "comm", NAME_STARTS, "hcom_", NULL },	/* torch_npu HCCL operators */

	/* Attention: FlashAttention, fmha (cuDNN, TRT-LLM, CK), triton, vLLM, flashinfer. */
	{ "attention", NAME_HAS, "flash_fwd", NULL },
	{ "attention", NAME_HAS, "flash_bwd", NULL },
	{ "attention", NAME_HAS, "flash_attn", NULL },
	{ "attention", NAME_HAS, "fmha", NULL },	/* fmhaSm100aKernel, FmhaBatchPrefill */
	{ "attention", NAME_HAS, "attention", NULL },	/* paged_attention, unified_attention */
	{ "attention", NAME_HAS, "attn_fwd", NULL },	/* triton attn_fwd */
	{ "attention", NAME_HAS, "attn_bwd", NULL },
	{ "attention", NAME_IS, "_fwd_kernel", NULL },	/* triton's flash attention tutorial */
	{ "attention", NAME_IS, "_bwd_kernel", NULL },
	{ "attention", NAME_HAS, "sdpa", NULL },
	{ "attention", NAME_HAS, "prefillwithpagedkv", NULL },	/* flashinfer */
	{ "attention", NAME_HAS, "decodewithpagedkv", NULL },
	{ "attention", NAME_HAS, "mha_fwd", NULL },
	{ "attention", NAME_HAS, "mha_bwd", NULL },
	{ "attention", NAME_STARTS, "sage", NULL },	/* SageAttention: sage_fwd, sageattn */
	{ "attention", NAME_HAS, "sageattn", NULL },

	/* Normalisation, before conv and gemm: vllm's rms_norm has _typeConvert. */
	{ "norm", NAME_HAS, "layer_norm", NULL },
	{ "norm", NAME_HAS, "layernorm", NULL },
	{ "norm", NAME_HAS, "rms_norm", NULL },
	{ "norm", NAME_HAS, "rmsnorm", NULL },	/* aiter, ck_tile Rmsnorm2dFwd, flashinfer */
	{ "norm", NAME_HAS, "group_norm", NULL },
	{ "norm", NAME_HAS, "groupnorm", NULL },
	{ "norm", NAME_HAS, "batch_norm", NULL },
	{ "norm", NAME_HAS, "batchnorm", NULL },
	{ "norm", NAME_HAS, "instance_norm", NULL },
	{ "norm", NAME_HAS, "bn_fw", NULL },		/* cudnn::bn_fw_tr_1C11_kernel_NCHW */
	{ "norm", NAME_HAS, "bn_bw", NULL },

	/* Convolution: cuDNN, MIOpen/CK, cutlass implicit GEMM, Ascend Conv2D. */
	{ "conv", NAME_HAS, "conv1d", NULL },
	{ "conv", NAME_HAS, "conv2d", NULL },
	{ "conv", NAME_HAS, "conv3d", NULL },
	{ "conv", NAME_HAS, "convolution", NULL },
	{ "conv", NAME_HAS, "convolve", NULL },	/* implicit_convolve_sgemm */
	{ "conv", NAME_HAS, "conv_fwd", NULL },	/* ck kernel_grouped_conv_fwd */
	{ "conv", NAME_HAS, "conv_bwd", NULL },
	{ "conv", NAME_HAS, "scudnn", NULL },	/* volta_scudnn_128x64_relu_interior_nn_v1 */
	{ "conv", NAME_HAS, "dgrad", NULL },
	{ "conv", NAME_HAS, "wgrad", NULL },
	{ "conv", NAME_HAS, "winograd", NULL },
	{ "conv", NAME_HAS, "igemm_", NULL },	/* MIOpen igemm_fwd_gtcx3 */
	{ "conv", NAME_HAS, "implicit_gemm", NULL },

	/* MoE routing and finalize carry cutlass types but do no GEMM. */
	{ "other", NAME_HAS, "moe::dev::routing", NULL },
	{ "reduce", NAME_HAS, "moe::dev::finalize", NULL },
	{ "reduce", NAME_STARTS, "_finalize_matmul", NULL },	/* triton matmul_ogs epilogue */

	/* GEMM: cuBLAS(Lt) incl. nvjet and bmm_*, cutlass, hipBLASLt, triton, Ascend, MTIA. */
	{ "gemm", NAME_HAS, "gemm", NULL },
	{ "gemm", NAME_HAS, "gemv", NULL },
	{ "gemm", NAME_HAS, "matmul", NULL },	/* _matmul_ogs_*, Ascend MatMulV2, MTIA */
	{ "gemm", NAME_HAS, "cutlass", NULL },
	{ "gemm", NAME_HAS, "cublas", NULL },
	{ "gemm", NAME_HAS, "wgmma", NULL },
	{ "gemm", NAME_HAS, "xmma", NULL },
	{ "gemm", NAME_STARTS, "nvjet_", NULL },	/* cuBLASLt on Hopper/Blackwell */
	{ "gemm", NAME_STARTS, "bmm_", NULL },	/* cuBLASLt/TRT-LLM fp8/fp4 batched GEMM */
	{ "gemm", NAME_STARTS, "cijk_", NULL },	/* hipBLASLt/Tensile */
	{ "gemm", NAME_HAS, "addmm", NULL },
	{ "gemm", NAME_STARTS, "fc-dtype", NULL },	/* MTIA fully connected */

	/* Reductions (after comm, which owns all_reduce and reduce_scatter). */
	{ "reduce", NAME_HAS, "reduce", NULL },	/* at::native::reduce_kernel, ReduceSum */
	{ "reduce", NAME_HAS, "softmax", NULL },
	{ "reduce", NAME_HAS, "argmax", NULL },
	{ "reduce", NAME_HAS, "topk", NULL },
	{ "reduce", NAME_HAS, "vector_norm", NULL },

	/* Element-wise: PyTorch's kernels, inductor pointwise, activations, casts, quantisation. */
	{ "elementwise", NAME_HAS, "elementwise", NULL },
	{ "elementwise", NAME_HAS, "catarraybatchedcopy", NULL },
	{ "elementwise", NAME_HAS, "multi_tensor_apply", NULL },
	{ "elementwise", NAME_HAS, "act_and_mul", NULL },
	{ "elementwise", NAME_HAS, "rotary_embedding", NULL },
	/* scaled_fp8_quant, quantize_with_block_size */
	{ "elementwise", NAME_HAS, "quant", NULL },
	{ "elementwise", NAME_HAS, "aicore_", NULL },	/* Ascend AddAiCore_Add, CastAiCore_Cast */
	{ "elementwise", NAME_STARTS, "trans_", NULL },	/* Ascend trans_Cast_N, trans_TransData_N */
	{ "elementwise", NAME_HAS, "relu", NULL },
	{ "elementwise", NAME_STARTS, "add-dtype", NULL },	/* MTIA */
	{ "elementwise", NAME_STARTS, "divide-dtype", NULL },
	{ "elementwise", NAME_STARTS, "aten::mul", NULL },
	{ "elementwise", NAME_HAS, "_mul_const", NULL },
};

#define NR_RULES (sizeof(rules) / sizeof(rules[0]))

/*
 * torch_npu names a kernel aclnn<Operator>_<op of CANN>_<task>: every task
 * of one operator (aclnnMm_TransData_TransData, aclnnMm_MatMulCommon_MatMulV2)
 * is that operator's, so the category comes from the operator, lowered and
 * without its Inplace prefix, by this table; an operator not here by the
 * rules above applied to its name alone, then to the whole name.
 */
static const struct kcat_rule ascend_ops[] = {
	/* FlashAttentionScore, FusedInferAttentionScore */
	{ "attention", NAME_HAS, "attention", NULL },
	{ "norm", NAME_HAS, "layernorm", NULL },
	{ "norm", NAME_HAS, "rmsnorm", NULL },		/* RmsNorm, AddRmsNorm */
	{ "norm", NAME_HAS, "groupnorm", NULL },
	{ "norm", NAME_HAS, "batchnorm", NULL },
	{ "conv", NAME_STARTS, "conv", NULL },		/* Convolution, ConvDepthwise2d */
	{ "gemm", NAME_IS, "mm", NULL },
	{ "gemm", NAME_IS, "addmm", NULL },
	{ "gemm", NAME_IS, "bmm", NULL },
	{ "gemm", NAME_IS, "baddbmm", NULL },
	{ "gemm", NAME_IS, "addbmm", NULL },
	{ "gemm", NAME_IS, "mv", NULL },
	{ "gemm", NAME_IS, "addmv", NULL },
	{ "gemm", NAME_HAS, "matmul", NULL },	/* BatchMatMul, GroupedMatmul, QuantMatmul */
	{ "reduce", NAME_HAS, "softmax", NULL },
	{ "reduce", NAME_HAS, "pool", NULL },		/* MaxPool2dWithMask, AdaptiveAvgPool2d */
	{ "reduce", NAME_HAS, "argm", NULL },		/* ArgMax, ArgMin */
	{ "reduce", NAME_HAS, "topk", NULL },
	{ "reduce", NAME_HAS, "reduce", NULL },
	{ "elementwise", NAME_IS, "cast", NULL },
	{ "elementwise", NAME_STARTS, "foreach", NULL },	/* ForeachAddListV2 */
	{ "elementwise", NAME_STARTS, "dropout", NULL },	/* DropoutGenMaskV2 */
};

#define NR_ASCEND_OPS (sizeof(ascend_ops) / sizeof(ascend_ops[0]))

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
	if (r->how == NAME_HAS && !may_have(p, r->pat, strlen(r->pat)))
		return 0;
	if (!name_matches(r->how, r->pat, low, n))
		return 0;
	return !r->also || memmem(low, n, r->also, strlen(r->also)) != NULL;
}

/* The first of the n rules that the lowered name low[0..len) meets, or NULL. */
static const char *first_hit(const struct kcat_rule *rules_, size_t n, const char *low,
			     size_t len)
{
	struct pairs p;

	pairs_of(&p, low, len);
	for (size_t r = 0; r < n; r++)
		if (hit(&rules_[r], low, len, &p))
			return rules_[r].category;
	return NULL;
}

/* An Ascend kernel's category from its operator (see ascend_ops), or NULL. */
static const char *ascend_category(const char *low, size_t n)
{
	const char *op = low + 5, *end;
	const char *c;

	if (n - 5 > 7 && memcmp(op, "inplace", 7) == 0)
		op += 7;
	end = memchr(op, '_', (size_t)(low + n - op));
	if (!end)
		end = low + n;
	if (end == op)
		return NULL;
	c = first_hit(ascend_ops, NR_ASCEND_OPS, op, (size_t)(end - op));
	return c ? c : first_hit(rules, NR_RULES, op, (size_t)(end - op));
}

const char *kcat_of(const char *s, size_t n)
{
	char low[KCAT_MAX];
	const char *c = NULL;

	if (n > KCAT_MAX)
		n = KCAT_MAX;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	if (n > 5 && memcmp(low, "aclnn", 5) == 0)
		c = ascend_category(low, n);
	if (!c)
		c = first_hit(rules, NR_RULES, low, n);
	return c ? c : "other";
}
