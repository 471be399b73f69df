/*
 * jscan: see jscan.h.
 *
 * The byte searches (whitespace, the end of a string, the next bracket) are
 * jsimd's, 16 or 32 bytes a step; the common numbers are read (or stepped
 * over) inline by jscan_number_quick and jscan_skip_number (jscan.h), and
 * number() here takes the rest.
 */
#include "jscan.h"

#include <string.h>

void jscan_init(struct jscan *js, const char *start, size_t len, int64_t offset,
		struct arena *arena, struct err *err)
{
	js->start = start;
	js->end = len ? start + len : start;	/* NULL + 0 is undefined */
	js->offset = offset;
	js->arena = arena;
	js->err = err;
}

int jscan_fail(struct jscan *js, const char *p, const char *msg)
{
	err_set(js->err, jscan_off(js, p), "%s", msg);
	return JS_BAD;
}

static inline const char *find_quote(const char *p, const char *end)
{
	return jscan_find_quote(p, end);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at p (p + 4 <= end checked by the caller), or -1. */
static long hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static char *put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/*
 * Decode the escaped string body [p, close) into the arena.  The output is
 * never longer than the input: every escape shrinks or keeps its length
 * (\uXXXX, 6 bytes, gives at most 3; a surrogate pair, 12 bytes, gives 4).
 */
static int unescape(struct jscan *js, const char *p, const char *close, const char **s,
		    size_t *len)
{
	char *out = arena_alloc(js->arena, (size_t)(close - p) + 1);
	char *o = out;

	if (!out)
		return jscan_fail(js, p, "out of memory");
	while (p < close) {
		const char *q = find_quote(p, close);

		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		p = q;
		if (p >= close)
			break;
		/* *p == '\\'; the scan that found close made sure p + 1 < close */
		p++;
		switch (*p) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			long cp = close - p >= 5 ? hex4(p + 1) : -1;

			if (cp < 0)
				return jscan_fail(js, p - 1, "invalid \\u escape in string");
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && close - p >= 7 && p[1] == '\\' &&
			    p[2] == 'u') {
				long lo = hex4(p + 3);

				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd;	/* lone surrogate */
			if (cp == 0) {
				/*
				 * NUL as C0 80 (Java's "modified UTF-8"): the name
				 * keeps its byte, stays a C string everywhere, and
				 * jsonw writes it back as \u0000.
				 */
				*o++ = (char)0xc0;
				*o++ = (char)0x80;
				break;
			}
			o = put_utf8(o, (unsigned long)cp);
			break;
		}
		default:
			return jscan_fail(js, p - 1, "invalid escape in string");
		}
		p++;
	}
	*o = '\0';
	*s = out;
	*len = (size_t)(o - out);
	return JS_OK;
}

int jscan_string_slow(struct jscan *js, const char **pp, const char **s, size_t *len)
{
	const char *open = *pp, *p = open + 1, *end = js->end;
	int escaped = 0;

	for (;;) {
		p = find_quote(p, end);
		if (p >= end)
			return JS_MORE;
		if (*p == '"')
			break;
		escaped = 1;
		if (p + 1 >= end)
			return JS_MORE;
		p += 2;
	}
	*pp = p + 1;
	if (!escaped) {
		*s = open + 1;
		*len = (size_t)(p - open - 1);
		return JS_OK;
	}
	return unescape(js, open + 1, p, s, len);
}

/* Skip a string without decoding it; *pp at '"'. */
static int skip_string(const char **pp, const char *end)
{
	const char *p = *pp + 1;

	for (;;) {
		p = find_quote(p, end);
		if (p >= end)
			return JS_MORE;
		if (*p == '"')
			break;
		if (p + 1 >= end)
			return JS_MORE;
		p += 2;
	}
	*pp = p + 1;
	return JS_OK;
}

static const int64_t pow10_tab[19] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
	1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000,
};

/*
 * The number grammar of RFC 8259, value = mant * 10^exp10 kept in integers.
 * Digits that no longer fit mant are dropped: past the point, they cannot
 * change a result truncated toward zero; before it, the value overflows.
 * final: the text ends here for sure, so a number touching end is complete.
 */
