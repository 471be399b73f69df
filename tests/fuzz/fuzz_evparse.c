/*
 * fuzz_evparse: libFuzzer target for the JSON scanner and the event parser,
 * driven the way trace_read drives them but without threads or files.
 *
 * 1. evparse_run over the whole input, then over a prefix and the rest
 *    resumed from where the prefix ended (as the reader resumes after a
 *    chunk boundary).  Invariants: positions and error offsets lie in the
 *    input, no more events than bytes, and prefix + rest give the same
 *    events, end, state, offsets and counts as the whole: a cut may only
 *    ever turn into EVP_PARTIAL / EVP_CLEAN, never into a different result.
 * 2. A small reader: trace_top_feed in pieces of an input-derived size until
 *    the events array begins, evparse over the array in chunks with an
 *    unfinished event carried into the next one, then the epilogue back to
 *    trace_top and trace_top_finish.  Its events must equal one evparse of
 *    the whole array text.
 *
 * Any broken invariant aborts, so libFuzzer keeps the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "event.h"
#include "evparse.h"
#include "jscan.h"
#include "trace_read.h"
#include "trace_top.h"

#define FUZZ_NAME "fuzz_evparse"
#include "fuzz.h"

/* Fold every event of b, all its meaningful fields, into h. */
static uint64_t hash_events(uint64_t h, const struct event_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *e = &b->ev[i];
		static const uint32_t flags[] = {
			EV_CORRELATION, EV_EXTERNAL_ID, EV_FLOW_ID,     EV_STREAM,
			EV_DEVICE,	EV_MEM_ALLOCATED, EV_MEM_RESERVED, EV_MEM_BYTES,
			EV_IN_NELEMS,	EV_OUT_NELEMS,	EV_GROUP_SIZE,
		};
		const int64_t *vals[] = {
			&e->correlation, &e->external_id,   &e->flow_id,      &e->stream,
			&e->device,	 &e->mem_allocated, &e->mem_reserved, &e->mem_bytes,
			&e->in_nelems,	 &e->out_nelems,    &e->group_size,
		};

		h = fnv(h, &e->flags, sizeof(e->flags));
		h = fnv(h, &e->phase, 1);
		h = hash_str(h, b, e->ph);
		h = hash_str(h, b, e->name);
		h = hash_str(h, b, e->cat);
		h = hash_str(h, b, e->pid);
		h = hash_str(h, b, e->tid);
		h = hash_str(h, b, e->coll_name);
		if (e->flags & EV_TS)
			h = fnv(h, &e->ts_ns, sizeof(e->ts_ns));
		if (!(e->flags & EV_DUR) && e->dur_ns != 0)
			FAIL("dur_ns %lld without EV_DUR", (long long)e->dur_ns);
		h = fnv(h, &e->dur_ns, sizeof(e->dur_ns));
		for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (e->flags & flags[k])
				h = fnv(h, vals[k], sizeof(int64_t));
		if (e->ph && e->phase &&
		    (strtab_len(&b->strs, e->ph) != 1 ||
		     strtab_str(&b->strs, e->ph)[0] != e->phase))
			FAIL("phase %d does not match ph", e->phase);
		if (e->ph > strtab_count(&b->strs) || e->name > strtab_count(&b->strs))
			FAIL("string id out of range");
	}
	return h;
}

struct run {
	struct evparse_result r;
	size_t n;
	uint64_t h;
};

static struct event_batch batch;

/* evparse text[0..len) (a heap block of exactly len bytes) and check it. */
static void run(const char *text, size_t len, int64_t off, enum evparse_state st, uint64_t h,
		struct run *out)
{
	int rc;

