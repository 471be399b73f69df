/*
 * test_report_read: report JSON back into struct report, and jdom below it.
 *
 * The main check is the round trip: read a report, write it again, get the
 * same text.  With file arguments it does only that, on each file (the CLI
 * test 045 runs it over reports of real traces); without, it uses the
 * golden demo report and then the error cases.
 */
#include <math.h>

#include "check.h"
#include "jdom.h"
#include "report_read.h"

/* The golden files say "VERSION" where the tool writes its version. */
static void unversion(struct buf *b)
{
	static const char real[] = "\"version\": \"" VTRACE_VERSION "\"";
	static const char fake[] = "\"version\": \"VERSION\"";
	char *at = b->data ? memmem(b->data, b->len, real, sizeof(real) - 1) : NULL;

	if (!at)
		return;
	memmove(at + sizeof(fake) - 1, at + sizeof(real) - 1,
		b->len - (size_t)(at - b->data) - (sizeof(real) - 1));
	memcpy(at, fake, sizeof(fake) - 1);
	b->len = b->len - (sizeof(real) - 1) + (sizeof(fake) - 1);
}

static int slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_add(b, tmp, n);
	fclose(f);
	return 0;
}

static void round_trip(const char *path)
{
	struct buf in, out;
	struct report r;
	struct err e;
	int rc;

	buf_init(&in);
	buf_init(&out);
	report_init(&r, "vanalyze");
	if (!CHECKF(slurp(path, &in) == 0, "%s", path))
		return;
	rc = report_read(&r, in.data, in.len, REPORT_READ_RUN, &e);
	if (CHECKF(rc == REPORT_READ_OK, "%s: byte %" PRId64 ": %s", path, e.offset, e.msg)) {
		report_to_json(&r, &out);
		if (memmem(in.data, in.len, "\"version\": \"VERSION\"", 20))
			unversion(&out);
		CHECKF(out.len == in.len && !memcmp(out.data, in.data, in.len),
		       "%s: written back differently", path);
	}
	report_release(&r);
	buf_release(&in);
	buf_release(&out);
}

static int read_str(struct report *r, const char *text, struct err *e)
{
	return report_read(r, text, strlen(text), REPORT_READ_RUN, e);
}

static void test_jdom(void)
{
	static const char text[] = " {\"a\": [1, -2.5e3, \"x\\u00e9\\n\", true, false, null],"
				   " \"b\": {\"c\": 0.1}, \"d\": 9223372036854775807} ";
	struct arena a;
	struct err e;
	const struct jdom *root, *arr;
	int64_t i;
	double d;

	arena_init(&a);
	root = jdom_parse(text, sizeof(text) - 1, &a, &e);
	CHECK(root && root->type == JDOM_OBJECT && root->n == 3);
	arr = jdom_get(root, "a");
	CHECK(arr && arr->type == JDOM_ARRAY && arr->n == 6);
	if (arr && arr->n == 6) {
		CHECK(jdom_i64(&arr->kids[0], &i) == 0 && i == 1);
		CHECK(jdom_i64(&arr->kids[1], &i) == -1);	/* not an integer */
		CHECK(jdom_f64(&arr->kids[1], &d) == 0 && d == -2500.0);
		CHECK_EQ_STR(arr->kids[2].s, "x\xc3\xa9\n");
		CHECK(arr->kids[3].type == JDOM_BOOL && arr->kids[3].boolean);
		CHECK(arr->kids[4].type == JDOM_BOOL && !arr->kids[4].boolean);
		CHECK(jdom_f64(&arr->kids[5], &d) == 0 && isnan(d));
	}
	CHECK(jdom_f64(jdom_get(jdom_get(root, "b"), "c"), &d) == 0 && d == 0.1);
	CHECK(jdom_i64(jdom_get(root, "d"), &i) == 0 && i == INT64_MAX);
	CHECK(jdom_get(root, "zz") == NULL);
	CHECK(jdom_parse("5", 1, &a, &e) != NULL);

	/*
	 * Skipped names are matched by length and bytes: a key with a raw NUL
	 * that agrees with a short skip name up to it is kept (the fuzzer's
	 * case: it once read past the end of that name), the name itself is
	 * skipped, and a longer key with it as prefix is kept.
	 */
	{
		static const char *const skip[] = { "ab", NULL };
		static const char nul[] = "{\"ab\0xyz\": [1], \"ab\": [2], \"abc\": [3]}";

		root = jdom_parse_skip(nul, sizeof(nul) - 1, &a, &e, skip);
		CHECK(root && root->type == JDOM_OBJECT && root->n == 3);
		if (root && root->n == 3) {
			CHECK(root->kids[0].type == JDOM_ARRAY);
			CHECK(root->kids[1].type == JDOM_SKIPPED);
			CHECK(root->kids[2].type == JDOM_ARRAY);
		}
	}

	/* Cut off, trailing text, bad syntax, too deep: each an error at an offset. */
	CHECK(jdom_parse("{\"a\": [1, 2", 11, &a, &e) == NULL && e.offset == 11);
	CHECK(jdom_parse("{} x", 4, &a, &e) == NULL && e.offset == 3);
	CHECK(jdom_parse("{\"a\" 1}", 7, &a, &e) == NULL && e.offset == 5);
	{
		char deep[200];

		memset(deep, '[', sizeof(deep));
		CHECK(jdom_parse(deep, sizeof(deep), &a, &e) == NULL &&
		      e.offset == JDOM_MAX_DEPTH);
	}
	arena_release(&a);
}

