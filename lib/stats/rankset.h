/*
 * rankset: a set of ranks as words for a finding ("rank 2", "ranks 0–6",
 * "ranks 0, 2, 4–6", "all 8 ranks", "both ranks").  One implementation, so vanalyze and
 * vaggregate name groups of ranks alike.
 */
#ifndef VT_RANKSET_H
#define VT_RANKSET_H

#include <stddef.h>
#include <stdint.h>

/*
 * The ranks r[0..n) (sorted ascending, no repeats, n > 0) as text into
 * out[0..size), UTF-8 (an en dash joins a run of consecutive ranks); "all N
 * ranks" when n equals nr_all and is 3 or more, "both ranks" for 2 of 2.  Runs that do not fit are
 * summed up as "and K more".  Returns out.
 */
const char *rankset_text(char *out, size_t size, const int64_t *r, size_t n, size_t nr_all);

#endif
