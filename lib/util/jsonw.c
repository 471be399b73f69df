/* jsonw: see jsonw.h. */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tsafe.h"

void jsonw_init(struct jsonw *w, struct buf *out, int compact)
{
	w->out = out;
	w->depth = 0;
	w->first[0] = 1;
	w->after_key = 0;
	w->compact = compact;
}

static void newline(struct jsonw *w)
{
	if (w->compact)
		return;
	buf_addc(w->out, '\n');
	for (int i = 0; i < w->depth; i++)
		buf_add(w->out, "  ", 2);
}

/* Before any value or key: the comma and the line break it needs. */
static void before(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			buf_addc(w->out, ',');
		newline(w);
	}
	w->first[w->depth] = 0;
}

static void nest_begin(struct jsonw *w, char c)
{
	before(w);
	buf_addc(w->out, c);
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = 1;
}

static void nest_end(struct jsonw *w, char c)
{
	int empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		newline(w);
	buf_addc(w->out, c);
}

void jsonw_obj_begin(struct jsonw *w)
{
	nest_begin(w, '{');
}

void jsonw_obj_end(struct jsonw *w)
{
	nest_end(w, '}');
}

void jsonw_arr_begin(struct jsonw *w)
{
	nest_begin(w, '[');
}

void jsonw_arr_end(struct jsonw *w)
{
	nest_end(w, ']');
}

void jsonw_escape(struct buf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned c = s[i], cp;
		size_t len;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    !(c == '/' && i > 0 && s[i - 1] == '<')) {
			i++;
			continue;
		}
		buf_add(out, s + run, i - run);
		if (c == 0xc0 && i + 1 < n && s[i + 1] == 0x80) {
			buf_add(out, "\\u0000", 6);	/* NUL as jscan decodes it */
			i += 2;
			run = i;
			continue;
		}
		if (c >= 0x80) {
			len = tsafe_utf8_len(s + i, n - i);
			cp = len ? tsafe_utf8_decode(s + i, len) : 0;
			if (len && tsafe_unsafe_cp(cp)) {
				/*
				 * C1 controls, bidi controls, invisible characters:
				 * valid JSON raw, but a terminal showing the file
				 * would act on them or hide them; escaped, the text
				 * reads back the same.
				 */
				if (cp >= 0x10000)
					buf_printf(out, "\\u%04x\\u%04x",
						   0xd800 + ((cp - 0x10000) >> 10),
						   0xdc00 + ((cp - 0x10000) & 0x3ff));
				else
					buf_printf(out, "\\u%04x", cp);
				i += len;
			} else if (len) {
				buf_add(out, s + i, len);
				i += len;
			} else {
				buf_add(out, "\xef\xbf\xbd", 3);	/* U+FFFD */
				i++;
			}
			run = i;
			continue;
		}
		switch (c) {
		case '"': buf_add(out, "\\\"", 2); break;
		case '\\': buf_add(out, "\\\\", 2); break;
		case '/': buf_add(out, "\\/", 2); break;
		case '\n': buf_add(out, "\\n", 2); break;
		case '\r': buf_add(out, "\\r", 2); break;
		case '\t': buf_add(out, "\\t", 2); break;
		default: buf_printf(out, "\\u%04x", c); break;
		}
		i++;
		run = i;
	}
	buf_add(out, s + run, n - run);
}

void jsonw_keyn(struct jsonw *w, const char *k, size_t n)
{
	before(w);
	buf_addc(w->out, '"');
	jsonw_escape(w->out, k, n);
	buf_add(w->out, "\": ", w->compact ? 2 : 3);
	w->after_key = 1;
}

void jsonw_key(struct jsonw *w, const char *k)
{
	jsonw_keyn(w, k, strlen(k));
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	before(w);
	buf_addc(w->out, '"');
	jsonw_escape(w->out, s, n);
	buf_addc(w->out, '"');
}

void jsonw_str(struct jsonw *w, const char *s)
{
	jsonw_strn(w, s, strlen(s));
}

/*
 * Integers without printf: a merged report of thousands of ranks holds
 * millions of them, and vfprintf was a fifth of vaggregate's time.
 */
static void put_i64(struct buf *b, int64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	before(w);
	put_i64(w->out, v);
}

void jsonw_double(struct jsonw *w, double v)
{
	before(w);
	if (!isfinite(v))
		buf_adds(w->out, "null");
	else
		buf_printf(w->out, "%.17g", v);
}

void jsonw_int_array(struct jsonw *w, const int64_t *v, size_t n)
{
	before(w);
	buf_addc(w->out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_add(w->out, ", ", 2);
		put_i64(w->out, v[i]);
	}
	buf_addc(w->out, ']');
}

void jsonw_bool(struct jsonw *w, int v)
{
	before(w);
	buf_adds(w->out, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
	before(w);
	buf_adds(w->out, "null");
}
