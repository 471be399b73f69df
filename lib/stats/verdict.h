/*
 * verdict: BASE against NEW, metric by metric, with noise in mind.
 *
 * A metric regresses when NEW is worse than BASE by more than its
 * threshold (relative to BASE, in the metric's direction) and, where both
 * sides have instance samples enough for the test to reach --alpha, the
 * Mann-Whitney U test finds the difference significant (p < alpha).  The
 * same rule the other way round makes an improvement.  A change beyond the
 * threshold that the test does not confirm is "noise".  With too few
 * samples for p to fall below alpha at all (4 against 4 steps cannot reach
 * 0.01), the threshold alone decides.
 *
 * A time that changes by less than --min-share of the span (0.5 % by
 * default) is "same" whatever its relative change: a 1 ms phase that
 * moves by 6 % in a 1 s run is noise of no consequence, and single-
 * instance phases have no samples to tell.
 */
#ifndef VT_VERDICT_H
#define VT_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "compare_metrics.h"

/*
 * V_WAITING: utilization that rose only because communication grew as much
 * as busy time (GPUs busy waiting for each other): not an improvement.
 */
enum verdict { V_SAME, V_REGRESSED, V_IMPROVED, V_NOISE, V_ONLY_BASE, V_ONLY_NEW, V_WAITING };

extern const char *const verdict_names[];

/* --threshold NAME=V: NAME a metric or a prefix of metrics ("kernel:", "phase:x"). */
struct threshold_rule {
	const char *name;
	double value;		/* a fraction: 0.05 is 5 % */
};

struct thresholds {
	double all;		/* --threshold V; default 0.05 */
	struct threshold_rule *rules;
	size_t n;
	double alpha;		/* --alpha; default 0.01 */
	double min_share;	/* --min-share; default 0.005 */
};

/*
 * A percentage as users write it, "3%" or "3", into *v as a fraction
 * (0.03); 0, or -1 when it is no number or not in [0, 1000] %.
 */
int threshold_parse_value(const char *s, double *v);

/* The threshold of metric: the longest rule naming it or a prefix of it, else all. */
double threshold_for(const struct thresholds *t, const char *metric);

struct row {
	const char *metric;
	int64_t rank;			/* -1: the run */
	enum metric_dir dir;
	enum metric_unit unit;
	int has_base, has_new;
	double base, new;
	double delta, delta_pct;	/* new - base; delta / |base| (inf when base is 0) */
	double threshold;
	int tested;			/* the U test ran */
	double p;			/* its two-sided p (tested only) */
	size_t n_base, n_new;		/* samples */
	enum verdict verdict;
};

/*
 * Compare b and n (one of them may be NULL: present on one side only); span is
 * BASE's span_ns for the same rank (or the run), for --min-share.
 */
int verdict_row(struct row *r, const struct metric *b, const struct metric *n,
		const struct thresholds *t, double span);

#endif
