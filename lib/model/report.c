/*
 * report: see report.h.  Every key written here is a row of doc/report.md,
 * the contract (tests/cli/059 fails on one that is not).
 */
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonw.h"
#include "report_json.h"
#include "metric.h"
#include "report_fields.h"
#include "report_perf.h"
#include "sat.h"
#include "sort.h"

void report_init(struct report *r, const char *tool)
{
	memset(r, 0, sizeof(*r));
	r->tool = tool;
	arena_init(&r->arena);
}

void report_release(struct report *r)
{
	arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}

static int ranks_reserve(struct report *r, size_t need)
{
	struct report_rank *v;
	size_t alloc = r->ranks_alloc > r->nr_ranks ? r->ranks_alloc : r->nr_ranks;

	if (need <= alloc) {
		r->ranks_alloc = alloc;
		return 0;
	}
	while (alloc < need)
		alloc = alloc ? 2 * alloc : 16;
	v = arena_alloc(&r->arena, alloc * sizeof(*v));
	if (!v)
		return -1;
	if (r->nr_ranks)
		memcpy(v, r->ranks, r->nr_ranks * sizeof(*v));
	r->ranks = v;
	r->ranks_alloc = alloc;
	return 0;
}

struct report_rank *report_add_rank(struct report *r)
{
	struct report_rank *rk;

	if (ranks_reserve(r, r->nr_ranks + 1))
		return NULL;
	rk = &r->ranks[r->nr_ranks++];
	memset(rk, 0, sizeof(*rk));
	return rk;
}

