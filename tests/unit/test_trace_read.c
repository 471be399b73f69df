/*
 * test_trace_read: unit tests for lib/read/trace_read.c (with trace_top.c under
 * it), reading whole trace files the way vanalyze does.
 *
 * Traces are generated here: a few hundred events of every shape torch
 * writes, with names that hold "},{" (which fools the reader's guess at
 * event boundaries), escapes, numbers written as strings and events longer
 * than a chunk.  They are written to a temporary directory plain, gzipped,
 * and as multi-member gzip split in the middle of events, then read with
 * VTRACE_CHUNK_SIZE 64, 100, 1000 and the default, on one and two threads.
 * The sink turns every event into one line; the lines must equal those of
 * each event parsed alone, in order, every time.
 */
#include "trace_read.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "check.h"
#include "evparse.h"

static char tmpdir[4096];
static int nr_files;

/* ---- files ---- */

static const char *write_file(const char *name, const void *data, size_t n)
{
	static char paths[64][4200];
	char *path = paths[nr_files++ % 64];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
		fprintf(stderr, "test_trace_read: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return path;
}

/* Append one gzip member holding src[0..n) to out. */
static void gzip_member(struct buf *out, const char *src, size_t n)
{
	unsigned char chunk[65536];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	z.next_in = (unsigned char *)(uintptr_t)src;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, Z_FINISH);
		buf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (ret == Z_OK);
	if (ret != Z_STREAM_END)
		exit(2);
	deflateEnd(&z);
}

/* ---- the sink ---- */

static void add_str(struct buf *o, const char *key, const struct event_batch *b, uint32_t id)
{
	if (!id)
		return;
	buf_printf(o, " %s=\"", key);
	buf_add(o, strtab_str(&b->strs, id), strtab_len(&b->strs, id));
	buf_addc(o, '"');
}

static void ev_line(struct buf *o, const struct event_batch *b, const struct trace_event *e)
{
	buf_printf(o, "flags=%x", e->flags);
	add_str(o, "ph", b, e->ph);
	add_str(o, "name", b, e->name);
	add_str(o, "cat", b, e->cat);
	add_str(o, "pid", b, e->pid);
	add_str(o, "tid", b, e->tid);
	add_str(o, "coll", b, e->coll_name);
	if (e->flags & EV_TS)
		buf_printf(o, " ts=%" PRId64, e->ts_ns);
	if (e->flags & EV_DUR)
		buf_printf(o, " dur=%" PRId64, e->dur_ns);
	if (e->flags & EV_CORRELATION)
		buf_printf(o, " corr=%" PRId64, e->correlation);
	if (e->flags & EV_EXTERNAL_ID)
		buf_printf(o, " ext=%" PRId64, e->external_id);
	if (e->flags & EV_FLOW_ID)
		buf_printf(o, " id=%" PRId64, e->flow_id);
	if (e->flags & EV_STREAM)
		buf_printf(o, " stream=%" PRId64, e->stream);
	if (e->flags & EV_MEM_BYTES)
		buf_printf(o, " bytes=%" PRId64, e->mem_bytes);
	if (e->flags & EV_IN_NELEMS)
		buf_printf(o, " in=%" PRId64, e->in_nelems);
	buf_addc(o, '\n');
}

struct sink_ctx {
	struct buf lines;
	int64_t nr_events;
	long nr_batches;
	long stop_after;	/* return nonzero from this batch on; 0: never */
	int busy, overlap;
	long nr_progress;
};

static int sink_batch(void *vctx, const struct event_batch *b)
{
	struct sink_ctx *c = vctx;

	if (__atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQ_REL))
		c->overlap = 1;
	for (size_t i = 0; i < b->n; i++)
		ev_line(&c->lines, b, &b->ev[i]);
	c->nr_events += (int64_t)b->n;
	c->nr_batches++;
	__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
	return c->stop_after && c->nr_batches >= c->stop_after;
}

static void sink_progress(void *vctx, int64_t in, int64_t size)
{
	struct sink_ctx *c = vctx;

	(void)in;
	(void)size;
	c->nr_progress++;
}

struct run {
	int rc;
	struct trace_info info;
	struct err e;
	struct sink_ctx c;
};

/* Read path with chunk size chunk (NULL: the default) on threads threads. */
static struct run *read_trace(const char *path, int threads, const char *chunk, long stop_after)
{
	struct run *r = check_xmalloc(sizeof(*r));
	struct trace_read_opts opts = { .nr_threads = threads, .chunk_size = 0 };
	struct trace_sink sink = { .ctx = &r->c, .batch = sink_batch, .progress = sink_progress };

