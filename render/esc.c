/* esc: see esc.h. */
#include "esc.h"

#include <string.h>

static const char replacement[] = "\xef\xbf\xbd";	/* U+FFFD */

/* Append s[0..n) as valid UTF-8; html: also escape markup characters. */
static void clean(struct buf *out, const char *s, size_t n, int html)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned c = p[i];
		size_t len = tsafe_utf8_len(p + i, n - i);
		const char *rep = NULL;

		if (c == 0xc0 && i + 1 < n && p[i + 1] == 0x80) {
			rep = "\xe2\x90\x80";	/* jscan's NUL, shown as U+2400 */
			len = 2;
		} else if (len == 1 && c < 0x20 && c != '\t' && c != '\n')
			rep = replacement;
		else if (len == 2 && c == 0xc2 && p[i + 1] < 0xa0)
			rep = replacement;	/* C1 controls: CSI is U+009B */
		else if (len == 1 && c == 0x7f)
			rep = replacement;
		else if (len == 0)
			rep = replacement;
		else if (html && c == '&')
			rep = "&amp;";
		else if (html && c == '<')
			rep = "&lt;";
		else if (html && c == '>')
			rep = "&gt;";
		else if (html && c == '"')
			rep = "&quot;";
		else if (html && c == '\'')
			rep = "&#39;";
		if (!rep) {
			i += len;
			run += len;
			continue;
		}
		buf_add(out, s + i - run, run);
		buf_adds(out, rep);
		run = 0;
		i += len ? len : 1;
	}
	buf_add(out, s + n - run, run);
}

void esc_utf8(struct buf *out, const char *s, size_t n)
{
	clean(out, s, n, 0);
}

void esc_html(struct buf *out, const char *s)
{
	if (s)
		clean(out, s, strlen(s), 1);
}

void esc_html_n(struct buf *out, const char *s, size_t n)
{
	clean(out, s, n, 1);
}
