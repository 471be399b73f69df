/*
 * term_perf: see term_perf.h.  Rows of several ranks with the same
 * operator and shape are one line: their device time adds up, and their
 * TFLOP/s is the median of the ranks' medians (a median of calls does not
 * merge).  The peak shown is the first rank's: ranks of one run share a
 * device model.
 */
#include "term_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "sat.h"
#include "shorten.h"
#include "term.h"

struct line {
	const struct report_op_perf *o;	/* the first rank's row */
	int64_t total_ns, count;
	double tflops[64];		/* the ranks' medians, the first 64 */
	size_t n;
};

static int same_row(const struct report_op_perf *a, const struct report_op_perf *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->input_dims, b->input_dims) &&
	       !strcmp(a->input_types, b->input_types) &&
	       !strcmp(a->concrete_inputs, b->concrete_inputs);
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->o->name, y->o->name);
}

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

	for (size_t i = 0; i < rep->nr_ranks && n < 64; i++) {
		const struct report_perf *q = &rep->ranks[i].perf;

		if (rep->ranks[i].analysed && !isnan(q->mfu)) {
			v[n++] = q->mfu;
			p = p ? p : q;
		}
	}
	fprintf(f, "%soperators against the peak%s", bold, off);
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
	fputs("  ", f);
	term_wrap(f, term_text(&l), 28, 4, width);
	buf_release(&l);
}

void term_perf(FILE *f, const struct report *rep, size_t top, int width, const char *bold,
		  const char *off)
{
	size_t nr = 0, n = 0, shapes = 0, device = 0;
	int64_t kernel_ns = 0, modelled_ns = 0;
	struct line *l;
	int cols = width - 46 < 16 ? 16 : width - 46;	/* what the name may take */

	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (!rk->analysed)
			continue;
		nr += rk->nr_ops_perf;
		shapes += rk->perf.has_shapes;
		if (rk->gpu.kernel_time_ns > 0)	/* null without a device */
			kernel_ns = sat_add(kernel_ns, rk->gpu.kernel_time_ns);
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
	if (!top || !(l = calloc(nr ? nr : 1, sizeof(*l))))
		return;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		for (size_t k = 0; rk->analysed && k < rk->nr_ops_perf; k++) {
			const struct report_op_perf *o = &rk->ops_perf[k];
			size_t j = 0;

			if (isnan(o->flops))
				continue;
			while (j < n && !same_row(l[j].o, o))
				j++;	/* rows are few: a search per row is cheap */
			if (j == n)
				l[n++].o = o;
			l[j].total_ns = sat_add(l[j].total_ns, o->total_ns);
			modelled_ns = sat_add(modelled_ns, o->total_ns);
			l[j].count = sat_add(l[j].count, o->count);
			if (l[j].n < 64)
				l[j].tflops[l[j].n++] = o->tflops_median;
		}
	}
	/*
	 * A table of operators holding a sliver of the device time would tell
	 * little and take the room of the findings: it shows from 10 %.
	 */
	if (modelled_ns < kernel_ns / 10)
		n = 0;
	if (n) {
		qsort(l, n, sizeof(*l), cmp_line);
		title(f, rep, width, bold, off);
		fprintf(f, "  %9s %7s %8s %7s %7s  %s\n", "device", "calls", "TFLOP/s", "% peak",
			"bound", "operator, dtype and input dims");
	}
	for (size_t i = 0; i < n && i < top; i++) {
		const struct report_op_perf *o = l[i].o;
		double t = median(l[i].tflops, l[i].n);
		struct buf what;
		char *shown = malloc(SHORTEN_CAP(cols));

		fputs("  ", f);
		term_value(f, (double)l[i].total_ns, UNIT_NS, 0, 9);
		fprintf(f, " %7lld %8.1f ", (long long)l[i].count, t);
		term_value(f, t / o->peak_tflops, UNIT_RATIO, 0, 7);
		fprintf(f, " %7s  ", o->bound ? o->bound : "-");
		buf_init(&what);
		buf_printf(&what, "%s %s %s", o->name, o->dtype ? o->dtype : "?", o->input_dims);
		if (shown)
			tsafe_put(f, shorten(shown, term_text(&what), (size_t)cols));
		fputc('\n', f);
		buf_release(&what);
		free(shown);
	}
	free(l);
}
