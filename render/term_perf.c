/*
 * term_perf: see term_perf.h.  The rows are the roll-up's shapes (an
 * operator and its inputs over the ranks: rollup.h).  The peak shown is
 * the first rank's: ranks of one run share a device model.
 */
#include "term_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metric.h"
#include "shorten.h"
#include "term.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The lower median of v[0..n) (sorted in place); NaN for none. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return v[(n - 1) / 2];
}

/* The title: the run's MFU (the median of the ranks'), wrapped to the width. */
static void title(FILE *f, const struct report *rep, int width, const char *bold,
		  const char *off)
{
	double v[64];
	size_t n = 0;
	const struct report_perf *p = NULL;
	char a[METRIC_FMT_MAX], lo[METRIC_FMT_MAX], hi[METRIC_FMT_MAX];
	struct buf l;

	double cov = NAN;

	for (size_t i = 0; i < rep->nr_ranks && n < 64; i++) {
		const struct report_perf *q = &rep->ranks[i].perf;

		if (!rep->ranks[i].analysed)
			continue;
		if (!isnan(q->flops_coverage) && (isnan(cov) || q->flops_coverage < cov))
			cov = q->flops_coverage;
		if (!isnan(q->mfu)) {
			v[n++] = q->mfu;
			p = p ? p : q;
		}
	}
	fprintf(f, "%soperators against the peak%s", bold, off);
	if (!p && !isnan(cov) && cov < REPORT_MFU_MIN_COVERAGE) {
		/* the FLOPs of a sliver of the work over all of it: no MFU */
		metric_fmt(a, sizeof(a), cov, UNIT_RATIO, 0);
		buf_init(&l);
		buf_printf(&l, "MFU withheld: FLOPs known for %s of the device's compute time "
			   "(MFU needs %.0f%%; doc/perf-model.md)", a,
			   100 * REPORT_MFU_MIN_COVERAGE);
		fputs("  ", f);
		term_wrap(f, term_text(&l), 28, 4, width);
		buf_release(&l);
		return;
	}
	if (!p) {
		fputc('\n', f);
		return;
	}
	metric_fmt(a, sizeof(a), median(v, n), UNIT_RATIO, 0);
	metric_fmt(lo, sizeof(lo), v[0], UNIT_RATIO, 0);
	metric_fmt(hi, sizeof(hi), v[n - 1], UNIT_RATIO, 0);
	buf_init(&l);
	buf_printf(&l, "MFU %s", a);
	if (n > 1)
		buf_printf(&l, " (ranks %s to %s)", lo, hi);
	buf_printf(&l, " of %s's %s %.4g TFLOP/s", p->peak_model, p->dtype, p->peak_tflops);
	if (!isnan(cov)) {
		metric_fmt(a, sizeof(a), cov, UNIT_RATIO, 0);
		buf_printf(&l, "; FLOPs known for %s of the device's compute time", a);
	}
	fputs("  ", f);
	term_wrap(f, term_text(&l), 28, 4, width);
	buf_release(&l);
}

void term_perf(FILE *f, const struct rollup *ru, size_t top, int width, const char *bold,
	       const char *off)
{
	const struct report *rep = ru->rep;
	size_t n = ru->nr_shapes, shapes = 0, device = 0;
	int cols = width - 46 < 16 ? 16 : width - 46;	/* what the name may take */
	char *shown;

	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (!rk->analysed)
			continue;
		shapes += rk->perf.has_shapes;
		device += !rk->gpu.no_device;
	}
	if (!shapes) {
		if (device) {
			fprintf(f, "%sFLOPs%s ", bold, off);
			term_wrap(f, "and MFU need the operators' shapes: profile with "
				  "torch.profiler.profile(record_shapes=True)", 6, 4, width);
		}
		return;
	}
	/*
	 * A table of operators holding a sliver of the device time would tell
	 * little and take the room of the findings: it shows from 10 %.
	 */
	if (!top || !n || ru->modelled_ns < ru->kernel_time_ns / 10)
		return;
	if (!(shown = malloc(SHORTEN_CAP(cols)))) {
		log_stdout_lost();
		return;
	}
	title(f, rep, width, bold, off);
	fprintf(f, "  %9s %7s %8s %7s %7s  %s\n", "device", "calls", "TFLOP/s", "% peak",
		"bound", "operator, dtype and input dims");
	for (size_t i = 0; i < n && i < top; i++) {
		const struct rollup_shape *l = &ru->shapes[i];
		const struct report_op_perf *o = l->first;
		struct buf what;

		fputs("  ", f);
		term_value(f, (double)l->total_ns, UNIT_NS, 0, 9);
		fprintf(f, " %7lld %8.1f ", (long long)l->count, l->tflops);
		term_value(f, l->tflops / o->peak_tflops, UNIT_RATIO, 0, 7);
		fprintf(f, " %7s  ", o->bound ? o->bound : "-");
		buf_init(&what);
		buf_printf(&what, "%s %s %s", o->name, o->dtype ? o->dtype : "?", o->input_dims);
		tsafe_put(f, shorten(shown, term_text(&what), (size_t)cols));
		fputc('\n', f);
		buf_release(&what);
	}
	free(shown);
}
