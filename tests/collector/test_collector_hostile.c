/*
 * test_collector_hostile: what the environment and the host program may
 * throw at the collector.  Numeric variables that are NaN,
 * infinite, negative, too large or not numbers fall back to their defaults
 * with one line on stderr (a NaN once reached an integer cast: undefined
 * behaviour that the UBSan build traps).  More distinct names than the
 * table holds are counted, said once, and written to the end record, so
 * the reader warns how many read back as "(unknown)".  Each case runs in
 * a child of its own: the stderr line and the name table are per process.
 */
#include <sys/wait.h>

#include "ctest.h"
#include "vtrace.h"

#define NAMES 20000

static int run_case(int which, const char *dir)
{
	char name[32];

	switch (which) {
	case 0:
		setenv("VTRACE_FLUSH_MS", "nan", 1);
		setenv("VTRACE_SAMPLE_MS", "inf", 1);
		setenv("VTRACE_LIVE", "1e300", 1);
		setenv("VTRACE_BUFFER_KB", "-64", 1);
		setenv("VTRACE_RANK", "3", 1);
		setenv("WORLD_SIZE", "99999999999999999999", 1);
		if (vt_init(dir, "env", -1) || !vt_enabled())
			return 10;
		for (int i = 0; i < 100; i++) {
			vt_region_begin("step");
			vt_region_end();
		}
		break;
	case 1:
		if (vt_init(dir, "names", 0) || !vt_enabled())
			return 20;
		for (int i = 0; i < NAMES; i++) {
			snprintf(name, sizeof(name), "region_%d", i);
			vt_region_begin(name);
			vt_region_end();
		}
		break;
	}
	vt_shutdown();
	return 0;
}

static int child(int which, const char *dir, char *err, size_t cap)
{
	int status = -1, lines;
	pid_t pid;

	ctest_stderr_begin(dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(run_case(which, dir));
	waitpid(pid, &status, 0);
	lines = ctest_stderr_end(err, cap);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "case %d: status %#x", which,
		  status);
	return lines;
}

int main(void)
{
	char *dir = ctest_tmpdir(), err[4096], path[4096];
	struct ctest_trace tr;
	size_t unknown;
	int lines;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_REGIONS");
	unsetenv("RANK");

	lines = child(0, dir, err, sizeof(err));
	CHECK_MSG(lines == 1 && strstr(err, "VTRACE_FLUSH_MS: 'nan' is not a usable number; "
					  "the default is used"),
		  "bad numbers: one line, about the first: %s", err);
	snprintf(path, sizeof(path), "%s/env-rank3.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0 && ctest_count(&tr, 'X', "step") == 100,
		  "defaults in force, recording works (rc %d, %zu regions)", tr.rc,
		  ctest_count(&tr, 'X', "step"));
	CHECK_MSG(tr.info.world_size == -1, "a world size past int64 is unknown (%lld)",
		  (long long)tr.info.world_size);
	ctest_free(&tr);

	lines = child(1, dir, err, sizeof(err));
	CHECK_MSG(lines == 1 && strstr(err, "more than 16383 distinct names"),
		  "a full name table is said once: %s", err);
	snprintf(path, sizeof(path), "%s/names-rank0.vtr", dir);
	ctest_load(path, &tr);
	unknown = ctest_count(&tr, 'X', "(unknown)");
	CHECK_MSG(ctest_count(&tr, 'X', NULL) == NAMES && unknown == NAMES - 16383,
		  "every region kept, %zu of them unnamed (want %d)", unknown, NAMES - 16383);
	snprintf(err, sizeof(err), "%d recording calls came after the collector's name table "
		 "was full", NAMES - 16383);
	CHECK_MSG(ctest_warned(&tr, err), "the reader warns: %s",
		  tr.info.nr_warnings ? tr.info.warnings[0].msg : "(nothing)");
	ctest_free(&tr);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_hostile");
}
