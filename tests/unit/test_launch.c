/*
 * test_launch: device time placed at its launches, against a reference
 * that scans every event: for each user, each device record counts at the
 * first call of its correlation (in file order) that this user counts.
 * Random events over two batches, few correlations (so calls repeat one)
 * or many (so the search for a device's calls jumps both ways), some past
 * 32 bits or INT64_MIN, durations long or negative (held wide, and placed
 * in blocks whose sums do not fit 32 bits), and users that disagree, asked in
 * random order (a fresh cursor each time) and in thread and start order
 * (one cursor passed on); the kernels' names the placed records carry,
 * summed by name against the same reference; the join's marks for idle.h
 * (the calls it reads, some of which no user counts, launched by device
 * work it reads, and the first of each correlation) against a scan of
 * every event; plus the empty case.
 */
#include "calls.h"
#include "check.h"
#include "classify.h"
#include "launch.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	return check_rand(&rng);
}

#define NR_EVENTS 600
#define NR_THREADS 3

/* One event as the reference sees it. */
struct ref_ev {
	int64_t corr, ts, dur;
	unsigned tag;
	int thread;
	unsigned char cls;	/* classify.h's class: a call idle.h reads is EVC_RUNTIME */
	int has_dur;		/* with its dur: a complete span when dur >= 0 */
};

static const char *const tids[NR_THREADS] = { "1", "2", "77" };
static const char *const knames[2] = { "gemm_a", "softmax_b" };	/* by event index parity */

/* Fill batch b with events ev[from..to), tagged as tag[] says. */
static void fill(struct event_batch *b, const struct ref_ev *ev, size_t from, size_t to,
		 unsigned char *tag, unsigned char *cls)
{
	uint32_t pid;

	event_batch_reset(b);
	pid = strtab_intern(&b->strs, "9", 1);
	for (size_t i = from; i < to; i++) {
		struct trace_event *e = event_batch_push(b);

		e->ts_ns = ev[i].ts;
		e->dur_ns = ev[i].dur;
		e->correlation = ev[i].corr;
		e->flags = EV_TS | EV_CORRELATION | (ev[i].has_dur ? EV_DUR : 0);
		e->phase = 'X';
		e->pid = pid;
		e->tid = strtab_intern(&b->strs, tids[ev[i].thread], strlen(tids[ev[i].thread]));
		e->name = strtab_intern(&b->strs, knames[i % 2], strlen(knames[i % 2]));
		tag[i - from] = (unsigned char)ev[i].tag;
		cls[i - from] = ev[i].cls;
	}
}

/* Whether a complete span. */
static int ref_complete(const struct ref_ev *e)
{
	return e->has_dur && e->dur >= 0;
}

/* The calls table's calls: those a user counts, and those idle.h reads. */
static int ref_kept(const struct ref_ev *e)
{
	return (e->tag & (LAUNCH_CALL(LAUNCH_NR_USERS) - 1)) ||
	       (e->cls == EVC_RUNTIME && ref_complete(e));
}

/* The reference of launches_link()'s mark of call c (calls.h's CALL_*). */
static unsigned ref_mark(const struct ref_ev *ev, size_t n, size_t c)
{
	int launched = 0;

	if (ev[c].cls != EVC_RUNTIME || !ref_complete(&ev[c]))
		return 0;
	for (size_t d = 0; d < n && !launched; d++)
		launched = (ev[d].tag >> LAUNCH_NR_USERS) && ev[d].cls == EVC_KERNEL &&
			   ref_complete(&ev[d]) && ev[d].corr == ev[c].corr;
	if (!launched)
		return 0;
	for (size_t e = 0; e < c; e++)
		if (ev[e].cls == EVC_RUNTIME && ref_complete(&ev[e]) && ev[e].corr == ev[c].corr)
			return CALL_LAUNCHED;
	return CALL_LAUNCHED | CALL_FIRST;
}