	memset(r, 0, sizeof(*r));
	buf_init(&r->c.lines);
	r->c.stop_after = stop_after;
	if (chunk)
		setenv("VTRACE_CHUNK_SIZE", chunk, 1);
	else
		unsetenv("VTRACE_CHUNK_SIZE");
	r->rc = trace_read(path, &opts, &sink, &r->info, &r->e);
	unsetenv("VTRACE_CHUNK_SIZE");
	/* make an empty result a valid C string */
	buf_addc(&r->c.lines, 'x');
	r->c.lines.len--;
	r->c.lines.data[r->c.lines.len] = '\0';
	return r;
}

static void run_free(struct run *r)
{
	buf_release(&r->c.lines);
	free(r);
}

/* ---- generated traces ---- */

#define NR_EVENTS 200

struct trace {
	struct buf text;	/* the whole file */
	struct buf want;	/* one line per event */
	size_t ev_end[NR_EVENTS];	/* offset just past each event's '}' */
	size_t ev_start[NR_EVENTS];
	size_t events_begin;	/* just past the '[' */
	size_t events_close;	/* the ']' */
	size_t nr;
};

/* One event's JSON, shape picked by i. */
static void gen_event(struct buf *o, int i)
{
	long long ts = 1712195495541300LL + (long long)i * 7;

	switch (i % 8) {
	case 0:
		buf_printf(o,
			   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k},{\\\"x\\\":%d}\","
			   "\"pid\":0,\"tid\":\"stream 7\",\"ts\":%lld.%03d,\"dur\":%d.5,"
			   "\"args\":{\"correlation\":%d,\"stream\":7,\"grid\":[1,2,3]}}",
			   i, ts, i % 1000, i % 5, i);
		break;
	case 1:
		buf_printf(o,
			   "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm},{\",\"pid\":1234,"
			   "\"tid\":1234,\"ts\":\"%lld.%03d\",\"dur\":\"%d\",\"args\":{"
			   "\"External id\":%d,\"Input Dims\":[[1,2],[3,4]],"
			   "\"Input type\":\"},{\\\"ph\\\":\\\"X\\\"}\"}}",
			   ts, (i * 7) % 1000, i, i);
		break;
	case 2:
		buf_printf(o,
			   "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1234,\"tid\":1234,"
			   "\"ts\":%lld,\"s\":\"t\",\"args\":{\"Total Reserved\":%d,"
			   "\"Total Allocated\":%d,\"Bytes\":-%d,\"Device Id\":0}}",
			   ts, i * 4096, i * 1024, i * 512);
		break;
	case 3:
		buf_printf(o,
			   "{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":2,\"ts\":%lld.5,"
			   "\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
			   i, ts);
		break;
	case 4:
		buf_printf(o,
			   "{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":0,\"tid\":7,"
			   "\"ts\":%lld,\"dur\":3,\"args\":{\"Collective name\":\"allreduce\","
			   "\"In msg nelems\":%d,\"Out msg nelems\":%d,\"Group size\":8}}",
			   ts, i, 2 * i);
		break;
	case 5: {
		/* longer than the small chunks, and full of fake boundaries */
		int reps = 4 + (i % 3) * 24;

		buf_printf(o, "{\"ph\":\"X\",\"ts\":%lld,\"name\":\"long %d", ts, i);
		for (int k = 0; k < reps; k++)
			buf_adds(o, " \\\"},{\\\"name\\\":\\\"fake\\\"}, {\\\"x");
		buf_adds(o, "\",\"dur\":1}");
		break;
	}
	case 6:
		buf_printf(o,
			   "{ \"ph\" : \"X\" ,\n \"name\" : \"\\u00e9\\ud83d\\ude00 %d\" , "
			   "\"ts\" : %lld.25 , \"dur\" : 1e0 , \"args\" : { \"a\" : { \"b\" : "
			   "[ \"}\" , { } ] } } }",
			   i, ts);
		break;
	default:
		buf_printf(o, "{\"name\":\"}, {\",\"ts\":%lld,\"ph\":\"X\",\"dur\":0.001}", ts);
		break;
	}
}

static void parse_alone(struct buf *want, const char *s, size_t n)
{
	struct event_batch b;
	struct evparse_result r;

	event_batch_init(&b);
	evparse_run(s, n, 0, EVP_FIRST, &b, &r);
	if (b.n != 1 || r.end != EVP_CLEAN) {
		fprintf(stderr, "test_trace_read: generated event does not parse: %.*s\n", (int)n,
			s);
		exit(2);
	}
	ev_line(want, &b, &b.ev[0]);
	event_batch_release(&b);
}

