/*
 * vtrace: the collector (API in vtrace.h, file format in lib/read/vtr.h and
 * FORMAT.md).
 *
 * Each recording thread owns a ring of 16-byte records (struct vt_thread).
 * The owner is its only producer: it fills slots and publishes its head with
 * a release store.  Whoever holds g.lock drains rings into the file: the
 * background thread on a timer, vt_flush(), vt_shutdown(), a thread leaving,
 * or the owner itself when its ring is full.  So the hot path takes no lock
 * and allocates nothing: it reads the clock and stores a record.
 *
 * Names are interned into one process-wide table that is read without locks
 * (an entry is complete before its slot is published) and grown under
 * str_lock.  Strings are never removed, so an id is valid for the life of
 * the process; a flush writes the strings a file lacks before the records
 * that use them.
 *
 * Generations: g.gen moves on whenever recording starts or stops.  A thread
 * whose buffer carries another generation takes the slow path, which resets
 * the buffer or returns NULL when recording is off.  The buffer of a live
 * thread is never freed (it may be writing into it at any time); that of a
 * thread that has ended goes to the next new thread, or is freed when the
 * configured size has changed.
 *
 * Lock order: g.lock, then str_lock.
 *
 * fork(): the child keeps nothing of the parent's recording.  It closes its
 * copy of the file and stays off unless it calls vt_init() itself, which
 * then writes NAME-rankR-pidP.vtr, because the parent holds the lock on
 * NAME-rankR.vtr.
 */
#include "vtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "editdist.h"
#include "sampler.h"
#include "vtr.h"

_Static_assert(sizeof(struct vtr_header) == 256, "header layout");
_Static_assert(sizeof(struct vtr_block) == 16, "block layout");
_Static_assert(sizeof(struct vtr_rec) == 16, "record layout");

#define VT_STR_MAX (1u << 14)		/* distinct names per process */
#define VT_SLOTS (VT_STR_MAX * 2)
#define VT_KEEP_DEPTH 256		/* regions nested deeper are always kept */
#define VT_IOV 192			/* iovecs per writev */
#define VT_SCRATCH (64u * 1024)
#define VT_FILTER_MAX 64
#define VT_CACHE 64			/* per-thread name cache entries */

struct vt_thread {
	/* owner only, except while g.lock resets it */
	struct vtr_rec *ring;
	uint64_t head;			/* next slot to fill */
	uint64_t limit;			/* head may grow to here without reading tail */
	uint32_t mask;			/* slots - 1 */
	unsigned gen;
	int depth;
	volatile int busy;		/* inside a recording call (signal re-entry) */
	uint64_t dropped;
	uint64_t keep[VT_KEEP_DEPTH / 64];
	struct {
		const char *name;
		uint32_t id;
	} cache[VT_CACHE];
	/* shared with whoever holds g.lock */
	_Atomic uint64_t pub;		/* head as published */
	_Atomic uint64_t tail;		/* written to the file up to here */
	uint64_t snap;			/* pub when the flush began */
	int32_t tid;
	int free;			/* its thread has ended */
	struct vt_thread *next;
};

struct vt_str {
	const char *s;
	uint32_t len, hash;
	_Atomic unsigned char keep;	/* passes VTRACE_REGIONS */
};

enum { VT_NEVER, VT_OFF, VT_ON };

static struct {
	pthread_mutex_t lock;
	_Atomic unsigned gen;
	_Atomic int state;
	_Atomic int filtering;
	int fd;
	int forked;			/* this process is a fork of a recording one */
	int said_off, warned;		/* the stderr lines we allow ourselves */
	char path[PATH_MAX];
	struct vtr_header hdr;
	struct vt_thread *threads;
	uint32_t str_written;		/* strings below this id are in the file */
	uint64_t nr_records;
	uint32_t ring_slots, flush_ms, sample_ms, live_ms;
	int nr_filter;
	char *filter[VT_FILTER_MAX];
	unsigned char filter_seen[VT_FILTER_MAX];
	char *filter_text;
	pthread_t bg;
	int bg_started, bg_stop;
	pthread_cond_t bg_cond;
	_Atomic int64_t frames, blocks;
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.fd = -1,
};

static unsigned char scratch[VT_SCRATCH];	/* string blocks, under g.lock */
static pthread_mutex_t str_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vt_str strs[VT_STR_MAX];
static _Atomic uint32_t str_slots[VT_SLOTS];
static _Atomic uint32_t nr_strs = 1;
static _Atomic uint64_t nr_unnamed;	/* name lookups that found the table full */

/*
 * The calling thread's buffer, and how many of our locks it holds: a signal
 * handler that interrupts it there must not try to take them again.
 */
static __thread struct {
	struct vt_thread *t;
	int locks;
} tls;
static pthread_key_t thread_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_failed;

static void flush_locked(struct vt_thread *only);

static void mutex_take(pthread_mutex_t *m)
{
	tls.locks++;
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(m);
}

static void mutex_drop(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	atomic_signal_fence(memory_order_seq_cst);
	tls.locks--;
}

static inline int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One line on stderr in one write(2), so it never interleaves. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "vtrace: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		return;
}

/* Stop recording after a failure.  Caller holds g.lock. */
static void off_locked(const char *what, int err)
{
	if (!g.said_off) {
		say("%s '%s': %s; recording is off", what, g.path, strerror(err));
		g.said_off = 1;
	}
	if (g.fd >= 0)
		close(g.fd);
	g.fd = -1;
	atomic_store(&g.state, VT_OFF);
	atomic_fetch_add(&g.gen, 1);
}

