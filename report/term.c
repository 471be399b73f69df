/* term: see term.h. */
#include "term.h"

#include <math.h>
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

void term_fmt_ns(char *out, size_t n, int64_t ns)
{
	metric_fmt(out, n, (double)ns, UNIT_NS, 0);
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

void term_thresholds(FILE *f)
{
	fprintf(f, "\nThresholds (--threshold NAME=V):\n");
	for (size_t i = 0; i < suggest_nr_thresholds(); i++) {
		const char *rule;
		const struct suggest_threshold *t = suggest_threshold_at(i, &rule);

		fprintf(f, "  %-18s %-6g %-24s %s\n", t->name, t->def, rule, t->meaning);
	}
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
