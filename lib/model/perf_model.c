/*
 * perf_model: see perf_model.h.  The shape args are parsed into a small
 * fixed struct (no allocation: at most PM_INPUTS inputs of PM_RANK
 * dimensions; more makes the call unknown), then the operator's formula
 * reads it.  Sizes multiply as doubles: a hostile trace's dims cannot
 * overflow, and a figure past 2^53 FLOPs needs no exactness.
 *
 * Conventions, as TraceLens's perf model counts (so that our figures and
 * its published reports compare; checked against three of its rows on
 * its H100 Qwen trace, tests/cli): a multiply-add is 2 FLOPs; bytes are
 * each input tensor read once and the output written once, at their
 * dtype's size; a bias or residual add costs one FLOP per output element;
 * causal attention does half the work of full attention.
 */
#include "perf_model.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "namematch.h"

#define PM_INPUTS 24
#define PM_RANK 8

struct pm_shapes {
	int nr;				/* inputs in Input Dims */
	int rank[PM_INPUTS];		/* -1: not a plain tensor (a list of tensors) */
	double dim[PM_INPUTS][PM_RANK];
	int nr_types;
	int elem[PM_INPUTS];		/* bytes per element; 0: no tensor dtype */
	enum perf_dtype dtype[PM_INPUTS];
	int nr_concrete;		/* -1: no Concrete Inputs */
	const char *conc[PM_INPUTS];	/* the string's text, undecoded */
	size_t nr_conc[PM_INPUTS];
};

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* A list of integers "[8944, 1024]" at *pp into d (up to max); its length, -1: not one. */
static int int_list(const char **pp, const char *end, double *d, int max)
{
	const char *p = skip_ws(*pp, end);
	int n = 0;

	if (p >= end || *p != '[')
		return -1;
	p = skip_ws(p + 1, end);
	if (p < end && *p == ']') {
		*pp = p + 1;
		return 0;
	}
	for (;;) {
		double v = 0;
		int digits = 0;

		p = skip_ws(p, end);
		while (p < end && *p >= '0' && *p <= '9') {
			v = v * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits || n >= max)
			return -1;
		d[n++] = v;
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == ']') {
			*pp = p + 1;
			return n;
		}
		return -1;
	}
}

/* Past one JSON value at p that is not a list of integers (a nested list, null). */
static const char *skip_item(const char *p, const char *end)
{
	int depth = 0, in_str = 0;

	for (; p < end; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}') {
			if (!depth)
				return p;
			if (!--depth)
				return p + 1;
		} else if (!depth && *p == ',')
			return p;
	}
	return p;
}

