/*
 * test_launch: device time placed at its launches, against a reference
 * that scans every event: for each user, each device record counts at the
 * first call of its correlation (in file order) that this user counts.
 * Random events over two batches, few correlations (so calls repeat one)
 * or many (so the search for a device's calls jumps both ways), some past
 * 32 bits, durations long or negative (held wide, and placed in blocks
 * whose sums do not fit 32 bits), and users that disagree, asked in
 * random order (a fresh cursor each time) and in thread and start order
 * (one cursor passed on); the kernels' names the placed records carry,
 * summed by name against the same reference; plus the empty case.
 */
#include "check.h"
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
};

static const char *const tids[NR_THREADS] = { "1", "2", "77" };
static const char *const knames[2] = { "gemm_a", "softmax_b" };	/* by event index parity */

/* Fill batch b with events ev[from..to), tagged as tag[] says. */
static void fill(struct event_batch *b, const struct ref_ev *ev, size_t from, size_t to,
		 unsigned char *tag)
{
	uint32_t pid;

	event_batch_reset(b);
	pid = strtab_intern(&b->strs, "9", 1);
	for (size_t i = from; i < to; i++) {
		struct trace_event *e = event_batch_push(b);

		e->ts_ns = ev[i].ts;
		e->dur_ns = ev[i].dur;
		e->correlation = ev[i].corr;
		e->flags = EV_TS | EV_CORRELATION;
		e->phase = 'X';
		e->pid = pid;
		e->tid = strtab_intern(&b->strs, tids[ev[i].thread], strlen(tids[ev[i].thread]));
		e->name = strtab_intern(&b->strs, knames[i % 2], strlen(knames[i % 2]));
		tag[i - from] = (unsigned char)ev[i].tag;
	}
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

/* spread: how many correlations; few make calls repeat one, many make searches jump. */
static void test_random(int64_t spread)
{
	static struct ref_ev ev[NR_EVENTS];
	static unsigned char tag[NR_EVENTS];
	struct event_batch b;
	struct launches l;
	struct strtab tracks;
	struct names names;
	struct placement pl;
	size_t at;
	int bad = 0;

	for (size_t i = 0; i < NR_EVENTS; i++) {
		unsigned users = (unsigned)(next() % 3) + 1;	/* bit 0, bit 1 or both */

		ev[i].corr = (int64_t)(next() % (uint64_t)spread) - 10;
		if (next() % 8 == 0)	/* past 32 bits: launch.h holds it wide */
			ev[i].corr += (int64_t)1 << 40;
		ev[i].ts = (int64_t)(next() % 400);
		ev[i].dur = (int64_t)(next() % 1000);
		if (next() % 8 == 0)	/* held wide, and sums that need a wide block */
			ev[i].dur = next() % 2 ? (int64_t)(next() % (1ull << 40)) : -ev[i].dur;
		ev[i].thread = (int)(next() % NR_THREADS);
		ev[i].tag = next() % 2 ? users : users << LAUNCH_NR_USERS;
	}
	event_batch_init(&b);
	names_init(&names);
	launches_init(&l, &names);
	strtab_init(&tracks, 1);
	fill(&b, ev, 0, NR_EVENTS / 3, tag);
	CHECK(names_batch(&names, &b) == 0);
	CHECK(launches_collect(&l, &b, tag, &tracks) == 0);
	fill(&b, ev, NR_EVENTS / 3, NR_EVENTS, tag);
	CHECK(names_batch(&names, &b) == 0);
	CHECK(launches_collect(&l, &b, tag, &tracks) == 0);
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
	launches_release(&l);
	names_release(&names);
	event_batch_release(&b);
}

static void test_empty(void)
{
	struct launches l;
	struct placement pl;
	size_t at = 0;

	launches_init(&l, NULL);	/* nothing collected: no names asked */
	CHECK(launches_place(&l, 0, &pl) == 0);
	CHECK_EQ_INT(pl.n, 0);
	CHECK_EQ_INT(pl.any_device, 0);
	CHECK_EQ_INT(placed_within(&pl, LAUNCH_PHASES, &at, 1, 0, 100), 0);
	placement_release(&pl);
	launches_release(&l);
}

int main(void)
{
	test_random(60);
	test_random(1000000);
	test_empty();
	return check_done("test_launch");
}
