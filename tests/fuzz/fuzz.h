/*
 * fuzz.h: what the libFuzzer targets share.  Define FUZZ_NAME (the target's
 * name, printed before every failure so tests/fuzz/run.sh can pick the line
 * out of the log) before including it.
 *
 * A broken invariant aborts, so libFuzzer keeps the input that broke it.
 */
#ifndef VT_FUZZ_H
#define VT_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"
#include "strtab.h"

#define FAIL(...)                                                                  \
	do {                                                                       \
		fprintf(stderr, FUZZ_NAME ": %s:%d: ", __FILE__, __LINE__);        \
		fprintf(stderr, __VA_ARGS__);                                      \
		fputc('\n', stderr);                                               \
		abort();                                                           \
	} while (0)

/* cond, else print it and the printf-style explanation, and abort */
#define ASSERT(cond, ...)                                                          \
	do {                                                                       \
		if (!(cond)) {                                                     \
			fprintf(stderr, FUZZ_NAME ": %s:%d: %s: ", __FILE__,       \
				__LINE__, #cond);                                  \
			fprintf(stderr, __VA_ARGS__);                              \
			fputc('\n', stderr);                                       \
			abort();                                                   \
		}                                                                  \
	} while (0)

/*
 * A file in memory for the readers, which take a path: its descriptor, and
 * its path (/proc/self/fd/N) in path[0..64).  Aborts when it cannot be made.
 */
static inline int fuzz_memfd(char *path)
{
	int fd = memfd_create(FUZZ_NAME, 0);

	if (fd < 0)
		abort();
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

/* Make the file behind fd hold p[0..n); aborts when it cannot. */
static inline void fuzz_fill(int fd, const void *p, size_t n)
{
	if (ftruncate(fd, 0) != 0 || (n && pwrite(fd, p, n, 0) != (ssize_t)n))
		abort();
}

/* FNV-1a over p[0..n), continuing from h: events are compared by hash. */
static inline uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

/* A string of b's table by its bytes, with "no string" unlike "". */
static inline uint64_t hash_str(uint64_t h, const struct event_batch *b, uint32_t id)
{
	uint32_t len = id ? strtab_len(&b->strs, id) : UINT32_MAX;

	h = fnv(h, &len, sizeof(len));
	return id ? fnv(h, strtab_str(&b->strs, id), len) : h;
}

#endif
