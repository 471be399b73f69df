/*
 * test_jsimd: the vector and scalar scanner paths give the same answers.
 *
 * Each search of every level this CPU runs (scalar, SSE2, AVX2) is run over
 * the same random texts, built from the bytes that matter (quotes,
 * backslashes, brackets, the four whitespace bytes) and their near misses
 * (bytes that differ from them in one bit, high bytes), at every start
 * offset, and compared with a byte loop written here.  Then the scanner
 * itself (strings with escapes, skipped values, numbers) is run at each
 * level with quotes and backslashes placed across the 16- and 32-byte
 * block boundaries, and compared across levels and with the slow paths it
 * replaces: jscan_skip_fast with jscan_skip, jscan_number_quick and
 * jscan_skip_number with jscan_number (the same end, and for a bad
 * number the same message at the same offset).  Texts sit in blocks of
 * exactly their length, so a read past the end trips ASan.
 */
#include "evparse.h"
#include "jscan.h"
#include "jsimd.h"

#include "check.h"

static const char alphabet[] = "\"\\[]{} \n\r\t"
			       "\x02\x22\x5a\x5c\x7a\x7c\x7e\x5e\x3b\x7b"	/* near misses */
			       "a0:,\xa2\xdb\xfd\xfb\xa0\x80\xff";

static char *exact(const char *s, size_t n)
{
	char *p = check_xmalloc(n ? n : 1);

	memcpy(p, s, n);
	return p;
}

static const char *ref_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static const char *ref_quote(const char *p, const char *end)
{
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

static const char *ref_struct(const char *p, const char *end)
{
	while (p < end && !strchr("\"[]{}", *p))
		p++;
	return p;
}

/* The three searches of every level against the byte loops above. */
static void test_searches(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	int levels = 0;

	for (int lv = 0; lv < JSIMD_NR_LEVELS; lv++) {
		const struct jsimd_ops *ops = jsimd_ops_of((enum jsimd_level)lv);

		if (!ops)
			continue;
		levels++;
		for (int round = 0; round < 3000; round++) {
			size_t n = check_rand(&seed) % 100;
			char buf[100];
			int sparse = round % 3;	/* mostly letters: long runs to search */
			char *t;

			for (size_t i = 0; i < n; i++) {
				uint64_t r = check_rand(&seed);

				buf[i] = sparse && r % 8 ? (r % 2 ? 'x' : ' ')
							 : alphabet[r % (sizeof(alphabet) - 1)];
			}
			t = exact(buf, n);
			for (size_t off = 0; off <= n; off++) {
				const char *end = t + n, *p = t + off;

				CHECKF(ops->skip_ws(p, end) == ref_ws(p, end),
				       "level %d n %zu off %zu", lv, n, off);
				CHECKF(ops->find_quote(p, end) == ref_quote(p, end),
				       "level %d n %zu off %zu", lv, n, off);
				CHECKF(ops->find_struct(p, end) == ref_struct(p, end),
				       "level %d n %zu off %zu", lv, n, off);
			}
			free(t);
		}
	}
	CHECK(levels >= 1);
	CHECK(jsimd_ops_of(JSIMD_SCALAR) != NULL);
#if defined(__x86_64__)
	CHECK(jsimd_ops_of(JSIMD_SSE2) != NULL);
#endif
}

/* What one scanner call gave, to compare across levels. */
struct outcome {
	int rc;
	long used;
	int64_t value;
	char text[160];
	int64_t err_at;		/* the error's offset and message on JS_BAD */
	char why[sizeof(((struct err *)0)->msg)];
};

enum op { OP_STRING, OP_SKIP, OP_SKIP_FAST, OP_NUMBER, OP_NUMBER_QUICK, OP_SKIP_NUMBER };

static struct outcome run_op(enum op op, const char *s, size_t n)
{
	struct outcome o = { 0 };
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = exact(s, n);
	const char *p = t, *str = NULL;
	size_t len = 0;

	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, n, 0, &a, &e);
	switch (op) {
	case OP_STRING:
		o.rc = jscan_string(&js, &p, &str, &len);
		if (o.rc == JS_OK && len < sizeof(o.text))
			memcpy(o.text, str, len);
		break;
	case OP_SKIP:
		o.rc = jscan_skip(&js, &p);
		break;
	case OP_SKIP_FAST:
		o.rc = jscan_skip_fast(&js, &p);
		break;
	case OP_NUMBER:
		o.rc = jscan_number(&js, &p, 3, &o.value);
		break;
	case OP_NUMBER_QUICK:
		o.rc = jscan_number_quick(&js, &p, 3, &o.value);
		break;
	case OP_SKIP_NUMBER:
		o.rc = jscan_skip_number(&js, &p);
		break;
	}
	if (o.rc == JS_BAD) {
		o.err_at = e.offset;
		snprintf(o.why, sizeof(o.why), "%s", e.msg);
	}
	o.used = (long)(p - t);
	if (o.rc == JS_RANGE || o.rc == JS_BAD)
		o.value = 0;
	arena_release(&a);
	free(t);
	return o;
}