int report_adopt(struct report *dst, struct report *src)
{
	const char *tool = src->tool;

	if (ranks_reserve(dst, dst->nr_ranks + src->nr_ranks))
		return -1;
	if (src->nr_ranks)
		memcpy(dst->ranks + dst->nr_ranks, src->ranks, src->nr_ranks * sizeof(*src->ranks));
	dst->nr_ranks += src->nr_ranks;
	arena_adopt(&dst->arena, &src->arena);
	report_release(src);
	report_init(src, tool);
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void report_dist_of(struct report_dist *d, int64_t *v, size_t n)
{
	double mean, var = 0;

	memset(d, 0, sizeof(*d));
	if (n == 0)
		return;
	if (sort_i64(v, n) && n > 1)
		qsort(v, n, sizeof(*v), cmp_i64);	/* out of memory: slower, same result */
	d->count = (int64_t)n;
	for (size_t i = 0; i < n; i++)
		d->total_ns = sat_add(d->total_ns, v[i]);
	d->min_ns = v[0];
	d->max_ns = v[n - 1];
	mean = (double)d->total_ns / (double)n;
	d->avg_ns = mean;
	d->median_ns = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		var += ((double)v[i] - mean) * ((double)v[i] - mean);
	d->stddev_ns = sqrt(var / (double)n);
}

double report_pool_m2(double m2, double na, double ma, double nb, double mb, double sb)
{
	double delta = mb - ma;

	if (nb == 0)
		return m2;
	if (na == 0)
		return nb * sb * sb;
	return m2 + nb * sb * sb + delta * delta * (na * nb / (na + nb));
}

/*
 * The other row's figures, summed row by row: counts and totals saturate,
 * min and max are the extremes, the deviation is pooled from the rows'
 * counts, means and deviations (report_pool_m2()); no median can be known.
 */
struct dist_fold {
	struct report_dist d;
	double n, total, m2;
};

static void dist_fold_init(struct dist_fold *f)
{
	memset(f, 0, sizeof(*f));
	f->d.min_ns = INT64_MAX;
	f->d.max_ns = INT64_MIN;
}

static void dist_fold_add(struct dist_fold *f, const struct report_dist *d)
{
	f->d.count = sat_add(f->d.count, d->count);
	f->d.total_ns = sat_add(f->d.total_ns, d->total_ns);
	f->d.min_ns = d->min_ns < f->d.min_ns ? d->min_ns : f->d.min_ns;
	f->d.max_ns = d->max_ns > f->d.max_ns ? d->max_ns : f->d.max_ns;
	f->m2 = report_pool_m2(f->m2, f->n, f->n ? f->total / f->n : 0, (double)d->count,
			       d->avg_ns, d->stddev_ns);
	f->n += (double)d->count;
	f->total += (double)d->total_ns;
}

static struct report_dist dist_fold_done(const struct dist_fold *f)
{
	struct report_dist d = f->d;

	if (d.count) {
		double var = f->m2 / f->n;

		d.avg_ns = (double)d.total_ns / (double)d.count;
		d.stddev_ns = var > 0 ? sqrt(var) : 0;
	}
	d.median_ns = NAN;
	return d;
}

static void fold_kernels(struct report_rank *rk, size_t max)
{
	struct report_kernel *o = &rk->kernels[max];
	struct report_kernel sum = { .name = "(other kernels)",
				     .category = category_name(CAT_OTHER) };
	struct dist_fold f;

	dist_fold_init(&f);
	for (size_t i = max; i < rk->nr_kernels; i++) {
		const struct report_kernel *k = &rk->kernels[i];

		dist_fold_add(&f, &k->d);
		sum.share += k->share;
		sum.nr_folded += k->nr_folded ? k->nr_folded : 1;
	}
	sum.d = dist_fold_done(&f);
	*o = sum;
	rk->nr_kernels = max + 1;
}

/* Null (INT64_MIN) stays null only when every row has it null. */
static int64_t add_nullable(int64_t acc, int64_t v)
{
	if (v == INT64_MIN)
		return acc;
	return acc == INT64_MIN ? v : sat_add(acc, v);
}

static void fold_cpu_ops(struct report_rank *rk, size_t max)
{
	struct report_cpu_op sum = { "(other operators)", 0, 0, 0, INT64_MIN, INT64_MIN, 0 };

	for (size_t i = max; i < rk->nr_cpu_ops; i++) {
		const struct report_cpu_op *op = &rk->cpu_ops[i];

		sum.count = sat_add(sum.count, op->count);
		sum.total_ns = sat_add(sum.total_ns, op->total_ns);
		sum.self_ns = sat_add(sum.self_ns, op->self_ns);
		sum.device_ns = add_nullable(sum.device_ns, op->device_ns);
		sum.self_device_ns = add_nullable(sum.self_device_ns, op->self_device_ns);
		sum.nr_folded += op->nr_folded ? op->nr_folded : 1;
	}
	rk->cpu_ops[max] = sum;
	rk->nr_cpu_ops = max + 1;
}

/* Count and device times summed; no FLOPs, median or peak: the shapes differ. */
static void fold_ops_perf(struct report_rank *rk, size_t max)
{
	struct report_op_perf sum = { .name = "(other shapes)", .input_dims = "",
				      .input_types = "", .concrete_inputs = "" };

	sum.min_ns = INT64_MAX;
	sum.max_ns = INT64_MIN;
	for (size_t i = max; i < rk->nr_ops_perf; i++) {
		const struct report_op_perf *o = &rk->ops_perf[i];

		sum.count = sat_add(sum.count, o->count);
		sum.total_ns = sat_add(sum.total_ns, o->total_ns);
		sum.min_ns = o->min_ns < sum.min_ns ? o->min_ns : sum.min_ns;
		sum.max_ns = o->max_ns > sum.max_ns ? o->max_ns : sum.max_ns;
		sum.nr_folded += o->nr_folded ? o->nr_folded : 1;
	}
	sum.mean_ns = sum.count ? (double)sum.total_ns / (double)sum.count : NAN;
	sum.median_ns = INT64_MIN;
	sum.flops = sum.bytes = sum.tflops_median = sum.tbps_median = sum.intensity = NAN;
	sum.peak_tflops = sum.peak_share = sum.roof_share = NAN;
	rk->ops_perf[max] = sum;
	rk->nr_ops_perf = max + 1;
}

void report_fold_rows(struct report_rank *rk, size_t max)
{
	if (rk->nr_kernels > max + 1)
		fold_kernels(rk, max);
	if (rk->nr_cpu_ops > max + 1)
		fold_cpu_ops(rk, max);
	if (rk->nr_ops_perf > max + 1)
		fold_ops_perf(rk, max);
}

static int cmp_i64_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

int report_fold_comm(struct report_rank *rk, size_t max)
{
	struct report_comm_series other = { .name = "(other collectives)",
					    .group_size = INT64_MIN };
	int64_t *n, least;
	size_t at_least = 0, kept = 0;

	if (rk->nr_comm <= max + 1 || !max)
		return 0;
	if (!(n = malloc(rk->nr_comm * sizeof(*n))))
		return -1;
	for (size_t i = 0; i < rk->nr_comm; i++)
		n[i] = (int64_t)rk->comm[i].n;
	qsort(n, rk->nr_comm, sizeof(*n), cmp_i64_desc);
	least = n[max - 1];
	/* of the series with the least count kept, the first at_least in order */
	for (size_t i = 0; i < max; i++)
		at_least += n[i] == least;
	free(n);
	for (size_t i = 0; i < rk->nr_comm; i++) {
		const struct report_comm_series *s = &rk->comm[i];

		if (kept < max && ((int64_t)s->n > least || ((int64_t)s->n == least && at_least))) {
			at_least -= (int64_t)s->n == least;
			rk->comm[kept++] = *s;
		} else {
			other.nr_folded += s->nr_folded ? s->nr_folded : 1;
		}
	}
	rk->comm[kept] = other;
	rk->nr_comm = kept + 1;
	return 0;
}

struct phase_rank {
	int64_t total_ns;
	size_t idx;
};

static int cmp_phase_rank(const void *a, const void *b)
{
	const struct phase_rank *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The "other" row of the phases not kept[]: sums as fold_kernels() makes them. */
static struct report_phase other_phase(const struct report_rank *rk, const unsigned char *kept)
{
	struct report_phase sum = { .name = "(other phases)", .path = "(other phases)",
				    .gpu_ns = INT64_MIN };
	struct dist_fold f;

	dist_fold_init(&f);
	for (size_t i = 0; i < rk->nr_phases; i++) {
		const struct report_phase *ph = &rk->phases[i];

		if (kept[i])
			continue;
		dist_fold_add(&f, &ph->d);
		sum.share += ph->share;
		sum.gpu_ns = add_nullable(sum.gpu_ns, ph->gpu_ns);
		sum.nr_folded += ph->nr_folded ? ph->nr_folded : 1;
	}
	sum.d = dist_fold_done(&f);
	return sum;
}

int report_fold_phases(struct report_rank *rk, size_t max)
{
	size_t n = rk->nr_phases, kept = 0, top = 0, k = 0;
	struct phase_rank *order;
	size_t *parent, *stack;
	unsigned char *keep;
	int rc = -1;

	if (n <= max + 1 || !max)
		return 0;
	order = malloc(n * sizeof(*order));
	parent = malloc(n * sizeof(*parent));
	stack = malloc(n * sizeof(*stack));
	keep = calloc(n, 1);
	if (!order || !parent || !stack || !keep)
		goto out;
	/* rows in depth-first order: a row's parent is the last shallower one before it */
	for (size_t i = 0; i < n; i++) {
		while (top && rk->phases[stack[top - 1]].depth >= rk->phases[i].depth)
			top--;
		parent[i] = top ? stack[top - 1] : SIZE_MAX;
		stack[top++] = i;
		order[i] = (struct phase_rank){ rk->phases[i].d.total_ns, i };
	}
	qsort(order, n, sizeof(*order), cmp_phase_rank);
	for (size_t i = 0; i < n && kept < max; i++)
		for (size_t j = order[i].idx; j != SIZE_MAX && !keep[j]; j = parent[j]) {
			keep[j] = 1;
			kept++;
		}
	if (kept < n) {
		struct report_phase other = other_phase(rk, keep);

		for (size_t i = 0; i < n; i++)
			if (keep[i])
				rk->phases[k++] = rk->phases[i];
		rk->phases[k] = other;
		rk->nr_phases = k + 1;
	}
	rc = 0;
out:
	free(order);
	free(parent);
	free(stack);
	free(keep);
	return rc;
}

int report_samples_of(struct report_samples *s, struct arena *a, const int64_t *sorted, size_t n)
{
	size_t k = n < REPORT_SAMPLES_MAX ? n : REPORT_SAMPLES_MAX;

	s->n = 0;
	s->v = NULL;
	if (!k)
		return 0;
	s->v = arena_alloc(a, k * sizeof(*s->v));
	if (!s->v)
		return -1;
	/* Ranks 0, ..., n-1 spread evenly: the i-th of k takes rank i(n-1)/(k-1). */
	for (size_t i = 0; i < k; i++)
		s->v[i] = k == n ? sorted[i] : sorted[k > 1 ? i * (n - 1) / (k - 1) : 0];
	s->n = k;
	return 0;
}





/*
 * The metric catalogue's scalars stored in group ("gpu", "steps",
 * "throughput"), at the end of that object: null where there is no value.
 */
static void stored_json(struct jsonw *w, const struct report_rank *rk, const char *group)
{
	const struct metric_def *d;

	for (size_t i = 0; (d = metric_next_stored(group, &i));) {
		const char *p = (const char *)rk + d->field;
		int64_t x;
		double v;

		jsonw_key(w, d->path + strlen(group) + 1);
		if (d->store == STORE_F64) {
			memcpy(&v, p, sizeof(v));
			jsonw_double(w, v);
		} else {
			memcpy(&x, p, sizeof(x));
			if (x == INT64_MIN)
				jsonw_null(w);
			else
				jsonw_int(w, x);
		}
	}
}

/*
 * The stored scalars of group, then each object nested in it, from the
 * metric catalogue alone: a new field of such an object is one entry there.
 */
static void stored_tree(struct jsonw *w, const struct report_rank *rk, const char *group)
{
	const char *name;
	char sub[128];

	stored_json(w, rk, group);
	for (size_t i = 0; (name = metric_next_group(group, &i));) {
		snprintf(sub, sizeof(sub), "%s.%s", group, name);
		jsonw_key(w, name);
		jsonw_obj_begin(w);
		stored_tree(w, rk, sub);
		jsonw_obj_end(w);
	}
}

const char *const idle_cause_key[IDLE_NR_CAUSES] = {
#define IDLE_KEY(u, l, f) #l,
	IDLE_CAUSES(IDLE_KEY)
#undef IDLE_KEY
};

void report_idle_null(struct report_idle *id)
{
	struct report_idle_part *part[2] = { &id->in, &id->outside };

	memset(id, 0, sizeof(*id));
	for (int p = 0; p < 2; p++) {
		part[p]->window_ns = part[p]->busy_ns = INT64_MIN;
		part[p]->idle_ns = part[p]->gaps = INT64_MIN;
		for (int k = 0; k < IDLE_NR_CAUSES; k++)
			part[p]->by_cause[k] = INT64_MIN;
	}
	id->gaps_by_time = INT64_MIN;
	for (size_t i = 0; i < IDLE_HIST_BUCKETS; i++)
		id->hist[i].max_ns = i + 1 < IDLE_HIST_BUCKETS ? idle_hist_max_ns(i) : INT64_MIN;
}

int64_t idle_hist_max_ns(size_t i)
{
	static const int64_t max[IDLE_HIST_BUCKETS - 1] = { 10000, 100000, 1000000, 10000000,
							    100000000 };

	return i < IDLE_HIST_BUCKETS - 1 ? max[i] : INT64_MAX;
}

/*
 * The idle attribution (doc/idle.md), whole in a compact report too: its
 * histogram and longest gaps are bounded (IDLE_HIST_BUCKETS, IDLE_TOP_MAX)
 * and the findings read them.
 */
static void idle_json(struct jsonw *w, const struct report_rank *rk)
{
	const struct report_idle *id = &rk->idle;

	jsonw_key(w, REPORT_KEY_IDLE);
	if (!id->window) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_key(w, REPORT_KEY_IDLE_WINDOW);
	jsonw_str(w, id->window);
	stored_tree(w, rk, REPORT_KEY_IDLE);
	field_rows_json(w, &idle_bucket_fields, id->hist, IDLE_HIST_BUCKETS, 0);
	field_rows_json(w, &idle_gap_fields, id->top, id->nr_top, 0);
	jsonw_obj_end(w);
}

/* The rank's collective instances, for matching across reports (vaggregate). */
static void comm_json(struct jsonw *w, const struct report_rank *rk)
{
	field_rows_json(w, &comm_fields, rk->comm, rk->nr_comm, 0);
	field_json(w, &clock_fields, rk, 0);
}

static void gpu_json(struct jsonw *w, const struct report_rank *rk)
{
	jsonw_key(w, gpu_fields.name);
	jsonw_obj_begin(w);
	field_json(w, &gpu_fields, &rk->gpu, 0);
	stored_json(w, rk, gpu_fields.name);
	jsonw_obj_end(w);
}

static void throughput_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	const struct report_throughput *t = &rk->throughput;

	jsonw_key(w, throughput_fields.name);
	jsonw_obj_begin(w);
	field_json(w, &throughput_fields, t, 0);
	if (!compact)
		field_rows_json(w, &generation_fields, t->generations, t->nr_generations, 0);
	stored_json(w, rk, throughput_fields.name);
	jsonw_obj_end(w);
}

/* The steps object; compact: without the durations. */
static void steps_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	jsonw_key(w, steps_fields.name);
	jsonw_obj_begin(w);
	field_json(w, &steps_fields, &rk->steps, compact ? FIELD_COMPACT : 0);
	stored_json(w, rk, steps_fields.name);
	jsonw_obj_end(w);
}

