/*
 * opcat: the kernel category that a CPU operator gives the kernels it
 * launches, read from a table (opcat.c).  The operator is what the user
 * called (aten::scaled_dot_product_attention, aten::linear, aten::conv2d),
 * which says what a kernel is for better than the kernel's own name.
 */
#ifndef VT_OPCAT_H
#define VT_OPCAT_H

#include <stddef.h>

/*
 * OPC_GEMM and OPC_SOFTMAX are attention inside an attention block
 * (modcat.h); a softmax elsewhere is a reduction.
 */
enum op_cat { OPC_NONE, OPC_ATTENTION, OPC_GEMM, OPC_CONV, OPC_NORM, OPC_SOFTMAX };

/* The category of the operator named s[0..n), OPC_NONE when the table has none. */
enum op_cat opcat_of(const char *s, size_t n);

/* The report's category of c (a static string; "" for OPC_NONE). */
const char *opcat_name(enum op_cat c);

#endif
