/*
 * jscan: the JSON lexing primitives every reader in vtrace shares.
 *
 * They work on a complete buffer [p, end) that the caller owns, and report
 * three outcomes: JS_OK, JS_MORE (the text ended inside the token, so more
 * input may complete it) and JS_BAD (a syntax error; struct err says what
 * and where).  Nothing here allocates except unescaped strings, which go to
 * the caller's arena.  Numbers are parsed from their decimal text straight
 * into scaled int64 (microseconds with 3 fractional digits become exact
 * nanoseconds), never through a double.
 */
#ifndef VT_JSCAN_H
#define VT_JSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "jsimd.h"
#include "log.h"

enum {
	JS_OK = 0,
	JS_MORE = 1,
	JS_BAD = -1,
};

/* Deepest nesting accepted; deeper input is rejected, not recursed into. */
#define JSCAN_MAX_DEPTH 512

struct jscan {
	const char *start, *end;	/* the text */
	int64_t offset;			/* input offset of start, for messages */
	struct arena *arena;		/* where unescaped strings go */
	struct err *err;		/* filled on JS_BAD */
};

void jscan_init(struct jscan *js, const char *start, size_t len, int64_t offset,
		struct arena *arena, struct err *err);

/* Input offset of p, for messages. */
static inline int64_t jscan_off(const struct jscan *js, const char *p)
{
	return js->offset + (p - js->start);
}

/* Fill js->err for a syntax error at p; returns JS_BAD. */
int jscan_fail(struct jscan *js, const char *p, const char *msg);

/*
 * The 8 bytes at p as one word.  Where a word trick counts bytes by their
 * place in the word, it is for little-endian builds only.
 */
static inline uint64_t jscan_load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/*
 * Most searches end within 16 bytes (a key, an indent, a short name):
 * one SSE2 block tested inline answers them without a call.  Where the
 * block does not, or at the scalar level, jsimd's search goes on.
 */
#if defined(__SSE2__)
#define JSCAN_BLOCK16(p, end, what)                                     \
	do {                                                            \
		if (jsimd.sse2 && (end) - (p) >= 16) {                  \
			unsigned m_ = jsimd_mask16((p), (what));        \
			if (m_)                                         \
				return (p) + __builtin_ctz(m_);         \
		}                                                       \
	} while (0)
#else
#define JSCAN_BLOCK16(p, end, what) ((void)0)
#endif

/*
 * Skip JSON whitespace; returns the first other byte's position (or end).
 * Compact traces have none between tokens: one compare answers them.
 * Pretty-printed ones have one space after ':' and most ',': two.  Before
 * each line they have a newline and an indent of a few spaces: one 8-byte
 * word, its spaces counted at once, answers those when a byte above ' '
 * ends the run.  Longer runs, tabs and '\r' go to the block search.
 */
static inline const char *jscan_ws(const char *p, const char *end)
{
	if (p < end && (unsigned char)*p > ' ')
		return p;
	if (end - p > 1 && *p == ' ' && (unsigned char)p[1] > ' ')
		return p + 1;
	if (end - p > 8) {
		const char *q = p + (*p == '\n');
		uint64_t w = jscan_load8(q) ^ 0x2020202020202020u;

		if (w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			q += __builtin_ctzll(w) >> 3;
#else
			while (*q == ' ')
				q++;
#endif
			if ((unsigned char)*q > ' ')
				return q;
		}
	}
	JSCAN_BLOCK16(p, end, 0);
	return jsimd.skip_ws(p, end);
}

/* First '"' or '\\' in [p, end), or end. */
static inline const char *jscan_find_quote(const char *p, const char *end)
{
	JSCAN_BLOCK16(p, end, 1);
	return jsimd.find_quote(p, end);
}

/*
 * *pp points at '"'.  On JS_OK, (*s, *len) is the decoded content (borrowed
 * from the text when it holds no escape, else a NUL-terminated copy in the
 * arena) and *pp is past the closing quote.  \uXXXX escapes become UTF-8;
 * a lone surrogate becomes U+FFFD, and \u0000 the two bytes C0 80 (never
 * valid UTF-8 otherwise), so that a name keeps its NUL as a C string.  Raw control bytes are
 * accepted, as torch's legacy writer emits them unescaped.
 */
int jscan_string_slow(struct jscan *js, const char **pp, const char **s, size_t *len);