/* ---- string table ---- */

static inline uint32_t str_hash(const char *s, uint32_t *len)
{
	uint32_t h = 2166136261u, n = 0;

	while (s[n] && n < VTR_NAME_MAX)
		h = (h ^ (unsigned char)s[n++]) * 16777619u;
	*len = n;
	return h;
}

static int filter_match(const char *s, uint32_t len)
{
	for (int i = 0; i < g.nr_filter; i++) {
		if (strlen(g.filter[i]) == len && !memcmp(g.filter[i], s, len)) {
			g.filter_seen[i] = 1;
			return 1;
		}
	}
	return 0;
}

static uint32_t str_add(const char *s, uint32_t len, uint32_t h)
{
	uint32_t i, id = 0;
	char *copy;

	mutex_take(&str_lock);
	for (i = h & (VT_SLOTS - 1);; i = (i + 1) & (VT_SLOTS - 1)) {
		id = atomic_load_explicit(&str_slots[i], memory_order_relaxed);
		if (!id)
			break;
		if (strs[id].hash == h && strs[id].len == len && !memcmp(strs[id].s, s, len))
			goto out;
	}
	id = atomic_load_explicit(&nr_strs, memory_order_relaxed);
	if (id >= VT_STR_MAX || !(copy = malloc(len + 1))) {
		/* Counted in the end record, and one line now: regions read "(unknown)". */
		if (!atomic_fetch_add(&nr_unnamed, 1) && !g.warned) {
			say("more than %u distinct names; later new names are recorded as "
			    "'(unknown)'", VT_STR_MAX - 1);
			g.warned = 1;
		}
		id = 0;
		goto out;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	strs[id].s = copy;
	strs[id].len = len;
	strs[id].hash = h;
	if (atomic_load_explicit(&g.filtering, memory_order_relaxed))
		atomic_store_explicit(&strs[id].keep, filter_match(copy, len),
				      memory_order_relaxed);
	atomic_store_explicit(&nr_strs, id + 1, memory_order_release);
	atomic_store_explicit(&str_slots[i], id, memory_order_release);
out:
	mutex_drop(&str_lock);
	return id;
}

/* The id of name, 0 when the table is full.  Lock-free when known. */
static uint32_t str_id(const char *name)
{
	uint32_t len, h, i, id;

	if (!name)
		name = "(null)";
	h = str_hash(name, &len);
	for (i = h & (VT_SLOTS - 1);; i = (i + 1) & (VT_SLOTS - 1)) {
		id = atomic_load_explicit(&str_slots[i], memory_order_acquire);
		if (!id)
			return str_add(name, len, h);
		if (strs[id].hash == h && strs[id].len == len && !memcmp(strs[id].s, name, len))
			return id;
	}
}

static inline int str_same(const char *a, const char *b)
{
	while (*a == *b && *a) {
		a++;
		b++;
	}
	return *a == *b;
}

/*
 * str_id() through a per-thread cache keyed by the pointer: a program passes
 * the same literal again and again.  The bytes are still compared, because
 * a buffer may hold another name by the next call.
 */
static uint32_t __attribute__((noinline)) name_miss(struct vt_thread *t, const char *name)
{
	unsigned i = ((uintptr_t)name >> 3) & (VT_CACHE - 1);
	uint32_t id = str_id(name ? name : "(null)");

	t->cache[i].name = name;
	t->cache[i].id = id;
	return id;
}

static inline uint32_t name_id(struct vt_thread *t, const char *name)
{
	unsigned i = ((uintptr_t)name >> 3) & (VT_CACHE - 1);
	uint32_t id = t->cache[i].id;

	if (__builtin_expect(t->cache[i].name == name && id && name, 1) &&
	    str_same(name, strs[id].s))
		return id;
	return name_miss(t, name);
}

/* ---- writing ---- */

/* writev all of iov, through short writes.  0, or -1 with errno. */
static int write_iov(struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t done = writev(g.fd, iov, n > IOV_MAX ? IOV_MAX : n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (done == 0) {
			errno = ENOSPC;
			return -1;
		}
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

static int write_block(uint16_t type, uint32_t arg, const void *p, uint32_t size)
{
	struct vtr_block b = { VTR_BLOCK_MAGIC, type, 0, size, arg };
	struct iovec iov[2] = { { &b, sizeof(b) }, { (void *)p, size } };

	return write_iov(iov, size ? 2 : 1);
}

/* Strings the file lacks, in blocks of at most VT_SCRATCH bytes. */
static int write_strings(uint32_t upto)
{
	while (g.str_written < upto) {
		uint32_t first = g.str_written, n = 0;

		while (g.str_written < upto) {
			const struct vt_str *st = &strs[g.str_written];

			if (n + 4 + st->len > VT_SCRATCH)
				break;
			memcpy(scratch + n, &st->len, 4);
			memcpy(scratch + n + 4, st->s, st->len);
			n += 4 + st->len;
			g.str_written++;
		}
		if (write_block(VTR_BLOCK_STRINGS, first, scratch, n))
			return -1;
	}
	return 0;
}

/* Write iov, then let the rings of batch[] reuse what it held. */
static int flush_iov(struct iovec *iov, int niov, struct vt_thread **batch, int nb)
{
	if (write_iov(iov, niov))
		return -1;
	for (int i = 0; i < nb; i++)
		atomic_store_explicit(&batch[i]->tail, batch[i]->snap, memory_order_release);
	return 0;
}

static int thread_live(const struct vt_thread *t)
{
	return !t->free && t->gen == atomic_load_explicit(&g.gen, memory_order_relaxed);
}

/*
 * Write the records of one thread (only) or of all.  Heads are taken first
 * and the string count after them, so every id a written record uses is in
 * the file before it.  A ring's tail moves only once its records are in the
 * file.  Caller holds g.lock; on a write error recording goes off.
 */
static void flush_locked(struct vt_thread *only)
{
	struct vtr_block hdr[VT_IOV / 3];
	struct vt_thread *batch[VT_IOV / 3], *t;
	struct iovec iov[VT_IOV];
	int niov = 0, nb = 0;

	if (g.fd < 0)
		return;
	for (t = only ? only : g.threads; t; t = only ? NULL : t->next)
		t->snap = thread_live(t) ? atomic_load_explicit(&t->pub, memory_order_acquire)
					 : atomic_load_explicit(&t->tail, memory_order_relaxed);
	if (write_strings(atomic_load_explicit(&nr_strs, memory_order_acquire)))
		goto fail;
	for (t = only ? only : g.threads; t; t = only ? NULL : t->next) {
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_relaxed);
		uint64_t slots = (uint64_t)t->mask + 1, n = t->snap - tail;
		uint64_t at = tail & t->mask, first = n < slots - at ? n : slots - at;

		if (!n)
			continue;
		hdr[nb] = (struct vtr_block){ VTR_BLOCK_MAGIC, VTR_BLOCK_EVENTS, 0,
					      (uint32_t)(n * sizeof(*t->ring)), (uint32_t)t->tid };
		iov[niov++] = (struct iovec){ &hdr[nb], sizeof(hdr[nb]) };
		iov[niov++] = (struct iovec){ t->ring + at, first * sizeof(*t->ring) };
		if (n > first)
			iov[niov++] = (struct iovec){ t->ring, (n - first) * sizeof(*t->ring) };
		batch[nb++] = t;
		g.nr_records += n;
		if (niov + 3 > VT_IOV && flush_iov(iov, niov, batch, nb))
			goto fail;
		if (niov + 3 > VT_IOV)
			niov = nb = 0;
	}
	if (niov && flush_iov(iov, niov, batch, nb))
		goto fail;
	return;
fail:
	off_locked("cannot write", errno);
}

/* ---- threads ---- */

static void thread_reset(struct vt_thread *t)
{
	t->head = 0;
	t->limit = (uint64_t)t->mask + 1;
	atomic_store_explicit(&t->pub, 0, memory_order_relaxed);
	atomic_store_explicit(&t->tail, 0, memory_order_relaxed);
	t->depth = 0;
	t->busy = 0;
	t->dropped = 0;
	t->gen = atomic_load(&g.gen);
}

/* Runs when a thread that recorded ends: write what it has, free its buffer. */
static void thread_exit(void *p)
{
	struct vt_thread *t = p;

	mutex_take(&g.lock);
	if (thread_live(t) && atomic_load(&g.state) == VT_ON)
		flush_locked(t);
	t->free = 1;
	mutex_drop(&g.lock);
	tls.t = NULL;
}

static struct vt_thread *thread_new(void)
{
	struct vt_thread *t;
	size_t slots = g.ring_slots;
	void *p;

	if (posix_memalign(&p, 64, sizeof(*t) + slots * sizeof(struct vtr_rec)))
		return NULL;
	t = p;
	memset(t, 0, sizeof(*t));
	t->ring = (struct vtr_rec *)(t + 1);
	t->mask = slots - 1;
	t->next = g.threads;
	g.threads = t;
	return t;
}

/*
 * The buffer of a thread that has ended, if one has the configured size.
 * Free buffers of another size are released: no thread can reach them.
 * Caller holds g.lock.
 */
static struct vt_thread *thread_reuse(void)
{
	struct vt_thread **pp = &g.threads, *t;

	while ((t = *pp)) {
		if (t->free && t->mask + 1 == g.ring_slots)
			return t;
		if (t->free) {
			*pp = t->next;
			free(t);
			continue;
		}
		pp = &t->next;
	}
	return NULL;
}

static void auto_init(void);

/* The slow path: the calling thread's buffer for this generation, or NULL. */
static struct vt_thread *__attribute__((noinline)) thread_attach(void)
{
	struct vt_thread *t = tls.t;

	/* A signal handler must not reset a buffer its thread is writing into. */
	if (tls.locks || (t && t->busy))
		return NULL;
	if (atomic_load(&g.state) == VT_NEVER)
		auto_init();
	if (atomic_load(&g.state) != VT_ON)
		return NULL;
	mutex_take(&g.lock);
	if (atomic_load(&g.state) != VT_ON) {
		t = NULL;
		goto out;
	}
	if (!t) {
		t = thread_reuse();
		if (!t && !(t = thread_new())) {
			off_locked("out of memory for the buffer of", ENOMEM);
			goto out;
		}
		t->free = 0;
		t->tid = gettid();
		tls.t = t;
		pthread_setspecific(thread_key, t);
	}
	thread_reset(t);
out:
	mutex_drop(&g.lock);
	return t;
}

static inline struct vt_thread *thread_self(void)
{
	struct vt_thread *t = tls.t;

	if (__builtin_expect(t && t->gen == atomic_load_explicit(&g.gen, memory_order_relaxed), 1))
		return t;
	return thread_attach();
}

/* The ring is full: write it out ourselves.  0 when there is room now. */
static int __attribute__((noinline)) ring_room(struct vt_thread *t, unsigned n)
{
	uint64_t slots = (uint64_t)t->mask + 1;

	t->limit = atomic_load_explicit(&t->tail, memory_order_acquire) + slots;
	if (t->head + n <= t->limit)
		return 0;
	mutex_take(&g.lock);
	if (thread_live(t) && atomic_load(&g.state) == VT_ON)
		flush_locked(t);
	mutex_drop(&g.lock);
	t->limit = atomic_load_explicit(&t->tail, memory_order_acquire) + slots;
	if (t->head + n <= t->limit)
		return 0;
	t->dropped++;
	return -1;
}

static inline struct vtr_rec *rec_at(struct vt_thread *t, unsigned i)
{
	return &t->ring[(t->head + i) & t->mask];
}

static inline void rec_commit(struct vt_thread *t, unsigned n)
{
	t->head += n;
	atomic_store_explicit(&t->pub, t->head, memory_order_release);
}

/*
 * Enter a recording call.  A call that interrupts another one of the same
 * thread (a signal handler) would share its slot, so it is dropped.
 */
static inline struct vt_thread *rec_enter(void)
{
	struct vt_thread *t = thread_self();

	if (!t)
		return NULL;
	if (t->busy || tls.locks) {
		t->dropped++;
		return NULL;
	}
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return t;
}

static inline void rec_leave(struct vt_thread *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

/* A record and the VALUE after it, on thread t inside a recording call. */
static void rec_pair(struct vt_thread *t, uint32_t type, uint32_t id, uint32_t arg, int64_t value)
{
	struct vtr_rec *r;

	if (t->head + 2 > t->limit && ring_room(t, 2))
		return;
	r = rec_at(t, 0);
	r->ts_ns = now_ns(CLOCK_MONOTONIC);
	r->word = VTR_REC_WORD(type, id);
	r->arg = arg;
	r = rec_at(t, 1);
	r->ts_ns = value;
	r->word = VTR_REC_VALUE;
	r->arg = 0;
	rec_commit(t, 2);
}

/* A record with a value (two slots); name, when given, is interned here. */
static void rec_value(uint32_t type, const char *name, uint32_t id, uint32_t arg, int64_t value)
{
	struct vt_thread *t = rec_enter();

	if (!t)
		return;
	if (name)
		id = name_id(t, name);
	rec_pair(t, type, id, arg, value);
	rec_leave(t);
}

/* ---- the recording API ---- */

VT_API void vt_region_begin(const char *name)
{
	struct vt_thread *t = rec_enter();
	struct vtr_rec *r;
	uint32_t id;
	int d;

	if (!t)
		return;
	id = name_id(t, name);
	d = t->depth++;
	if (atomic_load_explicit(&g.filtering, memory_order_relaxed) && d < VT_KEEP_DEPTH) {
		uint64_t bit = 1ull << (d & 63);

		if (!id || !atomic_load_explicit(&strs[id].keep, memory_order_relaxed)) {
			t->keep[d >> 6] &= ~bit;
			goto out;
		}
		t->keep[d >> 6] |= bit;
	}
	/* ring_room() fails only when recording went off, so no end follows. */
	if (t->head + 1 > t->limit && ring_room(t, 1))
		goto out;
	r = rec_at(t, 0);
	r->word = VTR_REC_WORD(VTR_REC_BEGIN, id);
	r->arg = 0;
	r->ts_ns = now_ns(CLOCK_MONOTONIC);
	rec_commit(t, 1);
out:
	rec_leave(t);
}

VT_API void vt_region_end(void)
{
	int64_t ts = now_ns(CLOCK_MONOTONIC);
	struct vt_thread *t = rec_enter();
	struct vtr_rec *r;
	int d;

	if (!t)
		return;
	if (t->depth <= 0)
		goto out;
	d = --t->depth;
	if (atomic_load_explicit(&g.filtering, memory_order_relaxed) && d < VT_KEEP_DEPTH &&
	    !(t->keep[d >> 6] & 1ull << (d & 63)))
		goto out;
	if (t->head + 1 > t->limit && ring_room(t, 1))
		goto out;
	r = rec_at(t, 0);
	r->ts_ns = ts;
	r->word = VTR_REC_WORD(VTR_REC_END, 0);
	r->arg = 0;
	rec_commit(t, 1);
out:
	rec_leave(t);
}

VT_API void vt_instant(const char *name)
{
	struct vt_thread *t = rec_enter();
	struct vtr_rec *r;
	uint32_t id;

	if (!t)
		return;
	id = name_id(t, name);
	if (t->head + 1 > t->limit && ring_room(t, 1))
		goto out;
	r = rec_at(t, 0);
	r->ts_ns = now_ns(CLOCK_MONOTONIC);
	r->word = VTR_REC_WORD(VTR_REC_INSTANT, id);
	r->arg = 0;
	rec_commit(t, 1);
out:
	rec_leave(t);
}

/* A region argument: kind and the value's bits, after the region's begin. */
static void region_arg(const char *key, uint32_t kind, int64_t bits)
{
	struct vt_thread *t = rec_enter();
	int d;

	if (!t)
		return;
	d = t->depth - 1;
	/* no region, or one left out: nothing to belong to */
	if (d >= 0 && !(atomic_load_explicit(&g.filtering, memory_order_relaxed) &&
			d < VT_KEEP_DEPTH && !(t->keep[d >> 6] & 1ull << (d & 63))))
		rec_pair(t, VTR_REC_ARG, name_id(t, key), kind, bits);
	rec_leave(t);
}

VT_API void vt_region_arg(const char *key, int64_t value)
{
	region_arg(key ? key : "(null)", VTR_ARG_INT, value);
}

VT_API void vt_region_argf(const char *key, double value)
{
	int64_t bits;

	memcpy(&bits, &value, sizeof(bits));
	region_arg(key ? key : "(null)", VTR_ARG_DOUBLE, bits);
}

VT_API void vt_tag(const char *key, const char *value)
{
	struct vt_thread *t;
	struct vtr_rec *r;
	uint32_t k, v;

	if (!key || !value || !(t = rec_enter()))
		return;
	k = str_id(key);
	v = str_id(value);
	if (k && v && !(t->head + 1 > t->limit && ring_room(t, 1))) {
		r = rec_at(t, 0);
		r->ts_ns = now_ns(CLOCK_MONOTONIC);
		r->word = VTR_REC_WORD(VTR_REC_TAG, k);
		r->arg = v;
		rec_commit(t, 1);
	}
	rec_leave(t);
}

/* VTRACE_TAGS: "key=value,key=value"; a pair without '=' is named on stderr and skipped. */
static void env_tags(void)
{
	const char *env = getenv("VTRACE_TAGS");
	char pair[512];

	while (env && *env) {
		size_t n = strcspn(env, ",");
		char *eq;

		if (n && n < sizeof(pair)) {
			memcpy(pair, env, n);
			pair[n] = '\0';
			if ((eq = strchr(pair, '=')) && eq > pair) {
				*eq = '\0';
				vt_tag(pair, eq + 1);
			} else {
				say("VTRACE_TAGS: '%s' is no key=value pair; skipped", pair);
			}
		}
		env += n + (env[n] == ',');
	}
}

VT_API void vt_counter(const char *name, int64_t value)
{
	rec_value(VTR_REC_COUNTER, name ? name : "(null)", 0, 0, value);
}

VT_API void vt_frames(int64_t n)
{
	rec_value(VTR_REC_FRAMES, NULL, 0, 0, n);
	atomic_fetch_add_explicit(&g.frames, n, memory_order_relaxed);
}

VT_API void vt_blocks(int64_t n)
{
	rec_value(VTR_REC_BLOCKS, NULL, 0, 0, n);
	atomic_fetch_add_explicit(&g.blocks, n, memory_order_relaxed);
}

/* ---- background thread: timed flushes, samples, the live line ---- */

struct vt_sample_ids {
	uint32_t cpu, rss, avail, total;
	uint32_t gpu_used, gpu_total, gpu_util, gpu_temp, gpu_power;
};

static void record_samples(const struct sampler_values *v, const struct vt_sample_ids *id)
{
	if (v->cpu_pct >= 0)
		rec_value(VTR_REC_SAMPLE, NULL, id->cpu, 0, v->cpu_pct);
	if (v->rss_bytes >= 0)
		rec_value(VTR_REC_SAMPLE, NULL, id->rss, 0, v->rss_bytes);
	if (v->mem_avail_bytes >= 0)
		rec_value(VTR_REC_SAMPLE, NULL, id->avail, 0, v->mem_avail_bytes);
	if (v->mem_total_bytes >= 0)
		rec_value(VTR_REC_SAMPLE, NULL, id->total, 0, v->mem_total_bytes);
	for (unsigned i = 0; i < v->nr_gpus; i++) {
		const struct sampler_gpu *gp = &v->gpu[i];

		if (gp->mem_used >= 0)
			rec_value(VTR_REC_SAMPLE, NULL, id->gpu_used, i + 1, gp->mem_used);
		if (gp->mem_total >= 0)
			rec_value(VTR_REC_SAMPLE, NULL, id->gpu_total, i + 1, gp->mem_total);
		if (gp->util_pct >= 0)
			rec_value(VTR_REC_SAMPLE, NULL, id->gpu_util, i + 1, gp->util_pct);
		if (gp->temp_c >= 0)
			rec_value(VTR_REC_SAMPLE, NULL, id->gpu_temp, i + 1, gp->temp_c);
		if (gp->power_mw >= 0)
			rec_value(VTR_REC_SAMPLE, NULL, id->gpu_power, i + 1, gp->power_mw);
	}
}

static void live_line(const struct sampler_values *v, int64_t *last_frames, int64_t *last_ns)
{
	char line[512];
	int64_t frames = atomic_load(&g.frames), blocks = atomic_load(&g.blocks);
	int64_t now = now_ns(CLOCK_MONOTONIC);
	double secs = (now - *last_ns) / 1e9;
	int gib = v->rss_bytes >= 1073741824;
	double rss = v->rss_bytes / (gib ? 1073741824.0 : 1048576.0);
	size_t n = 0;

	n += snprintf(line + n, sizeof(line) - n, "vtrace: rank %lld:", (long long)g.hdr.rank);
	for (unsigned i = 0; i < v->nr_gpus && i < 4 && n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " gpu%u %.1f/%.1f GiB %lld%%", i,
			      v->gpu[i].mem_used / 1073741824.0, v->gpu[i].mem_total / 1073741824.0,
			      (long long)v->gpu[i].util_pct);
	if (v->nr_gpus > 4 && n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " (+%u gpus)", v->nr_gpus - 4);
	if (n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n,
			      " | cpu %lld%% rss %.*f %s | frames %lld blocks %lld | %.2f fps\n",
			      (long long)v->cpu_pct, gib ? 2 : 0, rss,
			      gib ? "GiB" : "MiB", (long long)frames, (long long)blocks,
			      secs > 0 ? (frames - *last_frames) / secs : 0.0);
	if (n >= sizeof(line)) {
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	*last_frames = frames;
	*last_ns = now;
	if (write(2, line, n) < 0)
		return;
}

static int64_t next_due(int64_t last, uint32_t every_ms)
{
	return every_ms ? last + (int64_t)every_ms * 1000000 : INT64_MAX;
}

static void *bg_main(void *arg)
{
	struct sampler smp;
	struct sampler_values v;
	struct vt_sample_ids id = { 0 };
	int64_t last_flush, last_sample, last_live, last_frames = 0, live_from;
	int sampling = g.sample_ms || g.live_ms;

	(void)arg;
	if (sampling) {
		sampler_open(&smp);
		id.cpu = str_id("proc.cpu_pct");
		id.rss = str_id("proc.rss_bytes");
		id.avail = str_id("sys.mem_available_bytes");
		id.total = str_id("sys.mem_total_bytes");
		id.gpu_used = str_id("gpu.mem_used_bytes");
		id.gpu_total = str_id("gpu.mem_total_bytes");
		id.gpu_util = str_id("gpu.util_pct");
		id.gpu_temp = str_id("gpu.temp_c");
		id.gpu_power = str_id("gpu.power_mw");
		sampler_read(&smp, &v);
	}
	last_flush = last_sample = last_live = live_from = now_ns(CLOCK_MONOTONIC);
	mutex_take(&g.lock);
	while (!g.bg_stop && atomic_load(&g.state) == VT_ON) {
		int64_t due = next_due(last_flush, g.flush_ms), now;
		struct timespec ts;

		if (next_due(last_sample, g.sample_ms) < due)
			due = next_due(last_sample, g.sample_ms);
		if (next_due(last_live, g.live_ms) < due)
			due = next_due(last_live, g.live_ms);
		ts.tv_sec = due / 1000000000;
		ts.tv_nsec = due % 1000000000;
		pthread_cond_timedwait(&g.bg_cond, &g.lock, &ts);
		if (g.bg_stop || atomic_load(&g.state) != VT_ON)
			break;
		now = now_ns(CLOCK_MONOTONIC);
		if (now >= next_due(last_flush, g.flush_ms)) {
			flush_locked(NULL);
			last_flush = now;
		}
		if (!sampling)
			continue;
		/* Sampling reads /proc and NVML, which may be slow: not under the lock. */
		mutex_drop(&g.lock);
		if (now >= next_due(last_sample, g.sample_ms) ||
		    now >= next_due(last_live, g.live_ms)) {
			sampler_read(&smp, &v);
			if (now >= next_due(last_sample, g.sample_ms)) {
				record_samples(&v, &id);
				last_sample = now;
			}
			if (now >= next_due(last_live, g.live_ms)) {
				live_line(&v, &last_frames, &live_from);
				last_live = now;
			}
		}
		mutex_take(&g.lock);
	}
	mutex_drop(&g.lock);
	if (sampling)
		sampler_close(&smp);
	return NULL;
}

/* ---- configuration ---- */

/* The one line we allow ourselves about a bad variable. */
static void env_bad(const char *name, const char *s)
{
	if (!g.warned) {
		say("%s: '%s' is not a usable number; the default is used", name, s);
		g.warned = 1;
	}
}

/*
 * The value of env var name, a number >= 0, times scale; def when it is
 * unset or empty, and def with a warning when it is not a number in
 * [0, max] (NaN and infinities included: they pass no comparison).
 */
static uint32_t env_num(const char *name, double scale, double max, uint32_t def)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0 && v * scale <= max)) {
		env_bad(name, s);
		return def;
	}
	return v > 0 && v * scale < 1 ? 1 : (uint32_t)(v * scale);
}

/* An integer env var: def when unset, empty or (with a warning) not an integer. */
static int64_t env_int(const char *name, int64_t def)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end) {
		env_bad(name, s);
		return def;
	}
	return v;
}

