/* shorten: see shorten.h. */
#include "shorten.h"

#include <string.h>

static const char ellipsis[] = "\xe2\x80\xa6";	/* U+2026 */

static int cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t shorten_cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += !cont((unsigned char)*s);
	return n;
}

/* The byte offset after the first cols code points of s. */
static size_t head_bytes(const char *s, size_t cols)
{
	size_t i = 0;

	while (s[i] && cols) {
		i++;
		while (s[i] && cont((unsigned char)s[i]))
			i++;
		cols--;
	}
	return i;
}

/* The byte offset where the last cols code points of s[0..len) start. */
static size_t tail_start(const char *s, size_t len, size_t cols)
{
	size_t i = len;

	while (i > 0 && cols) {
		i--;
		while (i > 0 && cont((unsigned char)s[i]))
			i--;
		cols--;
	}
	return i;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/*
 * A C++ function's parameter list and return type tell kernels apart less
 * than their names and template arguments: a name that does not fit loses
 * "void " and its trailing "(…)" first.  Returns the bytes of s to keep
 * and sets *skip to the bytes to drop at the start.
 */
static size_t core(const char *s, size_t len, size_t *skip)
{
	size_t depth = 0, i = len;

	*skip = strncmp(s, "void ", 5) == 0 ? 5 : 0;
	if (len < 2 || s[len - 1] != ')')
		return len;
	while (i-- > *skip) {
		depth += s[i] == ')';
		depth -= s[i] == '(';
		if (depth == 0)
			return i > *skip ? i : len;
	}
	return len;
}

static int ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/*
 * A collective's kernel, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(...)"
 * (NCCL, RCCL): the collective and the data type say which it is, so
 * "ncclKernel_SendRecv…int8_t".  0 when s is no such name or it does not
 * fit cols.
 */
static int collective(char *out, const char *s, size_t cols)
{
	static const char *const prefixes[] = { "ncclKernel_", "ncclDevKernel_", "rcclKernel_" };
	static const char *const ops[] = { "_Sum_", "_Prod_", "_Max_", "_Min_", "_Avg_",
					   "_PreMulSum_", "_SumPostDiv_" };
	const char *coll = NULL, *end, *type;
	size_t head, n;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && !coll; i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
			coll = s + strlen(prefixes[i]);
	if (!coll)
		return 0;
	for (end = coll; ident(*end); end++)
		;
	head = (size_t)(strchr(coll, '_') && strchr(coll, '_') < end ? strchr(coll, '_') : end)
	       - (size_t)s;
	/* the data type follows the reduction: "_Sum_int8_t", "_Prod_half" */
	type = NULL;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const char *o = memmem(s + head, (size_t)(end - (s + head)),
				       ops[i], strlen(ops[i]));

		if (o && (!type || o + strlen(ops[i]) > type))
			type = o + strlen(ops[i]);
	}
	if (!type)
		for (type = end; type > s + head && type[-1] != '_'; type--)
			;
	n = (size_t)(end - type);
	if (type <= s + head || head + 1 + n > cols)
		return 0;
	memcpy(out, s, head);
	memcpy(out + head, ellipsis, 3);
	memcpy(out + head + 3, type, n);
	out[head + 3 + n] = '\0';
	return 1;
}

/*
 * ATen's templated kernels, "void at::native::vectorized_elementwise_kernel<4,
 * at::native::sqrt_kernel_cuda(...)::{lambda()#2}..., ...>(...)": the
 * operation is in the functor or the function that owns the lambda, deep
 * in the template arguments, so "vectorized…sqrt_kernel_cuda" (the family's
 * start as room allows, then the functor, with its own short template
 * arguments: "…CUDAFunctorOnSelf_add<float>").  0 when s is no such name.
 */
