/*
 * suggest: the bottleneck suggestions of a report (DESIGN.md, SUGGESTION).
 * vanalyze runs it on the ranks of one run, vaggregate on ranks merged from
 * many reports; both after crossrank_compute(), whose stragglers it reads.
 *
 * Each rule has a stable id, a fixed severity (low-gpu-utilization and
 * slow-first-step have two), the report metric it looks at, and a message
 * that says what to change.  A rule fires when its value is strictly past
 * the threshold: a value exactly on it gives nothing.  Rules look at one
 * rank at a time; when a rule fires on every rank that has its inputs, and
 * there are two or more, it is given once with rank -1 and the worst value
 * (the one furthest past the threshold).  Suggestions are ordered by
 * severity (high first), then by rule in the order of suggest_rules[], then
 * by rank.  The output depends on the report and the options alone.
 */
#ifndef VT_SUGGEST_H
#define VT_SUGGEST_H

#include <stddef.h>

#include "report.h"

/* One field per threshold; suggest_thresholds[] describes each. */
struct suggest_opts {
	double utilization;		/* 0.6: gpu.utilization below this (medium) */
	double utilization_high;	/* 0.4: ... below this, high */
	double kernel_us;		/* 20: launch-bound: median kernel below this */
	double idle_share;		/* 0.2: ... and idle / active span above this */
	double comm_share;		/* 0.2: comm / busy above this */
	double comm_overlap;		/* 0.5: ... and comm-compute overlap below this */
	double vae_share;		/* 0.3: a VAE / decode phase's share above this */
	double text_share;		/* 0.15: a text-encoding phase's share above this */
	double attention_share;		/* 0.5: attention kernels' share of kernel time */
	double steps;			/* 30: more steps than this */
	double memcpy_share;		/* 0.1: memcpy/memset / busy above this */
	double sync_share;		/* 0.05: synchronising CPU calls / span above this */
	double memory_share;		/* 0.9: peak reserved / capacity above this */
	double first_step_ratio;	/* 1.5: first step / median of the others above this */
	double realtime_factor;		/* 1: real-time factor at --target-fps below this */
};

#define SUGGEST_OPTS_DEFAULT { 0.6, 0.4, 20, 0.2, 0.2, 0.5, 0.3, 0.15, 0.5, 30, 0.1, 0.05, 0.9, \
			       1.5, 1 }

/* A threshold as a flag (--threshold NAME=V) and a README table row. */
struct suggest_threshold {
	const char *name;		/* "utilization" */
	const char *rule;		/* the suggestion id it belongs to */
	const char *metric;		/* the report metric it is compared with */
	size_t offset;			/* offsetof(struct suggest_opts, field) */
	double def;			/* as in SUGGEST_OPTS_DEFAULT */
	const char *unit;		/* "fraction", "us", "steps", "ratio" */
	const char *meaning;		/* one sentence, for --help and README */
};

/* In the order of struct suggest_opts. */
extern const struct suggest_threshold suggest_thresholds[];
extern const size_t suggest_nr_thresholds;

/* The rule ids, in rule order (the order of suggestions of equal severity). */
extern const char *const suggest_rules[];
extern const size_t suggest_nr_rules;

/*
 * Set the threshold called name (as in suggest_thresholds[]) to value.
 * Returns 0, or -1 when no threshold has that name or value is not finite
 * (o is then unchanged).
 */
int suggest_set(struct suggest_opts *o, const char *name, double value);

/* "NAME=VALUE", as --threshold takes it: suggest_set() on its parts. */
int suggest_parse(struct suggest_opts *o, const char *arg);

/* A pointer to o's field for threshold t. */
double *suggest_field(struct suggest_opts *o, const struct suggest_threshold *t);

/*
 * Fill rep->suggestions from rep->ranks and rep->stragglers with the
 * thresholds in o (NULL: the defaults).  The array, its metric names and
 * messages (ASCII, one or two sentences) live in rep->arena.  Returns 0, or
 * -1 when out of memory (rep->suggestions is then empty).
 */
int suggest_compute(struct report *rep, const struct suggest_opts *o);

#endif