/* The scalars of a rank in a compact report: no table, the clock kept. */
static void compact_json(struct jsonw *w, const struct report_rank *rk)
{
	if (rk->has_phases)
		steps_json(w, rk, 1);
	if (rk->has_throughput)
		throughput_json(w, rk, 1);
	field_rows_json(w, &memory_fields, rk->memory, rk->nr_memory, FIELD_COMPACT);
	field_json(w, &clock_fields, rk, 0);
}

static void analysed_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	jsonw_key(w, device_fields.name);
	jsonw_obj_begin(w);
	field_json(w, &device_fields, &rk->device, 0);
	jsonw_obj_end(w);
	gpu_json(w, rk);
	idle_json(w, rk);
	if (compact) {
		compact_json(w, rk);
		report_perf_json(w, rk, 1);
		return;
	}
	field_rows_json(w, &kernel_fields, rk->kernels, rk->nr_kernels, 0);
	if (rk->has_phases) {
		field_rows_json(w, &phase_fields, rk->phases, rk->nr_phases, 0);
		steps_json(w, rk, 0);
	}
	if (rk->has_throughput)
		throughput_json(w, rk, 0);
	field_rows_json(w, &memory_fields, rk->memory, rk->nr_memory, 0);
	field_rows_json(w, &cpu_op_fields, rk->cpu_ops, rk->nr_cpu_ops, 0);
	report_perf_json(w, rk, 0);
	comm_json(w, rk);
}

