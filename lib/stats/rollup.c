/*
 * rollup: see rollup.h.  Names are matched by hash (a strtab borrowing the
 * report's strings), not by sorting every rank's rows together: a run of a
 * thousand ranks has half a million kernel rows, and one rank may have a
 * million phase paths.  A row is made at a name's first sight, which is in
 * rank order, so "the first rank's" category is simply the one it was made
 * with.
 */
#include "rollup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "grow.h"
#include "sat.h"
#include "strtab.h"

/* A rank's TFLOP/s for the shape of row, until finish_shapes() takes the medians. */
struct shape_tflops {
	size_t row;
	double v;
};

struct shape_build {
	struct strtab keys;		/* name, dims, types and concrete inputs, NUL between */
	size_t alloc;
	struct shape_tflops *tf;
	size_t nr_tf, tf_alloc;
};

/* The row of name among those made so far (ids are dense: n means new); SIZE_MAX: out of memory. */
static size_t row_of(struct strtab *t, const char *name)
{
	uint32_t id = strtab_intern(t, name, strlen(name));

	return id == STRTAB_OOM ? SIZE_MAX : (size_t)id - 1;
}

/* sum + x of figures that may be unknown (negative): -1 until one is known. */
static int64_t add_known(int64_t sum, int64_t x)
{
	if (x < 0)
		return sum;
	return sum < 0 ? x : sat_add(sum, x);
}

static int add_kernels(struct rollup *ru, const struct report_rank *rk, struct strtab *t,
		       size_t *alloc)
{
	for (size_t k = 0; k < rk->nr_kernels; k++) {
		const struct report_kernel *kn = &rk->kernels[k];
		const struct report_dist *d = &kn->d;
		struct rollup_kernel *r;
		size_t i;

		if (kn->nr_folded)	/* the other row: not a kernel of its name */
			continue;
		if ((i = row_of(t, kn->name)) == SIZE_MAX)
			return -1;
		if (i == ru->nr_kernels) {
			if (ALLOC_GROW(ru->kernels, i + 1, *alloc))
				return -1;
			ru->kernels[ru->nr_kernels++] = (struct rollup_kernel){
				.name = kn->name, .category = kn->category,
				.category_source = kn->category_source,
				.min_ns = d->min_ns, .max_ns = d->max_ns, .median_ns = d->median_ns,
			};
		}
		r = &ru->kernels[i];
		r->ranks++;
		/* until finish(): the sum unsaturated, and the instances' M2 */
		r->stddev_ns = report_pool_m2(r->stddev_ns, (double)r->count,
					      r->count ? r->avg_ns / (double)r->count : 0,
					      (double)d->count, d->avg_ns, d->stddev_ns);
		r->count = sat_add(r->count, d->count);
		r->total_ns = sat_add(r->total_ns, d->total_ns);
		r->min_ns = d->min_ns < r->min_ns ? d->min_ns : r->min_ns;
		r->max_ns = d->max_ns > r->max_ns ? d->max_ns : r->max_ns;
		r->avg_ns += (double)d->total_ns;
		if (r->ranks > 1)
			r->median_ns = NAN;	/* rollup_kernel_median() pools the samples */
	}
	return 0;
}

static int add_ops(struct rollup *ru, const struct report_rank *rk, struct strtab *t,
		   size_t *alloc)
{
	for (size_t k = 0; k < rk->nr_cpu_ops; k++) {
		const struct report_cpu_op *op = &rk->cpu_ops[k];
		struct rollup_op *r;
		size_t i;

		if (op->nr_folded)	/* the other row: not an operator of its name */
			continue;
		if ((i = row_of(t, op->name)) == SIZE_MAX)
			return -1;
		if (i == ru->nr_ops) {
			if (ALLOC_GROW(ru->ops, i + 1, *alloc))
				return -1;
			ru->ops[ru->nr_ops++] = (struct rollup_op){ op->name, -1, -1, -1, -1, -1 };
		}
		r = &ru->ops[i];
		r->count = add_known(r->count, op->count);
		r->total_ns = add_known(r->total_ns, op->total_ns);
		r->self_ns = add_known(r->self_ns, op->self_ns);
		r->device_ns = add_known(r->device_ns, op->device_ns);
		r->self_device_ns = add_known(r->self_device_ns, op->self_device_ns);
	}
	return 0;
}

static int add_phases(struct rollup *ru, const struct report_rank *rk, struct strtab *t,
		      size_t *alloc)
{
	for (size_t k = 0; k < rk->nr_phases; k++) {
		const struct report_phase *ph = &rk->phases[k];
		struct rollup_phase *r;
		size_t i;

		if ((i = row_of(t, ph->path)) == SIZE_MAX)
			return -1;
		if (i == ru->nr_phases) {
			if (ALLOC_GROW(ru->phases, i + 1, *alloc))
				return -1;
			ru->phases[ru->nr_phases++] = (struct rollup_phase){
				.path = ph->path, .name = ph->name, .depth = ph->depth, .first = i,
			};
		}
		r = &ru->phases[i];
		r->count = sat_add(r->count, ph->d.count);
		r->total_ns = sat_add(r->total_ns, ph->d.total_ns);
		r->share += (double)ph->d.total_ns;	/* until finish(): the unsaturated sum */
	}
	return 0;
}

