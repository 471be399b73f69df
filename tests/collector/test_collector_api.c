/*
 * test_collector_api: the C API of libvtrace end to end: what the calls
 * record, how the reader maps it (phases, names, pid/tid, times on the
 * CLOCK_REALTIME timeline), flush, shutdown and a second session, the
 * environment over the arguments, auto-start from VTRACE_DIR, the run's
 * tags and region arguments, and a quiet stderr throughout.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#include "ctest.h"
#include "vtrace.h"

static char *dir;

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Calls before vt_init() with no VTRACE_DIR are no-ops and leave no file. */
static void test_before_init(void)
{
	vt_region_begin("early");
	vt_region_end();
	vt_frames(1);
	vt_counter("early", 1);
	CHECK_MSG(!vt_enabled() && !vt_path(), "recording is off before vt_init");
	CHECK_MSG(vt_flush() == -1, "vt_flush before vt_init says not recording");
}

static void test_session(void)
{
	char path[4096], longname[400];
	const struct ctest_ev *outer, *inner, *ev;
	struct ctest_trace tr;
	int64_t t0 = realtime_ns(), t1;

	CHECK_MSG(vt_init(dir, "api", 3) == 0, "vt_init starts recording");
	CHECK_MSG(vt_init(dir, "other", 4) == 0, "vt_init while recording is a no-op");
	snprintf(path, sizeof(path), "%s/api-rank3.vtr", dir);
	CHECK_MSG(vt_path() && !strcmp(vt_path(), path), "file is DIR/NAME-rankR.vtr (%s)",
		  vt_path() ? vt_path() : "NULL");

	vt_region_begin("outer");
	sleep_ms(2);
	vt_region_begin("inner");
	sleep_ms(2);
	vt_region_end();
	vt_region_end();
	vt_region_end();		/* no begin: ignored */
	vt_instant("mark");
	vt_counter("queue_depth", 42);
	vt_counter("negative", -7);
	vt_frames(16);
	vt_blocks(4);
	vt_region_begin(NULL);
	vt_region_end();
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	vt_region_begin(longname);
	vt_region_end();

	CHECK_MSG(vt_flush() == 0, "vt_flush writes");
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 1 && !tr.info.complete,
		  "before shutdown the file reads as incomplete (rc %d)", tr.rc);
	CHECK_MSG(ctest_count(&tr, 'X', "outer") == 1,
		  "flushed events are readable before shutdown");
	ctest_free(&tr);

	vt_shutdown();
	vt_shutdown();
	t1 = realtime_ns();
	CHECK_MSG(!vt_enabled() && !vt_path(), "vt_shutdown stops recording");
	vt_region_begin("after");
	vt_region_end();

	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0 && tr.info.complete, "after shutdown the file is complete (rc %d: %s)",
		  tr.rc, tr.info.nr_warnings ? tr.info.warnings[0].msg : tr.err.msg);
	CHECK_MSG(!strcmp(tr.info.format, "vtr"), "format is vtr");
	CHECK_MSG(tr.info.rank == 3, "rank from vt_init (%lld)", (long long)tr.info.rank);
	CHECK_MSG(tr.info.nr_events == (int64_t)tr.n, "nr_events counts delivered events");
	CHECK_MSG(ctest_count(&tr, 0, "after") == 0 && ctest_count(&tr, 0, "early") == 0,
		  "nothing recorded outside the session");

	outer = ctest_find(&tr, 'X', "outer");
	inner = ctest_find(&tr, 'X', "inner");
	CHECK_MSG(outer && inner, "regions become X events");
	if (outer && inner) {
		char pid[16], tid[16];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		snprintf(tid, sizeof(tid), "%d", (int)gettid());
		CHECK_MSG(!strcmp(outer->cat, "user_annotation"), "region cat is user_annotation");
		CHECK_MSG(!strcmp(outer->pid, pid) && !strcmp(outer->tid, tid),
			  "pid and tid are the process and thread ids (%s/%s)",
			  outer->pid, outer->tid);
		CHECK_MSG(outer->ts_ns <= inner->ts_ns &&
			      inner->ts_ns + inner->dur_ns <= outer->ts_ns + outer->dur_ns,
			  "inner lies inside outer");
		CHECK_MSG(inner->dur_ns >= 2000000 && outer->dur_ns >= 4000000,
			  "durations cover the sleeps (%lld, %lld ns)", (long long)inner->dur_ns,
			  (long long)outer->dur_ns);
		CHECK_MSG(outer->ts_ns >= t0 - 50000000 && outer->ts_ns <= t1,
			  "timestamps are on the CLOCK_REALTIME timeline");
		CHECK_MSG((outer->flags & (EV_TS | EV_DUR)) == (EV_TS | EV_DUR),
			  "X has EV_TS and EV_DUR");
	}
	ev = ctest_find(&tr, 'i', "mark");
	CHECK_MSG(ev && !strcmp(ev->cat, "vtrace"), "instants become i events");
	ev = ctest_find(&tr, 'C', "queue_depth");
	CHECK_MSG(ev && ev->value == 42 && (ev->flags & EV_VALUE),
		  "counters become C events with value");
	ev = ctest_find(&tr, 'C', "negative");
	CHECK_MSG(ev && ev->value == -7, "counter values are signed");
	ev = ctest_find(&tr, 'C', "vtrace.frames");
	CHECK_MSG(ev && ev->value == 16 && (ev->flags & EV_FRAMES),
		  "vt_frames: vtrace.frames, EV_FRAMES");
	ev = ctest_find(&tr, 'C', "vtrace.blocks");
	CHECK_MSG(ev && ev->value == 4 && (ev->flags & EV_BLOCKS),
		  "vt_blocks: vtrace.blocks, EV_BLOCKS");
	CHECK_MSG(ctest_count(&tr, 'X', "(null)") == 1, "a NULL name reads as (null)");
	longname[VTR_NAME_MAX] = '\0';
	CHECK_MSG(ctest_count(&tr, 'X', longname) == 1,
		  "long names are cut at %d bytes", VTR_NAME_MAX);
	CHECK_MSG(ctest_count(&tr, 'X', NULL) == 4, "every region and only those (%zu)",
		  ctest_count(&tr, 'X', NULL));
	ctest_free(&tr);

	/* A second session: a new file that has the strings it needs. */
	CHECK_MSG(vt_init(dir, "again", 0) == 0, "vt_init after vt_shutdown starts a new file");
	vt_region_begin("outer");
	vt_region_end();
	vt_shutdown();
	snprintf(path, sizeof(path), "%s/again-rank0.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0 && ctest_count(&tr, 'X', "outer") == 1 && tr.n == 1,
		  "second session holds exactly its own event, named");
	ctest_free(&tr);
}