/*
 * jscan_string_slow, with the plain string that ends in its first block
 * inline.  The slow call goes through copies of *pp, *s and *len, as every
 * out-of-line call from the inline readers here does: a variable whose
 * address reaches a function the compiler cannot see into must live in
 * memory, and the parser's position and key are used several times per
 * member.
 */
static inline int jscan_string(struct jscan *js, const char **pp, const char **s, size_t *len)
{
	const char *q = jscan_find_quote(*pp + 1, js->end), *t, *ts = NULL;
	size_t tn = 0;
	int rc;

	if (q < js->end && *q == '"') {
		*s = *pp + 1;
		*len = (size_t)(q - *pp - 1);
		*pp = q + 1;
		return JS_OK;
	}
	t = *pp;
	rc = jscan_string_slow(js, &t, &ts, &tn);
	*pp = t;
	*s = ts;
	*len = tn;
	return rc;
}

/*
 * A number at *pp, scaled by 10^scale and truncated toward zero:
 * scale 3 turns "1712195495541300.987" (µs) into 1712195495541300987 (ns).
 * Returns JS_OK, JS_MORE, JS_BAD, or JS_RANGE when the value does not fit
 * int64 (*pp is then still past the number).
 */
enum { JS_RANGE = 2 };
int jscan_number(struct jscan *js, const char **pp, int scale, int64_t *out);

/* jscan_number through a copy of *pp (see jscan_string), for the inline readers. */
static inline int jscan_number_via(struct jscan *js, const char **pp, int scale, int64_t *out)
{
	const char *t = *pp;
	int rc = jscan_number(js, &t, scale, out);

	*pp = t;
	return rc;
}

#define JSCAN_IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSCAN_SWAR 1

/*
 * How many of the 8 bytes of w (in memory order) are digits before the
 * first that is not.  A byte is a digit when its high nibble is 3 and
 * stays 3 after adding 6; a carry out of a byte comes only from one that
 * is not a digit, so it cannot spoil the count.
 */
static inline int jscan_digits8(uint64_t w)
{
	uint64_t x = ((w & 0xf0f0f0f0f0f0f0f0u) ^ 0x3030303030303030u) |
		     (((w + 0x0606060606060606u) & 0xf0f0f0f0f0f0f0f0u) ^ 0x3030303030303030u);

	return x ? __builtin_ctzll(x) >> 3 : 8;
}

/*
 * The value of the first d (1 to 8) bytes of w, all digits: shifted to the
 * top of the word they leave zeros above them, and three multiplies pair
 * them up into 2, 4 and 8 digits.
 */
__attribute__((always_inline)) static inline uint64_t jscan_value8(uint64_t w, int d)
{
	w = (w & 0x0f0f0f0f0f0f0f0fu) << (8 * (8 - d));
	w = (w * 10 + (w >> 8)) & 0x00ff00ff00ff00ffu;
	w = (w * 100 + (w >> 16)) & 0x0000ffff0000ffffu;
	return (w * 10000 + (w >> 32)) & 0xffffffffu;
}

#endif

/* The end of the run of digits at p (p itself when there is none). */
static inline const char *jscan_digit_run(const char *p, const char *end)
{
#ifdef JSCAN_SWAR
	while (end - p >= 8) {
		int d = jscan_digits8(jscan_load8(p));

		p += d;
		if (d < 8)
			return p;
	}
#endif
	while (p < end && JSCAN_IS_DIGIT(*p))
		p++;
	return p;
}

/*
 * jscan_number, inline for the case that covers nearly every number of a
 * trace: a non-negative number of at most 18 integer digits, maybe with a
 * fraction and without an exponent, scale 0 to 3, that the text goes on
 * past.  Anything else goes to jscan_number; the result is the same either
 * way.  Inline always: the readers of ts and dur spend most of their time here.
 */
__attribute__((always_inline)) static inline int
jscan_number_quick(struct jscan *js, const char **pp, int scale, int64_t *out)
{
	static const int64_t limit[4] = { INT64_MAX, INT64_MAX / 10, INT64_MAX / 100,
					  INT64_MAX / 1000 };
	static const int64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000 };
	const char *p = *pp, *end = js->end;
	int64_t v = 0;
	int nd = 0;

