/*
 * collectives: who holds whom back.  Collective instances of all ranks are
 * matched by (process group, collective, order on the rank), from each
 * rank's comm series; vanalyze runs it on the ranks of one run, vaggregate
 * on ranks read back from per-rank reports, so both give the same answer.
 *
 * Matching uses durations and order only: the clocks of different hosts
 * differ.  At an instance the rank with the shortest duration arrived last;
 * every other rank waited the difference (its comm wait), and that wait is
 * imposed by the last one.  A straggler is a rank that imposes the wait
 * (DESIGN.md, "Collectives and stragglers"); a rank that waits never is.
 * The ends of an instance coincide on all ranks, so the matched ends give
 * each rank's clock offset against the reference (the first rank taking
 * part).
 *
 * Results go into the report: per rank gpu.comm_wait_ns, comm_transfer_ns,
 * effective_utilization and clock_offset_*; for the run the collectives
 * table, the stragglers with straggler_rule "collectives" when any instance
 * matched, and incomplete_ranks.  Instances that some rank lacks (a cut-off
 * trace) are left out and warned about on the ranks that have them.
 */
#ifndef VT_COLLECTIVES_H
#define VT_COLLECTIVES_H

#include "report.h"

/* A straggler imposes more than this many times the mean wait the other ranks impose... */
#define COLLECTIVES_STRAGGLER_FACTOR 2.0
/* ...and, per other rank, at least this share of the median rank span. */
#define COLLECTIVES_STRAGGLER_MIN_SHARE 0.01

/*
 * Match the collectives of rep->ranks and fill the results above, replacing
 * earlier ones; without two ranks sharing a collective, only clears them
 * (straggler_rule NULL: the caller's step rule applies) and lists the
 * incomplete ranks.  Everything new lives in rep->arena.  Returns 0, or -1
 * when out of memory.
 */
int collectives_compute(struct report *rep);

#endif