static void filter_set(void)
{
	const char *env = getenv("VTRACE_REGIONS");
	char *save = NULL, *tok;

	free(g.filter_text);
	g.filter_text = NULL;
	g.nr_filter = 0;
	if (env && *env && (g.filter_text = strdup(env))) {
		for (tok = strtok_r(g.filter_text, ", ", &save); tok && g.nr_filter < VT_FILTER_MAX;
		     tok = strtok_r(NULL, ", ", &save))
			g.filter[g.nr_filter++] = tok;
	}
	memset(g.filter_seen, 0, sizeof(g.filter_seen));
	mutex_take(&str_lock);
	atomic_store(&g.filtering, g.nr_filter > 0);
	for (uint32_t id = 1; g.nr_filter && id < atomic_load(&nr_strs); id++)
		atomic_store(&strs[id].keep, filter_match(strs[id].s, strs[id].len));
	mutex_drop(&str_lock);
}

/* The interned name closest to f, within two edits, or NULL.  Under str_lock. */
static const char *filter_suggest(const char *f)
{
	size_t nf = strlen(f);
	const char *best = NULL;
	size_t best_d = 3;

	for (uint32_t id = 1; id < atomic_load(&nr_strs); id++) {
		const struct vt_str *st = &strs[id];
		size_t d;

		if (st->len + 2 < nf || st->len > nf + 2 || st->len > 64)
			continue;
		d = edit_distance(f, nf, st->s, st->len);
		if (d < best_d) {
			best_d = d;
			best = st->s;
		}
	}
	return best;
}