static int add_shapes(struct rollup *ru, const struct report_rank *rk, struct shape_build *b)
{
	struct buf key;
	int rc = 0;

	buf_init(&key);
	for (size_t k = 0; k < rk->nr_ops_perf && !rc; k++) {
		const struct report_op_perf *o = &rk->ops_perf[k];
		struct rollup_shape *r;
		uint32_t id;
		size_t i;

		if (isnan(o->flops) || o->implausible)	/* past the peak: not a figure */
			continue;
		buf_reset(&key);
		buf_adds(&key, o->name);
		buf_addc(&key, '\0');
		buf_adds(&key, o->input_dims);
		buf_addc(&key, '\0');
		buf_adds(&key, o->input_types);
		buf_addc(&key, '\0');
		buf_adds(&key, o->concrete_inputs);
		id = buf_ok(&key) ? strtab_intern(&b->keys, key.data, key.len) : STRTAB_OOM;
		if (id == STRTAB_OOM) {
			rc = -1;
			break;
		}
		i = (size_t)id - 1;
		if (i == ru->nr_shapes) {
			if (ALLOC_GROW(ru->shapes, i + 1, b->alloc)) {
				rc = -1;
				break;
			}
			ru->shapes[ru->nr_shapes++] = (struct rollup_shape){ .first = o };
		}
		if (ALLOC_GROW(b->tf, b->nr_tf + 1, b->tf_alloc)) {
			rc = -1;
			break;
		}
		b->tf[b->nr_tf++] = (struct shape_tflops){ i, o->tflops_median };
		r = &ru->shapes[i];
		r->ranks++;
		r->count = sat_add(r->count, o->count);
		r->total_ns = sat_add(r->total_ns, o->total_ns);
		ru->modelled_ns = sat_add(ru->modelled_ns, o->total_ns);
	}
	buf_release(&key);
	return rc;
}

/* By row, then by value, NaN (no TFLOP/s) first. */
static int cmp_tflops(const void *a, const void *b)
{
	const struct shape_tflops *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (isnan(x->v) || isnan(y->v))
		return !isnan(x->v) - !isnan(y->v);
	return (x->v > y->v) - (x->v < y->v);
}

/* Each shape's TFLOP/s: the lower median of its ranks'. */
static void finish_shapes(struct rollup *ru, struct shape_build *b)
{
	if (b->nr_tf > 1)	/* none: tf is NULL, which qsort() may not be given */
		qsort(b->tf, b->nr_tf, sizeof(*b->tf), cmp_tflops);
	for (size_t i = 0, j; i < b->nr_tf; i = j) {
		for (j = i; j < b->nr_tf && b->tf[j].row == b->tf[i].row; j++)
			;
		ru->shapes[b->tf[i].row].tflops = b->tf[i + (j - i - 1) / 2].v;
	}
}

/* Largest total first; of equal totals, by name: the order of every table. */
static int by_total(int64_t x, int64_t y, const char *a, const char *b)
{
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct rollup_kernel *x = a, *y = b;

	return by_total(x->total_ns, y->total_ns, x->name, y->name);
}

static int cmp_op(const void *a, const void *b)
{
	const struct rollup_op *x = a, *y = b;

	return by_total(x->total_ns, y->total_ns, x->name, y->name);
}

static int cmp_phase(const void *a, const void *b)
{
	const struct rollup_phase *x = a, *y = b;

	return by_total(x->total_ns, y->total_ns, x->path, y->path);
}

static int cmp_shape(const void *a, const void *b)
{
	const struct report_op_perf *x = ((const struct rollup_shape *)a)->first;
	const struct report_op_perf *y = ((const struct rollup_shape *)b)->first;
	int c = by_total(((const struct rollup_shape *)a)->total_ns,
			 ((const struct rollup_shape *)b)->total_ns, x->name, y->name);

	if (!c)
		c = strcmp(x->input_dims, y->input_dims);
	if (!c)
		c = strcmp(x->input_types, y->input_types);
	return c ? c : strcmp(x->concrete_inputs, y->concrete_inputs);
}

/*
 * The figures that follow from the sums, and the order.  Means and shares
 * divide the sums in double, which do not saturate: a total shown as
 * INT64_MAX is a bound, its mean is still the mean.  Below 2^53 ns (104
 * days) the double sums are exact, equal to the int64 ones.
 */
