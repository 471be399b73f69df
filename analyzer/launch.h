/*
 * launch: device time placed at the runtime call that launched it.
 *
 * A kernel (or copy, or set) and the runtime call that launched it share
 * args.correlation.  phases.c credits a phase with the kernel time its
 * thread launched inside its spans, cpuops.c an operator with the device
 * time launched inside it.  The two differ in which calls and which device
 * work they count, so while a batch is read its events are tagged for each
 * user (a byte per event: LAUNCH_CALL or LAUNCH_DEV of the user's bit,
 * both by gpu.c, which classifies every event by device.h once), and
 * launches_collect() then keeps every tagged event once, with the bits of
 * the users that counted it.  At the end, launches_place() places the work
 * once for both users, before their sections run, which then only read it.
 *
 * A device record counts, for each user, at the first launch (in file
 * order) with its correlation that this user counts; one whose launch is
 * not in the trace counts nowhere.  Placed records are sorted by thread,
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
#include "event.h"
#include "strtab.h"

/* The users of launches, each a bit in the tags and an index in sums. */
enum launch_user { LAUNCH_PHASES, LAUNCH_CPUOPS, LAUNCH_NR_USERS };

/* A batch event's tag: a runtime call, or device work, for user u. */
#define LAUNCH_CALL(u) (1u << (u))
#define LAUNCH_DEV(u) (1u << (LAUNCH_NR_USERS + (u)))
/*
 * And, in its high bits, what a runtime call is to the graph replays
 * (replay.c's kind, 0: nothing), so that they read launch.c's calls
 * rather than keep their own copy of every launch.
 */
#define LAUNCH_WHAT_SHIFT (2 * LAUNCH_NR_USERS)
#define LAUNCH_WHAT(k) ((unsigned)(k) << LAUNCH_WHAT_SHIFT)

/*
 * A runtime call, in file order until launches_place(): one with a
 * correlation some user counts, or one the graph replays want (what).
 */
struct launch_call {
	int64_t corr, ts_ns;	/* corr 0 without one */
	uint32_t track;
	uint16_t users;		/* bit u: user u counts this call */
	uint16_t what;		/* its LAUNCH_WHAT() kind */
};

/*
 * Device work with a correlation, in file order.  Besides the placement,
 * the graph replays' FLOPs (replay.h) read these when the trace has
 * replays, rather than keep their own copy.
 */
struct launch_dev {
	int64_t corr, ts_ns, dur_ns;
	int64_t stream;		/* -1: none */
	uint32_t users;		/* bit u: user u counts it; a kernel has LAUNCH_PHASES' */
	uint32_t name;		/* a kernel's, in knames; else 0 */
};

struct launches {
	struct launch_call *calls;	/* runtime calls with a correlation */
	struct launch_dev *device;	/* device work with a correlation */
	size_t nr_calls, calls_alloc, nr_device, device_alloc;
	unsigned any_device;	/* user bits of the device work collected */
	struct strtab knames;	/* the kernels' names, copies (struct placed's name) */
	int keep_device;	/* launches_place() leaves device for the caller to release */
};

/*
 * Device time at its launch.  sum_before[u] is user u's prefix sum in
 * sorted order; a placement ends with a sentinel record that holds the
 * totals, so each record's time is the next one's sum_before minus its own.
 * A kernel (device work phases counts) is one record, with its name: the
 * kernel context (kctx.h) reads each kernel at its launch from here rather
 * than joining its own copies of the kernels and calls.
 */
struct placed {
	int64_t ts_ns;
	int64_t sum_before[LAUNCH_NR_USERS];
	uint32_t track;
	uint32_t name;		/* a kernel's, in the placement's knames; else 0 */
};

struct placement {
	struct placed *v;	/* n + 1 records, owned; see above */
	size_t n;
	uint32_t nr_tracks;	/* track ids are 1..nr_tracks */
	unsigned any_device;	/* user bits: without, the user's device times are unknown */
	struct strtab knames;	/* the kernels' names, moved from struct launches */
};

void launches_init(struct launches *l);
void launches_release(struct launches *l);

/*
 * Keep the events of batch b that tag[] (one byte per event) marks, with
 * their thread interned into tracks and a kernel's name into knames.  -1
 * when out of memory.
 */
int launches_collect(struct launches *l, const struct event_batch *b, const unsigned char *tag,
		     struct strtab *tracks);

/*
 * Place the device work at its launches into *pl (caller releases it with
 * placement_release(), also after a failure); nr_tracks bounds the track
 * ids.  Releases what was collected (the device work only unless
 * keep_device; the kernels' names move to pl).  -1 when out of memory.
 */
int launches_place(struct launches *l, uint32_t nr_tracks, struct placement *pl);

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
