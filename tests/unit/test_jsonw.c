/*
 * test_jsonw: unit tests for lib/util/jsonw.c, the JSON writer.
 *
 * Escaping is checked against exact strings; the promise that any input
 * bytes give valid JSON and valid UTF-8 is checked on random bytes with our
 * own UTF-8 validator and by decoding the output with jscan.  Where python3
 * is installed, a whole document also goes through json.loads.
 */
#include "jsonw.h"

#include <math.h>
#include <unistd.h>

#include "check.h"
#include "jscan.h"

static void esc(const char *file, int line, const char *in, size_t n, const char *want)
{
	struct buf b;

	buf_init(&b);
	jsonw_escape(&b, in, n);
	check_mem(file, line, "jsonw_escape", b.data ? b.data : "", b.len, want, strlen(want));
	buf_release(&b);
}

#define ESC(in, want) esc(__FILE__, __LINE__, in, sizeof(in) - 1, want)

static void test_escape(void)
{
	ESC("", "");
	ESC("plain text 123", "plain text 123");
	ESC("a\"b\\c", "a\\\"b\\\\c");
	ESC("\n\r\t", "\\n\\r\\t");
	ESC("\x01", "\\u0001");
	ESC("\b\f\x1f\x7f", "\\u0008\\u000c\\u001f\\u007f");
	ESC("a\0b", "a\\u0000b");
	ESC("</script>", "<\\/script>");
	ESC("x</", "x<\\/");
	ESC("<<//", "<<\\//");
	ESC("a/b", "a/b");
	ESC("/", "/");
	ESC("<", "<");
	ESC("< /", "< /");

	/* valid UTF-8 is kept */
	ESC("\xc3\xa9", "\xc3\xa9");
	ESC("\xc2\xa0", "\xc2\xa0");
	/* but C1 controls are escaped: CSI (U+009B) would drive a terminal */
	ESC("\xc2\x80", "\\u0080");
	ESC("a\xc2\x9b" "31m", "a\\u009b31m");
	/* and so are bidi controls and invisible characters, losslessly */
	ESC("a\xe2\x80\xae" "b", "a\\u202eb");
	ESC("\xef\xbb\xbf" "x\xe2\x80\x8b", "\\ufeffx\\u200b");
	ESC("\xe2\x81\xa6\xd8\x9c\xe2\x80\xa8", "\\u2066\\u061c\\u2028");
	ESC("tag\xf3\xa0\x81\x81", "tag\\udb40\\udc41");
	/* jscan's NUL */
	ESC("a\xc0\x80" "b", "a\\u0000b");
	ESC("\xe2\x82\xac", "\xe2\x82\xac");
	ESC("\xef\xbf\xbf", "\xef\xbf\xbf");
	ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	ESC("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");
	ESC("caf\xc3\xa9 \xe2\x82\xac\"", "caf\xc3\xa9 \xe2\x82\xac\\\"");

	/* invalid UTF-8 becomes U+FFFD, one per bad byte */
#define R "\xef\xbf\xbd"
	ESC("\xff", R);
	ESC("a\x80z", "a" R "z");
	ESC("\xc3", R);				/* cut off at the end */
	ESC("\xc3(", R "(");
	ESC("\xe2\x82", R R);
	ESC("\xc0\xaf", R R);			/* overlong '/' */
	ESC("\xe0\x80\xaf", R R R);		/* overlong */
	ESC("\xed\xa0\x80", R R R);		/* a surrogate */
	ESC("\xf4\x90\x80\x80", R R R R);	/* past U+10FFFF */
	ESC("\xf5\x80\x80\x80", R R R R);
	ESC("\xf0\x9f\x98", R R R);
	ESC("\xf0\x9f\x98\"", R R R "\\\"");
#undef R
}

