/*
 * inflate_only: how fast can one core inflate a gzipped trace when nothing
 * parses it?  The ceiling that vanalyze's single-stream reader is measured
 * against in `make bench`.
 *
 *   inflate_only FILE [--engine zlib|isal]
 *
 * prints one line, "bytes_out seconds MB/s engine" (MB = 1e6 bytes, wall
 * clock), and exits 0; 1 when the file cannot be read or is not valid gzip;
 * 2 on a usage error.  Buffers are the reader's (GZIN_BUF_SIZE in,
 * TRACE_CHUNK_DEFAULT out: 128 and 256 KiB), the output thrown away.
 * Multi-member gzip (cat a.gz b.gz, pigz) is read to the end of the last
 * member.
 */
/* clock_gettime() is POSIX; the Makefile's _GNU_SOURCE covers it too. */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "gzin.h"
#include "trace_read.h"

/* The reader's own sizes, so the two figures of make bench compare alike. */
#define IN_SIZE GZIN_BUF_SIZE
#define OUT_SIZE TRACE_CHUNK_DEFAULT
#define IN_HEADROOM 16		/* room to put back bytes ISA-L read ahead (<= 8) */

static const char *prog = "inflate_only";

struct input {
	FILE *f;
	const char *path;
	unsigned char *buf;	/* IN_HEADROOM + IN_SIZE + IN_HEADROOM of slack */
	int eof;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Refill: returns bytes read into buf + IN_HEADROOM, 0 at EOF, -1 on error. */
static long refill(struct input *in)
{
	size_t n;

	if (in->eof)
		return 0;
	n = fread(in->buf + IN_HEADROOM, 1, IN_SIZE, in->f);
	if (n < IN_SIZE) {
		if (ferror(in->f)) {
			fprintf(stderr, "%s: %s: %s\n", prog, in->path, strerror(errno));
			return -1;
		}
		in->eof = 1;
	}
	return (long)n;
}

static int bad_data(const struct input *in, uint64_t at, const char *what)
{
	fprintf(stderr, "%s: %s: byte %llu: %s\n", prog, in->path, (unsigned long long)at, what);
	return -1;
}

static int run_zlib(struct input *in, uint64_t *out_bytes)
{
	static unsigned char out[OUT_SIZE];
	z_stream z;
	uint64_t consumed = 0;
	int rc = 0, in_member = 0;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: gzip only, so a stray zlib or raw stream is an error, not data. */
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return bad_data(in, 0, "inflateInit2 failed");
	for (;;) {
		if (z.avail_in == 0) {
			long n = refill(in);

			if (n < 0) {
				rc = -1;
				break;
			}
			if (n == 0) {
				if (in_member)
					rc = bad_data(in, consumed, "truncated gzip stream");
				break;
			}
			z.next_in = in->buf + IN_HEADROOM;
			z.avail_in = (uInt)n;
		}
		do {
			uInt before = z.avail_in;
			int zr;

			z.next_out = out;
			z.avail_out = OUT_SIZE;
			zr = inflate(&z, Z_NO_FLUSH);
			consumed += before - z.avail_in;
			*out_bytes += OUT_SIZE - z.avail_out;
			if (before != z.avail_in)
				in_member = 1;
			if (zr == Z_STREAM_END) {
				/* A member ends; another may follow. */
				inflateReset(&z);
				in_member = 0;
			} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
				rc = bad_data(in, consumed, z.msg ? z.msg : "corrupt gzip data");
				goto out;
			}
		} while (z.avail_in > 0 || z.avail_out == 0);
	}
out:
	inflateEnd(&z);
	return rc;
}