/* "Input Dims": [[8944, 1024], [1024], [], ...]; -1 when it is no list. */
static int parse_dims(const char *s, size_t n, struct pm_shapes *sh)
{
	const char *p = s, *end = s + n;

	sh->nr = 0;
	p = skip_ws(p, end);
	if (p >= end || *p++ != '[')
		return -1;
	p = skip_ws(p, end);
	if (p < end && *p == ']')
		return 0;
	while (p < end) {
		const char *at = p;
		int r;

		if (sh->nr >= PM_INPUTS)
			return -1;
		r = int_list(&p, end, sh->dim[sh->nr], PM_RANK);
		if (r < 0) {
			p = skip_item(at, end);
			sh->rank[sh->nr++] = -1;
		} else {
			sh->rank[sh->nr++] = r;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		return p < end && *p == ']' ? 0 : -1;
	}
	return -1;
}

/* The strings of a JSON list of strings, undecoded, into v/nv; how many, -1: not such a list. */
static int str_list(const char *s, size_t n, const char **v, size_t *nv, int max)
{
	const char *p = s, *end = s + n;
	int k = 0;

	p = skip_ws(p, end);
	if (p >= end || *p++ != '[')
		return -1;
	p = skip_ws(p, end);
	if (p < end && *p == ']')
		return 0;
	while (p < end) {
		const char *q;

		if (*p != '"' || k >= max)
			return -1;
		for (q = ++p; q < end && *q != '"'; q++)
			if (*q == '\\')
				q++;
		if (q >= end)
			return -1;
		v[k] = p;
		nv[k++] = (size_t)(q - p);
		p = skip_ws(q + 1, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == ']' ? k : -1;
	}
	return -1;
}

/* The size and compute dtype of an "Input type" as c10 spells it (0: no tensor dtype). */
static int dtype_of(const char *s, size_t n, enum perf_dtype *d)
{
	static const struct {
		const char *name;
		enum name_how how;
		int size;
		enum perf_dtype dtype;
	} types[] = {
		{ "c10::BFloat16", NAME_IS, 2, PERF_BF16 },
		{ "c10::Half", NAME_IS, 2, PERF_FP16 },
		{ "float", NAME_IS, 4, PERF_FP32 },
		{ "double", NAME_IS, 8, PERF_FP64 },
		{ "c10::Float8_", NAME_STARTS, 1, PERF_FP8 },	/* e4m3fn, e5m2, ...fnuz */
		{ "long int", NAME_IS, 8, PERF_DTYPE_UNKNOWN },
		{ "int", NAME_IS, 4, PERF_DTYPE_UNKNOWN },
		{ "short int", NAME_IS, 2, PERF_DTYPE_UNKNOWN },
		{ "signed char", NAME_IS, 1, PERF_DTYPE_UNKNOWN },
		{ "unsigned char", NAME_IS, 1, PERF_DTYPE_UNKNOWN },
		{ "bool", NAME_IS, 1, PERF_DTYPE_UNKNOWN },
		{ "c10::complex<float>", NAME_IS, 8, PERF_DTYPE_UNKNOWN },
		{ "c10::complex<double>", NAME_IS, 16, PERF_DTYPE_UNKNOWN },
	};

	*d = PERF_DTYPE_UNKNOWN;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (name_matches(types[i].how, types[i].name, s, n)) {
			*d = types[i].dtype;
			return types[i].size;
		}
	return 0;
}

static int parse(const struct perf_args *a, struct pm_shapes *sh)
{
	const char *tv[PM_INPUTS];
	size_t tn[PM_INPUTS];

	memset(sh, 0, sizeof(*sh));
	if (!a->nr_dims || parse_dims(a->dims, a->nr_dims, sh))
		return -1;
	sh->nr_types = a->nr_types ? str_list(a->types, a->nr_types, tv, tn, PM_INPUTS) : -1;
	for (int i = 0; i < sh->nr_types; i++)
		sh->elem[i] = dtype_of(tv[i], tn[i], &sh->dtype[i]);
	sh->nr_concrete = a->nr_concrete ? str_list(a->concrete, a->nr_concrete, sh->conc,
						    sh->nr_conc, PM_INPUTS)
					 : -1;
	return 0;
}

/* Input i is a tensor of rank r or more (or exactly r when exact) with a known dtype. */
static int tensor(const struct pm_shapes *sh, int i, int r, int exact)
{
	return i < sh->nr && i < sh->nr_types && sh->rank[i] >= 0 &&
	       (exact ? sh->rank[i] == r : sh->rank[i] >= r) && sh->elem[i] > 0;
}

static double numel(const struct pm_shapes *sh, int i)
{
	double n = 1;

	for (int k = 0; k < sh->rank[i]; k++)
		n *= sh->dim[i][k];
	return n;
}

static double tbytes(const struct pm_shapes *sh, int i)
{
	return numel(sh, i) * sh->elem[i];
}

static double last(const struct pm_shapes *sh, int i, int from_end)
{
	return sh->dim[i][sh->rank[i] - 1 - from_end];
}

/* Concrete Inputs[i] is the bool "True" / "False": 1, 0; -1 when absent or not one. */
static int conc_bool(const struct pm_shapes *sh, int i)
{
	if (i >= sh->nr_concrete)
		return -1;
	if (name_matches(NAME_IS, "True", sh->conc[i], sh->nr_conc[i]))
		return 1;
	if (name_matches(NAME_IS, "False", sh->conc[i], sh->nr_conc[i]))
		return 0;
	return -1;
}

/* Concrete Inputs[i] as a list of integers "[1, 1]" into v; its length, -1 if not one. */
static int conc_ints(const struct pm_shapes *sh, int i, double *v, int max)
{
	const char *p;

	if (i >= sh->nr_concrete)
		return -1;
	p = sh->conc[i];
	return int_list(&p, sh->conc[i] + sh->nr_conc[i], v, max);
}

/* Concrete Inputs[i] as an integer; -1 if absent or not one. */
static double conc_int(const struct pm_shapes *sh, int i)
{
	double v = 0;

	if (i >= sh->nr_concrete || !sh->nr_conc[i])
		return -1;
	for (size_t k = 0; k < sh->nr_conc[i]; k++) {
		if (sh->conc[i][k] < '0' || sh->conc[i][k] > '9')
			return -1;
		v = v * 10 + (sh->conc[i][k] - '0');
	}
	return v;
}

static int set(struct perf_call *c, double flops, double bytes, enum perf_dtype d)
{
	c->flops = flops;
	c->bytes = bytes;
	c->dtype = d;
	return 0;
}

/*
 * GEMM: C[M,N] = A[M,K] B[K,N] is 2MNK FLOPs (a multiply and an add per
 * term); bytes A + B + C.  The compute dtype is A's (fp32 counts as fp32,
 * not tf32: whether TF32 was allowed is not in the trace).
 */

/* aten::mm(self[M,K], mat2[K,N]) */
static int f_mm(const struct pm_shapes *s, struct perf_call *c)
{
	double m, k, n;

	if (!tensor(s, 0, 2, 1) || !tensor(s, 1, 2, 1) || s->dim[0][1] != s->dim[1][0])
		return -1;
	m = s->dim[0][0], k = s->dim[0][1], n = s->dim[1][1];
	return set(c, 2 * m * n * k, tbytes(s, 0) + tbytes(s, 1) + m * n * s->elem[0],
		   s->dtype[0]);
}

/* aten::addmm(bias, mat1[M,K], mat2[K,N], beta, alpha): mm plus the bias add, MN. */
static int f_addmm(const struct pm_shapes *s, struct perf_call *c)
{
	double m, k, n;

	if (!tensor(s, 0, 0, 0) || !tensor(s, 1, 2, 1) || !tensor(s, 2, 2, 1) ||
	    s->dim[1][1] != s->dim[2][0])
		return -1;
	m = s->dim[1][0], k = s->dim[1][1], n = s->dim[2][1];
	return set(c, 2 * m * n * k + m * n,
		   tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 2) + m * n * s->elem[1], s->dtype[1]);
}

/* aten::bmm(self[B,M,K], mat2[B,K,N]) */
static int f_bmm(const struct pm_shapes *s, struct perf_call *c)
{
	double b, m, k, n;

	if (!tensor(s, 0, 3, 1) || !tensor(s, 1, 3, 1) || s->dim[0][2] != s->dim[1][1] ||
	    s->dim[0][0] != s->dim[1][0])
		return -1;
	b = s->dim[0][0], m = s->dim[0][1], k = s->dim[0][2], n = s->dim[1][2];
	return set(c, 2 * b * m * n * k, tbytes(s, 0) + tbytes(s, 1) + b * m * n * s->elem[0],
		   s->dtype[0]);
}

/* aten::baddbmm(self, batch1[B,M,K], batch2[B,K,N], beta, alpha): bmm plus the add, BMN. */
static int f_baddbmm(const struct pm_shapes *s, struct perf_call *c)
{
	double b, m, k, n;

	if (!tensor(s, 0, 0, 0) || !tensor(s, 1, 3, 1) || !tensor(s, 2, 3, 1) ||
	    s->dim[1][2] != s->dim[2][1] || s->dim[1][0] != s->dim[2][0])
		return -1;
	b = s->dim[1][0], m = s->dim[1][1], k = s->dim[1][2], n = s->dim[2][2];
	return set(c, 2 * b * m * n * k + b * m * n,
		   tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 2) + b * m * n * s->elem[1],
		   s->dtype[1]);
}

