/*
 * rollup: a report's kernels, CPU operators, phases and modelled operator
 * shapes summed over its ranks, one row a name (a phase: a path; a shape:
 * an operator and its inputs), as the terminal summary and the page show a
 * run.  One implementation, so that every output shows the
 * same sums: times and counts add with saturation (sat.h), since ranks
 * each near the accepted time limit pass INT64_MAX together; means and
 * shares divide sums that do not saturate, so a total shown at its bound
 * has a right mean.
 *
 * Rows come from the ranks in rank order, each rank's rows in table order;
 * the "other" row of report_fold_rows() is not a name and is left out.
 * Each table is sorted by total_ns, largest first, then by name (or path),
 * so its first N rows are its top N.  Strings are borrowed from the
 * report: a roll-up is valid while the report is.
 */
#ifndef VT_ROLLUP_H
#define VT_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct rollup_kernel {
	const char *name;
	const char *category, *category_source;	/* the first rank's row's */
	size_t ranks;			/* rows summed: the ranks that ran it */
	int64_t count, total_ns;
	int64_t min_ns, max_ns;
	double avg_ns;			/* total / count (unsaturated); NaN for no instance */
	double stddev_ns;		/* pooled over the ranks' instances; NaN for none */
	double share;			/* of the roll-up's kernel_time_ns; NaN when that is 0 */
	double median_ns;		/* its one rank's; several: rollup_kernel_median() */
};

/*
 * As torch.profiler's key_averages().  A negative figure is unknown (a
 * null device time); each figure sums the ranks that know it, and is -1
 * when none does.
 */
struct rollup_op {
	const char *name;
	int64_t count, total_ns, self_ns, device_ns, self_device_ns;
};

struct rollup_phase {
	const char *path;
	const char *name;		/* its own name, of the first row with the path */
	int depth;			/* of that row */
	size_t first;			/* order of first sight over the ranks' rows */
	int64_t count, total_ns;
	double share;			/* of the roll-up's span_ns; NaN when that is 0 */
};

/*
 * An operator at one shape (ops_perf rows the model knows: finite flops)
 * over the ranks: device time and calls summed; TFLOP/s the lower median
 * of the ranks' medians, since a median of calls does not merge; the first
 * rank's row for what the ranks share (dtype, bound, the device's peak).
 */
struct rollup_shape {
	const struct report_op_perf *first;
	size_t ranks;
	int64_t count, total_ns;
	double tflops;
};

struct rollup {
	const struct report *rep;	/* borrowed */
	struct rollup_kernel *kernels;	/* analysed ranks' kernel tables */
	size_t nr_kernels;
	struct rollup_op *ops;		/* analysed ranks' cpu_ops */
	size_t nr_ops;
	struct rollup_phase *phases;	/* the phase tables of ranks with phases */
	size_t nr_phases;
	/*
	 * The most phases one rank holds, those its other row sums among them
	 * (report_fold_phases()): with capped tables, more than nr_phases may
	 * be known to exist.
	 */
	size_t phases_held;
	struct rollup_shape *shapes;	/* analysed ranks' ops_perf, sorted as the others */
	size_t nr_shapes;
	int64_t modelled_ns;		/* the shapes' device time */
	int64_t kernel_time_ns;		/* gpu.kernel_time_ns of the ranks with kernel rows */
	int64_t span_ns;		/* span_ns of the ranks with phase rows */
};

/* Roll up rep's ranks into ru.  Returns 0, or -1 when out of memory (ru empty). */
int rollup_init(struct rollup *ru, const struct report *rep);
void rollup_release(struct rollup *ru);

/*
 * *median: the median of every instance of kernel k over the ranks: its
 * one rank's median, or, where it ran on several, the middle of their
 * pooled samples when each rank kept all its instances (an even count:
 * the mean of the two middle ones); NaN where only quantiles were kept.
 * Returns 0, or -1 when out of memory (*median NaN).
 */
int rollup_kernel_median(const struct rollup *ru, const struct rollup_kernel *k, double *median);

#endif
