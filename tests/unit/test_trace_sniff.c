/*
 * test_trace_sniff: trace_sniff() on files written here: traces (Kineto
 * objects with traceEvents anywhere among the top-level keys, bare arrays,
 * gzip, a .vtr), other JSON (objects without traceEvents, one holding it
 * only nested or not as an array, one larger than a sniff chunk), and what
 * cannot be told (cut off, not JSON, empty, missing), each with the answer
 * the reader would agree with.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "check.h"
#include "trace_sniff.h"
#include "vtr.h"

static char tmpdir[] = "/tmp/test_trace_sniff.XXXXXX";

static const char *path_of(const char *name)
{
	static char path[sizeof(tmpdir) + 64];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static const char *write_file(const char *name, const void *data, size_t n, int gz)
{
	const char *path = path_of(name);
	int ok;

	if (gz) {
		gzFile f = gzopen(path, "wb");

		ok = f && (!n || gzwrite(f, data, (unsigned)n) == (int)n);
		ok = gzclose(f) == Z_OK && ok;
	} else {
		FILE *f = fopen(path, "wb");

		ok = f && (!n || fwrite(data, 1, n, f) == n);
		ok = f && fclose(f) == 0 && ok;
	}
	if (!ok) {
		fprintf(stderr, "test_trace_sniff: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return path;
}

static int sniff_text(const char *name, const char *text, int gz)
{
	struct err why;
	int rc = trace_sniff(write_file(name, text, strlen(text), gz), &why);

	if (rc == 0)
		CHECKF(strstr(why.msg, "not a trace") != NULL, "%s: note '%s'", name, why.msg);
	return rc;
}

#define SNIFF(text, want) CHECKF(sniff_text("t.json", (text), 0) == (want), "%s", (text))

/* A JSON string member "pad" of n bytes, then rest (which closes the object). */
static int sniff_padded(size_t n, const char *rest)
{
	struct buf b;
	int rc;

	buf_init(&b);
	buf_adds(&b, "{\"pad\": \"");
	for (size_t i = 0; i < n; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "\"");
	buf_adds(&b, rest);
	rc = buf_ok(&b) ? sniff_text("padded.json", b.data, 0) : -2;
	buf_release(&b);
	return rc;
}

int main(void)
{
	struct err why;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}

	/* traces */
	SNIFF("{\"traceEvents\": [{\"ph\": \"X\"}]}", 1);
	SNIFF("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}], "
	      "\"traceEvents\": [", 1);	/* cut inside the events: still a trace */
	SNIFF("[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2}]", 1);
	SNIFF("[]", 1);
	SNIFF("\xef\xbb\xbf  {\"traceEvents\": []}", 1);
	CHECK(sniff_text("t.json.gz", "{\"a\": 1, \"traceEvents\": []}", 1) == 1);
	/* a prologue longer than one sniff chunk is read on */
	CHECK(sniff_padded(200000, ", \"traceEvents\": []}") == 1);

	/* other JSON */
	SNIFF("{\"settings\": {\"ranks\": 2}, \"ranks\": [{\"total_s\": 1.5}]}", 0);
	SNIFF("{}", 0);
	SNIFF("{\"a\": {\"traceEvents\": []}}", 0);	/* nested only */
	SNIFF("{\"traceEvents\": 5}", 0);		/* not an array */
	SNIFF("{\"schema\": \"vtrace.report/1\"} trailing", 0);
	CHECK(sniff_text("meta.json.gz", "{\"job\": \"nightly\"}", 1) == 0);
	CHECK(sniff_padded(200000, ", \"b\": 2}") == 0);

	/* cannot tell: the reader says why */
	SNIFF("{\"a\": ", -1);
	SNIFF("hello", -1);
	SNIFF("", -1);
	SNIFF("{\"a\" 1}", -1);
	CHECK(trace_sniff(path_of("missing.json"), &why) == -1);

	/* a collector raw file, by its magic */
	CHECK(trace_sniff(write_file("x.vtr", VTR_MAGIC "rest", VTR_MAGIC_LEN + 4, 0), &why) == 1);

	{
		static const char *const made[] = { "t.json", "t.json.gz", "padded.json",
						     "meta.json.gz", "x.vtr" };

		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			unlink(path_of(made[i]));
		rmdir(tmpdir);
	}
	return check_done("test_trace_sniff");
}