#ifdef JSCAN_SWAR
	/* Two words hold ids, durations and a ts in µs (16 digits). */
	if (end - p >= 16) {
		uint64_t w = jscan_load8(p);
		int d = jscan_digits8(w);

		if (d == 8) {
			uint64_t w2 = jscan_load8(p + 8);
			int d2 = jscan_digits8(w2);

			v = (int64_t)jscan_value8(w, 8);
			if (d2)
				v = v * pow10[d2] + (int64_t)jscan_value8(w2, d2);
			d += d2;
		} else if (d) {
			v = (int64_t)jscan_value8(w, d);
		}
		nd = d;
		p += d;
	}
#endif
	for (; p < end && nd < 18 && JSCAN_IS_DIGIT(*p); p++, nd++)
		v = v * 10 + (*p - '0');
	if (!nd || p >= end || JSCAN_IS_DIGIT(*p) || (unsigned)scale >= 4u || v >= limit[scale])
		return jscan_number_via(js, pp, scale, out);
	v *= pow10[scale];
	/*
	 * A fraction (ts in µs with ns digits): its first `scale` digits, the
	 * rest truncated, as jscan_number truncates toward zero.
	 */
	if (*p == '.') {
		const char *f = p + 1;

		p = jscan_digit_run(f, end);
		if (p == f || p >= end)
			return jscan_number_via(js, pp, scale, out);
		for (int i = 0; i < scale && f + i < p; i++)
			v += (f[i] - '0') * pow10[scale - 1 - i];
	}
	if (*p == 'e' || *p == 'E')
		return jscan_number_via(js, pp, scale, out);
	*out = v;
	*pp = p;
	return JS_OK;
}

/*
 * Step over a number the caller has no use for: its grammar is checked as
 * jscan_number checks it, its value is never computed.  JS_OK (a number too
 * large for int64 included), JS_MORE or JS_BAD, with the same message and
 * offset as jscan_number: anything but plain digits with an optional
 * fraction, that the text goes on past, is left to it.
 */
__attribute__((always_inline)) static inline int jscan_skip_number(struct jscan *js,
								    const char **pp)
{
	const char *p = *pp, *end = js->end, *e = jscan_digit_run(p, end);
	int64_t unused;
	int rc;

	if (e > p && e < end && *e == '.') {
		const char *f = e + 1;

		e = jscan_digit_run(f, end);
		if (e == f)
			e = p;	/* no digit after '.': jscan_number says so */
	}
	if (e == p || e >= end || *e == 'e' || *e == 'E') {
		rc = jscan_number_via(js, pp, 0, &unused);
		return rc == JS_RANGE ? JS_OK : rc;
	}
	*pp = e;
	return JS_OK;
}

/*
 * Like jscan_number, but on a string's content (ts written as "123.5").
 * Returns JS_OK, JS_RANGE, or JS_BAD when s is not exactly one number
 * (*err untouched).
 */
int jscan_number_text(const char *s, size_t len, int scale, int64_t *out);

/* Skip one value of any type, nesting bounded by JSCAN_MAX_DEPTH. */
int jscan_skip(struct jscan *js, const char **pp);

/*
 * Skip one value the caller has no use for, without tokenising what is
 * inside an array or object: only that its strings end and its brackets
 * nest and match (to JSCAN_MAX_DEPTH) is checked, 16 or 32 bytes a step.
 * On valid JSON it ends where jscan_skip does; a syntax error between the
 * brackets goes unnoticed.  A scalar is checked as jscan_skip checks it.
 */
int jscan_skip_fast(struct jscan *js, const char **pp);

/*
 * The '"' that opens a member name after the '{' or ',' at p, when no
 * whitespace, one space, or a newline and up to 6 spaces (a pretty-printed
 * trace's indent) come between; else NULL, and jscan_ws decides.  One word
 * answers: the byte that ends the run of spaces must be the quote.
 */
static inline const char *jscan_next_name(const char *p, const char *end)
{
#ifdef JSCAN_SWAR
	if (end - p > 16) {
		uint64_t w = jscan_load8(p + 1), sp;

		if ((w & 0xff) == '"')
			return p + 1;
		if ((w & 0xffff) == 0x2220u)
			return p + 2;
		sp = (w >> 8) ^ 0x20202020202020u;
		if ((w & 0xff) == '\n' && sp) {
			const char *q = p + 2 + (__builtin_ctzll(sp) >> 3);

			if (*q == '"')
				return q;
		}
	}
#else
	(void)p;
	(void)end;
#endif
	return NULL;
}

