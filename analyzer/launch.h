/*
 * launch: device time placed at the runtime call that launched it.
 *
 * A kernel (or copy, or set) and the runtime call that launched it share
 * args.correlation.  phases.c credits a phase with the kernel time its
 * thread launched inside its spans, cpuops.c an operator with the device
 * time launched inside it.  The two differ in which calls and which device
 * work they count, so while a batch is read its events are tagged for each
 * user (a byte per event: LAUNCH_CALL or LAUNCH_DEV of the user's bit,
 * both by gpu.c, which classifies every event by device.h once).  The
 * calls are the rank's table of calls (calls.h), which keeps each call
 * once with the bits of the users that counted it, for every analysis;
 * launches_collect() keeps the tagged device work.  At the end,
 * launches_link() joins the device work to its calls, once for every
 * analysis that reads which call launched what (it marks the calls that
 * launched something for idle.h), and launches_place() places the work
 * for both users, before their sections run, which then only read it.
 *
 * A device record counts, for each user, at the first launch (in file
 * order) with its correlation that this user counts; one whose launch is
 * not in the trace counts nowhere.  For idle.h, the calls it reads that
 * share a correlation with device work it reads are marked launched, and
 * the first of each such correlation first.  Placed records are sorted by thread,
 * then launch time, with a prefix sum per user, so each question costs a
 * search from a cursor: spans asked about in thread and start order find
 * their records by galloping a few steps forward.
 *
 * Threads are the file's track ids (track.h), one table shared by phases,
 * cpuops and the launches, so that the placed records' tracks are theirs.
 */
#ifndef VT_LAUNCH_H
#define VT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "calls.h"
#include "event.h"
#include "names.h"
#include "sat.h"
#include "strtab.h"

/* The users of launches, each a bit in the tags and an index in sums. */
enum launch_user { LAUNCH_PHASES, LAUNCH_CPUOPS, LAUNCH_NR_USERS };

/* A batch event's tag: a runtime call, or device work, for user u. */
#define LAUNCH_CALL(u) (1u << (u))
#define LAUNCH_DEV(u) (1u << (LAUNCH_NR_USERS + (u)))
/*
 * And, in its high bits, what a runtime call is to the graph replays
 * (replay.c's kind, 0: nothing), so that the calls table keeps it for
 * them rather than they their own copy of every launch.
 */
#define LAUNCH_WHAT_SHIFT (2 * LAUNCH_NR_USERS)
#define LAUNCH_WHAT(k) ((unsigned)(k) << LAUNCH_WHAT_SHIFT)

/*
 * The records below are small, as a trace holds about a million of them
 * per gigabyte of text: a correlation, a duration or a stream is a 32-bit
 * word holding it when it lies in [0, 2^31) (a stream plus 1, so that -1,
 * none, is 0), else LAUNCH_WIDE | its index in struct launches' wide[],
 * exact either way (real correlations and streams are small counters,
 * durations under 2.1 s).  launch_wide() reads such a word.
 */
#define LAUNCH_WIDE 0x80000000u

/* A call's replay kind from its tag bits (struct call's launch). */
#define LAUNCH_WHAT_BITS (8 - LAUNCH_WHAT_SHIFT)
static inline unsigned launch_what(unsigned tag)
{
	return (tag >> LAUNCH_WHAT_SHIFT) & ((1u << LAUNCH_WHAT_BITS) - 1);
}

/* A device record that idle.h reads (a complete span), beside its users' bits. */
#define LAUNCH_DEV_IDLE (1u << LAUNCH_NR_USERS)
#define LAUNCH_DEV_NAME_SHIFT (LAUNCH_NR_USERS + 1)
/* The largest track id a call (launch.c's join), and name id a device record, may have. */
#define LAUNCH_TRACK_MAX ((1u << (32 - LAUNCH_NR_USERS - 3)) - 1)
#define LAUNCH_NAME_MAX ((1u << (32 - LAUNCH_DEV_NAME_SHIFT)) - 1)

/*
 * Device work with a correlation, in file order.  Besides the placement,
 * the graph replays' FLOPs (replay.h) read these when the trace has
 * replays, rather than keep their own copy.  Read it with launch_dev_*().
 */
struct launch_dev {
	int64_t ts_ns;
	uint32_t corr, dur, stream;	/* see LAUNCH_WIDE; stream + 1: 0 none */
	uint32_t name_users;	/* name << LAUNCH_DEV_NAME_SHIFT | LAUNCH_DEV_IDLE | users: a
				   kernel's name id (names.h; else 0); bit u of users: user u
				   counts it, a kernel has LAUNCH_PHASES' */
};

struct link_call;

struct launches {
	struct launch_dev *device;	/* device work with a correlation */
	size_t nr_device, device_alloc;
	struct link_call *first;	/* launches_link()'s: the first calls of each correlation */
	size_t nr_first;
	int64_t *wide;			/* the values the records' words cannot hold */
	size_t nr_wide, wide_alloc;
	unsigned any_device;	/* user bits of the device work collected */
	struct names *names;	/* the rank's: the kernels' names (struct placed's name) */
	int keep_device;	/* launches_place() leaves device for the caller to release */
};

/* The value of a record's word w (a correlation or a duration; see LAUNCH_WIDE). */
static inline int64_t launch_wide(const struct launches *l, uint32_t w)
{
	return w < LAUNCH_WIDE ? (int64_t)w : l->wide[w & ~LAUNCH_WIDE];
}

static inline int64_t launch_dev_corr(const struct launches *l, const struct launch_dev *d)
{
	return launch_wide(l, d->corr);
}

static inline int64_t launch_dev_dur(const struct launches *l, const struct launch_dev *d)
{
	return launch_wide(l, d->dur);
}

