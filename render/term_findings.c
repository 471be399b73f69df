/*
 * term_findings: the findings in a terminal (term.h, term_suggestions()).
 * The lead is the top three, one line each, cut to the width, so the
 * causes that matter most fit one screen; with details (--details), every
 * finding follows whole, wrapped at spaces, else one line says how to see
 * them.  Text from traces
 * (names inside messages) goes through tsafe_putn().
 */
#include "term.h"

#include <stdlib.h>
#include <string.h>

#define LEAD 3		/* findings in the lead */

/* first, then s wrapped to w columns, the other lines indented as deep as first. */
static void wrap(FILE *f, const char *s, const char *first, int w)
{
	fputs(first, f);
	term_wrap(f, s, (int)strlen(first), 5, w);
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

void term_suggestions(FILE *f, const struct report *rep, const char *bold, const char *off,
		      int details)
{
	int w = term_width(f);
	char stake[128], v[METRIC_FMT_MAX], t[METRIC_FMT_MAX], line[1200], worst[48];

	if (!rep->nr_suggestions)
		return;
	fprintf(f, "%sfindings%s (%s workload; time at stake of the wall time)\n", bold, off,
		rep->workload ? rep->workload : "unknown");
	for (size_t i = 0; i < rep->nr_suggestions && i < LEAD; i++) {
		const struct report_suggestion *s = &rep->suggestions[i];
		size_t n;
		int pad;

		at_stake(stake, sizeof(stake), s);
		/* pad by columns, not bytes: µ and the dash are one column each */
		pad = 17 - term_cols(stake, strlen(stake));
		snprintf(line, sizeof(line), "  %zu. %s%*s %s", i + 1, stake, pad > 0 ? pad : 0, "",
			 s->message);
		n = strlen(line);
		if (term_cols(line, n) > w) {
			n = term_bytes(line, n, w - 1);
			tsafe_putn(f, line, n);
			fputs("\xe2\x80\xa6\n", f);
		} else {
			tsafe_putn(f, line, n);
			fputc('\n', f);
		}
	}
	if (!details) {
		if (rep->nr_suggestions > LEAD)
			fprintf(f, "  (%zu more; --details shows every finding in full)\n",
				rep->nr_suggestions - LEAD);
		else
			fputs("  (--details shows the advice and the evidence)\n", f);
		return;
	}
	if (rep->nr_suggestions > LEAD)
		fprintf(f, "  (%zu more below)\n", rep->nr_suggestions - LEAD);
	fprintf(f, "%sfindings in detail%s\n", bold, off);
	for (size_t i = 0; i < rep->nr_suggestions; i++) {
		const struct report_suggestion *s = &rep->suggestions[i];
		enum metric_unit u = metric_unit_of(s->metric);

		snprintf(line, sizeof(line), "%zu. [%s] %s", i + 1,
			 report_severity_name[s->severity], s->message);
		wrap(f, line, "  ", w);
		if (s->details)
			wrap(f, s->details, "     ", w);
		metric_fmt(v, sizeof(v), s->value, u, 0);
		metric_fmt(t, sizeof(t), s->threshold, u, 0);
		if (s->worst_rank >= 0 && s->nr_ranks > 1)
			snprintf(worst, sizeof(worst), " on the worst, rank %lld",
				 (long long)s->worst_rank);
		else
			worst[0] = '\0';
		if (s->threshold != 0)
			snprintf(line, sizeof(line), "evidence: %s = %s (threshold %s)%s",
				 s->metric, v, t, worst);
		else	/* a rule that fires at any value has no threshold to show */
			snprintf(line, sizeof(line), "evidence: %s = %s%s", s->metric, v, worst);
		wrap(f, line, "     ", w);
		if (s->impact_ns >= 0) {
			at_stake(stake, sizeof(stake), s);
			snprintf(line, sizeof(line), "at stake: %s of the wall time; estimate: %s",
				 stake, s->impact_basis ? s->impact_basis : "?");
			wrap(f, line, "     ", w);
		}
	}
}