/* prologue, "[" events "]", epilogue.  nr events. */
static void gen_trace(struct trace *t, const char *prologue, const char *epilogue, size_t nr)
{
	static const char *const seps[] = { ",", ", ", ",\n", " ,\n  " };

	buf_init(&t->text);
	buf_init(&t->want);
	buf_adds(&t->text, prologue);
	buf_addc(&t->text, '[');
	t->events_begin = t->text.len;
	t->nr = nr;
	for (size_t i = 0; i < nr; i++) {
		size_t at;

		if (i)
			buf_adds(&t->text, seps[i % 4]);
		at = t->text.len;
		t->ev_start[i] = at;
		gen_event(&t->text, (int)i);
		t->ev_end[i] = t->text.len;
		parse_alone(&t->want, t->text.data + at, t->text.len - at);
	}
	buf_adds(&t->text, "\n");
	t->events_close = t->text.len;
	buf_addc(&t->text, ']');
	buf_adds(&t->text, epilogue);
	if (!t->want.data) {
		buf_addc(&t->want, 'x');
		buf_reset(&t->want);
	}
}

static void trace_release(struct trace *t)
{
	buf_release(&t->text);
	buf_release(&t->want);
}

/* The first n lines of s: their length. */
static size_t lines_len(const char *s, size_t n)
{
	const char *p = s;

	while (n-- && (p = strchr(p, '\n')))
		p++;
	return p ? (size_t)(p - s) : strlen(s);
}