#ifdef HAVE_ISAL
static int run_isal(struct input *in, uint64_t *out_bytes)
{
	static unsigned char out[OUT_SIZE];
	struct inflate_state *st = malloc(sizeof(*st));
	uint64_t consumed = 0;
	int rc = 0, in_member = 0;

	if (!st)
		return bad_data(in, 0, "out of memory");
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->avail_in = 0;
	for (;;) {
		if (st->avail_in == 0) {
			long n = refill(in);

			if (n < 0) {
				rc = -1;
				break;
			}
			if (n == 0) {
				if (in_member)
					rc = bad_data(in, consumed, "truncated gzip stream");
				break;
			}
			st->next_in = in->buf + IN_HEADROOM;
			st->avail_in = (uint32_t)n;
		}
		do {
			uint32_t before = st->avail_in;
			int ir;

			st->next_out = out;
			st->avail_out = OUT_SIZE;
			ir = isal_inflate(st);
			consumed += before - st->avail_in;
			*out_bytes += OUT_SIZE - st->avail_out;
			if (before != st->avail_in)
				in_member = 1;
			if (ir < 0) {
				rc = bad_data(in, consumed, ir == ISAL_INCORRECT_CHECKSUM ?
					      "gzip CRC mismatch" : "corrupt gzip data");
				goto out;
			}
			if (st->block_state == ISAL_BLOCK_FINISH) {
				/*
				 * ISA-L's 64-bit bit buffer may hold whole bytes of the next
				 * member: put them back in front of the unread input before
				 * the reset drops them.
				 */
				uint32_t back = (uint32_t)st->read_in_length / 8;
				uint64_t bits = st->read_in >> (st->read_in_length % 8);
				uint32_t avail = st->avail_in + back;
				unsigned char *p = st->next_in;

				if (back) {
					/*
					 * They were read from just before next_in, so the
					 * headroom always has room; the move is only a guard.
					 */
					if ((size_t)(p - in->buf) < back) {
						memmove(in->buf + IN_HEADROOM, p, st->avail_in);
						p = in->buf + IN_HEADROOM;
					}
					p -= back;
					for (uint32_t i = 0; i < back; i++)
						p[i] = (unsigned char)(bits >> (8 * i));
				}
				consumed -= back;
				isal_inflate_reset(st);
				st->crc_flag = ISAL_GZIP;
				st->next_in = p;
				st->avail_in = avail;
				in_member = 0;
			}
		} while (st->avail_in > 0 || st->avail_out == 0);
	}
out:
	free(st);
	return rc;
}
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: %s FILE [--engine zlib|isal]\n"
		   "Inflate a gzip file, discard the output, print "
		   "\"bytes_out seconds MB/s engine\".\n", prog);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *engine = "zlib";
	struct input in;
	uint64_t out_bytes = 0;
	double t0, secs;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
			engine = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "%s: unknown option '%s'\ntry '%s --help'\n", prog, argv[i],
				prog);
			return 2;
		} else if (!path) {
			path = argv[i];
		} else {
			fprintf(stderr, "%s: one FILE only\ntry '%s --help'\n", prog, prog);
			return 2;
		}
	}
	if (!path || (strcmp(engine, "zlib") && strcmp(engine, "isal"))) {
		usage(stderr);
		return 2;
	}
#ifndef HAVE_ISAL
	if (!strcmp(engine, "isal")) {
		fprintf(stderr, "%s: built without ISA-L (HAVE_ISAL)\n", prog);
		return 1;
	}
#endif

	t0 = now_s();
	memset(&in, 0, sizeof(in));
	in.path = path;
	in.f = fopen(path, "rb");
	if (!in.f) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
		return 1;
	}
	in.buf = malloc(IN_HEADROOM + IN_SIZE + IN_HEADROOM);
	if (!in.buf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
#ifdef HAVE_ISAL
	if (!strcmp(engine, "isal"))
		rc = run_isal(&in, &out_bytes);
	else
#endif
		rc = run_zlib(&in, &out_bytes);
	fclose(in.f);
	free(in.buf);
	secs = now_s() - t0;
	if (rc)
		return 1;
	printf("%llu %.3f %.1f %s\n", (unsigned long long)out_bytes, secs,
	       secs > 0 ? (double)out_bytes / 1e6 / secs : 0.0, engine);
	return 0;
}
