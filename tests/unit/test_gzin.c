/*
 * test_gzin: unit tests for lib/read/gzin.c.  Gzip inputs are made here with
 * zlib's deflate and written to temporary files under $TMPDIR (or /tmp),
 * which are removed at the end.  Each gzip check runs once per engine:
 * the default one (ISA-L where built in) and zlib forced by
 * VTRACE_INFLATE=zlib.  Prints one line per check; exits 1 if any failed.
 */
#include "gzin.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"

/* A growable byte string, enough for building inputs and collecting output. */
struct bytes {
	unsigned char *data;
	size_t len, cap;
};

static void bytes_add(struct bytes *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (!b->data) {
			fprintf(stderr, "test_gzin: out of memory\n");
			exit(1);
		}
		b->cap = cap;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void bytes_free(struct bytes *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Append one gzip member holding src to out. */
static void gzip_member(struct bytes *out, const unsigned char *src, size_t n, int level)
{
	unsigned char chunk[65536];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		fprintf(stderr, "test_gzin: deflateInit2 failed\n");
		exit(1);
	}
	z.next_in = (unsigned char *)src;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, Z_FINISH);
		bytes_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (ret == Z_OK);
	if (ret != Z_STREAM_END) {
		fprintf(stderr, "test_gzin: deflate failed\n");
		exit(1);
	}
	deflateEnd(&z);
}

/*
 * Trace-like text with runs of random bytes in it, so that the compressed
 * form of a few MB spans more than one GZIN_BUF_SIZE input buffer.
 */
static void make_payload(struct bytes *b, size_t n, unsigned seed)
{
	unsigned x = seed * 2654435761u + 1;
	char line[160];
	int len;

	while (b->len < n) {
		x = x * 1103515245u + 12345;
		if ((x >> 16) % 50 == 0) {
			unsigned char rnd[4096];

			for (size_t i = 0; i < sizeof(rnd); i++) {
				x = x * 1103515245u + 12345;
				rnd[i] = (unsigned char)(x >> 24);
			}
			bytes_add(b, rnd, sizeof(rnd));
			continue;
		}
		len = snprintf(line, sizeof(line),
			       "{\"name\": \"aten::op%u\", \"ph\": \"X\", "
			       "\"ts\": %u, \"dur\": %u},\n",
			       (x >> 20) % 97, x % 1000003, (x >> 8) % 5000);
		bytes_add(b, line, (size_t)len);
	}
	b->len = n;
}

static char tmp_paths[128][4096];
static int nr_tmp;