static int same(const struct outcome *x, const struct outcome *y)
{
	return x->rc == y->rc && x->used == y->used && x->value == y->value &&
	       !memcmp(x->text, y->text, sizeof(x->text)) && x->err_at == y->err_at &&
	       !strcmp(x->why, y->why);
}

/* op on s at every level gives what it gives at the scalar level. */
static void check_levels(enum op op, const char *s, size_t n)
{
	struct outcome ref, o;

	jsimd_use(JSIMD_SCALAR);
	ref = run_op(op, s, n);
	for (int lv = 1; lv < JSIMD_NR_LEVELS; lv++) {
		if (!jsimd_ops_of((enum jsimd_level)lv))
			continue;
		jsimd_use((enum jsimd_level)lv);
		o = run_op(op, s, n);
		CHECKF(same(&ref, &o), "op %d level %d on \"%.*s\": rc %d/%d used %ld/%ld", op, lv,
		       (int)n, s, ref.rc, o.rc, ref.used, o.used);
	}
}

/*
 * Strings and skipped values with a quote or backslash at each offset
 * around the block boundaries, so a block ends just before, on and after it.
 */
static void test_boundaries(void)
{
	static const char *const fills[] = { "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00",
					     "\"", "[", "]}", "{\"k\":[1,\"]\"]}" };
	char s[200], v[220];

	for (size_t at = 0; at < 70; at++) {
		for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
			size_t n = 0, m;

			s[n++] = '"';
			for (size_t i = 0; i < at; i++)
				s[n++] = (char)('a' + i % 26);
			m = strlen(fills[f]);
			memcpy(s + n, fills[f], m);
			n += m;
			for (size_t i = 0; i < 40; i++)
				s[n++] = i % 7 ? 'z' : ' ';
			s[n++] = '"';
			check_levels(OP_STRING, s, n);
			for (size_t cut = 1; cut < n; cut += 5)
				check_levels(OP_STRING, s, cut);	/* JS_MORE at each level */

			/* The same string inside a value to skip, after a run of spaces. */
			m = (size_t)snprintf(v, sizeof(v),
					     "%*s[{\"a\": %.*s}, [[1, 2], [3]], \"x\"] ,",
					     (int)(at % 40), "", (int)n, s);
			check_levels(OP_SKIP_FAST, v, m);
			check_levels(OP_SKIP, v, m);
			for (size_t cut = 0; cut < m; cut += 3)
				check_levels(OP_SKIP_FAST, v, cut);
		}
	}
}

