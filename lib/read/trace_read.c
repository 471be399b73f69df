/*
 * trace_read: see trace_read.h.
 *
 * Threading.  One file is read by a small pipeline of three kinds of work
 * over a ring of slots, each slot holding one chunk of text and its parse:
 *
 *   produce  inflate the next chunk (256 KiB) into a free slot and cut
 *            it after a '}' that is followed by ',' and '{' (an event
 *            boundary, almost always; never a newline, as many traces are
 *            one line);
 *   parse    turn a filled slot's text into an event batch;
 *   merge    check the slot's guessed start state against the real end
 *            state of the chunk before, parse it again serially where the
 *            guess was wrong (the cut fell inside a string, say), and hand
 *            the batch to the sink, strictly in file order.
 *
 * Produce and merge are each held by one thread at a time (a token under
 * the mutex); parse runs on every thread that finds nothing better to do.
 * A thread takes work in this order: merge (it frees slots), produce
 * (inflate is the serial bottleneck), parse, so two threads keep both
 * cores busy whether inflate or parse is the slower stage.  Only the
 * team's first thread produces: the inflater's state, its window and its
 * input buffer stay in one core's cache, where they went from core to core
 * with the token (the real-shaped gigabyte at -j 2: 2 to 3 % less time and
 * CPU, the trace of kernels 1 %; -j 1 is one thread anyway).  The
 * mutex is taken a few times per chunk, never per event.
 *
 * Limits and why: the ring has 2 * threads + 1 slots, so memory is about
 * that many chunks of text plus their batches whatever the file size; a
 * single event may span chunks but is carried at most TRACE_MAX_EVENT_BYTES,
 * beyond which it is reported and the read stops.  Because the merge is
 * serial and in order, the sink sees the same batches in the same order at
 * any thread count, so -j 1 and -j N produce identical results.
 */
#include "trace_read.h"

#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "evparse.h"
#include "gzin.h"
#include "jscan.h"
#include "trace_top.h"
#include "vtr.h"

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_PARSING, SLOT_PARSED };

struct slot {
	enum slot_state st;
	uint64_t seq;
	char *text;
	size_t len;
	int64_t off;			/* input offset of text[0] */
	enum evparse_state start;	/* the state the parse assumed */
	struct event_batch batch;
	struct evparse_result res;
};

/*
 * Where the end of an unfinished element was last looked for.  A long
 * event arrives over many chunks; each new chunk is scanned once for the
 * element's end (quotes, escapes and brackets only), and the element is
 * parsed again only when its end has come, so one event costs time linear
 * in its size, not in its size times its number of chunks.  It is also
 * parsed whenever it has doubled since its last parse, so that a syntax
 * error inside a malformed element is still found near where it is, at a
 * cost that stays linear (the parses add up to at most twice its size).
 */
struct elem_scan {
	size_t pos;			/* carry bytes scanned so far */
	long depth;			/* open brackets */
	int in_str, esc;
};

struct reader {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot *slots;
	size_t nr_slots, chunk_size;
	uint64_t next_fill, next_merge;
	int producing, merging, eof, stop;

	/* producer only */
	struct gzin *gz;
	struct buf tail;		/* text after the last cut, read before more input */
	size_t tail_pos;		/* tail.data[tail_pos..len) is still to be read */
	int64_t pull_off;		/* input offset of the next byte pull() returns */
	int64_t text_off;		/* text bytes inflated so far */
	int in_events, first_chunk;
	int read_failed;
	struct err read_err;

	/* merge only (and the prologue, before any merge) */
	struct trace_top top;
	enum evparse_state expect;	/* real state where the next chunk starts */
	struct buf carry;		/* an unfinished event, from its start */
	int64_t carry_off;
	enum evparse_state carry_state;
	struct elem_scan scan;		/* how far the carry's end was looked for */
	int carry_unparsed;		/* text was added to the carry since its parse */
	size_t carry_parsed;		/* carry bytes at its last parse */
	int events_done, failed;
	int64_t stop_off;		/* failed: where the text read ends (stop_at()), or -1 */
	int events_said;			/* events_said() ran */
	int64_t nr_not_object, nr_bad_time;	/* summed over chunks, reported once */
	int64_t bad_time_off;		/* input offset of the first bad-time event */
	int64_t nr_neg_dur, first_neg_dur;	/* likewise; the first in file order */
	int64_t nr_odd, first_odd;		/* likewise */
	struct event_batch rebatch;

