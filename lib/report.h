/*
 * report: the report model and its JSON form, the contract of DESIGN.md.
 *
 * vanalyze fills a struct report from its analyses; vaggregate and vcompare
 * will read the same struct back.  Every string in it is owned by the
 * report's arena, so a report outlives the inputs it was made from, and
 * report_release() frees everything at once.
 */
#ifndef VT_REPORT_H
#define VT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"

#define REPORT_SCHEMA "vtrace.report/1"
#define VTRACE_VERSION "0.1.0"

struct report_count {
	const char *key;
	int64_t n;
};

struct report_rank {
	int64_t rank;
	const char *source;		/* file base name */
	const char *path;		/* as given */
	int64_t bytes;			/* file size */
	int64_t bytes_text;		/* decompressed text */
	const char *format;		/* "kineto", "array", "vtr" */
	int complete;
	const char **warnings;
	size_t nr_warnings;
	int64_t events_total;
	struct report_count *by_ph, *by_cat;	/* sorted by key */
	size_t nr_by_ph, nr_by_cat;
	int64_t span_ns;
};

struct report {
	const char *tool;		/* "vanalyze" */
	struct report_rank *ranks;	/* sorted by rank, then input order */
	size_t nr_ranks;
	struct arena arena;
};

void report_init(struct report *r, const char *tool);
void report_release(struct report *r);

/* Append the report as JSON (pretty-printed) to out. */
void report_to_json(const struct report *r, struct buf *out);

#endif
