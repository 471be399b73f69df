/* summary: see summary.h. */
#include "summary.h"

#include <stdlib.h>
#include <unistd.h>

static int use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

/* A duration in the unit that keeps 3-4 significant digits. */
static void fmt_ns(char *out, size_t n, int64_t ns)
{
	double v = (double)ns;

	if (ns < 10000)
		snprintf(out, n, "%lld ns", (long long)ns);
	else if (ns < 10000000)
		snprintf(out, n, "%.2f us", v / 1e3);
	else if (ns < 10000000000LL)
		snprintf(out, n, "%.2f ms", v / 1e6);
	else
		snprintf(out, n, "%.3f s", v / 1e9);
}

/* Trace strings may hold escape sequences: show control bytes as '?'. */
static void put_safe(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void counts(FILE *f, const char *label, const struct report_count *c, size_t n)
{
	fprintf(f, "  %-8s", label);
	if (!n)
		fputs(" -", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : " ", f);
		put_safe(f, c[i].key);
		fprintf(f, "=%lld", (long long)c[i].n);
	}
	fputc('\n', f);
}

void summary_print(FILE *f, const struct report *rep)
{
	int color = use_color(f);
	const char *bold = color ? "\033[1m" : "", *yellow = color ? "\033[33m" : "",
		   *off = color ? "\033[0m" : "";

	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];
		char span[32];

		fmt_ns(span, sizeof(span), rk->span_ns);
		fprintf(f, "%srank %lld%s  ", bold, (long long)rk->rank, off);
		put_safe(f, rk->source);
		fprintf(f, "  %s%s\n", rk->format, rk->complete ? "" : "  (incomplete)");
		fprintf(f, "  events   %lld   span %s\n", (long long)rk->events_total, span);
		counts(f, "by ph", rk->by_ph, rk->nr_by_ph);
		counts(f, "by cat", rk->by_cat, rk->nr_by_cat);
		for (size_t w = 0; w < rk->nr_warnings; w++) {
			fprintf(f, "  %swarning%s ", yellow, off);
			put_safe(f, rk->warnings[w]);
			fputc('\n', f);
		}
	}
}