/* The reference: user u's device time launched on thread th within [lo, hi). */
static int64_t ref_within(const struct ref_ev *ev, size_t n, unsigned u, int th, int64_t lo,
			  int64_t hi)
{
	int64_t sum = 0;

	for (size_t d = 0; d < n; d++) {
		if (!(ev[d].tag & LAUNCH_DEV(u)))
			continue;
		for (size_t c = 0; c < n; c++) {
			if (!(ev[c].tag & LAUNCH_CALL(u)) || ev[c].corr != ev[d].corr)
				continue;
			if (ev[c].thread == th && ev[c].ts >= lo && ev[c].ts < hi)
				sum += ev[d].dur;
			break;	/* the first call only */
		}
	}
	return sum;
}

/* The reference: phases' device time of the kernels named knames[k], wherever launched. */
static int64_t ref_named(const struct ref_ev *ev, size_t n, size_t k)
{
	int64_t sum = 0;

	for (size_t d = k; d < n; d += 2) {
		if (!(ev[d].tag & LAUNCH_DEV(LAUNCH_PHASES)))
			continue;
		for (size_t c = 0; c < n; c++)
			if ((ev[c].tag & LAUNCH_CALL(LAUNCH_PHASES)) && ev[c].corr == ev[d].corr) {
				sum += ev[d].dur;
				break;
			}
	}
	return sum;
}

/* The placed records' phases time by their kernel's name; -1 if one without a name has some. */
static int64_t placed_named(const struct placement *pl, size_t k)
{
	uint32_t id = strtab_find(&pl->names->t, knames[k], strlen(knames[k]));
	int64_t sum = 0;

	for (size_t i = 0; i < pl->n; i++) {
		int64_t dur = placed_dur(pl, LAUNCH_PHASES, i);

		if (!pl->v[i].name && dur)
			return -1;
		if (pl->v[i].name == id)
			sum += dur;
	}
	return sum;
}

static uint32_t track_of(const struct strtab *tracks, int th)
{
	char key[16];
	int n = snprintf(key, sizeof(key), "9\x1f%s", tids[th]);

	return strtab_find(tracks, key, (size_t)n);
}

/*
 * spread: how many correlations; few make calls repeat one, many make
 * searches jump.  wide: some values held wide (negative or past 32 bits);
 * without, the join sorts the calls by their words, a faster path.
 */
