/*
 * test_collector_nvml: the sampler and the live line, with and without
 * NVML.  The test runs itself twice more: once with the fake
 * libnvidia-ml.so.1 that collector.mk builds beside it on LD_LIBRARY_PATH
 * (the loader reads that variable only at start, hence the exec), and once
 * without it, where GPU samples must be absent and nothing may be said.
 */
#include <libgen.h>
#include <sys/wait.h>
#include <time.h>

#include "ctest.h"
#include "vtrace.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Record for a while with sampling and the live line on; check the file. */
static int run(const char *dir, int with_gpus)
{
	char err[8192], path[4096];
	const struct ctest_ev *ev;
	struct ctest_trace tr;
	int lines;

	setenv("VTRACE_SAMPLE_MS", "10", 1);
	setenv("VTRACE_LIVE", "0.05", 1);
	ctest_stderr_begin(dir);
	vt_init(dir, with_gpus ? "gpus" : "nogpus", 0);
	snprintf(path, sizeof(path), "%s", vt_path() ? vt_path() : "");
	for (int i = 0; i < 20; i++) {
		vt_region_begin("step");
		sleep_ms(10);
		vt_frames(2);
		vt_region_end();
	}
	vt_shutdown();
	lines = ctest_stderr_end(err, sizeof(err));

	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0, "%s: file complete", path);
	CHECK_MSG(ctest_count(&tr, 'C', "proc.rss_bytes") >= 5, "RSS samples (%zu)",
		  ctest_count(&tr, 'C', "proc.rss_bytes"));
	ev = ctest_find(&tr, 'C', "proc.rss_bytes");
	CHECK_MSG(ev && ev->value > 0 && !strcmp(ev->cat, "vtrace.sample") && ev->device == -1,
		  "RSS is positive, cat vtrace.sample, no device");
	ev = ctest_find(&tr, 'C', "sys.mem_total_bytes");
	CHECK_MSG(ev && ev->value > 0, "system memory sampled");
	ev = ctest_find(&tr, 'C', "proc.cpu_pct");
	CHECK_MSG(ev && ev->value >= 0, "process CPU sampled");
	CHECK_MSG(lines >= 2 && !strncmp(err, "vtrace: rank 0:", 15) && strstr(err, "fps") &&
		      strstr(err, "frames "),
		  "live lines on stderr (%d)", lines);
	if (with_gpus) {
		size_t n0 = 0, n1 = 0;

		for (size_t i = 0; i < tr.n; i++) {
			if (strcmp(tr.ev[i].name, "gpu.mem_used_bytes"))
				continue;
			if (tr.ev[i].device == 0 && tr.ev[i].value == 1ll << 30)
				n0++;
			if (tr.ev[i].device == 1 && tr.ev[i].value == 2ll << 30)
				n1++;
		}
		CHECK_MSG(n0 >= 5 && n1 >= 5,
			  "GPU memory of both fake GPUs, with device (%zu, %zu)", n0, n1);
		ev = ctest_find(&tr, 'C', "gpu.util_pct");
		CHECK_MSG(ev && ev->value == 40 && ev->device == 0, "GPU utilization");
		ev = ctest_find(&tr, 'C', "gpu.temp_c");
		CHECK_MSG(ev && ev->value == 60, "GPU temperature");
		ev = ctest_find(&tr, 'C', "gpu.power_mw");
		CHECK_MSG(ev && ev->value == 300000, "GPU power");
		ev = ctest_find(&tr, 'C', "gpu.mem_total_bytes");
		CHECK_MSG(ev && ev->value == 80ll << 30, "GPU memory total");
		CHECK_MSG(strstr(err, "gpu0 1.0/80.0 GiB 40%") &&
			      strstr(err, "gpu1 2.0/80.0 GiB 41%"),
			  "the live line shows both GPUs: %.200s", err);
	} else {
		CHECK_MSG(ctest_count(&tr, 0, "gpu.mem_used_bytes") == 0,
			  "no GPU samples without NVML");
		CHECK_MSG(!strstr(err, "gpu"), "no GPU on the live line");
	}
	ctest_free(&tr);
	return check_done(with_gpus ? "test_collector_nvml (fake NVML)" : "test_collector_nvml "
				      "(no NVML)");
}

int main(int argc, char **argv)
{
	char self[4096], copy[4096], libdir[4200], *dir;
	int status[2] = { -1, -1 };
	ssize_t n;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	if (argc == 4 && !strcmp(argv[1], "--run"))
		return run(argv[2], !strcmp(argv[3], "gpus"));

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	memcpy(copy, self, n + 1);
	snprintf(libdir, sizeof(libdir), "%s/fake-nvml", dirname(copy));
	dir = ctest_tmpdir();
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			char *args[] = { self, "--run", dir, i ? "gpus" : "none", NULL };

			if (i)
				setenv("LD_LIBRARY_PATH", libdir, 1);
			else
				setenv("LD_LIBRARY_PATH", "/nonexistent", 1);
			execv(self, args);
			_exit(127);
		}
		waitpid(pid, &status[i], 0);
	}
	CHECK_MSG(WIFEXITED(status[0]) && WEXITSTATUS(status[0]) == 0, "without NVML");
	CHECK_MSG(WIFEXITED(status[1]) && WEXITSTATUS(status[1]) == 0, "with the fake NVML in %s",
		  libdir);
	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_nvml");
}