static int aten_functor(char *out, const char *s, size_t cols)
{
	static const char *const owners[] = { "_kernel_cuda", "_cuda_kernel",
					      "Functor", "_functor" };
	const char *fam = s, *lt = strchr(s, '<'), *f = NULL, *e;
	size_t n, room, famlen;

	if (!strncmp(fam, "void ", 5))
		fam += 5;
	if (strncmp(fam, "at::native::", 12) || !lt)
		return 0;
	fam += 12;
	/* the first identifier of the template arguments that names an operation */
	for (const char *p = lt + 1; *p && !f; p++) {
		const char *q;

		if (!ident(*p) || ident(p[-1]))
			continue;
		for (q = p; ident(*q); q++)
			;
		for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]) && !f; i++)
			if (memmem(p, (size_t)(q - p), owners[i], strlen(owners[i])))
				f = p;
		e = q;
		p = q - 1;
	}
	if (!f)
		return 0;
	if (*e == '<' && strchr(e, '>') && strchr(e, '>') - e <= 12)	/* "<float>" */
		e = strchr(e, '>') + 1;
	n = (size_t)(e - f);
	if (n + 1 > cols || memchr(f, '(', n))
		return 0;
	room = cols - 1 - n;
	famlen = (size_t)(lt - fam);
	if (room > famlen)
		room = famlen;
	memcpy(out, fam, room);
	memcpy(out + room, ellipsis, 3);
	memcpy(out + room + 3, f, n);
	out[room + 3 + n] = '\0';
	return 1;
}

/*
 * s cut to cols columns keeping its start and end; with at > 0, also a
 * window from byte at (a code point start) between two ellipses.  Names of
 * known forms keep what tells them apart instead (collective(),
 * aten_functor()).
 */
static char *cut(char *out, const char *s, size_t cols, size_t at)
{
	size_t len = strlen(s), skip, keep, head, tail, win, room;
	char *p = out;

	if (shorten_cols(s) <= cols) {
		memcpy(out, s, len + 1);
		return out;
	}
	if (!at && (collective(out, s, cols) || aten_functor(out, s, cols)))
		return out;
	/* what is left of a C++ function: "at::native::elementwise_kernel<…, 4>(…)" */
	keep = core(s, len, &skip);
	if (at >= keep) {
		/* they differ in their parameters: keep those */
		skip = 0;
		keep = len;
	}
	room = keep < len ? cols - 3 : cols;
	if (head_bytes(s + skip, room) >= keep - skip) {
		p = put(p, s + skip, keep - skip);
	} else if (!at) {
		/* two thirds start, one third end */
		head = skip + head_bytes(s + skip, (room - 1) * 2 / 3);
		tail = skip + tail_start(s + skip, keep - skip, room - 1 - (room - 1) * 2 / 3);
		if (tail < head)
			tail = head;
		p = put(p, s + skip, head - skip);
		p = put(p, ellipsis, 3);
		p = put(p, s + tail, keep - tail);
	} else {
		/* start, the window at the difference, end: a third each */
		head = skip + head_bytes(s + skip, (room - 2) / 3);
		if (at < head)
			at = head;
		win = at + head_bytes(s + at, (room - 2) / 3);
		if (win > keep)
			win = keep;
		tail = skip + tail_start(s + skip, keep - skip, room - 2 - 2 * ((room - 2) / 3));
		if (tail < win)
			tail = win;
		p = put(p, s + skip, head - skip);
		if (at > head)
			p = put(p, ellipsis, 3);
		p = put(p, s + at, win - at);
		if (tail > win)
			p = put(p, ellipsis, 3);
		p = put(p, s + tail, keep - tail);
	}
	if (keep < len) {
		p = put(p, "(", 1);
		p = put(p, ellipsis, 3);
		p = put(p, ")", 1);
	}
	*p = '\0';
	return out;
}

char *shorten(char *out, const char *s, size_t cols)
{
	return cut(out, s, cols < 8 ? 8 : cols, 0);
}


/* Where a and b first differ, backed up to a code point start and a little context. */
static size_t first_diff(const char *a, const char *b)
{
	size_t i = 0, back = 4;

	while (a[i] && a[i] == b[i])
		i++;
	while (i > 0 && (back || cont((unsigned char)a[i]))) {
		back -= !cont((unsigned char)a[i]) && back;
		i--;
	}
	return i;
}

void shorten_set(char *out, size_t stride, const char *const *names, size_t n, size_t cols)
{
	if (cols < 8)
		cols = 8;
	for (size_t i = 0; i < n; i++)
		cut(out + i * stride, names[i], cols, 0);
	/* tables are a screen long: pairs are cheap */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			size_t d;

			if (i == j || strcmp(out + i * stride, out + j * stride) ||
			    !strcmp(names[i], names[j]))
				continue;
			d = first_diff(names[i], names[j]);
			cut(out + i * stride, names[i], cols, d ? d : 1);
		}
}