static const char *write_tmp(const void *data, size_t n)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (nr_tmp == 128) {
		fprintf(stderr, "test_gzin: too many temporary files\n");
		exit(1);
	}
	path = tmp_paths[nr_tmp];
	snprintf(path, sizeof(tmp_paths[0]), "%s/test_gzin.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "test_gzin: mkstemp %s: %s\n", path, strerror(errno));
		exit(1);
	}
	nr_tmp++;
	if (n && write(fd, data, n) != (ssize_t)n) {
		fprintf(stderr, "test_gzin: write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	return path;
}

static void remove_tmp(void)
{
	for (int i = 0; i < nr_tmp; i++)
		unlink(tmp_paths[i]);
}

/* What reading a whole input gave. */
struct result {
	int opened;
	int rc;			/* 0: clean end, -1: error */
	struct bytes out;
	struct err e;
	char engine[16];
	int is_gzip;
	int64_t in_offset, in_size;
	int error_repeats;	/* a read after -1 returned the same -1 again */
};

static const char *engine_env;	/* NULL: default engine; "zlib": forced */

static void set_engine(void)
{
	if (engine_env)
		setenv("VTRACE_INFLATE", engine_env, 1);
	else
		unsetenv("VTRACE_INFLATE");
}

/* Read path to the end through a heap buffer of exactly cap bytes. */
static void read_all(const char *path, size_t cap, struct result *r)
{
	unsigned char *dst = check_xmalloc(cap);
	struct gzin *g;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	err_clear(&r->e);
	set_engine();
	g = gzin_open(path, &r->e);
	if (!g) {
		free(dst);
		return;
	}
	r->opened = 1;
	snprintf(r->engine, sizeof(r->engine), "%s", gzin_engine(g));
	r->is_gzip = gzin_is_gzip(g);
	r->in_size = gzin_in_size(g);
	while ((n = gzin_read(g, dst, cap, &r->e)) > 0)
		bytes_add(&r->out, dst, (size_t)n);
	r->rc = n < 0 ? -1 : 0;
	if (n < 0) {
		struct err again;

		err_clear(&again);
		r->error_repeats = gzin_read(g, dst, cap, &again) == -1 &&
				      !strcmp(again.msg, r->e.msg);
	}
	r->in_offset = gzin_in_offset(g);
	gzin_close(g);
	free(dst);
}

static void result_free(struct result *r)
{
	bytes_free(&r->out);
}

static int same(const struct bytes *out, const void *want, size_t n)
{
	return out->len == n && (n == 0 || !memcmp(out->data, want, n));
}

static int is_prefix(const struct bytes *out, const void *want, size_t n)
{
	return out->len <= n && (out->len == 0 || !memcmp(out->data, want, out->len));
}

static const char *tag(void)
{
	return engine_env ? "zlib" : "default";
}

static void test_plain(void)
{
	struct bytes p = { 0 };
	struct result r;
	const char *path;

	make_payload(&p, 3u << 20, 1);
	path = write_tmp(p.data, p.len);
	read_all(path, 1u << 20, &r);
	CHECK_MSG(r.opened && r.rc == 0 && same(&r.out, p.data, p.len),
		  "plain file passes through unchanged (%zu bytes)", p.len);
	CHECK_MSG(!r.is_gzip && !strcmp(r.engine, "none"), "plain file: engine \"%s\"", r.engine);
	CHECK_MSG(r.in_size == (int64_t)p.len && r.in_offset == (int64_t)p.len,
		  "plain file: in_size %lld, in_offset %lld", (long long)r.in_size,
		  (long long)r.in_offset);
	result_free(&r);

	read_all(path, 7, &r);
	CHECK_MSG(r.rc == 0 && same(&r.out, p.data, p.len), "plain file through a 7-byte buffer");
	result_free(&r);

	/* A text file that starts with the first magic byte only. */
	path = write_tmp("\x1f" "abc", 4);
	read_all(path, 4096, &r);
	CHECK_MSG(r.rc == 0 && same(&r.out, "\x1f" "abc", 4) && !r.is_gzip,
		  "file starting 1f but not 1f 8b is plain");
	result_free(&r);
	bytes_free(&p);
}

static void test_tiny_files(void)
{
	struct result r;
	const char *path;

	path = write_tmp("", 0);
	read_all(path, 4096, &r);
	CHECK_MSG(r.opened && r.rc == 0 && r.out.len == 0 && !r.is_gzip,
		  "empty file: gzin_read returns 0 at once");
	CHECK_MSG(r.in_size == 0 && r.in_offset == 0, "empty file: in_size 0, in_offset 0");
	result_free(&r);

	path = write_tmp("[", 1);
	read_all(path, 4096, &r);
	CHECK_MSG(r.opened && r.rc == 0 && same(&r.out, "[", 1) && !r.is_gzip,
		  "1-byte file passes through");
	result_free(&r);

	path = write_tmp("\x1f", 1);
	read_all(path, 1, &r);
	CHECK_MSG(r.opened && r.rc == 0 && same(&r.out, "\x1f", 1),
		  "1-byte file 1f passes through");
	result_free(&r);
}

static void test_open_errors(void)
{
	struct err e;
	struct gzin *g;
	const char *dir = getenv("TMPDIR");
	char path[4200];

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/test_gzin.no-such-file.%ld", dir, (long)getpid());
	err_clear(&e);
	g = gzin_open(path, &e);
	CHECK_MSG(!g && !strncmp(e.msg, "cannot open: ", 13) && e.offset == -1,
		  "missing file: NULL with \"%s\"", e.msg);
	gzin_close(g);

	err_clear(&e);
	g = gzin_open(dir, &e);
	CHECK_MSG(!g && !strcmp(e.msg, "is a directory") && e.offset == -1,
		  "directory: NULL with \"%s\"", e.msg);
	gzin_close(g);
	gzin_close(NULL);
	CHECK_MSG(1, "gzin_close(NULL) is harmless");
}

/* Read gz with several buffer sizes and compare against want. */
static void check_gz(const char *what, const struct bytes *gz, const struct bytes *want,
		     const size_t *caps, int nr_caps)
{
	const char *path = write_tmp(gz->data, gz->len);
	struct result r;

	for (int i = 0; i < nr_caps; i++) {
		read_all(path, caps[i], &r);
		CHECK_MSG(r.opened && r.rc == 0 && same(&r.out, want->data, want->len),
			  "%s [%s, cap %zu]: %zu bytes match%s%s", what, tag(), caps[i], r.out.len,
			  r.rc ? ", error: " : "", r.rc ? r.e.msg : "");
		if (i == 0) {
			CHECK_MSG(r.is_gzip && !strcmp(r.engine, engine_env ? "zlib" :
#ifdef HAVE_ISAL
						  "isa-l"
#else
						  "zlib"
#endif
						  ),
				  "%s [%s]: engine \"%s\"", what, tag(), r.engine);
			CHECK_MSG(r.in_offset == (int64_t)gz->len && r.in_size == (int64_t)gz->len,
				  "%s [%s]: in_offset %lld = in_size %lld = %zu", what, tag(),
				  (long long)r.in_offset, (long long)r.in_size, gz->len);
		}
		result_free(&r);
	}
}

static void test_members(void)
{
	static const size_t big_caps[] = { 4u << 20, 4096, 65536 + 3 };
	static const size_t small_caps[] = { 1, 7, 4096 };
	struct bytes p = { 0 }, gz = { 0 }, want = { 0 }, small = { 0 };
	size_t third;

	make_payload(&p, 5u << 20, 2);
	gzip_member(&gz, p.data, p.len, 6);
	CHECK_MSG(gz.len > GZIN_BUF_SIZE, "payload compresses to %zu bytes, over one input buffer",
		  gz.len);
	check_gz("single member", &gz, &p, big_caps, 3);
	bytes_free(&gz);

	/* Three members, cut at odd places, one of them empty-adjacent. */
	third = p.len / 3 + 12345;
	gzip_member(&gz, p.data, third, 1);
	gzip_member(&gz, p.data + third, 0, 6);
	gzip_member(&gz, p.data + third, third, 9);
	gzip_member(&gz, p.data + 2 * third, p.len - 2 * third, 6);
	check_gz("multi-member (3 + an empty one)", &gz, &p, big_caps, 3);
	bytes_free(&gz);

	/* Small members so that a 1-byte buffer stays quick. */
	make_payload(&small, 150000, 3);
	for (size_t off = 0; off < small.len; off += 50000)
		gzip_member(&gz, small.data + off, 50000, 6);
	check_gz("3 small members, tiny buffers", &gz, &small, small_caps, 3);

	/* Zero padding after the last member, as tape blocks leave it. */
	bytes_add(&want, gz.data, gz.len);
	bytes_add(&gz, (char[1000]){ 0 }, 1000);
	check_gz("trailing zero padding is ignored", &gz, &small, big_caps, 1);

	bytes_free(&gz);
	bytes_free(&want);
	bytes_free(&small);
	bytes_free(&p);
}

/* The member one (of p's first n bytes), then one of the next `more`: read back whole. */
static void check_two_members(const char *what, const struct bytes *one, const struct bytes *p,
			      size_t n, size_t more)
{
	static const size_t caps[] = { 65536 };
	struct bytes gz = { 0 }, want = { 0 };

	bytes_add(&gz, one->data, one->len);
	gzip_member(&gz, p->data + n, more, 6);
	bytes_add(&want, p->data, n + more);
	check_gz(what, &gz, &want, caps, 1);
	bytes_free(&gz);
	bytes_free(&want);
}

/*
 * A member whose 8-byte trailer straddles the end of the first input
 * buffer, at each of its 9 places, then a second member: the ISA-L path
 * reads the trailer itself, part from igzip's bit buffer, part from the
 * next fill.  Stored blocks (level 0) make the member's length exact.
 */
static void test_trailer_across_fills(void)
{
	struct bytes p = { 0 }, one = { 0 };
	size_t n = GZIN_BUF_SIZE - 200;

	make_payload(&p, GZIN_BUF_SIZE + 100000, 11);
	gzip_member(&one, p.data, n, 0);
	n -= one.len - (GZIN_BUF_SIZE + 8);	/* its trailer then starts at the boundary */
	for (int k = 0; k <= 8; k++, n--) {
		char what[80];

		bytes_free(&one);
		gzip_member(&one, p.data, n, 0);
		CHECK_MSG(one.len == GZIN_BUF_SIZE + 8 - (size_t)k,
			  "member of %zu bytes is %zu long compressed", n, one.len);
		snprintf(what, sizeof(what), "trailer with %d of 8 bytes in the first fill", k);
		check_two_members(what, &one, &p, n, 50000);
	}
	bytes_free(&one);
	bytes_free(&p);
}

/*
 * The same with Huffman-coded data, whose last symbols igzip may decode
 * from input it set aside when a fill ended inside one: members whose
 * deflate data ends at a dozen places from 16 bytes before the end of the
 * first buffer to 8 after it.
 */
static void test_huffman_end_across_fills(void)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789";
	struct bytes p = { 0 }, one = { 0 };
	unsigned char seen[25] = { 0 };
	unsigned x = 12345;
	size_t n = GZIN_BUF_SIZE * 4 / 3;
	int nr_seen = 0;

	while (p.len < GZIN_BUF_SIZE * 2) {	/* about 6 bits a byte: Huffman, few matches */
		char c;

		x = x * 1103515245u + 12345;
		c = digits[(x >> 16) % 62];
		bytes_add(&p, &c, 1);
	}
	for (int tries = 0; tries < 64 && nr_seen < 12; tries++) {
		/* where the deflate data ends, from the end of the first buffer */
		long off;

		bytes_free(&one);
		gzip_member(&one, p.data, n, 1);
		off = (long)one.len - 8 - (long)GZIN_BUF_SIZE;
		if (off < -16 || off > 8) {	/* about 0.75 compressed bytes a byte */
			n = (size_t)((long)n - (off + 4) * 4 / 3);
			continue;
		}
		if (!seen[off + 16]) {
			char what[80];

			seen[off + 16] = 1;
			nr_seen++;
			snprintf(what, sizeof(what), "Huffman data ending at %+ld", off);
			check_two_members(what, &one, &p, n, 1000);
		}
		n += 1 + (size_t)(tries % 3);
	}
	CHECK_MSG(nr_seen >= 8, "members ending at %d places around the fill", nr_seen);
	bytes_free(&one);
	bytes_free(&p);
}

