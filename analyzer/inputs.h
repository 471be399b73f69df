/*
 * inputs: the trace files that vanalyze's arguments stand for.
 *
 * A file named on the command line is read whatever it holds (a file that
 * is not a trace is an error there, with its byte offset).  A directory
 * stands for the traces in it, sorted by name:
 *
 *   - files named *.json, *.json.gz and *.vtr are candidates;
 *   - a candidate that is JSON but not a trace (trace_sniff(): a run's
 *     *-meta.json, gentrace's truth file, a report.json) is skipped with
 *     one note;
 *   - a JSON trace that vtrace-export wrote from a .vtr of the same
 *     directory (STEM.trace.json.gz, .trace.json, .json or .json.gz beside
 *     STEM.vtr) is skipped with one note: the .vtr is the rank, read once.
 */
#ifndef VT_INPUTS_H
#define VT_INPUTS_H

#include "pathlist.h"

/*
 * Add the files arg stands for to in (found by dirwalk: a directory's own
 * files, sorted); jobs threads sniff a directory's files.
 * Returns 0, or -1 when a directory cannot be read or holds no trace
 * or memory ran out (after saying so).
 */
int inputs_expand(struct pathlist *in, const char *arg, int jobs);

#endif
