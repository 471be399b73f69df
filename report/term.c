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

void term_value(FILE *f, double v, enum metric_unit u, unsigned flags, int width)
{
	char s[METRIC_FMT_MAX];
	int cols = 0;

	metric_fmt(s, sizeof(s), v, u, flags);
	for (const char *c = s; *c; c++)
		cols += ((unsigned char)*c & 0xc0) != 0x80;	/* UTF-8 lead bytes */
	fprintf(f, "%*s%s", width > cols ? width - cols : 0, "", s);
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
	for (size_t i = 0; i < suggest_nr_thresholds(); i++) {
		const char *rule;
		const struct suggest_threshold *t = suggest_threshold_at(i, &rule);

		fprintf(f, "  %-18s %-6g %-24s %s\n", t->name, t->def, rule, t->meaning);
	}
}
