/*
 * test_tsafe: input text made safe for a terminal (lib/util/tsafe.h): every
 * class of character a terminal acts on or hides becomes '?', one per code
 * point (one per byte of invalid UTF-8); everything else is kept as it is;
 * the three outputs (FILE, struct buf, fixed buffer) agree.
 */
#include "check.h"
#include "tsafe.h"

static const struct {
	const char *in, *out;
} cases[] = {
	{ "", "" },
	{ "plain ascii, kernel<float>", "plain ascii, kernel<float>" },
	{ "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x8e\xac",
	  "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x8e\xac" },
	/* OSC window title and clear screen: ESC and BEL */
	{ "\x1b]0;pwned\x07\x1b[2J", "?]0;pwned??[2J" },
	{ "tab\tnl\ncr\r", "tab?nl?cr?" },
	{ "del\x7f", "del?" },
	/* C1: CSI U+009B, NEL U+0085; U+00A0 is printable */
	{ "\xc2\x9b" "31m \xc2\x85 \xc2\xa0", "?31m ? \xc2\xa0" },
	/* bidi: RLO U+202E, LRI U+2066, PDI U+2069, ALM U+061C, LRM U+200E, RLM U+200F */
	{ "a\xe2\x80\xae" "b\xe2\x81\xa6" "c\xe2\x81\xa9" "d\xd8\x9c" "e\xe2\x80\x8e\xe2\x80\x8f",
	  "a?b?c?d?e??" },
	/* invisible: BOM, ZWSP, ZWJ, WJ, soft hyphen, a tag; U+2028 line separator */
	{ "\xef\xbb\xbf" "x\xe2\x80\x8b\xe2\x80\x8dy\xe2\x81\xa0z\xc2\xad"
	  "\xf3\xa0\x81\x81\xe2\x80\xa8",
	  "?x??y?z???" },
	/* invalid UTF-8: a lone continuation, a cut sequence, an overlong, a surrogate */
	{ "\x80" "a\xe2\x82" "b\xc1\xbf" "c\xed\xa0\x80", "?a??b??c???" },
	/* jscan's NUL */
	{ "ab\xc0\x80" "cd", "ab\\0cd" },
	/* next to the ranges: U+2010 (hyphen), U+2030 (per mille), U+FEFE */
	{ "\xe2\x80\x90\xe2\x80\xb0\xef\xbb\xbe", "\xe2\x80\x90\xe2\x80\xb0\xef\xbb\xbe" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[256], *mem = NULL;
		size_t memlen = 0;
		FILE *f = open_memstream(&mem, &memlen);
		struct buf b;

		tsafe_put(f, cases[i].in);
		fclose(f);
		CHECKF(!strcmp(mem, cases[i].out), "tsafe_put(case %zu) = \"%s\"", i, mem);
		free(mem);
		buf_init(&b);
		tsafe_add(&b, cases[i].in, strlen(cases[i].in));
		CHECKF(buf_ok(&b) && !strcmp(b.data ? b.data : "", cases[i].out),
		       "tsafe_add(case %zu) = \"%s\"", i, b.data ? b.data : "");
		buf_release(&b);
		CHECK(tsafe_copy(got, sizeof(got), cases[i].in) == strlen(cases[i].out));
		CHECKF(!strcmp(got, cases[i].out), "tsafe_copy(case %zu) = \"%s\"", i, got);
	}
	/* a fixed buffer is never cut inside a replacement: "\0" whole or not at all */
	{
		char got[4];

		CHECK(tsafe_copy(got, sizeof(got), "ab\xc0\x80") == 2);
		CHECK(!strcmp(got, "ab"));
		CHECK(tsafe_copy(got, 1, "abc") == 0 && got[0] == '\0');
	}
	/* putn stops at max bytes */
	{
		char *mem = NULL;
		size_t memlen = 0;
		FILE *f = open_memstream(&mem, &memlen);

		tsafe_putn(f, "ab\x1b" "cd", 3);
		fclose(f);
		CHECK(!strcmp(mem, "ab?"));
		free(mem);
	}
	return check_done("test_tsafe");
}
