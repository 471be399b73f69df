/*
 * opsperf: see opsperf.h.  Calls are grouped by shape key with a sort of
 * (key, device time) pairs, so that each group's median is at hand; the
 * model is evaluated once per group.  Rows hold no peak: lib/stats/
 * perf_peak.c adds the shares once the device (or --peak-tflops) is known.
 */
#include "opsperf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_peak.h"
#include "grow.h"
#include "perf_model.h"
#include "sat.h"

/*
 * Phases get their FLOPs by a search per call and phase: the first this
 * many with spans (a pipeline has a handful; a hostile trace may have
 * thousands of root annotations, and a million calls).
 */
#define OPSPERF_MAX_PHASES 64

/*
 * JSON text s[0..n) on one line, as a Python list prints ("[[8944, 1024],
 * []]"): a pretty-printed trace's newlines and indents would split one
 * shape into several keys and spread over the report's lines.
 */
static void add_json_line(struct buf *b, const char *s, size_t n)
{
	int in_str = 0;

	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (in_str) {
			if (ch == '\\' && i + 1 < n) {
				buf_addc(b, ch);
				ch = s[++i];
			} else if (ch == '"') {
				in_str = 0;
			}
		} else if (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r') {
			continue;
		} else if (ch == '"') {
			in_str = 1;
		} else if (ch == ',') {
			buf_add(b, ", ", 2);
			continue;
		}
		buf_addc(b, ch);
	}
}

/*
 * The TFLOP/s no call can pass: twice (2:4 sparsity) the device's best
 * dense figure in any dtype (an fp32 matmul may run on TF32 cores), or,
 * on a device of unknown peak, 100 PFLOP/s (twenty times the fastest
 * dense figure in device_peak.c).  A shape whose fastest call would pass
 * it has model FLOPs that are not the work done (dims of 2^63 - 1).
 */
#define OPSPERF_MAX_TFLOPS 1e5

double opsperf_ceiling(const char *device_name)
{
	struct device_peak dp;
	double best = 0;

	device_peak_find(device_name, &dp);
	for (int d = 1; d < PERF_NR_DTYPES; d++)
		if (device_peak_tflops(&dp, (enum perf_dtype)d) > best)
			best = device_peak_tflops(&dp, (enum perf_dtype)d);
	return best > 0 ? 2 * best : OPSPERF_MAX_TFLOPS;
}