/* jscan_skip_fast ends where jscan_skip does on valid JSON, and checks nesting. */
static void test_skip_fast(void)
{
	static const char *const valid[] = {
		"[]", "{}", "[[[]]]", "{\"a\":{\"b\":[1,2,{\"c\":\"]}\"}]}}",
		"[\"\\\\\", \"\\\"]\", {\"Input Dims\": [[1, 3, 224, 224], [64]]}] tail",
		"  {\"Concrete Inputs\": [\"\", \"[1, 2]\", \"{\"], \"n\": -1.5e3, \"t\": true}",
		"\"plain\"", "12345,", "-0.5]", "null,", "true}",
	};
	static const char *const bad[] = { "[}", "{]", "[[]}", "{\"a\":[}]" };

	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		size_t n = strlen(valid[i]);
		struct outcome slow = run_op(OP_SKIP, valid[i], n);
		struct outcome fast = run_op(OP_SKIP_FAST, valid[i], n);

		CHECKF(slow.rc == JS_OK && same(&slow, &fast), "%s: rc %d/%d used %ld/%ld",
		       valid[i], slow.rc, fast.rc, slow.used, fast.used);
		check_levels(OP_SKIP_FAST, valid[i], n);
		/* Cut anywhere inside, both say the value goes on. */
		for (size_t cut = 0; cut < (size_t)slow.used; cut++) {
			struct outcome c = run_op(OP_SKIP_FAST, valid[i], cut);

			if (valid[i][0] == '[' || valid[i][0] == '{' || valid[i][0] == ' ')
				CHECKF(c.rc == JS_MORE,
				       "%s cut at %zu: rc %d", valid[i], cut, c.rc);
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECKF(run_op(OP_SKIP_FAST, bad[i], strlen(bad[i])).rc == JS_BAD, "%s", bad[i]);

	/* 512 levels are accepted, 513 are not, as jscan_skip does. */
	for (int depth = 511; depth <= 513; depth++) {
		char *t = check_xmalloc(2 * (size_t)depth);

		memset(t, '[', (size_t)depth);
		memset(t + depth, ']', (size_t)depth);
		CHECK_EQ_INT(run_op(OP_SKIP_FAST, t, 2 * (size_t)depth).rc,
			     run_op(OP_SKIP, t, 2 * (size_t)depth).rc);
		free(t);
	}
}

/* The inline integer path against the general one, on every kind of number. */
/*
 * jscan_skip_number on s ends where jscan_number ends (slow), with its
 * error where it has one, at every level; a value too large is no error.
 */
static void check_skip_number(const struct outcome *slow, const char *s, size_t n)
{
	struct outcome skip = run_op(OP_SKIP_NUMBER, s, n), want = *slow;

	if (want.rc == JS_RANGE)
		want.rc = JS_OK;
	want.value = 0;
	CHECKF(same(&want, &skip), "skip \"%.*s\": rc %d/%d used %ld/%ld", (int)n, s, want.rc,
	       skip.rc, want.used, skip.used);
	check_levels(OP_SKIP_NUMBER, s, n);
}

static void test_numbers(void)
{
	static const char *const tails[] = { "", ",", "}", " ", ".", "e", "E", "5", "]" };
	uint64_t seed = 12345;
	char s[64];

	for (int round = 0; round < 20000; round++) {
		size_t n = 0, digits = 1 + check_rand(&seed) % 24;
		uint64_t r = check_rand(&seed);

		if (r % 7 == 0)
			s[n++] = '-';
		for (size_t i = 0; i < digits; i++)
			s[n++] = (char)('0' + check_rand(&seed) % 10);
		if (r % 5 == 0) {
			s[n++] = '.';
			for (size_t i = 0, f = check_rand(&seed) % 12; i <= f; i++)
				s[n++] = (char)('0' + check_rand(&seed) % 10);
		}
		if (r % 11 == 0)
			n += (size_t)snprintf(s + n, 8, "e%d", (int)(check_rand(&seed) % 30) - 15);
		{
			const char *tail = tails[(r >> 8) % (sizeof(tails) / sizeof(tails[0]))];
			size_t k = strlen(tail);
			struct outcome slow, quick;

			memcpy(s + n, tail, k);
			slow = run_op(OP_NUMBER, s, n + k);
			quick = run_op(OP_NUMBER_QUICK, s, n + k);
			CHECKF(same(&slow, &quick), "\"%.*s\": rc %d/%d value %" PRId64 "/%" PRId64,
			       (int)(n + k), s, slow.rc, quick.rc, slow.value, quick.value);
			check_skip_number(&slow, s, n + k);
		}
	}
	/* The largest values that fit, and one past. */
	{
		static const char *const edge[] = { "9223372036854775,", "9223372036854776,",
						    "999999999999999999,", "9223372036854775807,",
						    "9223372036854775.807,",
						    "9223372036854775.808,",
						    "9223372036854775.999,",
						    "9223372036854774.999,",
						    "1.,", "0.000001,", "1712195495541300.987654]",
						    "-1,", "-524288}", "-0,", "-0.5,", "-,", "--1,",
						    "-9223372036854775807,",
						    "-9223372036854775808,",
						    "-9223372036854775.808,",
						    "-9223372036854775.809," };

		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
			struct outcome slow = run_op(OP_NUMBER, edge[i], strlen(edge[i]));
			struct outcome quick = run_op(OP_NUMBER_QUICK, edge[i], strlen(edge[i]));

			CHECKF(same(&slow, &quick), "%s", edge[i]);
			check_skip_number(&slow, edge[i], strlen(edge[i]));
		}
	}
}

