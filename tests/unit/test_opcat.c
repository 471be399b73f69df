/*
 * test_opcat: the operator table (analyzer/opcat.c) and the attention
 * blocks (analyzer/modcat.c) that kctx.c takes kernel categories from:
 * one case per rule, and the names that must not match.
 */
#include <string.h>

#include "check.h"
#include "modcat.h"
#include "opcat.h"

#define OP(name, want) CHECK_EQ_STR(category_name(opcat_of(name, strlen(name))), want)

static void test_operators(void)
{
	/* SDPA, its backends and the attention libraries' own operators */
	OP("aten::scaled_dot_product_attention", "attention");
	OP("aten::_scaled_dot_product_flash_attention", "attention");
	OP("aten::_scaled_dot_product_efficient_attention_backward", "attention");
	OP("aten::_flash_attention_forward", "attention");
	OP("aten::_efficient_attention_forward", "attention");
	OP("aten::_cudnn_attention_forward", "attention");
	OP("flash_attn::_flash_attn_forward", "attention");
	OP("sageattention::sageattn_qk_int8_pv_fp16", "attention");
	/* matrix products, exactly: not aten::mm_something */
	OP("aten::mm", "gemm");
	OP("aten::addmm", "gemm");
	OP("aten::bmm", "gemm");
	OP("aten::baddbmm", "gemm");
	OP("aten::linear", "gemm");
	OP("aten::matmul", "gemm");
	OP("aten::_scaled_mm", "gemm");
	OP("aten::mmx", "");
	OP("aten::matmul_backward", "");
	/* convolutions */
	OP("aten::conv2d", "conv");
	OP("aten::convolution", "conv");
	OP("aten::_convolution", "conv");
	OP("aten::cudnn_convolution", "conv");
	OP("aten::conv_transpose3d", "conv");
	/* norms */
	OP("aten::layer_norm", "norm");
	OP("aten::native_layer_norm", "norm");
	OP("aten::group_norm", "norm");
	OP("aten::rms_norm", "norm");
	OP("aten::_fused_rms_norm", "norm");
	OP("aten::batch_norm", "norm");
	/* softmax: a reduction unless an attention block says otherwise */
	OP("aten::softmax", "reduce");
	OP("aten::_softmax", "reduce");
	OP("aten::log_softmax", "");
	/* what has no rule */
	OP("aten::add", "");
	OP("aten::copy_", "");
	OP("", "");
	CHECK_EQ_INT(opcat_of("aten::softmax", 13), CAT_SOFTMAX);
	CHECK_EQ_INT(opcat_of("aten::mm", 8), CAT_GEMM);
	/* a name is read as its length says */
	CHECK_EQ_INT(opcat_of("aten::mmX", 8), CAT_GEMM);
}

static void test_blocks(void)
{
	CHECK(modcat_is_attention("nn.Module: Attention_0", 22));
	CHECK(modcat_is_attention("nn.Module: TimesformerSelfAttention_3", 37));
	CHECK(modcat_is_attention("self_attn", 9));
	CHECK(modcat_is_attention("models/attention.py(88): forward", 32));
	CHECK(modcat_is_attention("nn.Module: ATTN", 15));
	CHECK(!modcat_is_attention("nn.Module: FeedForward_0", 24));
	CHECK(!modcat_is_attention("block_0", 7));
	CHECK(!modcat_is_attention("self_att", 8));
	CHECK(!modcat_is_attention("self_attn", 8));	/* cut before the word ends */
}

int main(void)
{
	test_operators();
	test_blocks();
	return check_done("test_opcat");
}
