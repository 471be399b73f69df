/*
 * trace_sniff: whether a file is a trace, from its first bytes.
 *
 * A directory that vanalyze reads may also hold other JSON: gentrace's
 * truth file, a run's *-meta.json, a report.json from vanalyze.  Names do
 * not tell them apart (*.json all), the top level does: a trace is a bare
 * array of events or an object with a traceEvents array.  The sniff feeds
 * the file through trace_top (the reader's own top-level parser) only until
 * that array begins, which for every trace writer is within the first
 * kilobytes (the small prologue: schemaVersion, deviceProperties,
 * distributedInfo); so a trace of gigabytes is not read twice.  Other JSON
 * is read until its top-level object closes.  This is vaggregate's idea
 * for reports (report_sniff()) applied to traces: look at the content, not
 * the name, and skip other JSON in a directory with a note.
 */
#ifndef VT_TRACE_SNIFF_H
#define VT_TRACE_SNIFF_H

#include "log.h"

/*
 * 1: path is a trace (its events array begins, or it is a collector raw
 * file).  0: a whole JSON object that is not a trace; *why says so (no
 * offset: the note is about the whole file).  -1: cannot tell (unreadable, not
 * JSON, cut off, a top-level value beyond the reader's limit): reading it
 * as a trace gives the error with its offset.
 */
int trace_sniff(const char *path, struct err *why);

#endif
