/*
 * run_info: what was profiled, for the whole run, from what each rank's
 * trace says about itself (report_rank's device_name, device_count,
 * backend, world_size, start_unix_ns and tags): report.json's "run", the
 * header line of the summaries and the page, and what vcompare checks
 * before it compares two runs.
 */
#ifndef VT_RUN_INFO_H
#define VT_RUN_INFO_H

#include "report.h"

/*
 * Fill rep->run from its ranks (strings borrowed from them or in
 * rep->arena).  Where ranks disagree, the first rank's value stands and the
 * key is listed in run.differs ("device", "backend", "world_size", or the
 * tag's key).  -1 when out of memory.
 */
int run_info_compute(struct report *rep);

/*
 * Say once on stderr (a warning) where the ranks disagree on what was
 * profiled: "ranks disagree on what was profiled: device, model"; keys
 * with bytes other than printable ASCII are shown as '?'.
 */
void run_info_warn(const struct report *rep);

/*
 * The run in one line of ASCII-safe text for a terminal or a page header
 * ("fastvideo: 8 x NVIDIA H100 80GB HBM3, world size 8 (nccl), 2025-07-01
 * 22:47 UTC; model=wan2.1 steps=50"), at most max bytes of tags (0: none);
 * appended to out raw (the caller escapes it where it lands).
 */
void run_info_line(const struct report *rep, struct buf *out, size_t max_tags);

/*
 * run_info_line() with flags: RUN_INFO_PRIVATE shows the tags that name a
 * user or a host too (run_info_private()), which run_info_line() leaves
 * out.  A value that is a JSON object or array is shown without its
 * whitespace; any value's line breaks and tabs as spaces.
 */
#define RUN_INFO_PRIVATE 1u
void run_info_line_with(const struct report *rep, struct buf *out, size_t max_tags,
			unsigned flags);

/*
 * Whether a tag's key names a user or a host (username, host_name, as
 * HTA-style traces carry): such tags stay in report.json but out of the
 * summary and the page unless asked.
 */
int run_info_private(const char *key);

/*
 * What makes two runs different experiments rather than two measurements
 * of one: the device model, the number of devices, the world size, and
 * the tags whose key names the model, the resolution (height, width), the
 * frames or the steps.  Fills keys[0..max) with those that differ between
 * a and b (a tag on one side only differs too) and, where vals is not NULL,
 * vals[2i] and vals[2i + 1] with each side's value ("-": none; borrowed,
 * or static text valid until the next call).  Returns how many.
 */
size_t run_info_mismatch(const struct report *a, const struct report *b, const char **keys,
			 const char **vals, size_t max);

/*
 * What identifies rk's run, as text: its device model, world size, run
 * name and the defining tags (model, resolution, frames, steps), keys
 * sorted.  Ranks of one run have the same; runs.h tells runs apart by it
 * first, then by time.
 */
void run_info_identity(const struct report_rank *rk, struct buf *out);

/*
 * rk's file name as the stem of a run: no directory or trace suffixes,
 * every run of digits as '#', so that a rank number, a worker number, a
 * pid or a timestamp in it tells no runs apart ("dlrm__worker#_step_#.#").
 * Only for ranks without a start time: a writer's default file name holds
 * the host name (tensorboard_trace_handler's worker name), which differs
 * between the nodes of one run.
 */
void run_info_stem(const struct report_rank *rk, struct buf *out);

#endif
