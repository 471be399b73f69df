/*
 * test_jscan: unit tests for lib/read/jscan.c, the JSON lexing primitives.
 *
 * Every text is copied into a heap block of exactly its length (no NUL after
 * it), so a scanner that reads one byte past the end trips ASan.  The main
 * check is the split test: a realistic run of events is scanned whole, then
 * cut at every byte offset, and each prefix must give JS_MORE exactly where
 * a token is cut, with every token before the cut decoded as in the whole.
 */
#include "jscan.h"

#include "check.h"

/* A copy of s[0..n) in a block of exactly n bytes; caller frees. */
static char *exact(const char *s, size_t n)
{
	char *p = check_xmalloc(n);

	memcpy(p, s, n);
	return p;
}

/* ---- strings ---- */

struct str_res {
	int rc;
	size_t len;		/* decoded length */
	size_t used;		/* bytes consumed (past the closing quote) */
	int borrowed;		/* content points into the text */
	int64_t err_off;
	char msg[256];
	char out[512];
};

/* Scan the string at the start of text[0..n) at input offset base. */
static void scan_str(const char *text, size_t n, int64_t base, struct str_res *r)
{
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = exact(text, n);
	const char *p = t, *s = NULL;
	size_t len = 0;

	memset(r, 0, sizeof(*r));
	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, n, base, &a, &e);
	r->rc = jscan_string(&js, &p, &s, &len);
	r->err_off = e.offset;
	snprintf(r->msg, sizeof(r->msg), "%s", e.msg);
	if (r->rc == JS_OK) {
		r->len = len;
		r->used = (size_t)(p - t);
		r->borrowed = s >= t && s < t + n;
		if (len < sizeof(r->out))
			memcpy(r->out, s, len);
		/* an unescaped copy is NUL-terminated */
		if (!r->borrowed && s[len] != '\0')
			r->rc = 99;
	} else if (r->rc == JS_MORE && p != t) {
		r->rc = 98;	/* *pp moved: the caller could not resume */
	}
	arena_release(&a);
	free(t);
}

#define STR_OK(json, want)                                                              \
	do {                                                                            \
		struct str_res r_;                                                      \
		scan_str(json, sizeof(json) - 1, 0, &r_);                               \
		CHECK_EQ_INT(r_.rc, JS_OK);                                             \
		CHECK_EQ_MEM(r_.out, r_.len, want, sizeof(want) - 1);                   \
		CHECK_EQ_INT(r_.used, sizeof(json) - 1);                                \
	} while (0)

static void test_string_escapes(void)
{
	struct str_res r;

	STR_OK("\"\"", "");
	STR_OK("\"plain\"", "plain");
	STR_OK("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", "a\"b\\c/d\be\ff\ng\rh\ti");
	STR_OK("\"\\\"\"", "\"");
	STR_OK("\"\\\\\"", "\\");
	STR_OK("\"\\\\\\\"\"", "\\\"");

	/* \uXXXX to UTF-8: 1, 2 and 3 bytes, both hex cases */
	STR_OK("\"\\u0041\"", "A");
	STR_OK("\"\\u007f\"", "\x7f");
	STR_OK("\"\\u0080\"", "\xc2\x80");
	STR_OK("\"\\u00e9\\u00C9\"", "\xc3\xa9\xc3\x89");
	STR_OK("\"\\u07FF\"", "\xdf\xbf");
	STR_OK("\"\\u0800\"", "\xe0\xa0\x80");
	STR_OK("\"\\u20ac\"", "\xe2\x82\xac");
	STR_OK("\"\\uffff\"", "\xef\xbf\xbf");
	STR_OK("\"x\\u20ACy\"", "x\xe2\x82\xacy");
	{
		/* \u0000 is C0 80 in the content: the name keeps it as a C string */
		scan_str("\"a\\u0000b\"", 10, 0, &r);
		CHECK_EQ_INT(r.rc, JS_OK);
		CHECK_EQ_MEM(r.out, r.len, "a\xc0\x80" "b", 4);
	}

	/* surrogate pairs to 4 bytes */
	STR_OK("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80");
	STR_OK("\"\\uD834\\uDD1E\"", "\xf0\x9d\x84\x9e");
	STR_OK("\"\\ud800\\udc00\"", "\xf0\x90\x80\x80");
	STR_OK("\"\\udbff\\udfff\"", "\xf4\x8f\xbf\xbf");
	STR_OK("\"a\\ud83d\\ude00b\"", "a\xf0\x9f\x98\x80" "b");

	/* lone surrogates become U+FFFD */
	STR_OK("\"\\ud800\"", "\xef\xbf\xbd");
	STR_OK("\"\\udc00\"", "\xef\xbf\xbd");
	STR_OK("\"\\udfffx\"", "\xef\xbf\xbdx");
	STR_OK("\"\\ud83dab\"", "\xef\xbf\xbd" "ab");
	STR_OK("\"\\ud83d\\u0041\"", "\xef\xbf\xbd" "A");
	STR_OK("\"\\ud83d\\n\"", "\xef\xbf\xbd\n");
	STR_OK("\"\\udc00\\ud800\"", "\xef\xbf\xbd\xef\xbf\xbd");
	STR_OK("\"\\ud800\\ud800\\udc00\"", "\xef\xbf\xbd\xf0\x90\x80\x80");
	STR_OK("\"\\ud83d\\ud83d\"", "\xef\xbf\xbd\xef\xbf\xbd");

	/* raw control bytes and raw UTF-8 are kept as they are (borrowed) */
	scan_str("\"a\x01\tb\nc\x1f\xc3\xa9\"", 11, 0, &r);
	CHECK_EQ_INT(r.rc, JS_OK);
	CHECK_EQ_MEM(r.out, r.len, "a\x01\tb\nc\x1f\xc3\xa9", 9);
	CHECK(r.borrowed);
	scan_str("\"\x00\"", 3, 0, &r);
	CHECK_EQ_INT(r.rc, JS_OK);
	CHECK_EQ_INT(r.len, 1);

	/* borrowed without escapes, copied with them */
	scan_str("\"abc\"", 5, 0, &r);
	CHECK(r.borrowed);
	scan_str("\"a\\nc\"", 6, 0, &r);
	CHECK(!r.borrowed);

	/* text after the closing quote is not consumed */
	scan_str("\"ab\",\"cd\"", 9, 0, &r);
	CHECK_EQ_INT(r.rc, JS_OK);
	CHECK_EQ_INT(r.used, 4);
}

