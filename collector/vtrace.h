/*
 * vtrace: the lean in-process collector (libvtrace).
 *
 * A pipeline records its own phases, frames and blocks for the whole run at
 * a cost low enough to leave on in production:
 *
 *	vt_init(NULL, "wan-t2v", -1);		(directory and rank from the environment)
 *	vt_region_begin("denoise");
 *	...
 *	vt_region_end();
 *	vt_frames(16);
 *	vt_shutdown();				(also runs at exit)
 *
 * Each process writes DIR/NAME-rankR.vtr (format: collector/FORMAT.md), which
 * vanalyze reads directly and vtrace-export turns into Chrome trace JSON.
 *
 * The environment configures it without code changes and wins over the
 * arguments of vt_init():
 *
 *	VTRACE_DIR		directory of the file (created if missing); when set, the
 *				first recording call of a program that never calls
 *				vt_init() starts recording by itself
 *	VTRACE_NAME		run name, the file name's first part
 *	VTRACE_RANK		rank; else the rank argument; else RANK (torchrun); else 0
 *	VTRACE_REGIONS		comma-separated region names: record only these
 *	VTRACE_SAMPLE_MS	sample CPU, memory and GPUs (NVML) every N ms
 *	VTRACE_LIVE		print one status line to stderr every N seconds
 *	VTRACE_FLUSH_MS		write buffered records every N ms (default 1000)
 *	VTRACE_BUFFER_KB	per-thread buffer size (default 1024)
 *	VTRACE_TAGS		the run's metadata, "model=wan2.1,exp=a" (vt_tag() each)
 *
 * Every function is thread-safe.  The recording calls (regions, instants,
 * counters, frames, blocks) take no lock and allocate nothing, except that
 * a thread's first call sets up its buffer and the first use of a name
 * copies it.  Past those, they are async-signal-safe: a handler may record
 * on a thread that has recorded before, with names seen before (what it
 * records while it interrupts one of our calls on that thread is dropped
 * and counted).  On any failure the collector writes one line to stderr,
 * switches itself off and returns; recording calls then cost a few
 * nanoseconds and do nothing.  It never exits and never writes to stdout.
 */
#ifndef VTRACE_H
#define VTRACE_H

#include <stddef.h>	/* NULL, for vt_init(NULL, ...) as the README calls it */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VT_API __attribute__((visibility("default")))
#else
#define VT_API
#endif

#define VT_VERSION "0.1.0"

/*
 * Start recording into dir/name-rankR.vtr.  dir and name may be NULL and
 * rank may be -1 for "from the environment, else the default" ("." and the
 * program name, rank 0).  Returns 0 when recording (also when it already
 * was), -1 when it could not start (one line on stderr says why).
 *
 * The file is always a new one: an existing file (of an earlier run, or of
 * this process before vt_shutdown()) is never truncated nor appended to,
 * and whatever else holds the name (a FIFO, a device, a link) is never
 * opened.  The name is then dir/name-rankR-pidP.vtr, or -pidP-2.vtr, -3 and
 * so on up to 99; vt_path() says which.  vanalyze reads them all.
 */
VT_API int vt_init(const char *dir, const char *name, int rank);

/*
 * Write everything recorded, mark the file complete and stop recording.
 * Registered with atexit() by vt_init(); calling it twice is harmless.
 * vt_init() may start a new file afterwards.
 */
VT_API void vt_shutdown(void);

/* Write what all threads have recorded so far.  0, or -1 when not recording. */
VT_API int vt_flush(void);

/* 1 while recording. */
VT_API int vt_enabled(void);

/* The file being written, or NULL.  Borrowed; valid until vt_shutdown(). */
VT_API const char *vt_path(void);

/*
 * A region of time on the calling thread; regions nest.  name is copied
 * into the string table on first use (names are cut at 255 bytes).  An end
 * without a begin on the same thread is ignored.
 */
VT_API void vt_region_begin(const char *name);
VT_API void vt_region_end(void);

/*
 * Arguments of the innermost region begun on this thread, right after
 * vt_region_begin(): a step's index and timestep, a block's index and
 * size.  They go out as the region's Chrome "args"; vanalyze counts a
 * region's "block_size" as that many frames produced, once per block (its
 * name) and generation however many steps revisit it.  Use it or
 * vt_frames(), not both: with both, vt_frames() counts.  An argument
 * with no region open, or of a region VTRACE_REGIONS leaves out, is
 * dropped.  Keys are names (interned like region names).
 */
VT_API void vt_region_arg(const char *key, int64_t value);
VT_API void vt_region_argf(const char *key, double value);

/*
 * The run's metadata, key = value (model, resolution, experiment,
 * commit): in every output vanalyze makes, and what vcompare checks
 * before comparing two runs.  Both are copied (cut at 255 bytes); a key
 * given again takes the new value.  Not for the hot path: it interns both
 * strings.
 */
VT_API void vt_tag(const char *key, const char *value);

/* A point in time, and the value of a named counter at this time. */
VT_API void vt_instant(const char *name);
VT_API void vt_counter(const char *name, int64_t value);

/* n more frames (blocks) produced; vanalyze derives FPS (BPS) from them. */
VT_API void vt_frames(int64_t n);
VT_API void vt_blocks(int64_t n);

#ifdef __cplusplus
}
#endif

#endif
