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

/*
 * Skip JSON whitespace; returns the first other byte's position (or end).
 * Compact traces have none between tokens: one compare answers them.
 */
static inline const char *jscan_ws(const char *p, const char *end)
{
	if (p < end && (unsigned char)*p > ' ')
		return p;
	/* Pretty-printed ones have one space after ':' and most ',': two. */
	if (end - p > 1 && *p == ' ' && (unsigned char)p[1] > ' ')
		return p + 1;
	return jsimd.skip_ws(p, end);
}

/*
 * *pp points at '"'.  On JS_OK, (*s, *len) is the decoded content (borrowed
 * from the text when it holds no escape, else a NUL-terminated copy in the
 * arena) and *pp is past the closing quote.  \uXXXX escapes become UTF-8;
 * a lone surrogate becomes U+FFFD, and \u0000 the two bytes C0 80 (never
 * valid UTF-8 otherwise), so that a name keeps its NUL as a C string.  Raw control bytes are accepted, as
 * torch's legacy writer emits them unescaped.
 */
int jscan_string(struct jscan *js, const char **pp, const char **s, size_t *len);

/*
 * A number at *pp, scaled by 10^scale and truncated toward zero:
 * scale 3 turns "1712195495541300.987" (µs) into 1712195495541300987 (ns).
 * Returns JS_OK, JS_MORE, JS_BAD, or JS_RANGE when the value does not fit
 * int64 (*pp is then still past the number).
 */
enum { JS_RANGE = 2 };
int jscan_number(struct jscan *js, const char **pp, int scale, int64_t *out);

/*
 * jscan_number, inline for the case that covers nearly every number of a
 * trace: a non-negative integer of at most 18 digits, scale 0 to 3, that
 * the text goes on past.  Anything else goes to jscan_number; the result is
 * the same either way.
 */
static inline int jscan_number_quick(struct jscan *js, const char **pp, int scale, int64_t *out)
{
	static const int64_t limit[4] = { INT64_MAX, INT64_MAX / 10, INT64_MAX / 100,
					  INT64_MAX / 1000 };
	static const int64_t mul[4] = { 1, 10, 100, 1000 };
	const char *p = *pp, *stop = js->end - p > 18 ? p + 18 : js->end;
	int64_t v = 0;

	while (p < stop && (unsigned)(*p - '0') < 10u)
		v = v * 10 + (*p++ - '0');
	if (p > *pp && p < js->end && (unsigned)(*p - '0') >= 10u && *p != '.' && *p != 'e' &&
	    *p != 'E' && (unsigned)scale < 4u && v <= limit[scale]) {
		*out = v * mul[scale];
		*pp = p;
		return JS_OK;
	}
	return jscan_number(js, pp, scale, out);
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
 * Step to the next member of an object.  *pp is at '{' (first) or just past
 * a member's value.  On JS_OK, *more is 1 with the key in (*k, *n) and *pp
 * at its value, or 0 with *pp past the closing '}'.  `what` is the message
 * for a missing ',' ("expected ',' or '}' in event").
 */
int jscan_member(struct jscan *js, const char **pp, int first, const char **k, size_t *n,
		 int *more, const char *what);

/*
 * Step to the next element of an array, like jscan_member: *pp at '[' or
 * past an element; *more 1 with *pp at the element, or 0 past the ']'.
 */
int jscan_element(struct jscan *js, const char **pp, int first, int *more);

/* Expect the literal word (true, false, null) at *pp. */
int jscan_word(struct jscan *js, const char **pp, const char *word);

#endif
