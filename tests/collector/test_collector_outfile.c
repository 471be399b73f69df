/*
 * test_collector_outfile: the collector's file is always one it created
 * (never one planted there).  A FIFO planted at DIR/NAME-rankR.vtr
 * once made vt_init(), or the first recording call with VTRACE_DIR set,
 * wait forever for a reader; vt_shutdown() then vt_init() with the same
 * name truncated the first session's file, and a second run the first
 * run's.  Each case that could block runs in a child under alarm(): a
 * hang is a SIGALRM death, a failed check and not a stuck test.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include "ctest.h"
#include "vtrace.h"

/* The child's exit status: 0 when it recorded into a regular file it made. */
static int fifo_case(const char *dir, int auto_start)
{
	struct stat st;
	const char *path;

	alarm(10);
	if (auto_start) {
		setenv("VTRACE_DIR", dir, 1);
		setenv("VTRACE_NAME", "auto", 1);
	} else if (vt_init(dir, "fifo", 0)) {
		return 10;
	}
	vt_region_begin("step");
	vt_region_end();
	path = vt_path();
	if (!path || stat(path, &st) || !S_ISREG(st.st_mode))
		return 11;
	vt_shutdown();
	return 0;
}

static void fifo(const char *dir, const char *name, int auto_start)
{
	char path[4096];
	struct stat st;
	int status = -1;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s-rank0.vtr", dir, name);
	CHECK_MSG(mkfifo(path, 0600) == 0, "mkfifo %s", path);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fifo_case(dir, auto_start));
	waitpid(pid, &status, 0);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "%s: a FIFO at the file's name: the collector returns and records elsewhere "
		  "(status %#x%s)", auto_start ? "VTRACE_DIR" : "vt_init", status,
		  WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? ": blocked" : "");
	CHECK_MSG(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is left as it was");
	snprintf(path, sizeof(path), "%s/%s-rank0-pid%d.vtr", dir, name, (int)pid);
	CHECK_MSG(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "the recording is in %s", path);
}

/* Record n regions into a new session named name; its file's path into path. */
static int session(const char *dir, const char *name, int n, char *path, size_t cap)
{
	if (vt_init(dir, name, 0))
		return -1;
	snprintf(path, cap, "%s", vt_path());
	for (int i = 0; i < n; i++) {
		vt_region_begin("step");
		vt_region_end();
	}
	vt_shutdown();
	return 0;
}

int main(void)
{
	char *dir = ctest_tmpdir(), first[4096], second[4096], third[4096], old[4096];
	struct ctest_trace tr;
	FILE *f;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("RANK");

	fifo(dir, "fifo", 0);
	fifo(dir, "auto", 1);

	/* two sessions of one name: the second gets a file of its own */
	CHECK(session(dir, "twice", 5, first, sizeof(first)) == 0);
	CHECK(session(dir, "twice", 3, second, sizeof(second)) == 0);
	CHECK(session(dir, "twice", 2, third, sizeof(third)) == 0);
	CHECK_MSG(strcmp(first, second) && strcmp(second, third) && strcmp(first, third),
		  "three sessions, three files: %s, %s, %s", first, second, third);
	ctest_load(first, &tr);
	CHECK_MSG(tr.rc == 0 && ctest_count(&tr, 'X', "step") == 5,
		  "the first session's file is whole (rc %d, %zu regions)", tr.rc,
		  ctest_count(&tr, 'X', "step"));
	ctest_free(&tr);
	ctest_load(third, &tr);
	CHECK_MSG(tr.rc == 0 && ctest_count(&tr, 'X', "step") == 2,
		  "the third session's file has its regions (rc %d, %zu regions)", tr.rc,
		  ctest_count(&tr, 'X', "step"));
	ctest_free(&tr);

	/* a file of an earlier run, or anyone's, is never emptied */
	snprintf(old, sizeof(old), "%s/old-rank0.vtr", dir);
	f = fopen(old, "w");
	CHECK(f && fputs("precious", f) >= 0 && fclose(f) == 0);
	CHECK(session(dir, "old", 1, first, sizeof(first)) == 0);
	f = fopen(old, "r");
	CHECK_MSG(f && fgets(second, sizeof(second), f) && !strcmp(second, "precious"),
		  "an existing file is left as it was");
	if (f)
		fclose(f);
	CHECK_MSG(strcmp(first, old), "and the session wrote %s", first);

	/* nor is a link at the name followed: the session goes to a name of its own */
	snprintf(old, sizeof(old), "%s/link-rank0.vtr", dir);
	CHECK(symlink("old-rank0.vtr", old) == 0);
	CHECK(session(dir, "link", 1, first, sizeof(first)) == 0);
	f = fopen(old, "r");
	CHECK_MSG(f && fgets(second, sizeof(second), f) && !strcmp(second, "precious"),
		  "the link's target is left as it was");
	if (f)
		fclose(f);
	CHECK_MSG(strcmp(first, old), "and the session wrote %s", first);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_outfile");
}
