/* summary: see summary.h. */
#include "summary.h"

#include <string.h>

#include "term.h"

/* min, max, avg, median, stddev of a metric, each in its unit (metric_fmt()). */
static void stat_row(FILE *f, const struct report_stat *st)
{
	enum metric_unit u = metric_unit_of(st->metric);

	fputs("  ", f);
	term_value(f, st->min, u, 0, 10);
	fprintf(f, " r%-5lld ", (long long)st->min_rank);
	term_value(f, st->max, u, 0, 10);
	fprintf(f, " r%-5lld ", (long long)st->max_rank);
	term_value(f, st->avg, u, 0, 10);
	fputc(' ', f);
	term_value(f, st->median, u, 0, 10);
	fputc(' ', f);
	term_value(f, st->stddev, u, 0, 10);
	fputs("  ", f);
	term_put_safe(f, st->metric);
	fputc('\n', f);
}

/* A phase metric for a root or its children: the rows worth a terminal line. */
static int shallow_phase(const char *metric)
{
	const char *slash = strchr(metric, '/');

	return !slash || !strchr(slash + 1, '/');
}

static void stats_lines(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	size_t phases = 0, hidden = 0;

	if (!rep->nr_cross_rank)
		return;
	fprintf(f, "%s%12s %-6s %10s %-6s %10s %10s %10s  %s%s\n", bold, "min", "rank", "max",
		"rank", "avg", "median", "stddev", "metric", off);
	for (size_t i = 0; i < rep->nr_cross_rank; i++) {
		const struct report_stat *st = &rep->cross_rank[i];

		/* A metric that is zero everywhere says nothing here (it is in the report). */
		if (st->count == 0 || (st->min == 0 && st->max == 0))
			continue;
		if (!strncmp(st->metric, "phase:", 6)) {
			if (!shallow_phase(st->metric) || phases == SUMMARY_MAX_PHASES) {
				hidden++;
				continue;
			}
			phases++;
		}
		stat_row(f, st);
	}
	if (hidden)
		fprintf(f, "  (%zu deeper or further phase metrics are in the report's "
			"cross_rank)\n", hidden);
}

void summary_print(FILE *f, const struct report *rep, const struct merge_stats *st)
{
	int color = term_use_color(f);
	const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
	size_t incomplete = 0;

	for (size_t i = 0; i < rep->nr_ranks; i++)
		incomplete += !rep->ranks[i].complete;
	fprintf(f, "%s%zu reports, %zu ranks%s", bold, st->reports, rep->nr_ranks, off);
	if (incomplete)
		fprintf(f, ", %zu from incomplete traces", incomplete);
	if (st->duplicates)
		fprintf(f, ", %zu duplicate ranks counted once", st->duplicates);
	if (st->skipped)
		fprintf(f, ", %zu files skipped", st->skipped);
	if (st->other)
		fprintf(f, ", %zu other JSON files passed over", st->other);
	fputc('\n', f);
	stats_lines(f, rep, bold, off);
	term_stragglers(f, rep, bold, off);
	term_suggestions(f, rep, bold, off);
}
