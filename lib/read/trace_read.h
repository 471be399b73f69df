/*
 * trace_read: read one trace file into event batches, in parallel.
 *
 * Formats: Chrome/Kineto JSON objects ({"traceEvents": [...], ...} with any
 * other keys before or after the array), the legacy bare array ([{...}, ...]),
 * either gzipped or plain, and collector raw files (*.vtr).
 *
 * The consumer sees every batch exactly once, in file order, from one thread
 * at a time (never concurrently), so it needs no locks.  trace_read() returns
 * when the whole file is read.  What the file says about itself outside
 * traceEvents (distributedInfo, deviceProperties, baseTimeNanoseconds) lands
 * in struct trace_info, with the run's metadata: the top-level keys that
 * torch.profiler's add_metadata() and add_metadata_json() write (and the
 * collector's tags), as tags.
 *
 * Bad input never loses the good part: the events before a cut-off or a
 * syntax error are delivered, the problem is recorded as a warning with its
 * byte offset, and info->complete is 0.  Input that is not a trace at all is
 * an error.
 */
#ifndef VT_TRACE_READ_H
#define VT_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "log.h"

#define TRACE_MAX_WARNINGS 16
#define TRACE_MAX_DEVICES 64
#define TRACE_MAX_TAGS 32		/* tags kept per file; the rest are counted */
#define TRACE_TAG_KEY 64		/* bytes kept of a key and of a value, NUL included */
#define TRACE_TAG_VALUE 256

/*
 * One item of the run's metadata: a top-level key of the trace that is not
 * the profiler's own, and its value: a string as given, anything else as
 * its JSON text; both cut at a UTF-8 boundary to fit.
 */
struct trace_tag {
	char key[TRACE_TAG_KEY];
	char value[TRACE_TAG_VALUE];
};

struct trace_device {
	int64_t id;			/* deviceProperties[i].id */
	int64_t total_mem;		/* totalGlobalMem in bytes, -1 unknown */
	char name[64];
};

struct trace_info {
	const char *format;		/* "kineto", "array", "vtr" (static) */
	const char *engine;		/* inflate engine: "isa-l", "zlib", "none" */
	int complete;			/* 1: read to a clean end */
	int64_t rank;			/* distributedInfo.rank, -1 when absent */
	int64_t world_size;		/* distributedInfo.world_size, -1 absent */
	char backend[16];		/* distributedInfo.backend ("nccl", "hccl"), "" absent */
	int64_t base_time_ns;		/* baseTimeNanoseconds, 0 when absent */
	int has_base_time;
	int64_t bytes_in;		/* file bytes read */
	int64_t bytes_text;		/* JSON text bytes read: up to the error that stopped it */
	int64_t nr_events;		/* events delivered */
	size_t nr_devices;
	struct trace_device devices[TRACE_MAX_DEVICES];
	size_t nr_tags;
	size_t nr_tags_dropped;		/* beyond TRACE_MAX_TAGS */
	struct trace_tag tags[TRACE_MAX_TAGS];	/* in file order, keys distinct */
	size_t nr_warnings;		/* kept (at most TRACE_MAX_WARNINGS) */
	size_t nr_warnings_total;	/* including those dropped */
	struct err warnings[TRACE_MAX_WARNINGS];
};

struct trace_sink {
	void *ctx;
	/* Called in file order, never concurrently.  Nonzero stops the read. */
	int (*batch)(void *ctx, const struct event_batch *b);
	/* Optional: called now and then from the reading thread. */
	void (*progress)(void *ctx, int64_t bytes_in, int64_t size_in);
};

struct trace_read_opts {
	int nr_threads;			/* workers for this file; <= 1 reads inline */
	size_t chunk_size;		/* 0: TRACE_CHUNK_DEFAULT */
};

#define TRACE_CHUNK_DEFAULT (256u << 10)	/* stays in L2 with its batch; doc/performance.md */
#define TRACE_MAX_EVENT_BYTES (64u << 20)

/*
 * Add warning w to info: kept while there is room (TRACE_MAX_WARNINGS),
 * counted in nr_warnings_total either way.
 */
void trace_info_warn(struct trace_info *info, const struct err *w);

/*
 * Add the tag key = value (bytes, not NUL-terminated) to info, each cut to
 * fit at a UTF-8 boundary; a key already there takes the new value.
 * Beyond TRACE_MAX_TAGS distinct keys, counted in nr_tags_dropped.
 */
void trace_info_tag(struct trace_info *info, const char *key, size_t klen, const char *value,
		    size_t vlen);

/*
 * Read path into sink.  Returns 0 when the file was read completely, 1 when
 * only part of it could be read (info->warnings says why; the part was
 * delivered), -1 when it is not a readable trace (*e says why, with the
 * byte offset; batches before the failure may have been delivered).
 */
int trace_read(const char *path, const struct trace_read_opts *opts,
	       const struct trace_sink *sink, struct trace_info *info, struct err *e);

#endif