static void finish(struct rollup *ru, double kernel_time, double span)
{
	for (size_t i = 0; i < ru->nr_kernels; i++) {
		struct rollup_kernel *r = &ru->kernels[i];
		double n = (double)r->count, total = r->avg_ns;
		double var = r->count ? r->stddev_ns / n : NAN;

		r->avg_ns = r->count ? total / n : NAN;
		r->stddev_ns = var > 0 ? sqrt(var) : var == var ? 0 : NAN;
		r->share = kernel_time != 0 ? total / kernel_time : NAN;
	}
	for (size_t i = 0; i < ru->nr_phases; i++) {
		struct rollup_phase *r = &ru->phases[i];

		r->share = span != 0 ? r->share / span : NAN;
	}
	if (ru->nr_kernels > 1)
		qsort(ru->kernels, ru->nr_kernels, sizeof(*ru->kernels), cmp_kernel);
	if (ru->nr_ops > 1)
		qsort(ru->ops, ru->nr_ops, sizeof(*ru->ops), cmp_op);
	if (ru->nr_phases > 1)
		qsort(ru->phases, ru->nr_phases, sizeof(*ru->phases), cmp_phase);
	if (ru->nr_shapes > 1)
		qsort(ru->shapes, ru->nr_shapes, sizeof(*ru->shapes), cmp_shape);
}

int rollup_init(struct rollup *ru, const struct report *rep)
{
	struct strtab kernels, ops, phases;
	struct shape_build shapes = { .alloc = 0 };
	size_t kernels_alloc = 0, ops_alloc = 0, phases_alloc = 0;
	double kernel_time = 0, span = 0;	/* unsaturated, for finish() */
	int rc = 0;

	memset(ru, 0, sizeof(*ru));
	ru->rep = rep;
	strtab_init(&kernels, 0);
	strtab_init(&ops, 0);
	strtab_init(&phases, 0);
	strtab_init(&shapes.keys, 1);
	for (size_t i = 0; i < rep->nr_ranks && !rc; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (rk->analysed && rk->nr_kernels) {
			/* null (INT64_MIN) without a device */
			if (rk->gpu.kernel_time_ns > 0) {
				ru->kernel_time_ns = sat_add(ru->kernel_time_ns,
							     rk->gpu.kernel_time_ns);
				kernel_time += (double)rk->gpu.kernel_time_ns;
			}
			rc |= add_kernels(ru, rk, &kernels, &kernels_alloc);
		}
		if (rk->analysed && rk->nr_cpu_ops)
			rc |= add_ops(ru, rk, &ops, &ops_alloc);
		if (rk->analysed && rk->nr_ops_perf)
			rc |= add_shapes(ru, rk, &shapes);
		if (rk->has_phases && rk->nr_phases) {
			ru->span_ns = sat_add(ru->span_ns, rk->span_ns);
			span += (double)rk->span_ns;
			rc |= add_phases(ru, rk, &phases, &phases_alloc);
		}
	}
	strtab_release(&kernels);
	strtab_release(&ops);
	strtab_release(&phases);
	strtab_release(&shapes.keys);
	if (!rc)
		finish_shapes(ru, &shapes);
	free(shapes.tf);
	if (rc) {
		rollup_release(ru);
		return -1;
	}
	finish(ru, kernel_time, span);
	return 0;
}

void rollup_release(struct rollup *ru)
{
	free(ru->kernels);
	free(ru->ops);
	free(ru->phases);
	free(ru->shapes);
	memset(ru, 0, sizeof(*ru));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether kn is one of the rows that add_kernels() summed into the row of name. */
static int summed_into(const struct report_kernel *kn, const char *name)
{
	return !kn->nr_folded && !strcmp(kn->name, name);
}

int rollup_kernel_median(const struct rollup *ru, const struct rollup_kernel *k, double *median)
{
	const struct report *rep = ru->rep;
	size_t all = 0, n = 0;
	int64_t *v;

	*median = NAN;
	if (k->ranks == 1) {
		*median = k->median_ns;
		return 0;
	}
	/* the size first, so that memory follows the samples there are, not a count read back */
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		for (size_t j = 0; rk->analysed && j < rk->nr_kernels; j++) {
			const struct report_kernel *kn = &rk->kernels[j];

			if (!summed_into(kn, k->name))
				continue;
			if (kn->d.count < 0 || kn->samples.n != (uint64_t)kn->d.count)
				return 0;	/* only quantiles kept: no exact median */
			all += kn->samples.n;
		}
	}
	if (!all)
		return 0;
	if (!(v = malloc(all * sizeof(*v))))
		return -1;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		for (size_t j = 0; rk->analysed && j < rk->nr_kernels; j++) {
			const struct report_kernel *kn = &rk->kernels[j];

			if (summed_into(kn, k->name) && kn->samples.n) {
				memcpy(v + n, kn->samples.v, kn->samples.n * sizeof(*v));
				n += kn->samples.n;
			}
		}
	}
	qsort(v, n, sizeof(*v), cmp_i64);
	*median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	free(v);
	return 0;
}