static int number(const char **pp, const char *end, int scale, int final, int64_t *out,
		  const char **why)
{
	const char *p = *pp;
	uint64_t mant = 0;
	long exp10 = scale;
	int neg = 0, range = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end)
		return final ? (*why = "expected a digit", JS_BAD) : JS_MORE;
	if (!JSCAN_IS_DIGIT(*p)) {
		*why = "expected a value";
		return JS_BAD;
	}
	for (; p < end && JSCAN_IS_DIGIT(*p); p++) {
		if (mant <= (UINT64_MAX - 9) / 10)
			mant = mant * 10 + (uint64_t)(*p - '0');
		else
			exp10++;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end)
			return final ? (*why = "expected a digit after '.'", JS_BAD) : JS_MORE;
		if (!JSCAN_IS_DIGIT(*p)) {
			*why = "expected a digit after '.'";
			return JS_BAD;
		}
		for (; p < end && JSCAN_IS_DIGIT(*p); p++) {
			if (mant <= (UINT64_MAX - 9) / 10) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				exp10--;
			}
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		long e = 0;
		int eneg = 0;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end)
			return final ? (*why = "expected a digit in exponent", JS_BAD) : JS_MORE;
		if (!JSCAN_IS_DIGIT(*p)) {
			*why = "expected a digit in exponent";
			return JS_BAD;
		}
		for (; p < end && JSCAN_IS_DIGIT(*p); p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		exp10 += eneg ? -e : e;
	}
	if (p >= end && !final)
		return JS_MORE;
	*pp = p;

	if (mant == 0) {
		*out = 0;
		return JS_OK;
	}
	if (exp10 < 0) {
		mant = exp10 < -18 ? 0 : mant / (uint64_t)pow10_tab[-exp10];
	} else if (exp10 > 0) {
		if (exp10 > 18 || mant > UINT64_MAX / (uint64_t)pow10_tab[exp10])
			range = 1;
		else
			mant *= (uint64_t)pow10_tab[exp10];
	}
	if (!range && mant > (uint64_t)INT64_MAX + (uint64_t)neg)
		range = 1;
	if (range)
		return JS_RANGE;
	*out = neg ? (int64_t)(0 - mant) : (int64_t)mant;
	return JS_OK;
}

int jscan_number(struct jscan *js, const char **pp, int scale, int64_t *out)
{
	const char *why = NULL;
	int rc = number(pp, js->end, scale, 0, out, &why);

	if (rc == JS_BAD)
		return jscan_fail(js, *pp, why);
	return rc;
}

int jscan_number_text(const char *s, size_t len, int scale, int64_t *out)
{
	const char *p = s, *why;
	int rc = number(&p, s + len, scale, 1, out, &why);

	if (rc == JS_BAD || p != s + len)
		return JS_BAD;
	return rc;
}

int jscan_word(struct jscan *js, const char **pp, const char *word)
{
	size_t n = strlen(word);
	const char *p = *pp;

	if ((size_t)(js->end - p) < n)
		return memcmp(p, word, (size_t)(js->end - p))
		       ? jscan_fail(js, p, "expected a value") : JS_MORE;
	if (memcmp(p, word, n))
		return jscan_fail(js, p, "expected a value");
	*pp = p + n;
	return JS_OK;
}

/*
 * Iterative, with the open containers on a fixed stack, so hostile nesting
 * costs at most JSCAN_MAX_DEPTH bytes and an error, never the C stack.
 */