static void test_random(int64_t spread, int wide)
{
	static struct ref_ev ev[NR_EVENTS];
	static unsigned char tag[NR_EVENTS], cls[NR_EVENTS], sub[NR_EVENTS];
	struct event_batch b;
	struct calls calls;
	struct launches l;
	struct strtab tracks;
	struct names names;
	struct placement pl;
	size_t at;
	int bad = 0;

	for (size_t i = 0; i < NR_EVENTS; i++) {
		unsigned users = (unsigned)(next() % 3) + 1;	/* bit 0, bit 1 or both */

		ev[i].corr = (int64_t)(next() % (uint64_t)spread) - (wide ? 10 : 0);
		if (wide && next() % 8 == 0)	/* past 32 bits: launch.h holds it wide */
			ev[i].corr += (int64_t)1 << 40;
		if (wide && next() % 32 == 0)	/* a correlation like any other */
			ev[i].corr = INT64_MIN;
		ev[i].ts = (int64_t)(next() % 400);
		ev[i].dur = (int64_t)(next() % 1000);
		if (wide && next() % 8 == 0)	/* held wide, and sums that need a wide block */
			ev[i].dur = next() % 2 ? (int64_t)(next() % (1ull << 40)) : -ev[i].dur;
		ev[i].thread = (int)(next() % NR_THREADS);
		ev[i].tag = next() % 2 ? users : users << LAUNCH_NR_USERS;
		ev[i].has_dur = next() % 8 != 0;
		/* most calls are idle's, and some calls are only idle's */
		if (ev[i].tag >> LAUNCH_NR_USERS)
			ev[i].cls = EVC_KERNEL;
		else
			ev[i].cls = next() % 4 ? EVC_RUNTIME : EVC_NONE;
		if (next() % 8 == 0)
			ev[i].tag = 0;
	}
	event_batch_init(&b);
	names_init(&names);
	launches_init(&l, &names);
	calls_init(&calls, &names);
	strtab_init(&tracks, 1);
	fill(&b, ev, 0, NR_EVENTS / 3, tag, cls);
	CHECK(names_batch(&names, &b) == 0);
	CHECK(calls_collect(&calls, &b, tag, cls, sub, &tracks) == 0);
	CHECK(launches_collect(&l, &b, tag) == 0);
	fill(&b, ev, NR_EVENTS / 3, NR_EVENTS, tag, cls + NR_EVENTS / 3);
	CHECK(names_batch(&names, &b) == 0);
	CHECK(calls_collect(&calls, &b, tag, cls + NR_EVENTS / 3, sub, &tracks) == 0);
	CHECK(launches_collect(&l, &b, tag) == 0);
	CHECK(launches_link(&l, &calls) == 0);
	CHECK_EQ_INT(l.nr_wide != 0, wide);	/* which sort the join took */
	for (size_t i = 0, k = 0; i < NR_EVENTS; i++)	/* the marks, call by call */
		if (ref_kept(&ev[i]))
			bad += calls.marks[k++] != ref_mark(ev, NR_EVENTS, i);
	CHECK_EQ_INT(bad, 0);
	CHECK(launches_place(&l, strtab_count(&tracks), &pl) == 0);
	CHECK_EQ_INT(pl.any_device, 3);
	CHECK_EQ_INT(pl.nr_tracks, NR_THREADS);
	for (unsigned u = 0; u < LAUNCH_NR_USERS; u++) {
		for (int q = 0; q < 300; q++) {	/* random questions, each from the start */
			int th = (int)(next() % NR_THREADS);
			int64_t lo = (int64_t)(next() % 420) - 10;
			int64_t hi = lo + (int64_t)(next() % 150) - 20;

			at = 0;
			bad += placed_within(&pl, u, &at, track_of(&tracks, th), lo, hi) !=
			       ref_within(ev, NR_EVENTS, u, th, lo, hi);
		}
		at = 0;	/* in thread and start order: one cursor passed on */
		for (uint32_t t = 1; t <= pl.nr_tracks; t++) {
			int th = 0;

			while (track_of(&tracks, th) != t)
				th++;
			for (int64_t lo = -5; lo < 410; lo += 7) {
				int64_t hi = lo + (lo % 3 ? 5 : 90);

				bad += placed_within(&pl, u, &at, t, lo, hi) !=
				       ref_within(ev, NR_EVENTS, u, th, lo, hi);
			}
		}
	}
	CHECK_EQ_INT(bad, 0);
	for (size_t k = 0; k < 2; k++)
		CHECK_EQ_INT(placed_named(&pl, k), ref_named(ev, NR_EVENTS, k));
	placement_release(&pl);
	strtab_release(&tracks);
	calls_release(&calls);
	launches_release(&l);
	names_release(&names);
	event_batch_release(&b);
}

static void test_empty(void)
{
	struct launches l;
	struct calls calls;
	struct placement pl;
	size_t at = 0;

	launches_init(&l, NULL);	/* nothing collected: no names asked */
	calls_init(&calls, NULL);
	CHECK(launches_link(&l, &calls) == 0);
	CHECK(launches_place(&l, 0, &pl) == 0);
	CHECK_EQ_INT(pl.n, 0);
	CHECK_EQ_INT(pl.any_device, 0);
	CHECK_EQ_INT(placed_within(&pl, LAUNCH_PHASES, &at, 1, 0, 100), 0);
	placement_release(&pl);
	calls_release(&calls);
	launches_release(&l);
}

int main(void)
{
	test_random(60, 1);
	test_random(1000000, 1);
	test_random(60, 0);
	test_random(1000000, 0);
	test_empty();
	return check_done("test_launch");
}