static void test_truncated(void)
{
	struct bytes p = { 0 }, gz = { 0 };
	size_t boundary, cuts[12];
	int nr_cuts = 0;
	struct result r;

	make_payload(&p, 3u << 20, 4);
	gzip_member(&gz, p.data, p.len / 2, 6);
	boundary = gz.len;
	gzip_member(&gz, p.data + p.len / 2, p.len - p.len / 2, 6);

	cuts[nr_cuts++] = 2;			/* magic only */
	cuts[nr_cuts++] = 10;			/* header only */
	cuts[nr_cuts++] = 11;
	cuts[nr_cuts++] = boundary / 2;		/* inside the first deflate stream */
	cuts[nr_cuts++] = boundary - 4;		/* CRC there, ISIZE missing */
	cuts[nr_cuts++] = boundary + 1;		/* a lone 1f after a good member */
	cuts[nr_cuts++] = boundary + 5;		/* inside the second header */
	cuts[nr_cuts++] = boundary + (gz.len - boundary) / 2;
	cuts[nr_cuts++] = gz.len - 8;		/* trailer missing */
	cuts[nr_cuts++] = gz.len - 1;		/* one trailer byte missing */

	for (int i = 0; i < nr_cuts; i++) {
		const char *path = write_tmp(gz.data, cuts[i]);

		read_all(path, 1u << 20, &r);
		CHECK_MSG(r.opened && r.rc == -1 && !strcmp(r.e.msg, "truncated gzip stream") &&
			  r.e.compressed && r.e.offset == (int64_t)cuts[i] &&
			  is_prefix(&r.out, p.data, p.len),
			  "cut at %zu of %zu [%s]: %zu good bytes, then \"%s\" at compressed byte "
			  "%lld",
			  cuts[i], gz.len, tag(), r.out.len, r.e.msg, (long long)r.e.offset);
		if (cuts[i] == gz.len - 8 || cuts[i] == gz.len - 1 || cuts[i] >= boundary + 1)
			CHECK_MSG(r.out.len >= (cuts[i] >= gz.len - 8 ? p.len : p.len / 2),
				  "cut at %zu [%s]: every good byte came before the error", cuts[i],
				  tag());
		if (i == 0)
			CHECK_MSG(r.error_repeats,
				  "truncated [%s]: the error repeats on later reads", tag());
		result_free(&r);
	}
	bytes_free(&gz);
	bytes_free(&p);
}

