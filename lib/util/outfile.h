/*
 * outfile: write an output file whole or not at all.
 *
 * The bytes go to "PATH.tmp", which is flushed, checked and renamed over
 * PATH, so a full disk or a crash never leaves a half-written report.  "-"
 * writes to standard output, and an existing path that is no regular file
 * (/dev/null, a FIFO) is written directly, never renamed over.
 */
#ifndef VT_OUTFILE_H
#define VT_OUTFILE_H

#include <stddef.h>

#include "log.h"

/* Returns 0, or -1 with *e filled ("cannot write 'PATH': No space left..."). */
int outfile_write(const char *path, const void *data, size_t len, struct err *e);

#endif