static void test_string_bad(void)
{
	static const struct {
		const char *json;
		size_t bs;	/* offset of the offending backslash */
	} cases[] = {
		{ "\"ab\\x\"", 3 },
		{ "\"\\U0041\"", 1 },
		{ "\"\\'\"", 1 },
		{ "\"\\ \"", 1 },
		{ "\"\\0\"", 1 },
		{ "\"\\a\"", 1 },
		{ "\"\\u12G4\"", 1 },
		{ "\"\\uZZZZ\"", 1 },
		{ "\"\\u-123\"", 1 },
		{ "\"xy\\u12\"", 3 },
		{ "\"\\u\"", 1 },
		{ "\"\\u123\"", 1 },
		{ "\"ok\\n\\u00e\"", 5 },
		{ "\"\\ud800\\uZZZZ\"", 7 },
		{ "\"\\ud800\\u12\"", 7 },
		{ "\"\\ud800\\x\"", 7 },
		{ "\"0123456789abcdefghij\\q\"", 21 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct str_res r;
		size_t n = strlen(cases[i].json);

		scan_str(cases[i].json, n, 1000, &r);
		CHECKF(r.rc == JS_BAD, "%s: rc %d", cases[i].json, r.rc);
		CHECKF(r.err_off == 1000 + (int64_t)cases[i].bs, "%s: offset %lld, want %lld",
		       cases[i].json, (long long)r.err_off, 1000LL + (long long)cases[i].bs);
		CHECKF(r.msg[0] != '\0', "%s: no message", cases[i].json);
	}
}

/* The closing quote at every position 0..40, with and without text after it. */
static void test_string_positions(void)
{
	char text[128];

	for (size_t pos = 0; pos <= 40; pos++) {
		for (int tail = 0; tail <= 1; tail++) {
			struct str_res r;
			size_t n;

			text[0] = '"';
			for (size_t i = 0; i < pos; i++)
				text[1 + i] = (char)('a' + i % 26);
			text[1 + pos] = '"';
			n = pos + 2;
			if (tail) {
				memset(text + n, 'z', 40);	/* no quote in the tail */
				text[n + 10] = '"';
				n += 40;
			}
			scan_str(text, n, 0, &r);
			CHECKF(r.rc == JS_OK && r.len == pos && r.used == pos + 2,
			       "quote at %zu tail %d: rc %d len %zu used %zu", pos, tail, r.rc,
			       r.len, r.used);
			CHECK(r.borrowed);
			CHECK_EQ_MEM(r.out, r.len, text + 1, pos);

			/* cut before the quote: JS_MORE */
			scan_str(text, pos + 1, 0, &r);
			CHECKF(r.rc == JS_MORE, "cut at %zu: rc %d", pos, r.rc);
		}

		/* an escaped quote at pos, then more text, then the real quote */
		{
			struct str_res r;
			char want[64];
			size_t n = 0;

			text[n++] = '"';
			for (size_t i = 0; i < pos; i++)
				text[n++] = 'x';
			text[n++] = '\\';
			text[n++] = '"';
			memcpy(text + n, "0123456789abcdefghij", 20);
			n += 20;
			text[n++] = '"';
			memset(want, 'x', pos);
			want[pos] = '"';
			memcpy(want + pos + 1, "0123456789abcdefghij", 20);
			scan_str(text, n, 0, &r);
			CHECKF(r.rc == JS_OK && r.used == n, "escape at %zu: rc %d used %zu", pos,
			       r.rc, r.used);
			CHECK_EQ_MEM(r.out, r.len, want, pos + 21);

			/* the text ends right after the backslash: JS_MORE */
			scan_str(text, pos + 2, 0, &r);
			CHECKF(r.rc == JS_MORE, "end after backslash at %zu: rc %d", pos, r.rc);
		}

		/* a backslash-backslash at pos, then the closing quote */
		{
			struct str_res r;
			size_t n = 0;

			text[n++] = '"';
			for (size_t i = 0; i < pos; i++)
				text[n++] = 'y';
			text[n++] = '\\';
			text[n++] = '\\';
			text[n++] = '"';
			text[n++] = ',';
			scan_str(text, n, 0, &r);
			CHECKF(r.rc == JS_OK && r.len == pos + 1 && r.used == n - 1,
			       "\\\\ at %zu: rc %d len %zu used %zu", pos, r.rc, r.len, r.used);
		}
	}
}

static void test_string_more(void)
{
	static const char full[] = "\"a\\\"b\\u00e9\\ud83d\\ude00c\\\\\\/\"";
	size_t n = sizeof(full) - 1;

	for (size_t k = 1; k < n; k++) {
		struct str_res r;

		scan_str(full, k, 0, &r);
		CHECKF(r.rc == JS_MORE, "prefix %zu of %s: rc %d", k, full, r.rc);
	}
	{
		struct str_res r;

		scan_str(full, n, 0, &r);
		CHECK_EQ_INT(r.rc, JS_OK);
		CHECK_EQ_MEM(r.out, r.len, "a\"b\xc3\xa9\xf0\x9f\x98\x80" "c\\/", 12);
	}
}

/* ---- numbers ---- */

struct num_res {
	int rc;
	int64_t v;
	size_t used;
	int64_t err_off;
};

static void scan_num(const char *text, size_t n, int scale, struct num_res *r)
{
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = exact(text, n);
	const char *p = t;

	memset(r, 0, sizeof(*r));
	r->v = 0x5a5a5a5a;
	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, n, 500, &a, &e);
	r->rc = jscan_number(&js, &p, scale, &r->v);
	r->used = (size_t)(p - t);
	r->err_off = e.offset;
	arena_release(&a);
	free(t);
}

