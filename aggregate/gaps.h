/*
 * gaps: the ranks a run should have and the merged reports lack.
 *
 * The size of the run is --expect-ranks N, else the world_size the reports
 * recorded from the traces' distributedInfo, when every report that has one
 * agrees.  A merge that misses ranks must not pass for the whole run: each
 * missing rank is named (as ranges: "ranks 5, 17-19"), and so is every rank
 * read from a cut-off trace and every rank number outside the run.
 */
#ifndef VT_AGG_GAPS_H
#define VT_AGG_GAPS_H

#include <stdint.h>

#include "report.h"

/*
 * Clear (unknown) each rank's world size beyond REPORT_WORLD_SIZE_MAX, as
 * vanalyze does, saying so once: before anything reads the world size.
 */
void gaps_drop_implausible(struct report *rep);

/*
 * The world size the ranks of rep agree on, or 0 when none records one.
 * When two ranks disagree, returns -1 and prints both.
 */
int64_t gaps_world_size(const struct report *rep);

/*
 * Print the missing ranks of a run of world ranks (named how: "--expect-ranks"
 * or "world_size"), the ranks outside it and the incomplete ones.  Returns
 * how many ranks are missing (0 when world is 0 or less: nothing to check).
 */
int64_t gaps_report(const struct report *rep, int64_t world, const char *how);

#endif
