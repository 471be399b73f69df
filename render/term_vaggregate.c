/* summary: see summary.h. */
#include "term_vaggregate.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ranges.h"
#include "shorten.h"
#include "term.h"

/*
 * The numbers of a row take 72 columns (50 where avg and stddev are left
 * out: narrower than NARROW, so that the metric's words still read at 80).
 */
#define NARROW 100

/* min, max, avg, median, stddev of a metric, each in its unit (metric_fmt()), then name. */
static void stat_row(FILE *f, const struct report_stat *st, const char *name, int narrow)
{
	enum metric_unit u = metric_unit_of(st->metric);

	fputs("  ", f);
	term_value(f, st->min, u, 0, 10);
	fprintf(f, " r%-5lld ", (long long)st->min_rank);
	term_value(f, st->max, u, 0, 10);
	fprintf(f, " r%-5lld ", (long long)st->max_rank);
	if (!narrow) {
		term_value(f, st->avg, u, 0, 10);
		fputc(' ', f);
	}
	term_value(f, st->median, u, 0, 10);
	if (!narrow) {
		fputc(' ', f);
		term_value(f, st->stddev, u, 0, 10);
	}
	fputs("  ", f);
	tsafe_put(f, name);
	fputc('\n', f);
}

/* A phase metric for a root or its children: the rows worth a terminal line. */
static int shallow_phase(const char *metric)
{
	const char *slash = strchr(metric, '/');

	return !slash || !strchr(slash + 1, '/');
}

/* 1 when cross-rank statistic st gets a line; counts the phases shown and hidden. */
static int row_shown(const struct report_stat *st, size_t *phases, size_t *hidden)
{
	/* A metric that is zero everywhere says nothing here (it is in the report). */
	if (st->count == 0 || (st->min == 0 && st->max == 0))
		return 0;
	if (!strncmp(st->metric, "phase:", 6)) {
		if (!shallow_phase(st->metric) || *phases == SUMMARY_MAX_PHASES) {
			(*hidden)++;
			return 0;
		}
		(*phases)++;
	}
	return 1;
}

/*
 * A child phase's label ("phase ProfilerStep#*\/## backward ##, total") too
 * long for cols columns keeps its own name and lets its parent go ("phase
 * …\/## backward ##, total"), rather than being cut in the middle where the
 * children of one parent differ: in place (the result is never longer).
 */
static void child_label(char *l, size_t cols)
{
	char *slash;

	if (strncmp(l, "phase ", 6) || shorten_cols(l) <= cols || !(slash = strrchr(l, '/')))
		return;
	memcpy(l + 6, "\xe2\x80\xa6", 3);
	memmove(l + 9, slash, strlen(slash) + 1);
}