/*
 * The ':' after a member name, whitespace allowed before it: *pp from just
 * past the name to just past the ':'.  jscan_member and jscan_skip share it.
 */
static inline int jscan_colon(struct jscan *js, const char **pp)
{
	const char *p = jscan_ws(*pp, js->end);

	if (p >= js->end)
		return JS_MORE;
	if (*p != ':')
		return jscan_fail(js, p, "expected ':' after member name");
	*pp = p + 1;
	return JS_OK;
}

/*
 * Step to the next member of an object.  *pp is at '{' (first) or just past
 * a member's value.  On JS_OK, *more is 1 with the key in (*k, *n) and *pp
 * at its value, or 0 with *pp past the closing '}'.  `what` is the message
 * for a missing ',' ("expected ',' or '}' in event").  Inline: it runs once
 * per member of every event, and its callers pass constants.
 */
__attribute__((always_inline)) static inline int
jscan_member(struct jscan *js, const char **pp, int first, const char **k, size_t *n, int *more,
	     const char *what)
{
	const char *p = *pp, *end = js->end, *q;
	int rc;

	/*
	 * Defined on every path, so that the compiler, which sees the caller's
	 * key in registers, knows it is never read unset; the stores it does
	 * not need are dropped.
	 */
	*k = NULL;
	*n = 0;
	*more = 0;
	/*
	 * Most values are followed at once by ',', in compact and pretty text
	 * alike, and then by the next name after the whitespace one word holds.
	 */
	if ((first || (p < end && *p == ',')) && (q = jscan_next_name(p, end)) != NULL) {
		p = q;
	} else {
		if (first || p >= end || *p != ',') {
			p = jscan_ws(first ? p + 1 : p, end);
			if (p >= end)
				return JS_MORE;
			if (*p == '}') {
				*pp = p + 1;
				*more = 0;
				return JS_OK;
			}
			if (!first && *p != ',')
				return jscan_fail(js, p, what);
		}
		if (!first) {
			p = jscan_ws(p + 1, end);
			if (p >= end)
				return JS_MORE;
		}
		if (*p != '"')
			return jscan_fail(js, p, "expected a member name");
	}
	/* Keys are plain ("ph", "ts", "args"): borrowed, never decoded. */
	q = jscan_find_quote(p + 1, end);
#ifdef JSCAN_SWAR
	/*
	 * The closing quote, ':', maybe one space, and a byte above ' ' (the
	 * value's first): nearly every member, answered from one word.
	 */
	if (end - q >= 8) {
		uint64_t w = jscan_load8(q);

		if ((w & 0xffffffu) == 0x203a22u && (unsigned char)(w >> 24) > ' ') {
			*k = p + 1;
			*n = (size_t)(q - p - 1);
			*pp = q + 3;
			*more = 1;
			return JS_OK;
		}
		if ((w & 0xffffu) == 0x3a22u && (unsigned char)(w >> 16) > ' ') {
			*k = p + 1;
			*n = (size_t)(q - p - 1);
			*pp = q + 2;
			*more = 1;
			return JS_OK;
		}
	}
#endif
	if (q < end && *q == '"') {
		*k = p + 1;
		*n = (size_t)(q - p - 1);
		p = q + 1;
	} else if ((rc = jscan_string(js, &p, k, n)) != JS_OK) {
		return rc;
	}
	/* ':' and the value, maybe after one space: the shape of nearly every member. */
	if (end - p > 2 && p[0] == ':' && p[1] == ' ' && (unsigned char)p[2] > ' ') {
		p += 2;
	} else if (end - p > 1 && p[0] == ':' && (unsigned char)p[1] > ' ') {
		p += 1;
	} else {
		if ((rc = jscan_colon(js, &p)) != JS_OK)
			return rc;
		p = jscan_ws(p, end);
		if (p >= end)
			return JS_MORE;
	}
	*pp = p;
	*more = 1;
	return JS_OK;
}

/*
 * Step to the next element of an array, like jscan_member: *pp at '[' or
 * past an element; *more 1 with *pp at the element, or 0 past the ']'.
 */
int jscan_element(struct jscan *js, const char **pp, int first, int *more);

/* Expect the literal word (true, false, null) at *pp. */
int jscan_word(struct jscan *js, const char **pp, const char *word);

#endif
