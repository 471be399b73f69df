/*
 * test_collector_unwritable: the collector in trouble.  A directory that
 * cannot be made, links planted at every name the file could take (never
 * followed: their target stays as it was), and a disk that fills
 * up mid-run (RLIMIT_FSIZE): each time it switches off with one line on
 * stderr, never writes to stdout, never exits, and every call afterwards is
 * a harmless no-op.  Each case runs in a child of its own, because the one
 * line is per process.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "ctest.h"
#include "vtrace.h"

static void record_some(long n)
{
	for (long i = 0; i < n; i++) {
		vt_region_begin("step");
		vt_counter("i", i);
		vt_region_end();
	}
	vt_frames(1);
	vt_instant("still alive");
}

/* What the child of each case does; exits 0 when the calls behaved. */
static int run_case(int which, const char *dir)
{
	char path[8192];
	struct rlimit lim = { 256 * 1024, 256 * 1024 };
	FILE *victim;

	switch (which) {
	case 0:		/* a directory below a regular file */
		snprintf(path, sizeof(path), "%s/plain-file/sub", dir);
		if (vt_init(path, "x", 0) != -1 || vt_enabled())
			return 10;
		break;
	case 1:		/* a link planted at the file's name, to a file of someone else's */
		snprintf(path, sizeof(path), "%s/victim", dir);
		if (!(victim = fopen(path, "w")) || fputs("keep", victim) < 0 || fclose(victim))
			return 22;
		/* at every name the collector would try (vt_init()): it has none left */
		for (int k = 0; k < 100; k++) {
			int n = snprintf(path, sizeof(path), "%s/full-rank0", dir);

			if (k)
				n += snprintf(path + n, sizeof(path) - n, "-pid%d", (int)getpid());
			if (k > 1)
				n += snprintf(path + n, sizeof(path) - n, "-%d", k);
			snprintf(path + n, sizeof(path) - n, ".vtr");
			if (symlink("victim", path))
				return 20;
		}
		if (vt_init(dir, "full", 0) != -1 || vt_enabled())
			return 21;
		break;
	case 2:		/* the disk fills up after a while */
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim))
			return 30;
		setenv("VTRACE_BUFFER_KB", "64", 1);
		if (vt_init(dir, "fills", 0) || !vt_enabled())
			return 31;
		record_some(100000);
		if (vt_enabled())
			return 32;
		break;
	}
	record_some(1000);
	if (vt_flush() != -1 || vt_path())
		return 40;
	vt_init(dir, "again", 0);	/* may work or not: no second line either way */
	vt_shutdown();
	vt_shutdown();
	return 0;
}

int main(void)
{
	static const char *const what[3] = { "directory cannot be made",
					     "a planted link is not followed",
					     "disk fills up mid-run" };
	static const char *const expect[3] = { "cannot create", "cannot create", "cannot write" };
	char *dir = ctest_tmpdir(), path[4096], err[4096], out[4096];
	struct ctest_trace tr;
	FILE *f;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	snprintf(path, sizeof(path), "%s/plain-file", dir);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	for (int i = 0; i < 3; i++) {
		char sub[4096], outp[4096];
		int status = -1, lines;
		pid_t pid;

		snprintf(sub, sizeof(sub), "%s/case%d", dir, i);
		mkdir(sub, 0755);
		if (i == 0)
			snprintf(sub, sizeof(sub), "%s", dir);
		snprintf(outp, sizeof(outp), "%s/stdout.txt", dir);
		ctest_stderr_begin(dir);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			dup2(fd, 1);
			_exit(run_case(i, sub));
		}
		waitpid(pid, &status, 0);
		lines = ctest_stderr_end(err, sizeof(err));
		f = fopen(outp, "r");
		out[0] = '\0';
		if (f) {
			out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
			fclose(f);
		}
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "%s: never exits, calls are no-ops afterwards (status %#x)",
			  what[i], status);
		CHECK_MSG(lines == 1 && !strncmp(err, "vtrace: ", 8) && strstr(err, expect[i]) &&
			      strstr(err, "recording is off"),
			  "%s: one line on stderr: %s", what[i], err);
		CHECK_MSG(out[0] == '\0', "%s: nothing on stdout", what[i]);
	}

	/* The link's target is untouched: O_NOFOLLOW refused the name. */
	snprintf(path, sizeof(path), "%s/case1/victim", dir);
	f = fopen(path, "r");
	out[0] = '\0';
	if (f) {
		out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
		fclose(f);
	}
	CHECK_MSG(!strcmp(out, "keep"), "the file behind a planted link was written: '%s'", out);

	/* What the full disk left is readable up to where it stopped. */
	snprintf(path, sizeof(path), "%s/case2/fills-rank0.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 1 && ctest_count(&tr, 'X', "step") > 0,
		  "the file cut by the full disk reads as incomplete (rc %d, %zu regions)", tr.rc,
		  ctest_count(&tr, 'X', "step"));
	ctest_free(&tr);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_unwritable");
}