static const struct num_case {
	const char *text;
	int scale;
	int rc;		/* JS_OK, JS_RANGE or JS_BAD */
	int64_t v;
} num_cases[] = {
	{ "0", 3, JS_OK, 0 },
	{ "-0", 3, JS_OK, 0 },
	{ "1", 3, JS_OK, 1000 },
	{ "1.5", 3, JS_OK, 1500 },
	{ "1.2345", 3, JS_OK, 1234 },
	{ "-1.2345", 3, JS_OK, -1234 },
	{ "1712195495541300.987", 3, JS_OK, 1712195495541300987 },
	{ "1712195495541300.9879999", 3, JS_OK, 1712195495541300987 },
	{ "-1712195495541300.987", 3, JS_OK, -1712195495541300987 },
	{ "1.5e3", 3, JS_OK, 1500000 },
	{ "15E-1", 3, JS_OK, 1500 },
	{ "1E+2", 3, JS_OK, 100000 },
	{ "1e+0", 3, JS_OK, 1000 },
	{ "1e-9", 3, JS_OK, 0 },
	{ "-1e-9", 3, JS_OK, 0 },
	{ "0.001", 3, JS_OK, 1 },
	{ "-0.001", 3, JS_OK, -1 },
	{ "0.0009", 3, JS_OK, 0 },
	{ "-0.0009", 3, JS_OK, 0 },
	{ "0.000000000000000000000000123e30", 3, JS_OK, 123000000 },
	{ "1.00000000000000000000000000009", 3, JS_OK, 1000 },
	{ "9223372036854775.807", 3, JS_OK, INT64_MAX },
	{ "9223372036854775.8079", 3, JS_OK, INT64_MAX },
	{ "9223372036854775.808", 3, JS_RANGE, 0 },
	{ "-9223372036854775.808", 3, JS_OK, INT64_MIN },
	{ "-9223372036854775.809", 3, JS_RANGE, 0 },
	{ "123456789012345678901234567890", 3, JS_RANGE, 0 },
	{ "-123456789012345678901234567890", 3, JS_RANGE, 0 },
	{ "123456789012345678901234567890", 0, JS_RANGE, 0 },
	{ "1e400", 3, JS_RANGE, 0 },
	{ "1e99999999999999", 3, JS_RANGE, 0 },
	{ "0e400", 3, JS_OK, 0 },
	{ "1e-400", 3, JS_OK, 0 },
	{ "1e-99999999999999", 3, JS_OK, 0 },
	{ "0.0", 3, JS_OK, 0 },
	{ "01", 3, JS_OK, 1000 },	/* leading zeros are tolerated */
	{ "007.5", 3, JS_OK, 7500 },
	/* scale 0 */
	{ "4294967295", 0, JS_OK, 4294967295 },
	{ "-1", 0, JS_OK, -1 },
	{ "1.9", 0, JS_OK, 1 },
	{ "-1.9", 0, JS_OK, -1 },
	{ "9223372036854775807", 0, JS_OK, INT64_MAX },
	{ "9223372036854775808", 0, JS_RANGE, 0 },
	{ "-9223372036854775808", 0, JS_OK, INT64_MIN },
	{ "-9223372036854775809", 0, JS_RANGE, 0 },
	{ "18446744073709551615", 0, JS_RANGE, 0 },
	{ "18446744073709551616", 0, JS_RANGE, 0 },
	{ "12345678901234567890123e-10", 0, JS_OK, 1234567890123 },
	{ "922337203685477580.7e1", 0, JS_OK, INT64_MAX },
	/* bad forms */
	{ "+1", 3, JS_BAD, 0 },
	{ ".5", 3, JS_BAD, 0 },
	{ "-.5", 3, JS_BAD, 0 },
	{ "--1", 3, JS_BAD, 0 },
	{ "-x", 3, JS_BAD, 0 },
	{ "x", 3, JS_BAD, 0 },
	{ "1.e5", 3, JS_BAD, 0 },
	{ "1.x", 3, JS_BAD, 0 },
	{ "1ex", 3, JS_BAD, 0 },
	{ "1e+x", 3, JS_BAD, 0 },
	{ "Infinity", 3, JS_BAD, 0 },
	{ "NaN", 3, JS_BAD, 0 },
};

/* Forms that are bad when followed by a delimiter but JS_MORE at the end of the text. */
static const char *const num_open[] = { "-", "1.", "1e", "1E", "1e+", "1e-", "-12.5e" };

