/*
 * vtr: the collector's raw file (NAME-rankR.vtr) and its reader.
 *
 * The on-disk structs below are shared by the writer (collector/vtrace.c)
 * and the reader; collector/FORMAT.md is the prose description.  A file is
 * a header followed by append-only blocks.  Everything is little-endian and
 * naturally aligned.  A block is written with one write call, so a process
 * killed mid-run leaves whole blocks and at most one cut block at the end.
 *
 * The reader turns a file into the shared event model: a region becomes an
 * 'X' event of cat "user_annotation", instants 'i', counters and samples
 * 'C' with ->value, frame and block counts 'C' events "vtrace.frames" and
 * "vtrace.blocks" with EV_FRAMES / EV_BLOCKS.  Times are nanoseconds on the
 * CLOCK_REALTIME timeline.  Memory: the largest block, the string table and
 * one stack of open regions per thread; nothing grows with the event count.
 */
#ifndef VT_VTR_H
#define VT_VTR_H

#include <stdint.h>

#include "log.h"
#include "trace_read.h"

#define VTR_MAGIC "\x89VTR\r\n\x1a\n"
#define VTR_MAGIC_LEN 8
#define VTR_VERSION 1
#define VTR_BYTE_ORDER 0x01020304u
#define VTR_BLOCK_MAGIC 0x4b4c4256u	/* "VBLK" */
#define VTR_NAME_MAX 255		/* longer names are cut */
#define VTR_BLOCK_MAX (256u << 20)	/* larger blocks are corrupt */

struct vtr_header {
	char magic[8];			/* VTR_MAGIC */
	uint32_t version;		/* VTR_VERSION */
	uint32_t header_size;		/* bytes from the magic to the first block */
	uint32_t byte_order;		/* VTR_BYTE_ORDER as the writer stored it */
	uint32_t rec_size;		/* sizeof(struct vtr_rec) */
	int64_t clock_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	int64_t start_ns;		/* CLOCK_MONOTONIC at vt_init() */
	int64_t rank;
	int64_t world_size;		/* -1 unknown */
	int32_t pid;
	uint32_t flags;			/* 0 */
	char host[64];			/* NUL-padded, maybe cut */
	char name[64];			/* run name, NUL-padded, maybe cut */
	char reserved[64];
};

enum vtr_block_type {
	VTR_BLOCK_STRINGS = 1,		/* arg: id of the first string */
	VTR_BLOCK_EVENTS = 2,		/* arg: thread id; payload: struct vtr_rec[] */
	VTR_BLOCK_END = 3,		/* payload: struct vtr_end; clean shutdown */
};

struct vtr_block {
	uint32_t magic;			/* VTR_BLOCK_MAGIC */
	uint16_t type;			/* enum vtr_block_type */
	uint16_t flags;			/* 0 */
	uint32_t size;			/* payload bytes after this header */
	uint32_t arg;
};

enum vtr_rec_type {
	VTR_REC_BEGIN = 1,		/* region begin, id = name */
	VTR_REC_END = 2,		/* ends the innermost open region */
	VTR_REC_INSTANT = 3,		/* id = name */
	VTR_REC_COUNTER = 4,		/* id = name; a VALUE record follows */
	VTR_REC_SAMPLE = 5,		/* id = metric, arg = device + 1 or 0; VALUE follows */
	VTR_REC_FRAMES = 6,		/* VALUE follows: frames produced */
	VTR_REC_BLOCKS = 7,		/* VALUE follows: blocks produced */
	VTR_REC_VALUE = 8,		/* ts_ns holds the value of the record before */
	VTR_REC_TAG = 9,		/* id = key, arg = value's string id: the run's metadata */
	VTR_REC_ARG = 10,		/* id = key, arg = VTR_ARG_*; VALUE follows: an argument of
					   the innermost open region of the thread */
};

enum vtr_arg_kind {
	VTR_ARG_INT = 0,		/* the VALUE is an int64 */
	VTR_ARG_DOUBLE = 1,		/* the VALUE holds a double's bits */
};

struct vtr_rec {
	int64_t ts_ns;			/* CLOCK_MONOTONIC; VALUE: the value */
	uint32_t word;			/* type in bits 0-7, string id in bits 8-31 */
	uint32_t arg;
};

#define VTR_REC_TYPE(w) ((w) & 0xffu)
#define VTR_REC_ID(w) ((w) >> 8)
#define VTR_REC_WORD(type, id) ((uint32_t)(type) | (uint32_t)(id) << 8)
#define VTR_MAX_STRINGS (1u << 24)

struct vtr_end {
	int64_t end_ns;			/* CLOCK_MONOTONIC at vt_shutdown() */
	uint64_t nr_records;		/* records written, VALUE records included */
	uint64_t nr_dropped;		/* records lost (signal re-entry, full buffer) */
	uint64_t nr_unnamed;		/* recording calls past the name table (as id 0) */
};

/*
 * Read path into sink like trace_read(): 0 when the file was read to its
 * end record, 1 when it is cut off or lacks the end record (a warning with
 * the byte offset is in info; what was there was delivered), -1 when it is
 * not a readable .vtr file (*e says why).  Fills *info entirely.
 */
int vtr_read(const char *path, const struct trace_sink *sink, struct trace_info *info,
	     struct err *e);

/* Read only the header of path into *h.  0, or -1 with *e filled. */
int vtr_read_header(const char *path, struct vtr_header *h, struct err *e);

#endif