/*
 * aten::matmul(a[..., M, K], b[..., K, N]): the batch is a's leading dims
 * (b broadcast, or 2-D); 1-D operands as torch.matmul treats them.
 */
static int f_matmul(const struct pm_shapes *s, struct perf_call *c)
{
	double batch = 1, m, k, n, kb;

	if (!tensor(s, 0, 1, 0) || !tensor(s, 1, 1, 0))
		return -1;
	m = s->rank[0] >= 2 ? last(s, 0, 1) : 1;
	k = last(s, 0, 0);
	kb = s->rank[1] >= 2 ? last(s, 1, 1) : last(s, 1, 0);
	n = s->rank[1] >= 2 ? last(s, 1, 0) : 1;
	if (k != kb)
		return -1;
	for (int i = 0; i + 2 < s->rank[0]; i++)
		batch *= s->dim[0][i];
	if (s->rank[1] > s->rank[0] || (s->rank[0] < 3 && s->rank[1] >= 3)) {
		batch = 1;	/* b carries the batch */
		for (int i = 0; i + 2 < s->rank[1]; i++)
			batch *= s->dim[1][i];
	}
	return set(c, 2 * batch * m * n * k,
		   tbytes(s, 0) + tbytes(s, 1) + batch * m * n * s->elem[0], s->dtype[0]);
}