static void test_numbers(void)
{
	static const char *const terms[] = { ",", " ", "}", "]", "\n", "\"" };

	for (size_t i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
		const struct num_case *c = &num_cases[i];
		size_t n = strlen(c->text);

		for (size_t t = 0; t < sizeof(terms) / sizeof(terms[0]); t++) {
			char buf[128];
			struct num_res r;

			snprintf(buf, sizeof(buf), "%s%s", c->text, terms[t]);
			scan_num(buf, n + 1, c->scale, &r);
			CHECKF(r.rc == c->rc, "jscan_number(\"%s\", scale %d): rc %d, want %d",
			       buf, c->scale, r.rc, c->rc);
			if (c->rc == JS_OK)
				CHECKF(r.v == c->v,
				       "jscan_number(\"%s\", scale %d): %" PRId64 ", want %" PRId64,
				       buf, c->scale, r.v, c->v);
			if (c->rc == JS_BAD) {
				CHECKF(r.used == 0, "\"%s\": *pp moved by %zu", buf, r.used);
				CHECKF(r.err_off == 500, "\"%s\": offset %lld", buf,
				       (long long)r.err_off);
			} else {
				CHECKF(r.used == n, "\"%s\": used %zu, want %zu", buf, r.used, n);
			}
		}

		/* At the very end of the text a number may go on: JS_MORE, except
		 * where the first byte already rules a number out. */
		{
			struct num_res r;
			int bad_start = c->text[0] != '-' && (c->text[0] < '0' || c->text[0] > '9');
			int bad_second =
				c->text[0] == '-' && (c->text[1] < '0' || c->text[1] > '9');

			scan_num(c->text, n, c->scale, &r);
			if (bad_start || bad_second)
				CHECKF(r.rc == JS_BAD, "\"%s\" at end: rc %d", c->text, r.rc);
			else if (c->rc == JS_BAD)
				CHECKF(r.rc == JS_BAD || r.rc == JS_MORE, "\"%s\" at end: rc %d",
				       c->text, r.rc);
			else
				CHECKF(r.rc == JS_MORE, "\"%s\" at end: rc %d", c->text, r.rc);
		}

		/* jscan_number_text: the whole string is the number */
		{
			int64_t v = 0x5a5a;
			int rc = jscan_number_text(c->text, n, c->scale, &v);

			CHECKF(rc == (c->rc == JS_OK || c->rc == JS_RANGE ? c->rc : JS_BAD),
			       "jscan_number_text(\"%s\"): rc %d", c->text, rc);
			if (c->rc == JS_OK)
				CHECKF(v == c->v,
				       "jscan_number_text(\"%s\"): %" PRId64 ", want %" PRId64,
				       c->text, v, c->v);
		}
	}

	for (size_t i = 0; i < sizeof(num_open) / sizeof(num_open[0]); i++) {
		struct num_res r;
		char buf[32];
		size_t n = strlen(num_open[i]);
		int64_t v;

		scan_num(num_open[i], n, 3, &r);
		CHECKF(r.rc == JS_MORE, "\"%s\" at end: rc %d, want JS_MORE", num_open[i], r.rc);
		CHECKF(r.used == 0, "\"%s\" at end: used %zu", num_open[i], r.used);
		snprintf(buf, sizeof(buf), "%s,", num_open[i]);
		scan_num(buf, n + 1, 3, &r);
		CHECKF(r.rc == JS_BAD, "\"%s\": rc %d, want JS_BAD", buf, r.rc);
		CHECKF(r.err_off == 500, "\"%s\": offset %lld", buf, (long long)r.err_off);
		CHECKF(jscan_number_text(num_open[i], n, 3, &v) == JS_BAD,
		       "jscan_number_text(\"%s\")", num_open[i]);
	}

	/* jscan_number_text wants exactly one number */
	{
		static const char *const texts[] = { "", " 1", "1 ", "1,", "1.5x", "1 2", "-",
						      "0x10", "1e5e5", "true" };
		int64_t v;

		for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
			CHECKF(jscan_number_text(texts[i], strlen(texts[i]), 3, &v) == JS_BAD,
			       "jscan_number_text(\"%s\")", texts[i]);
		CHECK(jscan_number_text("123.5", 5, 3, &v) == JS_OK && v == 123500);
		/* a length shorter than the C string counts */
		CHECK(jscan_number_text("123.5", 3, 3, &v) == JS_OK && v == 123000);
	}

	/* a number with a million digits neither overflows nor takes long */
	{
		size_t n = 1000000;
		char *big = check_xmalloc(n + 1);
		struct num_res r;

		memset(big, '7', n);
		big[n] = ',';
		scan_num(big, n + 1, 3, &r);
		CHECK_EQ_INT(r.rc, JS_RANGE);
		CHECK_EQ_INT(r.used, n);
		big[0] = '0';
		big[1] = '.';
		scan_num(big, n + 1, 3, &r);
		CHECK_EQ_INT(r.rc, JS_OK);
		CHECK_EQ_INT(r.v, 777);
		free(big);
	}
}

/* ---- words ---- */

static int scan_word(const char *text, size_t n, const char *word, size_t *used)
{
	struct err e;
	struct jscan js;
	char *t = exact(text, n);
	const char *p = t;
	int rc;

	err_clear(&e);
	jscan_init(&js, t, n, 0, NULL, &e);
	rc = jscan_word(&js, &p, word);
	*used = (size_t)(p - t);
	free(t);
	return rc;
}