static uint64_t digest(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static const char *const chunks[] = { "64", "100", "1000", NULL };

/*
 * Reading gives exactly t's events and rc 0 in every configuration: chunk
 * sizes 64, 100, 1000 and the default, each on one and two threads (ALL),
 * or each chunk size once, on alternating thread counts (EACH_CHUNK).
 * Every read costs a few fresh MiB, which ASan makes slow, hence the choice.
 */
enum { ALL, EACH_CHUNK };

static void read_all_ways(const char *what, const char *path, const struct trace *t,
			  void (*check_info)(const char *what, const struct trace_info *info),
			  int how)
{
	for (size_t ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
		for (int threads = 1; threads <= 2; threads++) {
			struct run *r;

			if (how == EACH_CHUNK && threads != 1 + (int)(ci % 2))
				continue;
			r = read_trace(path, threads, chunks[ci], 0);
			const char *cs = chunks[ci] ? chunks[ci] : "default";
			int same = r->c.lines.len == t->want.len &&
				   memcmp(r->c.lines.data, t->want.data, t->want.len) == 0;

			CHECKF(r->rc == 0, "%s chunk %s threads %d: rc %d (%s)", what, cs, threads,
			       r->rc, r->info.nr_warnings ? r->info.warnings[0].msg : r->e.msg);
			CHECKF(same,
			       "%s chunk %s threads %d: %lld events digest %016llx, "
			       "want %zu events digest %016llx",
			       what, cs, threads, (long long)r->c.nr_events,
			       (unsigned long long)digest(r->c.lines.data, r->c.lines.len), t->nr,
			       (unsigned long long)digest(t->want.data, t->want.len));
			if (!same) {
				/* the first line that differs */
				size_t k = 0;

				while (k < r->c.lines.len && k < t->want.len &&
				       r->c.lines.data[k] == t->want.data[k])
					k++;
				while (k > 0 && t->want.data[k - 1] != '\n')
					k--;
				printf("    got:  %.200s\n    want: %.200s\n", r->c.lines.data + k,
				       t->want.data + k);
			}
			CHECKF(r->info.nr_events == (int64_t)t->nr, "%s: info.nr_events %lld", what,
			       (long long)r->info.nr_events);
			CHECKF(r->info.complete == 1, "%s chunk %s threads %d: complete %d", what,
			       cs, threads, r->info.complete);
			CHECKF(r->info.nr_warnings == 0, "%s chunk %s threads %d: warning \"%s\"",
			       what, cs, threads,
			       r->info.nr_warnings ? r->info.warnings[0].msg : "");
			CHECKF(r->info.bytes_text == (int64_t)t->text.len,
			       "%s: bytes_text %lld, want %zu", what, (long long)r->info.bytes_text,
			       t->text.len);
			CHECKF(!r->c.overlap, "%s: sink called concurrently", what);
			if (check_info)
				check_info(what, &r->info);
			run_free(r);
		}
	}
}

/* ---- trace_info ---- */

static const char kineto_prologue[] =
	"\xef\xbb\xbf{\n  \"schemaVersion\": 1,\n"
	"  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8,"
	" \"pg_config\": [{\"pg_name\": \"0\", \"ranks\": [0, 1]}]},\n"
	"  \"deviceProperties\": [\n"
	"    {\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912,"
	" \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024},\n"
	"    {\"id\": 1, \"name\": \"gpu \\\"one\\\"\", \"totalGlobalMem\": \"1024\"},\n"
	"    {\"name\": \"" "0123456789012345678901234567890123456789012345678901234567890123"
	"456789\"}\n"
	"  ],\n"
	"  \"baseTimeNanoseconds\": 1712195000000000000,\n"
	"  \"traceEvents\": ";

static const char kineto_epilogue[] =
	",\n  \"traceName\": \"/tmp/x.json\",\n  \"displayTimeUnit\": \"ms\"\n}\n";

static void check_kineto_info(const char *what, const struct trace_info *info)
{
	CHECKF(info->rank == 3 && info->world_size == 8, "%s: rank %lld world_size %lld", what,
	       (long long)info->rank, (long long)info->world_size);
	CHECKF(info->has_base_time && info->base_time_ns == 1712195000000000000,
	       "%s: base time %d %lld", what, info->has_base_time, (long long)info->base_time_ns);
	CHECKF(strcmp(info->format, "kineto") == 0, "%s: format %s", what, info->format);
	if (!CHECKF(info->nr_devices == 3, "%s: %zu devices", what, info->nr_devices))
		return;
	CHECK_EQ_STR(info->devices[0].name, "NVIDIA H100 80GB HBM3");
	CHECK_EQ_INT(info->devices[0].total_mem, 85029158912);
	CHECK_EQ_INT(info->devices[0].id, 0);
	CHECK_EQ_STR(info->devices[1].name, "gpu \"one\"");
	CHECK_EQ_INT(info->devices[1].total_mem, 1024);
	CHECK_EQ_INT(info->devices[1].id, 1);
	/* no id: its position; no memory: -1; long names are cut to fit */
	CHECK_EQ_INT(info->devices[2].id, 2);
	CHECK_EQ_INT(info->devices[2].total_mem, -1);
	CHECK_EQ_STR(info->devices[2].name,
		     "012345678901234567890123456789012345678901234567890123456789012");
}

static void check_after_info(const char *what, const struct trace_info *info)
{
	CHECKF(info->rank == 5 && info->world_size == 16, "%s: rank %lld world_size %lld", what,
	       (long long)info->rank, (long long)info->world_size);
	CHECKF(!info->has_base_time && info->base_time_ns == 0, "%s: base time", what);
	CHECKF(info->nr_devices == 0, "%s: %zu devices", what, info->nr_devices);
	CHECKF(strcmp(info->format, "kineto") == 0, "%s: format %s", what, info->format);
}

static void check_array_info(const char *what, const struct trace_info *info)
{
	CHECKF(info->rank == -1 && info->world_size == -1, "%s: rank %lld", what,
	       (long long)info->rank);
	CHECKF(strcmp(info->format, "array") == 0, "%s: format %s", what, info->format);
}

static void test_formats(void)
{
	struct trace t;
	struct buf gz;
	const char *path;

	/* kineto, info before the events */
	gen_trace(&t, kineto_prologue, kineto_epilogue, NR_EVENTS);
	path = write_file("kineto.json", t.text.data, t.text.len);
	read_all_ways("kineto.json", path, &t, check_kineto_info, ALL);
	{
		struct run *r = read_trace(path, 1, NULL, 0);

		CHECK_EQ_STR(r->info.engine, "none");
		CHECK_EQ_INT(r->info.bytes_in, t.text.len);
		CHECK(r->c.nr_progress > 0);
		run_free(r);
	}

	/* gzipped, one member, with each inflate engine */
	buf_init(&gz);
	gzip_member(&gz, t.text.data, t.text.len);
	path = write_file("kineto.json.gz", gz.data, gz.len);
	read_all_ways("kineto.json.gz", path, &t, check_kineto_info, ALL);
	setenv("VTRACE_INFLATE", "zlib", 1);
	read_all_ways("kineto.json.gz (zlib)", path, &t, check_kineto_info, EACH_CHUNK);
	{
		struct run *r = read_trace(path, 1, NULL, 0);

		CHECK_EQ_STR(r->info.engine, "zlib");
		CHECK_EQ_INT(r->info.bytes_in, gz.len);
		run_free(r);
	}
	unsetenv("VTRACE_INFLATE");

	/* multi-member gzip, split inside events (in a name, in a number) */
	buf_reset(&gz);
	{
		size_t cuts[5] = { 0, t.ev_start[3] + 30, t.ev_start[NR_EVENTS / 4] + 5,
				   t.ev_end[NR_EVENTS / 2 + 1] - 1, t.text.len };

		for (int i = 0; i < 4; i++)
			gzip_member(&gz, t.text.data + cuts[i], cuts[i + 1] - cuts[i]);
	}
	path = write_file("multi.json.gz", gz.data, gz.len);
	read_all_ways("multi.json.gz", path, &t, check_kineto_info, ALL);
	setenv("VTRACE_INFLATE", "zlib", 1);
	read_all_ways("multi.json.gz (zlib)", path, &t, check_kineto_info, EACH_CHUNK);
	unsetenv("VTRACE_INFLATE");
	buf_release(&gz);
	trace_release(&t);

	/* distributedInfo after traceEvents */
	gen_trace(&t,
		  "{\"traceEvents\":", ",\"distributedInfo\":{\"rank\":5,\"world_size\":16}}",
		  NR_EVENTS / 2);
	path = write_file("after.json", t.text.data, t.text.len);
	read_all_ways("after.json", path, &t, check_after_info, EACH_CHUNK);
	trace_release(&t);

	/* the legacy bare array */
	gen_trace(&t, "  ", "\n", NR_EVENTS / 2);
	path = write_file("array.json", t.text.data, t.text.len);
	read_all_ways("array.json", path, &t, check_array_info, EACH_CHUNK);
	trace_release(&t);

	/* no events at all */
	gen_trace(&t, "{\"traceEvents\":", "}", 0);
	path = write_file("empty-events.json", t.text.data, t.text.len);
	read_all_ways("empty-events.json", path, &t, NULL, EACH_CHUNK);
	trace_release(&t);

	/* top-level values larger than a chunk, before and after the events */
	{
		struct buf pro, epi;

		buf_init(&pro);
		buf_init(&epi);
		buf_adds(&pro, "{\"traceName\":\"");
		for (int i = 0; i < 300 * 1024 / 16; i++)
			buf_adds(&pro, i % 7 ? "0123456789abcdef" : "\\\"},{\\\"x\\\":[1,");
		buf_adds(&pro, "\",\"deviceProperties\":[{\"name\":\"big\",\"totalGlobalMem\":1}],"
			       "\"traceEvents\":");
		buf_adds(&epi, ",\"other\":[");
		for (int i = 0; i < 100 * 1024 / 8; i++)
			buf_adds(&epi, "{\"a\":1},");
		buf_adds(&epi, "null],\"distributedInfo\":{\"rank\":1}}");
		gen_trace(&t, pro.data, epi.data, 64);
		path = write_file("bigtop.json", t.text.data, t.text.len);
		read_all_ways("bigtop.json", path, &t, NULL, EACH_CHUNK);
		{
			struct run *r = read_trace(path, 2, "100", 0);

			CHECK_EQ_INT(r->info.rank, 1);
			CHECK_EQ_INT(r->info.nr_devices, 1);
			CHECK_EQ_STR(r->info.devices[0].name, "big");
			run_free(r);
		}
		trace_release(&t);
		buf_release(&pro);
		buf_release(&epi);
	}
}

/* ---- bad input ---- */

/* Warnings contain text; one that says where is within [0, max]. */
static int warning_at(const struct trace_info *info, const char *text, int64_t max)
{
	for (size_t i = 0; i < info->nr_warnings; i++)
		if (strstr(info->warnings[i].msg, text) && info->warnings[i].offset >= 0 &&
		    info->warnings[i].offset <= max)
			return 1;
	return 0;
}

/* Some warning contains text. */
static int has_warning(const struct trace_info *info, const char *text)
{
	for (size_t i = 0; i < info->nr_warnings; i++)
		if (strstr(info->warnings[i].msg, text))
			return 1;
	return 0;
}

static void test_cut_off(void)
{
	struct trace t;
	size_t cuts[64], nr_cuts = 0;

	gen_trace(&t, kineto_prologue, kineto_epilogue, 120);
	/* around event boundaries, inside events, around the array's end */
	for (size_t i = 0; i < t.nr && nr_cuts < 48; i += 11) {
		cuts[nr_cuts++] = t.ev_end[i] - 1;
		cuts[nr_cuts++] = t.ev_end[i];
		cuts[nr_cuts++] = t.ev_start[i] + (t.ev_end[i] - t.ev_start[i]) / 2;
	}
	cuts[nr_cuts++] = t.events_begin;
	cuts[nr_cuts++] = t.events_close;
	cuts[nr_cuts++] = t.events_close + 1;
	cuts[nr_cuts++] = t.text.len - 2;

	for (size_t ci = 0; ci < nr_cuts; ci++) {
		size_t cut = cuts[ci], done = 0;
		const char *path;

		for (size_t i = 0; i < t.nr; i++)
			if (t.ev_end[i] <= cut)
				done = i + 1;
		path = write_file("cut.json", t.text.data, cut);
		/* each cut in one configuration, in turn; the first three in all 8 */
		for (size_t cfg = 0; cfg < (ci < 3 ? 8u : 1u); cfg++) {
			size_t k = (ci + cfg) % 4;
			int threads = 1 + (int)((ci + cfg) / 4 % 2);
			const char *cs = chunks[k] ? chunks[k] : "default";
			struct run *r = read_trace(path, threads, chunks[k], 0);
			size_t want = lines_len(t.want.data, done);
			int ok = 1;

			ok &= CHECKF(r->rc == 1, "cut at %zu chunk %s: rc %d (%s)", cut, cs, r->rc,
				     r->e.msg);
			ok &= CHECKF(r->c.nr_events == (int64_t)done && r->c.lines.len == want &&
					     memcmp(r->c.lines.data, t.want.data, want) == 0,
				     "cut at %zu chunk %s threads %d: %lld events, want %zu", cut,
				     cs, threads, (long long)r->c.nr_events, done);
			ok &= CHECKF(r->info.complete == 0, "cut at %zu: complete", cut);
			ok &= CHECKF(warning_at(&r->info, "ends", (int64_t)cut),
				     "cut at %zu: warnings %zu, first \"%s\" at %lld", cut,
				     r->info.nr_warnings,
				     r->info.nr_warnings ? r->info.warnings[0].msg : "",
				     r->info.nr_warnings ? (long long)r->info.warnings[0].offset
							 : -1LL);
			ok &= CHECK(!r->c.overlap);
			run_free(r);
			if (!ok)
				break;
		}
	}

	/* cut inside the prologue: no events begin, so not a trace */
	{
		const char *path = write_file("cut-pro.json", t.text.data, t.events_begin - 20);
		struct run *r = read_trace(path, 1, NULL, 0);

		CHECKF(r->rc == -1 && strstr(r->e.msg, "ends inside"), "prologue cut: rc %d (%s)",
		       r->rc, r->e.msg);
		CHECK_EQ_INT(r->c.nr_events, 0);
		run_free(r);
	}

	/* truncated gzip: the inflated part is delivered */
	{
		struct buf gz;
		const char *path;

		buf_init(&gz);
		gzip_member(&gz, t.text.data, t.text.len);
		path = write_file("cut.json.gz", gz.data, gz.len / 2);
		for (int threads = 1; threads <= 2; threads++) {
			struct run *r = read_trace(path, threads, "1000", 0);
			size_t done = 0, want;
			int64_t got_text = r->info.bytes_text;

			for (size_t i = 0; i < t.nr; i++)
				if ((int64_t)t.ev_end[i] <= got_text)
					done = i + 1;
			want = lines_len(t.want.data, done);
			CHECKF(r->rc == 1, "truncated gzip: rc %d (%s)", r->rc, r->e.msg);
			CHECKF(got_text > 0 && got_text < (int64_t)t.text.len, "bytes_text %lld",
			       (long long)got_text);
			CHECKF(r->c.nr_events == (int64_t)done && r->c.lines.len == want &&
				       memcmp(r->c.lines.data, t.want.data, want) == 0,
			       "truncated gzip: %lld events, want %zu", (long long)r->c.nr_events,
			       done);
			CHECKF(warning_at(&r->info, "truncated", (int64_t)gz.len),
			       "truncated gzip: warning \"%s\"",
			       r->info.nr_warnings ? r->info.warnings[0].msg : "");
			run_free(r);
		}
		buf_release(&gz);
	}
	trace_release(&t);
}

static void test_syntax_error(void)
{
	static const char text[] =
		"{\"traceEvents\":[{\"name\":\"a\",\"ts\":1},{\"name\":\"b\",\"ts\":2}  x"
		"{\"name\":\"c\"}]}";
	const char *path = write_file("junk.json", text, sizeof(text) - 1);

	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		for (int threads = 1; threads <= 2; threads++) {
			struct run *r = read_trace(path, threads, chunks[k], 0);

			CHECKF(r->rc == 1, "junk: rc %d", r->rc);
			CHECKF(r->c.nr_events == 2, "junk chunk %s: %lld events",
			       chunks[k] ? chunks[k] : "default", (long long)r->c.nr_events);
			CHECKF(r->info.nr_warnings >= 1 && r->info.warnings[0].offset == 57,
			       "junk: warning \"%s\" at %lld",
			       r->info.nr_warnings ? r->info.warnings[0].msg : "",
			       r->info.nr_warnings ? (long long)r->info.warnings[0].offset : -1LL);
			/* the text read ends at the error, however far it was inflated */
			CHECKF(r->info.bytes_text == 57,
			       "junk chunk %s threads %d: bytes_text %lld",
			       chunks[k] ? chunks[k] : "default", threads,
			       (long long)r->info.bytes_text);
			run_free(r);
		}
	}
}

