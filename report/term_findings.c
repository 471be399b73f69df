/*
 * term_findings: the findings in a terminal (term.h, term_suggestions()).
 * The lead is the top three, one line each, cut to the width, so the
 * causes that matter most fit one screen whatever follows; the details
 * below give every finding whole, wrapped at spaces.  Text from traces
 * (names inside messages) goes through term_putn_safe().
 */
#include "term.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define LEAD 3		/* findings in the lead */

/* Columns to fill: $COLUMNS, else the terminal's, else 80; at least 40. */
static int width_of(FILE *f)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	int w = 80;

	if (c && atoi(c) > 0)
		w = atoi(c);
	else if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		w = ws.ws_col;
	return w < 40 ? 40 : w;
}

/* Columns of s[0..n): UTF-8 lead bytes. */
static int cols(const char *s, size_t n)
{
	int k = 0;

	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* The most bytes of s that fit in w columns, ending on a character boundary. */
static size_t fit(const char *s, int w)
{
	size_t i = 0;
	int k = 0;

	while (s[i]) {
		size_t j = i + 1;

		while (((unsigned char)s[j] & 0xc0) == 0x80)
			j++;
		if (++k > w)
			break;
		i = j;
	}
	return i;
}

/* s wrapped at spaces into lines of width w: the first after first, the others after indent. */
static void wrap(FILE *f, const char *s, const char *first, const char *indent, int w)
{
	int room = w - (int)strlen(indent);

	if (room < 20)
		room = 20;
	while (*s) {
		size_t n = strlen(s), cut = n;

		if (cols(s, n) > room) {
			cut = fit(s, room);
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = fit(s, room);	/* one long word: cut it */
		}
		fputs(first, f);
		first = indent;
		term_putn_safe(f, s, cut);
		fputc('\n', f);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

/* "11.1 ms, 49.7% of the wall time" or "–". */
static void at_stake(char *out, size_t n, const struct report_suggestion *s)
{
	char a[METRIC_FMT_MAX], b[METRIC_FMT_MAX];

	if (s->impact_ns < 0) {
		snprintf(out, n, "%s", "\xe2\x80\x93");
		return;
	}
	metric_fmt(a, sizeof(a), (double)s->impact_ns, UNIT_NS, 0);
	metric_fmt(b, sizeof(b), s->impact_share, UNIT_RATIO, 0);
	snprintf(out, n, "%s (%s)", a, b);
}

void term_suggestions(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	static const char *const sev[] = { "low", "medium", "high" };
	int w = width_of(f);
	char stake[128], v[METRIC_FMT_MAX], t[METRIC_FMT_MAX], line[1200], worst[48];

	if (!rep->nr_suggestions)
		return;
	fprintf(f, "%sfindings%s (%s workload; time at stake of the wall time)\n", bold, off,
		rep->workload ? rep->workload : "unknown");
	for (size_t i = 0; i < rep->nr_suggestions && i < LEAD; i++) {
		const struct report_suggestion *s = &rep->suggestions[i];
		size_t n;

		at_stake(stake, sizeof(stake), s);
		/* pad by columns, not bytes: µ and the dash are one column each */
		snprintf(line, sizeof(line), "  %zu. %s%*s %s", i + 1, stake,
			 17 - cols(stake, strlen(stake)) > 0 ? 17 - cols(stake, strlen(stake)) : 0, "",
			 s->message);
		n = strlen(line);
		if (cols(line, n) > w) {
			n = fit(line, w - 1);
			term_putn_safe(f, line, n);
			fputs("\xe2\x80\xa6\n", f);
		} else {
			term_putn_safe(f, line, n);
			fputc('\n', f);
		}
	}
	if (rep->nr_suggestions > LEAD)
		fprintf(f, "  (%zu more below)\n", rep->nr_suggestions - LEAD);
	fprintf(f, "%sfindings in detail%s\n", bold, off);
	for (size_t i = 0; i < rep->nr_suggestions; i++) {
		const struct report_suggestion *s = &rep->suggestions[i];
		enum metric_unit u = metric_unit_of(s->metric);

		snprintf(line, sizeof(line), "%zu. [%s] %s", i + 1, sev[s->severity], s->message);
		wrap(f, line, "  ", "     ", w);
		if (s->details)
			wrap(f, s->details, "     ", "     ", w);
		metric_fmt(v, sizeof(v), s->value, u, 0);
		metric_fmt(t, sizeof(t), s->threshold, u, 0);
		if (s->worst_rank >= 0 && s->nr_ranks > 1)
			snprintf(worst, sizeof(worst), " on the worst, rank %lld",
				 (long long)s->worst_rank);
		else
			worst[0] = '\0';
		snprintf(line, sizeof(line), "evidence: %s = %s (threshold %s)%s", s->metric, v, t,
			 worst);
		wrap(f, line, "     ", "     ", w);
		if (s->impact_ns >= 0) {
			at_stake(stake, sizeof(stake), s);
			snprintf(line, sizeof(line), "at stake: %s of the wall time; estimate: %s", stake,
				 s->impact_basis ? s->impact_basis : "?");
			wrap(f, line, "     ", "     ", w);
		}
	}
}
