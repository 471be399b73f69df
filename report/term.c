/* term: see term.h. */
#include "term.h"

#include <stdlib.h>
#include <unistd.h>

#include "suggest.h"

int term_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

void term_put_safe(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
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