int jscan_skip(struct jscan *js, const char **pp)
{
	char stack[JSCAN_MAX_DEPTH];
	const char *p = *pp, *end = js->end;
	int depth = 0, rc;

value:
	p = jscan_ws(p, end);
	if (p >= end)
		return JS_MORE;
	switch (*p) {
	case '{':
	case '[':
		if (depth == JSCAN_MAX_DEPTH)
			return jscan_fail(js, p, "nesting deeper than 512 levels");
		stack[depth++] = *p == '{' ? '}' : ']';
		p = jscan_ws(p + 1, end);
		if (p >= end)
			return JS_MORE;
		if (*p == stack[depth - 1]) {
			p++;
			depth--;
			goto after;
		}
		if (stack[depth - 1] == '}')
			goto key;
		goto value;
	case '"':
		if ((rc = skip_string(&p, end)) != JS_OK)
			return rc;
		goto after;
	case 't':
	case 'f':
	case 'n':
		rc = jscan_word(js, &p, *p == 't' ? "true" : *p == 'f' ? "false" : "null");
		if (rc != JS_OK)
			return rc;
		goto after;
	default:
		if ((rc = jscan_skip_number(js, &p)) != JS_OK)
			return rc;
		goto after;
	}
key:
	p = jscan_ws(p, end);
	if (p >= end)
		return JS_MORE;
	if (*p != '"')
		return jscan_fail(js, p, "expected a member name");
	if ((rc = skip_string(&p, end)) != JS_OK || (rc = jscan_colon(js, &p)) != JS_OK)
		return rc;
	goto value;
after:
	if (depth == 0) {
		*pp = p;
		return JS_OK;
	}
	p = jscan_ws(p, end);
	if (p >= end)
		return JS_MORE;
	if (*p == ',') {
		p++;
		if (stack[depth - 1] == '}')
			goto key;
		goto value;
	}
	if (*p == stack[depth - 1]) {
		p++;
		depth--;
		goto after;
	}
	return jscan_fail(js, p, stack[depth - 1] == '}' ? "expected ',' or '}'"
							 : "expected ',' or ']'");
}

int jscan_skip_fast(struct jscan *js, const char **pp)
{
	uint64_t is_obj[JSCAN_MAX_DEPTH / 64];	/* per open bracket: 1 for '{' */
	const char *p = jscan_ws(*pp, js->end), *end = js->end;
	int depth = 0, rc;

	if (p >= end)
		return JS_MORE;
	if (*p == '"') {
		if ((rc = skip_string(&p, end)) == JS_OK)
			*pp = p;
		return rc;
	}
	if (*p == '-' || JSCAN_IS_DIGIT(*p)) {
		if ((rc = jscan_skip_number(js, &p)) == JS_OK)
			*pp = p;
		return rc;
	}
	if (*p != '{' && *p != '[')
		return jscan_skip(js, pp);
	memset(is_obj, 0, sizeof(is_obj));
	for (;;) {
		p = jsimd.find_struct(p, end);
		if (p >= end)
			return JS_MORE;
		switch (*p) {
		case '"':
			if ((rc = skip_string(&p, end)) != JS_OK)
				return rc;
			continue;
		case '{':
		case '[':
			if (depth == JSCAN_MAX_DEPTH)
				return jscan_fail(js, p, "nesting deeper than 512 levels");
			if (*p == '{')
				is_obj[depth / 64] |= UINT64_C(1) << (depth % 64);
			else
				is_obj[depth / 64] &= ~(UINT64_C(1) << (depth % 64));
			depth++;
			break;
		default:	/* '}' or ']' */
			depth--;
			if ((*p == '}') != (int)(is_obj[depth / 64] >> (depth % 64) & 1))
				return jscan_fail(js, p, *p == '}' ? "expected ',' or ']'"
								   : "expected ',' or '}'");
			if (depth == 0) {
				*pp = p + 1;
				return JS_OK;
			}
		}
		p++;
	}
}

int jscan_element(struct jscan *js, const char **pp, int first, int *more)
{
	const char *p = *pp, *end = js->end;

	p = jscan_ws(first ? p + 1 : p, end);
	if (p >= end)
		return JS_MORE;
	if (*p == ']') {
		*pp = p + 1;
		*more = 0;
		return JS_OK;
	}
	if (!first) {
		if (*p != ',')
			return jscan_fail(js, p, "expected ',' or ']'");
		p = jscan_ws(p + 1, end);
		if (p >= end)
			return JS_MORE;
	}
	*pp = p;
	*more = 1;
	return JS_OK;
}
