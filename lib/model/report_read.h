/*
 * report_read: a report JSON (report.json, vtrace.report/1) back into the
 * struct report that wrote it, for vaggregate and vcompare.
 *
 * Reading is the inverse of report_to_json(): every field the writer emits
 * is read back, doubles bit-exact (the writer prints %.17g), null doubles as
 * NaN, and report_to_json() of what was read gives the same text.  Keys the
 * reader does not know are ignored (the contract lets writers add keys); a
 * key it needs that is missing or has the wrong type is an error naming the
 * key and its byte offset.
 */
#ifndef VT_REPORT_READ_H
#define VT_REPORT_READ_H

#include <stddef.h>

#include "log.h"
#include "report.h"

enum {
	REPORT_READ_OK = 0,
	REPORT_READ_OTHER = 1,		/* valid JSON, but not a vtrace.report/1 */
	REPORT_READ_BAD = -1,		/* not JSON, cut off, or a field missing */
};

/* With REPORT_READ_RUN, the run-level parts are read too. */
#define REPORT_READ_RUN 1u
/*
 * With REPORT_READ_LEAN, what only renders or compares a rank is left
 * out: kernel and phase samples, phase spans, memory timelines,
 * generations and the operators' performance rows (ops_perf).  What
 * cross-rank statistics, collectives and suggestions read stays.  For a
 * reduce over thousands of reports.
 */
#define REPORT_READ_LEAN 2u

/*
 * Append the ranks of the report in text[0..len) to r (initialised by
 * report_init(); it may already hold ranks), strings copied into r->arena.
 * With REPORT_READ_RUN in flags, r's cross_rank, stragglers, suggestions and
 * tool name are replaced by the file's; without it they are left alone (a
 * merging caller recomputes them).  A compact report ("rank_tables":
 * false, report.h) reads with its ranks' tables empty and r->compact set.
 * On anything but REPORT_READ_OK, r is as it was (apart from arena memory)
 * and err says why.
 */
int report_read(struct report *r, const char *text, size_t len, unsigned flags,
		struct err *err);

/* report_read() on a whole file (plain JSON; gzip is accepted too). */
int report_read_file(struct report *r, const char *path, unsigned flags, struct err *err);

/* What report_sniff() reads at a time. */
#define REPORT_SNIFF_CHUNK (64u << 10)

/*
 * Whether path is a report, without reading it whole: a directory of
 * reports may also hold traces of gigabytes.  Walks the top-level keys of
 * the text (gzip inflated) to the first that settles it: "schema" with a
 * string value (a report: the value goes into schema[0..n), control bytes
 * as '?') or "traceEvents" (a trace); the values between are skipped, not
 * parsed.  A trace's "schema" keys inside its events, or a report whose
 * keys are sorted, are told apart as they should be.  Returns 1 for a
 * report, 0 for anything else, -1 when the file cannot be read (errno).
 */
int report_sniff(const char *path, char *schema, size_t n);

/* The same on text already in memory. */
int report_sniff_text(const char *t, size_t len, char *schema, size_t n);

#endif
