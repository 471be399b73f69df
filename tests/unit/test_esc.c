/*
 * test_esc: unit tests for render/esc.c, trace strings made safe for HTML
 * and for CSV fields.
 *
 * esc.h: the output is valid UTF-8; an invalid sequence (a stray
 * continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, a cut-off sequence) and a control character other than tab and
 * newline become U+FFFD; esc_html() also turns & < > " ' into entities.
 */
#include "esc.h"

#include "check.h"

#define FFFD "\xef\xbf\xbd"

static const struct {
	const char *in, *html, *utf8;
} cases[] = {
	{ "", "", "" },
	{ "plain", "plain", "plain" },
	{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;",
	  "<script>alert(1)</script>" },
	{ "a \"q\" & 'b'", "a &quot;q&quot; &amp; &#39;b&#39;", "a \"q\" & 'b'" },
	{ "tab\tnl\ncr\r", "tab\tnl\ncr" FFFD, "tab\tnl\ncr" FFFD },
	{ "nul-free \x01\x1f\x7f", "nul-free " FFFD FFFD FFFD, "nul-free " FFFD FFFD FFFD },
#define GOOD "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xac"	/* été € 🎬 */
	{ GOOD, GOOD, GOOD },
	{ "bad \xff\xfe end", "bad " FFFD FFFD " end", "bad " FFFD FFFD " end" },
	{ "stray \x80", "stray " FFFD, "stray " FFFD },
	{ "overlong \xc0\xaf \xe0\x80\xaf", "overlong " FFFD FFFD " " FFFD FFFD FFFD,
	  "overlong " FFFD FFFD " " FFFD FFFD FFFD },
	{ "surrogate \xed\xa0\x80", "surrogate " FFFD FFFD FFFD, "surrogate " FFFD FFFD FFFD },
	{ "too big \xf4\x90\x80\x80", "too big " FFFD FFFD FFFD FFFD,
	  "too big " FFFD FFFD FFFD FFFD },
	{ "cut \xe2\x82", "cut " FFFD FFFD, "cut " FFFD FFFD },
	{ "<\xe2\x82<", "&lt;" FFFD FFFD "&lt;", "<" FFFD FFFD "<" },
};

int main(void)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		esc_html(&b, cases[i].in);
		CHECKF(buf_ok(&b) && !strcmp(b.data ? b.data : "", cases[i].html),
		       "esc_html(case %zu) = \"%s\"", i, b.data ? b.data : "");
		buf_reset(&b);
		esc_utf8(&b, cases[i].in, strlen(cases[i].in));
		CHECKF(buf_ok(&b) && !strcmp(b.data ? b.data : "", cases[i].utf8),
		       "esc_utf8(case %zu) = \"%s\"", i, b.data ? b.data : "");
	}
	/* NULL is an empty string, not a crash */
	buf_reset(&b);
	esc_html(&b, NULL);
	CHECK(b.len == 0);
	/* tsafe_utf8_len: the length of one valid sequence, 0 when invalid */
	CHECK(tsafe_utf8_len((const unsigned char *)"a", 1) == 1);
	CHECK(tsafe_utf8_len((const unsigned char *)"\xc3\xa9", 2) == 2);
	CHECK(tsafe_utf8_len((const unsigned char *)"\xc3\xa9", 1) == 0);
	CHECK(tsafe_utf8_len((const unsigned char *)"\xf0\x9f\x8e\xac", 4) == 4);
	buf_release(&b);
	return check_done("test_esc");
}
