/* term: see term.h. */
#include "term.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"

#include "suggest.h"

int term_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

void term_putn_safe(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max), i = 0;

	while (i < n) {
		size_t len = esc_utf8_len(p + i, n - i);

		if (p[i] == 0xc0 && i + 1 < n && p[i + 1] == 0x80) {
			fputs("\\0", f);
			len = 2;
		} else if (len == 0 || (len == 1 && (p[i] < 0x20 || p[i] == 0x7f)) ||
			   (len == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			fputc('?', f);
			len = len ? len : 1;
		} else {
			fwrite(p + i, 1, len, f);
		}
		i += len;
	}
}

void term_put_safe(FILE *f, const char *s)
{
	term_putn_safe(f, s, SIZE_MAX);
}

void term_suggestions(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	static const char *const sev[] = { "low", "medium", "high" };

	if (!rep->nr_suggestions)
		return;
	fprintf(f, "%ssuggestions%s\n", bold, off);
	for (size_t i = 0; i < rep->nr_suggestions; i++) {
		const struct report_suggestion *sg = &rep->suggestions[i];

		fprintf(f, "  [%s] ", sev[sg->severity]);
		if (sg->rank >= 0)
			fprintf(f, "rank %lld: ", (long long)sg->rank);
		term_put_safe(f, sg->message);
		fputc('\n', f);
	}
}

void term_thresholds(FILE *f)
{
	fprintf(f, "\nThresholds (--threshold NAME=V):\n");
	for (size_t i = 0; i < suggest_nr_thresholds; i++)
		fprintf(f, "  %-18s %-8g %s\n", suggest_thresholds[i].name, suggest_thresholds[i].def,
			suggest_thresholds[i].meaning);
}
