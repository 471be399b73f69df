/*
 * runs: reports of different runs merged as one.
 *
 * A folder of reports may still hold those of an earlier run (or of another
 * profiling window of the same job): merged, they would pass for ranks of
 * one run.  What the traces say was profiled tells runs apart first
 * (run_info_identity(): device, world size, run name, model, resolution,
 * frames, steps).  Among ranks alike in that, the traces say when they began (inputs[].start_unix_ns, from
 * baseTimeNanoseconds and the first event): ranks of one run trace the
 * same stretch of time, give or take their start-up and their clocks, so
 * their time lines [start, start + span] overlap or nearly touch.  Ranks
 * are sorted by start and cut into runs wherever a trace starts more than
 * RUNS_GAP_NS after every earlier trace has ended.  Ranks with neither a
 * known start (legacy traces, the collector) nor metadata are not judged.
 */
#ifndef VT_AGG_RUNS_H
#define VT_AGG_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/*
 * The gap that separates runs: far above the seconds by which ranks of one
 * run start apart and hosts' clocks differ under NTP, far below the time a
 * job takes to be restarted and reach its profiled steps again.
 */
#define RUNS_GAP_NS (60LL * 1000000000LL)

/*
 * Find the runs of rep's ranks; with two or more, print one warning naming
 * the first report file of each (at most RUNS_SHOWN of them).  Returns the
 * number of runs found (0 when no rank has a start), or -1 when out of
 * memory (printed).
 */
#define RUNS_SHOWN 4
int runs_check(const struct report *rep);

#endif
