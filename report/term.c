/* term: see term.h. */
#include "term.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suggest.h"

int term_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

/* A duration in the unit that keeps 3-4 significant digits. */
void term_fmt_ns(char *out, size_t n, int64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(out, n, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(out, n, "%.2f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(out, n, "%.2f ms", v / 1e6);
	else
		snprintf(out, n, "%.3f s", v / 1e9);
}

void term_put_safe(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
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

/* "NAME" or "NAME (group G)", control bytes as '?'. */
static void put_collective(FILE *f, const char *group, const char *name)
{
	term_put_safe(f, name);
	if (group) {
		fputs(" (group ", f);
		term_put_safe(f, group);
		fputc(')', f);
	}
}

void term_stragglers(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	int wait = rep->straggler_rule && !strcmp(rep->straggler_rule, "collectives");
	char a[32], b[32];

	if (rep->nr_ranks < 2)
		return;
	fprintf(f, "%sstragglers%s (%s)%s\n", bold, off,
		wait ? "the ranks the others wait for at collectives" :
		rep->straggler_rule ? "no collectives matched: step rule" : "no rule applies",
		rep->nr_stragglers ? "" : ": none");
	for (size_t i = 0; i < rep->nr_stragglers; i++) {
		const struct report_straggler *sg = &rep->stragglers[i];

		if (!sg->by_wait) {
			fprintf(f, "  rank %lld: %s %+.0f%% against the median%s\n",
				(long long)sg->rank, sg->metric, 100 * sg->excess,
				sg->excess < 0 ? " (the others wait for it)" : "");
			continue;
		}
		term_fmt_ns(a, sizeof(a), sg->wait_imposed_ns);
		term_fmt_ns(b, sizeof(b), sg->delays_wait_ns);
		fprintf(f, "  rank %lld holds the others back: it arrives last at %.0f%% of its "
			"collectives and the other ranks wait %s for it in all, most at ",
			(long long)sg->rank, 100 * sg->last_share, a);
		put_collective(f, sg->delays_group, sg->delays_name);
		fprintf(f, " (%s)\n", b);
	}
	if (wait && rep->nr_stragglers) {
		/* the ranks that wait most are the victims: say so, since their steps look slow */
		const struct report_rank *w = NULL;

		for (size_t i = 0; i < rep->nr_ranks; i++) {
			const struct report_rank *rk = &rep->ranks[i];

			if (rk->gpu.has_wait && (!w || rk->gpu.comm_wait_ns > w->gpu.comm_wait_ns))
				w = rk;
		}
		if (w && w->gpu.comm_wait_ns > 0) {
			term_fmt_ns(a, sizeof(a), w->gpu.comm_wait_ns);
			fprintf(f, "  the other ranks wait for %s: rank %lld waits most (%s inside "
				"collectives), which shows as busy GPU time and long steps there\n",
				rep->nr_stragglers > 1 ? "them" : "it", (long long)w->rank, a);
		}
	}
	if (rep->nr_incomplete_ranks) {
		fputs("  incomplete traces, never named:", f);
		for (size_t i = 0; i < rep->nr_incomplete_ranks; i++)
			fprintf(f, " %lld", (long long)rep->incomplete_ranks[i]);
		fputc('\n', f);
	}
}
