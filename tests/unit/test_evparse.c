/*
 * test_evparse: unit tests for lib/read/evparse.c.
 *
 * Each event is turned into one canonical line (its strings looked up in the
 * batch's table, only the fields its flags say are set), so results of
 * different parses compare as text.  The main checks cut a run of events at
 * every byte offset: the prefix must end EVP_PARTIAL at the start of the
 * unfinished element (or EVP_CLEAN in the right state), and parsing the
 * prefix, then the rest from where it ended, must give the same events as
 * one parse of the whole.  Texts are copied into blocks of exactly their
 * length so that ASan sees a read past the end.
 */
#include "evparse.h"

#include "buf.h"
#include "check.h"

static char *exact(const char *s, size_t n)
{
	char *p = check_xmalloc(n);

	memcpy(p, s, n);
	return p;
}

static void add_str(struct buf *o, const char *key, const struct event_batch *b, uint32_t id)
{
	if (!id)
		return;
	buf_printf(o, " %s=\"", key);
	buf_add(o, strtab_str(&b->strs, id), strtab_len(&b->strs, id));
	buf_addc(o, '"');
}

/* One line for event e of b, appended to o. */
static void ev_line(struct buf *o, const struct event_batch *b, const struct trace_event *e)
{
	buf_printf(o, "flags=%x", e->flags);
	if (e->phase)
		buf_printf(o, " phase=%c", e->phase);
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
#define F(flag, field)                                                    \
	if (e->flags & flag)                                              \
		buf_printf(o, " " #field "=%" PRId64, e->field);
	F(EV_CORRELATION, correlation)
	F(EV_EXTERNAL_ID, external_id)
	F(EV_FLOW_ID, flow_id)
	F(EV_STREAM, stream)
	F(EV_DEVICE, device)
	F(EV_MEM_ALLOCATED, mem_allocated)
	F(EV_MEM_RESERVED, mem_reserved)
	F(EV_MEM_BYTES, mem_bytes)
	F(EV_IN_NELEMS, in_nelems)
	F(EV_OUT_NELEMS, out_nelems)
	F(EV_GROUP_SIZE, group_size)
#undef F
	buf_addc(o, '\n');
}

struct parsed {
	struct evparse_result r;
	int rc;
	size_t n;		/* events */
	struct buf lines;	/* one line per event */
};

/*
 * One batch for all parses, reset in between as the reader does: a fresh
 * batch costs a large allocation, and thousands of them are slow under ASan.
 */
static struct event_batch shared_batch;

/* Parse text[0..len) (copied exactly) at input offset off from state st. */
static void parse(const char *text, size_t len, int64_t off, enum evparse_state st,
		  struct parsed *out)
{
	struct event_batch *b = &shared_batch;
	char *t = exact(text, len);

	event_batch_reset(b);
	buf_init(&out->lines);
	out->rc = evparse_run(t, len, off, st, b, &out->r);
	out->n = b->n;
	for (size_t i = 0; i < b->n; i++)
		ev_line(&out->lines, b, &b->ev[i]);
	if (!out->lines.data) {
		buf_addc(&out->lines, 'x');
		buf_reset(&out->lines);
	}
	free(t);
}

static void parsed_release(struct parsed *p)
{
	buf_release(&p->lines);
}

/* The events of one object, parsed alone from EVP_FIRST; its line in want. */
static void one(const char *file, int line, const char *json, const char *want)
{
	struct parsed p;
	size_t n = strlen(json);

	parse(json, n, 0, EVP_FIRST, &p);
	check_nr++;
	if (p.rc != 0 || p.r.end != EVP_CLEAN || p.r.state != EVP_NEXT || p.n != 1 ||
	    strcmp(p.lines.data, want) != 0) {
		check_fail_at(file, line);
		printf("%s\n    rc %d end %d state %d n %zu (%s)\n    got  %s    want %s", json,
		       p.rc, p.r.end, p.r.state, p.n, p.r.err.msg, p.lines.data, want);
	}
	parsed_release(&p);
}

#define ONE(json, want) one(__FILE__, __LINE__, json, want)

/* The shape args of record_shapes=True: their text, where it lies, per event. */
static void test_shapes(void)
{
	struct event_batch b;
	struct evparse_result r;
	static const char two[] =
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"args\":{\"Concrete Inputs\":[\"\",\"1\"],"
		"\"Input type\":[\"c10::BFloat16\",\"Scalar\"],\"Input Strides\":[[1024,1],[]],"
		"\"Input Dims\":[[8944, 1024], []]}},"
		"{\"ph\":\"X\",\"args\":{\"Input Dims\":[[2]]}},{\"ph\":\"X\"}";
	char *t = exact(two, sizeof(two) - 1);
	const struct event_shapes *sh;

	event_batch_init(&b);
	CHECK_EQ_INT(evparse_run(t, sizeof(two) - 1, 0, EVP_FIRST, &b, &r), 0);
	CHECK_EQ_INT(b.n, 3);
	CHECK_EQ_INT(b.nr_shapes, 3);
	CHECK_EQ_INT(b.ev[0].shapes, 1);
	CHECK_EQ_INT(b.ev[1].shapes, 2);
	CHECK_EQ_INT(b.ev[2].shapes, 0);
	sh = &b.shapes[1];
	CHECK_EQ_MEM(sh->dims, sh->nr_dims, "[[8944, 1024], []]", 18);
	CHECK_EQ_MEM(sh->types, sh->nr_types, "[\"c10::BFloat16\",\"Scalar\"]", 26);
	CHECK_EQ_MEM(sh->concrete, sh->nr_concrete, "[\"\",\"1\"]", 8);
	sh = &b.shapes[2];
	CHECK_EQ_MEM(sh->dims, sh->nr_dims, "[[2]]", 5);
	CHECK_EQ_INT(sh->nr_types, 0);
	CHECK_EQ_INT(sh->nr_concrete, 0);
	event_batch_reset(&b);
	CHECK_EQ_INT(b.nr_shapes, 0);
	event_batch_release(&b);
	free(t);
}

static void test_fields(void)
{
	struct event_batch b;
	struct evparse_result r;
	static const char all[] =
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel\\u005fAllReduce\","
		"\"pid\":0,\"tid\":\"stream 7\",\"ts\":1712195495541300.987,\"dur\":12.5,"
		"\"args\":{\"correlation\":12345,\"External id\":67,\"stream\":4294967295,"
		"\"Device Id\":-1,\"Total Allocated\":123456789012,\"Total Reserved\":223456789012,"
		"\"Bytes\":-4096,\"Collective name\":\"allreduce\",\"In msg nelems\":1048576,"
		"\"Out msg nelems\":2097152,\"Group size\":8,\"other\":{\"x\":[1,{\"y\":null}]},"
		"\"Process Group Name\":\"pg 3\",\"dtype\":\"BFloat16\"}}";
	char *t = exact(all, sizeof(all) - 1);
	const struct trace_event *e;

	event_batch_init(&b);
	CHECK_EQ_INT(evparse_run(t, sizeof(all) - 1, 0, EVP_FIRST, &b, &r), 0);
	CHECK_EQ_INT(r.end, EVP_CLEAN);
	CHECK_EQ_INT(r.state, EVP_NEXT);
	CHECK_EQ_INT(r.pos, sizeof(all) - 1);
	CHECK_EQ_INT(b.n, 1);
	e = &b.ev[0];
	CHECK_EQ_MEM(strtab_str(&b.strs, e->ph), strtab_len(&b.strs, e->ph), "X", 1);
	CHECK_EQ_INT(e->phase, 'X');
	CHECK_EQ_MEM(strtab_str(&b.strs, e->name), strtab_len(&b.strs, e->name),
		     "ncclKernel_AllReduce", 20);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->cat), strtab_len(&b.strs, e->cat), "kernel", 6);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->pid), strtab_len(&b.strs, e->pid), "0", 1);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->tid), strtab_len(&b.strs, e->tid), "stream 7", 8);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->coll_name), strtab_len(&b.strs, e->coll_name),
		     "allreduce", 9);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->pg_name), strtab_len(&b.strs, e->pg_name), "pg 3", 4);
	CHECK_EQ_MEM(strtab_str(&b.strs, e->dtype), strtab_len(&b.strs, e->dtype), "BFloat16", 8);
	CHECK_EQ_INT(e->ts_ns, 1712195495541300987);
	CHECK_EQ_INT(e->dur_ns, 12500);
	CHECK_EQ_INT(e->flags, EV_TS | EV_DUR | EV_CORRELATION | EV_EXTERNAL_ID | EV_STREAM |
				       EV_DEVICE | EV_MEM_ALLOCATED | EV_MEM_RESERVED |
				       EV_MEM_BYTES | EV_IN_NELEMS | EV_OUT_NELEMS | EV_GROUP_SIZE);
	CHECK_EQ_INT(e->correlation, 12345);
	CHECK_EQ_INT(e->external_id, 67);
	CHECK_EQ_INT(e->stream, 4294967295);
	CHECK_EQ_INT(e->device, -1);
	CHECK_EQ_INT(e->mem_allocated, 123456789012);
	CHECK_EQ_INT(e->mem_reserved, 223456789012);
	CHECK_EQ_INT(e->mem_bytes, -4096);
	CHECK_EQ_INT(e->in_nelems, 1048576);
	CHECK_EQ_INT(e->out_nelems, 2097152);
	CHECK_EQ_INT(e->group_size, 8);
	CHECK_EQ_INT(r.nr_bad_time, 0);
	CHECK_EQ_INT(r.nr_not_object, 0);
	/* ids are dense from 1 and shared by equal strings */
	CHECK(e->ph >= 1 && e->ph <= strtab_count(&b.strs));
	event_batch_release(&b);
	free(t);

	/* flows and async events: id */
	ONE("{\"ph\":\"s\",\"id\":42,\"pid\":1,\"tid\":2,\"ts\":5,\"cat\":\"ac2g\","
	    "\"name\":\"ac2g\",\"bp\":\"e\"}",
	    "flags=11 phase=s ph=\"s\" name=\"ac2g\" cat=\"ac2g\" pid=\"1\" tid=\"2\" ts=5000 "
	    "flow_id=42\n");
	ONE("{\"ph\":\"f\",\"id\":\"77\"}", "flags=10 phase=f ph=\"f\" flow_id=77\n");
	ONE("{\"ph\":\"b\",\"id\":-3}", "flags=10 phase=b ph=\"b\" flow_id=-3\n");

	/* numbers as strings */
	ONE("{\"ts\":\"123.5\",\"dur\":\"7\"}", "flags=3 ts=123500 dur=7000\n");
	ONE("{\"ts\":\"-0.5\"}", "flags=1 ts=-500\n");
	ONE("{\"args\":{\"correlation\":\"99\",\"stream\":\"7\",\"Device Id\":\"-1\"}}",
	    "flags=64 correlation=99 stream=7 device=-1\n");
	ONE("{\"ts\":\"abc\",\"dur\":\"\",\"args\":{\"stream\":\"s7\"}}", "flags=0\n");
	ONE("{\"ts\":\" 1\"}", "flags=0\n");

	/* pid and tid: the text of a number or a string */
	ONE("{\"pid\":4290336512,\"tid\":-1}", "flags=0 pid=\"4290336512\" tid=\"-1\"\n");
	ONE("{\"pid\":1.5,\"tid\":1e3}", "flags=0 pid=\"1.5\" tid=\"1e3\"\n");
	ONE("{\"pid\":\"4290336512\",\"tid\":\"stream 7\"}",
	    "flags=0 pid=\"4290336512\" tid=\"stream 7\"\n");
	ONE("{\"pid\":123456789012345678901234567890}",
	    "flags=0 pid=\"123456789012345678901234567890\"\n");
	ONE("{\"pid\":{\"a\":1},\"tid\":[1],\"name\":true}", "flags=0\n");
	ONE("{\"pid\":null,\"tid\":false}", "flags=0\n");
	/* "1" and 1 are the same pid */
	ONE("{\"pid\":\"1\",\"tid\":1}", "flags=0 pid=\"1\" tid=\"1\"\n");

	/* negative numbers and strings */
	ONE("{\"ts\":-5,\"dur\":1.5,\"args\":{\"Bytes\":-4096,\"External id\":-9}}",
	    "flags=20b ts=-5000 dur=1500 external_id=-9 mem_bytes=-4096\n");
	/* a negative dur: kept without times, flagged */
	ONE("{\"ts\":-5,\"dur\":-1.5,\"args\":{\"Bytes\":-4096,\"External id\":-9}}",
	    "flags=20208 external_id=-9 mem_bytes=-4096\n");
	{
		/* ... with dur_ns 0, as every event without EV_DUR has (found by fuzz_evparse) */
		static const char neg[] = "{\"ts\":1,\"dur\":-3336315.805}";
		struct parsed p;

		parse(neg, sizeof(neg) - 1, 0, EVP_FIRST, &p);
		CHECK(p.n == 1 && !(shared_batch.ev[0].flags & EV_DUR) &&
		      shared_batch.ev[0].dur_ns == 0);
		parsed_release(&p);
	}
	ONE("{\"name\":\"-\",\"cat\":\"\"}", "flags=0 name=\"-\" cat=\"\"\n");

	/* missing and unusable fields */
	ONE("{}", "flags=0\n");
	ONE("{\"name\":\"x\"}", "flags=0 name=\"x\"\n");
	ONE("{\"cat\":null,\"name\":\"x\",\"ph\":null}", "flags=0 name=\"x\"\n");
	ONE("{\"ph\":\"XX\"}", "flags=0 ph=\"XX\"\n");
	ONE("{\"ph\":\"\"}", "flags=0 ph=\"\"\n");
	ONE("{\"args\":[1,2],\"ts\":1}", "flags=1 ts=1000\n");
	ONE("{\"args\":\"x\"}", "flags=0\n");
	ONE("{\"args\":{\"stream\":null,\"device\":{\"x\":1},\"Bytes\":[1]}}", "flags=0\n");
	ONE("{\"args\":{\"Collective name\":7}}", "flags=0\n");
	ONE("{\"dur\":5}", "flags=2 dur=5000\n");

	/* unknown keys of every type are skipped */
	ONE("{\"a\":{\"b\":[1,{\"c\":\"}\"}]},\"d\":\"]\",\"e\":-1e-5,\"f\":true,\"g\":null,"
	    "\"name\":\"n\"}",
	    "flags=0 name=\"n\"\n");

	/* duplicate keys: the last wins */
	ONE("{\"name\":\"a\",\"name\":\"b\"}", "flags=0 name=\"b\"\n");
	ONE("{\"ts\":1,\"ts\":2}", "flags=1 ts=2000\n");
	ONE("{\"ph\":\"B\",\"ph\":\"E\"}", "flags=0 phase=E ph=\"E\"\n");
	ONE("{\"args\":{\"stream\":1},\"args\":{\"stream\":2}}", "flags=20 stream=2\n");
	ONE("{\"args\":{\"device\":1,\"Device Id\":2}}", "flags=40 device=2\n");
	ONE("{\"args\":{\"Device Id\":2,\"device\":3}}", "flags=40 device=3\n");

	/* escapes in keys are decoded: "n\u0061me" is name */
	ONE("{\"n\\u0061me\":\"x\",\"t\\u0073\":1}", "flags=1 name=\"x\" ts=1000\n");
	ONE("{\"name\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\"}",
	    "flags=0 name=\"a\"b\\c\xc3\xa9\xf0\x9f\x98\x80\"\n");

	/* times past +-2^62 ns (sat.h) leave their event out, counted with the first offset */
	{
		struct parsed p;
		static const char s[] = "{\"ts\":1e30,\"dur\":1,\"name\":\"x\"},"
					"{\"ts\":9223372036854775.808},{\"dur\":-1e300},"
					"{\"ts\":4611686018427387.903},"
					"{\"ts\":4611686018427387.904},"
					"{\"ts\":4611686018427387.000,\"dur\":1},"
					"{\"ts\":-4611686018427387.903,\"dur\":0}";

		parse(s, sizeof(s) - 1, 0, EVP_FIRST, &p);
		CHECK_EQ_INT(p.n, 2);
		CHECK_EQ_INT(p.r.nr_bad_time, 5);
		CHECK_EQ_INT(p.r.bad_time_pos, 0);
		CHECK_EQ_STR(p.lines.data, "flags=1 ts=4611686018427387903\n"
					   "flags=3 ts=-4611686018427387903 dur=0\n");
		parsed_release(&p);
	}
	{
		static const char s[] = "{\"ts\":1},{\"ts\":1e30,\"dur\":1}";
		char *t2 = exact(s, sizeof(s) - 1);

		event_batch_init(&b);
		evparse_run(t2, sizeof(s) - 1, 0, EVP_FIRST, &b, &r);
		CHECK_EQ_INT(b.n, 1);
		CHECK_EQ_INT(r.nr_bad_time, 1);
		CHECK_EQ_INT(r.bad_time_pos, 9);
		event_batch_release(&b);
		free(t2);
	}
}