	const struct trace_sink *sink;
	struct trace_info *info;
	int fatal;			/* not a trace: *fatal_err */
	struct err fatal_err;
};

void trace_info_warn(struct trace_info *info, const struct err *w)
{
	if (info->nr_warnings < TRACE_MAX_WARNINGS)
		info->warnings[info->nr_warnings++] = *w;
	info->nr_warnings_total++;
}

/*
 * The read stops at e, which is said: the text read ends at its offset,
 * however far the threads had inflated past it, so that bytes_text does
 * not depend on the chunk size or the number of threads.
 */
static void stop_at(struct reader *r, const struct err *e)
{
	trace_info_warn(r->info, e);
	if (!r->failed)
		r->stop_off = e->offset;
	r->failed = 1;
}

/* Copy s[0..n) into out[0..size) NUL-terminated, cut at a UTF-8 boundary to fit. */
static void copy_cut(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;	/* s[n] continues a character: cut before its lead byte */
	}
	memcpy(out, s, n);
	out[n] = '\0';
}

void trace_info_tag(struct trace_info *info, const char *key, size_t klen, const char *value,
		    size_t vlen)
{
	char k[TRACE_TAG_KEY];
	struct trace_tag *t = NULL;

	copy_cut(k, sizeof(k), key, klen);
	/* a key that needs no escape in JSON reads back as written */
	for (char *c = k; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' || *c == 0x7f)
			*c = '_';
	for (size_t i = 0; i < info->nr_tags && !t; i++)
		if (!strcmp(info->tags[i].key, k))
			t = &info->tags[i];
	if (!t && info->nr_tags == TRACE_MAX_TAGS) {
		info->nr_tags_dropped++;
		return;
	}
	if (!t) {
		t = &info->tags[info->nr_tags++];
		memcpy(t->key, k, sizeof(k));
	}
	copy_cut(t->value, sizeof(t->value), value, vlen);
}

/* Where to cut text[0..len): just past a '}' that has ',' then '{' after it. */
static size_t find_cut(const char *text, size_t len)
{
	size_t i = len;

	while (i > 0) {
		const char *p = memrchr(text, '}', i), *q, *end = text + len;

		if (!p)
			break;
		i = (size_t)(p - text);
		q = jscan_ws(p + 1, end);
		if (q < end && *q == ',') {
			q = jscan_ws(q + 1, end);
			if (q < end && *q == '{')
				return i + 1;
		}
	}
	return len;
}

/*
 * Scan text[sc->pos..len) of an element that starts at text[0].  Returns 1
 * when the element has ended (or the text is malformed: the parser will
 * say how), 0 when it needs more text.
 */
static int elem_scan_more(struct elem_scan *sc, const char *text, size_t len)
{
	size_t i = sc->pos;

	while (i < len) {
		char c = text[i];

		if (sc->in_str) {
			const char *q;

			if (sc->esc) {
				sc->esc = 0;
				i++;
				continue;
			}
			/* Most of a long event is string bytes: skip to a quote or backslash. */
			for (q = text + i; q < text + len && *q != '"' && *q != '\\'; q++)
				;
			i = (size_t)(q - text);
			if (i >= len)
				break;
			if (*q == '\\') {
				sc->esc = 1;
			} else {
				sc->in_str = 0;
				if (sc->depth <= 0)
					return 1;
			}
			i++;
			continue;
		}
		switch (c) {
		case '"':
			sc->in_str = 1;
			break;
		case '{':
		case '[':
			sc->depth++;
			break;
		case '}':
		case ']':
			if (--sc->depth <= 0)
				return 1;
			break;
		case ',':
			if (sc->depth <= 0 && i > 0)
				return 1;
			break;
		default:
			break;
		}
		i++;
	}
	sc->pos = i;
	return 0;
}

/* Inflate up to cap bytes into dst; 0 at the end of input or after an error. */
static size_t inflate_some(struct reader *r, char *dst, size_t cap)
{
	struct err e;
	ssize_t n;

	if (r->read_failed)
		return 0;
	n = gzin_read(r->gz, dst, cap, &e);
	if (n < 0) {
		r->read_failed = 1;
		r->read_err = e;
		return 0;
	}
	r->text_off += n;
	return (size_t)n;
}

/*
 * After an error in the text stopped the read: the rest of a gzip stream
 * inflated into buffer dst (cap bytes), not parsed, to learn whether the
 * stream is damaged, which would explain the error (corrupt deflate data
 * inflates to garbage before the damage is seen).  Whether the damage is
 * said then does not depend on how far the threads had inflated ahead.
 */
static void inflate_rest(struct reader *r, char *dst, size_t cap)
{
	if (r->failed && !r->fatal && gzin_is_gzip(r->gz))
		while (inflate_some(r, dst, cap))
			;
}

/* The next text: first what is left of the tail, then fresh input. */
static size_t pull(struct reader *r, char *dst, size_t cap)
{
	size_t n = r->tail.len - r->tail_pos;

	if (n == 0)
		n = inflate_some(r, dst, cap);
	else {
		if (n > cap)
			n = cap;
		memcpy(dst, r->tail.data + r->tail_pos, n);
		r->tail_pos += n;
	}
	r->pull_off += (int64_t)n;
	return n;
}

/*
 * Give back the last n bytes pulled, to be pulled again.  When nothing was
 * inflated since they were pulled, they are all still in the tail just
 * before tail_pos; otherwise the tail was used up first, and they start it
 * afresh from the copy at bytes.
 */
static void unpull(struct reader *r, const char *bytes, size_t n, int inflated)
{
	if (!inflated) {
		r->tail_pos -= n;
	} else {
		buf_reset(&r->tail);
		buf_add(&r->tail, bytes, n);
		r->tail_pos = 0;
	}
	r->pull_off -= (int64_t)n;
}

/*
 * Read until the events array begins.  Returns 1 when it did (its first
 * text is in the tail), 0 at the end of input, -1 when this is no trace.
 */
static int read_prologue(struct reader *r, char *buf, size_t cap)
{
	for (;;) {
		int64_t off = r->text_off;
		size_t n = inflate_some(r, buf, cap);
		struct err e;
		int rc;

		err_clear(&e);
		if (n == 0)
			rc = trace_top_drain(&r->top, &e);
		else
			rc = trace_top_feed(&r->top, buf, n, off, &e);
		if (rc < 0) {
			r->fatal = 1;
			r->fatal_err = e;
			return -1;
		}
		if (rc > 0) {
			buf_reset(&r->tail);
			buf_add(&r->tail, r->top.pend.data, r->top.pend.len);
			r->tail_pos = 0;
			r->pull_off = r->text_off - (int64_t)r->top.pend.len;
			trace_top_take(&r->top);
			if (!buf_ok(&r->tail)) {
				r->fatal = 1;
				err_set(&r->fatal_err, r->pull_off, "out of memory");
				return -1;
			}
			return 1;
		}
		if (n == 0)
			return 0;
	}
}

/*
 * Fill slot s with the next chunk.  Returns 1 when it holds text; sets
 * *at_eof when the input is exhausted.  Runs without the lock: only the
 * producer touches these fields.
 */
static int fill(struct reader *r, struct slot *s, int *at_eof)
{
	size_t len = 0, n;
	int64_t inflated;

	*at_eof = 0;
	if (!r->in_events) {
		if (read_prologue(r, s->text, r->chunk_size) <= 0) {
			*at_eof = 1;
			return 0;
		}
		r->in_events = 1;
		r->first_chunk = 1;
	}
	s->off = r->pull_off;
	inflated = r->text_off;
	while (len < r->chunk_size && (n = pull(r, s->text + len, r->chunk_size - len)) > 0)
		len += n;
	if (len == r->chunk_size) {
		size_t cut = find_cut(s->text, len);

		unpull(r, s->text + cut, len - cut, r->text_off != inflated);
		len = cut;
	} else {
		*at_eof = 1;
	}
	s->len = len;
	s->start = r->first_chunk ? EVP_FIRST : EVP_NEXT;
	r->first_chunk = 0;
	if (r->sink->progress)
		r->sink->progress(r->sink->ctx, gzin_in_offset(r->gz), gzin_in_size(r->gz));
	return len > 0;
}

static void parse(struct slot *s)
{
	event_batch_reset(&s->batch);
	evparse_run(s->text, s->len, s->off, s->start, &s->batch, &s->res);
}

/* Text after the events array: the rest of the top-level object. */
static void feed_epilogue(struct reader *r, const char *text, size_t len, int64_t off)
{
	struct err e;

	err_clear(&e);
	if (len && trace_top_feed(&r->top, text, len, off, &e) < 0)
		stop_at(r, &e);
}

/*
 * What the events array held that was counted, not warned about one by
 * one: said once, when the array ends or reading stops inside it, so that
 * the warnings come in the order of the file whatever the chunk size (a
 * problem after the array is found while a later chunk is fed, or only at
 * the end).
 */
static void events_said(struct reader *r)
{
	struct err e;

	if (r->events_said)
		return;
	r->events_said = 1;
	if (r->nr_not_object) {
		err_set(&e, -1, "%lld elements of the events array are not objects; counted, "
			"otherwise ignored", (long long)r->nr_not_object);
		trace_info_warn(r->info, &e);
	}
	if (r->nr_bad_time) {
		err_set(&e, r->bad_time_off, "%lld event%s with ts, dur or ts + dur beyond "
			"+-2^62 ns left out (the first here)", (long long)r->nr_bad_time,
			r->nr_bad_time > 1 ? "s" : "");
		trace_info_warn(r->info, &e);
	}
	if (r->nr_odd) {
		err_set(&e, r->first_odd, "%lld values of a type their key never has (the first in "
			"the event here) were read as absent", (long long)r->nr_odd);
		trace_info_warn(r->info, &e);
	}
	if (r->nr_neg_dur) {
		err_set(&e, r->first_neg_dur, "%lld events with a negative dur (the first here) "
			"were dropped from time sums", (long long)r->nr_neg_dur);
		trace_info_warn(r->info, &e);
	}
}

/* Deliver one parse result; text/off is what was parsed. */
static void apply(struct reader *r, const struct evparse_result *res,
		  const struct event_batch *b, const char *text, size_t len, int64_t off)
{
	struct err e;

	if (b->n) {
		r->info->nr_events += (int64_t)b->n;
		if (r->sink->batch(r->sink->ctx, b)) {
			r->failed = 1;
			return;
		}
	}
	r->nr_not_object += res->nr_not_object;
	if (res->nr_bad_time && !r->nr_bad_time)
		r->bad_time_off = off + (int64_t)res->bad_time_pos;
	r->nr_bad_time += res->nr_bad_time;
	if (!r->nr_neg_dur && res->nr_neg_dur)
		r->first_neg_dur = res->first_neg_dur;
	r->nr_neg_dur += res->nr_neg_dur;
	if (!r->nr_odd && res->nr_odd)
		r->first_odd = res->first_odd;
	r->nr_odd += res->nr_odd;
	switch (res->end) {
	case EVP_CLEAN:
		r->expect = res->state;
		r->carry.len = 0;
		break;
	case EVP_PARTIAL:
		if (len - res->pos > TRACE_MAX_EVENT_BYTES) {
			err_set(&e, off + (int64_t)res->pos, "event larger than %u MiB",
				TRACE_MAX_EVENT_BYTES >> 20);
			stop_at(r, &e);
			break;
		}
		if (text == r->carry.data) {
			memmove(r->carry.data, r->carry.data + res->pos, len - res->pos);
			r->carry.len = len - res->pos;
		} else {
			buf_reset(&r->carry);
			buf_add(&r->carry, text + res->pos, len - res->pos);
		}
		r->carry_off = off + (int64_t)res->pos;
		r->carry_state = res->state;
		memset(&r->scan, 0, sizeof(r->scan));
		r->carry_unparsed = 0;
		r->carry_parsed = r->carry.len;
		if (!buf_ok(&r->carry)) {
			err_set(&e, r->carry_off, "out of memory");
			stop_at(r, &e);
		}
		break;
	case EVP_ARRAY_END:
		r->events_done = 1;
		r->carry.len = 0;
		events_said(r);
		trace_top_events_done(&r->top);
		feed_epilogue(r, text + res->pos, len - res->pos, off + (int64_t)res->pos);
		break;
	case EVP_ERROR:
		events_said(r);
		stop_at(r, &res->err);
		break;
	}
}

/* Parse the carry, which holds an element from its start, and what follows. */
static void parse_carry(struct reader *r)
{
	struct evparse_result res;

	event_batch_reset(&r->rebatch);
	r->carry_unparsed = 0;
	evparse_run(r->carry.data, r->carry.len, r->carry_off, r->carry_state, &r->rebatch, &res);
	apply(r, &res, &r->rebatch, r->carry.data, r->carry.len, r->carry_off);
}

/* Returns 1 when the read should stop. */
static int merge(struct reader *r, struct slot *s)
{
	struct evparse_result res;

	if (r->failed)
		return 1;
	if (r->events_done) {
		feed_epilogue(r, s->text, s->len, s->off);
		return r->failed;
	}
	if (r->carry.len == 0 && s->start == r->expect) {
		apply(r, &s->res, &s->batch, s->text, s->len, s->off);
		return r->failed;
	}
	/* The guess was wrong: parse again from the real state, serially. */
	event_batch_reset(&r->rebatch);
	if (r->carry.len) {
		buf_add(&r->carry, s->text, s->len);
		if (!buf_ok(&r->carry)) {
			struct err e;

			err_set(&e, r->carry_off, "out of memory");
			stop_at(r, &e);
			return 1;
		}
		if (!elem_scan_more(&r->scan, r->carry.data, r->carry.len) &&
		    r->carry.len < 2 * r->carry_parsed) {
			r->carry_unparsed = 1;
			if (r->carry.len > TRACE_MAX_EVENT_BYTES) {
				struct err e;

				err_set(&e, r->carry_off, "event larger than %u MiB",
					TRACE_MAX_EVENT_BYTES >> 20);
				stop_at(r, &e);
			}
			return r->failed;
		}
		parse_carry(r);
	} else {
		evparse_run(s->text, s->len, s->off, r->expect, &r->rebatch, &res);
		apply(r, &res, &r->rebatch, s->text, s->len, s->off);
	}
	return r->failed;
}

static struct slot *first_filled(struct reader *r)
{
	struct slot *best = NULL;

	for (size_t i = 0; i < r->nr_slots; i++) {
		struct slot *s = &r->slots[i];

		if (s->st == SLOT_FILLED && (!best || s->seq < best->seq))
			best = s;
	}
	return best;
}

/* A thread's share of the pipeline; only a producer inflates (see the top). */
static void work(struct reader *r, int producer)
{
	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct slot *s = &r->slots[r->next_merge % r->nr_slots];

		if (!r->merging && s->st == SLOT_PARSED && s->seq == r->next_merge) {
			int stop;

			r->merging = 1;
			pthread_mutex_unlock(&r->mu);
			stop = merge(r, s);
			pthread_mutex_lock(&r->mu);
			r->merging = 0;
			s->st = SLOT_FREE;
			r->next_merge++;
			if (stop)
				r->stop = 1;
			pthread_cond_broadcast(&r->cv);
			continue;
		}
		s = &r->slots[r->next_fill % r->nr_slots];
		if (producer && !r->producing && !r->eof && !r->stop && s->st == SLOT_FREE) {
			int got, at_eof;

			r->producing = 1;
			pthread_mutex_unlock(&r->mu);
			got = fill(r, s, &at_eof);
			pthread_mutex_lock(&r->mu);
			r->producing = 0;
			if (got) {
				s->seq = r->next_fill++;
				s->st = SLOT_FILLED;
			}
			if (at_eof)
				r->eof = 1;
			pthread_cond_broadcast(&r->cv);
			continue;
		}
		s = first_filled(r);
		if (s) {
			s->st = SLOT_PARSING;
			pthread_mutex_unlock(&r->mu);
			parse(s);
			pthread_mutex_lock(&r->mu);
			s->st = SLOT_PARSED;
			pthread_cond_broadcast(&r->cv);
			continue;
		}
		if ((r->eof || r->stop) && !r->producing && r->next_merge == r->next_fill)
			break;
		pthread_cond_wait(&r->cv, &r->mu);
	}
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* After the last merge: what the end of input means for this file. */
static void finish(struct reader *r)
{
	struct err e;

	/* The input ended while the carry's end was still awaited: let the parser judge. */
	if (r->carry.len && r->carry_unparsed && !r->events_done && !r->failed && !r->fatal)
		parse_carry(r);
	events_said(r);
	if (r->read_failed) {
		r->read_err.compressed = gzin_is_gzip(r->gz) && r->read_err.offset >= 0;
		trace_info_warn(r->info, &r->read_err);
	}
	if (r->failed || r->fatal)
		return;
	if (!r->in_events || r->events_done) {
		if (trace_top_finish(&r->top, r->text_off, &e) == 0)
			return;
		if (!r->in_events && !r->read_failed) {
			r->fatal = 1;
			r->fatal_err = e;
			return;
		}
	} else if (r->carry.len) {
		err_set(&e, r->carry_off, "input ends inside an event");
	} else {
		err_set(&e, r->text_off, "input ends inside traceEvents");
	}
	stop_at(r, &e);
}

/*
 * A collector raw file starts with VTR_MAGIC.  Only a regular file is
 * sniffed: the bytes read from a pipe or FIFO (<(zcat t.gz), /dev/stdin)
 * would be gone when the file is opened again, so such inputs are JSON,
 * read through the one open of gzin as "-" is.
 */
static int is_vtr(const char *path)
{
	char magic[VTR_MAGIC_LEN];
	struct stat st;
	int fd, yes = 0;

	if (strcmp(path, "-") == 0 || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic))
		yes = memcmp(magic, VTR_MAGIC, VTR_MAGIC_LEN) == 0;
	close(fd);
	return yes;
}

