/*
 * check.h: the few macros the unit tests share.  No framework: each test is
 * a program that counts checks, prints one line per failed check (file:line,
 * the expression and the values) and ends with check_done(), which prints
 * "test_X: N checks, M failed" and gives the exit status.
 *
 * Everything here is static, so each test includes it once.
 */
#ifndef VT_TEST_CHECK_H
#define VT_TEST_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long check_nr, check_nr_failed;

static inline void check_fail_at(const char *file, int line)
{
	check_nr_failed++;
	printf("%s:%d: FAIL: ", file, line);
}

static inline int check_cond(const char *file, int line, const char *expr, int ok)
{
	check_nr++;
	if (ok)
		return 1;
	check_fail_at(file, line);
	printf("%s\n", expr);
	return 0;
}

static inline int check_condf(const char *file, int line, const char *expr, int ok,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static inline int check_condf(const char *file, int line, const char *expr, int ok,
			      const char *fmt, ...)
{
	va_list ap;

	check_nr++;
	if (ok)
		return 1;
	check_fail_at(file, line);
	printf("%s: ", expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return 0;
}

/* A condition; on failure, the expression as written. */
#define CHECK(cond) check_cond(__FILE__, __LINE__, #cond, !!(cond))

/* Like CHECK, with a printf-style explanation after the expression. */
#define CHECKF(cond, ...) check_condf(__FILE__, __LINE__, #cond, !!(cond), __VA_ARGS__)

/* Like CHECKF, where the explanation alone says what was checked. */
#define CHECK_MSG(cond, ...) check_condf(__FILE__, __LINE__, "check", !!(cond), __VA_ARGS__)

static inline int check_int(const char *file, int line, const char *ea, const char *eb, int64_t a,
		     int64_t b)
{
	check_nr++;
	if (a == b)
		return 1;
	check_fail_at(file, line);
	printf("%s == %s: got %" PRId64 ", want %" PRId64 "\n", ea, eb, a, b);
	return 0;
}

#define CHECK_EQ_INT(a, b) check_int(__FILE__, __LINE__, #a, #b, (int64_t)(a), (int64_t)(b))

/* Bytes printed with C escapes, so NULs and control bytes show. */
static inline void check_put_bytes(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			putchar(c);
		else
			printf("\\x%02x", c);
		if (i == 200 && n > 240) {
			printf("\"...(%zu bytes)", n);
			return;
		}
	}
	putchar('"');
}

static inline int check_mem(const char *file, int line, const char *ea, const char *a, size_t na,
		     const char *b, size_t nb)
{
	check_nr++;
	if (a && na == nb && memcmp(a, b, na) == 0)
		return 1;
	check_fail_at(file, line);
	printf("%s: got ", ea);
	if (a)
		check_put_bytes(a, na);
	else
		printf("NULL");
	printf(", want ");
	check_put_bytes(b, nb);
	putchar('\n');
	return 0;
}

/* a (NUL-terminated, may be NULL) equals the string literal or C string b. */
#define CHECK_EQ_STR(a, b)                                                             \
	check_mem(__FILE__, __LINE__, #a, (a), (a) ? strlen(a) : 0, (b), strlen(b))

/* a[0..na) equals b[0..nb): for strings with embedded NULs. */
#define CHECK_EQ_MEM(a, na, b, nb) check_mem(__FILE__, __LINE__, #a, (a), (na), (b), (nb))

/* The summary line; the exit status for main(). */
static inline int check_done(const char *name)
{
	printf("%s: %ld checks, %ld failed\n", name, check_nr, check_nr_failed);
	fflush(stdout);
	return check_nr_failed ? 1 : 0;
}

/* A xorshift64 step: repeatable pseudo-random numbers from *state (not 0). */
static inline uint64_t check_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Tests are programs: running out of memory just ends them. */
static inline void *check_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

#endif
