/* summary: see summary.h. */
#include "summary.h"

#include <math.h>
#include <string.h>

#include "term.h"

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/*
 * The unit a row is shown in: durations and bytes scaled so that the larger
 * of |min| and |max| stays below 1000 of it, other values bare ("-").
 */
static const char *row_unit(const struct report_stat *st, double *scale)
{
	static const char *const times[] = { "ns", "us", "ms", "s" };
	static const char *const sizes[] = { "B", "kB", "MB", "GB", "TB" };
	double big = fmax(fabs(st->min), fabs(st->max));
	const char *const *units;
	size_t nr, u = 0;

	*scale = 1;
	if (ends_with(st->metric, "_ns")) {
		units = times;
		nr = 4;
	} else if (!strncmp(st->metric, "memory:", 7)) {
		units = sizes;
		nr = 5;
	} else {
		return "-";
	}
	while (u + 1 < nr && big >= 1000 * *scale) {
		*scale *= 1000;
		u++;
	}
	return units[u];
}

static void stat_row(FILE *f, const struct report_stat *st)
{
	double s;
	const char *unit = row_unit(st, &s);
	int digits = strcmp(unit, "-") ? 4 : 6;
	double v[5] = { st->min, st->max, st->avg, st->median, st->stddev };
	char t[5][32];

	for (int i = 0; i < 5; i++)
		snprintf(t[i], sizeof(t[i]), "%.*g", digits, v[i] / s);
	fprintf(f, "  %10s r%-5lld %10s r%-5lld %10s %10s %10s  %-4s ", t[0],
		(long long)st->min_rank, t[1], (long long)st->max_rank, t[2], t[3], t[4], unit);
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
	fprintf(f, "%s%12s %-6s %10s %-6s %10s %10s %10s  %-4s %s%s\n", bold, "min", "rank", "max",
		"rank", "avg", "median", "stddev", "unit", "metric", off);
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