static size_t chunk_size_of(const struct trace_read_opts *opts)
{
	const char *env = getenv("VTRACE_CHUNK_SIZE");
	size_t n = opts && opts->chunk_size ? opts->chunk_size : TRACE_CHUNK_DEFAULT;

	if (env && *env) {
		char *end;
		unsigned long long v = strtoull(env, &end, 10);

		if (*end == '\0' && v >= 64 && v <= (1ull << 30))
			n = (size_t)v;
	}
	return n;
}

int trace_read(const char *path, const struct trace_read_opts *opts,
	       const struct trace_sink *sink, struct trace_info *info, struct err *e)
{
	struct reader r;
	int nr_threads = opts && opts->nr_threads > 1 ? opts->nr_threads : 1;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	info->rank = -1;
	info->world_size = -1;
	info->format = "kineto";
	info->engine = "none";
	err_clear(e);
	if (is_vtr(path))
		return vtr_read(path, sink, info, e);

	memset(&r, 0, sizeof(r));
	r.sink = sink;
	r.info = info;
	r.chunk_size = chunk_size_of(opts);
	r.nr_slots = 2 * (size_t)nr_threads + 1;
	r.expect = EVP_FIRST;
	r.stop_off = -1;
	buf_init(&r.carry);
	buf_init(&r.tail);
	event_batch_init(&r.rebatch);
	trace_top_init(&r.top, info);
	r.gz = gzin_open(path, e);
	if (!r.gz)
		goto out;
	info->engine = gzin_engine(r.gz);
	r.slots = calloc(r.nr_slots, sizeof(*r.slots));
	if (!r.slots) {
		err_set(e, -1, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r.nr_slots; i++) {
		event_batch_init(&r.slots[i].batch);
		r.slots[i].text = malloc(r.chunk_size);
		if (!r.slots[i].text) {
			err_set(e, -1, "out of memory");
			goto out;
		}
	}
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	if (nr_threads > 1) {
#pragma omp parallel num_threads(nr_threads) default(none) shared(r)
		work(&r, omp_get_thread_num() == 0);
	} else {
		work(&r, 1);
	}
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);

	inflate_rest(&r, r.slots[0].text, r.chunk_size);	/* the threads are done with it */
	finish(&r);
	info->bytes_in = gzin_in_offset(r.gz);
	info->bytes_text = r.stop_off >= 0 && r.stop_off < r.text_off ? r.stop_off : r.text_off;
	if (r.fatal) {
		*e = r.fatal_err;
		goto out;
	}
	/* text after the top-level value may hold events: not read, so not complete */
	info->complete = !r.failed && !r.read_failed && !r.top.trailing;
	ret = info->complete ? 0 : 1;
out:
	if (r.slots) {
		for (size_t i = 0; i < r.nr_slots; i++) {
			event_batch_release(&r.slots[i].batch);
			free(r.slots[i].text);
		}
		free(r.slots);
	}
	buf_release(&r.tail);
	gzin_close(r.gz);
	trace_top_release(&r.top);
	event_batch_release(&r.rebatch);
	buf_release(&r.carry);
	return ret;
}
