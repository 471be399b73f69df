/*
 * analyze: everything vanalyze computes about one input file.
 *
 * analyze_file() reads the file through trace_read() and folds every batch
 * into a struct file_result as it arrives: tallies, and compact records of
 * the few event kinds the analyses need (GPU work, CPU operators).
 * Once the file is read, the analyses turn them into a report rank;
 * analyze_to_rank() hands it to the report.
 */
#ifndef VT_ANALYZE_H
#define VT_ANALYZE_H

#include <stdint.h>

#include "calls.h"
#include "comm.h"
#include "cpuops.h"
#include "gpu.h"
#include "idle.h"
#include "kctx.h"
#include "launch.h"
#include "memory.h"
#include "name_memo.h"
#include "names.h"
#include "phases.h"
#include "report.h"
#include "strtab.h"
#include "trace_read.h"

/* Counts keyed by string, for by_ph and by_cat. */
struct tally {
	int64_t *n;		/* n[id] by name id (names.h); zero where not added to */
	size_t alloc;
};

struct file_result {
	const char *path;
	int rc;			/* trace_read(): 0 complete, 1 partial, -1 failed */
	struct err err;		/* rc < 0: why */
	struct trace_info info;
	int64_t file_bytes;
	struct tally by_ph, by_cat;
	int64_t min_ts, max_end;	/* over non-metadata events with ts */
	int has_span;
	int has_cat;		/* some event so far had a cat */
	int oom;
	int full;		/* keep every table row (--full): no report_fold_rows() */
	int cost;		/* VT_BENCH_COST: each collector's bytes said (analyze.c) */
	struct names names;		/* the strings the analyses keep, see names.h */
	/*
	 * kcat_of() of each kernel's name, asked once per file: comm while
	 * collecting, gpu_finish() and kctx_finish() after it (one after the
	 * other: the finish makes kctx's task wait for gpu's).
	 */
	struct name_memo kernel_cats;
	struct gpu gpu;
	struct cpuops cpuops;
	struct comm comm;
	struct phases phases;
	struct strtab tracks;		/* the threads of phases, cpuops, calls, idle, kctx */
	struct calls calls;		/* the runtime calls, one table: see calls.h */
	struct launches launches;	/* the device work phases and cpuops tagged, launch.h */
	struct memory mem;
	struct idle idle;
	struct kctx kctx;		/* kernel categories from their launches */
	struct report_rank rank;	/* the result, strings in arena */
	struct arena arena;
};

/* opts must outlive res. */
void file_result_init(struct file_result *res, const char *path, const struct phase_opts *opts);
void file_result_release(struct file_result *res);

/*
 * Read and analyse path with nr_threads threads: fills res->rank (unless
 * res->rc < 0).  Out of memory in an analysis sets res->oom.
 */
void analyze_file(struct file_result *res, int nr_threads, int progress);

/*
 * analyze_file()'s read alone: every batch through the collectors, into
 * res's records, and no analysis after.  A test that checks what the
 * collectors keep (the launches' join) reads a file exactly as vanalyze.
 */
void analyze_read(struct file_result *res, int nr_threads, int progress);

/*
 * What vanalyze keeps of a file once it is analysed, until the report is
 * built: the rank, the reader's verdict and warnings, all in one arena.
 * Small whatever the file held: the working state of struct file_result
 * (23 KB bare, more with the file's records) is released as each file is
 * done, so that 100,000 tiny files take what their ranks hold.
 */
/*
 * How the warning of a trace without device activity starts: run.c says it
 * once for the run where several inputs have it.
 */
#define ANALYZE_NO_DEVICE "no GPU or NPU activity recognised"

struct file_done {
	const char *path;
	int rc;			/* as file_result's */
	int oom;
	int64_t rank;		/* distributedInfo.rank, -1 when absent */
	const struct err *err;	/* rc < 0: why */
	const struct err *warnings;	/* the reader's */
	size_t nr_warnings, nr_warnings_total;
	struct report_rank *result;	/* rc >= 0 */
	struct arena arena;	/* all of the above */
};

/*
 * Move what is kept of res into d, then release res (file_result_init()
 * makes it ready for the next file).  Out of memory sets d->oom.
 */
void analyze_keep(struct file_result *res, struct file_done *d);

void file_done_release(struct file_done *d);

/*
 * Move the result into the report: *rk = the rank, and rep's arena adopts
 * d's.  The caller then decides rk->rank and the warnings.
 */
void analyze_to_rank(struct file_done *d, struct report *rep, struct report_rank *rk);

#endif
