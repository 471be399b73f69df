/*
 * libFuzzer target: vanalyze's whole run over one trace, up to its report.
 *
 * The readers have targets of their own; this one runs what vanalyze runs
 * between reading its options and writing its outputs (analyze_run():
 * every analysis's collect and finish, the join of device work to its
 * launches, idle's gaps, the operators' sweep, the graph replays, the
 * report's warnings, the run's identity, the cross-rank statistics and
 * the findings) on what the fuzzer makes, under the sanitizers, and checks
 * that the report does not depend on how the work was split: in 64-byte
 * chunks on two threads and in one chunk on one thread, report.json must
 * be the same bytes.  The event stream is the same either way
 * (fuzz_trace_read checks that), so a difference is an analysis that
 * depends on batch boundaries, on the order the finish's tasks ran in, or
 * on memory it did not write; or a figure that depends on how far the
 * reader had read ahead when it stopped.
 *
 * An input holding FUZZ_RANKS_SEP is two traces, the text before it and
 * the text after, analysed together as two ranks (each file on a thread of
 * its own at -j 2): the cross-rank statistics, the collectives matched
 * across ranks and the stragglers are then fuzzed too.
 *
 * The run says the traces' warnings on standard error, as vanalyze does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "options.h"
#include "report.h"
#include "run.h"

#define FUZZ_NAME "fuzz_analyze"
#include "fuzz.h"

#define FUZZ_RANKS_SEP "\n#rank\n"

/* report.json of the run over paths[0..n), read in `chunk`-byte chunks on `threads`. */
static void analyze_once(char **paths, size_t n, const char *chunk, int threads,
			 struct buf *json)
{
	struct analyze_opts o;
	struct report rep;
	char status[32];
	int rc, len;

	analyze_opts_init(&o);
	o.jobs = threads;
	o.progress = 0;
	setenv("VTRACE_CHUNK_SIZE", chunk, 1);
	report_init(&rep, "vanalyze");
	buf_init(json);
	rc = analyze_run(&rep, paths, n, &o);
	len = snprintf(status, sizeof(status), "exit %d\n", rc);
	buf_add(json, status, (size_t)len);
	/* as vanalyze writes it: not for several runs unpicked, nor with no input read */
	if (rc != EXIT_USAGE && rep.nr_ranks)
		report_to_json(&rep, json);
	if (json->oom)
		abort();
	report_release(&rep);
	analyze_opts_release(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];
	char *paths[2] = { path[0], path[1] }, chunk[32];
	const uint8_t *sep = memmem(data, size, FUZZ_RANKS_SEP, sizeof(FUZZ_RANKS_SEP) - 1);
	size_t n = sep ? 2 : 1;
	struct buf small, big;

	if (fd[0] < 0) {
		log_init(FUZZ_NAME);
		for (int i = 0; i < 2; i++)
			fd[i] = fuzz_memfd(path[i]);
	}
	if (sep) {
		size_t head = (size_t)(sep - data), skip = head + sizeof(FUZZ_RANKS_SEP) - 1;

		fuzz_fill(fd[0], data, head);
		fuzz_fill(fd[1], data + skip, size - skip);
	} else {
		fuzz_fill(fd[0], data, size);
	}

	analyze_once(paths, n, "64", 2, &small);
	snprintf(chunk, sizeof(chunk), "%zu", size < 64 ? 64 : size + 1);
	analyze_once(paths, n, chunk, 1, &big);
	unsetenv("VTRACE_CHUNK_SIZE");

	if (small.len != big.len || memcmp(small.data, big.data, small.len) != 0) {
		size_t at = 0, from;

		while (at < small.len && at < big.len && small.data[at] == big.data[at])
			at++;
		from = at > 200 ? at - 200 : 0;
		FAIL("the report differs from byte %zu on, in 64-byte chunks on 2 threads:\n"
		     "%.*s\nand in one chunk on 1:\n%.*s", at,
		     (int)((small.len - from) < 400 ? small.len - from : 400), small.data + from,
		     (int)((big.len - from) < 400 ? big.len - from : 400), big.data + from);
	}
	buf_release(&small);
	buf_release(&big);
	return 0;
}
