/*
 * failmalloc: an LD_PRELOAD library that makes one allocation fail, for
 * tests/cli/032-out-of-memory.sh.
 *
 *   VT_FAIL_AT=N      the Nth call of malloc, calloc or realloc (from 1, in
 *                     call order) returns NULL with errno ENOMEM; the others
 *                     succeed.  0 or unset: none fails.
 *   VT_FAIL_COUNT=F   at exit, write the number of calls to file F (to size
 *                     a sweep over every N).
 *
 * It takes itself out of LD_PRELOAD, so that the processes the program
 * starts (gnuplot) allocate as usual.
 *
 * Calls are counted across threads in the order they reach the counter, so
 * with several threads the same N may hit another call from run to run; a
 * sweep over every N still reaches every call.  calloc() is served from a
 * static pool while dlsym() resolves the real one (glibc's dlsym calls it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static atomic_long calls;
static long fail_at;
static const char *count_file;

/* For dlsym's own calloc() before real_calloc is known; never freed. */
static char pool[4096];
static size_t pool_used;

__attribute__((constructor)) static void failmalloc_init(void)
{
	const char *s = getenv("VT_FAIL_AT");

	fail_at = s ? atol(s) : 0;
	count_file = getenv("VT_FAIL_COUNT");
	/* this process only: gnuplot, which vanalyze starts, has its own limits */
	unsetenv("LD_PRELOAD");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
}

__attribute__((destructor)) static void failmalloc_fini(void)
{
	char text[32];
	int fd, n;

	if (!count_file)
		return;
	fd = open(count_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	n = snprintf(text, sizeof(text), "%ld\n", (long)atomic_load(&calls));
	if (write(fd, text, (size_t)n) != n)
		n = -1;
	close(fd);
}

static int fails(void)
{
	long n = atomic_fetch_add(&calls, 1) + 1;

	if (n != fail_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	if (!real_malloc)
		failmalloc_init();
	return fails() ? NULL : real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (!real_calloc) {	/* dlsym() resolving it */
		size_t need = n * size, at = (pool_used + 15) & ~(size_t)15;

		if ((size && need / size != n) || need > sizeof(pool) - at)
			return NULL;
		pool_used = at + need;
		return memset(pool + at, 0, need);
	}
	return fails() ? NULL : real_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc)
		failmalloc_init();
	return fails() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
	static void (*real_free)(void *);

	if ((char *)p >= pool && (char *)p < pool + sizeof(pool))
		return;
	if (!real_free)
		real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_free(p);
}
