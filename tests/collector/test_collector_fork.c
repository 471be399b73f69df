/*
 * test_collector_fork: fork() while recording, with another thread busy
 * recording at that moment.  The child must not deadlock, must not write
 * into the parent's file (not even what the parent had buffered), stays
 * off, and may start its own file with vt_init(), which gets its pid in
 * the name.  The parent goes on recording as if nothing happened.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "ctest.h"
#include "vtrace.h"

static atomic_int stop;

static void *busy(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		vt_region_begin("busy");
		vt_region_end();
		n++;
	}
	return (void *)n;
}

/* Exit status: 0 when the child saw what it should. */
static int child(const char *dir, int own)
{
	char want[4096];

	alarm(20);		/* a deadlock fails the test instead of hanging it */
	if (vt_enabled())
		return 10;
	vt_region_begin("child_off");
	vt_region_end();
	if (vt_flush() != -1)
		return 11;
	if (!own)
		return 0;
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * GCC 12's ASan allocator is not fork-safe: a thread started in the
	 * child can hang in calloc().  Without the timer no thread is started.
	 */
	setenv("VTRACE_FLUSH_MS", "0", 1);
#endif
	if (vt_init(dir, "fork", 0))
		return 12;
	snprintf(want, sizeof(want), "%s/fork-rank0-pid%d.vtr", dir, (int)getpid());
	if (!vt_path() || strcmp(vt_path(), want))
		return 13;
	vt_region_begin("child_own");
	vt_region_end();
	return 0;
}

int main(void)
{
	char *dir = ctest_tmpdir(), path[4096], own[4096];
	struct ctest_trace tr;
	pthread_t tid;
	void *nr_busy;
	int status[2] = { -1, -1 };
	pid_t pid[2];

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	setenv("VTRACE_FLUSH_MS", "1", 1);
	vt_init(dir, "fork", 0);
	snprintf(path, sizeof(path), "%s", vt_path());
	pthread_create(&tid, NULL, busy, NULL);
	vt_region_begin("parent_before");	/* still buffered when the children fork */
	vt_region_end();
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		/*
		 * vt_shutdown() is what exit() would run; _exit() then skips the
		 * leak check, which can hang in the fork of a threaded process.
		 */
		if (pid[i] == 0) {
			int rc = child(dir, i);

			vt_shutdown();
			_exit(rc);
		}
	}
	atomic_store(&stop, 1);
	pthread_join(tid, &nr_busy);
	for (int i = 0; i < 2; i++)
		waitpid(pid[i], &status[i], 0);
	vt_region_begin("parent_after");
	vt_region_end();
	vt_shutdown();

	for (int i = 0; i < 2; i++)
		CHECK_MSG(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0,
			  "child %d: off after fork, no deadlock%s (status %#x)", i,
			  i ? ", vt_init starts its own file" : "", status[i]);

	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0, "the parent's file is complete (rc %d)", tr.rc);
	CHECK_MSG(ctest_count(&tr, 'X', "parent_before") == 1 &&
		      ctest_count(&tr, 'X', "parent_after") == 1,
		  "the parent's regions are there once each");
	CHECK_MSG(ctest_count(&tr, 'X', "busy") == (size_t)(intptr_t)nr_busy,
		  "the busy thread's %ld regions are all there, none twice (%zu)",
		  (long)(intptr_t)nr_busy, ctest_count(&tr, 'X', "busy"));
	CHECK_MSG(!ctest_count(&tr, 0, "child_off") && !ctest_count(&tr, 0, "child_own"),
		  "nothing of the children");
	ctest_free(&tr);

	snprintf(own, sizeof(own), "%s/fork-rank0-pid%d.vtr", dir, (int)pid[1]);
	ctest_load(own, &tr);
	CHECK_MSG(tr.rc == 0 && tr.n == 1 && ctest_count(&tr, 'X', "child_own") == 1,
		  "the child's own file has just its region (rc %d, %zu events)", tr.rc, tr.n);
	ctest_free(&tr);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_fork");
}