static int cmp_call(const void *a, const void *b)
{
	const struct opsperf_call *x = a, *y = b;

	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	if (x->dev_ns != y->dev_ns)
		return x->dev_ns < y->dev_ns ? -1 : 1;
	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static int cmp_row(const void *a, const void *b)
{
	const struct report_op_perf *x = a, *y = b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return strcmp(x->input_dims, y->input_dims);
}

/* Field k (0 name, 1 dims, 2 types, 3 concrete) of key s[0..n). */
static const char *field(const char *s, size_t n, int k, size_t *len)
{
	const char *end = s + n, *q;

	for (; k > 0 && s < end; k--) {
		q = memchr(s, OPSPERF_SEP, (size_t)(end - s));
		s = q ? q + 1 : end;
	}
	q = memchr(s, OPSPERF_SEP, (size_t)(end - s));
	*len = (size_t)((q ? q : end) - s);
	return s;
}

void opsperf_eval(const struct strtab *keys, uint32_t id, struct perf_call *pc)
{
	const char *key = strtab_str(keys, id), *f[4];
	size_t klen = strtab_len(keys, id), len[4];
	struct perf_args args;

	for (int k = 0; k < 4; k++)
		f[k] = field(key, klen, k, &len[k]);
	args = (struct perf_args){ f[1], f[2], f[3], len[1], len[2], len[3] };
	perf_model_eval(f[0], len[0], &args, pc);
}

static int fill_row(const struct strtab *keys, uint32_t id, const struct opsperf_call *c,
		    size_t n, struct arena *a, struct report_op_perf *r, struct perf_call *pc)
{
	const char *key = strtab_str(keys, id), *f[4];
	size_t klen = strtab_len(keys, id), len[4];
	struct perf_args args;
	int64_t total = 0;

	for (int k = 0; k < 4; k++)
		f[k] = field(key, klen, k, &len[k]);
	args = (struct perf_args){ f[1], f[2], f[3], len[1], len[2], len[3] };
	perf_model_eval(f[0], len[0], &args, pc);
	memset(r, 0, sizeof(*r));
	r->name = arena_strndup(a, f[0], len[0]);
	r->input_dims = arena_strndup(a, f[1], len[1]);
	r->input_types = arena_strndup(a, f[2], len[2]);
	r->concrete_inputs = arena_strndup(a, f[3], len[3]);
	if (!r->name || !r->input_dims || !r->input_types || !r->concrete_inputs)
		return -1;
	r->family = pc->family;
	r->dtype = pc->known ? perf_dtype_name(pc->dtype) : NULL;
	r->count = (int64_t)n;
	for (size_t i = 0; i < n; i++)
		total = sat_add(total, c[i].dev_ns);
	r->total_ns = total;
	r->mean_ns = (double)total / (double)n;
	r->min_ns = c[0].dev_ns;
	r->max_ns = c[n - 1].dev_ns;
	r->median_ns = c[(n - 1) / 2].dev_ns;	/* lower median, as report_dist's */
	r->flops = pc->known ? pc->flops : NAN;
	r->bytes = pc->known ? pc->bytes : NAN;
	/* FLOPs per ns is GFLOP/s: /1e3 for TFLOP/s; bytes per ns likewise */
	r->tflops_median = pc->known ? pc->flops / (double)r->median_ns / 1e3 : NAN;
	r->tbps_median = pc->known ? pc->bytes / (double)r->median_ns / 1e3 : NAN;
	r->intensity = pc->known && pc->bytes > 0 ? pc->flops / pc->bytes : NAN;
	r->peak_tflops = r->peak_share = r->roof_share = NAN;
	return 0;
}

int opsperf_finish(const struct strtab *keys, struct opsperf_call *calls, size_t n,
		   struct arena *a, struct report_rank *rk, struct opsperf_when *when_flops)
{
	size_t rows = 0;
	double ceiling = opsperf_ceiling(rk->device_name);
	uint32_t *norm = calloc((size_t)strtab_count(keys) + 1, sizeof(*norm));
	struct strtab lines;	/* the keys on one line: the rows' */
	struct buf line;
	int rc = -1;

	strtab_init(&lines, 1);
	buf_init(&line);
	if (!norm)
		goto out;
	/* Two texts of one shape (indented otherwise) make one row. */
	for (size_t i = 0; i < n; i++) {
		uint32_t id = calls[i].shape;

		if (!norm[id]) {
			const char *k = strtab_str(keys, id), *sep = memchr(k, OPSPERF_SEP,
									   strtab_len(keys, id));
			size_t nk = strtab_len(keys, id), head = sep ? (size_t)(sep - k) : nk;

			buf_reset(&line);
			buf_add(&line, k, head);
			add_json_line(&line, k + head, nk - head);
			if (!buf_ok(&line) ||
			    (norm[id] = strtab_intern(&lines, line.data, line.len)) == STRTAB_OOM)
				goto out;
		}
		calls[i].shape = norm[id];
	}
	keys = &lines;
	if (n > 1)
		qsort(calls, n, sizeof(*calls), cmp_call);
	for (size_t i = 0; i < n; i++)
		rows += !i || calls[i].shape != calls[i - 1].shape;
	rk->ops_perf = arena_alloc(a, (rows ? rows : 1) * sizeof(*rk->ops_perf));
	if (!rk->ops_perf)
		goto out;
	rows = 0;
	for (size_t i = 0, j; i < n; i = j) {
		struct report_op_perf *r;
		struct perf_call pc;

		for (j = i + 1; j < n && calls[j].shape == calls[i].shape; j++)
			;
		if (fill_row(keys, calls[i].shape, &calls[i], j - i, a, &rk->ops_perf[rows++], &pc))
			goto out;
		if (!pc.known)
			continue;
		r = &rk->ops_perf[rows - 1];
		if (!(pc.flops / (double)r->min_ns / 1e3 <= ceiling)) {
			r->implausible = 1;
			continue;
		}
		if (ALLOC_GROW(when_flops->v, when_flops->n + (j - i), when_flops->alloc))
			goto out;
		for (size_t k = i; k < j; k++)
			when_flops->v[when_flops->n++] =
				(struct opsperf_flops){ calls[k].ts_ns, calls[k].dev_ns,
							pc.flops, (uint32_t)pc.dtype };
	}
	if (rows > 1)
		qsort(rk->ops_perf, rows, sizeof(*rk->ops_perf), cmp_row);
	rk->nr_ops_perf = rows;
	rc = 0;
out:
	free(norm);
	buf_release(&line);
	strtab_release(&lines);
	return rc;
}

/* Whether t (since the rank's first event) lies in one of the n [start, end) pairs v. */
static int in_spans(const int64_t *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first pair starting after t */
		size_t mid = lo + (hi - lo) / 2;

		if (v[2 * mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t < v[2 * (lo - 1) + 1];
}

struct when_at {
	int64_t t;	/* since the rank's first event */
	size_t j;	/* in the calls' order */
};

static int cmp_when_at(const void *a, const void *b)
{
	const struct when_at *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The first of v[0..n) at or after t. */
static size_t first_at(const struct when_at *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * out[g]: the FLOPs of the calls in generation g's [start, start + wall).
 * With the calls sorted by time, a generation's calls are a run, found by
 * bisection; they are summed in w's order, so that each sum is the one a
 * test of every call against every generation gives, to the bit.
 * Generations overlap only where a root outlasts the next one's start:
 * where the runs hold many times the calls (a hostile trace), each sum is
 * a difference of running sums in time order instead, or the time would
 * grow with calls x generations.
 */
static int generation_flops(const struct opsperf_flops *w, size_t n, const struct report_rank *rk,
			    double *out)
{
	const struct report_throughput *tp = &rk->throughput;
	size_t nr = tp->nr_generations, total = 0, *lo = NULL, *hi = NULL, *run = NULL;
	struct when_at *v = malloc((n ? n : 1) * sizeof(*v));
	double *sum = NULL;
	int rc = -1;

	lo = malloc((nr ? nr : 1) * sizeof(*lo));
	hi = malloc((nr ? nr : 1) * sizeof(*hi));
	if (!v || !lo || !hi)
		goto out;
	for (size_t j = 0; j < n; j++)
		v[j] = (struct when_at){ sat_sub(w[j].ts_ns, rk->start_ns), j };
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_when_at);
	for (size_t g = 0; g < nr; g++) {
		const struct report_generation *gen = &tp->generations[g];

		lo[g] = first_at(v, n, gen->start_ns);
		hi[g] = first_at(v, n, sat_add(gen->start_ns, gen->wall_ns));
		if (hi[g] < lo[g])
			hi[g] = lo[g];
		total += hi[g] - lo[g];
	}
	if (total <= 8 * n) {
		if (!(run = malloc((n ? n : 1) * sizeof(*run))))
			goto out;
		for (size_t g = 0; g < nr; g++) {
			size_t m = hi[g] - lo[g];

			for (size_t i = 0; i < m; i++)
				run[i] = v[lo[g] + i].j;
			if (m > 1)
				qsort(run, m, sizeof(*run), cmp_size);
			out[g] = 0;
			for (size_t i = 0; i < m; i++)
				out[g] += w[run[i]].flops;
		}
	} else {
		if (!(sum = malloc((n + 1) * sizeof(*sum))))
			goto out;
		sum[0] = 0;
		for (size_t i = 0; i < n; i++)
			sum[i + 1] = sum[i] + w[v[i].j].flops;
		for (size_t g = 0; g < nr; g++)
			out[g] = sum[hi[g]] - sum[lo[g]];
	}
	rc = 0;
out:
	free(v);
	free(lo);
	free(hi);
	free(run);
	free(sum);
	return rc;
}

/*
 * The FLOPs of the calls inside each phase with spans, and each generation
 * (phases_finish() filled both; has_phases is set after).
 */
static int by_phase(const struct opsperf_flops *w, size_t n, struct arena *a,
		    struct report_rank *rk)
{
	struct report_perf *p = &rk->perf;
	const struct report_throughput *tp = &rk->throughput;
	size_t k = 0;

	for (size_t i = 0; i < rk->nr_phases && k < OPSPERF_MAX_PHASES; i++)
		k += rk->phases[i].spans_ns != NULL;
	p->phases = arena_alloc(a, (k ? k : 1) * sizeof(*p->phases));
	p->generation_flops = arena_alloc(a, (tp->nr_generations ? tp->nr_generations : 1) *
						     sizeof(*p->generation_flops));
	p->generation_mfu = arena_alloc(a, (tp->nr_generations ? tp->nr_generations : 1) *
						   sizeof(*p->generation_mfu));
	if (!p->phases || !p->generation_flops || !p->generation_mfu)
		return -1;
	k = 0;
	for (size_t i = 0; i < rk->nr_phases && k < OPSPERF_MAX_PHASES; i++) {
		const struct report_phase *ph = &rk->phases[i];
		struct report_perf_phase *q = &p->phases[k];

		if (!ph->spans_ns)
			continue;
		q->path = ph->path;
		/*
		 * The host may run ahead of the device: the work launched in a
		 * phase takes at least its kernels' time, whatever its spans'.
		 */
		q->time_ns = ph->d.total_ns > ph->gpu_ns ? ph->d.total_ns : ph->gpu_ns;
		q->flops = 0;
		for (size_t j = 0; j < n; j++)
			if (in_spans(ph->spans_ns, ph->nr_spans, sat_sub(w[j].ts_ns, rk->start_ns)))
				q->flops += w[j].flops;
		/* ns: GFLOP/s, /1e3 TFLOP/s */
		q->tflops = q->time_ns > 0 ? q->flops / (double)q->time_ns / 1e3 : NAN;
		q->mfu = NAN;	/* perf_peak.c's */
		k++;
	}
	p->nr_phases = k;
	for (size_t g = 0; g < tp->nr_generations; g++)
		p->generation_mfu[g] = NAN;	/* perf_peak.c's */
	p->nr_generations = tp->nr_generations;
	return generation_flops(w, n, rk, p->generation_flops);
}

int opsperf_steps(const struct opsperf_when *when_flops, struct arena *a, struct report_rank *rk)
{
	const struct opsperf_flops *w = when_flops->v;
	size_t n = when_flops->n;
	const struct report_steps *st = &rk->steps;
	struct report_perf *p = &rk->perf;
	double by_dtype[PERF_NR_DTYPES] = { 0 }, best = 0;
	int64_t covered_ns = 0;

	p->flops = 0;
	p->window_ns = 0;
	p->tflops = p->mfu = p->peak_tflops = p->peak_tbps = NAN;
	if (st->nr_durations && st->starts_ns) {
		p->step_flops = arena_alloc(a, st->nr_durations * sizeof(*p->step_flops));
		p->step_mfu = arena_alloc(a, st->nr_durations * sizeof(*p->step_mfu));
		if (!p->step_flops || !p->step_mfu)
			return -1;
		p->nr_steps = st->nr_durations;
		for (size_t s = 0; s < st->nr_durations; s++) {
			p->step_flops[s] = 0;
			p->step_mfu[s] = NAN;	/* perf_peak.c's */
			p->window_ns = sat_add(p->window_ns, st->durations_ns[s]);
		}
	} else {
		/* null without a device: no window */
		p->window_ns = rk->gpu.active_span_ns > 0 ? rk->gpu.active_span_ns : 0;
	}
	/* Steps do not overlap (phases.c): a call is in at most one, found by bisection. */
	for (size_t i = 0; i < n; i++) {
		covered_ns = sat_add(covered_ns, w[i].dev_ns);
		if (p->step_flops) {
			size_t lo = 0, hi = st->nr_durations;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (st->starts_ns[mid] <= w[i].ts_ns)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (!lo || w[i].ts_ns >= sat_add(st->starts_ns[lo - 1],
							st->durations_ns[lo - 1]))
				continue;	/* outside every step */
			p->step_flops[lo - 1] += w[i].flops;
		}
		p->flops += w[i].flops;
		if (w[i].dtype < PERF_NR_DTYPES)
			by_dtype[w[i].dtype] += w[i].flops;
	}
	p->dtype = NULL;
	for (int d = 1; d < PERF_NR_DTYPES; d++)
		if (by_dtype[d] > best) {
			best = by_dtype[d];
			p->dtype = perf_dtype_name((enum perf_dtype)d);
		}
	if (p->window_ns > 0 && p->flops > 0)
		p->tflops = p->flops / (double)p->window_ns / 1e3;
	/* the calls' sum against the kernels' union: streams that overlap can pass 1 */
	p->flops_coverage = rk->gpu.compute_ns > 0
				    ? fmin(1.0, (double)covered_ns / (double)rk->gpu.compute_ns)
				    : NAN;
	return by_phase(w, n, a, rk);
}