/* Its stream, -1 when none. */
static inline int64_t launch_dev_stream(const struct launches *l, const struct launch_dev *d)
{
	return d->stream < LAUNCH_WIDE ? (int64_t)d->stream - 1 : l->wide[d->stream & ~LAUNCH_WIDE];
}

static inline unsigned launch_dev_users(const struct launch_dev *d)
{
	return d->name_users & ((1u << LAUNCH_NR_USERS) - 1);
}

static inline uint32_t launch_dev_name(const struct launch_dev *d)
{
	return d->name_users >> LAUNCH_DEV_NAME_SHIFT;
}

/*
 * Device time at its launch.  User u's prefix sum in sorted order is
 * placed_sum(); a placement ends with a sentinel record that holds the
 * totals, so each record's time is the next one's sum minus its own
 * (placed_dur()).  A kernel (device work phases counts) is one record,
 * with its name: the kernel context (kctx.h) reads each kernel at its
 * launch from here rather than joining its own copies of the kernels and
 * calls.
 *
 * The sums take 32 bits a record: each block of PLACED_BLOCK records
 * holds its first sums whole and its records the rest; a block whose sums
 * do not all fit (more than 4.2 s of device time in it, or negative) holds
 * all of its records' sums whole in the placement's wide[], so each is exact.
 */
#define PLACED_BLOCK 32

struct placed {
	int64_t ts_ns;
	uint32_t track;
	uint32_t name;		/* a kernel's name id (the placement's names); else 0 */
	uint32_t sum_lo[LAUNCH_NR_USERS];	/* the sums less their block's base */
};

struct placed_block {
	int64_t base[LAUNCH_NR_USERS];	/* the sums before its first record */
	uint32_t wide;		/* 0, or 1 + the index of its sums' run in wide */
};

struct placement {
	struct placed *v;	/* n + 1 records, owned; see above */
	struct placed_block *blocks;	/* one per PLACED_BLOCK records, owned */
	int64_t *wide;		/* PLACED_BLOCK * LAUNCH_NR_USERS sums a wide block, owned */
	size_t n;
	uint32_t nr_tracks;	/* track ids are 1..nr_tracks */
	unsigned any_device;	/* user bits: without, the user's device times are unknown */
	const struct names *names;	/* the rank's, struct launches' */
};

/* User u's device time placed before record i (0..n) in sorted order. */
static inline int64_t placed_sum(const struct placement *pl, enum launch_user u, size_t i)
{
	const struct placed_block *b = &pl->blocks[i / PLACED_BLOCK];

	if (b->wide)
		return pl->wide[((size_t)(b->wide - 1) * PLACED_BLOCK + i % PLACED_BLOCK) *
					LAUNCH_NR_USERS + u];
	return b->base[u] + (int64_t)pl->v[i].sum_lo[u];
}

/* User u's device time of records a..b-1 (a <= b <= n) in sorted order. */
static inline int64_t placed_between(const struct placement *pl, enum launch_user u, size_t a,
				     size_t b)
{
	/* within a block that holds its sums in 32 bits, the difference of two fits */
	if (a / PLACED_BLOCK == b / PLACED_BLOCK && !pl->blocks[a / PLACED_BLOCK].wide)
		return (int64_t)pl->v[b].sum_lo[u] - (int64_t)pl->v[a].sum_lo[u];
	return sat_sub(placed_sum(pl, u, b), placed_sum(pl, u, a));
}

/* User u's device time of record i (0..n-1). */
static inline int64_t placed_dur(const struct placement *pl, enum launch_user u, size_t i)
{
	return placed_between(pl, u, i, i + 1);
}

/* names: the rank's (names.h), which must outlive l and its placement. */
void launches_init(struct launches *l, struct names *names);
void launches_release(struct launches *l);

/*
 * Keep the device work of batch b that tag[] (one byte per event) marks,
 * with a kernel's name interned into names.  -1 when out of memory, or
 * past LAUNCH_NAME_MAX kernel names or 2^31 values held wide
 * (doc/bounds.md).
 */
int launches_collect(struct launches *l, const struct event_batch *b,
		     const unsigned char *tag);

/*
 * The join, after the last batch: the first calls of each correlation
 * (calls, the rank's table, which must hold the calls of the same
 * batches) for launches_place(), and calls' marks (calls.h's CALL_*)
 * for idle.h.  Reads the calls, writes only their marks.  -1 when out of
 * memory, or past LAUNCH_TRACK_MAX threads.
 */
int launches_link(struct launches *l, struct calls *calls);

/*
 * Place the device work at its launches into *pl (caller releases it with
 * placement_release(), also after a failure), after launches_link();
 * nr_tracks bounds the track ids.  Releases the records collected (the
 * device work only unless keep_device; pl reads the names of l), not
 * the wide values, which idle.h reads meanwhile (see
 * launches_release_records()).  -1 when out of memory.
 */
int launches_place(struct launches *l, uint32_t nr_tracks, struct placement *pl);

/*
 * Free the device work and the join's calls, keeping the wide values
 * until launches_release(): idle.h holds words of the device work's
 * correlations, which it reads after the placement freed the records.
 * Real traces hold few values beyond 31 bits, so they cost nothing to
 * keep; a crafted one whose every value is wide keeps 8 bytes a value
 * through the rest of the finish, as it did through the read.
 */
void launches_release_records(struct launches *l);

void placement_release(struct placement *pl);

/*
 * User u's device time launched on thread track within [lo, hi).  *at is a
 * cursor, 0 at first: a question asked after another of a smaller or equal
 * (track, lo) may pass on the cursor the other left, and then costs a few
 * steps instead of two binary searches.
 */
int64_t placed_within(const struct placement *pl, enum launch_user u, size_t *at, uint32_t track,
		      int64_t lo, int64_t hi);

#endif
