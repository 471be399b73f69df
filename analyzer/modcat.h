/*
 * modcat: which Python frames, modules and annotations are attention
 * blocks (modcat.c).  Eager attention is written as bmm + softmax + bmm;
 * only the module around them (nn.Module: Attention_0, a record_function
 * "self_attn") says that they are attention.
 */
#ifndef VT_MODCAT_H
#define VT_MODCAT_H

#include <stddef.h>

/* 1 when a python_function or user_annotation span named s[0..n) is an attention block. */
int modcat_is_attention(const char *s, size_t n);

#endif