static void test_words(void)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t used;

	for (size_t w = 0; w < 3; w++) {
		const char *word = words[w];
		size_t n = strlen(word);
		char buf[16];

		for (size_t k = 0; k < n; k++)
			CHECKF(scan_word(word, k, word, &used) == JS_MORE && used == 0,
			       "prefix %zu of %s", k, word);
		CHECK(scan_word(word, n, word, &used) == JS_OK && used == n);
		snprintf(buf, sizeof(buf), "%s,", word);
		CHECK(scan_word(buf, n + 1, word, &used) == JS_OK && used == n);
	}
	CHECK_EQ_INT(scan_word("tx", 2, "true", &used), JS_BAD);
	CHECK_EQ_INT(scan_word("trUe", 4, "true", &used), JS_BAD);
	CHECK_EQ_INT(scan_word("nul", 3, "null", &used), JS_MORE);
	CHECK_EQ_INT(scan_word("nulL", 4, "null", &used), JS_BAD);
	CHECK_EQ_INT(scan_word("fals", 4, "false", &used), JS_MORE);
	CHECK_EQ_INT(scan_word("falsy", 5, "false", &used), JS_BAD);
}

/* ---- skip ---- */

struct skip_res {
	int rc;
	size_t used;
	int64_t err_off;
	char msg[256];
};

static void skip_text(const char *text, size_t n, int64_t base, struct skip_res *r)
{
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = exact(text, n);
	const char *p = t;

	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, n, base, &a, &e);
	r->rc = jscan_skip(&js, &p);
	r->used = (size_t)(p - t);
	r->err_off = e.offset;
	snprintf(r->msg, sizeof(r->msg), "%s", e.msg);
	arena_release(&a);
	free(t);
}

static void test_skip(void)
{
	static const char *const good[] = {
		"{}", "[]", "{ }", "[ ]", "0", "-1.5e3", "\"s\"", "true", "false", "null",
		"{\"a\":[1,2,{\"b\":null}],\"c\":{\"d\":\"e\\\"}]\"},\"f\":true}",
		" \t\r\n{ \"a\" : [ 1 , 2 , { \"b\" : null } ] , \"c\" : { } }",
		"[[[[]]],[[{}]],{\"x\":[{\"y\":[-0.5e-3,\"]}\"]}]}]",
		"[\"\\\\\",\"\\\"\",\"}\",\"]\",\"{\",\"[\"]",
		"{\"k\":1e999}",	/* out of range numbers are still skipped */
	};
	struct skip_res r;

	/* Skipped strings are not decoded, so a bad escape inside one passes. */
	skip_text("[\"\\x\"]", 6, 0, &r);
	CHECKF(r.rc == JS_OK && r.used == 6, "skip [\"\\x\"]: rc %d", r.rc);

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		size_t n = strlen(good[i]);
		char buf[256];

		snprintf(buf, sizeof(buf), "%s,rest", good[i]);
		skip_text(buf, n + 5, 0, &r);
		CHECKF(r.rc == JS_OK && r.used == n, "skip %s: rc %d used %zu, want %zu (%s)",
		       good[i], r.rc, r.used, n, r.msg);
		/* every proper prefix is JS_MORE, never JS_BAD */
		for (size_t k = 0; k < n; k++) {
			skip_text(good[i], k, 0, &r);
			CHECKF(r.rc == JS_MORE, "prefix %zu of %s: rc %d (%s)", k, good[i], r.rc,
			       r.msg);
		}
	}

	/* every kind of syntax error */
	{
		static const struct {
			const char *text;
			size_t at;
		} bad[] = {
			{ "{\"a\" 1}", 5 },	{ "{\"a\":1 \"b\":2}", 7 }, { "{a:1}", 1 },
			{ "{\"a\":1,}", 7 },	{ "[1,]", 3 },		   { "[1 2]", 3 },
			{ "{\"a\":}", 5 },	{ "[,1]", 1 },		   { "{,}", 1 },
			{ "]", 0 },		{ "}", 0 },		   { ":", 0 },
			{ ",", 0 },		{ "x", 0 },		   { "[tru e]", 1 },
			{ "[nulL]", 1 },	{ "[1}", 2 },		   { "{\"a\":1]", 6 },
			{ "{\"a\"}", 4 },	{ "[-]", 1 },		   { "[1.]", 1 },
			{ "[1.e3]", 1 },	{ "[\"a\" \"b\"]", 5 },	   { "[+1]", 1 },
			{ "[.5]", 1 },		{ "[1e]", 1 },		   { "{1:2}", 1 },
			{ "[truex]", 5 },	   { "{\"a\"::1}", 5 },
			{ "[[]]]", -1 },	{ "[\"a\":1]", 4 },	   { "{\"a\",1}", 4 },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			size_t n = strlen(bad[i].text);

			skip_text(bad[i].text, n, 7000, &r);
			if (bad[i].at == (size_t)-1) {
				/* a complete value followed by junk: skip stops after it */
				CHECKF(r.rc == JS_OK && r.used == 4, "%s: rc %d used %zu",
				       bad[i].text, r.rc, r.used);
				continue;
			}
			CHECKF(r.rc == JS_BAD, "skip %s: rc %d", bad[i].text, r.rc);
			CHECKF(r.err_off == 7000 + (int64_t)bad[i].at,
			       "skip %s: offset %lld, want %zu", bad[i].text, (long long)r.err_off,
			       7000 + bad[i].at);
			CHECKF(r.msg[0] != '\0', "skip %s: no message", bad[i].text);
		}
	}
}

