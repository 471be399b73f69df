/*
 * tsafe: see tsafe.h.  One step decides, for the bytes at a position,
 * how many it spans and what replaces them (NULL: copied as they are);
 * tsafe_putn() and tsafe_copy() differ only in where the result goes.
 */
#include "tsafe.h"

#include <string.h>

size_t tsafe_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and code points past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * Code points a terminal acts on or does not show: controls, bidi
 * controls, the invisible format characters (Unicode category Cf that
 * render nothing) and the line and paragraph separators.  Sorted.
 */
static const struct {
	unsigned lo, hi;
} unsafe[] = {
	{ 0x0000, 0x001f }, { 0x007f, 0x009f },	/* C0, DEL, C1 */
	{ 0x00ad, 0x00ad },			/* soft hyphen */
	{ 0x034f, 0x034f },			/* combining grapheme joiner */
	{ 0x061c, 0x061c },			/* Arabic letter mark */
	{ 0x115f, 0x1160 },			/* Hangul fillers */
	{ 0x17b4, 0x17b5 },			/* Khmer inherent vowels */
	{ 0x180b, 0x180f },			/* Mongolian selectors and separator */
	{ 0x200b, 0x200f },			/* ZWSP, ZWNJ, ZWJ, LRM, RLM */
	{ 0x2028, 0x202e },			/* separators; LRE RLE PDF LRO RLO */
	{ 0x2060, 0x206f },			/* WJ, invisible operators, isolates */
	{ 0x3164, 0x3164 },			/* Hangul filler */
	{ 0xfeff, 0xfeff },			/* BOM, zero-width no-break space */
	{ 0xffa0, 0xffa0 },			/* halfwidth Hangul filler */
	{ 0xfff9, 0xfffb },			/* interlinear annotation */
	{ 0x1d173, 0x1d17a },			/* musical format characters */
	{ 0xe0000, 0xe007f },			/* tags */
};

int tsafe_unsafe_cp(unsigned cp)
{
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]) && unsafe[i].lo <= cp; i++)
		if (cp <= unsafe[i].hi)
			return 1;
	return 0;
}

unsigned tsafe_utf8_decode(const unsigned char *p, size_t len)
{
	static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = p[0] & lead_mask[len];

	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/* What replaces p[0..*len) (NULL: nothing, copy it); *len is set to the bytes spanned. */
static const char *step(const unsigned char *p, size_t n, size_t *len)
{
	size_t k = tsafe_utf8_len(p, n);

	if (p[0] == 0xc0 && n > 1 && p[1] == 0x80) {
		*len = 2;
		return "\\0";
	}
	*len = k ? k : 1;
	if (!k || tsafe_unsafe_cp(tsafe_utf8_decode(p, k)))
		return "?";
	return NULL;
}

void tsafe_putn(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max), i = 0, run = 0;

	while (i < n) {
		size_t len;
		const char *rep = step(p + i, n - i, &len);

		if (rep) {
			fwrite(s + i - run, 1, run, f);
			fputs(rep, f);
			run = 0;
		} else {
			run += len;
		}
		i += len;
	}
	fwrite(s + n - run, 1, run, f);
}

void tsafe_add(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t len;
		const char *rep = step(p + i, n - i, &len);

		if (rep) {
			buf_add(b, s + i - run, run);
			buf_adds(b, rep);
			run = 0;
		} else {
			run += len;
		}
		i += len;
	}
	buf_add(b, s + n - run, run);
}

void tsafe_put(FILE *f, const char *s)
{
	tsafe_putn(f, s, (size_t)-1);
}

size_t tsafe_copy(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;

	if (!cap)
		return 0;
	while (i < n) {
		size_t len;
		const char *rep = step(p + i, n - i, &len);
		const char *from = rep ? rep : s + i;
		size_t k = rep ? strlen(rep) : len;

		if (o + k >= cap)
			break;
		memcpy(out + o, from, k);
		o += k;
		i += len;
	}
	out[o] = '\0';
	return o;
}
