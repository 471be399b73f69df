/*
 * fuzz_vtr_read: libFuzzer target for lib/vtr.c, the reader of collector
 * raw files (.vtr) that come from anywhere.  Most inputs would stop at the
 * 256-byte header, so when the first byte is even the rest of the input is
 * read after a valid header: the fuzzer works on the blocks.  The input is
 * a memfd, so the reader sees a regular file of the input's size.
 *
 * Invariants: vtr_read returns -1, 0 or 1, 0 exactly when complete; warning
 * and error offsets lie inside the file; every event has a time within
 * sat.h's limit, and so has the end of every span; no more events than
 * records could give (16 bytes each, plus the regions still open); and the
 * reader never holds more than a small multiple of the file in memory
 * (libFuzzer's -rss_limit_mb catches a header that makes it allocate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "sat.h"
#include "vtr.h"

#define FUZZ_NAME "fuzz_vtr_read"
#include "fuzz.h"

static int on_batch(void *ctx, const struct event_batch *b)
{
	int64_t *n = ctx;

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *e = &b->ev[i];

		ASSERT(e->flags & EV_TS && sat_time_ok(e->ts_ns), "event %zu time %lld", i,
		       (long long)e->ts_ns);
		if (e->flags & EV_DUR)
			ASSERT(sat_time_ok(e->dur_ns) && sat_time_ok(e->ts_ns + e->dur_ns),
			       "event %zu: ts %lld dur %lld", i, (long long)e->ts_ns,
			       (long long)e->dur_ns);
		ASSERT(e->name, "event %zu has no name", i);
	}
	*n += (int64_t)b->n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct trace_sink sink = { 0 };
	struct trace_info info;
	struct vtr_header h;
	struct err e;
	int64_t n = 0, file;
	int rc;

	if (fd < 0)
		fd = fuzz_memfd(path);
	if (size && !(data[0] & 1)) {
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, VTR_MAGIC, VTR_MAGIC_LEN);
		h.version = VTR_VERSION;
		h.header_size = sizeof(h);
		h.byte_order = VTR_BYTE_ORDER;
		h.rec_size = sizeof(struct vtr_rec);
		h.clock_offset_ns = size > 1 ? (int64_t)((uint64_t)data[1] << 56) : 0;
		h.world_size = -1;
		fuzz_fill(fd, &h, sizeof(h));
		if (size > 1 && pwrite(fd, data + 1, size - 1, sizeof(h)) != (ssize_t)(size - 1))
			abort();
		file = (int64_t)(sizeof(h) + size - 1);
	} else {
		fuzz_fill(fd, data, size);
		file = (int64_t)size;
	}
	sink.ctx = &n;
	sink.batch = on_batch;
	rc = vtr_read(path, &sink, &info, &e);
	ASSERT(rc >= -1 && rc <= 1, "rc %d", rc);
	if (rc >= 0)
		ASSERT(info.complete == (rc == 0), "rc %d complete %d", rc, info.complete);
	else
		ASSERT(e.msg[0] && e.offset >= -1 && e.offset <= file, "error \"%s\" at %lld",
		       e.msg, (long long)e.offset);
	ASSERT(n == info.nr_events || rc < 0, "sink saw %lld events, info says %lld",
	       (long long)n, (long long)info.nr_events);
	ASSERT(n <= file / 16 + 1, "%lld events from %lld bytes", (long long)n, (long long)file);
	for (size_t i = 0; i < info.nr_warnings; i++)
		ASSERT(info.warnings[i].offset >= -1 && info.warnings[i].offset <= file,
		       "warning \"%s\" at %lld of %lld", info.warnings[i].msg,
		       (long long)info.warnings[i].offset, (long long)file);
	return 0;
}
