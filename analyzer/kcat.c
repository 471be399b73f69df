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
	enum category category;
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
	{ CAT_ELEMENTWISE, NAME_STARTS, "triton_poi_", NULL },
	{ CAT_NORM, NAME_STARTS, "triton_red_", "rsqrt" },
	{ CAT_NORM, NAME_STARTS, "triton_per_", "rsqrt" },
	{ CAT_NORM, NAME_STARTS, "triton_red_", "layer_norm" },
	{ CAT_NORM, NAME_STARTS, "triton_per_", "layer_norm" },
	{ CAT_NORM, NAME_STARTS, "triton_red_", "group_norm" },
	{ CAT_NORM, NAME_STARTS, "triton_per_", "group_norm" },
	{ CAT_REDUCE, NAME_STARTS, "triton_red_", NULL },
	{ CAT_REDUCE, NAME_STARTS, "triton_per_", NULL },

	/*
	 * A kernel that normalises and applies rotary embeddings prepares the
	 * q and k of attention; the attention kernel its name may hold
	 * (fused_qk_rmsnorm_rope_..._fmha_v3_fwd) is what it feeds, not what it
	 * runs.  Attention kernels neither normalise nor are named so.
	 */
	{ CAT_NORM, NAME_HAS, "rmsnorm", "rope" },
	{ CAT_NORM, NAME_HAS, "rms_norm", "rope" },
	{ CAT_NORM, NAME_HAS, "layernorm", "rope" },
	{ CAT_NORM, NAME_HAS, "layer_norm", "rope" },
	{ CAT_NORM, NAME_HAS, "rmsnorm", "rotary" },
	{ CAT_NORM, NAME_HAS, "rms_norm", "rotary" },
	{ CAT_NORM, NAME_HAS, "layernorm", "rotary" },
	{ CAT_NORM, NAME_HAS, "layer_norm", "rotary" },

	/* Collectives: NCCL/RCCL kernels, torch symmetric memory, Ascend HCCL. */
	{ CAT_COMM, NAME_HAS, "nccl", NULL },
	{ CAT_COMM, NAME_HAS, "rccl", NULL },
	{ CAT_COMM, NAME_HAS, "all_reduce", NULL },	/* multimem_all_reduce_kernel */
	{ CAT_COMM, NAME_HAS, "allreduce", NULL },
	{ CAT_COMM, NAME_HAS, "allgather", NULL },
	{ CAT_COMM, NAME_HAS, "all_gather", NULL },
	{ CAT_COMM, NAME_HAS, "reduce_scatter", NULL },
	{ CAT_COMM, NAME_HAS, "reducescatter", NULL },
	{ CAT_COMM, NAME_HAS, "sendrecv", NULL },
	{ CAT_COMM, NAME_HAS, "alltoall", NULL },
	{ CAT_COMM, NAME_HAS, "all_to_all", NULL },
	{ CAT_COMM, NAME_STARTS, "hcom_", NULL },	/* torch_npu HCCL operators */

	/* Attention: FlashAttention, fmha (cuDNN, TRT-LLM, CK), triton, vLLM, flashinfer. */
	{ CAT_ATTENTION, NAME_HAS, "flash_fwd", NULL },
	{ CAT_ATTENTION, NAME_HAS, "flash_bwd", NULL },
	{ CAT_ATTENTION, NAME_HAS, "flash_attn", NULL },
	{ CAT_ATTENTION, NAME_HAS, "fmha", NULL },	/* fmhaSm100aKernel, FmhaBatchPrefill */
	{ CAT_ATTENTION, NAME_HAS, "attention", NULL },	/* paged_attention, unified_attention */
	{ CAT_ATTENTION, NAME_HAS, "attn_fwd", NULL },	/* triton attn_fwd */
	{ CAT_ATTENTION, NAME_HAS, "attn_bwd", NULL },
	{ CAT_ATTENTION, NAME_IS, "_fwd_kernel", NULL },	/* triton's flash attention */
	{ CAT_ATTENTION, NAME_IS, "_bwd_kernel", NULL },
	{ CAT_ATTENTION, NAME_HAS, "sdpa", NULL },
	{ CAT_ATTENTION, NAME_HAS, "prefillwithpagedkv", NULL },	/* flashinfer */
	{ CAT_ATTENTION, NAME_HAS, "decodewithpagedkv", NULL },
	{ CAT_ATTENTION, NAME_HAS, "mha_fwd", NULL },
	{ CAT_ATTENTION, NAME_HAS, "mha_bwd", NULL },
	{ CAT_ATTENTION, NAME_STARTS, "sage", NULL },	/* SageAttention: sage_fwd, sageattn */
	{ CAT_ATTENTION, NAME_HAS, "sageattn", NULL },

	/* Normalisation, before conv and gemm: vllm's rms_norm has _typeConvert. */
	{ CAT_NORM, NAME_HAS, "layer_norm", NULL },
	{ CAT_NORM, NAME_HAS, "layernorm", NULL },
	{ CAT_NORM, NAME_HAS, "rms_norm", NULL },
	{ CAT_NORM, NAME_HAS, "rmsnorm", NULL },	/* aiter, ck_tile Rmsnorm2dFwd, ... */
	{ CAT_NORM, NAME_HAS, "group_norm", NULL },
	{ CAT_NORM, NAME_HAS, "groupnorm", NULL },
	{ CAT_NORM, NAME_HAS, "batch_norm", NULL },
	{ CAT_NORM, NAME_HAS, "batchnorm", NULL },
	{ CAT_NORM, NAME_HAS, "instance_norm", NULL },
	{ CAT_NORM, NAME_HAS, "bn_fw", NULL },		/* cudnn::bn_fw_tr_1C11_kernel_NCHW */
	{ CAT_NORM, NAME_HAS, "bn_bw", NULL },

	/* Convolution: cuDNN, MIOpen/CK, cutlass implicit GEMM, Ascend Conv2D. */
	{ CAT_CONV, NAME_HAS, "conv1d", NULL },
	{ CAT_CONV, NAME_HAS, "conv2d", NULL },
	{ CAT_CONV, NAME_HAS, "conv3d", NULL },
	{ CAT_CONV, NAME_HAS, "convolution", NULL },
	{ CAT_CONV, NAME_HAS, "convolve", NULL },	/* implicit_convolve_sgemm */
	{ CAT_CONV, NAME_HAS, "conv_fwd", NULL },	/* ck kernel_grouped_conv_fwd */
	{ CAT_CONV, NAME_HAS, "conv_bwd", NULL },
	{ CAT_CONV, NAME_HAS, "scudnn", NULL },	/* volta_scudnn_128x64_relu_interior_nn_v1 */
	{ CAT_CONV, NAME_HAS, "dgrad", NULL },
	{ CAT_CONV, NAME_HAS, "wgrad", NULL },
	{ CAT_CONV, NAME_HAS, "winograd", NULL },
	{ CAT_CONV, NAME_HAS, "igemm_", NULL },	/* MIOpen igemm_fwd_gtcx3 */
	{ CAT_CONV, NAME_HAS, "implicit_gemm", NULL },

	/* MoE routing and finalize carry cutlass types but do no GEMM. */
	{ CAT_OTHER, NAME_HAS, "moe::dev::routing", NULL },
	{ CAT_REDUCE, NAME_HAS, "moe::dev::finalize", NULL },
	{ CAT_REDUCE, NAME_STARTS, "_finalize_matmul", NULL },	/* triton matmul_ogs epilogue */

	/* GEMM: cuBLAS(Lt) incl. nvjet and bmm_*, cutlass, hipBLASLt, triton, Ascend, MTIA. */
	{ CAT_GEMM, NAME_HAS, "gemm", NULL },
	{ CAT_GEMM, NAME_HAS, "gemv", NULL },
	{ CAT_GEMM, NAME_HAS, "matmul", NULL },	/* _matmul_ogs_*, Ascend MatMulV2, MTIA */
	{ CAT_GEMM, NAME_HAS, "cutlass", NULL },
	{ CAT_GEMM, NAME_HAS, "cublas", NULL },
	{ CAT_GEMM, NAME_HAS, "wgmma", NULL },
	{ CAT_GEMM, NAME_HAS, "xmma", NULL },
	{ CAT_GEMM, NAME_STARTS, "nvjet_", NULL },	/* cuBLASLt on Hopper/Blackwell */
	{ CAT_GEMM, NAME_STARTS, "bmm_", NULL },	/* cuBLASLt/TRT-LLM fp8/fp4 batched GEMM */
	{ CAT_GEMM, NAME_STARTS, "cijk_", NULL },	/* hipBLASLt/Tensile */
	{ CAT_GEMM, NAME_HAS, "addmm", NULL },
	{ CAT_GEMM, NAME_STARTS, "fc-dtype", NULL },	/* MTIA fully connected */

	/* Reductions (after comm, which owns all_reduce and reduce_scatter). */
	{ CAT_REDUCE, NAME_HAS, "reduce", NULL },	/* at::native::reduce_kernel, ReduceSum */
	{ CAT_REDUCE, NAME_HAS, "softmax", NULL },
	{ CAT_REDUCE, NAME_HAS, "argmax", NULL },
	{ CAT_REDUCE, NAME_HAS, "topk", NULL },
	{ CAT_REDUCE, NAME_HAS, "vector_norm", NULL },

	/* Element-wise: PyTorch's kernels, inductor pointwise, activations, casts, quantisation. */
	{ CAT_ELEMENTWISE, NAME_HAS, "elementwise", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "catarraybatchedcopy", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "multi_tensor_apply", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "act_and_mul", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "rotary_embedding", NULL },
	/* scaled_fp8_quant, quantize_with_block_size */
	{ CAT_ELEMENTWISE, NAME_HAS, "quant", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "aicore_", NULL },	/* Ascend AddAiCore_Add, CastAiCore_Cast */
	/* Ascend trans_Cast_N, trans_TransData_N */
	{ CAT_ELEMENTWISE, NAME_STARTS, "trans_", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "relu", NULL },
	{ CAT_ELEMENTWISE, NAME_STARTS, "add-dtype", NULL },	/* MTIA */
	{ CAT_ELEMENTWISE, NAME_STARTS, "divide-dtype", NULL },
	{ CAT_ELEMENTWISE, NAME_STARTS, "aten::mul", NULL },
	{ CAT_ELEMENTWISE, NAME_HAS, "_mul_const", NULL },
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
	{ CAT_ATTENTION, NAME_HAS, "attention", NULL },
	{ CAT_NORM, NAME_HAS, "layernorm", NULL },
	{ CAT_NORM, NAME_HAS, "rmsnorm", NULL },		/* RmsNorm, AddRmsNorm */
	{ CAT_NORM, NAME_HAS, "groupnorm", NULL },
	{ CAT_NORM, NAME_HAS, "batchnorm", NULL },
	{ CAT_CONV, NAME_STARTS, "conv", NULL },		/* Convolution, ConvDepthwise2d */
	{ CAT_GEMM, NAME_IS, "mm", NULL },
	{ CAT_GEMM, NAME_IS, "addmm", NULL },
	{ CAT_GEMM, NAME_IS, "bmm", NULL },
	{ CAT_GEMM, NAME_IS, "baddbmm", NULL },
	{ CAT_GEMM, NAME_IS, "addbmm", NULL },
	{ CAT_GEMM, NAME_IS, "mv", NULL },
	{ CAT_GEMM, NAME_IS, "addmv", NULL },
	{ CAT_GEMM, NAME_HAS, "matmul", NULL },	/* BatchMatMul, GroupedMatmul, QuantMatmul */
	{ CAT_REDUCE, NAME_HAS, "softmax", NULL },
	{ CAT_REDUCE, NAME_HAS, "pool", NULL },		/* MaxPool2dWithMask, AdaptiveAvgPool2d */
	{ CAT_REDUCE, NAME_HAS, "argm", NULL },		/* ArgMax, ArgMin */
	{ CAT_REDUCE, NAME_HAS, "topk", NULL },
	{ CAT_REDUCE, NAME_HAS, "reduce", NULL },
	{ CAT_ELEMENTWISE, NAME_IS, "cast", NULL },
	{ CAT_ELEMENTWISE, NAME_STARTS, "foreach", NULL },	/* ForeachAddListV2 */
	{ CAT_ELEMENTWISE, NAME_STARTS, "dropout", NULL },	/* DropoutGenMaskV2 */
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

