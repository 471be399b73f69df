/*
 * gzin: streaming input of a trace file, gzipped or plain.
 *
 * Gzip is recognised by its magic bytes (1f 8b), not by the file name; any
 * other first bytes are passed through unchanged.  Multi-member gzip (as
 * `cat a.gz b.gz` or pigz makes it) is read to the end of the last member.
 * "-" reads standard input.  Inflation uses ISA-L's igzip when vtrace is
 * built with it (HAVE_ISAL), zlib otherwise; both give identical bytes.
 * VTRACE_INFLATE=zlib in the environment at gzin_open() forces zlib, so
 * tests and benchmarks can compare the engines.
 *
 * Errors (corrupt deflate data, a bad CRC, a file cut off mid-member) are
 * reported once, after every good byte before them has been returned, with
 * the compressed byte offset in struct err.  Memory: one input buffer of
 * GZIN_BUF_SIZE and the inflate state; nothing grows with the file.
 */
#ifndef VT_GZIN_H
#define VT_GZIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "log.h"

/*
 * The compressed input read at a time.  It is copied by read(2) and then
 * read by the inflater, so it should stay in the L2 cache: 1 MiB (over
 * this VM's 512 KiB a core) made the read 1.5 % slower than 64 to 256 KiB.
 */
#define GZIN_BUF_SIZE (1u << 17)

struct gzin;

/* Open path ("-" for stdin).  Returns NULL and fills *e when it cannot. */
struct gzin *gzin_open(const char *path, struct err *e);

/*
 * Read up to cap decompressed bytes into dst.  Returns the count, 0 at the
 * clean end of input, or -1 with *e filled (after all good bytes were
 * returned by earlier calls).  A file whose last gzip member is cut off
 * gives -1 with "truncated gzip stream".
 */
ssize_t gzin_read(struct gzin *g, void *dst, size_t cap, struct err *e);

/* 1 when the input is gzip-compressed. */
int gzin_is_gzip(const struct gzin *g);

/* Compressed (file) bytes consumed so far, and file size when known (-1). */
int64_t gzin_in_offset(const struct gzin *g);
int64_t gzin_in_size(const struct gzin *g);

/* Name of the inflate engine in use: "isa-l", "zlib" or "none" (plain). */
const char *gzin_engine(const struct gzin *g);

/* Close the file and free everything.  Safe on NULL. */
void gzin_close(struct gzin *g);

#endif