/* aten::linear(input[..., K], weight[N, K], bias[N]?): M is input's leading dims. */
static int f_linear(const struct pm_shapes *s, struct perf_call *c)
{
	double m, k, n, flops, bytes;
	int bias = tensor(s, 2, 1, 0);

	if (!tensor(s, 0, 1, 0) || !tensor(s, 1, 2, 1) || last(s, 0, 0) != s->dim[1][1])
		return -1;
	k = last(s, 0, 0), n = s->dim[1][0];
	m = numel(s, 0) / (k ? k : 1);
	flops = 2 * m * n * k + (bias ? m * n : 0);
	bytes = tbytes(s, 0) + tbytes(s, 1) + (bias ? tbytes(s, 2) : 0) + m * n * s->elem[0];
	return set(c, flops, bytes, s->dtype[0]);
}

/*
 * aten::_scaled_mm(self[M,K], mat2[K,N], scale_a, scale_b, bias?, scale_result?,
 * out_dtype, ...): an fp8 GEMM; the output's dtype is not in the shapes, so
 * it is counted at 2 bytes (bf16, the usual out_dtype); the scales are read.
 */
static int f_scaled_mm(const struct pm_shapes *s, struct perf_call *c)
{
	double m, k, n, bytes;

	if (!tensor(s, 0, 2, 1) || !tensor(s, 1, 2, 1) || s->dim[0][1] != s->dim[1][0])
		return -1;
	m = s->dim[0][0], k = s->dim[0][1], n = s->dim[1][1];
	bytes = tbytes(s, 0) + tbytes(s, 1) + m * n * 2;
	for (int i = 2; i < 6; i++)
		if (tensor(s, i, 0, 0))
			bytes += tbytes(s, i);
	return set(c, 2 * m * n * k, bytes, s->dtype[0]);
}

