/*
 * test_collector_stress: 2 threads x 1,000,000 nested regions, with counter
 * and frame records (two slots each) mixed in so they straddle ring wraps.
 * Every region must be in the file, correctly nested and in order per
 * thread.  Runs twice: the default buffer with a 5 ms timer flushing while
 * the threads record, and a 64 KiB buffer that fills every few thousand
 * regions, so the owner and the timer both write.
 *
 * Each thread records groups of nested regions L0 > L1 > ... of depth
 * 1 + group % 5.  Regions come out of the reader in the order they end, so
 * a group reads L(d-1), ..., L0, each containing the one before.  The check
 * runs inside the sink, streaming: nothing grows with the event count.
 */
#include <pthread.h>

#include "ctest.h"
#include "vtrace.h"

#define REGIONS 1000000
#define THREADS 2
#define MARK_EVERY 997

static const char *const level_name[5] = { "L0", "L1", "L2", "L3", "L4" };

static void *record(void *arg)
{
	long done = 0;

	(void)arg;
	for (long g = 0; done < REGIONS; g++) {
		int d = 1 + g % 5;

		if (d > REGIONS - done)
			d = REGIONS - done;
		for (int j = 0; j < d; j++)
			vt_region_begin(level_name[j]);
		for (int j = 0; j < d; j++)
			vt_region_end();
		done += d;
		if (g % MARK_EVERY == 0) {
			vt_counter("group", g);
			vt_frames(1);
		}
	}
	return NULL;
}

struct stress_thread {
	char tid[16];
	long regions, group, frames, counters;
	int depth, pos;			/* current group: its depth, regions seen */
	int64_t last_counter;
	int64_t prev_ts, prev_end;	/* the region emitted before, same group */
	int64_t group_end;		/* end of the previous group's L0 */
	long bad_name, bad_nest, bad_order, bad_counter;
};

struct stress_check {
	struct stress_thread t[THREADS];
	int nr;
	long other;
};

static struct stress_thread *thread_of(struct stress_check *c, const char *tid)
{
	for (int i = 0; i < c->nr; i++)
		if (!strcmp(c->t[i].tid, tid))
			return &c->t[i];
	if (c->nr == THREADS)
		return NULL;
	memset(&c->t[c->nr], 0, sizeof(c->t[0]));
	snprintf(c->t[c->nr].tid, sizeof(c->t[0].tid), "%s", tid);
	c->t[c->nr].last_counter = -1;
	return &c->t[c->nr++];
}

static void check_region(struct stress_thread *t, const char *name, int64_t ts, int64_t end)
{
	int level;

	if (t->pos == 0) {
		long left = REGIONS - t->regions;

		t->depth = 1 + t->group % 5;
		if (t->depth > left)
			t->depth = left;
	}
	level = t->depth - 1 - t->pos;
	if (level < 0 || strcmp(name, level_name[level]))
		t->bad_name++;
	if (t->pos > 0 && !(ts <= t->prev_ts && t->prev_end <= end))
		t->bad_nest++;
	if (t->pos == 0 && ts < t->group_end)
		t->bad_order++;
	t->prev_ts = ts;
	t->prev_end = end;
	t->regions++;
	if (++t->pos == t->depth) {
		t->pos = 0;
		t->group++;
		t->group_end = end;
	}
}

static int stress_batch(void *ctx, const struct event_batch *b)
{
	struct stress_check *c = ctx;
	char tid[16], name[16];

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct stress_thread *t;

		ctest_copy(tid, sizeof(tid), &b->strs, ev->tid);
		ctest_copy(name, sizeof(name), &b->strs, ev->name);
		if (!(t = thread_of(c, tid))) {
			c->other++;
			continue;
		}
		if (ev->phase == 'X') {
			check_region(t, name, ev->ts_ns, ev->ts_ns + ev->dur_ns);
		} else if (ev->phase == 'C' && (ev->flags & EV_FRAMES)) {
			t->frames += ev->value;
		} else if (ev->phase == 'C' && !strcmp(name, "group")) {
			if (ev->value <= t->last_counter || ev->value % MARK_EVERY)
				t->bad_counter++;
			t->last_counter = ev->value;
			t->counters++;
		} else {
			c->other++;
		}
	}
	return 0;
}

static void run(const char *dir, const char *label)
{
	struct trace_sink sink;
	struct trace_info info;
	struct stress_check c;
	struct err e;
	pthread_t tid[THREADS];
	char path[4096];
	int rc;

	CHECK_MSG(vt_init(dir, label, 0) == 0, "%s: recording", label);
	snprintf(path, sizeof(path), "%s", vt_path() ? vt_path() : "");
	for (int i = 0; i < THREADS; i++)
		pthread_create(&tid[i], NULL, record, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
	vt_shutdown();

	memset(&c, 0, sizeof(c));
	sink = (struct trace_sink){ &c, stress_batch, NULL };
	rc = vtr_read(path, &sink, &info, &e);
	CHECK_MSG(rc == 0 && info.complete, "%s: the file reads completely (rc %d)", label, rc);
	CHECK_MSG(c.nr == THREADS && c.other == 0, "%s: events of exactly %d threads, nothing else",
		  label, THREADS);
	for (int i = 0; i < c.nr; i++) {
		struct stress_thread *t = &c.t[i];
		long groups = t->group, marks = (groups + MARK_EVERY - 1) / MARK_EVERY;

		CHECK_MSG(t->regions == REGIONS && t->pos == 0,
			  "%s: thread %d: %ld regions", label, i, t->regions);
		CHECK_MSG(!t->bad_name && !t->bad_nest,
			  "%s: thread %d: nesting (%ld names, %ld spans off)", label, i,
			  t->bad_name, t->bad_nest);
		CHECK_MSG(!t->bad_order, "%s: thread %d: groups in order (%ld off)", label, i,
			  t->bad_order);
		CHECK_MSG(t->counters == marks && t->frames == marks && !t->bad_counter,
			  "%s: thread %d: %ld counters and %ld frames in order, %ld expected",
			  label, i, t->counters, t->frames, marks);
	}
	unlink(path);
}

int main(void)
{
	char *dir = ctest_tmpdir();

	unsetenv("VTRACE_REGIONS");
	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	setenv("VTRACE_FLUSH_MS", "5", 1);
	run(dir, "timer");
	setenv("VTRACE_BUFFER_KB", "64", 1);
	setenv("VTRACE_FLUSH_MS", "1", 1);
	run(dir, "small");
	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_stress");
}