/*
 * A syntax error, then a gzip stream that breaks off far past it: the read
 * stops at the error, and says the cut too, whether the threads had
 * inflated that far ahead (one chunk) or not (64-byte chunks).
 */
static void test_stop_before_cut(void)
{
	static const char head[] = "{\"traceEvents\":[{\"name\":\"a\",\"ts\":1} x ";
	const int64_t at = (int64_t)(strchr(head, 'x') - head);	/* the error */
	struct buf text, gz;
	const char *path;

	buf_init(&text);
	buf_init(&gz);
	buf_add(&text, head, sizeof(head) - 1);
	for (int i = 0; i < 2000; i++) {
		char ev[64];
		int n = snprintf(ev, sizeof(ev), "{\"name\":\"k%d\",\"ts\":%d},", i * 7919, i);

		buf_add(&text, ev, (size_t)n);
	}
	gzip_member(&gz, text.data, text.len);
	path = write_file("stop-cut.json.gz", gz.data, gz.len / 2);
	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		for (int threads = 1; threads <= 2; threads++) {
			struct run *r = read_trace(path, threads, chunks[k], 0);
			const char *c = chunks[k] ? chunks[k] : "default";

			CHECKF(r->rc == 1 && r->c.nr_events == 1,
			       "stop-cut chunk %s: rc %d, %lld events", c, r->rc,
			       (long long)r->c.nr_events);
			CHECKF(r->info.nr_warnings == 2 && r->info.warnings[0].offset == at &&
				       !r->info.warnings[0].compressed &&
				       r->info.warnings[1].compressed &&
				       strstr(r->info.warnings[1].msg, "truncated"),
			       "stop-cut chunk %s threads %d: %zu warnings, \"%s\" at %lld", c,
			       threads, r->info.nr_warnings,
			       r->info.nr_warnings ? r->info.warnings[0].msg : "",
			       r->info.nr_warnings ? (long long)r->info.warnings[0].offset : -1LL);
			CHECKF(r->info.bytes_text == at,
			       "stop-cut chunk %s threads %d: bytes_text %lld", c, threads,
			       (long long)r->info.bytes_text);
			run_free(r);
		}
	}
	buf_release(&text);
	buf_release(&gz);
}

