/*
 * test_collector_crash: a child records, flushes, keeps recording with a
 * fast timer flushing underneath, and is killed with SIGKILL.  The file must
 * read up to the last flush: everything from before the explicit flush,
 * nested correctly, and the rank marked incomplete with a warning.  Then
 * the same file cut inside its last block, at several points, still reads
 * with a warning naming the byte offset of that block.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "ctest.h"
#include "vtrace.h"

#define BEFORE 10000

static void child(const char *dir, int ready_fd)
{
	setenv("VTRACE_FLUSH_MS", "2", 1);
	if (vt_init(dir, "crash", 1))
		_exit(3);
	vt_region_begin("run");
	for (int i = 0; i < BEFORE; i++) {
		vt_region_begin("before");
		vt_frames(1);
		vt_region_end();
	}
	vt_flush();
	if (write(ready_fd, "x", 1) != 1)
		_exit(4);
	for (;;) {
		vt_region_begin("after");
		vt_region_begin("inner");
		vt_region_end();
		vt_region_end();
	}
}

static int64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* Copy the first n bytes of src to dst. */
static void copy_head(const char *src, const char *dst, int64_t n)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	char buf[65536];

	while (in && out && n > 0) {
		size_t got = fread(buf, 1, n < (int64_t)sizeof(buf) ? (size_t)n : sizeof(buf), in);

		if (!got)
			break;
		fwrite(buf, 1, got, out);
		n -= got;
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* Byte offsets of the blocks of a .vtr file, for cutting it. */
static size_t block_offsets(const char *path, int64_t *off, size_t cap)
{
	FILE *f = fopen(path, "rb");
	struct vtr_block b;
	int64_t at = sizeof(struct vtr_header);
	size_t n = 0;

	while (f && n < cap && !fseek(f, at, SEEK_SET) && fread(&b, sizeof(b), 1, f) == 1) {
		off[n++] = at;
		at += sizeof(b) + b.size;
	}
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	char *dir = ctest_tmpdir(), path[4096], cut[4096];
	struct ctest_trace tr;
	struct timespec pause = { 0, 30 * 1000000 };
	int64_t off[4096];
	size_t nb;
	int fds[2], status = 0;
	char c;
	pid_t pid;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	unsetenv("VTRACE_REGIONS");
	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(dir, fds[1]);
	}
	close(fds[1]);
	CHECK_MSG(read(fds[0], &c, 1) == 1, "the child recorded and flushed");
	nanosleep(&pause, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child died of SIGKILL");

	snprintf(path, sizeof(path), "%s/crash-rank1.vtr", dir);
	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 1 && !tr.info.complete,
		  "the file reads as incomplete (rc %d: %s)", tr.rc, tr.err.msg);
	CHECK_MSG(tr.info.rank == 1, "the rank is in the header");
	CHECK_MSG(ctest_warned(&tr, "no end record") || ctest_warned(&tr, "cut off"),
		  "a warning says why (%s)",
		  tr.info.nr_warnings ? tr.info.warnings[0].msg : "none");
	CHECK_MSG(ctest_count(&tr, 'X', "before") == BEFORE,
		  "every region before the flush is there");
	CHECK_MSG(ctest_count(&tr, 'C', "vtrace.frames") == BEFORE, "and every frame");
	CHECK_MSG(ctest_count(&tr, 'B', "run") == 1, "the open outer region is kept as a B event");
	CHECK_MSG(ctest_count(&tr, 'X', "after") > 0,
		  "the timer flushed some regions after it (%zu)",
		  ctest_count(&tr, 'X', "after"));
	CHECK_MSG(ctest_count(&tr, 'X', "inner") >= ctest_count(&tr, 'X', "after"),
		  "inner regions end before their outer ones");
	ctest_free(&tr);

	/* Cut the file inside its last whole block: header, middle, one byte short. */
	nb = block_offsets(path, off, 4096);
	CHECK_MSG(nb >= 2, "the file has blocks (%zu)", nb);
	snprintf(cut, sizeof(cut), "%s/cut.vtr", dir);
	if (nb >= 2) {
		int64_t start = off[nb - 2], end = off[nb - 1];
		int64_t points[3] = { start + 7, start + (end - start) / 2, end - 1 };

		for (int i = 0; i < 3; i++) {
			const char *w;

			copy_head(path, cut, points[i]);
			ctest_load(cut, &tr);
			w = tr.info.nr_warnings ? tr.info.warnings[0].msg : "";
			CHECK_MSG(tr.rc == 1 && ctest_warned(&tr, "cut off") &&
				      tr.info.nr_warnings && tr.info.warnings[0].offset == start,
				  "cut at %lld: reads with a warning at the block (%s)",
				  (long long)points[i], w);
			CHECK_MSG(ctest_count(&tr, 'X', "before") == BEFORE, "cut at %lld: %s kept",
				  (long long)points[i], "regions before it");
			ctest_free(&tr);
		}
		CHECK_MSG(file_size(cut) == end - 1, "the cut file has the expected size");
	}

	copy_head(path, cut, 100);
	ctest_load(cut, &tr);
	CHECK_MSG(tr.rc == -1 && strstr(tr.err.msg, "header"),
		  "cut in the header: not readable (%s)", tr.err.msg);
	ctest_free(&tr);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_crash");
}