/*
 * Attention, softmax(Q K^T) V per batch and head: 2 Nq Nk d for Q K^T and
 * 2 Nq Nk dv for the product with V; causal masking halves both (as
 * TraceLens and FlashAttention's benchmarks count).  Q has H heads, K and
 * V may have fewer (GQA): FLOPs go by Q's heads, bytes by each tensor.
 * Bytes: Q, K, V read, O written.  The backward does 2.5 times the
 * forward's FLOPs (FlashAttention-2 paper, section 4: five matmuls against
 * two) and reads Q, K, V, O, dO and writes dQ, dK, dV.
 */
struct attn {
	int q, k, v;		/* inputs */
	int heads_first;	/* [B, H, N, d] (SDPA) rather than [B, N, H, d] (flash_attn) */
	int causal;		/* Concrete Inputs index of is_causal; -1: never causal */
	int backward;
};

static int attention(const struct pm_shapes *s, const struct attn *at, struct perf_call *c)
{
	double b, h, nq, nk, d, dv, flops, bytes;
	int causal = at->causal >= 0 ? conc_bool(s, at->causal) : 0;
	int hi = at->heads_first ? 1 : 2, ni = at->heads_first ? 2 : 1;

	if (!tensor(s, at->q, 4, 1) || !tensor(s, at->k, 4, 1) || !tensor(s, at->v, 4, 1) ||
	    causal < 0)
		return -1;
	b = s->dim[at->q][0], h = s->dim[at->q][hi], nq = s->dim[at->q][ni];
	d = s->dim[at->q][3];
	nk = s->dim[at->k][ni], dv = s->dim[at->v][3];
	flops = 2 * b * h * nq * nk * (d + dv) * (causal ? 0.5 : 1);
	bytes = tbytes(s, at->q) + tbytes(s, at->k) + tbytes(s, at->v) +
		b * h * nq * dv * s->elem[at->q];
	if (at->backward) {
		flops *= 2.5;
		bytes = 2 * bytes + b * h * nq * dv * s->elem[at->q];
	}
	return set(c, flops, bytes, s->dtype[at->q]);
}

/* (query, key, value, dropout_p, is_causal, return_debug_mask, scale) */
static int f_sdpa_flash(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct attn at = { 0, 1, 2, 1, 4, 0 };

	return attention(s, &at, c);
}

/*
 * (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q,
 * max_k, dropout_p, is_causal, ...)
 */
static int f_sdpa_flash_bwd(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct attn at = { 1, 2, 3, 1, 11, 1 };

	return attention(s, &at, c);
}

/*
 * efficient and cudnn, whose arguments lie alike: (query, key, value,
 * attn_bias, compute_log_sumexp, dropout_p, is_causal, ...)
 */
static int f_sdpa_efficient(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct attn at = { 0, 1, 2, 1, 6, 0 };

	return attention(s, &at, c);
}

/*
 * flash_attn::_flash_attn_forward(q, k, v, dropout_p, softmax_scale, causal,
 * ...): [B, N, H, d] (flash-attn 2)
 */
static int f_flash_attn(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct attn at = { 0, 1, 2, 0, 5, 0 };

	return attention(s, &at, c);
}

/*
 * flash_attn::_flash_attn_backward(dout, q, k, v, out, softmax_lse, dq, dk,
 * dv, dropout_p, softmax_scale, causal, ...)
 */
static int f_flash_attn_bwd(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct attn at = { 1, 2, 3, 0, 11, 1 };

	return attention(s, &at, c);
}

/*
 * Convolution: each output element is a dot product over Cin/groups times
 * the kernel's volume, 2 FLOPs a term, plus one for the bias (as
 * TraceLens counts); bytes input + weight + bias + output.  Output size per
 * spatial dim: (in + 2 pad - dil (k - 1) - 1) / stride + 1, or for a
 * transposed one (in - 1) stride - 2 pad + dil (k - 1) + out_pad + 1
 * (torch.nn.Conv*d / ConvTranspose*d docs).  The backward computes the
 * input's and the weight's gradients as output_mask asks, each as many
 * FLOPs as the forward.
 */
