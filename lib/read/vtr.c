/*
 * vtr: see vtr.h.
 *
 * The reader walks the blocks in file order.  String blocks grow the file's
 * string table (bytes in an arena, owned by the reader); event blocks are
 * replayed per thread: a begin is pushed on that thread's stack and its end
 * pops it and emits the region as one 'X' event.  So events come out in
 * the order they ended, which is file order for everything but regions.
 *
 * Batches borrow the table's bytes (the batch's strtab does not copy), and
 * each file string is interned into a batch at most once, through a map
 * from file id to batch id that a generation number invalidates per batch.
 */
#include "vtr.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "jsonw.h"
#include "sat.h"

#define VTR_BATCH_EVENTS 65536
#define VTR_MAX_DEPTH (1u << 20)

enum vtr_const {
	K_PH_X, K_PH_B, K_PH_I, K_PH_C,
	K_CAT_REGION, K_CAT_VTRACE, K_CAT_SAMPLE,
	K_FRAMES, K_BLOCKS, K_UNKNOWN, K_PID, K_BLOCK_FRAMES,
	NR_K
};

static const char *const vtr_const_str[NR_K] = {
	"X", "B", "i", "C",
	"user_annotation", "vtrace", "vtrace.sample",
	"vtrace.frames", "vtrace.blocks", "(unknown)", NULL, "vtrace.block_frames",
};

#define VTR_MAX_ARGS 4			/* arguments kept per region; more are counted */

struct vtr_arg {
	uint32_t key;			/* file string id */
	uint32_t kind;			/* enum vtr_arg_kind */
	int64_t bits;
};

struct vtr_open {
	uint32_t name;			/* file string id */
	uint32_t nr_args;
	int64_t ts_ns;			/* CLOCK_MONOTONIC */
	struct vtr_arg args[VTR_MAX_ARGS];
};

struct vtr_thread {
	int32_t tid;
	const char *text;		/* the tid as text, in the arena: batches borrow it */
	uint32_t bid, bgen;		/* its id in the current batch */
	struct vtr_open *stack;
	size_t depth, alloc;
};

/* A file string, and its id in the current batch (valid when bgen == gen). */
struct vtr_str {
	const char *s;			/* in the arena; NULL: not defined (yet) */
	uint32_t len;
	uint32_t bid, bgen;
};

struct vtr_reader {
	FILE *f;
	const char *path;
	struct vtr_header hdr;
	int64_t off;			/* file offset of the next byte */
	char pid_text[16];
	const struct trace_sink *sink;
	struct trace_info *info;
	struct err *e;

	/* the file's strings: ids 1..nr_str-1 */
	struct arena arena;
	struct vtr_str *str;		/* str[id] */
	uint32_t nr_str;
	size_t str_alloc;

	struct vtr_thread *threads;
	size_t nr_threads, threads_alloc;
	uint32_t *thread_slot;		/* open addressing by tid: index + 1, 0 empty */
	size_t nr_thread_slots;		/* a power of two, over twice nr_threads */

	struct event_batch batch;
	uint32_t gen;
	uint32_t kid[NR_K], kgen[NR_K];

	unsigned char *payload;
	size_t payload_cap;
	int64_t left;			/* a regular file's size, else -1 */
	int stopped, oom, seen_end;
	int64_t nr_unmatched, nr_bad;
	int64_t nr_args_dropped;		/* region args beyond VTR_MAX_ARGS or without one */
	struct buf args_text;			/* scratch for an event's args */
	int64_t nr_bad_time, bad_time_off;	/* records past sat.h's limit; first's block */
	int64_t block_off;			/* offset of the block being read */
};

static void vtr_warn(struct vtr_reader *r, int64_t offset, const char *msg)
{
	struct err e;

	err_set(&e, offset, "%s", msg);
	trace_info_warn(r->info, &e);
}

/* ---- batches ---- */

