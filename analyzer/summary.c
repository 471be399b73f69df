/* summary: see summary.h. */
#include "summary.h"

#include <math.h>
#include <string.h>

#include "term.h"

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

static void fmt_bytes(char *out, size_t n, int64_t b)
{
	if (b < 10000)
		snprintf(out, n, "%lld B", (long long)b);
	else if (b < 10000000)
		snprintf(out, n, "%lld kB", (long long)(b / 1000));
	else
		snprintf(out, n, "%.1f GB", (double)b / 1e9);
}

static void gpu_lines(FILE *f, const struct report_rank *rk, size_t top)
{
	const struct report_gpu *g = &rk->gpu;
	char busy[32], span[32], ktime[32], comm[32], t[32], b1[32], b2[32], cap[32];

	term_fmt_ns(busy, sizeof(busy), g->busy_ns);
	term_fmt_ns(span, sizeof(span), g->active_span_ns);
	term_fmt_ns(ktime, sizeof(ktime), g->kernel_time_ns);
	term_fmt_ns(comm, sizeof(comm), g->comm_ns);
	if (g->kernels || g->active_span_ns)
		fprintf(f, "  gpu      util %.1f%%  busy %s of %s  kernels %lld (%s)\n",
			isnan(g->utilization) ? 0.0 : 100 * g->utilization, busy, span,
			(long long)g->kernels, ktime);
	if (g->comm_ns) {
		fprintf(f, "  comm     %s%s", comm, g->cpu_comm ? " on CPU threads" : "");
		if (!isnan(g->comm_compute_overlap) && !g->cpu_comm)
			fprintf(f, ", %.0f%% overlapped with compute",
				100 * g->comm_compute_overlap);
		if (g->has_wait) {
			term_fmt_ns(t, sizeof(t), g->comm_wait_ns);
			term_fmt_ns(b1, sizeof(b1), g->comm_transfer_ns);
			fprintf(f, "; waiting for other ranks %s, transfer %s", t, b1);
			if (!isnan(g->effective_utilization))
				fprintf(f, "; effective util %.1f%%",
					100 * g->effective_utilization);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < rk->nr_memory; i++) {
		const struct report_memory *m = &rk->memory[i];

		fmt_bytes(b1, sizeof(b1), m->peak_allocated);
		fmt_bytes(b2, sizeof(b2), m->peak_reserved);
		if (m->device < 0)
			fputs("  memory   cpu", f);
		else
			fprintf(f, "  memory   device %lld", (long long)m->device);
		fprintf(f, ": peak %s allocated, %s reserved", b1, b2);
		if (m->capacity > 0) {
			fmt_bytes(cap, sizeof(cap), m->capacity);
			fprintf(f, " of %s", cap);
		}
		fputc('\n', f);
	}
	if (!rk->nr_kernels || !top)
		return;
	fprintf(f, "  %-6s %10s %7s %10s  %-11s %s\n", "share", "total", "count", "avg",
		"category", "kernel");
	for (size_t i = 0; i < rk->nr_kernels && i < top; i++) {
		const struct report_kernel *k = &rk->kernels[i];
		char avg[32];

		term_fmt_ns(t, sizeof(t), k->d.total_ns);
		term_fmt_ns(avg, sizeof(avg), (int64_t)k->d.avg_ns);
		fprintf(f, "  %5.1f%% %10s %7lld %10s  %-11s ", 100 * k->share, t,
			(long long)k->d.count, avg, k->category);
		/* Templated names run to thousands of bytes: the start tells. */
		for (size_t c = 0; k->name[c] && c < 60; c++)
			fputc((unsigned char)k->name[c] < 0x20 || k->name[c] == 0x7f ? '?' :
			      k->name[c], f);
		fputc('\n', f);
	}
}

/* One line per metric: min / median / max with the ranks holding them. */
static void cross_rank_lines(FILE *f, const struct report *rep, const char *bold,
			     const char *off)
{
	static const char *const shown[] = {
		"span_ns", "gpu.utilization", "gpu.effective_utilization", "gpu.busy_ns",
		"gpu.comm_ns", "gpu.comm_wait_ns", "gpu.kernel_time_ns", "steps.median_ns",
	};

	if (rep->nr_ranks < 2)
		return;
	fprintf(f, "%scross-rank%s (%zu ranks)   %-12s %-20s %-12s\n", bold, off, rep->nr_ranks,
		"min", "median", "max");
	for (size_t m = 0; m < sizeof(shown) / sizeof(shown[0]); m++) {
		for (size_t i = 0; i < rep->nr_cross_rank; i++) {
			const struct report_stat *st = &rep->cross_rank[i];
			char lo[32], mid[32], hi[32];

			if (strcmp(st->metric, shown[m]) || st->max == 0)
				continue;
			if (strstr(st->metric, "_ns")) {
				term_fmt_ns(lo, sizeof(lo), (int64_t)st->min);
				term_fmt_ns(mid, sizeof(mid), (int64_t)st->median);
				term_fmt_ns(hi, sizeof(hi), (int64_t)st->max);
			} else {
				snprintf(lo, sizeof(lo), "%.3f", st->min);
				snprintf(mid, sizeof(mid), "%.3f", st->median);
				snprintf(hi, sizeof(hi), "%.3f", st->max);
			}
			fprintf(f, "  %-26s %10s r%-4lld %10s  %10s r%lld\n", st->metric, lo,
				(long long)st->min_rank, mid, hi, (long long)st->max_rank);
		}
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
		fprintf(f, "  %.2f blocks/s", t->bps);
	if (t->has_first_block) {
		term_fmt_ns(a, sizeof(a), t->first_block_ns);
		fprintf(f, ", first after %s", a);
	}
	if (t->has_cadence) {
		term_fmt_ns(a, sizeof(a), t->cadence.median_ns);
		term_fmt_ns(b, sizeof(b), t->cadence.p90_ns);
		term_fmt_ns(c, sizeof(c), t->cadence.max_ns);
		fprintf(f, ", one every %s (p90 %s, max %s)", a, b, c);
	}
	if (!isnan(t->streaming_fps))
		fprintf(f, "  streaming %.2f fps", t->streaming_fps);
	if (t->target_fps > 0 && !isnan(t->streaming_realtime_factor))
		fprintf(f, " (%.2fx real time)", t->streaming_realtime_factor);
	fputc('\n', f);
}

static void phase_lines(FILE *f, const struct report_rank *rk)
{
	const struct report_steps *st = &rk->steps;
	const struct report_throughput *t = &rk->throughput;
	char a[32], b[32], c[32];
	size_t shown = 0;

	if (st->nr_durations) {
		term_fmt_ns(a, sizeof(a), (int64_t)st->d.median_ns);
		term_fmt_ns(b, sizeof(b), st->d.min_ns);
		term_fmt_ns(c, sizeof(c), st->d.max_ns);
		fprintf(f, "  steps    %zu x median %s (min %s, max %s)  ", st->nr_durations, a, b, c);
		term_put_safe(f, st->pattern);
		fputs(st->warmup ? ", first left out as warm-up\n" : "\n", f);
	}
	term_fmt_ns(a, sizeof(a), t->wall_ns);
	fprintf(f, "  wall     %s, %zu generation%s", a, t->nr_generations,
		t->nr_generations == 1 ? "" : "s");
	if (!isnan(t->fps))
		fprintf(f, "  %.2f fps (%lld frames)", t->fps, (long long)t->frames);
	if (t->target_fps > 0 && !isnan(t->realtime_factor))
		fprintf(f, "  %.2fx real time at %g fps%s", t->realtime_factor, t->target_fps,
			t->realtime_factor >= 1 ? "" : ": cannot stream");
	fputc('\n', f);
	block_line(f, t);
	for (size_t i = 0; i < rk->nr_phases && shown < 12; i++) {
		const struct report_phase *ph = &rk->phases[i];

		if (ph->depth > 2)
			continue;
		term_fmt_ns(a, sizeof(a), ph->d.total_ns);
		fprintf(f, "  %5.1f%% %10s %6lld  %*s", 100 * ph->share, a, (long long)ph->d.count,
			2 * ph->depth, "");
		term_put_safe(f, ph->name);
		fputc('\n', f);
		shown++;
	}
}

/* Many ranks: one line each, the details are in report.json. */
static void rank_line(FILE *f, const struct report_rank *rk)
{
	char span[32], comm[32], step[32];

	term_fmt_ns(span, sizeof(span), rk->span_ns);
	term_fmt_ns(comm, sizeof(comm), rk->gpu.comm_ns);
	term_fmt_ns(step, sizeof(step), (int64_t)rk->steps.d.median_ns);
	fprintf(f, "  rank %-5lld span %10s  util %5.1f%%  comm %10s  step %10s%s\n",
		(long long)rk->rank, span,
		isnan(rk->gpu.utilization) ? 0.0 : 100 * rk->gpu.utilization, comm,
		rk->steps.d.count ? step : "-", rk->complete ? "" : "  (incomplete)");
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

		term_fmt_ns(span, sizeof(span), rk->span_ns);
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
		for (size_t w = 0; w < rk->nr_warnings; w++) {
			fprintf(f, "  %swarning%s ", yellow, off);
			term_put_safe(f, rk->warnings[w]);
			fputc('\n', f);
		}
	}
	cross_rank_lines(f, rep, bold, off);
	term_suggestions(f, rep, bold, off);
}