/* The category of the first of the n rules that the lowered name low[0..len) meets, or CAT_NONE. */
static enum category first_hit(const struct kcat_rule *rules_, size_t n, const char *low,
			     size_t len)
{
	struct pairs p;

	pairs_of(&p, low, len);
	for (size_t r = 0; r < n; r++)
		if (hit(&rules_[r], low, len, &p))
			return rules_[r].category;
	return CAT_NONE;
}

/* An Ascend kernel's category from its operator (see ascend_ops), or CAT_NONE. */
static enum category ascend_category(const char *low, size_t n)
{
	const char *op = low + 5, *end;
	enum category c;

	if (n - 5 > 7 && memcmp(op, "inplace", 7) == 0)
		op += 7;
	end = memchr(op, '_', (size_t)(low + n - op));
	if (!end)
		end = low + n;
	if (end == op)
		return CAT_NONE;
	c = first_hit(ascend_ops, NR_ASCEND_OPS, op, (size_t)(end - op));
	return c != CAT_NONE ? c : first_hit(rules, NR_RULES, op, (size_t)(end - op));
}

enum category kcat_of(const char *s, size_t n)
{
	char low[KCAT_MAX];
	enum category c = CAT_NONE;

	if (n > KCAT_MAX)
		n = KCAT_MAX;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	if (n > 5 && memcmp(low, "aclnn", 5) == 0)
		c = ascend_category(low, n);
	if (c == CAT_NONE)
		c = first_hit(rules, NR_RULES, low, n);
	return c != CAT_NONE ? c : CAT_OTHER;
}

unsigned kcat_answer(const char *s, size_t n)
{
	return (unsigned)kcat_of(s, n);
}