/*
 * A time written as a string that is out of range ("ts":"1e30") is as much
 * a bad time as the number 1e30 (evparse.h: nr_bad_time counts "events whose
 * ts/dur did not fit int64 ns"), but it is dropped silently instead.
 */
static void test_bad_time_string(void)
{
	struct parsed p;
	static const char s[] = "{\"ts\":\"1e30\",\"name\":\"x\"}";

	parse(s, sizeof(s) - 1, 0, EVP_FIRST, &p);
	CHECK_EQ_INT(p.n, 0);
	CHECKF(p.r.nr_bad_time == 1,
	       "LIB BUG: quoted out-of-range ts \"1e30\" is not counted as a bad time: "
	       "nr_bad_time %lld, event %s", (long long)p.r.nr_bad_time, p.lines.data);
	parsed_release(&p);
}

static void test_not_objects(void)
{
	struct parsed p;
	static const char s[] = "1, \"x\", [2,{\"a\":3}], null, {\"name\":\"a\"}, true, -0.5e1";

	parse(s, sizeof(s) - 1, 0, EVP_FIRST, &p);
	CHECK_EQ_INT(p.n, 6);
	CHECK_EQ_INT(p.r.nr_not_object, 5);
	/* the last element, a number at the end, could go on */
	CHECK_EQ_INT(p.r.end, EVP_PARTIAL);
	CHECK_EQ_INT(p.r.pos, sizeof(s) - 1 - 6);
	CHECK_EQ_STR(p.lines.data, "flags=0\nflags=0\nflags=0\nflags=0\n"
				   "flags=0 name=\"a\"\nflags=0\n");
	parsed_release(&p);
}

