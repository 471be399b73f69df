/* buf: see buf.h.  Capacity doubles, so appends are amortised O(1). */
#include "buf.h"

#include "hugepage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

int buf_reserve(struct buf *b, size_t n)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return -1;
	if (n > (size_t)-1 - b->len - 1)
		goto fail;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	cap = hugepage_round(cap);	/* whole huge pages, once large */
	p = realloc(b->data, cap);
	if (!p)
		goto fail;
	hugepage_advise(p, cap);	/* all of it: see grow_array */
	b->data = p;
	b->cap = cap;
	return 0;
fail:
	b->oom = 1;
	return -1;
}

/* buf_add() when the bytes do not fit (or there are none): grows the buffer. */
void buf_add_slow(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;		/* p may be NULL then */
	if (buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	if (buf_reserve(b, 64))
		return;
	va_copy(ap2, ap);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (buf_reserve(b, (size_t)n))
			return;
		vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}
