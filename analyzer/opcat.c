/*
 * opcat: see opcat.h.  Names are PyTorch's operator schema names as the
 * profiler records cpu_op spans; the attention rows come first, as an
 * attention operator's own name may hold "mm" or "softmax".
 */
#include "opcat.h"

#include "namematch.h"

struct op_rule {
	enum op_cat cat;
	enum name_how how;
	const char *pat;
};

static const struct op_rule rules[] = {
	/* SDPA and its backends, FlashAttention's and xformers' custom ops, MHA */
	{ OPC_ATTENTION, NAME_STARTS, "aten::_scaled_dot_product_" },
	{ OPC_ATTENTION, NAME_IS, "aten::scaled_dot_product_attention" },
	{ OPC_ATTENTION, NAME_STARTS, "aten::_flash_attention" },
	{ OPC_ATTENTION, NAME_STARTS, "aten::_efficient_attention" },
	{ OPC_ATTENTION, NAME_STARTS, "aten::_cudnn_attention" },
	{ OPC_ATTENTION, NAME_STARTS, "aten::_native_multi_head_attention" },
	{ OPC_ATTENTION, NAME_HAS, "flash_attn" },	/* flash_attn::_flash_attn_forward */
	{ OPC_ATTENTION, NAME_HAS_ANYCASE, "sageattn" },

	/* matrix products */
	{ OPC_GEMM, NAME_IS, "aten::mm" },
	{ OPC_GEMM, NAME_IS, "aten::addmm" },
	{ OPC_GEMM, NAME_IS, "aten::_addmm_activation" },
	{ OPC_GEMM, NAME_IS, "aten::bmm" },
	{ OPC_GEMM, NAME_IS, "aten::baddbmm" },
	{ OPC_GEMM, NAME_IS, "aten::addbmm" },
	{ OPC_GEMM, NAME_IS, "aten::linear" },
	{ OPC_GEMM, NAME_IS, "aten::matmul" },
	{ OPC_GEMM, NAME_IS, "aten::_scaled_mm" },
	{ OPC_GEMM, NAME_IS, "aten::mv" },
	{ OPC_GEMM, NAME_IS, "aten::addmv" },

	/* convolutions: conv1d..3d, convolution, _convolution, cudnn/miopen, transposed */
	{ OPC_CONV, NAME_STARTS, "aten::conv" },
	{ OPC_CONV, NAME_STARTS, "aten::_conv" },
	{ OPC_CONV, NAME_STARTS, "aten::cudnn_convolution" },
	{ OPC_CONV, NAME_STARTS, "aten::miopen_convolution" },
	{ OPC_CONV, NAME_STARTS, "aten::mkldnn_convolution" },

	/* normalisations and their native forms */
	{ OPC_NORM, NAME_HAS, "layer_norm" },
	{ OPC_NORM, NAME_HAS, "group_norm" },
	{ OPC_NORM, NAME_HAS, "rms_norm" },
	{ OPC_NORM, NAME_HAS, "batch_norm" },
	{ OPC_NORM, NAME_HAS, "instance_norm" },

	{ OPC_SOFTMAX, NAME_IS, "aten::softmax" },
	{ OPC_SOFTMAX, NAME_IS, "aten::_softmax" },
	{ OPC_SOFTMAX, NAME_IS, "aten::_safe_softmax" },
};

enum op_cat opcat_of(const char *s, size_t n)
{
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		if (name_matches(rules[r].how, rules[r].pat, s, n))
			return rules[r].cat;
	return OPC_NONE;
}

const char *opcat_name(enum op_cat c)
{
	static const char *const names[] = { "", "attention", "gemm", "conv", "norm", "reduce" };

	return c <= OPC_SOFTMAX ? names[c] : "";
}
