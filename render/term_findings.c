/*
 * term_findings: the findings in a terminal (term.h, term_suggestions()).
 * The lead is the top three, each wrapped at spaces, never cut: as many
 * of them as fit LEAD_LINES lines (at least one), so that the causes that
 * matter most fit one screen at any width; with details (--details), every
 * finding follows whole, else one line says how many more there are and
 * how to see them.  Text from traces
 * (names inside messages) goes through tsafe_putn().
 */
#include "term.h"

#include <stdlib.h>
#include <string.h>

#define LEAD 3		/* findings in the lead, at most */
#define LEAD_LINES 4	/* the lines they may take, wrapped (the first is shown whole) */

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
	size_t shown;
	int used = 0;

	if (!rep->nr_suggestions) {
		/* said, so that no section does not read as no analysis */
		fprintf(f, "%sfindings%s none: no rule passes its threshold (doc/findings.md)\n",
			bold, off);
		return;
	}
	fprintf(f, "%sfindings%s (%s workload; time at stake of the wall time)\n", bold, off,
		rep->workload ? rep->workload : "unknown");
	for (shown = 0; shown < rep->nr_suggestions && shown < LEAD; shown++) {
		const struct report_suggestion *s = &rep->suggestions[shown];
		int pad, prefix, n;

		at_stake(stake, sizeof(stake), s);
		/* pad by columns, not bytes: µ and the dash are one column each */
		pad = 17 - term_cols(stake, strlen(stake));
		snprintf(line, sizeof(line), "  %zu. %s%*s ", shown + 1, stake, pad > 0 ? pad : 0,
			 "");
		prefix = term_cols(line, strlen(line));
		n = term_wrap_lines(s->message, prefix, 5, w);
		/* fewer findings rather than a longer summary; the first is always shown */
		if (shown && used + n > LEAD_LINES)
			break;
		used += n;
		fputs(line, f);
		term_wrap(f, s->message, prefix, 5, w);
	}
	if (!details) {
		if (rep->nr_suggestions > shown)
			fprintf(f, "  (%zu more; --details shows every finding in full)\n",
				rep->nr_suggestions - shown);
		else
			fputs("  (--details shows the advice and the evidence)\n", f);
		return;
	}
	if (rep->nr_suggestions > shown)
		fprintf(f, "  (%zu more below)\n", rep->nr_suggestions - shown);
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