/* A digest of what evparse made of text: every field of every event. */
static uint64_t parse_digest(const char *text, size_t n, size_t *nr_events, int *end)
{
	struct event_batch b;
	struct evparse_result r;
	uint64_t h = 1469598103934665603u;
	char *t = exact(text, n);

	event_batch_init(&b);
	evparse_run(t, n, 0, EVP_FIRST, &b, &r);
	*nr_events = b.n;
	*end = (int)r.end;
	for (size_t i = 0; i < b.n; i++) {
		const struct trace_event *ev = &b.ev[i];
		int64_t f[] = { ev->flags, ev->ts_ns, ev->dur_ns, ev->phase,
				ev->flags & EV_CORRELATION ? ev->correlation : 0,
				ev->flags & EV_EXTERNAL_ID ? ev->external_id : 0,
				ev->flags & EV_STREAM ? ev->stream : 0 };
		uint32_t ids[] = { ev->ph, ev->name, ev->cat, ev->pid, ev->tid, ev->arg_name };

		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			h = (h ^ (uint64_t)f[k]) * 1099511628211u;
		for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
			const char *s = ids[k] ? strtab_str(&b.strs, ids[k]) : "";
			size_t len = ids[k] ? strtab_len(&b.strs, ids[k]) : 0;

			for (size_t j = 0; j < len; j++)
				h = (h ^ (unsigned char)s[j]) * 1099511628211u;
			h = (h ^ len) * 1099511628211u;
		}
	}
	event_batch_release(&b);
	free(t);
	return h;
}

/*
 * Whole events, pretty-printed and compact, with names whose quotes and
 * escapes fall on every offset of a block: evparse gives the same events
 * at every level.
 */
static void test_events(void)
{
	char text[4096];

	for (int pad = 0; pad < 40; pad++) {
		for (int pretty = 0; pretty < 2; pretty++) {
			const char *sp = pretty ? "\n    " : "";
			int n = snprintf(text, sizeof(text),
				"{%s\"ph\": \"X\",%s\"cat\": \"kernel\",%s\"name\": "
				"\"%.*sk\\\"q\\\\\",%s"
				"\"pid\": 0, \"tid\": \"stream 7\",%s\"ts\": 1712195495541300.987,"
				"%s\"dur\": 12.5,%s\"args\": {\"Input Dims\": [[1, 3], [%d]], "
				"\"correlation\": %d, \"Concrete Inputs\": [\"\", \"]\\\"\"], "
				"\"stream\": 7, \"External id\": 12345678901}%s},"
				"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":-1,\"tid\":%d,"
				"\"args\":{\"name\":\"%.*sworker\"}}]",
				sp, sp, sp, pad, "................................................",
				sp, sp, sp, sp, pad, pad * 1000, sp, pad,
				pad, "________________________________________________");
			size_t ref_n, o_n;
			int ref_end, o_end;
			uint64_t ref;

			jsimd_use(JSIMD_SCALAR);
			ref = parse_digest(text, (size_t)n, &ref_n, &ref_end);
			CHECK_EQ_INT(ref_n, 2);
			CHECK_EQ_INT(ref_end, EVP_ARRAY_END);
			for (int lv = 1; lv < JSIMD_NR_LEVELS; lv++) {
				if (!jsimd_ops_of((enum jsimd_level)lv))
					continue;
				jsimd_use((enum jsimd_level)lv);
				CHECKF(parse_digest(text, (size_t)n, &o_n, &o_end) == ref &&
					       o_n == ref_n && o_end == ref_end,
				       "level %d pad %d pretty %d", lv, pad, pretty);
			}
		}
	}
}

int main(void)
{
	enum jsimd_level start = jsimd_level();

	test_searches();
	test_boundaries();
	test_skip_fast();
	test_numbers();
	test_events();
	jsimd_use(start);
	return check_done("test_jsimd");
}