static void test_writer(void)
{
	struct buf b;
	struct jsonw w;

	buf_init(&b);
	jsonw_init(&w, &b, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "a");
	jsonw_int(&w, 1);
	jsonw_key(&w, "b");
	jsonw_arr_begin(&w);
	jsonw_int(&w, INT64_MIN);
	jsonw_str(&w, "x\"y");
	jsonw_bool(&w, 1);
	jsonw_bool(&w, 0);
	jsonw_null(&w);
	jsonw_double(&w, 1.5);
	jsonw_double(&w, NAN);
	jsonw_double(&w, INFINITY);
	jsonw_arr_end(&w);
	jsonw_key(&w, "c");
	jsonw_obj_begin(&w);
	jsonw_obj_end(&w);
	jsonw_key(&w, "d");
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_keyn(&w, "k\"ey</x", 6);
	jsonw_strn(&w, "a\0b", 3);
	jsonw_obj_end(&w);
	CHECK_EQ_STR(b.data, "{\"a\":1,\"b\":[-9223372036854775808,\"x\\\"y\",true,false,null,1.5,"
			     "null,null],\"c\":{},\"d\":[],\"k\\\"ey<\\/\":\"a\\u0000b\"}");
	CHECK(buf_ok(&b));

	/* pretty */
	buf_reset(&b);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "a");
	jsonw_int(&w, 1);
	jsonw_key(&w, "b");
	jsonw_arr_begin(&w);
	jsonw_int(&w, 1);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "c");
	jsonw_str(&w, "d");
	jsonw_obj_end(&w);
	jsonw_arr_end(&w);
	jsonw_key(&w, "e");
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	CHECK_EQ_STR(b.data,
		     "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    {\n      \"c\": \"d\"\n    }\n"
		     "  ],\n  \"e\": []\n}");

	/* a top-level array of scalars */
	buf_reset(&b);
	jsonw_init(&w, &b, 1);
	jsonw_arr_begin(&w);
	for (int i = 0; i < 3; i++)
		jsonw_int(&w, i);
	jsonw_arr_end(&w);
	CHECK_EQ_STR(b.data, "[0,1,2]");

	/* doubles survive a round trip */
	buf_reset(&b);
	jsonw_init(&w, &b, 1);
	jsonw_double(&w, 0.1);
	CHECK(strtod(b.data, NULL) == 0.1);

	/* nesting up to the limit stays balanced with commas in place */
	buf_reset(&b);
	jsonw_init(&w, &b, 1);
	for (int i = 0; i < JSONW_MAX_DEPTH - 1; i++) {
		jsonw_arr_begin(&w);
		jsonw_int(&w, i);
	}
	for (int i = 0; i < JSONW_MAX_DEPTH - 1; i++) {
		jsonw_str(&w, "z");
		jsonw_arr_end(&w);
	}
	{
		struct err e;
		struct jscan js;
		const char *p = b.data;

		err_clear(&e);
		jscan_init(&js, b.data, b.len, 0, NULL, &e);
		CHECKF(jscan_skip(&js, &p) == JS_OK && p == b.data + b.len, "%s: %s", b.data,
		       e.msg);
		CHECK(strncmp(b.data, "[0,[1,[2,", 9) == 0);
	}
	buf_release(&b);
}

/* 1 when s[0..n) is valid UTF-8 with no raw control byte (as JSON wants). */
static int valid_json_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len;
		uint32_t cp;

		if (c < 0x20)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		else
			return 0;
		if (i + len > n)
			return 0;
		cp = c & (0xff >> (len + 1));
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += len;
	}
	return 1;
}

static uint64_t rng = 88172645463325252ull;

static uint32_t next_rand(void)
{
	return (uint32_t)(check_rand(&rng) >> 11);
}

static size_t put_cp(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Escape, check the output, decode it with jscan; the decoded length or -1.
 * The buffer and the arena live across calls (released every 256), as fresh
 * ones each time are slow under ASan.
 */
static struct buf rt_buf;
static struct arena rt_arena;

static long round_trip(const char *in, size_t n, char *dec, size_t cap)
{
	struct buf *b = &rt_buf;
	static unsigned calls;
	struct err e;
	struct jscan js;
	const char *p, *s;
	size_t len;
	long ret = -1;

	if (calls++ % 256 == 0) {
		buf_release(b);
		arena_release(&rt_arena);
	}
	buf_reset(b);
	buf_addc(b, '"');
	jsonw_escape(b, in, n);
	buf_addc(b, '"');
	err_clear(&e);
	if (buf_ok(b) && valid_json_utf8((const unsigned char *)b->data, b->len)) {
		jscan_init(&js, b->data, b->len, 0, &rt_arena, &e);
		p = b->data;
		if (jscan_string(&js, &p, &s, &len) == JS_OK && p == b->data + b->len &&
		    len <= cap) {
			memcpy(dec, s, len);
			ret = (long)len;
		}
	}
	return ret;
}

static void test_random(void)
{
	char in[256], dec[1024];
	long bad_bytes = 0, bad_utf8 = 0;

	/* arbitrary bytes: always valid JSON and UTF-8 */
	for (int round = 0; round < 10000; round++) {
		size_t n = next_rand() % sizeof(in);

		for (size_t i = 0; i < n; i++) {
			uint32_t r = next_rand();

			/* bias towards the interesting bytes */
			if (r % 4 == 0)
				in[i] = (char)(0x80 + (r >> 8) % 0x80);
			else if (r % 4 == 1)
				in[i] = (char)((r >> 8) % 0x20);
			else if (r % 4 == 2)
				in[i] = "\"\\/<"[(r >> 8) % 4];
			else
				in[i] = (char)(r >> 8);
		}
		if (round_trip(in, n, dec, sizeof(dec)) < 0)
			bad_bytes++;
	}
	CHECKF(bad_bytes == 0, "%ld random byte strings gave invalid JSON strings", bad_bytes);

	/* valid UTF-8: decodes to exactly the input */
	for (int round = 0; round < 10000; round++) {
		size_t n = 0;
		long got;

		while (n < sizeof(in) - 4) {
			uint32_t r = next_rand(), cp;

			switch (r % 5) {
			case 0: cp = (r >> 3) % 0x80; break;
			case 1: cp = 0x80 + (r >> 3) % 0x780; break;
			case 2: cp = 0x800 + (r >> 3) % 0xf800; break;
			case 3: cp = 0x10000 + (r >> 3) % 0x100000; break;
			default: cp = "<\"/\\"[(r >> 3) % 4]; break;
			}
			/* NUL comes back as C0 80, jscan's NUL; tested on its own */
			if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0)
				continue;
			n += put_cp(in + n, cp);
			if (r % 17 == 0)
				break;
		}
		got = round_trip(in, n, dec, sizeof(dec));
		if (got != (long)n || memcmp(dec, in, n) != 0)
			bad_utf8++;
	}
	CHECKF(bad_utf8 == 0, "%ld valid UTF-8 strings did not come back unchanged", bad_utf8);

	/* jscan's NUL (C0 80) is written as \u0000 and reads back as C0 80 */
	{
		static const char nul[] = "ab\xc0\x80" "cd";
		long got;

		buf_reset(&rt_buf);
		jsonw_escape(&rt_buf, nul, 6);
		CHECK_EQ_MEM(rt_buf.data, rt_buf.len, "ab\\u0000cd", 10);
		got = round_trip(nul, 6, dec, sizeof(dec));
		CHECKF(got == 6 && memcmp(dec, nul, 6) == 0, "NUL did not round-trip: %ld", got);
	}
	buf_release(&rt_buf);
	arena_release(&rt_arena);
}