/*
 * At the end, one line about the VTRACE_REGIONS entries that never named
 * anything (most likely misspelled), with the closest name as a hint.
 * Under str_lock.
 */
static void filter_report(void)
{
	char list[400];
	size_t n = 0;

	if (g.warned)
		return;
	for (int i = 0; i < g.nr_filter && n < sizeof(list); i++) {
		const char *hint;

		if (g.filter_seen[i])
			continue;
		n += snprintf(list + n, sizeof(list) - n, "%s'%s'", n ? ", " : "", g.filter[i]);
		if ((hint = filter_suggest(g.filter[i])) && n < sizeof(list))
			n += snprintf(list + n, sizeof(list) - n, " (did you mean '%s'?)", hint);
	}
	if (n) {
		say("VTRACE_REGIONS: no region is named %s", list);
		g.warned = 1;
	}
}

static int mkdir_p(const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return errno = ENAMETOOLONG, -1;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) && errno != EEXIST)
			return -1;
		p[i] = dir[i];
	}
	return 0;
}

static void name_copy(char *dst, size_t cap, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++)
		dst[i] = src[i] == '/' ? '_' : src[i];
	dst[i] = '\0';
}

/* Candidates after the plain name: with the pid, then with the pid and a count. */
#define FILE_TRIES 100