/* Writes deflate bits LSB first, as RFC 1951 packs them. */
struct bits {
	unsigned char b[16];
	size_t nbits;
};

static void put_bits(struct bits *w, unsigned v, int n)
{
	for (int i = 0; i < n; i++, w->nbits++)
		if (v >> i & 1)
			w->b[w->nbits / 8] |= (unsigned char)(1u << (w->nbits % 8));
}

/* Huffman codes go most significant bit first. */
static void put_code(struct bits *w, unsigned code, int n)
{
	for (int i = n - 1; i >= 0; i--)
		put_bits(w, code >> i & 1, 1);
}

static void test_corrupt(void)
{
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	struct bytes p = { 0 }, gz = { 0 }, bad = { 0 };
	struct bits w = { { 0 }, 0 };
	size_t flips[4];
	int nr_corrupt = 0;
	struct result r;
	const char *path;

	make_payload(&p, 1u << 20, 5);
	for (size_t i = 0; i < p.len; i++)
		if (p.data[i] >= 0x80)
			p.data[i] = 'x';	/* text only, so flips land in Huffman data */
	gzip_member(&gz, p.data, p.len, 6);

	/*
	 * A flipped byte in the block header or the middle of the data.  What
	 * the inflater makes of it depends on the bits; any of these is right,
	 * and the header flips must hit the "corrupt" path.
	 */
	flips[0] = 20;
	flips[1] = 50;
	flips[2] = gz.len / 3;
	flips[3] = gz.len / 2;
	for (int i = 0; i < 4; i++) {
		bytes_add(&bad, gz.data, gz.len);
		bad.data[flips[i]] ^= 0x5a;
		path = write_tmp(bad.data, bad.len);
		read_all(path, 65536, &r);
		nr_corrupt += !strncmp(r.e.msg, "corrupt gzip data: ", 19);
		CHECK_MSG(r.rc == -1 && r.e.compressed && r.e.offset >= 0 &&
			  r.e.offset <= (int64_t)bad.len &&
			  (!strncmp(r.e.msg, "corrupt gzip data: ", 19) ||
		       !strcmp(r.e.msg, "gzip trailer check failed") ||
		       !strcmp(r.e.msg, "truncated gzip stream")),
			  "flipped byte at %zu [%s]: %zu bytes, then \"%s\" at compressed byte "
			  "%lld",
			  flips[i], tag(), r.out.len, r.e.msg, (long long)r.e.offset);
		result_free(&r);
		bytes_free(&bad);
	}
	CHECK_MSG(nr_corrupt >= 1, "flipped bytes [%s]: %d of 4 reported as corrupt data", tag(),
		  nr_corrupt);

	/* A bad CRC: every data byte first, then the trailer error. */
	bytes_add(&bad, gz.data, gz.len);
	bad.data[bad.len - 8] ^= 1;
	path = write_tmp(bad.data, bad.len);
	read_all(path, 65536, &r);
	CHECK_MSG(r.rc == -1 && !strcmp(r.e.msg, "gzip trailer check failed") && r.e.compressed &&
		  r.e.offset > 0 && same(&r.out, p.data, p.len),
		  "bad CRC [%s]: all %zu bytes, then \"%s\" at compressed byte %lld", tag(),
		  r.out.len, r.e.msg, (long long)r.e.offset);
	result_free(&r);
	bytes_free(&bad);

	/* A bad ISIZE. */
	bytes_add(&bad, gz.data, gz.len);
	bad.data[bad.len - 1] ^= 1;
	path = write_tmp(bad.data, bad.len);
	read_all(path, 65536, &r);
	CHECK_MSG(r.rc == -1 && !strcmp(r.e.msg, "gzip trailer check failed") && r.e.compressed,
		  "bad length [%s]: \"%s\"", tag(), r.e.msg);
	result_free(&r);
	bytes_free(&bad);

	/*
	 * A header with its own CRC (FLG.FHCRC, the low 16 bits of the header's
	 * CRC-32): read through where it is right; where it is wrong, zlib's
	 * words from both engines, not a trailer's.
	 */
	for (unsigned wrong = 0; wrong < 2; wrong++) {
		unsigned char hcrc[2];
		uLong c;

		bytes_add(&bad, gz.data, 10);
		bad.data[3] |= 0x02;
		c = crc32(0, bad.data, 10) ^ wrong;
		hcrc[0] = (unsigned char)c;
		hcrc[1] = (unsigned char)(c >> 8);
		bytes_add(&bad, hcrc, 2);
		bytes_add(&bad, gz.data + 10, gz.len - 10);
		path = write_tmp(bad.data, bad.len);
		read_all(path, 65536, &r);
		if (wrong)
			CHECK_MSG(r.rc == -1 && r.out.len == 0 &&
				  !strcmp(r.e.msg, "corrupt gzip data: header crc mismatch") &&
				  r.e.compressed,
				  "wrong header CRC [%s]: %zu bytes, then \"%s\"", tag(), r.out.len,
				  r.e.msg);
		else
			CHECK_MSG(r.rc == 0 && same(&r.out, p.data, p.len),
				  "right header CRC [%s]: rc %d, %zu bytes, \"%s\"", tag(), r.rc,
				  r.out.len, r.e.msg);
		result_free(&r);
		bytes_free(&bad);
	}

	/*
	 * A fixed-Huffman block whose first symbol copies from distance 1,
	 * before any output: invalid in every inflater.
	 */
	put_bits(&w, 1, 1);		/* BFINAL */
	put_bits(&w, 1, 2);		/* BTYPE 01: fixed codes */
	put_code(&w, 1, 7);		/* symbol 257: length 3 */
	put_code(&w, 0, 5);		/* distance code 0: distance 1 */
	put_code(&w, 0, 7);		/* symbol 256: end of block */
	bytes_add(&bad, hdr, sizeof(hdr));
	bytes_add(&bad, w.b, (w.nbits + 7) / 8);
	bytes_add(&bad, (char[8]){ 0 }, 8);
	path = write_tmp(bad.data, bad.len);
	read_all(path, 4096, &r);
	CHECK_MSG(r.rc == -1 && r.out.len == 0 && !strncmp(r.e.msg, "corrupt gzip data: ", 19) &&
		  r.e.compressed && r.e.offset >= 10,
		  "distance too far back [%s]: \"%s\" at compressed byte %lld", tag(), r.e.msg,
		  (long long)r.e.offset);
	result_free(&r);
	bytes_free(&bad);

	/* Garbage after a good member: the member's bytes, then the error. */
	bytes_add(&bad, gz.data, gz.len);
	bytes_add(&bad, "garbage\n", 8);
	path = write_tmp(bad.data, bad.len);
	read_all(path, 65536, &r);
	CHECK_MSG(r.rc == -1 && same(&r.out, p.data, p.len) &&
		  !strcmp(r.e.msg, "trailing garbage after gzip data") &&
		  r.e.offset == (int64_t)gz.len && r.e.compressed,
		  "trailing garbage [%s]: all %zu bytes, then \"%s\" at compressed byte %lld",
		  tag(), r.out.len, r.e.msg, (long long)r.e.offset);
	result_free(&r);
	bytes_free(&bad);

	/* Zeros, then garbage: not padding. */
	bytes_add(&bad, gz.data, gz.len);
	bytes_add(&bad, "\0\0\0\0x", 5);
	path = write_tmp(bad.data, bad.len);
	read_all(path, 65536, &r);
	CHECK_MSG(r.rc == -1 && same(&r.out, p.data, p.len) &&
		  !strcmp(r.e.msg, "trailing garbage after gzip data") &&
		  r.e.offset == (int64_t)gz.len + 4,
		  "zeros then garbage [%s]: \"%s\" at compressed byte %lld", tag(), r.e.msg,
		  (long long)r.e.offset);
	result_free(&r);
	bytes_free(&bad);

	bytes_free(&gz);
	bytes_free(&p);
}