	event_batch_reset(&batch);
	rc = evparse_run(text, len, off, st, &batch, &out->r);
	ASSERT(rc == 0, "evparse_run returned %d (%s)", rc, out->r.err.msg);
	out->n = batch.n;
	out->h = hash_events(h, &batch);
	ASSERT(out->n <= len, "%zu events from %zu bytes", out->n, len);
	ASSERT(out->r.pos <= len, "pos %zu > len %zu", out->r.pos, len);
	ASSERT((size_t)out->r.nr_not_object <= out->n, "nr_not_object");
	/* events with bad times are left out: each was an element all the same */
	ASSERT((size_t)out->r.nr_bad_time + out->n <= len, "nr_bad_time");
	ASSERT(!out->r.nr_bad_time || out->r.bad_time_pos < len, "bad_time_pos %zu of %zu",
	       out->r.bad_time_pos, len);
	switch (out->r.end) {
	case EVP_CLEAN:
		ASSERT(out->r.pos == len, "clean end at %zu of %zu", out->r.pos, len);
		ASSERT(out->r.state <= EVP_VALUE, "state %d", out->r.state);
		break;
	case EVP_PARTIAL:
		ASSERT(out->r.pos < len, "partial at %zu of %zu", out->r.pos, len);
		ASSERT(text[out->r.pos] != ' ' && text[out->r.pos] != '\n' &&
			       text[out->r.pos] != '\t' && text[out->r.pos] != '\r' &&
			       text[out->r.pos] != ',',
		       "partial element starts with %#x", (unsigned char)text[out->r.pos]);
		ASSERT(out->r.state == EVP_FIRST || out->r.state == EVP_VALUE, "partial state %d",
		       out->r.state);
		break;
	case EVP_ARRAY_END:
		ASSERT(out->r.pos >= 1 && text[out->r.pos - 1] == ']', "array end at %zu",
		       out->r.pos);
		break;
	case EVP_ERROR:
		ASSERT(out->r.err.offset >= off && out->r.err.offset <= off + (int64_t)len,
		       "error offset %lld outside [%lld, %lld]", (long long)out->r.err.offset,
		       (long long)off, (long long)(off + (int64_t)len));
		ASSERT(out->r.err.msg[0] != '\0', "error without a message");
		ASSERT(out->r.pos == (size_t)(out->r.err.offset - off), "error pos");
		break;
	default:
		FAIL("end %d", out->r.end);
	}
}

static char *copy(const char *s, size_t n)
{
	char *p = malloc(n ? n : 1);

	if (!p)
		abort();
	memcpy(p, s, n);
	return p;
}

/* Whole versus prefix + resumed rest, from state st. */
static void check_split(const char *data, size_t size, size_t k, enum evparse_state st)
{
	struct run whole, pre, rest;
	char *w = copy(data, size), *p = copy(data, k), *q;
	size_t at;

	run(w, size, 0, st, 14695981039346656037ull, &whole);
	run(p, k, 0, st, 14695981039346656037ull, &pre);
	free(p);
	if (pre.r.end == EVP_ARRAY_END || pre.r.end == EVP_ERROR) {
		/* decided before the cut: the whole says the same */
		ASSERT(whole.r.end == pre.r.end && whole.r.pos == pre.r.pos && whole.h == pre.h &&
			       whole.r.err.offset == pre.r.err.offset,
		       "cut at %zu: prefix ends %d at %zu (%s), whole %d at %zu (%s)", k, pre.r.end,
		       pre.r.pos, pre.r.err.msg, whole.r.end, whole.r.pos, whole.r.err.msg);
		free(w);
		return;
	}
	at = pre.r.pos;
	q = copy(data + at, size - at);
	run(q, size - at, (int64_t)at, pre.r.state, pre.h, &rest);
	free(q);
	ASSERT(rest.r.end == whole.r.end, "cut at %zu (resume at %zu): end %d (%s), whole %d (%s)",
	       k, at, rest.r.end, rest.r.err.msg, whole.r.end, whole.r.err.msg);
	ASSERT(rest.h == whole.h && pre.n + rest.n == whole.n,
	       "cut at %zu: %zu + %zu events differ from the whole's %zu", k, pre.n, rest.n,
	       whole.n);
	ASSERT(pre.r.nr_not_object + rest.r.nr_not_object == whole.r.nr_not_object &&
		       pre.r.nr_bad_time + rest.r.nr_bad_time == whole.r.nr_bad_time,
	       "cut at %zu: counts differ", k);
	switch (whole.r.end) {
	case EVP_CLEAN:
		ASSERT(rest.r.state == whole.r.state, "cut at %zu: state", k);
		break;
	case EVP_PARTIAL:
		ASSERT(rest.r.state == whole.r.state && at + rest.r.pos == whole.r.pos,
		       "cut at %zu: partial", k);
		break;
	case EVP_ARRAY_END:
		ASSERT(at + rest.r.pos == whole.r.pos, "cut at %zu: array end %zu + %zu vs %zu", k,
		       at, rest.r.pos, whole.r.pos);
		break;
	case EVP_ERROR:
		ASSERT(rest.r.err.offset == whole.r.err.offset &&
			       strcmp(rest.r.err.msg, whole.r.err.msg) == 0,
		       "cut at %zu: error \"%s\" at %lld, whole \"%s\" at %lld", k, rest.r.err.msg,
		       (long long)rest.r.err.offset, whole.r.err.msg,
		       (long long)whole.r.err.offset);
		break;
	}
	free(w);
}