/*
 * Create the file; never open one that exists.  A name in use (a file of
 * an earlier session or run, a parent's file after a fork, or anything
 * planted there: a FIFO would block open() until a reader came, a device
 * would take our bytes) is left alone and the next candidate is tried:
 * NAME-rankR.vtr, NAME-rankR-pidP.vtr, NAME-rankR-pidP-2.vtr and so on.
 * O_EXCL makes the test and the creation one step; O_NONBLOCK and the
 * fstat() are for file systems that do not honour O_EXCL, so that open()
 * cannot wait and only a regular file is written.
 */
static int file_open(const char *dir, const char *name, int64_t rank)
{
	struct stat st;
	int fd = -1;

	for (int i = g.forked; i < FILE_TRIES; i++) {
		size_t n = snprintf(g.path, sizeof(g.path), "%s/%s-rank%lld", dir, name,
				    (long long)rank);

		if (i && n < sizeof(g.path))
			n += snprintf(g.path + n, sizeof(g.path) - n, "-pid%d", (int)getpid());
		if (i > 1 && n < sizeof(g.path))
			n += snprintf(g.path + n, sizeof(g.path) - n, "-%d", i);
		if (n < sizeof(g.path))
			n += snprintf(g.path + n, sizeof(g.path) - n, ".vtr");
		if (n >= sizeof(g.path))
			return errno = ENAMETOOLONG, -1;
		fd = open(g.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			  0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0))	/* blocking again: the writer handles no EAGAIN */
		goto fail;
	return fd;
fail:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
	return -1;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from the tightest of a few brackets. */
static int64_t clock_offset(void)
{
	int64_t best_gap = INT64_MAX, off = 0;

	for (int i = 0; i < 5; i++) {
		int64_t m0 = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_REALTIME);
		int64_t m1 = now_ns(CLOCK_MONOTONIC);

		if (m1 - m0 < best_gap) {
			best_gap = m1 - m0;
			off = r - (m0 + (m1 - m0) / 2);
		}
	}
	return off;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&g.lock);
	pthread_mutex_lock(&str_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&str_lock);
	pthread_mutex_unlock(&g.lock);
}

