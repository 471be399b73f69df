/*
 * buf: a growable byte buffer for building text (JSON, HTML, CSV, messages)
 * and packed bytes.  Arrays of records grow with ALLOC_GROW (grow.h).
 *
 * Allocation failure is sticky, as in sqlite's StrAccum: the buffer stops
 * growing, sets ->oom, and later appends are ignored.  Check buf_ok() once
 * when done instead of after every append.  The content is always
 * NUL-terminated when buf_ok().
 */
#ifndef VT_BUF_H
#define VT_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;		/* owned; NULL until the first append */
	size_t len, cap;
	int oom;
};

void buf_init(struct buf *b);
void buf_release(struct buf *b);

/* Make room for n more bytes.  Returns 0, or -1 (and sets oom). */
int buf_reserve(struct buf *b, size_t n);

/* The part of buf_add() that grows the buffer: call buf_add(). */
void buf_add_slow(struct buf *b, const void *p, size_t n);

/*
 * Append n bytes.  Inline when they fit, as the writers append a few bytes
 * at a time (and packed lists a varint per event): a constant n then
 * compiles to plain moves.
 */
static inline void buf_add(struct buf *b, const void *p, size_t n)
{
	if (n && !b->oom && b->cap - b->len > n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	buf_add_slow(b, p, n);
}

void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Drop the content, keep the memory. */
void buf_reset(struct buf *b);

/*
 * Fail b as if it had run out of memory: what is built from a part that
 * failed fails with it (the HTML page with a cell's attribute).
 */
static inline void buf_fail(struct buf *b)
{
	b->oom = 1;
}

/* 1 when every append so far succeeded. */
static inline int buf_ok(const struct buf *b)
{
	return !b->oom;
}

#endif
