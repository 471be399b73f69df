/*
 * runs: the ranks of different runs given together.
 *
 * A folder may hold the traces or reports of an earlier run (or of another
 * profiling window of the same job, or of another program): merged, they
 * would pass for ranks of one run.  What the traces say was profiled tells
 * runs apart first (run_info_identity(): device, world size, run name,
 * model, resolution, frames, steps; the file's name where there is no start
 * time).  Among ranks alike in that, the traces say when they began
 * (inputs[].start_unix_ns, from baseTimeNanoseconds and the first event):
 * ranks of one run trace the same stretch of time, give or take their
 * start-up and their clocks, so their time lines [start, start + span]
 * overlap or nearly touch.  Ranks are sorted by start and cut into runs
 * wherever a trace starts more than RUNS_GAP_NS after every earlier trace
 * of its kind has ended.  vanalyze stops on more than one run unless told
 * which (--run) or to merge them (--merge-runs); vaggregate warns.
 */
#ifndef VT_RUNS_H
#define VT_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "report.h"

/*
 * The gap that separates runs: far above the seconds by which ranks of one
 * run start apart and hosts' clocks differ under NTP, far below the time a
 * job takes to be restarted and reach its profiled steps again.
 */
#define RUNS_GAP_NS (60LL * 1000000000LL)

#define RUNS_SHOWN 4

/*
 * The run of each rank of rep into run_of[i] (for rep->ranks[i]), numbered
 * from 0 in the order of their earliest ranks' identity and start.
 * Returns the number of runs, or -1 when out of memory.
 */
long runs_find(const struct report *rep, size_t *run_of);

/*
 * The runs in words, the first RUNS_SHOWN of them: "1 rank from
 * 2023-09-07 23:10:01 UTC ('runs/ctl/report.json', rank 3); 8 ranks
 * from ...", each with its number when numbered (for --run).
 */
void runs_describe(const struct report *rep, const size_t *run_of, size_t nr_runs,
		   int numbered, struct buf *out);

/*
 * Find the runs of rep's ranks; with two or more, print one warning
 * naming them.  Returns the number of runs, or -1 when out of memory
 * (printed).
 */
int runs_check(const struct report *rep);

#endif