static void test_errors(void)
{
	struct report r;
	struct err e;
	struct buf in;

	report_init(&r, "vaggregate");
	CHECK_EQ_INT(read_str(&r, "{\"name\": \"x\", \"version\": \"1\"}", &e), REPORT_READ_OTHER);
	CHECK(strstr(e.msg, "schema missing") != NULL);
	CHECK_EQ_INT(read_str(&r, "{\"schema\": \"vtrace.report/2\"}", &e), REPORT_READ_OTHER);
	CHECK(strstr(e.msg, "vtrace.report/2") != NULL);
	CHECK_EQ_INT(read_str(&r, "[1, 2]", &e), REPORT_READ_OTHER);
	CHECK_EQ_INT(read_str(&r, "not json", &e), REPORT_READ_BAD);
	CHECK_EQ_INT(read_str(&r, "{\"schema\": \"vtrace.report/1\"}", &e), REPORT_READ_BAD);
	CHECK_EQ_STR(e.msg, "\"ranks\" is missing");
	CHECK_EQ_INT(read_str(&r, "{\"schema\": \"vtrace.report/1\", \"ranks\": [{\"rank\": 1}]}",
			      &e),
		     REPORT_READ_BAD);
	CHECK_EQ_STR(e.msg, "\"source\" is missing");
	CHECK_EQ_INT(e.offset, 40);	/* the rank object's "{" */
	CHECK_EQ_INT(read_str(&r, "{\"schema\": \"vtrace.report/1\", \"ranks\": [{\"rank\": 1.5}]}",
			      &e),
		     REPORT_READ_BAD);
	CHECK_EQ_STR(e.msg, "\"rank\" should be an integer");
	CHECK_EQ_INT(r.nr_ranks, 0);

	/* A good report appends; a bad one after it leaves r as it was. */
	buf_init(&in);
	if (CHECK(slurp("testdata/golden/demo-report.json", &in) == 0)) {
		CHECK_EQ_INT(report_read(&r, in.data, in.len, 0, &e), REPORT_READ_OK);
		CHECK_EQ_INT(r.nr_ranks, 4);
		CHECK_EQ_INT(r.nr_cross_rank, 0);	/* without REPORT_READ_RUN */
		CHECK_EQ_INT(report_read(&r, in.data, in.len, 0, &e), REPORT_READ_OK);
		CHECK_EQ_INT(r.nr_ranks, 8);
		CHECK_EQ_INT(r.ranks[5].rank, 1);
		/* Cut anywhere: never OK, never a crash, r unchanged. */
		for (size_t cut = 0; cut < in.len; cut += 997) {
			int rc = report_read(&r, in.data, cut, 0, &e);

			CHECKF(rc == REPORT_READ_BAD, "cut at %zu: %d", cut, rc);
		}
		CHECK_EQ_INT(r.nr_ranks, 8);
		CHECK_EQ_STR(r.ranks[7].source, r.ranks[3].source);
	}
	buf_release(&in);

	/* report_adopt moves ranks and their strings. */
	{
		struct report dst;

		report_init(&dst, "vaggregate");
		CHECK_EQ_INT(report_adopt(&dst, &r), 0);
		CHECK_EQ_INT(dst.nr_ranks, 8);
		CHECK_EQ_INT(r.nr_ranks, 0);
		CHECK(dst.nr_ranks == 8 && strlen(dst.ranks[7].source) > 0);
		report_release(&dst);
	}
	report_release(&r);
}

