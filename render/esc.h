/*
 * esc: trace strings made safe for the place they land.
 *
 * Trace strings are arbitrary bytes.  Each function here appends s[0..n)
 * to a struct buf as valid UTF-8: an invalid sequence becomes U+FFFD, and
 * C0 and C1 control characters other than tab and newline become U+FFFD
 * too (they are not allowed in HTML text and mean nothing in a table
 * cell).  The NUL that jscan keeps as C0 80 shows as U+2400 (SYMBOL FOR
 * NULL), so that "ab\u0000cd" and "ab" stay apart.
 */
#ifndef VT_ESC_H
#define VT_ESC_H

#include <stddef.h>

#include "buf.h"
#include "tsafe.h"	/* tsafe_utf8_len() */

/* Valid UTF-8, nothing else changed (for CSV fields before libcsv quotes them). */
void esc_utf8(struct buf *out, const char *s, size_t n);

/* HTML text or a quoted attribute value: & < > " ' become entities. */
void esc_html(struct buf *out, const char *s);

/* The same for s[0..n). */
void esc_html_n(struct buf *out, const char *s, size_t n);

#endif