/* ---- the small reader ---- */

/*
 * Events of the array body text[0..len) (at input offset off) parsed in
 * chunks of `chunk` bytes, an unfinished element carried into the next
 * chunk as trace_read does.  *out gets the last result, with pos made
 * relative to text, and the events of all chunks in n and h.
 */
static void chunked(const char *text, size_t len, int64_t off, size_t chunk, struct run *out)
{
	struct buf carry;
	enum evparse_state st = EVP_FIRST;
	int64_t carry_off = off;	/* input offset of carry.data[0] */
	size_t at = 0, n = 0;
	uint64_t h = 14695981039346656037ull;

	buf_init(&carry);
	for (;;) {
		size_t piece = len - at < chunk ? len - at : chunk;
		char *t;
		struct run r;

		buf_add(&carry, text + at, piece);
		at += piece;
		t = copy(carry.data ? carry.data : "", carry.len);
		run(t, carry.len, carry_off, st, h, &r);
		free(t);
		h = r.h;
		n += r.n;
		if (r.r.end == EVP_ARRAY_END || r.r.end == EVP_ERROR || at == len) {
			*out = r;
			out->r.pos += (size_t)(carry_off - off);
			break;
		}
		if (r.r.end == EVP_CLEAN) {
			carry_off += (int64_t)carry.len;
			buf_reset(&carry);
		} else {
			memmove(carry.data, carry.data + r.r.pos, carry.len - r.r.pos);
			carry.len -= r.r.pos;
			carry_off += (int64_t)r.r.pos;
		}
		st = r.r.state;
	}
	out->n = n;
	out->h = h;
	buf_release(&carry);
}

static void small_reader(const char *data, size_t size, size_t piece, size_t chunk)
{
	struct trace_info info;
	struct trace_top top;
	struct err e;
	size_t at = 0;
	int rc = 0;

	memset(&info, 0, sizeof(info));
	info.rank = info.world_size = -1;
	trace_top_init(&top, &info);
	err_clear(&e);
	while (at < size) {
		size_t n = size - at < piece ? size - at : piece;

		rc = trace_top_feed(&top, data + at, n, (int64_t)at, &e);
		at += n;
		if (rc != 0)
			break;
	}
	if (rc == 0)
		rc = trace_top_drain(&top, &e);
	if (rc < 0) {
		ASSERT(e.offset >= -1 && e.offset <= (int64_t)size, "top error offset %lld",
		       (long long)e.offset);
		ASSERT(e.msg[0], "top error without message");
		goto out;
	}
	if (rc == 1) {
		/* the array body starts just after a '[' */
		size_t start = at - top.pend.len;
		struct run whole, parts;
		char *w;

		ASSERT(start >= 1 && start <= size && data[start - 1] == '[',
		       "events begin at %zu", start);
		ASSERT(top.pend.len == 0 || memcmp(top.pend.data, data + start, top.pend.len) == 0,
		       "pending text is not the input");
		trace_top_take(&top);
		w = copy(data + start, size - start);
		run(w, size - start, (int64_t)start, EVP_FIRST, 14695981039346656037ull, &whole);
		free(w);
		chunked(data + start, size - start, (int64_t)start, chunk, &parts);
		ASSERT(parts.h == whole.h && parts.n == whole.n,
		       "chunked (%zu) events %zu, whole %zu", chunk, parts.n, whole.n);
		ASSERT(parts.r.end == whole.r.end && parts.r.pos == whole.r.pos,
		       "chunked (%zu) end %d at %zu, whole %d at %zu (%s)", chunk, parts.r.end,
		       parts.r.pos, whole.r.end, whole.r.pos, whole.r.err.msg);
		if (whole.r.end == EVP_CLEAN || whole.r.end == EVP_PARTIAL)
			ASSERT(parts.r.state == whole.r.state, "chunked state");
		if (whole.r.end == EVP_ERROR)
			ASSERT(parts.r.err.offset == whole.r.err.offset &&
				       strcmp(parts.r.err.msg, whole.r.err.msg) == 0,
			       "chunked error \"%s\" at %lld, whole \"%s\" at %lld",
			       parts.r.err.msg, (long long)parts.r.err.offset, whole.r.err.msg,
			       (long long)whole.r.err.offset);
		if (whole.r.end == EVP_ARRAY_END) {
			size_t epi = start + whole.r.pos;

			trace_top_events_done(&top);
			for (at = epi; at < size;) {
				size_t n = size - at < piece ? size - at : piece;

				if (trace_top_feed(&top, data + at, n, (int64_t)at, &e) < 0)
					break;
				at += n;
			}
		}
	}
	if (trace_top_finish(&top, (int64_t)size, &e) < 0)
		ASSERT(e.msg[0] && e.offset >= -1 && e.offset <= (int64_t)size,
		       "finish error offset %lld", (long long)e.offset);
	for (size_t i = 0; i < info.nr_warnings; i++)
		ASSERT(info.warnings[i].offset >= -1 && info.warnings[i].offset <= (int64_t)size,
		       "warning offset %lld", (long long)info.warnings[i].offset);
	ASSERT(info.nr_devices <= TRACE_MAX_DEVICES, "devices");
	for (size_t i = 0; i < info.nr_devices; i++)
		ASSERT(memchr(info.devices[i].name, 0, sizeof(info.devices[i].name)) != NULL,
		       "device name not terminated");
out:
	trace_top_release(&top);
}

