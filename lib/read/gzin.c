/*
 * gzin: see gzin.h.  One input buffer of GZIN_BUF_SIZE feeds the inflater,
 * which writes straight into the caller's buffer; plain input is read
 * straight into the caller's buffer too, once the bytes sniffed for the magic
 * have been handed out.
 *
 * Invariants: buf[pos..len) holds compressed bytes read from fd but not yet
 * given to the inflater, and in_read counts every byte read from fd, so the
 * compressed offset is in_read - (len - pos).  Once an error is stored in
 * g->err, every later gzin_read returns it again.
 *
 * VTRACE_INFLATE=zlib in the environment, read at gzin_open(), makes a build
 * with ISA-L inflate with zlib instead; tests and benchmarks compare the two.
 */
#include "gzin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "crc32.h"

#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

enum gzin_engine { ENGINE_NONE, ENGINE_ZLIB, ENGINE_ISAL };

enum gzin_state {
	ST_BETWEEN,		/* at a member boundary (or the start of the file) */
	ST_MEMBER,		/* inside a member */
	ST_DONE,		/* clean end of input */
	ST_ERROR,		/* g->err holds the error, repeated on every read */
};

struct gzin {
	int fd;
	int own_fd;		/* 0 for stdin, which we must not close */
	enum gzin_engine engine;
	enum gzin_state state;
	int eof;		/* read(2) returned 0 */
	unsigned char *buf;	/* GZIN_BUF_SIZE bytes */
	size_t pos, len;
	int64_t in_read;
	int64_t in_size;
	struct err err;
	z_stream z;
	int z_live;		/* inflateInit2 succeeded, so inflateEnd is due */
#ifdef HAVE_ISAL
	struct inflate_state *isal;	/* about 85 KiB, hence not inline */
	struct isal_gzip_header hdr;	/* a member's header being read */
	enum { M_HEADER, M_DEFLATE, M_TRAILER } part;	/* of the member */
	uint32_t crc, isize;		/* of the member's output so far */
	unsigned char trailer[8];
	unsigned nr_trailer;
#endif
};

static int64_t in_offset(const struct gzin *g)
{
	return g->in_read - (int64_t)(g->len - g->pos);
}

/* A stored error carries a compressed offset, except open-time failures. */
static void fail_at(struct gzin *g, int64_t offset, const char *msg)
{
	err_set(&g->err, offset, "%s", msg);
	g->err.compressed = offset >= 0;
	g->state = ST_ERROR;
}