/*
 * Warnings in the order of the file, whatever the chunk size: a value of
 * an odd type in the events (counted, said once) comes before a broken
 * member after the array, which a large chunk reaches while the events
 * are still being fed.
 */
static void test_warning_order(void)
{
	static const char text[] =
		"{\"traceEvents\":[\n"
		"{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
		"{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":true}\n"
		"],\n\"stackFrames\": {\"1\": {\"parent\": Group }}\n}\n";
	const char *path = write_file("order.json", text, sizeof(text) - 1);

	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		for (int threads = 1; threads <= 2; threads++) {
			struct run *r = read_trace(path, threads, chunks[k], 0);

			CHECKF(r->info.nr_warnings >= 2 &&
				       strstr(r->info.warnings[0].msg, "of a type their key") &&
				       strstr(r->info.warnings[1].msg, "expected a value"),
			       "order chunk %s: first warning \"%s\"",
			       chunks[k] ? chunks[k] : "default",
			       r->info.nr_warnings ? r->info.warnings[0].msg : "");
			run_free(r);
		}
	}
}

static void test_not_traces(void)
{
	static const struct {
		const char *name, *text;
	} cases[] = {
		{ "empty.json", "" },
		{ "hello.json", "hello" },
		{ "space.json", " \n\t " },
		{ "object.json", "{\"a\":1,\"b\":[1,2]}" },
		{ "emptyobj.json", "{}" },
		{ "notarray.json", "{\"traceEvents\":5}" },
		{ "number.json", "42" },
		{ "string.json", "\"traceEvents\"" },
		{ "badtop.json", "{\"a\" 1, \"traceEvents\":[]}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_file(cases[i].name, cases[i].text, strlen(cases[i].text));

		for (int threads = 1; threads <= 2; threads++) {
			struct run *r = read_trace(path, threads, "64", 0);

			CHECKF(r->rc == -1, "%s: rc %d, want -1", cases[i].name, r->rc);
			CHECKF(r->e.msg[0] != '\0', "%s: no message", cases[i].name);
			CHECK_EQ_INT(r->c.nr_events, 0);
			run_free(r);
		}
	}

	/* gzip of nothing is an empty input too */
	{
		struct buf gz;
		const char *path;
		struct run *r;

		buf_init(&gz);
		gzip_member(&gz, "", 0);
		path = write_file("empty.json.gz", gz.data, gz.len);
		r = read_trace(path, 1, NULL, 0);
		CHECKF(r->rc == -1, "empty gzip: rc %d", r->rc);
		run_free(r);
		buf_release(&gz);
	}

	/* a missing file */
	{
		char path[4200];
		struct run *r;

		snprintf(path, sizeof(path), "%s/no-such-file.json", tmpdir);
		r = read_trace(path, 1, NULL, 0);
		CHECKF(r->rc == -1 && r->e.msg[0], "missing file: rc %d", r->rc);
		run_free(r);
	}
}

static void test_odd_but_fine(void)
{
	/*
	 * Text after the end may hold events (two traces in one file, or a
	 * traceEvents closed early): a warning, and the read is not complete.
	 * White space after the end is nothing.
	 */
	{
		static const char text[] = "{\"traceEvents\":[{\"name\":\"a\"}]} trailing";
		const char *path = write_file("trailing.json", text, sizeof(text) - 1);
		struct run *r = read_trace(path, 1, "64", 0);

		CHECKF(r->rc == 1 && !r->info.complete, "trailing: rc %d complete %d", r->rc,
		       r->info.complete);
		CHECK_EQ_INT(r->c.nr_events, 1);
		CHECKF(warning_at(&r->info, "after the end", sizeof(text)),
		       "trailing: warnings %zu", r->info.nr_warnings);
		run_free(r);
	}
	{
		static const char text[] = "{\"traceEvents\":[{\"name\":\"a\"}]}\n"
					   "{\"traceEvents\":[{\"name\":\"b\"}]}\n";
		const char *path = write_file("two.json", text, sizeof(text) - 1);
		struct run *r = read_trace(path, 2, "64", 0);

		CHECKF(r->rc == 1 && !r->info.complete, "two traces: rc %d", r->rc);
		CHECK_EQ_INT(r->c.nr_events, 1);
		run_free(r);
	}
	{
		static const char text[] = "{\"traceEvents\":[{\"name\":\"a\"}]}\n \t\r\n";
		const char *path = write_file("ws.json", text, sizeof(text) - 1);
		struct run *r = read_trace(path, 1, "64", 0);

		CHECKF(r->rc == 0 && r->info.complete && r->info.nr_warnings == 0,
		       "white space after the end: rc %d, %zu warnings", r->rc,
		       r->info.nr_warnings);
		run_free(r);
	}

	/*
	 * Values of a JSON type their key never has are read as absent, and
	 * counted in one warning at the first such event: once each, however
	 * the chunks cut the events (a partial event is parsed again).
	 * Numbers written as text are no such value.
	 */
	for (int threads = 1; threads <= 2; threads++) {
		static const char text[] = "[{\"name\":\"a\",\"ts\":true},{\"name\":7},"
					   "{\"name\":\"b\",\"args\":[]},"
					   "{\"name\":\"c\",\"pid\":{},\"cat\":null},"
					   "{\"name\":\"d\",\"ts\":\"1.5\","
					   "\"args\":{\"stream\":\"0x0\"}}]";
		const char *path = write_file("odd.json", text, sizeof(text) - 1);
		struct run *r = read_trace(path, threads, "64", 0);
		size_t n = 0;

		CHECK_EQ_INT(r->c.nr_events, 5);
		CHECK(r->rc == 0 && r->info.complete);
		for (size_t i = 0; i < r->info.nr_warnings; i++)
			n += strstr(r->info.warnings[i].msg, "of a type") != NULL;
		CHECKF(n == 1 && has_warning(&r->info, "5 values of a type their key never has") &&
		       warning_at(&r->info, "of a type", 1),
		       "odd values: %zu warnings, the first \"%s\" at %lld", r->info.nr_warnings,
		       r->info.nr_warnings ? r->info.warnings[0].msg : "",
		       r->info.nr_warnings ? (long long)r->info.warnings[0].offset : -1LL);
		run_free(r);
	}

	/* elements that are not objects are counted and reported once */
	{
		static const char text[] = "[1,{\"name\":\"a\"},\"x\",[],null]";
		const char *path = write_file("notobj.json", text, sizeof(text) - 1);
		struct run *r = read_trace(path, 2, "64", 0);

		CHECK_EQ_INT(r->c.nr_events, 5);
		CHECKF(has_warning(&r->info, "not objects") && r->info.nr_warnings == 1,
		       "not objects: warnings %zu \"%s\"", r->info.nr_warnings,
		       r->info.nr_warnings ? r->info.warnings[0].msg : "");
		run_free(r);
	}

	/* the sink can stop the read */
	{
		struct trace t;
		const char *path;
		struct run *r;

		gen_trace(&t, "{\"traceEvents\":", "}", NR_EVENTS);
		path = write_file("stop.json", t.text.data, t.text.len);
		for (int threads = 1; threads <= 2; threads++) {
			r = read_trace(path, threads, "1000", 2);
			CHECKF(r->c.nr_batches == 2, "stop: %ld batches after asking to stop",
			       r->c.nr_batches);
			CHECKF(r->rc == 1 && r->info.complete == 0, "stop: rc %d complete %d",
			       r->rc, r->info.complete);
			CHECK(r->c.nr_events < (int64_t)t.nr);
			run_free(r);
		}
		trace_release(&t);
	}
}

static void cleanup(void)
{
	char cmd[4300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_trace_read: could not remove %s\n", tmpdir);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_trace_read.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "test_trace_read: mkdtemp: %s\n", strerror(errno));
		return 2;
	}
	unsetenv("VTRACE_INFLATE");
	test_formats();
	test_cut_off();
	test_syntax_error();
	test_stop_before_cut();
	test_warning_order();
	test_not_traces();
	test_odd_but_fine();
	cleanup();
	return check_done("test_trace_read");
}
