/*
 * fuzz_trace_read: libFuzzer target for the whole reader.  The input is
 * written to a memfd and read with trace_read() twice: in 64-byte chunks
 * (the smallest VTRACE_CHUNK_SIZE; nearly every event then spans chunks and
 * the boundary guesses are often wrong) on two threads, and in one chunk
 * of the input's size on one thread (a MiB-sized chunk would cost more than
 * the read itself under ASan).  Input starting with the gzip magic goes
 * through gzin, and with the vtr magic through the collector format reader.
 *
 * Invariants: trace_read returns -1, 0 or 1, 0 exactly when complete; no
 * more events than bytes (of the file or of its inflated text); every
 * warning and error offset lies inside the input; the sink is never called
 * concurrently; the metadata tags are at most TRACE_MAX_TAGS, their keys
 * distinct and safe in JSON unescaped, keys and values terminated; and both
 * reads give the same result, events, trace info, tags and first warning
 * (or error), as the chunking must not show.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "trace_read.h"

#define FUZZ_NAME "fuzz_trace_read"
#include "fuzz.h"

struct sink_ctx {
	uint64_t h;
	int64_t n;
	int busy;
};

static int on_batch(void *vctx, const struct event_batch *b)
{
	struct sink_ctx *c = vctx;

	ASSERT(!__atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQ_REL), "sink called concurrently");
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *e = &b->ev[i];

		c->h = fnv(c->h, &e->flags, sizeof(e->flags));
		c->h = hash_str(c->h, b, e->ph);
		c->h = hash_str(c->h, b, e->name);
		c->h = hash_str(c->h, b, e->cat);
		c->h = hash_str(c->h, b, e->pid);
		c->h = hash_str(c->h, b, e->tid);
		c->h = hash_str(c->h, b, e->coll_name);
		if (e->flags & EV_TS)
			c->h = fnv(c->h, &e->ts_ns, sizeof(e->ts_ns));
		if (e->flags & EV_DUR)
			c->h = fnv(c->h, &e->dur_ns, sizeof(e->dur_ns));
		if (e->flags & EV_CORRELATION)
			c->h = fnv(c->h, &e->correlation, sizeof(e->correlation));
		if (e->flags & EV_FLOW_ID)
			c->h = fnv(c->h, &e->flow_id, sizeof(e->flow_id));
	}
	c->n += (int64_t)b->n;
	__atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
	return 0;
}

struct result {
	int rc;
	struct trace_info info;
	struct err e;
	struct sink_ctx c;
};

static void read_once(const char *path, const char *chunk, int threads, struct result *r)
{
	struct trace_read_opts opts = { .nr_threads = threads, .chunk_size = 0 };
	struct trace_sink sink = { .ctx = &r->c, .batch = on_batch, .progress = NULL };

	memset(r, 0, sizeof(*r));
	r->c.h = 14695981039346656037ull;
	setenv("VTRACE_CHUNK_SIZE", chunk, 1);
	r->rc = trace_read(path, &opts, &sink, &r->info, &r->e);
}

static void check(const struct result *r, size_t size)
{
	const struct trace_info *info = &r->info;
	int64_t limit = info->bytes_text > (int64_t)size ? info->bytes_text : (int64_t)size;

	ASSERT(r->rc >= -1 && r->rc <= 1, "rc %d", r->rc);
	if (r->rc >= 0)
		ASSERT(info->complete == (r->rc == 0), "rc %d complete %d", r->rc, info->complete);
	else
		ASSERT(r->e.msg[0] && r->e.offset >= -1 && r->e.offset <= limit,
		       "error \"%s\" at %lld", r->e.msg, (long long)r->e.offset);
	ASSERT(r->c.n == info->nr_events, "sink saw %lld events, info says %lld",
	       (long long)r->c.n, (long long)info->nr_events);
	ASSERT(info->bytes_text >= 0, "bytes_text");
	ASSERT(r->c.n <= limit, "%lld events from %lld bytes", (long long)r->c.n,
	       (long long)limit);
	ASSERT(info->nr_warnings <= TRACE_MAX_WARNINGS &&
		       info->nr_warnings <= info->nr_warnings_total,
	       "warning counts");
	for (size_t i = 0; i < info->nr_warnings; i++)
		ASSERT(info->warnings[i].offset >= -1 && info->warnings[i].offset <= limit,
		       "warning \"%s\" at %lld of %lld", info->warnings[i].msg,
		       (long long)info->warnings[i].offset, (long long)limit);
	ASSERT(info->nr_devices <= TRACE_MAX_DEVICES, "devices");
	for (size_t i = 0; i < info->nr_devices; i++)
		ASSERT(memchr(info->devices[i].name, 0, sizeof(info->devices[i].name)) != NULL,
		       "device name not terminated");
	ASSERT(info->nr_tags <= TRACE_MAX_TAGS, "%zu tags", info->nr_tags);
	for (size_t i = 0; i < info->nr_tags; i++) {
		const struct trace_tag *t = &info->tags[i];

		ASSERT(memchr(t->key, 0, sizeof(t->key)) && memchr(t->value, 0, sizeof(t->value)),
		       "tag %zu not terminated", i);
		for (const char *c = t->key; *c; c++)
			ASSERT((unsigned char)*c >= 0x20 && *c != '"' && *c != '\\' && *c != 0x7f,
			       "tag key \"%s\" needs an escape", t->key);
		for (size_t j = 0; j < i; j++)
			ASSERT(strcmp(info->tags[j].key, t->key), "tag key \"%s\" twice", t->key);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static struct result small, big;
	char chunk[32];

	if (fd < 0)
		fd = fuzz_memfd(path);
	fuzz_fill(fd, data, size);

	read_once(path, "64", 2, &small);
	check(&small, size);
	/* one chunk for plain text; a few for inflated text, which is fine */
	snprintf(chunk, sizeof(chunk), "%zu", size < 64 ? 64 : size + 1);
	read_once(path, chunk, 1, &big);
	check(&big, size);
	unsetenv("VTRACE_CHUNK_SIZE");

	/* The chunk size must not show in the result. */
	ASSERT(small.rc == big.rc, "rc %d in 64-byte chunks, %d in one (%s / %s)", small.rc,
	       big.rc, small.info.nr_warnings ? small.info.warnings[0].msg : small.e.msg,
	       big.info.nr_warnings ? big.info.warnings[0].msg : big.e.msg);
	ASSERT(small.c.n == big.c.n && small.c.h == big.c.h,
	       "%lld events in 64-byte chunks, %lld in one, or different ones",
	       (long long)small.c.n, (long long)big.c.n);
	ASSERT(small.info.rank == big.info.rank && small.info.world_size == big.info.world_size &&
		       small.info.nr_devices == big.info.nr_devices &&
		       small.info.base_time_ns == big.info.base_time_ns,
	       "trace info differs");
	if (small.rc >= 0 && big.rc >= 0 && small.info.complete && big.info.complete) {
		ASSERT(small.info.nr_tags == big.info.nr_tags &&
			       small.info.nr_tags_dropped == big.info.nr_tags_dropped,
		       "%zu tags in 64-byte chunks, %zu in one", small.info.nr_tags,
		       big.info.nr_tags);
		for (size_t i = 0; i < small.info.nr_tags; i++)
			ASSERT(!strcmp(small.info.tags[i].key, big.info.tags[i].key) &&
				       !strcmp(small.info.tags[i].value, big.info.tags[i].value),
			       "tag %zu differs by chunking", i);
	}
	/*
	 * Every warning, and the text read: a read that stops at an error
	 * says what lies past it (a damaged gzip stream) whether or not it
	 * had inflated that far ahead (trace_read.c's inflate_rest()).
	 */
	if (small.rc >= 0) {
		ASSERT(small.info.nr_warnings == big.info.nr_warnings &&
			       small.info.nr_warnings_total == big.info.nr_warnings_total,
		       "%zu warnings in 64-byte chunks, %zu in one", small.info.nr_warnings_total,
		       big.info.nr_warnings_total);
		for (size_t i = 0; i < small.info.nr_warnings; i++) {
			const struct err *a = &small.info.warnings[i], *b = &big.info.warnings[i];

			ASSERT(a->offset == b->offset && strcmp(a->msg, b->msg) == 0,
			       "warning %zu \"%s\" at %lld in 64-byte chunks, \"%s\" at %lld whole",
			       i, a->msg, (long long)a->offset, b->msg, (long long)b->offset);
		}
		ASSERT(small.info.bytes_text == big.info.bytes_text,
		       "%lld bytes of text read in 64-byte chunks, %lld in one",
		       (long long)small.info.bytes_text, (long long)big.info.bytes_text);
	}
	if (small.rc < 0)
		ASSERT(small.e.offset == big.e.offset && strcmp(small.e.msg, big.e.msg) == 0,
		       "error \"%s\" at %lld in 64-byte chunks, \"%s\" at %lld in one", small.e.msg,
		       (long long)small.e.offset, big.e.msg, (long long)big.e.offset);
	return 0;
}