static void stats_lines(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	int w = term_width(f), narrow = w < NARROW;
	/* the words of each metric (metric_label_of()), cut together to what is left of a line */
	size_t phases = 0, hidden = 0, n = 0, k = 0;
	size_t cols = (size_t)(w - (narrow ? 50 : 72) < 16 ? 16 : w - (narrow ? 50 : 72));
	const char **labels = calloc(rep->nr_cross_rank ? rep->nr_cross_rank : 1, sizeof(*labels));
	char *names = malloc((rep->nr_cross_rank ? rep->nr_cross_rank : 1) * SHORTEN_CAP(cols));

	if (!rep->nr_cross_rank || !labels || !names)
		goto out;
	for (size_t i = 0; i < rep->nr_cross_rank; i++) {
		const struct report_stat *st = &rep->cross_rank[i];
		size_t len = strlen(st->metric) + 32;
		char *l;

		if (!row_shown(st, &phases, &hidden))
			continue;
		if (!(l = malloc(len)))
			goto out;
		labels[n++] = metric_label_of(l, len, st->metric);
		child_label(l, cols);
	}
	shorten_set(names, SHORTEN_CAP(cols), labels, n, cols);
	if (narrow)
		fprintf(f, "%s%12s %-6s %10s %-6s %10s  %s%s\n", bold, "min", "rank", "max", "rank",
			"median", "metric", off);
	else
		fprintf(f, "%s%12s %-6s %10s %-6s %10s %10s %10s  %s%s\n", bold, "min", "rank",
			"max", "rank", "avg", "median", "stddev", "metric", off);
	phases = hidden = 0;
	for (size_t i = 0; i < rep->nr_cross_rank; i++)
		if (row_shown(&rep->cross_rank[i], &phases, &hidden))
			stat_row(f, &rep->cross_rank[i], names + k++ * SHORTEN_CAP(cols), narrow);
	if (hidden)
		fprintf(f, "  (%zu deeper or further phase metrics are in the report's "
			"cross_rank)\n", hidden);
	if (narrow)
		fputs("  (avg and stddev at 100 columns or more)\n", f);
out:
	if (rep->nr_cross_rank && (!labels || !names || k < n))
		log_stdout_lost();	/* the rows memory ran out for */
	for (size_t i = 0; labels && i < n; i++)
		free((char *)labels[i]);
	free(labels);
	free(names);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* rank numbers as ranges; v is sorted in place */
static const char *ranks_text(struct ranges *r, int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		ranges_add(r, v[i]);
	return ranges_str(r);
}

/* How bad a straggler is, to pick the worst: the wait it imposes, else its excess. */
static double badness(const struct report_straggler *s)
{
	return s->by_wait ? (double)s->wait_imposed_ns : s->excess < 0 ? -s->excess : s->excess;
}

static int cmp_worse(const void *a, const void *b)
{
	double x = badness(a), y = badness(b);

	return x > y ? -1 : x < y;
}

/* Many stragglers: their ranks as ranges, then the worst few as term_stragglers() says them. */
static void stragglers_grouped(FILE *f, const struct report *rep, const char *bold,
			       const char *off)
{
	struct report view = *rep;
	struct report_straggler *worst = malloc(rep->nr_stragglers * sizeof(*worst));
	int64_t *nums = malloc((rep->nr_stragglers + rep->nr_incomplete_ranks + 1) *
			       sizeof(*nums));
	struct ranges r;

	if (!worst || !nums) {
		free(worst);
		free(nums);
		term_stragglers(f, rep, bold, off);
		return;
	}
	memcpy(worst, rep->stragglers, rep->nr_stragglers * sizeof(*worst));
	qsort(worst, rep->nr_stragglers, sizeof(*worst), cmp_worse);
	view.stragglers = worst;
	view.nr_stragglers = SUMMARY_WORST;
	view.nr_incomplete_ranks = 0;
	term_stragglers(f, &view, bold, off);
	for (size_t i = 0; i < rep->nr_stragglers; i++)
		nums[i] = rep->stragglers[i].rank;
	ranges_init(&r);
	fprintf(f, "  %zu stragglers in all (the %d worst above): ranks %s\n", rep->nr_stragglers,
		SUMMARY_WORST, ranks_text(&r, nums, rep->nr_stragglers));
	ranges_release(&r);
	if (rep->nr_incomplete_ranks) {
		memcpy(nums, rep->incomplete_ranks, rep->nr_incomplete_ranks * sizeof(*nums));
		ranges_init(&r);
		fprintf(f, "  incomplete traces, never named: %s\n",
			ranks_text(&r, nums, rep->nr_incomplete_ranks));
		ranges_release(&r);
	}
	free(worst);
	free(nums);
}

void term_vaggregate(FILE *f, const struct report *rep, const struct merge_stats *st, int details)
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
		fprintf(f, ", %zu file%s skipped", st->skipped, st->skipped == 1 ? "" : "s");
	if (st->other)
		fprintf(f, ", %zu other JSON files passed over", st->other);
	fputc('\n', f);
	term_run_line(f, rep, bold, off, term_width(f), 0);
	stats_lines(f, rep, bold, off);
	if (rep->nr_stragglers > SUMMARY_MAX_LIST)
		stragglers_grouped(f, rep, bold, off);
	else
		term_stragglers(f, rep, bold, off);
	term_suggestions(f, rep, bold, off, details);	/* one finding per rule already */
}
