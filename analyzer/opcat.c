/*
 * opcat: see opcat.h.  Names are PyTorch's operator schema names as the
 * profiler records cpu_op spans; the attention rows come first, as an
 * attention operator's own name may hold "mm" or "softmax".
 */
#include "opcat.h"

#include "namematch.h"

struct op_rule {
	enum category cat;
	enum name_how how;
	const char *pat;
};

static const struct op_rule rules[] = {
	/* SDPA and its backends, FlashAttention's and xformers' custom ops, MHA */
	{ CAT_ATTENTION, NAME_STARTS, "aten::_scaled_dot_product_" },
	{ CAT_ATTENTION, NAME_IS, "aten::scaled_dot_product_attention" },
	{ CAT_ATTENTION, NAME_STARTS, "aten::_flash_attention" },
	{ CAT_ATTENTION, NAME_STARTS, "aten::_efficient_attention" },
	{ CAT_ATTENTION, NAME_STARTS, "aten::_cudnn_attention" },
	{ CAT_ATTENTION, NAME_STARTS, "aten::_native_multi_head_attention" },
	{ CAT_ATTENTION, NAME_HAS, "flash_attn" },	/* flash_attn::_flash_attn_forward */
	{ CAT_ATTENTION, NAME_HAS_ANYCASE, "sageattn" },

	/* matrix products */
	{ CAT_GEMM, NAME_IS, "aten::mm" },
	{ CAT_GEMM, NAME_IS, "aten::addmm" },
	{ CAT_GEMM, NAME_IS, "aten::_addmm_activation" },
	{ CAT_GEMM, NAME_IS, "aten::bmm" },
	{ CAT_GEMM, NAME_IS, "aten::baddbmm" },
	{ CAT_GEMM, NAME_IS, "aten::addbmm" },
	{ CAT_GEMM, NAME_IS, "aten::linear" },
	{ CAT_GEMM, NAME_IS, "aten::matmul" },
	{ CAT_GEMM, NAME_IS, "aten::_scaled_mm" },
	{ CAT_GEMM, NAME_IS, "aten::mv" },
	{ CAT_GEMM, NAME_IS, "aten::addmv" },

	/* convolutions: conv1d..3d, convolution, _convolution, cudnn/miopen, transposed */
	{ CAT_CONV, NAME_STARTS, "aten::conv" },
	{ CAT_CONV, NAME_STARTS, "aten::_conv" },
	{ CAT_CONV, NAME_STARTS, "aten::cudnn_convolution" },
	{ CAT_CONV, NAME_STARTS, "aten::miopen_convolution" },
	{ CAT_CONV, NAME_STARTS, "aten::mkldnn_convolution" },

	/* normalisations and their native forms */
	{ CAT_NORM, NAME_HAS, "layer_norm" },
	{ CAT_NORM, NAME_HAS, "group_norm" },
	{ CAT_NORM, NAME_HAS, "rms_norm" },
	{ CAT_NORM, NAME_HAS, "batch_norm" },
	{ CAT_NORM, NAME_HAS, "instance_norm" },

	{ CAT_SOFTMAX, NAME_IS, "aten::softmax" },
	{ CAT_SOFTMAX, NAME_IS, "aten::_softmax" },
	{ CAT_SOFTMAX, NAME_IS, "aten::_safe_softmax" },
};

enum category opcat_of(const char *s, size_t n)
{
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		if (name_matches(rules[r].how, rules[r].pat, s, n))
			return rules[r].cat;
	return CAT_NONE;
}
