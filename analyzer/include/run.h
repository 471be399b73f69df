/*
 * run: trace files and directories to a finished report: what vanalyze
 * computes, and what vcompare computes for a side given as traces.
 */
#ifndef VT_RUN_H
#define VT_RUN_H

#include <stddef.h>

#include "options.h"
#include "report.h"

/*
 * Analyse args[0..n) (files, '-' for stdin, or directories standing for
 * their *.json, *.json.gz and *.vtr files) into rep (report_init'ed and
 * empty): one rank per readable input, ranks decided as DESIGN.md says,
 * then cross-rank statistics and suggestions.  Problems are logged as
 * they are found; libanalyze never exits.  Returns EXIT_OK, or EXIT_FAIL
 * when an input could not be read completely or memory ran out (what was
 * read is still in rep).
 */
int analyze_run(struct report *rep, char *const *args, size_t n, const struct analyze_opts *o);

#endif
