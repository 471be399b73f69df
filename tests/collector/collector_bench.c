/*
 * collector_bench: the cost of a region begin+end pair, on one and on two
 * threads, against two bare clock_gettime() calls (the floor: a pair reads
 * the clock twice).  The collector is measured twice: linked statically, and
 * as the shared library loaded with dlopen() the way Python loads it.
 *
 * Steady state must not allocate: a malloc interposer counts calls from the
 * moment every thread has made its first call (which sets up its buffer and
 * interns the name) until its last pair, ring-full flushes and timer flushes
 * included.  Under ASan, which owns malloc, the count is skipped.
 *
 * usage: collector_bench DIR LIBVTRACE_SO [PAIRS_PER_THREAD]
 * Exit status 1 when steady state allocated, 2 on usage errors.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vtrace.h"

#define RUNS 7

static _Atomic long nr_allocs;

#if defined(__SANITIZE_ADDRESS__)
#define COUNTING 0
#else
#define COUNTING 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

void *malloc(size_t n)
{
	atomic_fetch_add_explicit(&nr_allocs, 1, memory_order_relaxed);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	atomic_fetch_add_explicit(&nr_allocs, 1, memory_order_relaxed);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add_explicit(&nr_allocs, 1, memory_order_relaxed);
	return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
	atomic_fetch_add_explicit(&nr_allocs, 1, memory_order_relaxed);
	return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = memalign(align, n);

	if (!p)
		return 12;
	*out = p;
	return 0;
}
#endif

struct bench_api {
	const char *what;
	int (*init)(const char *, const char *, int);
	void (*shutdown)(void);
	void (*begin)(const char *);
	void (*end)(void);
	const char *(*path)(void);
};

struct bench_job {
	const struct bench_api *api;	/* NULL: the clock_gettime floor */
	long pairs;
	pthread_barrier_t *start, *stop;
	double wall_ns, cpu_ns;		/* per pair */
};

/* ns per pair: wall clock, and the thread's own CPU time, which leaves out
 * the time other processes on a busy machine took the core. */
struct bench_cost {
	double wall_ns, cpu_ns;
};

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *bench_thread(void *arg)
{
	struct bench_job *j = arg;
	struct timespec ts;
	volatile long sink = 0;
	double w0, c0;

	if (j->api) {
		j->api->begin("denoise");
		j->api->end();
	}
	pthread_barrier_wait(j->start);
	w0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	if (j->api) {
		for (long i = 0; i < j->pairs; i++) {
			j->api->begin("denoise");
			j->api->end();
		}
	} else {
		for (long i = 0; i < j->pairs; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec;
		}
	}
	(void)sink;	/* read once: the sums exist only so the calls are not dropped */
	j->cpu_ns = (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1e9 / j->pairs;
	j->wall_ns = (clock_s(CLOCK_MONOTONIC) - w0) * 1e9 / j->pairs;
	pthread_barrier_wait(j->stop);
	return NULL;
}

/* One run on nr threads: the mean cost per pair; allocations added to *allocs. */
static struct bench_cost bench_run(const struct bench_api *api, const char *dir, int nr,
				   long pairs, long *allocs)
{
	pthread_barrier_t start, stop;
	pthread_t tid[2];
	struct bench_job job[2];
	struct bench_cost c = { 0, 0 };
	long before;

	if (api && api->init(dir, api->what, 0)) {
		fprintf(stderr, "collector_bench: cannot start recording in '%s'\n", dir);
		exit(2);
	}
	pthread_barrier_init(&start, NULL, nr + 1);
	pthread_barrier_init(&stop, NULL, nr + 1);
	for (int i = 0; i < nr; i++) {
		job[i] = (struct bench_job){ api, pairs, &start, &stop, 0, 0 };
		pthread_create(&tid[i], NULL, bench_thread, &job[i]);
	}
	pthread_barrier_wait(&start);
	before = atomic_load(&nr_allocs);
	pthread_barrier_wait(&stop);
	*allocs += atomic_load(&nr_allocs) - before;
	for (int i = 0; i < nr; i++) {
		pthread_join(tid[i], NULL);
		c.wall_ns += job[i].wall_ns / nr;
		c.cpu_ns += job[i].cpu_ns / nr;
	}
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&stop);
	if (api) {
		char path[4096];

		snprintf(path, sizeof(path), "%s", api->path());
		api->shutdown();
		unlink(path);
	}
	return c;
}

/* The least of RUNS runs: noise only ever adds. */
static struct bench_cost best_of(const struct bench_api *api, const char *dir, int nr,
				 long pairs, long *allocs)
{
	struct bench_cost best = { 1e300, 1e300 };

	for (int r = 0; r < RUNS; r++) {
		struct bench_cost c = bench_run(api, dir, nr, pairs, allocs);

		if (c.wall_ns < best.wall_ns)
			best.wall_ns = c.wall_ns;
		if (c.cpu_ns < best.cpu_ns)
			best.cpu_ns = c.cpu_ns;
	}
	return best;
}

static int load_shared(struct bench_api *api, const char *so)
{
	void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);

	if (!dl) {
		fprintf(stderr, "collector_bench: %s\n", dlerror());
		return -1;
	}
	api->what = "shared";
	*(void **)&api->init = dlsym(dl, "vt_init");
	*(void **)&api->shutdown = dlsym(dl, "vt_shutdown");
	*(void **)&api->begin = dlsym(dl, "vt_region_begin");
	*(void **)&api->end = dlsym(dl, "vt_region_end");
	*(void **)&api->path = dlsym(dl, "vt_path");
	return api->init && api->shutdown && api->begin && api->end && api->path ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct bench_api apis[2] = {
		{ "static", vt_init, vt_shutdown, vt_region_begin, vt_region_end, vt_path },
	};
	long pairs = argc > 3 ? atol(argv[3]) : 1000000, allocs = 0, floor_allocs = 0;

	if (argc < 3 || pairs <= 0) {
		fprintf(stderr, "usage: collector_bench DIR LIBVTRACE_SO [PAIRS_PER_THREAD]\n");
		return 2;
	}
	if (load_shared(&apis[1], argv[2]))
		return 2;
	printf("region begin+end pair: %ld pairs per thread, least of %d runs\n", pairs, RUNS);
	printf("(cpu: the thread's own CPU time, which a busy machine does not inflate)\n");
	printf("%-32s %9s %9s %9s %9s\n", "ns per pair", "wall", "- floor", "cpu", "- floor");
	for (int nr = 1; nr <= 2; nr++) {
		/* The floor per thread count: the clock itself slows down on two threads. */
		struct bench_cost fl = best_of(NULL, argv[1], nr, pairs, &floor_allocs);

		printf("%d thread%-2s %-20s %9.1f %9s %9.1f\n", nr, nr > 1 ? "s" : "",
		       "2 x clock_gettime", fl.wall_ns, "", fl.cpu_ns);
		for (int a = 0; a < 2; a++) {
			struct bench_cost c = best_of(&apis[a], argv[1], nr, pairs, &allocs);
			char label[32];

			snprintf(label, sizeof(label), "%s library", apis[a].what);
			printf("%-11s %-20s %9.1f %9.1f %9.1f %9.1f\n", "", label, c.wall_ns,
			       c.wall_ns - fl.wall_ns, c.cpu_ns, c.cpu_ns - fl.cpu_ns);
		}
	}
	if (!COUNTING) {
		printf("allocations in steady state: not counted (sanitizer build)\n");
		return 0;
	}
	printf("allocations in steady state: %ld (malloc family, counted by an interposer)\n",
	       allocs);
	return allocs ? 1 : 0;
}
