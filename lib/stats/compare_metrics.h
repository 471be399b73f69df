/*
 * compare_metrics: what vcompare compares, taken from a report.
 *
 * Each rank gives a list of named scalars with a direction and, where the
 * report keeps instance durations, samples for the significance test: the
 * scalars of the metric catalogue (lib/model/metric.h) marked MF_COMPARE, with
 * their unit and direction from there, then the families
 *
 *   phase:PATH.total_ns, .median_ns   samples: the phase's instances
 *   kernel:NAME.total_ns              samples: the kernel's instances
 *   op:NAME.total_ns                  a CPU operator's inclusive time
 *   memory:DEV.peak_allocated, .peak_reserved
 *
 * PATH is the phase's path without a leading ProfilerStep#* component (the
 * wrapper phase itself is left out: steps.* stand for it), so that a run
 * profiled with torch.profiler's schedule and one without share phases; a
 * phase then found twice in a rank, inside and outside the wrapper, is one.
 *
 * The run's value of a metric is its worst rank's (a run is as slow as its
 * slowest rank), and its samples are those of every rank together.
 */
#ifndef VT_COMPARE_METRICS_H
#define VT_COMPARE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "metric.h"
#include "report.h"

struct metric {
	const char *name;		/* in the report's arena or static */
	enum metric_dir dir;		/* DIR_LOWER or DIR_HIGHER */
	enum metric_unit unit;
	double value;
	const int64_t *samples;		/* NULL: none */
	size_t nr_samples;
	int is_kernel;
	int is_op;			/* a CPU operator (compared where in either side's top) */
	size_t order;			/* position in its list, for a stable sort */
};

struct metric_list {
	struct metric *v;
	size_t n, alloc;
};

/* The metrics of one rank, in report order.  Strings point into rep.  -1: OOM. */
int metrics_of_rank(const struct report_rank *rk, struct arena *a, struct metric_list *out);

/*
 * The metrics of the run: one per name found in any rank, the worst value,
 * the samples of all ranks pooled (in a), sorted by metrics_cmp_names().
 * -1: OOM.
 */
int metrics_of_run(const struct report *rep, struct arena *a, struct metric_list *out);

/*
 * The order of metric names: span, steps, throughput, gpu, phases, kernels,
 * memory, then by bytes within each group.
 */
int metrics_cmp_names(const char *a, const char *b);

/* The entry called name, or NULL (list sorted by metrics_cmp_names()). */
const struct metric *metrics_find(const struct metric_list *l, const char *name);

void metrics_sort(struct metric_list *l);
void metrics_release(struct metric_list *l);

#endif
