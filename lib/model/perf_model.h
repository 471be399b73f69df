/*
 * perf_model: the FLOPs and bytes of one operator call, from the shapes
 * torch.profiler records with record_shapes=True (args "Input Dims",
 * "Input type", "Concrete Inputs", as JSON text).  One table, one entry
 * per operator (perf_model.c), each with its formula's source; the
 * conventions are those of TraceLens, so that the figures compare
 * (doc/perf-model.md).  An operator the table does not know, or whose
 * shapes do not fit its formula, gets no FLOPs: never a guess.
 */
#ifndef VT_PERF_MODEL_H
#define VT_PERF_MODEL_H

#include <stddef.h>

#include "category.h"

/* The dtype an operator computes in: picks the device's peak (device_peak.h). */
enum perf_dtype {
	PERF_DTYPE_UNKNOWN, PERF_FP64, PERF_FP32, PERF_TF32, PERF_BF16, PERF_FP16, PERF_FP8,
	PERF_NR_DTYPES
};

/* "fp64", "fp32", ...; NULL for PERF_DTYPE_UNKNOWN. */
const char *perf_dtype_name(enum perf_dtype d);

/* The three args as their JSON text (not NUL-terminated; n 0: absent). */
struct perf_args {
	const char *dims, *types, *concrete;
	size_t nr_dims, nr_types, nr_concrete;
};

struct perf_call {
	const char *family;	/* category_family(): "gemm", ... (static); NULL: unknown op */
	int known;		/* flops and bytes hold the call's figures */
	double flops, bytes;	/* per call */
	enum perf_dtype dtype;
};

/* The family of operator name[0..n), or CAT_NONE when the table does not know it. */
enum category perf_model_family(const char *name, size_t n);

/*
 * The figures of one call of name[0..n) with args a.  Always fills *c;
 * c->known is 0 when the operator is unknown or its shapes do not fit.
 */
void perf_model_eval(const char *name, size_t n, const struct perf_args *a,
		     struct perf_call *c);

#endif