static ssize_t read_fd(int fd, void *dst, size_t cap)
{
	ssize_t n;

	do
		n = read(fd, dst, cap);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * Make at least want bytes available in buf[pos..len), moving the unread
 * tail to the front first.  Fewer are there only at end of file.  Returns
 * -1 and stores the error when read(2) fails.
 */
static int fill(struct gzin *g, size_t want)
{
	ssize_t n;

	if (g->pos > 0) {
		memmove(g->buf, g->buf + g->pos, g->len - g->pos);
		g->len -= g->pos;
		g->pos = 0;
	}
	while (g->len < want && !g->eof) {
		n = read_fd(g->fd, g->buf + g->len, GZIN_BUF_SIZE - g->len);
		if (n < 0) {
			char msg[200];

			snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
			fail_at(g, g->in_read, msg);
			return -1;
		}
		if (n == 0)
			g->eof = 1;
		g->len += (size_t)n;
		g->in_read += n;
	}
	return 0;
}

static int engine_init(struct gzin *g)
{
#ifdef HAVE_ISAL
	const char *force = getenv("VTRACE_INFLATE");

	if (!force || strcmp(force, "zlib") != 0) {
		g->isal = malloc(sizeof(*g->isal));
		if (!g->isal)
			return -1;
		isal_inflate_init(g->isal);
		g->engine = ENGINE_ISAL;
		return 0;
	}
#endif
	/* 15 + 16: a 32 KiB window and a gzip wrapper only, never zlib's. */
	if (inflateInit2(&g->z, 15 + 16) != Z_OK)
		return -1;
	g->z_live = 1;
	g->engine = ENGINE_ZLIB;
	return 0;
}

static void engine_reset(struct gzin *g)
{
#ifdef HAVE_ISAL
	if (g->engine == ENGINE_ISAL) {
		isal_inflate_reset(g->isal);
		/* Set every member: the header does not promise reset keeps it. */
		g->isal->crc_flag = ISAL_DEFLATE;
		isal_gzip_header_init(&g->hdr);
		g->part = M_HEADER;
		g->crc = g->isize = 0;
		g->nr_trailer = 0;
		return;
	}
#endif
	inflateReset(&g->z);
}

/* inflate and isal_inflate take 32-bit counts. */
static uint32_t clamp32(size_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/*
 * One call of the inflater from buf[pos..len) into dst.  Sets *produced.
 * Returns 1 at the end of a member (trailer checked), 0 to go on, -1 with
 * the error stored.
 */
static int step_zlib(struct gzin *g, unsigned char *dst, size_t cap, size_t *produced)
{
	uint32_t room = clamp32(cap);
	char msg[200];
	int ret;

	g->z.next_in = g->buf + g->pos;
	g->z.avail_in = (uInt)(g->len - g->pos);
	g->z.next_out = dst;
	g->z.avail_out = room;
	ret = inflate(&g->z, Z_NO_FLUSH);
	*produced = room - g->z.avail_out;
	g->pos = g->len - g->z.avail_in;

	switch (ret) {
	case Z_OK:
	case Z_BUF_ERROR:	/* no progress possible: more input is due */
		return 0;
	case Z_STREAM_END:
		return 1;
	case Z_MEM_ERROR:
		fail_at(g, in_offset(g), "out of memory");
		return -1;
	}
	/*
	 * zlib checks the trailer's CRC-32 and ISIZE after handing out the
	 * member's bytes; say so in the same words as the ISA-L path.
	 */
	if (g->z.msg && (!strcmp(g->z.msg, "incorrect data check") ||
			 !strcmp(g->z.msg, "incorrect length check"))) {
		fail_at(g, in_offset(g), "gzip trailer check failed");
		return -1;
	}
	snprintf(msg, sizeof(msg), "corrupt gzip data: %s", g->z.msg ? g->z.msg : "unknown error");
	fail_at(g, in_offset(g), msg);
	return -1;
}

#ifdef HAVE_ISAL
static const char *isal_strerror(int ret)
{
	switch (ret) {
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "invalid gzip header";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_NEED_DICT:
		return "dictionary required";
	case ISAL_INCORRECT_CHECKSUM:
		/* only the header's own CRC: trailer() checks the trailer */
		return "header crc mismatch";
	}
	return "unknown error";
}

/* An igzip error at the input it had reached, less the whole bytes it had not decoded yet. */
static int isal_fail(struct gzin *g, int ret)
{
	struct inflate_state *s = g->isal;
	int64_t at = in_offset(g) - (s->read_in_length > 0 ? s->read_in_length / 8 : 0);
	char msg[200];

	snprintf(msg, sizeof(msg), "corrupt gzip data: %s", isal_strerror(ret));
	fail_at(g, at, msg);
	return -1;
}

/*
 * The member's trailer: its CRC-32 and length, little-endian, after the
 * deflate data.  igzip ends the data with whole bytes of the input still
 * in its bit buffer (they were read eight at a time, perhaps from an
 * earlier fill of buf): those come first, the rest from buf.
 */
static int trailer(struct gzin *g)
{
	struct inflate_state *s = g->isal;
	uint32_t crc, isize;

	if (g->part == M_DEFLATE) {
		int bits = s->read_in_length > 0 ? s->read_in_length : 0;
		uint64_t rest = s->read_in >> (bits % 8);

		g->part = M_TRAILER;
		for (int i = 0; i < bits / 8 && g->nr_trailer < 8; i++, rest >>= 8)
			g->trailer[g->nr_trailer++] = (unsigned char)rest;
		s->read_in = 0;
		s->read_in_length = 0;
	}
	while (g->nr_trailer < 8 && g->pos < g->len)
		g->trailer[g->nr_trailer++] = g->buf[g->pos++];
	if (g->nr_trailer < 8)
		return 0;	/* more input is due; at end of file, "truncated" */
	crc = (uint32_t)g->trailer[0] | (uint32_t)g->trailer[1] << 8 |
	      (uint32_t)g->trailer[2] << 16 | (uint32_t)g->trailer[3] << 24;
	isize = (uint32_t)g->trailer[4] | (uint32_t)g->trailer[5] << 8 |
		(uint32_t)g->trailer[6] << 16 | (uint32_t)g->trailer[7] << 24;
	if (crc != g->crc || isize != g->isize) {
		fail_at(g, in_offset(g), "gzip trailer check failed");
		return -1;
	}
	return 1;
}

/*
 * igzip parses the header and inflates the data; the CRC-32 of the output
 * is crc32.c's (twice as fast as igzip's where the CPU folds 256 bits) and
 * the trailer is checked here.
 */
static int step_isal(struct gzin *g, unsigned char *dst, size_t cap, size_t *produced)
{
	struct inflate_state *s = g->isal;
	uint32_t room = clamp32(cap);
	int ret;

	*produced = 0;
	s->next_in = g->buf + g->pos;
	s->avail_in = (uint32_t)(g->len - g->pos);
	if (g->part == M_HEADER) {
		ret = isal_read_gzip_header(s, &g->hdr);
		g->pos = g->len - s->avail_in;
		if (ret == ISAL_END_INPUT)
			return 0;
		if (ret != ISAL_DECOMP_OK)
			return isal_fail(g, ret);
		g->part = M_DEFLATE;
	}
	if (g->part == M_DEFLATE) {
		s->next_out = dst;
		s->avail_out = room;
		ret = isal_inflate(s);
		*produced = room - s->avail_out;
		g->pos = g->len - s->avail_in;
		g->crc = crc32_of(g->crc, dst, *produced);
		g->isize += (uint32_t)*produced;	/* ISIZE: the length modulo 2^32 */
		if (ret != ISAL_DECOMP_OK && ret != ISAL_END_INPUT && ret != ISAL_OUT_OVERFLOW)
			return isal_fail(g, ret);
		if (s->block_state != ISAL_BLOCK_FINISH)
			return 0;
	}
	return trailer(g);
}
#endif

static int step(struct gzin *g, unsigned char *dst, size_t cap, size_t *produced)
{
#ifdef HAVE_ISAL
	if (g->engine == ENGINE_ISAL)
		return step_isal(g, dst, cap, produced);
#endif
	return step_zlib(g, dst, cap, produced);
}

/*
 * At a member boundary: start the next member, or end cleanly at end of
 * file.  Zero bytes up to end of file are padding (tape blocks, preallocated
 * files) and gzip(1) accepts them, so we do too.  Returns 1 for a new member,
 * 0 for the end, -1 with the error stored.
 */
static int next_member(struct gzin *g)
{
	const unsigned char *p;

	if (fill(g, 2) < 0)
		return -1;
	if (g->pos == g->len)
		return 0;
	p = g->buf + g->pos;
	if (g->len - g->pos >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		engine_reset(g);
		return 1;
	}
	if (g->len - g->pos == 1 && p[0] == 0x1f) {
		fail_at(g, g->in_read, "truncated gzip stream");
		return -1;
	}
	while (g->pos < g->len || !g->eof) {
		if (g->pos == g->len && fill(g, 1) < 0)
			return -1;
		for (; g->pos < g->len; g->pos++) {
			if (g->buf[g->pos] != 0) {
				fail_at(g, in_offset(g), "trailing garbage after gzip data");
				return -1;
			}
		}
	}
	return 0;
}

static ssize_t read_gzip(struct gzin *g, unsigned char *dst, size_t cap)
{
	size_t out = 0, produced, before;
	int ret;

	while (out < cap && g->state != ST_DONE) {
		if (g->state == ST_BETWEEN) {
			ret = next_member(g);
			if (ret < 0)
				break;
			g->state = ret ? ST_MEMBER : ST_DONE;
			continue;
		}
		if (g->pos == g->len && !g->eof && fill(g, 1) < 0)
			break;
		before = g->pos;
		ret = step(g, dst + out, cap - out, &produced);
		out += produced;
		if (ret < 0)
			break;
		if (ret == 1) {
			g->state = ST_BETWEEN;
			continue;
		}
		if (produced == 0 && g->pos == before) {
			/*
			 * Neither input taken nor output made: at end of file
			 * the member is cut off; otherwise the inflater is stuck
			 * on input it will not take, which no valid stream does.
			 */
			if (g->pos == g->len && g->eof)
				fail_at(g, g->in_read, "truncated gzip stream");
			else if (g->pos != g->len)
				fail_at(g, in_offset(g), "corrupt gzip data: no progress");
		}
		if (g->state == ST_ERROR)
			break;
	}
	/* Good bytes first: the error waits for the next call. */
	if (out > 0 || g->state != ST_ERROR)
		return (ssize_t)out;
	return -1;
}

static ssize_t read_plain(struct gzin *g, unsigned char *dst, size_t cap)
{
	size_t have = g->len - g->pos;
	ssize_t n;

	/* The bytes sniffed for the magic come first; then read(2) into dst. */
	if (have > 0) {
		if (have > cap)
			have = cap;
		memcpy(dst, g->buf + g->pos, have);
		g->pos += have;
		return (ssize_t)have;
	}
	if (g->eof)
		return 0;
	n = read_fd(g->fd, dst, cap);
	if (n < 0) {
		char msg[200];

		snprintf(msg, sizeof(msg), "read error: %s", strerror(errno));
		fail_at(g, g->in_read, msg);
		/* Plain offsets are text offsets, which here are file offsets. */
		g->err.compressed = 0;
		return -1;
	}
	if (n == 0)
		g->eof = 1;
	g->in_read += n;
	return n;
}

struct gzin *gzin_open(const char *path, struct err *e)
{
	struct gzin *g;
	struct stat st;

	g = calloc(1, sizeof(*g));
	if (!g) {
		err_set(e, -1, "out of memory");
		return NULL;
	}
	g->fd = -1;
	g->in_size = -1;
	err_clear(&g->err);

	if (!strcmp(path, "-")) {
		g->fd = STDIN_FILENO;
	} else {
		g->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (g->fd < 0) {
			err_set(e, -1, "cannot open: %s", strerror(errno));
			goto fail;
		}
		g->own_fd = 1;
	}
	if (fstat(g->fd, &st) < 0) {
		err_set(e, -1, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		err_set(e, -1, "is a directory");
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		g->in_size = st.st_size;
		posix_fadvise(g->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	}

	g->buf = malloc(GZIN_BUF_SIZE);
	if (!g->buf) {
		err_set(e, -1, "out of memory");
		goto fail;
	}
	/* A pipe may hand out one byte at a time; the magic needs two. */
	if (fill(g, 2) < 0) {
		err_set(e, -1, "%s", g->err.msg);
		goto fail;
	}
	if (g->len >= 2 && g->buf[0] == 0x1f && g->buf[1] == 0x8b) {
		if (engine_init(g) < 0) {
			err_set(e, -1, "out of memory");
			goto fail;
		}
		g->state = ST_BETWEEN;
	} else {
		g->engine = ENGINE_NONE;
		g->state = ST_MEMBER;
	}
	return g;

fail:
	gzin_close(g);
	return NULL;
}

ssize_t gzin_read(struct gzin *g, void *dst, size_t cap, struct err *e)
{
	ssize_t n;

	if (g->state == ST_ERROR) {
		if (e)
			*e = g->err;
		return -1;
	}
	if (cap > SSIZE_MAX)
		cap = SSIZE_MAX;
	if (cap == 0)
		return 0;
	if (g->engine == ENGINE_NONE)
		n = read_plain(g, dst, cap);
	else
		n = read_gzip(g, dst, cap);
	if (n < 0 && e)
		*e = g->err;
	return n;
}

int gzin_is_gzip(const struct gzin *g)
{
	return g->engine != ENGINE_NONE;
}

int64_t gzin_in_offset(const struct gzin *g)
{
	return in_offset(g);
}

int64_t gzin_in_size(const struct gzin *g)
{
	return g->in_size;
}

const char *gzin_engine(const struct gzin *g)
{
	switch (g->engine) {
	case ENGINE_ISAL:
		return "isa-l";
	case ENGINE_ZLIB:
		return "zlib";
	case ENGINE_NONE:
		break;
	}
	return "none";
}

void gzin_close(struct gzin *g)
{
	if (!g)
		return;
#ifdef HAVE_ISAL
	free(g->isal);
#endif
	if (g->z_live)
		inflateEnd(&g->z);
	free(g->buf);
	if (g->own_fd)
		close(g->fd);
	free(g);
}
