/*
 * opcat: the kernel category that a CPU operator gives the kernels it
 * launches, read from a table (opcat.c).  The operator is what the user
 * called (aten::scaled_dot_product_attention, aten::linear, aten::conv2d),
 * which says what a kernel is for better than the kernel's own name.
 */
#ifndef VT_OPCAT_H
#define VT_OPCAT_H

#include <stddef.h>

#include "category.h"

/*
 * The category of the operator named s[0..n): CAT_ATTENTION, CAT_GEMM,
 * CAT_CONV, CAT_NORM, CAT_SOFTMAX, or CAT_NONE when the table has none.
 * CAT_GEMM and CAT_SOFTMAX are attention inside an attention block
 * (modcat.h); a softmax elsewhere is a reduction (category_kernel()).
 */
enum category opcat_of(const char *s, size_t n);

#endif