/* A document with every kind of string, through python3's json module. */
static void test_python(void)
{
	struct buf b;
	struct jsonw w;
	const char *tmp = getenv("TMPDIR");
	char path[512], cmd[1024];
	FILE *f;
	int fd, rc;

	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
		printf("test_jsonw: python3 not found, json.loads check skipped\n");
		return;
	}
	buf_init(&b);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "all bytes");
	{
		char all[256];

		for (int i = 0; i < 256; i++)
			all[i] = (char)i;
		jsonw_strn(&w, all, sizeof(all));
	}
	jsonw_keyn(&w, "\xff\xfe key \x01", 8);
	jsonw_str(&w, "</script><script>alert(1)</script>");
	jsonw_key(&w, "nested");
	jsonw_arr_begin(&w);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "e");
	jsonw_str(&w, "\xe2\x82\xac\xf0\x9f\x98\x80");
	jsonw_key(&w, "n");
	jsonw_double(&w, -1e-300);
	jsonw_obj_end(&w);
	jsonw_arr_begin(&w);
	jsonw_arr_end(&w);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);

	snprintf(path, sizeof(path), "%s/test_jsonw.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (!CHECK(fd >= 0)) {
		buf_release(&b);
		return;
	}
	f = fdopen(fd, "wb");
	fwrite(b.data, 1, b.len, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding=\"utf-8\"));"
		 "assert d[\"nested\"][0][\"e\"]==\"\\u20ac\\U0001F600\"; "
		 "assert d[\"\\ufffd\\ufffd key \\x01\"].startswith(\"</script>\"); "
		 "assert d[\"all bytes\"][:128]==\"\".join(map(chr,range(128)))' '%s'",
		 path);
	rc = system(cmd);
	CHECKF(rc == 0, "python3 json.load of the output failed (%d): %s", rc, b.data);
	unlink(path);
	buf_release(&b);
}

/* Integers are formatted without printf: check the edges against it. */
static void test_ints(void)
{
	static const int64_t v[] = { 0, -1, 7, 10, -10, 1234567890123, INT64_MAX, INT64_MIN };
	size_t n = sizeof(v) / sizeof(v[0]);
	struct buf b, want;
	struct jsonw w;

	buf_init(&b);
	buf_init(&want);
	jsonw_init(&w, &b, 1);
	jsonw_arr_begin(&w);
	jsonw_int_array(&w, v, n);
	jsonw_int_array(&w, v, 0);
	for (size_t i = 0; i < n; i++)
		jsonw_int(&w, v[i]);
	jsonw_arr_end(&w);

	/* [[0, -1, ...],[],0,-1,...]: arrays of integers are spaced, members not */
	buf_adds(&want, "[[");
	for (size_t i = 0; i < n; i++)
		buf_printf(&want, "%s%" PRId64, i ? ", " : "", v[i]);
	buf_adds(&want, "],[]");
	for (size_t i = 0; i < n; i++)
		buf_printf(&want, ",%" PRId64, v[i]);
	buf_adds(&want, "]");
	CHECK_EQ_MEM(b.data, b.len, want.data, want.len);
	buf_release(&b);
	buf_release(&want);
}

int main(void)
{
	test_escape();
	test_writer();
	test_ints();
	test_random();
	test_python();
	return check_done("test_jsonw");
}