/* Only async-signal-safe work here: the child of a threaded parent. */
static void atfork_child(void)
{
	struct vt_thread *t;

	if (atomic_load(&g.state) == VT_ON) {
		g.forked = 1;
		if (g.fd >= 0)
			close(g.fd);
		g.fd = -1;
		atomic_store(&g.state, VT_OFF);
	}
	atomic_fetch_add(&g.gen, 1);
	g.bg_started = 0;
	for (t = g.threads; t; t = t->next)
		if (t != tls.t)
			t->free = 1;
	pthread_mutex_unlock(&str_lock);
	pthread_mutex_unlock(&g.lock);
}

static void atexit_shutdown(void)
{
	vt_shutdown();
}

static void once_init(void)
{
	if (pthread_key_create(&thread_key, thread_exit) ||
	    pthread_atfork(atfork_prepare, atfork_parent, atfork_child) ||
	    atexit(atexit_shutdown))
		once_failed = 1;
}

static int bg_start(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (!g.flush_ms && !g.sample_ms && !g.live_ms)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g.bg_cond, &ca);
	pthread_condattr_destroy(&ca);
	g.bg_stop = 0;
	/* Signals meant for the host program must never land on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&g.bg, NULL, bg_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&g.bg_cond);
		return errno = err, -1;
	}
	g.bg_started = 1;
	return 0;
}

/* Join a background thread that ended or is told to end.  Without g.lock. */
static void bg_join(void)
{
	mutex_take(&g.lock);
	if (!g.bg_started) {
		mutex_drop(&g.lock);
		return;
	}
	g.bg_started = 0;
	g.bg_stop = 1;
	pthread_cond_signal(&g.bg_cond);
	mutex_drop(&g.lock);
	pthread_join(g.bg, NULL);
	pthread_cond_destroy(&g.bg_cond);
}

