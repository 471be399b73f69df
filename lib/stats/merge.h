/*
 * merge: many report files into the ranks of one struct report.
 *
 * Files are read in parallel, each thread into a report of its own; the
 * ranks are then sorted by rank number, then source, then file and position
 * (so the result does not depend on the thread count), duplicates are
 * dropped, and the threads' arenas are moved into the result.  What merge
 * prints (one line per file it skips, per duplicate, per rank claimed by
 * two sources) goes to stderr in input order, after all files are read.
 *
 * A rank that appears with the same rank number and source in two files is
 * the same rank analysed twice (a report copied, a map step run twice): it
 * is kept once, from the first file in input order, with a note.  The same
 * rank number with different sources is two traces claiming one rank: both
 * are kept, each with a warning, as vanalyze does.
 */
#ifndef VT_MERGE_H
#define VT_MERGE_H

#include <stddef.h>

#include "report.h"

struct merge_input {
	const char *path;		/* borrowed */
	int named;			/* given as an argument: other JSON is an error */
};

struct merge_stats {
	size_t files;			/* inputs looked at */
	size_t reports;			/* read and merged */
	size_t skipped;			/* bad, unreadable or wrong schema: exit 1 */
	size_t other;			/* found JSON that is no vtrace report: a note */
	size_t duplicates;		/* ranks counted once */
	size_t shared_ranks;		/* ranks kept although another source claims the number */
	size_t bytes;			/* text of the reports merged */
	size_t compact;			/* compact merged reports among them (warned) */
};

struct merge_opts {
	int jobs;			/* threads */
	int progress;			/* a progress line on stderr */
	unsigned read_flags;		/* REPORT_READ_LEAN or 0 */
};

/*
 * Read every input and append their ranks to rep (empty, from report_init),
 * sorted and deduplicated as above; fill st.  Returns 0, or -1 when memory
 * ran out (printed; rep then holds what was merged so far).
 */
int merge_reports(struct report *rep, const struct merge_input *in, size_t n,
		  const struct merge_opts *o, struct merge_stats *st);

#endif