static void test_end_states(void)
{
	static const struct {
		const char *text;
		enum evparse_state start;
		enum evparse_end end;
		enum evparse_state state;	/* CLEAN and PARTIAL */
		size_t pos;			/* PARTIAL, ARRAY_END, ERROR (text offset) */
		size_t n;			/* events */
	} cases[] = {
		{ "", EVP_FIRST, EVP_CLEAN, EVP_FIRST, 0, 0 },
		{ "", EVP_NEXT, EVP_CLEAN, EVP_NEXT, 0, 0 },
		{ "", EVP_VALUE, EVP_CLEAN, EVP_VALUE, 0, 0 },
		{ "\n\t\r ", EVP_FIRST, EVP_CLEAN, EVP_FIRST, 5, 0 },
		{ "\n\t\r ", EVP_VALUE, EVP_CLEAN, EVP_VALUE, 5, 0 },
		{ "{\"name\":\"a\"},", EVP_FIRST, EVP_CLEAN, EVP_VALUE, 13, 1 },
		{ "{\"name\":\"a\"}", EVP_FIRST, EVP_CLEAN, EVP_NEXT, 12, 1 },
		{ "{\"name\":\"a\"}\n", EVP_VALUE, EVP_CLEAN, EVP_NEXT, 14, 1 },
		{ ",{\"name\":\"a\"}", EVP_NEXT, EVP_CLEAN, EVP_NEXT, 13, 1 },
		{ " , ", EVP_NEXT, EVP_CLEAN, EVP_VALUE, 3, 0 },
		{ "]", EVP_FIRST, EVP_ARRAY_END, 0, 1, 0 },
		{ "  ]  ", EVP_FIRST, EVP_ARRAY_END, 0, 3, 0 },
		{ " ]", EVP_NEXT, EVP_ARRAY_END, 0, 2, 0 },
		{ ",{},{}]  ,\"x\":1}", EVP_NEXT, EVP_ARRAY_END, 0, 7, 2 },
		{ "{}]]]", EVP_FIRST, EVP_ARRAY_END, 0, 3, 1 },
		{ "{\"name\":\"a\"", EVP_FIRST, EVP_PARTIAL, EVP_FIRST, 0, 0 },
		{ "{},{\"na", EVP_FIRST, EVP_PARTIAL, EVP_VALUE, 3, 1 },
		{ "{},  {\"name\":\"a\\", EVP_FIRST, EVP_PARTIAL, EVP_VALUE, 5, 1 },
		{ "{},{\"ts\":12", EVP_FIRST, EVP_PARTIAL, EVP_VALUE, 3, 1 },
		{ "{},{\"ts\":12}", EVP_FIRST, EVP_CLEAN, EVP_NEXT, 11, 2 },
		{ "{},{\"args\":{\"a\":[tr", EVP_FIRST, EVP_PARTIAL, EVP_VALUE, 3, 1 },
		{ "{},12", EVP_FIRST, EVP_PARTIAL, EVP_VALUE, 3, 1 },
		/* errors: pos is where the problem is */
		{ "]", EVP_VALUE, EVP_ERROR, 0, 0, 0 },
		{ ",", EVP_FIRST, EVP_ERROR, 0, 0, 0 },
		{ "{}{}", EVP_FIRST, EVP_ERROR, 0, 2, 1 },
		{ "{},xyz", EVP_FIRST, EVP_ERROR, 0, 3, 1 },
		{ "{} x", EVP_FIRST, EVP_ERROR, 0, 3, 1 },
		{ "{\"a\":1", EVP_NEXT, EVP_ERROR, 0, 0, 0 },
		{ "{\"name\":\"a\" \"b\":1}", EVP_FIRST, EVP_ERROR, 0, 12, 0 },
		{ "{\"ts\":}", EVP_FIRST, EVP_ERROR, 0, 6, 0 },
		{ "{\"ts\":1.}", EVP_FIRST, EVP_ERROR, 0, 6, 0 },
		{ "{\"name\":\"a\\x\"}", EVP_FIRST, EVP_ERROR, 0, 10, 0 },
		{ "{\"args\":{\"stream\":1,}}", EVP_FIRST, EVP_ERROR, 0, 20, 0 },
		{ "{\"args\":{\"stream\" 1}}", EVP_FIRST, EVP_ERROR, 0, 18, 0 },
		{ "{name:1}", EVP_FIRST, EVP_ERROR, 0, 1, 0 },
		{ "{},,{}", EVP_FIRST, EVP_ERROR, 0, 3, 1 },
		{ "{},]", EVP_FIRST, EVP_ERROR, 0, 3, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parsed p;
		size_t n = strlen(cases[i].text);

		parse(cases[i].text, n, 1000, cases[i].start, &p);
		CHECKF(p.rc == 0, "case %zu '%s': rc %d", i, cases[i].text, p.rc);
		CHECKF(p.r.end == cases[i].end, "case %zu '%s': end %d, want %d (%s)", i,
		       cases[i].text, p.r.end, cases[i].end, p.r.err.msg);
		CHECKF(p.n == cases[i].n, "case %zu '%s': %zu events, want %zu", i, cases[i].text,
		       p.n, cases[i].n);
		switch (cases[i].end) {
		case EVP_CLEAN:
			CHECKF(p.r.state == cases[i].state && p.r.pos == n,
			       "case %zu '%s': state %d pos %zu, want %d %zu", i, cases[i].text,
			       p.r.state, p.r.pos, cases[i].state, n);
			break;
		case EVP_PARTIAL:
			CHECKF(p.r.state == cases[i].state && p.r.pos == cases[i].pos,
			       "case %zu '%s': state %d pos %zu, want %d %zu", i, cases[i].text,
			       p.r.state, p.r.pos, cases[i].state, cases[i].pos);
			break;
		case EVP_ARRAY_END:
			CHECKF(p.r.pos == cases[i].pos, "case %zu '%s': pos %zu, want %zu", i,
			       cases[i].text, p.r.pos, cases[i].pos);
			break;
		case EVP_ERROR:
			CHECKF(p.r.pos == cases[i].pos &&
				       p.r.err.offset == 1000 + (int64_t)cases[i].pos,
			       "case %zu '%s': pos %zu offset %lld, want %zu", i, cases[i].text,
			       p.r.pos, (long long)p.r.err.offset, cases[i].pos);
			CHECKF(p.r.err.msg[0] != '\0', "case %zu: no message", i);
			break;
		}
		parsed_release(&p);
	}
}

/* ---- cut at every offset ---- */

static const char *const elems[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\","
	"\"name\":\"void at::\\\"vec\\\"<\\\\T\\u00e9>\\ud83d\\ude00\",\"pid\":0,"
	"\"tid\":\"stream 7\",\"ts\":1712195495541300.987,\"dur\":12.5,"
	"\"args\":{\"correlation\":12345,\"External id\":-7,\"stream\":4294967295,"
	"\"Device Id\":-1,\"grid\":[1,2,3],\"flag\":true,\"none\":null}}",
	"{ \"ph\" : \"i\" , \"name\" : \"tab\\there},{\\\"ph\\\":\\\"X\\\"}\" , \"s\":\"t\", "
	"\"ts\":\"123.5\", \"args\" : { } }",
	"{\"ph\":\"f\",\"id\":42,\"bp\":\"e\",\"ts\":17,\"name\":\"\",\"pid\":\"4290336512\","
	"\"tid\":-1,\"nested\":{\"a\":[[],{},[{\"b\":[null,\"]},{\"]}]]}}",
	"null",
	"{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
	"\"ts\":1.5e3,\"args\":{\"Total Reserved\":2097152,\"Total Allocated\":1024,"
	"\"Bytes\":-512,\"Device Id\":0,\"Addr\":140000000}}",
	"[1,{\"x\":2}]",
	"42",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\","
	"\"pid\":0,\"tid\":7,\"ts\":\"1712195495541399\",\"dur\":\"3.25\",\"args\":{"
	"\"Collective name\":\"allreduce\",\"In msg nelems\":1048576,\"Out msg nelems\":1048576,"
	"\"Group size\":8,\"stream\":7,\"correlation\":99,\"device\":0}}",
	"{\"ph\":\"X\",\"name\":\"bad time\",\"ts\":1e30,\"dur\":1}",
	"{\"ph\":\"X\",\"name\":\"void at::\\\"vec\\\"<\\\\T\\u00e9>\\ud83d\\ude00\",\"ts\":0}",
};

#define NR_ELEMS (sizeof(elems) / sizeof(elems[0]))
#define BAD_ELEM 8		/* "bad time": left out, so no record of its own */

/* Records that the first n elements give. */
static size_t recs(size_t n)
{
	return n - (n > BAD_ELEM);
}

static const char *const seps[] = { ",", ",\n  ", " , ", ",\n", "\t,", ",", " ,\r\n", ",", ",  " };

struct body {
	char text[4096];
	size_t len;
	size_t start[NR_ELEMS], end[NR_ELEMS];
	size_t comma[NR_ELEMS];	/* comma after element i */
	size_t close;		/* the ']' */
};

static void build_body(struct body *b)
{
	size_t n = 0;

	memcpy(b->text, "\n ", 2);
	n = 2;
	for (size_t i = 0; i < NR_ELEMS; i++) {
		size_t l = strlen(elems[i]);

		b->start[i] = n;
		memcpy(b->text + n, elems[i], l);
		n += l;
		b->end[i] = n;
		if (i + 1 < NR_ELEMS) {
			const char *s = seps[i % (sizeof(seps) / sizeof(seps[0]))];

			b->comma[i] = n + (size_t)(strchr(s, ',') - s);
			memcpy(b->text + n, s, strlen(s));
			n += strlen(s);
		}
	}
	memcpy(b->text + n, "\n]", 2);
	b->close = n + 1;
	n += 2;
	memcpy(b->text + n, ",\"traceName\":\"x]\"}", 18);
	n += 18;
	b->len = n;
}

/* Is element i complete in a text of k bytes?  A number may go on at the end. */
static int complete_in(const struct body *b, size_t i, size_t k)
{
	char last = elems[i][strlen(elems[i]) - 1];

	return (last >= '0' && last <= '9') ? b->end[i] < k : b->end[i] <= k;
}

/* The first n lines of s: their length. */
static size_t lines_len(const char *s, size_t n)
{
	const char *p = s;

	while (n-- && (p = strchr(p, '\n')))
		p++;
	return p ? (size_t)(p - s) : strlen(s);
}

static void test_cuts(void)
{
	struct body *b = check_xmalloc(sizeof(*b));
	struct parsed whole;
	int64_t base = 1 << 20;

	build_body(b);
	parse(b->text, b->len, base, EVP_FIRST, &whole);
	CHECK_EQ_INT(whole.r.end, EVP_ARRAY_END);
	CHECK_EQ_INT(whole.r.pos, b->close + 1);
	CHECK_EQ_INT(whole.n, recs(NR_ELEMS));
	CHECK_EQ_INT(whole.r.nr_not_object, 3);
	CHECK_EQ_INT(whole.r.nr_bad_time, 1);
	{
		/* spot checks of the whole parse */
		const char *l = whole.lines.data;

		CHECK(strstr(l, "flags=6f phase=X ph=\"X\" name=\"void at::\"vec\"<\\T\xc3\xa9>"
				"\xf0\x9f\x98\x80\" cat=\"kernel\" pid=\"0\" tid=\"stream 7\" "
				"ts=1712195495541300987 dur=12500 correlation=12345 external_id=-7 "
				"stream=4294967295 device=-1\n") != NULL);
		CHECK(strstr(l, "name=\"tab\there},{\"ph\":\"X\"}\" ts=123500") != NULL);
		CHECK(strstr(l, "pid=\"4290336512\" tid=\"-1\" ts=17000 flow_id=42\n") != NULL);
		CHECK(strstr(l, "pid=\"1\" tid=\"1\" ts=1500000 device=0 mem_allocated=1024 "
				"mem_reserved=2097152 mem_bytes=-512\n") != NULL);
		CHECK(strstr(l, "coll=\"allreduce\" ts=1712195495541399000 dur=3250 correlation=99 "
				"stream=7 device=0 in_nelems=1048576 out_nelems=1048576 "
				"group_size=8\n") != NULL);
		CHECK(strstr(l, "bad time") == NULL);
		CHECK(strstr(l, "ts=1712195495541300987 dur=12500 correlation=12345 "
				"external_id=-7 stream=4294967295 device=-1\n") != NULL);
	}

	for (size_t k = 0; k <= b->len; k++) {
		struct parsed p, rest;
		size_t done = 0, partial = NR_ELEMS, want_pos = 0, resume;
		enum evparse_state want_state = EVP_FIRST;
		enum evparse_end want_end;
		int ok = 1;

		for (size_t i = 0; i < NR_ELEMS; i++) {
			if (complete_in(b, i, k))
				done = i + 1;
			else if (k > b->start[i] && partial == NR_ELEMS)
				partial = i;
		}
		if (k > b->close) {
			want_end = EVP_ARRAY_END;
			want_pos = b->close + 1;
		} else if (partial < NR_ELEMS) {
			want_end = EVP_PARTIAL;
			want_pos = b->start[partial];
			want_state = partial ? EVP_VALUE : EVP_FIRST;
		} else {
			want_end = EVP_CLEAN;
			want_pos = k;
			if (done)
				want_state = k > b->comma[done - 1] && done < NR_ELEMS ? EVP_VALUE
										: EVP_NEXT;
		}

		parse(b->text, k, base, EVP_FIRST, &p);
		ok &= CHECKF(p.r.end == want_end && p.r.pos == want_pos,
			     "cut at %zu: end %d pos %zu, want %d %zu (%s)", k, p.r.end, p.r.pos,
			     want_end, want_pos, p.r.err.msg);
		if (want_end != EVP_ARRAY_END)
			ok &= CHECKF(p.r.state == want_state, "cut at %zu: state %d, want %d", k,
				     p.r.state, want_state);
		ok &= CHECKF(p.n == recs(done), "cut at %zu: %zu events, want %zu", k, p.n,
			     recs(done));
		ok &= CHECKF(strncmp(p.lines.data, whole.lines.data,
				     lines_len(whole.lines.data, recs(done))) == 0 &&
				     strlen(p.lines.data) == lines_len(whole.lines.data,
									       recs(done)),
			     "cut at %zu: events differ from the whole parse", k);

		/* resume where the prefix ended, as the reader does */
		if (p.r.end == EVP_CLEAN || p.r.end == EVP_PARTIAL) {
			struct buf all;

			resume = p.r.pos;
			parse(b->text + resume, b->len - resume, base + (int64_t)resume, p.r.state,
			      &rest);
			ok &= CHECKF(rest.r.end == EVP_ARRAY_END &&
					     resume + rest.r.pos == b->close + 1,
				     "resume at %zu (cut %zu): end %d pos %zu (%s at %lld)", resume,
				     k, rest.r.end, rest.r.pos, rest.r.err.msg,
				     (long long)rest.r.err.offset);
			buf_init(&all);
			buf_adds(&all, p.lines.data);
			buf_adds(&all, rest.lines.data);
			ok &= CHECKF(strcmp(all.data, whole.lines.data) == 0,
				     "resume at %zu (cut %zu): events differ:\n%s---\n%s", resume,
				     k, all.data, whole.lines.data);
			ok &= CHECKF(p.r.nr_not_object + rest.r.nr_not_object == 3 &&
					     p.r.nr_bad_time + rest.r.nr_bad_time == 1,
				     "resume at %zu: counts %lld %lld", resume,
				     (long long)(p.r.nr_not_object + rest.r.nr_not_object),
				     (long long)(p.r.nr_bad_time + rest.r.nr_bad_time));
			buf_release(&all);
			parsed_release(&rest);
		}
		parsed_release(&p);
		if (!ok)
			break;
	}

	/* start at every element from EVP_VALUE, and at every comma from EVP_NEXT */
	for (size_t i = 1; i < NR_ELEMS; i++) {
		struct parsed p;
		size_t skip = lines_len(whole.lines.data, recs(i));

		parse(b->text + b->start[i], b->len - b->start[i], 0, EVP_VALUE, &p);
		CHECKF(p.r.end == EVP_ARRAY_END &&
			       strcmp(p.lines.data, whole.lines.data + skip) == 0,
		       "from element %zu: end %d", i, p.r.end);
		parsed_release(&p);
		parse(b->text + b->end[i - 1], b->len - b->end[i - 1], 0, EVP_NEXT, &p);
		CHECKF(p.r.end == EVP_ARRAY_END &&
			       strcmp(p.lines.data, whole.lines.data + skip) == 0,
		       "from the end of element %zu: end %d", i - 1, p.r.end);
		parsed_release(&p);
		/* a wrong guess is seen: an element where ',' belongs */
		parse(b->text + b->start[i], b->len - b->start[i], 0, EVP_NEXT, &p);
		CHECKF(p.r.end == EVP_ERROR && p.r.pos == 0, "element %zu from EVP_NEXT: end %d",
		       i, p.r.end);
		parsed_release(&p);
	}
	parsed_release(&whole);
	free(b);
}

/* A batch reused across runs (event_batch_reset) gives the same events. */
static void test_batch_reuse(void)
{
	struct event_batch b;
	struct evparse_result r;
	static const char s[] = "{\"name\":\"a\",\"ph\":\"X\"},{\"name\":\"b\\n\",\"ph\":\"X\"}";
	char *t = exact(s, sizeof(s) - 1);

	event_batch_init(&b);
	for (int round = 0; round < 3; round++) {
		event_batch_reset(&b);
		evparse_run(t, sizeof(s) - 1, 0, EVP_FIRST, &b, &r);
		CHECK_EQ_INT(b.n, 2);
		CHECK_EQ_INT(strtab_count(&b.strs), 3);
		CHECK_EQ_INT(b.ev[0].ph, b.ev[1].ph);
		CHECK_EQ_MEM(strtab_str(&b.strs, b.ev[1].name), strtab_len(&b.strs, b.ev[1].name),
			     "b\n", 2);
	}
	/* many events grow the array */
	{
		size_t n = 10000;
		struct buf big;

		buf_init(&big);
		for (size_t i = 0; i < n; i++)
			buf_printf(&big, "%s{\"name\":\"e%zu\",\"ts\":%zu.5}", i ? "," : "",
				   i % 100, i);
		event_batch_reset(&b);
		evparse_run(big.data, big.len, 0, EVP_FIRST, &b, &r);
		CHECK_EQ_INT(b.n, n);
		CHECK_EQ_INT(r.end, EVP_CLEAN);
		CHECK_EQ_INT(strtab_count(&b.strs), 100);
		CHECK_EQ_INT(b.ev[n - 1].ts_ns, (int64_t)(n - 1) * 1000 + 500);
		buf_release(&big);
	}
	event_batch_release(&b);
	free(t);
}

/* ---- the key memo ---- */

/*
 * Events that share runs between their values, and ones that differ from a
 * learned run only after it (more spaces, a tab, another type of value), or
 * in an escape, or that no memo can hold (long keys, many keys in one place).
 */
static const char *const shapes[] = {
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 2,\n"
	"    \"ts\": 10, \"dur\": 5,\n    \"args\": {\n      \"External id\": 3,\"Ev Idx\": 0\n"
	"    }\n  }",
	"{\"ph\": \"X\", \"cat\":  \"cpu_op\", \"name\": \"two spaces\", \"pid\": 1, \"tid\": 2,\n"
	"    \"ts\": 11, \"dur\": 5,\n    \"args\": {\n      \"External id\":  4,\"Ev Idx\": 0\n"
	"    }\n  }",
	"{\"ph\": \"X\", \"cat\":\t\"kernel\", \"name\": \"tab\", \"pid\": 1, \"tid\": 2,\n"
	"    \"ts\": 12, \"dur\":\n5,\n    \"args\": {\n      \"correlation\": 5\n    }\n  }",
	"{\"ph\": \"X\", \"cat\": 7, \"name\": \"number cat\", \"pid\": \"1\", \"tid\": 2.5,\n"
	"    \"ts\": \"13.25\", \"dur\": -5,\n    \"args\": {\n"
	"      \"External id\": [1, 2],\"Ev Idx\": {}\n    }\n  }",
	"{\"ph\": \"X\", \"c\\u0061t\": \"escaped key\", \"name\": \"e\\n\", "
	"\"pid\": 1, \"tid\": 2,\n"
	"    \"ts\": 14, \"dur\": 5,\n    \"args\": {\n      \"External\\u0020id\": 6\n    }\n  }",
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,"
	"\"ts\":15,\"dur\":1,\"args\":{\"correlation\":7,\"External id\":8}}",
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,"
	"\"ts\":16 ,\"dur\":1,\"args\":{\"correlation\" :9,\"External id\":10 } }",
	"{\"ph\": \"f\", \"id\": 11, \"pid\": 1, \"tid\": 7, \"ts\": 17,\n"
	"    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
	"{\"ph\": \"f\", \"idx\": 12, \"pid\": 1, \"tid\": 7, \"ts\": 18, \"ts\": 19,\n"
	"    \"cat\": \"ac2g\", \"name\": \"dup ts\", \"bp\": \"e\"\n  }",
	"{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, "
	"\"tid\": 1,\n    \"ts\": 20,\n    \"args\": {\n"
	"      \"Total Reserved\": 2097152, \"Total Allocated\": 1024, "
	"\"Bytes\": -512, \"Device Id\": 0\n    }\n  }",
	"{\"ph\": \"X\", \"a_key_far_longer_than_what_the_memo_of_runs_keeps_whole\": 1, "
	"\"name\": \"long key\", \"ts\": 21}",
	"{}",
	"{ }",
	"{\"ph\": \"X\", \"name\": \"close with spaces\", \"ts\": 22 }",
	"{\"ph\": \"X\", \"name\": \"args not an object\", \"ts\": 23, \"args\": 5}",
	"{\"ph\": \"X\", \"name\": \"args at the start\", \"args\": {\"stream\": 7, \"device\": "
	"1}, \"ts\": 24}",
};

#define NR_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

/*
 * Thousands of events of the shapes above in a pseudo-random order, and
 * ones with a key of their own in one place (more than a node of the memo
 * has children, and than it has nodes), parsed as one run: each event must
 * give what it gives parsed alone, where the memo is empty.
 */
static void test_memo(void)
{
	struct buf text, want;
	struct parsed p;
	uint32_t x = 12345;
	size_t n = 3000;

	buf_init(&text);
	buf_init(&want);
	for (size_t i = 0; i < n; i++) {
		char own[128];
		const char *ev;
		struct parsed alone;

		x = x * 1103515245u + 12345u;
		if ((x >> 16) % 4 == 0) {
			snprintf(own, sizeof(own), "{\"ph\": \"X\", \"k%zu\": %zu, \"ts\": %zu}",
				 i % 300, i, i);
			ev = own;
		} else {
			ev = shapes[(x >> 16) % NR_SHAPES];
		}
		buf_printf(&text, "%s%s", i ? ",\n  " : "", ev);
		parse(ev, strlen(ev), 0, EVP_FIRST, &alone);
		CHECK_EQ_INT(alone.r.end, EVP_CLEAN);
		buf_add(&want, alone.lines.data, alone.lines.len);
		parsed_release(&alone);
	}
	parse(text.data, text.len, 0, EVP_FIRST, &p);
	CHECK_EQ_INT(p.rc, 0);
	CHECK_EQ_INT(p.r.end, EVP_CLEAN);
	CHECK_EQ_MEM(p.lines.data, p.lines.len, want.data, want.len);
	parsed_release(&p);
	buf_release(&text);
	buf_release(&want);
}

int main(void)
{
	event_batch_init(&shared_batch);
	test_fields();
	test_shapes();
	test_bad_time_string();
	test_not_objects();
	test_end_states();
	test_cuts();
	test_batch_reuse();
	test_memo();
	event_batch_release(&shared_batch);
	return check_done("test_evparse");
}
