/*
 * tsafe: input text made safe for a terminal.
 *
 * Every string that came from an input (a file name, a trace or kernel
 * name, a report's "schema" or ranks[].source) and reaches stdout or
 * stderr goes through here, so that no input can act on the terminal or
 * disguise a line.  Replaced by '?', one column each:
 *
 *   - invalid UTF-8 (one '?' per byte that starts no valid sequence);
 *   - C0 controls (ESC among them), DEL and C1 controls (CSI is U+009B
 *     as much as ESC '[');
 *   - bidi controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069), which
 *     reorder the rest of a line, and invisible format characters (U+00AD,
 *     U+200B-200D, U+2060-2064, U+FEFF, tags U+E0000-E007F, ...), which
 *     make two different names look alike; U+2028/2029 break lines.
 *
 * jscan keeps an escaped NUL ("\u0000") as C0 80; it shows as "\0".
 * Tab and newline are controls like the others: a caller that wants a
 * line break writes its own.
 */
#ifndef VT_TSAFE_H
#define VT_TSAFE_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"

/* The length of the valid UTF-8 sequence at s[0..n), or 0 when it is invalid. */
size_t tsafe_utf8_len(const unsigned char *s, size_t n);

/* The code point of the valid sequence s[0..len) (len from tsafe_utf8_len()). */
unsigned tsafe_utf8_decode(const unsigned char *s, size_t len);

/* Whether code point cp is one a terminal must not be given (see above). */
int tsafe_unsafe_cp(unsigned cp);

/* s up to its NUL or max bytes, made safe, to f. */
void tsafe_putn(FILE *f, const char *s, size_t max);
void tsafe_put(FILE *f, const char *s);

/* s[0..n) made safe, appended to b (a NUL in s is a byte like any other: '?'). */
void tsafe_add(struct buf *b, const char *s, size_t n);

/*
 * s (NUL-terminated) made safe into out[0..cap), NUL-terminated and never
 * cut inside a replacement or a sequence.  Returns the length written.
 * For messages assembled in a fixed buffer (log.c).
 */
size_t tsafe_copy(char *out, size_t cap, const char *s);

#endif