static int vtr_batch_flush(struct vtr_reader *r)
{
	if (r->stopped || !r->batch.n)
		return r->stopped ? -1 : 0;
	r->info->nr_events += (int64_t)r->batch.n;
	if (r->sink && r->sink->batch && r->sink->batch(r->sink->ctx, &r->batch))
		r->stopped = 1;
	event_batch_reset(&r->batch);
	r->gen++;
	if (r->sink && r->sink->progress)
		r->sink->progress(r->sink->ctx, r->off, -1);
	return r->stopped ? -1 : 0;
}

static uint32_t vtr_intern(struct vtr_reader *r, const char *s, size_t len)
{
	uint32_t id = strtab_intern(&r->batch.strs, s, len);

	if (id == STRTAB_OOM) {
		r->oom = 1;
		return STRTAB_NONE;
	}
	return id;
}

static uint32_t vtr_const(struct vtr_reader *r, enum vtr_const k)
{
	const char *s = k == K_PID ? r->pid_text : vtr_const_str[k];

	if (r->kgen[k] != r->gen) {
		r->kid[k] = vtr_intern(r, s, strlen(s));
		r->kgen[k] = r->gen;
	}
	return r->kid[k];
}

/* The batch id of file string id (unknown ids read "(unknown)"). */
static uint32_t vtr_name(struct vtr_reader *r, uint32_t id)
{
	struct vtr_str *fs;

	if (!id || id >= r->nr_str || !r->str[id].s)
		return vtr_const(r, K_UNKNOWN);
	fs = &r->str[id];
	if (fs->bgen != r->gen) {
		fs->bid = vtr_intern(r, fs->s, fs->len);
		fs->bgen = r->gen;
	}
	return fs->bid;
}

static uint32_t vtr_tid(struct vtr_reader *r, struct vtr_thread *t)
{
	if (t->bgen != r->gen) {
		t->bid = vtr_intern(r, t->text, strlen(t->text));
		t->bgen = r->gen;
	}
	return t->bid;
}

/*
 * A new event of thread t at monotonic time ts, with ph, cat, pid and tid
 * filled in.  NULL when out of memory or the consumer stopped.
 */
static struct trace_event *vtr_emit(struct vtr_reader *r, struct vtr_thread *t, enum vtr_const ph,
				    enum vtr_const cat, int64_t ts)
{
	struct trace_event *ev;

	if (r->batch.n >= VTR_BATCH_EVENTS && vtr_batch_flush(r))
		return NULL;
	ev = event_batch_push(&r->batch);
	if (!ev) {
		r->oom = 1;
		return NULL;
	}
	ev->ph = vtr_const(r, ph);
	ev->phase = vtr_const_str[ph][0];
	ev->cat = vtr_const(r, cat);
	ev->pid = vtr_const(r, K_PID);
	ev->tid = vtr_tid(r, t);
	ev->flags = EV_TS;
	if (__builtin_add_overflow(ts, r->hdr.clock_offset_ns, &ev->ts_ns) ||
	    !sat_time_ok(ev->ts_ns)) {
		r->batch.n--;		/* outside what the analyses subtract safely */
		if (!r->nr_bad_time++)
			r->bad_time_off = r->block_off;
		return NULL;
	}
	return ev;
}

/* ---- strings and threads ---- */

/* A string block: ids first..; returns -1 when it does not parse. */
static int vtr_strings(struct vtr_reader *r, uint32_t first, const unsigned char *p, size_t size)
{
	uint32_t id = first;
	size_t at = 0;

	/*
	 * The writer numbers strings 1, 2, ... with no gap, so a block starts
	 * at most at the next id: the table then grows by at most the strings
	 * the block holds, never to an id the file merely names.
	 */
	if (first == 0 || first > r->nr_str)
		return -1;
	while (at < size) {
		uint32_t len;
		char *s;

		if (size - at < 4)
			return -1;
		memcpy(&len, p + at, 4);
		at += 4;
		if (len > size - at || id >= VTR_MAX_STRINGS)
			return -1;
		if (ALLOC_GROW(r->str, (size_t)id + 1, r->str_alloc))
			goto oom;
		if (!(s = arena_strndup(&r->arena, (const char *)p + at, len)))
			goto oom;
		r->str[id] = (struct vtr_str){ s, len, 0, UINT32_MAX };
		at += len;
		id++;
		if (id > r->nr_str)
			r->nr_str = id;
	}
	return 0;
oom:
	r->oom = 1;
	return 0;
}

