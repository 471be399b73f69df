/* summary: see summary.h. */
#include "summary.h"

#include <math.h>
#include <string.h>

#include "metric.h"
#include "term.h"

/* x in unit u, as every output shows it (metric_fmt()); 32 bytes suffice. */
static const char *fmt(char *out, double x, enum metric_unit u)
{
	return metric_fmt(out, 32, x, u, 0);
}

/* Shorthands for the units this summary prints most. */
static void fmt_ns(char *out, size_t n, double ns)
{
	metric_fmt(out, n, ns, UNIT_NS, 0);
}

static void counts(FILE *f, const char *label, const struct report_count *c, size_t n)
{
	fprintf(f, "  %-8s", label);
	if (!n)
		fputs(" -", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : " ", f);
		term_put_safe(f, c[i].key);
		fprintf(f, "=%lld", (long long)c[i].n);
	}
	fputc('\n', f);
}

static void gpu_lines(FILE *f, const struct report_rank *rk, size_t top)
{
	const struct report_gpu *g = &rk->gpu;
	char busy[32], span[32], ktime[32], comm[32], t[32], b1[32], b2[32], cap[32], pct[32];

	fmt_ns(busy, sizeof(busy), g->busy_ns);
	fmt_ns(span, sizeof(span), g->active_span_ns);
	fmt_ns(ktime, sizeof(ktime), g->kernel_time_ns);
	fmt_ns(comm, sizeof(comm), g->comm_ns);
	if (g->kernels || g->active_span_ns)
		fprintf(f, "  gpu      util %s  busy %s of %s  kernels %lld (%s)\n",
			fmt(pct, g->utilization, UNIT_RATIO), busy, span, (long long)g->kernels,
			ktime);
	if (g->comm_ns) {
		fprintf(f, "  comm     %s%s", comm, g->cpu_comm ? " on CPU threads" : "");
		if (!isnan(g->comm_compute_overlap) && !g->cpu_comm)
			fprintf(f, ", %s overlapped with compute",
				fmt(pct, g->comm_compute_overlap, UNIT_RATIO));
		if (g->has_wait) {
			fmt_ns(t, sizeof(t), (double)g->comm_wait_ns);
			fmt_ns(b1, sizeof(b1), (double)g->comm_transfer_ns);
			fprintf(f, "; waiting for other ranks %s, transfer %s", t, b1);
			if (!isnan(g->effective_utilization))
				fprintf(f, "; effective util %s",
					fmt(pct, g->effective_utilization, UNIT_RATIO));
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < rk->nr_memory; i++) {
		const struct report_memory *m = &rk->memory[i];

		fmt(b1, (double)m->peak_allocated, UNIT_BYTES);
		fmt(b2, (double)m->peak_reserved, UNIT_BYTES);
		if (m->device < 0)
			fputs("  memory   cpu", f);
		else
			fprintf(f, "  memory   device %lld", (long long)m->device);
		fprintf(f, ": peak %s allocated, %s reserved", b1, b2);
		if (m->capacity > 0) {
			fmt(cap, (double)m->capacity, UNIT_BYTES);
			fprintf(f, " of %s", cap);
		}
		fputc('\n', f);
	}
	if (!rk->nr_kernels || !top)
		return;
	fprintf(f, "  %7s %10s %7s %10s  %-11s %s\n", "share", "total", "count", "avg",
		"category", "kernel");
	for (size_t i = 0; i < rk->nr_kernels && i < top; i++) {
		const struct report_kernel *k = &rk->kernels[i];
		char avg[32];

		fmt_ns(t, sizeof(t), (double)k->d.total_ns);
		fmt_ns(avg, sizeof(avg), k->d.avg_ns);
		fputs("  ", f);
		term_value(f, k->share, UNIT_RATIO, 0, 7);
		fputc(' ', f);
		term_value(f, (double)k->d.total_ns, UNIT_NS, 0, 10);
		fprintf(f, " %7lld ", (long long)k->d.count);
		term_value(f, k->d.avg_ns, UNIT_NS, 0, 10);
		fprintf(f, "  %-11s ", k->category);
		/* Templated names run to thousands of bytes: the start tells. */
		term_putn_safe(f, k->name, 60);
		fputc('\n', f);
	}
}

/*
 * One line per metric of the catalogue marked MF_TERM: min / median / max
 * with the ranks holding them.
 */
static void cross_rank_lines(FILE *f, const struct report *rep, const char *bold,
			     const char *off)
{
	if (rep->nr_ranks < 2)
		return;
	fprintf(f, "%scross-rank%s (%zu ranks)       %-12s %-20s %-12s\n", bold, off, rep->nr_ranks,
		"min", "median", "max");
	for (size_t i = 0; i < rep->nr_cross_rank; i++) {
		const struct report_stat *st = &rep->cross_rank[i];
		const struct metric_def *d = metric_find(st->metric);

		if (!d || !(d->flags & MF_TERM) || st->max == 0)
			continue;
		fprintf(f, "  %-26s ", st->metric);
		term_value(f, st->min, d->unit, 0, 10);
		fprintf(f, " r%-4lld ", (long long)st->min_rank);
		term_value(f, st->median, d->unit, 0, 10);
		fputs("  ", f);
		term_value(f, st->max, d->unit, 0, 10);
		fprintf(f, " r%lld\n", (long long)st->max_rank);
	}
	term_stragglers(f, rep, bold, off);
}

/* Blocks, BPS and cadence: no line at all for a trace without blocks. */
static void block_line(FILE *f, const struct report_throughput *t)
{
	char a[32], b[32], c[32];

	if (t->blocks < 0)
		return;
	fprintf(f, "  blocks   %lld", (long long)t->blocks);
	if (!isnan(t->bps))
		fprintf(f, "  %s blocks/s", fmt(a, t->bps, UNIT_NUMBER));
	if (t->has_first_block) {
		fmt_ns(a, sizeof(a), (double)t->first_block_ns);
		fprintf(f, ", first after %s", a);
	}
	if (t->has_cadence) {
		fmt_ns(a, sizeof(a), (double)t->cadence.median_ns);
		fmt_ns(b, sizeof(b), (double)t->cadence.p90_ns);
		fmt_ns(c, sizeof(c), (double)t->cadence.max_ns);
		fprintf(f, ", one every %s (p90 %s, max %s)", a, b, c);
	}
	if (!isnan(t->streaming_fps))
		fprintf(f, "  streaming %s fps", fmt(a, t->streaming_fps, UNIT_NUMBER));
	if (t->target_fps > 0 && !isnan(t->streaming_realtime_factor))
		fprintf(f, " (%s real time)", fmt(a, t->streaming_realtime_factor, UNIT_FACTOR));
	fputc('\n', f);
}

static void phase_lines(FILE *f, const struct report_rank *rk)
{
	const struct report_steps *st = &rk->steps;
	const struct report_throughput *t = &rk->throughput;
	char a[32], b[32], c[32];
	size_t shown = 0;

	if (st->nr_durations) {
		fmt_ns(a, sizeof(a), st->d.median_ns);
		fmt_ns(b, sizeof(b), (double)st->d.min_ns);
		fmt_ns(c, sizeof(c), (double)st->d.max_ns);
		fprintf(f, "  steps    %zu x median %s (min %s, max %s)  ", st->nr_durations, a, b, c);
		term_put_safe(f, st->pattern);
		fputs(st->warmup ? ", first left out as warm-up\n" : "\n", f);
	}
	fmt_ns(a, sizeof(a), (double)t->wall_ns);
	fprintf(f, "  wall     %s, %zu generation%s", a, t->nr_generations,
		t->nr_generations == 1 ? "" : "s");
	if (!isnan(t->fps))
		fprintf(f, "  %s fps (%lld frames)", fmt(b, t->fps, UNIT_NUMBER),
			(long long)t->frames);
	if (t->target_fps > 0 && !isnan(t->realtime_factor))
		fprintf(f, "  %s real time at %s fps%s", fmt(a, t->realtime_factor, UNIT_FACTOR),
			fmt(b, t->target_fps, UNIT_NUMBER),
			t->realtime_factor >= 1 ? "" : ": cannot stream");
	fputc('\n', f);
	block_line(f, t);
	for (size_t i = 0; i < rk->nr_phases && shown < 12; i++) {
		const struct report_phase *ph = &rk->phases[i];

		if (ph->depth > 2)
			continue;
		fputs("  ", f);
		term_value(f, ph->share, UNIT_RATIO, 0, 7);
		fputc(' ', f);
		term_value(f, (double)ph->d.total_ns, UNIT_NS, 0, 10);
		fprintf(f, " %6lld  %*s", (long long)ph->d.count, 2 * ph->depth, "");
		term_put_safe(f, ph->name);
		fputc('\n', f);
		shown++;
	}
}

/*
 * The catalogue's stored scalars marked for the terminal (the newer ones;
 * the lines above write the older ones by hand): one line, when any.
 */
static void stored_lines(FILE *f, const struct report_rank *rk)
{
	const char *sep = "  more    ";

	for (size_t i = 0; i < metric_nr; i++) {
		const struct metric_def *d = &metric_table[i];
		char v[METRIC_FMT_MAX];
		double x;

		if (d->store == STORE_BY_HAND || !(d->flags & MF_TERM) || !metric_value(d, rk, &x))
			continue;
		fprintf(f, "%s %s %s", sep, d->path, metric_fmt(v, sizeof(v), x, d->unit, 0));
		sep = ",";
	}
	if (sep[0] == ',')
		fputc('\n', f);
}

/* Many ranks: one line each, the details are in report.json. */
static void rank_line(FILE *f, const struct report_rank *rk)
{
	fprintf(f, "  rank %-5lld span ", (long long)rk->rank);
	term_value(f, (double)rk->span_ns, UNIT_NS, 0, 10);
	fputs("  util ", f);
	term_value(f, rk->gpu.utilization, UNIT_RATIO, 0, 7);
	fputs("  comm ", f);
	term_value(f, (double)rk->gpu.comm_ns, UNIT_NS, 0, 10);
	fputs("  step ", f);
	term_value(f, rk->steps.d.count ? rk->steps.d.median_ns : NAN, UNIT_NS, 0, 10);
	fprintf(f, "%s\n", rk->complete ? "" : "  (incomplete)");
}

void summary_print(FILE *f, const struct report *rep, size_t top)
{
	int color = term_use_color(f);
	const char *bold = color ? "\033[1m" : "", *yellow = color ? "\033[33m" : "",
		   *off = color ? "\033[0m" : "";

	for (size_t i = 0; i < rep->nr_ranks && rep->nr_ranks > 4; i++)
		rank_line(f, &rep->ranks[i]);
	for (size_t i = 0; i < rep->nr_ranks && rep->nr_ranks <= 4; i++) {
		const struct report_rank *rk = &rep->ranks[i];
		char span[32];

		fmt_ns(span, sizeof(span), (double)rk->span_ns);
		fprintf(f, "%srank %lld%s  ", bold, (long long)rk->rank, off);
		term_put_safe(f, rk->source);
		fprintf(f, "  %s%s\n", rk->format, rk->complete ? "" : "  (incomplete)");
		fprintf(f, "  events   %lld   span %s\n", (long long)rk->events_total, span);
		counts(f, "by ph", rk->by_ph, rk->nr_by_ph);
		counts(f, "by cat", rk->by_cat, rk->nr_by_cat);
		if (rk->has_phases)
			phase_lines(f, rk);
		if (rk->analysed)
			gpu_lines(f, rk, top);
		stored_lines(f, rk);
		for (size_t w = 0; w < rk->nr_warnings; w++) {
			fprintf(f, "  %swarning%s ", yellow, off);
			term_put_safe(f, rk->warnings[w]);
			fputc('\n', f);
		}
	}
	cross_rank_lines(f, rep, bold, off);
	term_suggestions(f, rep, bold, off);
}