/* A number and a string at the start of the input, through the lexers. */
static void lexers(const char *data, size_t size)
{
	struct arena a;
	struct err e;
	struct jscan js;
	char *t = copy(data, size);
	const char *p = t, *s;
	size_t n;
	int64_t v;
	int rc;

	arena_init(&a);
	err_clear(&e);
	jscan_init(&js, t, size, 0, &a, &e);
	if (size && *t == '"') {
		rc = jscan_string(&js, &p, &s, &n);
		if (rc == JS_OK) {
			ASSERT(p > t && p <= t + size && p[-1] == '"', "string end");
			ASSERT(n <= (size_t)(p - t) - 2, "decoded %zu longer than %zu", n,
			       (size_t)(p - t) - 2);
			if (jscan_number_text(s, n, 3, &v) == JS_OK) {
				/* the same digits as a bare number, followed by a delimiter */
				char *num = malloc(n + 1);
				const char *q = num;
				struct jscan js2;
				int64_t v2;

				if (!num)
					abort();
				memcpy(num, s, n);
				num[n] = ',';
				jscan_init(&js2, num, n + 1, 0, &a, &e);
				rc = jscan_number(&js2, &q, 3, &v2);
				ASSERT(rc == JS_OK && v2 == v && q == num + n,
				       "number text %lld vs number %lld (rc %d)", (long long)v,
				       (long long)v2, rc);
				free(num);
			}
		} else if (rc == JS_MORE) {
			ASSERT(p == t, "moved on JS_MORE");
		} else {
			ASSERT(e.offset >= 0 && e.offset < (int64_t)size, "string error offset");
		}
	} else if (size) {
		rc = jscan_skip(&js, &p);
		ASSERT(p >= t && p <= t + size, "skip end");
		if (rc == JS_BAD)
			ASSERT(e.offset >= 0 && e.offset <= (int64_t)size, "skip error offset %lld",
			       (long long)e.offset);
	}
	arena_release(&a);
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	uint64_t h = fnv(14695981039346656037ull, data, size < 64 ? size : 64);
	static int init;

	if (!init) {
		event_batch_init(&batch);
		init = 1;
	}
	lexers(d, size);
	check_split(d, size, size ? (size_t)(h % (size + 1)) : 0, EVP_FIRST);
	check_split(d, size, size ? (size_t)((h >> 20) % (size + 1)) : 0,
		    (enum evparse_state)((h >> 40) % 3));
	small_reader(d, size, 1 + (size_t)((h >> 8) % 97), 1 + (size_t)((h >> 16) % 300));
	return 0;
}