static void run_json(struct jsonw *w, const struct report *r)
{
	if (r->nr_ranks > 1) {
		jsonw_key(w, stat_fields.name);
		jsonw_obj_begin(w);
		for (size_t i = 0; i < r->nr_cross_rank; i++) {
			jsonw_key(w, r->cross_rank[i].metric);
			jsonw_obj_begin(w);
			field_json(w, &stat_fields, &r->cross_rank[i], 0);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	field_rows_json(w, &straggler_fields, r->stragglers, r->nr_stragglers, 0);
	field_json(w, &straggler_rule_fields, r, 0);
	field_rows_json(w, &collective_fields, r->collectives, r->nr_collectives, 0);
	if (r->workload) {
		jsonw_key(w, workload_fields.name);
		jsonw_obj_begin(w);
		field_json(w, &workload_fields, r, 0);
		jsonw_obj_end(w);
	}
	field_rows_json(w, &suggestion_fields, r->suggestions, r->nr_suggestions, 0);
}

static void rank_json(struct jsonw *w, const struct report_rank *rk, int compact)
{
	jsonw_obj_begin(w);
	field_json(w, &rank_fields, rk, 0);
	if (rk->analysed)
		analysed_json(w, rk, compact);
	jsonw_obj_end(w);
}

void report_date(int64_t ns, char out[32])
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0 || !gmtime_r(&t, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		strcpy(out, "-");
}

void report_to_json(const struct report *r, struct buf *out)
{
	struct jsonw w;

	jsonw_init(&w, out, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, REPORT_KEY_SCHEMA);
	jsonw_str(&w, REPORT_SCHEMA);
	jsonw_key(&w, REPORT_KEY_TOOL);
	jsonw_obj_begin(&w);
	jsonw_key(&w, REPORT_KEY_TOOL_NAME);
	jsonw_str(&w, r->tool);
	jsonw_key(&w, REPORT_KEY_TOOL_VERSION);
	jsonw_str(&w, VTRACE_VERSION);
	jsonw_obj_end(&w);
	if (r->compact) {
		jsonw_key(&w, REPORT_KEY_RANK_TABLES);
		jsonw_bool(&w, 0);
	}
	if (r->run.computed) {	/* what was profiled, over the ranks (run_info.h) */
		jsonw_key(&w, run_fields.name);
		jsonw_obj_begin(&w);
		field_json(&w, &run_fields, &r->run, 0);
		jsonw_obj_end(&w);
	}
	jsonw_key(&w, input_fields.name);
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		jsonw_obj_begin(&w);
		field_json(&w, &input_fields, rk, 0);
		/* the rank's own key, repeated with its input */
		jsonw_key(&w, field_key_at(&rank_fields, offsetof(struct report_rank, complete)));
		jsonw_bool(&w, rk->complete);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, rank_fields.name);
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nr_ranks; i++)
		rank_json(&w, &r->ranks[i], r->compact);
	jsonw_arr_end(&w);
	run_json(&w, r);
	jsonw_obj_end(&w);
	buf_addc(out, '\n');
}