static void test_depth(void)
{
	size_t n = 100000;
	char *t = check_xmalloc(2 * n + 16);
	struct skip_res r;

	/* exactly JSCAN_MAX_DEPTH deep, arrays */
	memset(t, '[', JSCAN_MAX_DEPTH);
	memset(t + JSCAN_MAX_DEPTH, ']', JSCAN_MAX_DEPTH);
	skip_text(t, 2 * JSCAN_MAX_DEPTH, 0, &r);
	CHECKF(r.rc == JS_OK && r.used == 2 * JSCAN_MAX_DEPTH, "depth %d: rc %d (%s)",
	       JSCAN_MAX_DEPTH, r.rc, r.msg);

	/* one deeper */
	memset(t, '[', JSCAN_MAX_DEPTH + 1);
	memset(t + JSCAN_MAX_DEPTH + 1, ']', JSCAN_MAX_DEPTH + 1);
	skip_text(t, 2 * JSCAN_MAX_DEPTH + 2, 100, &r);
	CHECKF(r.rc == JS_BAD, "depth %d: rc %d", JSCAN_MAX_DEPTH + 1, r.rc);
	CHECKF(strstr(r.msg, "nesting") != NULL, "message \"%s\"", r.msg);
	CHECK_EQ_INT(r.err_off, 100 + JSCAN_MAX_DEPTH);

	/* objects: {"a":{"a":...}} exactly at the limit and one deeper */
	for (int extra = 0; extra <= 1; extra++) {
		size_t d = JSCAN_MAX_DEPTH + (size_t)extra, len = 0;

		for (size_t i = 0; i < d; i++) {
			memcpy(t + len, i + 1 < d ? "{\"a\":" : "{", i + 1 < d ? 5 : 1);
			len += i + 1 < d ? 5 : 1;
		}
		memset(t + len, '}', d);
		len += d;
		skip_text(t, len, 0, &r);
		if (extra)
			CHECKF(r.rc == JS_BAD && strstr(r.msg, "nesting"),
			       "objects %zu deep: rc %d", d, r.rc);
		else
			CHECKF(r.rc == JS_OK && r.used == len, "objects %zu deep: rc %d (%s)", d,
			       r.rc, r.msg);
	}

	/* 100,000 deep, closed or not: rejected, no crash */
	memset(t, '[', n);
	memset(t + n, ']', n);
	skip_text(t, 2 * n, 0, &r);
	CHECK(r.rc == JS_BAD && strstr(r.msg, "nesting"));
	skip_text(t, n, 0, &r);
	CHECK(r.rc == JS_BAD && strstr(r.msg, "nesting"));
	for (size_t i = 0; i + 5 <= 2 * n; i += 5)
		memcpy(t + i, "{\"a\":", 5);
	skip_text(t, 2 * n, 0, &r);
	CHECK(r.rc == JS_BAD && strstr(r.msg, "nesting"));
	free(t);
}

/* ---- member / element ---- */

static void test_member_element(void)
{
	static const char obj[] = " { \"a\" : 1 ,\"b\\n\":\"x\" , \"c\":[] } ,";
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = exact(obj, sizeof(obj) - 1);
	const char *p = jscan_ws(t, t + sizeof(obj) - 1), *k;
	size_t n;
	int more, rc, count = 0;

	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, sizeof(obj) - 1, 0, &a, &e);
	for (rc = jscan_member(&js, &p, 1, &k, &n, &more, "what"); rc == JS_OK && more;
	     rc = jscan_member(&js, &p, 0, &k, &n, &more, "what")) {
		static const char *const keys[] = { "a", "b\n", "c" };

		if (count < 3)
			CHECK_EQ_MEM(k, n, keys[count], strlen(keys[count]));
		count++;
		rc = jscan_skip(&js, &p);
		if (rc != JS_OK)
			break;
	}
	CHECK_EQ_INT(rc, JS_OK);
	CHECK_EQ_INT(count, 3);
	CHECK_EQ_INT(p - t, sizeof(obj) - 3);
	arena_release(&a);
	free(t);

	/* the caller's message for a missing ',' */
	{
		static const char o2[] = "{\"a\":1 \"b\":2}";

		t = exact(o2, sizeof(o2) - 1);
		p = t;
		err_clear(&e);
		arena_init(&a);
		jscan_init(&js, t, sizeof(o2) - 1, 10, &a, &e);
		rc = jscan_member(&js, &p, 1, &k, &n, &more, "what");
		CHECK(rc == JS_OK && more);
		rc = jscan_skip(&js, &p);
		rc = jscan_member(&js, &p, 0, &k, &n, &more, "expected ',' or '}' in event");
		CHECK_EQ_INT(rc, JS_BAD);
		CHECK_EQ_STR(e.msg, "expected ',' or '}' in event");
		CHECK_EQ_INT(e.offset, 10 + 7);
		arena_release(&a);
		free(t);
	}

	/* elements */
	{
		static const char arr[] = "[ 1 ,\"x\", [2] ]x";
		int64_t dummy;

		t = exact(arr, sizeof(arr) - 1);
		p = t;
		count = 0;
		err_clear(&e);
		jscan_init(&js, t, sizeof(arr) - 1, 0, NULL, &e);
		for (rc = jscan_element(&js, &p, 1, &more); rc == JS_OK && more;
		     rc = jscan_element(&js, &p, 0, &more)) {
			count++;
			if (jscan_skip(&js, &p) != JS_OK)
				break;
		}
		CHECK_EQ_INT(rc, JS_OK);
		CHECK_EQ_INT(count, 3);
		CHECK_EQ_INT(p - t, sizeof(arr) - 2);
		free(t);

		t = exact("[1 2]", 5);
		p = t;
		jscan_init(&js, t, 5, 0, NULL, &e);
		CHECK(jscan_element(&js, &p, 1, &more) == JS_OK && more);
		CHECK(jscan_number(&js, &p, 0, &dummy) == JS_OK && dummy == 1);
		CHECK_EQ_INT(jscan_element(&js, &p, 0, &more), JS_BAD);
		CHECK_EQ_INT(e.offset, 3);
		free(t);
	}
}

/* ---- the split test ---- */