VT_API int vt_init(const char *dir, const char *name, int rank)
{
	const char *env;
	char clean[64];
	int64_t r;
	uint32_t kb;
	int rc = -1;

	/* A background thread that ended with a failure is still to be joined. */
	if (atomic_load(&g.state) != VT_ON)
		bg_join();
	pthread_once(&once, once_init);
	mutex_take(&g.lock);
	if (atomic_load(&g.state) == VT_ON) {
		rc = 0;
		goto out;
	}
	if ((env = getenv("VTRACE_DIR")) && *env)
		dir = env;
	if ((env = getenv("VTRACE_NAME")) && *env)
		name = env;
	if (!dir || !*dir)
		dir = ".";
	if (!name || !*name)
		name = program_invocation_short_name;
	r = rank >= 0 ? rank : 0;
	if ((env = getenv("VTRACE_RANK")) && *env)
		r = env_int("VTRACE_RANK", r);
	else if (rank < 0)
		r = env_int("RANK", r);
	name_copy(clean, sizeof(clean), name);

	g.flush_ms = env_num("VTRACE_FLUSH_MS", 1, 1e9, 1000);
	g.sample_ms = env_num("VTRACE_SAMPLE_MS", 1, 1e9, 0);
	g.live_ms = env_num("VTRACE_LIVE", 1000, 1e9, 0);
	kb = env_num("VTRACE_BUFFER_KB", 1, 65536, 0);
	g.ring_slots = 4096;
	while (g.ring_slots < (kb ? kb : 1024) * 1024u / sizeof(struct vtr_rec))
		g.ring_slots *= 2;

	snprintf(g.path, sizeof(g.path), "%s/%s-rank%lld.vtr", dir, clean, (long long)r);
	if (once_failed) {
		errno = ENOMEM;
		goto fail;
	}
	if (mkdir_p(dir) || (g.fd = file_open(dir, clean, r)) < 0)
		goto fail;
	memset(&g.hdr, 0, sizeof(g.hdr));
	memcpy(g.hdr.magic, VTR_MAGIC, VTR_MAGIC_LEN);
	g.hdr.version = VTR_VERSION;
	g.hdr.header_size = sizeof(g.hdr);
	g.hdr.byte_order = VTR_BYTE_ORDER;
	g.hdr.rec_size = sizeof(struct vtr_rec);
	g.hdr.clock_offset_ns = clock_offset();
	g.hdr.start_ns = now_ns(CLOCK_MONOTONIC);
	g.hdr.rank = r;
	g.hdr.world_size = env_int("WORLD_SIZE", -1);
	g.hdr.pid = getpid();
	gethostname(g.hdr.host, sizeof(g.hdr.host) - 1);
	snprintf(g.hdr.name, sizeof(g.hdr.name), "%s", clean);
	{
		struct iovec iov = { &g.hdr, sizeof(g.hdr) };

		if (write_iov(&iov, 1))
			goto fail_close;
	}
	filter_set();
	g.str_written = 1;
	g.nr_records = 0;
	atomic_store(&nr_unnamed, 0);
	atomic_store(&g.frames, 0);
	atomic_store(&g.blocks, 0);
	atomic_store(&g.state, VT_ON);
	atomic_fetch_add(&g.gen, 1);
	if (bg_start()) {
		off_locked("cannot start a thread to write", errno);
		goto out;
	}
	rc = 0;
	goto out;
fail_close:
	off_locked("cannot write", errno);
	goto out;
fail:
	off_locked("cannot create", errno);
out:
	mutex_drop(&g.lock);
	if (!rc)	/* recording calls, which take no lock of ours */
		env_tags();
	return rc;
}

