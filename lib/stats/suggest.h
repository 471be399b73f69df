/*
 * suggest: the bottleneck suggestions of a report (DESIGN.md, SUGGESTION).
 * vanalyze runs it on the ranks of one run, vaggregate on ranks merged from
 * many reports; both after crossrank_compute(), whose stragglers it reads.
 *
 * The rules are one table (rule_table[] in rule.c, each rule beside its
 * theme's others in rules_*.c; the engine is suggest.c): each entry has a
 * stable id, the report metric it looks at, its thresholds with their
 * defaults, its severity, an evaluator that returns its own typed evidence
 * and the time at stake, a message written from that evidence, and how it
 * bears on other rules.  A rule fires when its value is
 * strictly past the threshold: a value exactly on it gives nothing.  Rules
 * look at one complete rank at a time; the ranks where a rule fires make
 * one finding (one per rule and run), whose evidence is the rank with the
 * most time at stake and whose severity is the worst.  Findings are ordered
 * by that time (impact_ns, unknown last), then severity, then rule.  An
 * incomplete rank gets the incomplete-ranks finding and no other; a rule
 * that yields to another stays quiet on a rank where that one fires
 * (low-gpu-utilization to launch-bound, the idle-* rules to
 * profile-window).  The run's
 * workload (workload.h) picks the rules that apply and the advice's words.
 * The output depends on the report and the options alone, so vanalyze and
 * vaggregate give the same findings for the same ranks.
 *
 * --threshold, --help and doc/findings.md's threshold table all come from the
 * table (tests/cli/030-usage.sh checks doc/findings.md against --help).
 */
#ifndef VT_SUGGEST_H
#define VT_SUGGEST_H

#include <stddef.h>

#include "report.h"

#define SUGGEST_MAX_RULES 32	/* room in struct suggest_opts */
#define SUGGEST_RULE_THRESHOLDS 2	/* the most thresholds one rule has */

/* A threshold of a rule, as a flag (--threshold NAME=V) and a row of doc/findings.md. */
struct suggest_threshold {
	const char *name;		/* "utilization"; NULL: the rule has no more */
	double def;			/* the default */
	const char *unit;		/* "fraction", "us", "steps", "ratio" */
	const char *meaning;		/* "fires when ..." for --help and doc/findings.md */
};

/* The thresholds of every rule, by rule and position (see suggest_opts_init()). */
struct suggest_opts {
	double t[SUGGEST_MAX_RULES][SUGGEST_RULE_THRESHOLDS];
};

/* o with every threshold at its default. */
void suggest_opts_init(struct suggest_opts *o);

/* The number of rules, and the id of rule i (in table order). */
extern const size_t suggest_nr_rules;
const char *suggest_rule_id(size_t i);

/*
 * The i-th threshold over all rules, in table order (i below
 * suggest_nr_thresholds()), and the id of its rule in *rule.
 */
size_t suggest_nr_thresholds(void);
const struct suggest_threshold *suggest_threshold_at(size_t i, const char **rule);

/*
 * Set the threshold called name to value.  Returns 0, or -1 when no
 * threshold has that name or value is not finite (o is then unchanged).
 */
int suggest_set(struct suggest_opts *o, const char *name, double value);

/* The value of the threshold called name in *value; -1 when there is none. */
int suggest_get(const struct suggest_opts *o, const char *name, double *value);

/* "NAME=VALUE", as --threshold takes it: suggest_set() on its parts. */
int suggest_parse(struct suggest_opts *o, const char *arg);

/*
 * Fill rep->workload and rep->suggestions from rep->ranks and
 * rep->stragglers with the thresholds in o (NULL: the defaults).  The
 * array, its metric names, rank lists and texts (plain UTF-8: a short
 * message, then details) live in rep->arena.  Returns 0, or -1 when out of
 * memory (rep->suggestions is then empty).
 */
int suggest_compute(struct report *rep, const struct suggest_opts *o);

#endif