static void *thread_main(void *arg)
{
	char name[32];

	snprintf(name, sizeof(name), "thread_%d", (int)(intptr_t)arg);
	vt_region_begin(name);
	vt_region_begin("work");
	vt_region_end();
	vt_region_end();
	return NULL;
}

/* Threads that end before the flush: their records are written as they leave. */
static void test_threads(void)
{
	pthread_t t[4];
	struct ctest_trace tr;
	char path[4096];
	const struct ctest_ev *a, *b;

	vt_init(dir, "threads", 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	/* New threads reuse the buffers of those that ended. */
	for (int i = 4; i < 8; i++) {
		pthread_create(&t[0], NULL, thread_main, (void *)(intptr_t)i);
		pthread_join(t[0], NULL);
	}
	vt_shutdown();
	snprintf(path, sizeof(path), "%s/threads-rank0.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0 && ctest_count(&tr, 'X', "work") == 8, "8 threads, 8 work regions");
	a = ctest_find(&tr, 'X', "thread_0");
	b = ctest_find(&tr, 'X', "thread_1");
	CHECK_MSG(a && b && strcmp(a->tid, b->tid), "each thread has its own tid");
	CHECK_MSG(ctest_count(&tr, 'X', "thread_7") == 1, "a reused buffer records its new thread");
	ctest_free(&tr);
}

static void test_env(void)
{
	char path[4096];

	setenv("VTRACE_NAME", "envname", 1);
	setenv("VTRACE_RANK", "7", 1);
	vt_init(dir, "argname", 1);
	snprintf(path, sizeof(path), "%s/envname-rank7.vtr", dir);
	CHECK_MSG(vt_path() && !strcmp(vt_path(), path),
		  "VTRACE_NAME and VTRACE_RANK win over arguments");
	vt_shutdown();
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");

	setenv("RANK", "5", 1);
	vt_init(dir, "torchrun", -1);
	snprintf(path, sizeof(path), "%s/torchrun-rank5.vtr", dir);
	CHECK_MSG(vt_path() && !strcmp(vt_path(), path), "RANK is the fallback for rank -1");
	vt_shutdown();
	vt_init(dir, "given", 2);
	snprintf(path, sizeof(path), "%s/given-rank2.vtr", dir);
	CHECK_MSG(vt_path() && !strcmp(vt_path(), path), "a rank argument wins over RANK");
	vt_shutdown();
	unsetenv("RANK");

	snprintf(path, sizeof(path), "%s/sub/dir", dir);
	vt_init(path, "deep/name", 0);
	snprintf(path, sizeof(path), "%s/sub/dir/deep_name-rank0.vtr", dir);
	CHECK_MSG(vt_path() && !strcmp(vt_path(), path),
		  "missing directories are made, '/' in names cut");
	vt_shutdown();
}

/* Tags (vt_tag, VTRACE_TAGS) reach the reader's info; region arguments their region's event. */
static void test_metadata(void)
{
	const struct ctest_ev *step = NULL, *block = NULL, *frames = NULL;
	struct ctest_trace tr;
	char path[4096];
	const char *model = NULL, *exp = NULL, *name = NULL;

	setenv("VTRACE_TAGS", "exp=a,seed=7", 1);
	CHECK_MSG(vt_init(dir, "meta", 0) == 0, "vt_init with VTRACE_TAGS");
	unsetenv("VTRACE_TAGS");
	vt_tag("model", "wan2.1");
	vt_tag("model", "wan2.2");	/* again: the new value */
	vt_region_arg("orphan", 1);	/* no region open: dropped */
	vt_region_begin("denoise_step");
	vt_region_arg("step", 3);
	vt_region_argf("timestep", 874.5);
	vt_region_begin("block");
	vt_region_arg("block_size", 16);
	vt_region_end();
	vt_region_end();
	snprintf(path, sizeof(path), "%s/meta-rank0.vtr", dir);
	vt_shutdown();
	ctest_load(path, &tr);
	for (size_t i = 0; i < tr.info.nr_tags; i++) {
		const struct trace_tag *t = &tr.info.tags[i];

		if (!strcmp(t->key, "model"))
			model = t->value;
		if (!strcmp(t->key, "exp"))
			exp = t->value;
		if (!strcmp(t->key, "name"))
			name = t->value;
	}
	CHECK_MSG(model && !strcmp(model, "wan2.2"), "vt_tag: the last value (%s)",
		  model ? model : "none");
	CHECK_MSG(exp && !strcmp(exp, "a") && name && !strcmp(name, "meta"),
		  "VTRACE_TAGS and the run name are tags");
	for (size_t i = 0; i < tr.n; i++) {
		if (tr.ev[i].ph == 'X' && !strcmp(tr.ev[i].name, "denoise_step"))
			step = &tr.ev[i];
		if (tr.ev[i].ph == 'X' && !strcmp(tr.ev[i].name, "block"))
			block = &tr.ev[i];
		if (tr.ev[i].ph == 'C' && !strcmp(tr.ev[i].name, "vtrace.block_frames"))
			frames = &tr.ev[i];
	}
	CHECK_MSG(step && !strcmp(step->args, "{\"step\": 3, \"timestep\": 874.5}"),
		  "the step's arguments (%s)", step ? step->args : "no event");
	CHECK_MSG(block && !strcmp(block->args, "{\"block_size\": 16}"), "the block's arguments");
	CHECK_MSG(frames && frames->value == 16 && (frames->flags & EV_FRAMES) && block &&
			  frames->ts_ns == block->ts_ns + block->dur_ns,
		  "block_size: 16 frames at the block's end");
	CHECK_MSG(tr.info.nr_warnings == 0 && tr.rc == 0,
		  "the orphan argument dropped where it was made, the file clean");
	ctest_free(&tr);
}

/* A program that never calls vt_init() records when VTRACE_DIR is set. */
static void test_auto_init(void)
{
	struct ctest_trace tr;
	char path[4096];
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		setenv("VTRACE_DIR", dir, 1);
		setenv("VTRACE_NAME", "auto", 1);
		vt_region_begin("by_itself");
		vt_region_end();
		exit(0);		/* atexit writes the rest */
	}
	waitpid(pid, &status, 0);
	snprintf(path, sizeof(path), "%s/auto-rank0.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(WIFEXITED(status) && tr.rc == 0 && ctest_count(&tr, 'X', "by_itself") == 1,
		  "VTRACE_DIR starts recording without vt_init, atexit completes the file");
	ctest_free(&tr);
}

int main(void)
{
	char err[4096];
	int lines;

	dir = ctest_tmpdir();
	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	unsetenv("RANK");
	test_auto_init();
	ctest_stderr_begin(dir);
	test_before_init();
	test_session();
	test_threads();
	test_env();
	test_metadata();
	lines = ctest_stderr_end(err, sizeof(err));
	CHECK_MSG(lines == 0, "nothing on stderr in normal use (%s)", err);
	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_api");
}
