/*
 * shorten: long trace names (templated kernels run to thousands of bytes)
 * cut in the middle to fit a column, the same way in the terminal and the
 * HTML page.  The start and the end of a name tell most apart; where two
 * names of one table would still read the same, the part where they
 * differ is kept as well.  Columns are code points; the output is the
 * input's bytes (cut on code point boundaries) and U+2026 ellipses, not yet
 * escaped for where it lands.
 */
#ifndef VT_SHORTEN_H
#define VT_SHORTEN_H

#include <stddef.h>

/* Bytes of output that a name of cols columns may need, with its NUL. */
#define SHORTEN_CAP(cols) (4 * (size_t)(cols) + 16)

/*
 * s in at most cols columns (cols >= 8) into out (SHORTEN_CAP(cols) bytes):
 * all of it when it fits, else its start, an ellipsis and its end.
 * Returns out.
 */
char *shorten(char *out, const char *s, size_t cols);

/*
 * The names of one table: out + i * stride (stride >= SHORTEN_CAP(cols))
 * gets names[i] shortened to cols columns, and no two different names
 * come out the same where a window over their first difference can tell
 * them apart.
 */
void shorten_set(char *out, size_t stride, const char *const *names, size_t n, size_t cols);

/* Columns of s: code points, an invalid byte counting as one. */
size_t shorten_cols(const char *s);

#endif