struct conv {
	int input, weight, bias;	/* inputs; bias -1: none */
	int stride, pad, dil, transposed, out_pad, groups;	/* Concrete Inputs; -1: none */
};

/* Concrete Inputs[i] as one value per spatial dim (a one-element list applies to all). */
static int conc_per_dim(const struct pm_shapes *s, int i, int nsp, double *v)
{
	int n = conc_ints(s, i, v, PM_RANK);

	if (n == 1)
		for (int k = 1; k < nsp; k++)
			v[k] = v[0];
	return n == 1 || n == nsp ? 0 : -1;
}

/* The output's elements and the FLOPs without bias; -1 when the args do not fit. */
static int conv_out(const struct pm_shapes *s, const struct conv *cv, double *out,
		    double *flops)
{
	int nsp = s->rank[cv->input] - 2, tr = 0;
	double st[PM_RANK], pd[PM_RANK], dl[PM_RANK], op[PM_RANK], g, in_sp = 1, out_sp = 1;
	double kvol = 1, cout;
	const double *in = s->dim[cv->input], *w = s->dim[cv->weight];

	if (nsp < 1 || nsp > 3 || s->rank[cv->weight] != nsp + 2)
		return -1;
	if (conc_per_dim(s, cv->stride, nsp, st) || conc_per_dim(s, cv->pad, nsp, pd) ||
	    conc_per_dim(s, cv->dil, nsp, dl))
		return -1;
	if (cv->transposed >= 0 && (tr = conc_bool(s, cv->transposed)) < 0)
		return -1;
	if (tr && conc_per_dim(s, cv->out_pad, nsp, op))
		return -1;
	if ((g = conc_int(s, cv->groups)) < 1)
		return -1;
	for (int i = 0; i < nsp; i++) {
		double k = w[2 + i], o;

		if (st[i] < 1)
			return -1;
		if (tr)
			o = (in[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (k - 1) + op[i] + 1;
		else
			o = floor((in[2 + i] + 2 * pd[i] - dl[i] * (k - 1) - 1) / st[i]) + 1;
		if (o < 1)
			return -1;
		out_sp *= o;
		in_sp *= in[2 + i];
		kvol *= k;
	}
	/*
	 * weight [Cout, Cin/g, k...]: each output element sums Cin/g * kvol
	 * terms; transposed [Cin, Cout/g, k...]: each input element feeds
	 * Cout/g * kvol outputs.
	 */
	cout = tr ? w[1] * g : w[0];
	*flops = tr ? 2 * in[0] * w[0] * in_sp * w[1] * kvol
		    : 2 * in[0] * cout * out_sp * w[1] * kvol;
	*out = in[0] * cout * out_sp;
	return 0;
}

static int conv(const struct pm_shapes *s, const struct conv *cv, struct perf_call *c)
{
	double out, flops, bytes;
	int bias;

	if (!tensor(s, cv->input, 3, 0) || !tensor(s, cv->weight, 3, 0) ||
	    conv_out(s, cv, &out, &flops))
		return -1;
	bias = cv->bias >= 0 && tensor(s, cv->bias, 1, 1);
	if (bias)
		flops += out;
	bytes = tbytes(s, cv->input) + tbytes(s, cv->weight) + (bias ? tbytes(s, cv->bias) : 0) +
		out * s->elem[cv->input];
	return set(c, flops, bytes, s->dtype[cv->input]);
}

/*
 * aten::convolution(input, weight, bias, stride, padding, dilation,
 * transposed, output_padding, groups)
 */
static int f_convolution(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct conv cv = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

	return conv(s, &cv, c);
}

/*
 * aten::convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask)
 */
static int f_conv_bwd(const struct pm_shapes *s, struct perf_call *c)
{
	static const struct conv cv = { 1, 2, -1, 4, 5, 6, 7, 8, 9 };
	double out, flops, mask[3], bytes;
	int nm;
	const char *p;

	if (!tensor(s, 0, 3, 0) || !tensor(s, 1, 3, 0) || !tensor(s, 2, 3, 0) ||
	    conv_out(s, &cv, &out, &flops) || s->nr_concrete < 11)
		return -1;
	/* output_mask is "[True, True, False]": count the Trues of the first two */
	p = s->conc[10];
	nm = 0;
	mask[0] = mask[1] = 0;
	for (size_t i = 0, k = 0; i < s->nr_conc[10] && k < 3; i++) {
		if (p[i] == 'T' || p[i] == 'F') {
			if (k < 2)
				mask[k] = p[i] == 'T';
			k++;
			nm++;
		}
	}
	if (nm < 2)
		return -1;
	bytes = tbytes(s, 0) + tbytes(s, 1) + tbytes(s, 2) + mask[0] * tbytes(s, 1) +
		mask[1] * tbytes(s, 2);
	return set(c, flops * (mask[0] + mask[1]), bytes, s->dtype[1]);
}

/*
 * Memory-bound families: FLOPs per element of the first input, after the
 * ELECTRA FLOPs counter (google-research/electra, flops_computation.py:
 * LAYER_NORM_FLOPS 5, SOFTMAX_FLOPS 5) and one per element for
 * elementwise ops and reductions; bytes: the tensor inputs read and an
 * output of the first input's size written (a reduction writes less:
 * its output's size is not in the shapes, and it is small).
 */
static int per_elem(const struct pm_shapes *s, struct perf_call *c, double flops_per,
		    int reduce)
{
	double n, bytes = 0;

	if (!tensor(s, 0, 0, 0))
		return -1;
	n = numel(s, 0);
	for (int i = 0; i < s->nr; i++)
		if (tensor(s, i, 0, 0)) {
			double e = numel(s, i);

			bytes += e * s->elem[i];
			if (e > n)
				n = e;	/* a broadcast: the output is the largest input */
		}
	if (!reduce)
		bytes += n * s->elem[0];
	return set(c, flops_per * n, bytes, s->dtype[0]);
}

static int f_norm(const struct pm_shapes *s, struct perf_call *c)
{
	return per_elem(s, c, 5, 0);
}

static int f_rms_norm(const struct pm_shapes *s, struct perf_call *c)
{
	return per_elem(s, c, 4, 0);	/* square, sum, scale by rsqrt, weight */
}

static int f_softmax(const struct pm_shapes *s, struct perf_call *c)
{
	return per_elem(s, c, 5, 0);
}

static int f_elementwise(const struct pm_shapes *s, struct perf_call *c)
{
	return per_elem(s, c, 1, 0);
}

static int f_reduce(const struct pm_shapes *s, struct perf_call *c)
{
	return per_elem(s, c, 1, 1);
}

static const struct perf_entry {
	const char *name;
	enum name_how how;
	enum category family;
	int (*eval)(const struct pm_shapes *, struct perf_call *);
} table[] = {
	{ "aten::mm", NAME_IS, CAT_GEMM, f_mm },
	{ "aten::addmm", NAME_IS, CAT_GEMM, f_addmm },
	{ "aten::bmm", NAME_IS, CAT_GEMM, f_bmm },
	{ "aten::baddbmm", NAME_IS, CAT_GEMM, f_baddbmm },
	{ "aten::matmul", NAME_IS, CAT_GEMM, f_matmul },
	{ "aten::linear", NAME_IS, CAT_GEMM, f_linear },
	{ "aten::_scaled_mm", NAME_IS, CAT_GEMM, f_scaled_mm },
	{ "aten::_scaled_dot_product_flash_attention", NAME_IS, CAT_ATTENTION, f_sdpa_flash },
	{ "aten::_scaled_dot_product_flash_attention_backward", NAME_IS, CAT_ATTENTION,
	  f_sdpa_flash_bwd },
	{ "aten::_scaled_dot_product_efficient_attention", NAME_IS, CAT_ATTENTION,
	  f_sdpa_efficient },
	{ "aten::_scaled_dot_product_cudnn_attention", NAME_IS, CAT_ATTENTION, f_sdpa_efficient },
	/*
	 * Not aten::_flash_attention_forward: the SDPA operator above it is
	 * the one reported (the innermost modelled operator gets the row).
	 */
	{ "flash_attn::_flash_attn_forward", NAME_IS, CAT_ATTENTION, f_flash_attn },
	{ "flash_attn::_flash_attn_backward", NAME_IS, CAT_ATTENTION, f_flash_attn_bwd },
	/*
	 * Not aten::_convolution, cudnn_convolution, miopen_convolution: the
	 * aten::convolution above them is the one reported, as TraceLens does.
	 */
	{ "aten::convolution", NAME_IS, CAT_CONV, f_convolution },
	{ "aten::convolution_backward", NAME_IS, CAT_CONV, f_conv_bwd },
	{ "aten::native_layer_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::layer_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::native_group_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::group_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::native_batch_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::_native_batch_norm_legit_no_training", NAME_IS, CAT_NORM, f_norm },
	{ "aten::cudnn_batch_norm", NAME_IS, CAT_NORM, f_norm },
	{ "aten::rms_norm", NAME_IS, CAT_NORM, f_rms_norm },
	{ "aten::_fused_rms_norm", NAME_IS, CAT_NORM, f_rms_norm },
	{ "aten::_softmax", NAME_IS, CAT_SOFTMAX, f_softmax },
	{ "aten::softmax", NAME_IS, CAT_SOFTMAX, f_softmax },
	{ "aten::_log_softmax", NAME_IS, CAT_SOFTMAX, f_softmax },
	{ "aten::add", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::add_", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::sub", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::mul", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::mul_", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::div", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::div_", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::neg", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::rsqrt", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::pow", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::exp", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::cos", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::sin", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::relu", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::silu", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::gelu", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::sigmoid", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::tanh", NAME_IS, CAT_ELEMENTWISE, f_elementwise },
	{ "aten::sum", NAME_IS, CAT_REDUCE, f_reduce },
	{ "aten::mean", NAME_IS, CAT_REDUCE, f_reduce },
	{ "aten::amax", NAME_IS, CAT_REDUCE, f_reduce },
	{ "aten::max", NAME_IS, CAT_REDUCE, f_reduce },
	{ "aten::argmax", NAME_IS, CAT_REDUCE, f_reduce },
};

static const struct perf_entry *find(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (name_matches(table[i].how, table[i].name, name, n))
			return &table[i];
	return NULL;
}

enum category perf_model_family(const char *name, size_t n)
{
	const struct perf_entry *e = find(name, n);

	return e ? e->family : CAT_NONE;
}

void perf_model_eval(const char *name, size_t n, const struct perf_args *a,
		     struct perf_call *c)
{
	const struct perf_entry *e = find(name, n);
	struct pm_shapes sh;

	memset(c, 0, sizeof(*c));
	c->flops = c->bytes = NAN;
	if (!e)
		return;
	c->family = category_family(e->family);
	if (parse(a, &sh) || e->eval(&sh, c)) {
		c->flops = c->bytes = NAN;
		c->dtype = PERF_DTYPE_UNKNOWN;
		return;
	}
	c->known = isfinite(c->flops) && isfinite(c->bytes) && c->flops >= 0 && c->bytes >= 0;
}

const char *perf_dtype_name(enum perf_dtype d)
{
	static const char *const names[PERF_NR_DTYPES] = {
		NULL, "fp64", "fp32", "tf32", "bf16", "fp16", "fp8",
	};

	return d > 0 && d < PERF_NR_DTYPES ? names[d] : NULL;
}
