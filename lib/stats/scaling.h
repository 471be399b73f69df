/*
 * scaling: where the other ranks went.  A run on M ranks (BASE) against
 * runs of the same workload on more ranks: time to solution, speedup,
 * parallel efficiency, the Karp-Flatt serial fraction, per-phase speedups,
 * and the loss of efficiency 1 - E split into named parts that add up to
 * it exactly.  doc/scaling.md has every definition; this file computes
 * them from reports only, so a report, a report directory or traces
 * analysed in-process give the same figures.
 *
 * Everything is per generation (a run's figures divided by its number of
 * generations) and in nanoseconds; a part of the loss is in rank-ns: the
 * NEW run's sum over its ranks less w times the BASE run's, w being 1 for
 * strong scaling and N / M for weak.  The caller owns struct scaling and
 * frees it with scaling_release(); phase paths are borrowed from the
 * reports, which must outlive it.
 */
#ifndef VT_SCALING_H
#define VT_SCALING_H

#include <stddef.h>
#include <stdint.h>

#include "idle_causes.h"
#include "report.h"

/* X(enum name, JSON key, what the terminal calls it): the parts of the loss, in order. */
#define SCALING_PARTS(X)                                                \
	X(COMM, exposed_comm, "communication not overlapped")           \
	X(LATE, late_ranks, "waiting for a late rank")                  \
	X(SERIAL, not_parallelised, "work not parallelised")            \
	X(COMPUTE, slower_compute, "slower compute")                    \
	X(IDLE, device_idle, "more device idle")                        \
	X(OTHER, other, "other")

enum scaling_part {
#define SCALING_ENUM(u, k, t) SCALING_##u,
	SCALING_PARTS(SCALING_ENUM)
#undef SCALING_ENUM
	SCALING_NR_PARTS
};

extern const char *const scaling_part_key[SCALING_NR_PARTS];
extern const char *const scaling_part_text[SCALING_NR_PARTS];

/*
 * A phase whose per-rank time is nearer the BASE's (times w) than its
 * ideal share: past this fraction of the way from the ideal back to it,
 * the phase did not shrink and its excess is work not parallelised.
 */
#define SCALING_NOT_SHRUNK 0.5

/* One top-level phase of a NEW run against BASE; times per rank and generation. */
struct scaling_phase {
	const char *path;		/* borrowed from a report */
	double base_ns, new_ns, ideal_ns;	/* means over the ranks */
	double speedup, efficiency;	/* NaN where a time is 0 */
	int not_shrunk;			/* its excess counts as work not parallelised */
	double loss_rank_ns;		/* its work's excess (NEW - w * BASE, rank-ns) */
};

/* The workload figures of one run, per generation; INT64_MIN: unknown. */
struct scaling_workload {
	int64_t generations, frames, steps, blocks;
};

struct scaling_point {
	const char *label;		/* the argument it was read from (borrowed) */
	int64_t ranks;
	struct scaling_workload wl;
	double time_ns;			/* time to solution: the slowest rank, per generation */
	double speedup, efficiency, karp_flatt;	/* karp_flatt NaN where N = M */
	double loss;			/* 1 - E */
	double total_rank_ns;		/* N * time_ns */
	double parts_rank_ns[SCALING_NR_PARTS];	/* add up to total - ideal exactly */
	double parts_share[SCALING_NR_PARTS];	/* of total_rank_ns: add up to loss */
	double idle_rank_ns[IDLE_NR_CAUSES];	/* the device-idle part by cause */
	int64_t late_rank;		/* the rank the others waited for; -1: none */
	int64_t replicated;		/* index in phases of the largest not-shrunk phase; -1 */
	struct scaling_phase *phases;	/* BASE's top-level phases, then NEW's others */
	size_t nr_phases;
	size_t nr_mismatch;		/* workload keys that differ from BASE */
	const char *mismatch[8];	/* static key names */
};

enum scaling_mode { SCALING_AUTO, SCALING_STRONG, SCALING_WEAK };

struct scaling {
	int weak;			/* 1: weak scaling (same work per rank) */
	int forced;			/* --weak or --strong decided it, not the workload */
	int64_t base_ranks;
	double base_time_ns;
	struct scaling_workload base_wl;
	const char *base_label;
	struct scaling_point *points;	/* one per NEW run, in argument order */
	size_t nr_points;
};

/*
 * Compare news[0..n) with base into sc (its previous contents are not
 * read): mode forces strong or weak scaling, else the workload figures
 * decide.  Each point lists the workload keys on which it differs from
 * base.  Returns 0, or -1 when out of memory (sc then needs only
 * scaling_release()).
 */
int scaling_compute(struct scaling *sc, struct report *base, const char *base_label,
		    struct report *const *news, const char *const *labels, size_t n,
		    enum scaling_mode mode);

void scaling_release(struct scaling *sc);

/* The three largest positive parts of p, largest first, in out[]; returns how many (0..3). */
size_t scaling_top_parts(const struct scaling_point *p, enum scaling_part out[3]);

#endif
