/*
 * test_collector_signal: recording from a signal handler.  A fast interval
 * timer interrupts a thread that records regions and counters in a tight
 * loop; the handler records a region with an instant inside.  A handler
 * that lands inside a recording call of its thread is dropped whole, never
 * half: so every region of the loop is in the file, the handler's regions
 * and instants pair up, and nothing is mis-nested.
 */
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>

#include "ctest.h"
#include "vtrace.h"

#define LOOPS 300000

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	vt_region_begin("in_handler");
	vt_instant("tick");
	vt_region_end();
	ticks++;
}

int main(void)
{
	char *dir = ctest_tmpdir(), path[4096];
	struct itimerval on = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	struct ctest_trace tr;
	size_t handled;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	setenv("VTRACE_BUFFER_KB", "64", 1);
	vt_init(dir, "signal", 0);
	snprintf(path, sizeof(path), "%s", vt_path());
	vt_instant("first");		/* the thread's buffer exists before the first signal */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &on, NULL);
	for (long i = 0; i < LOOPS; i++) {
		vt_region_begin("work");
		vt_counter("i", i);
		vt_region_end();
	}
	setitimer(ITIMER_REAL, &off, NULL);
	vt_shutdown();

	ctest_load(path, &tr);
	handled = ctest_count(&tr, 'i', "tick");
	CHECK_MSG(tr.rc == 0 && tr.info.nr_warnings == 0,
		  "the file is complete and well nested (%s)",
		  tr.info.nr_warnings ? tr.info.warnings[0].msg : "");
	CHECK_MSG(ctest_count(&tr, 'X', "work") == LOOPS && ctest_count(&tr, 'C', "i") == LOOPS,
		  "every region and counter of the loop is there");
	CHECK_MSG(ticks > 0 && handled > 0 && handled <= (size_t)ticks,
		  "handlers recorded: %zu of %d signals, the rest dropped", handled, (int)ticks);
	CHECK_MSG(ctest_count(&tr, 'X', "in_handler") == handled,
		  "a handler's region and instant are kept or dropped together");
	ctest_free(&tr);
	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_signal");
}