/* Both engines must give the same bytes for the same input. */
static void test_engines_agree(void)
{
	struct bytes p = { 0 }, gz = { 0 };
	struct result a, b;
	const char *path;

	make_payload(&p, 4u << 20, 6);
	for (size_t off = 0; off < p.len; off += 1500000)
		gzip_member(&gz, p.data + off, p.len - off < 1500000 ? p.len - off : 1500000, 6);
	path = write_tmp(gz.data, gz.len);

	engine_env = NULL;
	read_all(path, 1u << 20, &a);
	engine_env = "zlib";
	read_all(path, 1u << 20, &b);
	engine_env = NULL;
	CHECK_MSG(a.rc == 0 && b.rc == 0 && a.out.len == b.out.len &&
		  !memcmp(a.out.data, b.out.data, a.out.len) && same(&a.out, p.data, p.len),
		  "engines \"%s\" and \"%s\" give identical bytes (%zu)", a.engine, b.engine,
		  a.out.len);
	result_free(&a);
	result_free(&b);
	bytes_free(&gz);
	bytes_free(&p);
}

/* "-" reads stdin; a pipe that hands out the magic one byte at a time. */
static void test_stdin_pipe(void)
{
	struct bytes p = { 0 }, gz = { 0 };
	struct result r;
	int pfd[2], saved;
	pid_t pid;

	make_payload(&p, 200000, 7);
	gzip_member(&gz, p.data, p.len, 6);

	fflush(stdout);
	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		CHECK_MSG(0, "stdin pipe: cannot set up: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (write(pfd[1], gz.data, 1) != 1)
			_exit(1);
		usleep(20000);
		for (size_t off = 1; off < gz.len; off += 777) {
			size_t n = gz.len - off < 777 ? gz.len - off : 777;

			if (write(pfd[1], gz.data + off, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(pfd[1]);
	saved = dup(STDIN_FILENO);
	dup2(pfd[0], STDIN_FILENO);
	close(pfd[0]);
	read_all("-", 4096, &r);
	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, NULL, 0);
	CHECK_MSG(r.opened && r.rc == 0 && r.is_gzip && same(&r.out, p.data, p.len),
		  "stdin pipe [%s]: gzip detected from split magic, %zu bytes match", tag(),
		  r.out.len);
	CHECK_MSG(r.in_size == -1 && r.in_offset == (int64_t)gz.len,
		  "stdin pipe [%s]: in_size -1, in_offset %lld", tag(), (long long)r.in_offset);
	result_free(&r);
out:
	bytes_free(&gz);
	bytes_free(&p);
}

static void test_real_trace(void)
{
	const char *shared = getenv("VT_SHARED");
	char path[4096];
	struct result a, b;
	struct stat st;

	if (!shared || !*shared)
		shared = "../shared";
	snprintf(path, sizeof(path), "%s/traces/torch-cpu/dev-2rank-default-rank0.trace.json.gz",
		 shared);
	if (stat(path, &st) < 0) {
		printf("skip - real trace: %s not found (set VT_SHARED)\n", path);
		return;
	}
	engine_env = NULL;
	read_all(path, 1u << 20, &a);
	engine_env = "zlib";
	read_all(path, 1u << 20, &b);
	engine_env = NULL;
	CHECK_MSG(a.rc == 0 && a.out.len > 0 && a.out.data[0] == '[',
		  "real trace inflates to %zu bytes of text starting with '['", a.out.len);
	CHECK_MSG(b.rc == 0 && a.out.len == b.out.len && !memcmp(a.out.data, b.out.data, a.out.len),
		  "real trace: both engines agree");
	result_free(&a);
	result_free(&b);
}

int main(void)
{
	static const char *engines[] = { NULL, "zlib" };

	test_plain();
	test_tiny_files();
	test_open_errors();
	for (int i = 0; i < 2; i++) {
		engine_env = engines[i];
		test_members();
		test_trailer_across_fills();
		test_huffman_end_across_fills();
		test_truncated();
		test_corrupt();
		test_stdin_pipe();
	}
	engine_env = NULL;
	test_engines_agree();
	test_real_trace();
	remove_tmp();
	return check_done("test_gzin");
}