/*
 * A token as the walker sees it: keys ('k'), strings ('s'), numbers ('n'
 * scaled by 1000, 'r' out of range) and words ('w').  need is the shortest
 * prefix of the text that lets the scanner produce it: a string or word
 * ends at its last byte, a number needs one byte after it (it could go on),
 * a key needs the first byte of its value.
 */
struct tok {
	char kind;
	char *s;
	size_t n;
	int64_t v;
	size_t need;
};

struct toks {
	struct tok t[256];
	size_t n;
	int overflow;
};

static void tok_add(struct toks *ts, char kind, const char *s, size_t n, int64_t v, size_t need)
{
	struct tok *t;

	if (ts->n == sizeof(ts->t) / sizeof(ts->t[0])) {
		ts->overflow = 1;
		return;
	}
	t = &ts->t[ts->n++];
	t->kind = kind;
	t->s = s ? exact(s, n) : NULL;
	t->n = n;
	t->v = v;
	t->need = need;
}

static void toks_free(struct toks *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->t[i].s);
	ts->n = 0;
}

/* Walk one value at *pp, recording its leaf tokens. */
static int walk(struct jscan *js, const char **pp, struct toks *ts, int depth)
{
	const char *p = *pp, *s;
	size_t n;
	int rc, more;
	int64_t v;

	if (depth > 64)
		return JS_BAD;
	p = jscan_ws(p, js->end);
	if (p >= js->end)
		return JS_MORE;
	switch (*p) {
	case '{':
		for (rc = jscan_member(js, &p, 1, &s, &n, &more, "obj"); rc == JS_OK && more;
		     rc = jscan_member(js, &p, 0, &s, &n, &more, "obj")) {
			tok_add(ts, 'k', s, n, 0, (size_t)(p - js->start) + 1);
			if ((rc = walk(js, &p, ts, depth + 1)) != JS_OK)
				return rc;
		}
		break;
	case '[':
		for (rc = jscan_element(js, &p, 1, &more); rc == JS_OK && more;
		     rc = jscan_element(js, &p, 0, &more))
			if ((rc = walk(js, &p, ts, depth + 1)) != JS_OK)
				return rc;
		break;
	case '"':
		rc = jscan_string(js, &p, &s, &n);
		if (rc == JS_OK)
			tok_add(ts, 's', s, n, 0, (size_t)(p - js->start));
		break;
	case 't':
	case 'f':
	case 'n': {
		const char *w = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
		const char *at = p;

		rc = jscan_word(js, &p, w);
		if (rc == JS_OK)
			tok_add(ts, 'w', at, (size_t)(p - at), 0, (size_t)(p - js->start));
		break;
	}
	default:
		rc = jscan_number(js, &p, 3, &v);
		if (rc == JS_OK || rc == JS_RANGE) {
			tok_add(ts, rc == JS_OK ? 'n' : 'r', NULL, 0, rc == JS_OK ? v : 0,
				(size_t)(p - js->start) + 1);
			rc = JS_OK;
		}
		break;
	}
	if (rc == JS_OK)
		*pp = p;
	return rc;
}

static int walk_text(const char *text, size_t len, struct toks *ts, struct err *e)
{
	struct arena a;
	struct jscan js;
	const char *p = text;
	int rc;

	arena_init(&a);
	err_clear(e);
	jscan_init(&js, text, len, 0, &a, e);
	rc = walk(&js, &p, ts, 0);
	if (rc == JS_OK && jscan_ws(p, text + len) != text + len)
		rc = JS_BAD;
	arena_release(&a);
	return rc;
}

/* Several events as torch writes them: escapes, odd numbers, nested args. */
static const char split_text[] =
	"[\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::\\\"vec\\\"<\\\\T\\u00e9>"
	"\\u20ac\\ud83d\\ude00 \\/x\\u0041\",\"pid\":0,\"tid\":\"stream 7\","
	"\"ts\":1712195495541300.987,\"dur\":12.5,"
	"\"args\":{\"correlation\":12345,\"External id\":-7,\"stream\":4294967295,"
	"\"Device Id\":-1,\"grid\":[1,2,3],\"flag\":true,\"none\":null,\"off\":false,"
	"\"e\":1.5e3,\"m\":-0.25E-1,\"big\":123456789012345678901234567890}},\n"
	"  { \"ph\" : \"i\" , \"name\" : \"tab\\there\\nnl \\\\ back\" , \"s\":\"t\","
	"\"ts\":\"123.5\", \"args\" : { } } ,\n"
	"{\"ph\":\"f\",\"id\":42,\"bp\":\"e\",\"ts\":17,\"name\":\"\","
	"\"raw\":\"ctl\x01\ttab\",\"nested\":{\"a\":[[],{},[{\"b\":[null,\"]},{\"]}]]}}\n"
	"]";

struct want_tok {
	char kind;
	const char *s;
	size_t n;	/* 0: strlen(s) */
	int64_t v;
};