/*
 * report_sniff_text(): the top-level keys decide.  A search for
 * "schema" in the first 64 KiB refused traces whose events carry a
 * "schema" argument and took a report with sorted keys for a trace.
 */
static void test_sniff(void)
{
	static const struct {
		const char *text, *schema;	/* schema NULL: not a report */
	} cases[] = {
		{ "{\"schema\": \"vtrace.report/1\", \"ranks\": []}", "vtrace.report/1" },
		{ "\xef\xbb\xbf {\"schema\":\"a\\\"b\"}", "a\\\"b" },
		/* sorted keys: the schema after everything else, strings with braces on the way */
		{ "{\"inputs\": [{\"path\": \"x}]{\\\"\", \"schema\": \"no\"}], \"n\": -1.5e3, "
		  "\"ok\": true, \"ranks\": [[{}], {\"schema\": \"no\"}], "
		  "\"schema\": \"vtrace.report/1\"}",
		  "vtrace.report/1" },
		/* traces: an event's "schema" argument, a "schemaVersion", a bare array */
		{ "{\"traceEvents\": [{\"args\": {\"schema\": \"vtrace.report/1\"}}]}", NULL },
		{ "{\"schemaVersion\": 1, \"traceEvents\": [], \"schema\": \"late\"}", NULL },
		{ "[{\"schema\": \"vtrace.report/1\"}]", NULL },
		/* a schema that is no string, a nested one, none, no JSON */
		{ "{\"schema\": 5}", NULL },
		{ "{\"run\": {\"schema\": \"vtrace.report/1\"}}", NULL },
		{ "{}", NULL },
		{ "", NULL },
		{ "schema", NULL },
	};
	char schema[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = report_sniff_text(cases[i].text, strlen(cases[i].text), schema,
					   sizeof(schema));

		CHECKF(rc == (cases[i].schema != NULL), "report_sniff_text(case %zu) = %d", i, rc);
		if (rc == 1 && cases[i].schema)
			CHECKF(!strcmp(schema, cases[i].schema), "case %zu: schema \"%s\"",
			       i, schema);
	}
	/* past the first 64 KiB: a report whose ranks come before its schema */
	{
		struct buf b;

		buf_init(&b);
		buf_adds(&b, "{\"ranks\": [");
		for (int i = 0; i < 20000; i++)
			buf_printf(&b, "%s{\"schema\": \"r%d\"}", i ? "," : "", i);
		buf_adds(&b, "], \"schema\": \"vtrace.report/1\"}");
		CHECK(buf_ok(&b) && b.len > (100u << 10));
		CHECK(report_sniff_text(b.data, b.len, schema, sizeof(schema)) == 1 &&
		      !strcmp(schema, "vtrace.report/1"));
		buf_release(&b);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			round_trip(argv[i]);
		return check_done("test_report_read");
	}
	round_trip("testdata/golden/demo-report.json");
	test_jdom();
	test_errors();
	test_sniff();
	return check_done("test_report_read");
}