/*
 * The first recording call of a program that never called vt_init(): start
 * when VTRACE_DIR is set, else stay off for good (so that later calls are
 * cheap) until vt_init().
 */
static void auto_init(void)
{
	static atomic_flag tried = ATOMIC_FLAG_INIT;
	const char *dir = getenv("VTRACE_DIR");
	int never = VT_NEVER;

	if (!dir || !*dir)
		atomic_compare_exchange_strong(&g.state, &never, VT_OFF);
	else if (!atomic_flag_test_and_set(&tried))
		vt_init(NULL, NULL, -1);
}

VT_API void vt_shutdown(void)
{
	struct vtr_end end = { 0 };

	bg_join();
	mutex_take(&g.lock);
	if (atomic_load(&g.state) != VT_ON)
		goto out;
	flush_locked(NULL);
	if (g.fd < 0)
		goto out;
	end.end_ns = now_ns(CLOCK_MONOTONIC);
	end.nr_records = g.nr_records;
	for (struct vt_thread *t = g.threads; t; t = t->next)
		end.nr_dropped += t->dropped;
	end.nr_unnamed = atomic_load(&nr_unnamed);
	if (write_block(VTR_BLOCK_END, 0, &end, sizeof(end))) {
		off_locked("cannot write", errno);
		goto out;
	}
	mutex_take(&str_lock);
	filter_report();
	mutex_drop(&str_lock);
	close(g.fd);
	g.fd = -1;
	atomic_store(&g.state, VT_OFF);
	atomic_fetch_add(&g.gen, 1);
out:
	mutex_drop(&g.lock);
}

VT_API int vt_flush(void)
{
	int rc = -1;

	mutex_take(&g.lock);
	if (atomic_load(&g.state) == VT_ON) {
		flush_locked(NULL);
		rc = g.fd >= 0 ? 0 : -1;
	}
	mutex_drop(&g.lock);
	return rc;
}

VT_API int vt_enabled(void)
{
	return atomic_load(&g.state) == VT_ON;
}

VT_API const char *vt_path(void)
{
	return atomic_load(&g.state) == VT_ON ? g.path : NULL;
}