static size_t vtr_tid_hash(int32_t tid, size_t mask)
{
	return (size_t)(((uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/*
 * Room in the tid index for one more thread, rebuilt twice as large when
 * half full.  A scan of every known thread for every block was square in
 * the number of threads.
 */
static int vtr_thread_room(struct vtr_reader *r)
{
	size_t n = r->nr_thread_slots ? r->nr_thread_slots : 64, mask;
	uint32_t *slot;

	if (r->nr_threads >= UINT32_MAX - 1)
		return -1;
	if (2 * (r->nr_threads + 1) <= r->nr_thread_slots)
		return 0;
	while (2 * (r->nr_threads + 1) > n)
		n *= 2;
	if (!(slot = calloc(n, sizeof(*slot))))
		return -1;
	mask = n - 1;
	for (size_t i = 0; i < r->nr_threads; i++) {
		size_t h = vtr_tid_hash(r->threads[i].tid, mask);

		while (slot[h])
			h = (h + 1) & mask;
		slot[h] = (uint32_t)i + 1;
	}
	free(r->thread_slot);
	r->thread_slot = slot;
	r->nr_thread_slots = n;
	return 0;
}

static struct vtr_thread *vtr_thread_of(struct vtr_reader *r, int32_t tid)
{
	struct vtr_thread *t;
	char text[16];
	const char *text_copy;
	size_t h, mask = r->nr_thread_slots - 1;

	for (h = r->nr_thread_slots ? vtr_tid_hash(tid, mask) : 0;
	     r->nr_thread_slots && r->thread_slot[h]; h = (h + 1) & mask)
		if (r->threads[r->thread_slot[h] - 1].tid == tid)
			return &r->threads[r->thread_slot[h] - 1];
	snprintf(text, sizeof(text), "%d", (int)tid);
	if (!(text_copy = arena_strndup(&r->arena, text, strlen(text))))
		return NULL;
	if (vtr_thread_room(r) || ALLOC_GROW(r->threads, r->nr_threads + 1, r->threads_alloc))
		return NULL;
	for (h = vtr_tid_hash(tid, r->nr_thread_slots - 1); r->thread_slot[h];
	     h = (h + 1) & (r->nr_thread_slots - 1))
		;
	r->thread_slot[h] = (uint32_t)r->nr_threads + 1;
	t = &r->threads[r->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->bgen = UINT32_MAX;
	t->text = text_copy;
	return t;
}

static int vtr_push(struct vtr_thread *t, uint32_t name, int64_t ts)
{
	if (t->depth == VTR_MAX_DEPTH || ALLOC_GROW(t->stack, t->depth + 1, t->alloc))
		return -1;
	t->stack[t->depth++] = (struct vtr_open){ name, 0, ts, { { 0, 0, 0 } } };
	return 0;
}

/* ---- events ---- */

static void vtr_value(struct vtr_reader *r, struct vtr_thread *t, const struct vtr_rec *rec,
		      int64_t value)
{
	uint32_t type = VTR_REC_TYPE(rec->word);
	enum vtr_const cat = type == VTR_REC_SAMPLE ? K_CAT_SAMPLE : K_CAT_VTRACE;
	struct trace_event *ev = vtr_emit(r, t, K_PH_C, cat, rec->ts_ns);

	if (!ev)
		return;
	ev->flags |= EV_VALUE;
	ev->value = value;
	if (type == VTR_REC_FRAMES) {
		ev->name = vtr_const(r, K_FRAMES);
		ev->flags |= EV_FRAMES;
	} else if (type == VTR_REC_BLOCKS) {
		ev->name = vtr_const(r, K_BLOCKS);
		ev->flags |= EV_BLOCKS;
	} else {
		ev->name = vtr_name(r, VTR_REC_ID(rec->word));
	}
	if (type == VTR_REC_SAMPLE && rec->arg) {
		ev->flags |= EV_DEVICE;
		ev->device = (int64_t)rec->arg - 1;
	}
}

/* A file string, or "(unknown)". */
static const char *vtr_str(const struct vtr_reader *r, uint32_t id, size_t *len)
{
	if (!id || id >= r->nr_str || !r->str[id].s) {
		*len = 9;
		return "(unknown)";
	}
	*len = r->str[id].len;
	return r->str[id].s;
}

/*
 * The region o's arguments on its event: their JSON object as text, in
 * the batch; a "block_size" also as the frames the region produced (a
 * counter at its end, flagged EV_FRAMES like vt_frames()).
 */
static void vtr_region_args(struct vtr_reader *r, struct vtr_thread *t, const struct vtr_open *o,
			    struct trace_event *ev, int64_t end)
{
	struct buf *b = &r->args_text;
	int64_t frames = -1;
	uint32_t id;
	char *s;

	buf_reset(b);
	buf_addc(b, '{');
	for (uint32_t i = 0; i < o->nr_args; i++) {
		const struct vtr_arg *a = &o->args[i];
		size_t len;
		const char *k = vtr_str(r, a->key, &len);
		double d;

		buf_adds(b, i ? ", \"" : "\"");
		jsonw_escape(b, k, len);
		buf_adds(b, "\": ");
		if (a->kind == VTR_ARG_DOUBLE) {
			memcpy(&d, &a->bits, sizeof(d));
			if (isfinite(d))
				buf_printf(b, "%.17g", d);
			else
				buf_adds(b, "null");
		} else {
			buf_printf(b, "%" PRId64, a->bits);
			if (len == 10 && !memcmp(k, "block_size", 10) && a->bits > 0)
				frames = a->bits;
		}
	}
	buf_addc(b, '}');
	if (!buf_ok(b) || !(s = arena_strndup(&r->batch.arena, b->data, b->len))) {
		r->oom = 1;
		return;
	}
	id = vtr_intern(r, s, b->len);
	ev->args = id;
	if (frames > 0 && (ev = vtr_emit(r, t, K_PH_C, K_CAT_VTRACE, end))) {
		ev->name = vtr_const(r, K_BLOCK_FRAMES);
		ev->flags |= EV_VALUE | EV_FRAMES;
		ev->value = frames;
	}
}

static void vtr_events(struct vtr_reader *r, int32_t tid, const unsigned char *p, size_t size)
{
	struct vtr_thread *t = vtr_thread_of(r, tid);
	size_t n = size / sizeof(struct vtr_rec);
	struct trace_event *ev;

	if (!t) {
		r->oom = 1;
		return;
	}
	for (size_t i = 0; i < n && !r->stopped && !r->oom; i++) {
		struct vtr_rec rec, val;
		struct vtr_open o;

		memcpy(&rec, p + i * sizeof(rec), sizeof(rec));
		switch (VTR_REC_TYPE(rec.word)) {
		case VTR_REC_BEGIN:
			if (vtr_push(t, VTR_REC_ID(rec.word), rec.ts_ns))
				r->oom = 1;
			break;
		case VTR_REC_END:
			if (!t->depth) {
				r->nr_unmatched++;
				break;
			}
			o = t->stack[--t->depth];
			if (!(ev = vtr_emit(r, t, K_PH_X, K_CAT_REGION, o.ts_ns)))
				break;
			ev->name = vtr_name(r, o.name);
			ev->dur_ns = sat_sub(rec.ts_ns, o.ts_ns);
			ev->flags |= EV_DUR;
			if (!sat_time_ok(ev->dur_ns) || !sat_time_ok(ev->ts_ns + ev->dur_ns)) {
				r->batch.n--;
				if (!r->nr_bad_time++)
					r->bad_time_off = r->block_off;
				break;
			}
			if (o.nr_args)
				vtr_region_args(r, t, &o, ev, rec.ts_ns);
			break;
		case VTR_REC_TAG: {
			size_t kn, vn;
			const char *k = vtr_str(r, VTR_REC_ID(rec.word), &kn);
			const char *v = vtr_str(r, rec.arg, &vn);

			trace_info_tag(r->info, k, kn, v, vn);
			break;
		}
		case VTR_REC_ARG:
			if (i + 1 >= n) {
				r->nr_bad++;
				break;
			}
			memcpy(&val, p + ++i * sizeof(val), sizeof(val));
			if (VTR_REC_TYPE(val.word) != VTR_REC_VALUE || rec.arg > VTR_ARG_DOUBLE) {
				r->nr_bad++;
				i -= VTR_REC_TYPE(val.word) != VTR_REC_VALUE;
				break;
			}
			if (!t->depth || t->stack[t->depth - 1].nr_args == VTR_MAX_ARGS) {
				r->nr_args_dropped++;
				break;
			}
			t->stack[t->depth - 1].args[t->stack[t->depth - 1].nr_args++] =
				(struct vtr_arg){ VTR_REC_ID(rec.word), rec.arg, val.ts_ns };
			break;
		case VTR_REC_INSTANT:
			if ((ev = vtr_emit(r, t, K_PH_I, K_CAT_VTRACE, rec.ts_ns)))
				ev->name = vtr_name(r, VTR_REC_ID(rec.word));
			break;
		case VTR_REC_COUNTER:
		case VTR_REC_SAMPLE:
		case VTR_REC_FRAMES:
		case VTR_REC_BLOCKS:
			/* The value rides in the next slot; both are always flushed together. */
			if (i + 1 >= n) {
				r->nr_bad++;
				break;
			}
			memcpy(&val, p + ++i * sizeof(val), sizeof(val));
			if (VTR_REC_TYPE(val.word) != VTR_REC_VALUE) {
				r->nr_bad++;
				i--;
				break;
			}
			vtr_value(r, t, &rec, val.ts_ns);
			break;
		default:
			r->nr_bad++;
			break;
		}
	}
	/* a thread with nothing open holds no stack: a file may have very many threads */
	if (!t->depth) {
		free(t->stack);
		t->stack = NULL;
		t->alloc = 0;
	}
}

/* Regions without an end (the process stopped inside them) become 'B' events. */
static void vtr_open_regions(struct vtr_reader *r)
{
	int64_t open = 0;
	char msg[128];

	for (size_t i = 0; i < r->nr_threads && !r->stopped && !r->oom; i++) {
		struct vtr_thread *t = &r->threads[i];

		for (size_t d = 0; d < t->depth; d++) {
			struct trace_event *ev;

			ev = vtr_emit(r, t, K_PH_B, K_CAT_REGION, t->stack[d].ts_ns);
			if (!ev) {
				if (r->stopped || r->oom)
					return;
				continue;
			}
			ev->name = vtr_name(r, t->stack[d].name);
			open++;
		}
	}
	if (open) {
		snprintf(msg, sizeof(msg), "%lld region%s still open at the end, kept as B events",
			 (long long)open, open > 1 ? "s" : "");
		vtr_warn(r, r->off, msg);
	}
}

/* ---- the file ---- */

/* Read exactly n bytes: 1, 0 at a clean end, -1 cut short (got in *got). */
static int vtr_fill(struct vtr_reader *r, void *dst, size_t n, size_t *got)
{
	*got = fread(dst, 1, n, r->f);
	r->off += (int64_t)*got;
	if (*got == n)
		return 1;
	return *got == 0 && !ferror(r->f) ? 0 : -1;
}

static int vtr_header_of(struct vtr_reader *r)
{
	struct vtr_header *h = &r->hdr;
	size_t got;

	if (vtr_fill(r, h, sizeof(*h), &got) != 1) {
		if (got >= VTR_MAGIC_LEN && !memcmp(h->magic, VTR_MAGIC, VTR_MAGIC_LEN))
			return err_set(r->e, r->off, "vtrace raw file cut off inside its header");
		if (ferror(r->f))
			return err_set(r->e, r->off, "cannot read: %s", strerror(errno));
		return err_set(r->e, 0, "not a vtrace raw file (too short)");
	}
	if (memcmp(h->magic, VTR_MAGIC, VTR_MAGIC_LEN))
		return err_set(r->e, 0, "not a vtrace raw file (bad magic)");
	if (h->byte_order != VTR_BYTE_ORDER)
		return err_set(r->e, 16, "vtrace raw file of another byte order");
	if (h->version != VTR_VERSION)
		return err_set(r->e, 8, "vtrace raw file version %u, this reader knows %u",
			       h->version, VTR_VERSION);
	if (h->header_size < sizeof(*h) || h->rec_size != sizeof(struct vtr_rec))
		return err_set(r->e, 12, "vtrace raw file with a bad header");
	h->host[sizeof(h->host) - 1] = '\0';
	h->name[sizeof(h->name) - 1] = '\0';
	/* Newer writers may add header fields: skip what we do not know. */
	for (uint32_t skip = h->header_size - sizeof(*h); skip; skip--) {
		if (fgetc(r->f) == EOF)
			return err_set(r->e, r->off, "vtrace raw file cut off inside its header");
		r->off++;
	}
	return 0;
}

static int vtr_open(struct vtr_reader *r, const char *path, struct err *e)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->e = e;
	r->f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!r->f)
		return err_set(e, -1, "cannot open: %s", strerror(errno));
	r->left = fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
	return vtr_header_of(r);
}

static void vtr_close(struct vtr_reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	for (size_t i = 0; i < r->nr_threads; i++)
		free(r->threads[i].stack);
	free(r->threads);
	free(r->thread_slot);
	free(r->str);
	free(r->payload);
	buf_release(&r->args_text);
	arena_release(&r->arena);
}

/* One block.  1 read, 0 clean end of file, -1 stop (a warning was added). */
static int vtr_block(struct vtr_reader *r)
{
	struct vtr_block b;
	int64_t at = r->off;
	size_t got;
	char msg[160];
	int rc = vtr_fill(r, &b, sizeof(b), &got);

	r->block_off = at;
	if (rc == 0)
		return 0;
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "last block cut off: %zu of its %zu header bytes", got,
			 sizeof(b));
		vtr_warn(r, at, msg);
		return -1;
	}
	if (b.magic != VTR_BLOCK_MAGIC || b.size > VTR_BLOCK_MAX) {
		vtr_warn(r, at, "not a block header; the rest of the file is skipped");
		return -1;
	}
	/*
	 * The size is the file's word: never allocate more than the bytes that
	 * are there (so the payload grows to what was read, not by ALLOC_GROW's
	 * half again).  A regular file says how many are left; a pipe is read
	 * in steps of 1 MiB, so a lying header costs at most what was sent.
	 */
	if (r->left >= 0 && b.size > r->left - r->off) {
		got = (size_t)(r->left - r->off);
		snprintf(msg, sizeof(msg), "last block cut off: %zu of its %u bytes", got, b.size);
		vtr_warn(r, at, msg);
		return -1;
	}
	for (size_t have = 0; have < b.size; have += got) {
		size_t step = b.size - have < (1u << 20) ? b.size - have : 1u << 20;

		if (have + step > r->payload_cap) {
			void *p = realloc(r->payload, have + step);

			if (!p) {
				r->oom = 1;
				return -1;
			}
			r->payload = p;
			r->payload_cap = have + step;
		}
		if (vtr_fill(r, r->payload + have, step, &got) != 1) {
			snprintf(msg, sizeof(msg), "last block cut off: %zu of its %u bytes",
				 have + got, b.size);
			vtr_warn(r, at, msg);
			return -1;
		}
	}
	switch (b.type) {
	case VTR_BLOCK_STRINGS:
		if (vtr_strings(r, b.arg, r->payload, b.size)) {
			vtr_warn(r, at, "bad string block; the rest of the file is skipped");
			return -1;
		}
		break;
	case VTR_BLOCK_EVENTS:
		vtr_events(r, (int32_t)b.arg, r->payload, b.size);
		break;
	case VTR_BLOCK_END:
		r->seen_end = 1;
		if (b.size >= sizeof(struct vtr_end)) {
			struct vtr_end end;

			memcpy(&end, r->payload, sizeof(end));
			if (end.nr_unnamed) {
				snprintf(msg, sizeof(msg), "%llu recording calls came after the "
					 "collector's name table was full; their names read "
					 "\"(unknown)\"", (unsigned long long)end.nr_unnamed);
				vtr_warn(r, at, msg);
			}
		}
		return 0;
	default:
		break;		/* a newer writer's block: skip it */
	}
	return 1;
}

int vtr_read_header(const char *path, struct vtr_header *h, struct err *e)
{
	struct vtr_reader r;
	int rc;

	err_clear(e);
	rc = vtr_open(&r, path, e);
	if (!rc)
		*h = r.hdr;
	vtr_close(&r);
	return rc;
}

int vtr_read(const char *path, const struct trace_sink *sink, struct trace_info *info,
	     struct err *e)
{
	struct vtr_reader r;
	char msg[160];
	int rc, trailing;

	memset(info, 0, sizeof(*info));
	info->format = "vtr";
	info->engine = "none";
	info->rank = -1;
	info->world_size = -1;
	err_clear(e);
	if (vtr_open(&r, path, e)) {
		info->bytes_in = info->bytes_text = r.off;
		vtr_close(&r);
		return -1;
	}
	info->rank = r.hdr.rank;
	info->world_size = r.hdr.world_size;
	if (r.hdr.name[0])	/* the run's name, the file name's first part: a tag */
		trace_info_tag(info, "name", 4, r.hdr.name, strlen(r.hdr.name));
	r.sink = sink;
	r.info = info;
	buf_init(&r.args_text);
	arena_init(&r.arena);
	event_batch_init(&r.batch);
	snprintf(r.pid_text, sizeof(r.pid_text), "%d", (int)r.hdr.pid);
	for (int k = 0; k < NR_K; k++)
		r.kgen[k] = UINT32_MAX;
	r.nr_str = 1;

	while ((rc = vtr_block(&r)) > 0 && !r.stopped && !r.oom)
		;
	if (rc == 0 && !r.seen_end)
		vtr_warn(&r, r.off, "no end record: the process stopped without vt_shutdown() "
			 "(killed or crashed?); events up to its last flush are kept");
	/* two files in one, say: records not read, so not complete */
	trailing = r.seen_end && getc(r.f) != EOF;
	if (trailing)
		vtr_warn(&r, r.off, "bytes after the end record not read: the file is incomplete");
	if (!r.stopped && !r.oom)
		vtr_open_regions(&r);
	if (r.nr_bad_time) {
		snprintf(msg, sizeof(msg), "%lld record%s with times beyond +-2^62 ns left out",
			 (long long)r.nr_bad_time, r.nr_bad_time > 1 ? "s" : "");
		vtr_warn(&r, r.bad_time_off, msg);
	}
	if (r.nr_args_dropped) {
		snprintf(msg, sizeof(msg), "%lld region arguments without a region or beyond %d a "
			 "region left out", (long long)r.nr_args_dropped, VTR_MAX_ARGS);
		vtr_warn(&r, -1, msg);
	}
	if (r.nr_unmatched || r.nr_bad) {
		snprintf(msg, sizeof(msg),
			 "%lld region ends without a begin, %lld bad records skipped",
			 (long long)r.nr_unmatched, (long long)r.nr_bad);
		vtr_warn(&r, -1, msg);
	}
	if (!r.oom)
		vtr_batch_flush(&r);
	info->bytes_in = info->bytes_text = r.off;
	info->complete = rc == 0 && r.seen_end && !trailing && !r.oom && !r.stopped;
	if (r.oom)
		err_set(e, r.off, "out of memory");
	else if (r.stopped)
		err_set(e, r.off, "reading stopped by the consumer");
	event_batch_release(&r.batch);
	vtr_close(&r);
	if (r.oom || r.stopped)
		return -1;
	return info->complete ? 0 : 1;
}