static const struct want_tok split_want[] = {
	{ 'k', "ph", 0, 0 },
	{ 's', "X", 0, 0 },
	{ 'k', "cat", 0, 0 },
	{ 's', "kernel", 0, 0 },
	{ 'k', "name", 0, 0 },
	{ 's', "void at::\"vec\"<\\T\xc3\xa9>\xe2\x82\xac\xf0\x9f\x98\x80 /xA", 0, 0 },
	{ 'k', "pid", 0, 0 },
	{ 'n', NULL, 0, 0 },
	{ 'k', "tid", 0, 0 },
	{ 's', "stream 7", 0, 0 },
	{ 'k', "ts", 0, 0 },
	{ 'n', NULL, 0, 1712195495541300987 },
	{ 'k', "dur", 0, 0 },
	{ 'n', NULL, 0, 12500 },
	{ 'k', "args", 0, 0 },
	{ 'k', "correlation", 0, 0 },
	{ 'n', NULL, 0, 12345000 },
	{ 'k', "External id", 0, 0 },
	{ 'n', NULL, 0, -7000 },
	{ 'k', "stream", 0, 0 },
	{ 'n', NULL, 0, 4294967295000 },
	{ 'k', "Device Id", 0, 0 },
	{ 'n', NULL, 0, -1000 },
	{ 'k', "grid", 0, 0 },
	{ 'n', NULL, 0, 1000 },
	{ 'n', NULL, 0, 2000 },
	{ 'n', NULL, 0, 3000 },
	{ 'k', "flag", 0, 0 },
	{ 'w', "true", 0, 0 },
	{ 'k', "none", 0, 0 },
	{ 'w', "null", 0, 0 },
	{ 'k', "off", 0, 0 },
	{ 'w', "false", 0, 0 },
	{ 'k', "e", 0, 0 },
	{ 'n', NULL, 0, 1500000 },
	{ 'k', "m", 0, 0 },
	{ 'n', NULL, 0, -25 },
	{ 'k', "big", 0, 0 },
	{ 'r', NULL, 0, 0 },
	{ 'k', "ph", 0, 0 },
	{ 's', "i", 0, 0 },
	{ 'k', "name", 0, 0 },
	{ 's', "tab\there\nnl \\ back", 0, 0 },
	{ 'k', "s", 0, 0 },
	{ 's', "t", 0, 0 },
	{ 'k', "ts", 0, 0 },
	{ 's', "123.5", 0, 0 },
	{ 'k', "args", 0, 0 },
	{ 'k', "ph", 0, 0 },
	{ 's', "f", 0, 0 },
	{ 'k', "id", 0, 0 },
	{ 'n', NULL, 0, 42000 },
	{ 'k', "bp", 0, 0 },
	{ 's', "e", 0, 0 },
	{ 'k', "ts", 0, 0 },
	{ 'n', NULL, 0, 17000 },
	{ 'k', "name", 0, 0 },
	{ 's', "", 0, 0 },
	{ 'k', "raw", 0, 0 },
	{ 's', "ctl\x01\ttab", 0, 0 },
	{ 'k', "nested", 0, 0 },
	{ 'k', "a", 0, 0 },
	{ 'k', "b", 0, 0 },
	{ 'w', "null", 0, 0 },
	{ 's', "]},{", 0, 0 },
};

static int tok_eq(const struct tok *a, const struct tok *b)
{
	if (a->kind != b->kind || a->n != b->n || a->v != b->v)
		return 0;
	return a->n == 0 || memcmp(a->s, b->s, a->n) == 0;
}

static void test_split(void)
{
	size_t len = sizeof(split_text) - 1, nw = sizeof(split_want) / sizeof(split_want[0]);
	struct toks *full = check_xmalloc(sizeof(*full)), *part = check_xmalloc(sizeof(*part));
	struct err e;
	char *t = exact(split_text, len);
	int rc;

	memset(full, 0, sizeof(*full));
	memset(part, 0, sizeof(*part));
	rc = walk_text(t, len, full, &e);
	free(t);
	CHECKF(rc == JS_OK, "whole text: rc %d (%s at %lld)", rc, e.msg, (long long)e.offset);
	CHECK(!full->overflow);
	CHECK_EQ_INT(full->n, nw);
	for (size_t i = 0; i < full->n && i < nw; i++) {
		const struct want_tok *w = &split_want[i];
		size_t wn = w->s ? (w->n ? w->n : strlen(w->s)) : 0;

		CHECKF(full->t[i].kind == w->kind, "token %zu: kind %c, want %c", i,
		       full->t[i].kind, w->kind);
		if (w->s)
			CHECK_EQ_MEM(full->t[i].s, full->t[i].n, w->s, wn);
		else
			CHECKF(full->t[i].v == w->v, "token %zu: %" PRId64 ", want %" PRId64, i,
			       full->t[i].v, w->v);
	}

	/* the skipper agrees with the walker on the whole text */
	{
		struct skip_res r;

		skip_text(split_text, len, 0, &r);
		CHECKF(r.rc == JS_OK && r.used == len, "skip whole: rc %d used %zu", r.rc, r.used);
	}

	for (size_t k = 0; k < len; k++) {
		size_t expect = 0;
		int ok = 1;
		struct skip_res r;

		t = exact(split_text, k);
		rc = walk_text(t, k, part, &e);
		free(t);
		while (expect < full->n && full->t[expect].need <= k)
			expect++;
		ok &= CHECKF(rc == JS_MORE, "cut at %zu: rc %d, want JS_MORE (%s at %lld)", k, rc,
			     e.msg, (long long)e.offset);
		ok &= CHECKF(part->n == expect, "cut at %zu: %zu tokens, want %zu", k, part->n,
			     expect);
		for (size_t i = 0; i < part->n && i < full->n; i++)
			if (!tok_eq(&part->t[i], &full->t[i])) {
				ok &= CHECKF(0, "cut at %zu: token %zu differs", k, i);
				break;
			}
		toks_free(part);

		skip_text(split_text, k, 0, &r);
		ok &= CHECKF(r.rc == JS_MORE, "skip cut at %zu: rc %d (%s)", k, r.rc, r.msg);
		if (!ok)
			break;	/* one cut is enough to see the problem */
	}
	toks_free(full);
	free(full);
	free(part);
}

int main(void)
{
	test_string_escapes();
	test_string_bad();
	test_string_positions();
	test_string_more();
	test_numbers();
	test_words();
	test_skip();
	test_depth();
	test_member_element();
	test_split();
	return check_done("test_jscan");
}
