/*
 * jsonw: writing JSON into a struct buf.
 *
 * Strings from traces are arbitrary bytes: jsonw_str() escapes quotes,
 * backslashes and control characters, and replaces invalid UTF-8 with
 * U+FFFD, so the output is always valid JSON and valid UTF-8.  "</" is
 * written as "<\/" so a report can be embedded in an HTML <script> block.
 * The writer tracks commas and nesting; pretty-prints with two-space indent.
 */
#ifndef VT_JSONW_H
#define VT_JSONW_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define JSONW_MAX_DEPTH 32

struct jsonw {
	struct buf *out;
	int depth;
	int first[JSONW_MAX_DEPTH];	/* no member written yet at this depth */
	int after_key;
	int compact;			/* all on one line */
};

void jsonw_init(struct jsonw *w, struct buf *out, int compact);

void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);

/* The key of the next member; n is its length. */
void jsonw_key(struct jsonw *w, const char *k);
void jsonw_keyn(struct jsonw *w, const char *k, size_t n);

void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_double(struct jsonw *w, double v);	/* null when not finite */
void jsonw_bool(struct jsonw *w, int v);
/* An array of integers on one line, however the writer is indenting. */
void jsonw_int_array(struct jsonw *w, const int64_t *v, size_t n);
void jsonw_null(struct jsonw *w);

/*
 * Append s[0..n) to out as the body of a JSON string (no quotes): C0 80
 * (jscan's NUL) as \u0000, C1 controls, bidi controls and invisible
 * characters (tsafe_unsafe_cp(); a terminal showing the file would act on
 * them or hide them) as \uXXXX escapes, surrogate pairs past U+FFFF, other
 * invalid UTF-8 as U+FFFD.
 */
void jsonw_escape(struct buf *out, const char *s, size_t n);

#endif
