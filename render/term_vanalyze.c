/*
 * term_vanalyze: see term_vanalyze.h.  The run first (a table of ranks,
 * the phases, kernels and operators summed over them, the stragglers and
 * the first findings), so that eight ranks fit one screen; --ranks adds
 * each rank's own figures.  Trace warnings went to stderr as they were found: they are
 * counted here, not printed again.
 */
#include "term_vanalyze.h"
#include "term_perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metric.h"
#include "rollup.h"
#include "shorten.h"
#include "term.h"

#define PHASES_SHOWN 12		/* rows of the phase table without --all */
#define PHASE_DEPTH_SHOWN 2
#define PHASE_MIN_SHARE 0.01	/* smaller phases are left to --all (and counted) */

struct out {
	FILE *f;
	int width;
	const char *bold, *off;
};

/* x in unit u, as every output shows it (metric_fmt()): "–" when it does not exist. */
static void val(FILE *f, double x, enum metric_unit u, int width)
{
	term_value(f, x, u, 0, width);
}

/* The rank's value of the catalogue metric path, NaN when null. */
static double metric_of(const struct report_rank *rk, const char *path)
{
	const struct metric_def *d = metric_find(path);
	double x;

	return d && metric_value(d, rk, &x) ? x : NAN;
}

static int any_metric(const struct report *rep, const char *path)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (!isnan(metric_of(&rep->ranks[i], path)))
			return 1;
	return 0;
}

/* A name already cut to the columns left on the line, made safe. */
static void put_name(FILE *f, const char *shown)
{
	tsafe_put(f, shown);
	fputc('\n', f);
}

/* ---- the ranks ---------------------------------------------------------- */

struct col {
	const char *head, *path;
	int width;
	int optional;		/* left out where the table would pass the output's width */
};

#define RANK_ROWS 16	/* beyond this many ranks, the table shows the outliers only */
#define RANK_OUTLIERS 12

static const struct report *span_rep;

static int cmp_span(const void *a, const void *b)
{
	const struct report_rank *x = &span_rep->ranks[*(const size_t *)a];
	const struct report_rank *y = &span_rep->ranks[*(const size_t *)b];

	if (x->span_ns != y->span_ns)
		return x->span_ns < y->span_ns ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Beyond RANK_ROWS ranks: the rows to show, why[] saying why each (NULL:
 * not shown): the shortest, median and longest span, the stragglers and the
 * cut-off ranks, at most RANK_OUTLIERS of the last two.  Returns how many.
 */
static size_t outlier_rows(const struct report *rep, const char **why)
{
	size_t n = rep->nr_ranks, *by = malloc(n * sizeof(*by)), shown = 0, extra = 0;

	for (size_t i = 0; i < n; i++)
		why[i] = NULL;
	if (!by)
		return 0;
	for (size_t i = 0; i < n; i++)
		by[i] = i;
	span_rep = rep;
	qsort(by, n, sizeof(*by), cmp_span);
	why[by[0]] = "shortest span";
	why[by[(n - 1) / 2]] = "median span";
	why[by[n - 1]] = "longest span";
	free(by);
	for (size_t i = 0; i < n && extra < RANK_OUTLIERS; i++) {
		if (why[i])
			continue;
		for (size_t k = 0; k < rep->nr_stragglers && !why[i]; k++)
			if (rep->stragglers[k].rank == rep->ranks[i].rank)
				why[i] = "straggler";
		if (!why[i] && !rep->ranks[i].complete)
			why[i] = "cut off";
		extra += why[i] != NULL;
	}
	for (size_t i = 0; i < n; i++)
		shown += why[i] != NULL;
	return shown;
}

/*
 * Which rank each row is: "(rows: the shortest span 54, the median 25, ...;
 * 61 more ranks: --all)".
 */
static void outlier_note(const struct out *o, const struct report *rep, const char **why,
			 size_t shown)
{
	static const char *const roles[] = { "shortest span", "median span", "longest span",
					     "straggler", "cut off" };
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "(rows: ");
	for (size_t r = 0, any = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
		size_t k = 0;

		for (size_t i = 0; i < rep->nr_ranks; i++) {
			if (!why[i] || strcmp(why[i], roles[r]))
				continue;
			buf_printf(&b, "%s%s %lld", k ? ", " : any++ ? "; " : "", k ? "" : roles[r],
				   (long long)rep->ranks[i].rank);
			k++;
		}
	}
	buf_printf(&b, "; %zu more ranks: --all lists every one)", rep->nr_ranks - shown);
	fputs("  ", o->f);
	term_wrap(o->f, term_text(&b), 2, 3, o->width);
	buf_release(&b);
}

/*
 * The rank's warnings but the note that a CPU-only trace has no device
 * activity, which is what such a trace is, not something wrong with it.
 */
static size_t real_warnings(const struct report_rank *rk)
{
	size_t n = 0;

	for (size_t i = 0; i < rk->nr_warnings; i++)
		n += strncmp(rk->warnings[i], "no GPU or NPU activity recognised", 32) != 0;
	return n;
}

/* What a step is in this run: the spans its steps are ("ProfilerStep#*", "denoise_step_*"). */
static void step_note(const struct out *o, const struct report *rep)
{
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (!rk->has_phases || !rk->steps.pattern || !rk->steps.nr_durations)
			continue;
		fputs("  (step: the median ", o->f);
		tsafe_putn(o->f, rk->steps.pattern, 60);
		fputs(" span)\n", o->f);
		return;
	}
}

static void rank_table(const struct out *o, const struct report *rep, int every)
{
	static const struct col all[] = {
		{ "span", MK_SPAN_NS, 9, 0 },
		{ "step", MK_STEPS_MEDIAN_NS, 9, 0 },
		{ "fps", MK_THROUGHPUT_FPS, 8, 0 },
		{ "bps", MK_THROUGHPUT_BPS, 8, 0 },
		{ "util", MK_GPU_UTILIZATION, 7, 0 },
		{ "step.util", MK_GPU_STEP_UTILIZATION, 9, 1 },
		{ "eff.util", MK_GPU_EFFECTIVE_UTILIZATION, 9, 0 },
		{ "comm wait", MK_GPU_COMM_WAIT_NS, 10, 0 },
		{ "comm", MK_GPU_COMM_NS, 9, 0 },
	};
	const struct col *cols[sizeof(all) / sizeof(all[0])];
	const char **why = NULL;	/* beyond RANK_ROWS ranks: the rows shown, and why */
	size_t nc = 0, shown = 0;
	int used, need = 4 + 8;	/* "rank", "  status" */

	for (size_t c = 0; c < sizeof(all) / sizeof(all[0]); c++) {
		/* comm is the fallback of comm wait (one run, no matched collectives) */
		if (!strcmp(all[c].path, MK_GPU_COMM_NS) && any_metric(rep, MK_GPU_COMM_WAIT_NS))
			continue;
		if (c < 2 || any_metric(rep, all[c].path))
			cols[nc++] = &all[c];
	}
	for (size_t c = 0; c < nc; c++)
		need += 1 + cols[c]->width;
	for (size_t c = nc; c-- > 0 && need > o->width;) {
		if (!cols[c]->optional)
			continue;
		need -= 1 + cols[c]->width;
		memmove(&cols[c], &cols[c + 1], (nc - c - 1) * sizeof(*cols));
		nc--;
	}
	used = need - 8;
	if (!every && rep->nr_ranks > RANK_ROWS &&
	    (why = malloc(rep->nr_ranks * sizeof(*why))) != NULL)
		shown = outlier_rows(rep, why);
	fprintf(o->f, "%srank%s", o->bold, o->off);
	for (size_t c = 0; c < nc; c++)
		fprintf(o->f, " %*s", cols[c]->width, cols[c]->head);
	fputs("  status\n", o->f);
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];
		char st[64];

		if (why && !why[i])
			continue;
		fprintf(o->f, "%4lld", (long long)rk->rank);
		for (size_t c = 0; c < nc; c++) {
			const struct metric_def *d = metric_find(cols[c]->path);

			fputc(' ', o->f);
			val(o->f, metric_of(rk, cols[c]->path), d ? d->unit : UNIT_NUMBER,
			    cols[c]->width);
		}
		if (real_warnings(rk))
			snprintf(st, sizeof(st), "%s%zu warning%s", rk->complete ? "" : "cut off, ",
				 real_warnings(rk), real_warnings(rk) == 1 ? "" : "s");
		else
			snprintf(st, sizeof(st), "%s", rk->complete ? "ok" : "cut off");
		fprintf(o->f, "  %.*s\n", o->width - used - 2 > 0 ? o->width - used - 2 : 0, st);
	}
	if (why)
		outlier_note(o, rep, why, shown);
	free(why);
	step_note(o, rep);
}

/* ---- rows summed over the ranks (rollup.h) ------------------------------- */

/* labels[0..n) shortened together to cols columns, SHORTEN_CAP(cols) bytes apart (caller frees). */
static char *short_names(const char **labels, size_t n, int cols)
{
	char *out = malloc((n ? n : 1) * SHORTEN_CAP(cols));

	if (out)
		shorten_set(out, SHORTEN_CAP(cols), labels, n, (size_t)cols);
	else
		log_stdout_lost();	/* the table is left out */
	return out;
}

static const char *over(const struct report *rep, char *buf, size_t n)
{
	if (rep->nr_ranks > 1)
		snprintf(buf, n, " (summed over %zu ranks)", rep->nr_ranks);
	else
		buf[0] = '\0';
	return buf;
}

/* A row of a roll-up's table in --sort's order: its figure, then its total, then its name. */
struct ranked {
	size_t row;
	int64_t key, total;
	const char *name;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Room for n rows of a table; NULL (the table lost, said at exit) when out of memory. */
static struct ranked *ranked_new(size_t n)
{
	struct ranked *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		log_stdout_lost();
	return v;
}

/*
 * The first top of v[0..*n) (filled by the caller) in --sort's order; *n
 * cut to them.  Returns their names shortened together to cols columns
 * (SHORTEN_CAP(cols) bytes apart; caller frees), NULL when there is no row
 * or no memory.
 */
static char *top_rows(struct ranked *v, size_t *n, size_t top, int cols)
{
	const char **labels;
	char *names;

	qsort(v, *n, sizeof(*v), cmp_ranked);
	if (*n > top)
		*n = top;
	if (!*n)
		return NULL;
	if (!(labels = malloc(*n * sizeof(*labels)))) {
		log_stdout_lost();
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		labels[i] = v[i].name;
	names = short_names(labels, *n, cols);
	free(labels);
	return names;
}

/* Phase rows as a tree: each row's parent, and whether it is shown. */
struct phase_node {
	size_t parent;		/* SIZE_MAX: a root */
	int shown;
};

struct sibling_order {
	const struct rollup_phase *const *r;
	const struct phase_node *t;
};

static struct sibling_order sib;

/* The parent's index + 1 (0: a root), so that roots come first. */
static size_t parent_key(size_t i)
{
	return sib.t[i].parent == SIZE_MAX ? 0 : sib.t[i].parent + 1;
}

/* By parent, then by time (largest first), then by path: each row's children together. */
static int cmp_sibling(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct rollup_phase *x = sib.r[i], *y = sib.r[j];

	if (parent_key(i) != parent_key(j))
		return parent_key(i) < parent_key(j) ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp((*(const struct rollup_phase *const *)a)->path,
		      (*(const struct rollup_phase *const *)b)->path);
}

/* The row of r[0..n) (sorted by path) whose path is that of row i less its last name. */
static size_t parent_of(const struct rollup_phase *const *r, size_t n, size_t i)
{
	size_t len = strlen(r[i]->path), name = strlen(r[i]->name), lo = 0, hi = n;

	if (r[i]->depth == 0 || len <= name + 1)
		return SIZE_MAX;
	len -= name + 1;	/* PARENT "/" NAME */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(r[mid]->path, r[i]->path, len);

		if (c < 0 || (c == 0 && strlen(r[mid]->path) < len))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strlen(r[lo]->path) == len && !strncmp(r[lo]->path, r[i]->path, len)
		       ? lo
		       : SIZE_MAX;
}

/*
 * Append the children of row p (SIZE_MAX: the roots) to out[], each
 * followed by its own: kids[0..nk) holds the shown rows by cmp_sibling.
 */
static void walk(const size_t *kids, size_t nk, size_t p, size_t *out, size_t *k)
{
	size_t want = p == SIZE_MAX ? 0 : p + 1, lo = 0, hi = nk;

	while (lo < hi) {	/* the first child of p */
		size_t mid = lo + (hi - lo) / 2;

		if (parent_key(kids[mid]) < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nk && parent_key(kids[lo]) == want; lo++) {
		out[(*k)++] = kids[lo];
		walk(kids, nk, kids[lo], out, k);
	}
}

/* Whether phase a holds at least PHASE_MIN_SHARE of the span. */
static int large(const struct rollup_phase *a, int64_t span)
{
	return span && (double)a->total_ns >= PHASE_MIN_SHARE * (double)span;
}

/*
 * What the phase table leaves to --all, every phase counted whatever its
 * depth: a phase below the depth shown can hold a third of the span (the
 * blocks inside each denoising step), so "each under 1%" is said only when
 * it is true of all of them, and otherwise the largest is named.
 */
static void hidden_line(const struct out *o, const struct rollup *ru,
			const struct rollup_phase *const *r, const size_t *order, size_t nr_shown)
{
	const struct rollup_phase *top = NULL;
	/* capped tables (rollup.h): at least as many as one rank holds */
	size_t big = 0, nr = ru->phases_held > ru->nr_phases ? ru->phases_held : ru->nr_phases;
	char name[SHORTEN_CAP(40)], head[96];
	int len, cols;
	int64_t span = ru->span_ns;

	for (size_t i = 0; i < ru->nr_phases; i++) {
		const struct rollup_phase *a = &ru->phases[i];
		size_t k;

		for (k = 0; k < nr_shown && r[order[k]] != a; k++)
			;
		if (k < nr_shown)
			continue;
		big += large(a, span);
		if (!top || a->total_ns > top->total_ns)
			top = a;
	}
	if (!big) {
		fprintf(o->f, "  %zu more phase%s, each under 1%% of the span (--all)\n",
			nr - nr_shown, nr - nr_shown == 1 ? "" : "s");
		return;
	}
	/* the name gets what the line's width leaves it */
	len = snprintf(head, sizeof(head), "  %zu more phase%s (--all), %zu over 1%% of the span; "
			"the largest ", nr - nr_shown, nr - nr_shown == 1 ? "" : "s", big);
	cols = o->width - len - 8;	/* " 100.0%" */
	cols = cols < 8 ? 8 : cols > 40 ? 40 : cols;
	fputs(head, o->f);
	tsafe_put(o->f, shorten(name, top->name, (size_t)cols));
	fprintf(o->f, " %.1f%%\n", 100.0 * (double)top->total_ns / (double)span);
}

/*
 * Phases to depth 2 as a tree, each level by time, largest first: those
 * of at least PHASE_MIN_SHARE of the span, at most PHASES_SHOWN rows; a
 * line says how many more there are (--all shows every one).
 */
static void phase_table(const struct out *o, const struct rollup *ru, int all)
{
	size_t n = 0, k = 0, nk = 0, nr_shown = 0, nr = ru->nr_phases;
	const struct rollup_phase **r = malloc((nr ? nr : 1) * sizeof(*r));
	struct phase_node *t = NULL;
	size_t *order = NULL, *kids = NULL;
	const char **labels = NULL;
	int64_t span = ru->span_ns;
	char note[64], *names = NULL;
	/* --all: every level indented as deep as it is, so a child reads as one */
	int max_depth = PHASE_DEPTH_SHOWN, cols;

	if (!r) {
		log_stdout_lost();
		return;
	}
	for (size_t i = 0; i < nr; i++)
		if (all || ru->phases[i].depth <= PHASE_DEPTH_SHOWN) {
			r[n++] = &ru->phases[i];
			if (all && ru->phases[i].depth > max_depth)
				max_depth = ru->phases[i].depth;
		}
	/* "  share time count  " then two columns of indent per depth */
	cols = max_depth > o->width ? 12 : o->width - 30 - 2 * max_depth;
	if (cols < 12)
		cols = 12;
	qsort(r, n, sizeof(*r), cmp_path);	/* for parent_of() */
	t = malloc((n ? n : 1) * sizeof(*t));
	order = malloc((n ? n : 1) * sizeof(*order));
	kids = malloc((n ? n : 1) * sizeof(*kids));
	labels = malloc((n ? n : 1) * sizeof(*labels));
	if (!t || !order || !kids || !labels) {
		log_stdout_lost();
		goto out;
	}
	if (!n)
		goto out;
	for (size_t i = 0; i < n; i++)
		t[i] = (struct phase_node){ parent_of(r, n, i), all || large(r[i], span) };
	/* a shown row's ancestors are shown (one pass up from each, stopping at a shown one) */
	for (size_t i = 0; i < n; i++)
		for (size_t p = t[i].parent; t[i].shown && p != SIZE_MAX && !t[p].shown;
		     p = t[p].parent)
			t[p].shown = 1;
	for (size_t i = 0; i < n; i++)
		if (t[i].shown)
			kids[nk++] = i;
	sib = (struct sibling_order){ r, t };
	qsort(kids, nk, sizeof(*kids), cmp_sibling);
	walk(kids, nk, SIZE_MAX, order, &k);
	nr_shown = all || k < PHASES_SHOWN ? k : PHASES_SHOWN;
	for (size_t i = 0; i < nr_shown; i++)
		labels[i] = r[order[i]]->name;
	names = short_names(labels, nr_shown, cols);
	if (names) {
		fprintf(o->f, "%sphases%s%s\n", o->bold, o->off, over(ru->rep, note, sizeof(note)));
		fprintf(o->f, "  %7s %10s %7s  %s\n", "share", "time", "count", "phase");
	}
	for (size_t i = 0; names && i < nr_shown; i++) {
		const struct rollup_phase *a = r[order[i]];
		int depth = a->depth > max_depth ? max_depth : a->depth;

		fputs("  ", o->f);
		val(o->f, a->share, UNIT_RATIO, 7);
		fputc(' ', o->f);
		val(o->f, (double)a->total_ns, UNIT_NS, 10);
		fprintf(o->f, " %7lld  %*s", (long long)a->count, 2 * depth, "");
		put_name(o->f, names + i * SHORTEN_CAP(cols));
	}
	if (names && (nr > nr_shown || ru->phases_held > nr_shown))
		hidden_line(o, ru, r, order, nr_shown);
out:
	free(names);
	free(r);
	free(t);
	free(order);
	free(kids);
	free(labels);
}

static void kernel_table(const struct out *o, const struct rollup *ru, size_t top,
			 enum summary_sort sort)
{
	size_t n = ru->nr_kernels;
	struct ranked *v = ranked_new(n);
	int cols = o->width - 51 < 12 ? 12 : o->width - 51;	/* what the name may take */
	char note[64], *names;

	if (!v)
		return;
	/* a kernel's time is all its own and all on the device: only a count orders otherwise */
	for (size_t i = 0; i < n; i++) {
		const struct rollup_kernel *k = &ru->kernels[i];

		v[i] = (struct ranked){ i, sort == SORT_COUNT ? k->count : k->total_ns, k->total_ns,
					k->name };
	}
	names = top_rows(v, &n, top, cols);
	if (names) {
		fprintf(o->f, "%skernels%s%s\n", o->bold, o->off,
			over(ru->rep, note, sizeof(note)));
		fprintf(o->f, "  %7s %9s %7s %9s  %-11s %s\n", "share", "time", "count", "avg",
			"category", "kernel");
	}
	for (size_t i = 0; names && i < n; i++) {
		const struct rollup_kernel *a = &ru->kernels[v[i].row];

		fputs("  ", o->f);
		val(o->f, a->share, UNIT_RATIO, 7);
		fputc(' ', o->f);
		val(o->f, (double)a->total_ns, UNIT_NS, 9);
		fprintf(o->f, " %7lld ", (long long)a->count);
		val(o->f, a->avg_ns, UNIT_NS, 9);
		fprintf(o->f, "  %-11s ", a->category);
		put_name(o->f, names + i * SHORTEN_CAP(cols));
	}
	free(names);
	free(v);
}

/* The figure an operator is sorted by (unknown ones, -1, last). */
static int64_t op_key(const struct rollup_op *op, enum summary_sort sort)
{
	switch (sort) {
	case SORT_SELF:
		return op->self_ns;
	case SORT_DEVICE:
		return op->device_ns;
	case SORT_COUNT:
		return op->count;
	default:
		return op->total_ns;
	}
}

/* The operators by CPU time, with the device time they launched. */
static void op_table(const struct out *o, const struct rollup *ru, size_t top,
		     enum summary_sort sort)
{
	size_t n = ru->nr_ops;
	struct ranked *v = ranked_new(n);
	int cols = o->width - 51 < 12 ? 12 : o->width - 51;	/* what the name may take */
	char note[64], *names;

	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ranked){ i, op_key(&ru->ops[i], sort), ru->ops[i].total_ns,
					ru->ops[i].name };
	names = top_rows(v, &n, top, cols);
	if (names) {
		fprintf(o->f, "%soperators%s%s\n", o->bold, o->off,
			over(ru->rep, note, sizeof(note)));
		fprintf(o->f, "  %7s %9s %9s %9s %9s  %s\n", "calls", "cpu", "cpu self", "device",
			"dev self", "operator");
	}
	for (size_t i = 0; names && i < n; i++) {
		const struct rollup_op *a = &ru->ops[v[i].row];
		const int64_t t[] = { a->total_ns, a->self_ns, a->device_ns, a->self_device_ns };

		fprintf(o->f, "  %7lld ", (long long)a->count);
		for (int j = 0; j < 4; j++) {
			val(o->f, t[j] < 0 ? NAN : (double)t[j], UNIT_NS, 9);
			fputc(' ', o->f);
		}
		fputc(' ', o->f);
		put_name(o->f, names + i * SHORTEN_CAP(cols));
	}
	free(names);
	free(v);
}

/* ---- one rank (--ranks) -------------------------------------------------- */

static void counts(FILE *f, const char *label, const struct report_count *c, size_t n, int width)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s=%lld", i ? ", " : "", c[i].key, (long long)c[i].n);
	fprintf(f, "  %-8s ", label);
	term_wrap(f, n ? term_text(&b) : "–", 11, 11, width);
	buf_release(&b);
}

/* Why the device waits in the window (doc/idle.md): the largest causes, at most three. */
static void idle_line(const struct out *o, const struct report_rank *rk)
{
	const struct report_idle *id = &rk->idle;
	char a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], c[METRIC_FMT_MAX];
	int done[IDLE_NR_CAUSES] = { 0 };
	struct buf l;

	if (!id->window || id->in.idle_ns <= 0)
		return;
	buf_init(&l);
	metric_fmt(a, sizeof(a), (double)id->in.idle_ns, UNIT_NS, 0);
	metric_fmt(b, sizeof(b), (double)id->in.window_ns, UNIT_NS, 0);
	buf_printf(&l, "%s of %s %s", a, b,
		   id->window[0] == 's' ? "steady steps" : "trace");
	if (id->window[0] == 's')
		buf_printf(&l, " (step util %s)",
			   metric_fmt(c, sizeof(c), rk->gpu.step_utilization, UNIT_RATIO, 0));
	for (int n = 0; n < 3; n++) {
		int best = -1;

		for (int k = 0; k < IDLE_NR_CAUSES; k++)
			if (!done[k] && id->in.by_cause[k] > 0 &&
			    (best < 0 || id->in.by_cause[k] > id->in.by_cause[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = 1;
		buf_printf(&l, "%s %s %s", n ? "," : ":", idle_cause_key[best],
			   metric_fmt(a, sizeof(a), (double)id->in.by_cause[best], UNIT_NS, 0));
	}
	fputs("  idle     ", o->f);
	term_wrap(o->f, term_text(&l), 11, 11, o->width);
	buf_release(&l);
}

static void gpu_lines(const struct out *o, const struct report_rank *rk)
{
	const struct report_gpu *g = &rk->gpu;
	FILE *f = o->f;
	char a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], c[METRIC_FMT_MAX], d[METRIC_FMT_MAX];

	if (!g->no_device) {
		metric_fmt(a, sizeof(a), metric_of(rk, MK_GPU_UTILIZATION), UNIT_RATIO, 0);
		metric_fmt(b, sizeof(b), (double)g->busy_ns, UNIT_NS, 0);
		metric_fmt(c, sizeof(c), (double)g->active_span_ns, UNIT_NS, 0);
		metric_fmt(d, sizeof(d), (double)g->kernel_time_ns, UNIT_NS, 0);
		fprintf(f, "  gpu      util %s  busy %s of %s active  kernels %lld (%s)\n", a, b, c,
			(long long)g->kernels, d);
	}
	idle_line(o, rk);
	if (!isnan(metric_of(rk, MK_GPU_COMM_NS)) && g->comm_ns) {
		struct buf l;

		buf_init(&l);
		metric_fmt(a, sizeof(a), (double)g->comm_ns, UNIT_NS, 0);
		buf_printf(&l, "%s%s", a, g->cpu_comm ? " on CPU threads" : "");
		if (!isnan(metric_of(rk, MK_GPU_COMM_COMPUTE_OVERLAP)))
			buf_printf(&l, ", %s overlapped with compute",
				   metric_fmt(b, sizeof(b), g->comm_compute_overlap, UNIT_RATIO,
					      0));
		if (g->has_wait) {
			metric_fmt(a, sizeof(a), (double)g->comm_wait_ns, UNIT_NS, 0);
			metric_fmt(b, sizeof(b), (double)g->comm_transfer_ns, UNIT_NS, 0);
			buf_printf(&l, "; waiting for other ranks %s, transfer %s", a, b);
			if (!isnan(g->effective_utilization))
				buf_printf(&l, "; effective util %s",
					   metric_fmt(c, sizeof(c), g->effective_utilization,
						      UNIT_RATIO, 0));
		}
		fputs("  comm     ", f);
		term_wrap(f, term_text(&l), 11, 11, o->width);
		buf_release(&l);
	}
	/* The CPU's [memory] peak is the profiler's own bookkeeping: device memory only. */
	for (size_t i = 0; i < rk->nr_memory; i++) {
		const struct report_memory *m = &rk->memory[i];

		if (m->device < 0)
			continue;
		metric_fmt(a, sizeof(a), (double)m->peak_allocated, UNIT_BYTES, 0);
		metric_fmt(b, sizeof(b), m->peak_reserved == INT64_MIN ? NAN :
			   (double)m->peak_reserved, UNIT_BYTES, 0);
		fprintf(f, "  memory   device %lld: peak %s allocated, %s reserved",
			(long long)m->device, a, b);
		if (m->capacity > 0)
			fprintf(f, " of %s",
				metric_fmt(c, sizeof(c), (double)m->capacity, UNIT_BYTES, 0));
		fputc('\n', f);
	}
}

/* Blocks, BPS and cadence: no line at all for a trace without blocks. */
static void block_line(const struct out *o, const struct report_throughput *t)
{
	char a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], c[METRIC_FMT_MAX];
	struct buf l;

	if (t->blocks < 0)
		return;
	buf_init(&l);
	buf_printf(&l, "%lld", (long long)t->blocks);
	if (!isnan(t->bps))
		buf_printf(&l, "  %s blocks/s", metric_fmt(a, sizeof(a), t->bps, UNIT_NUMBER, 0));
	if (t->first_block_ns != INT64_MIN)
		buf_printf(&l, ", first after %s",
			   metric_fmt(a, sizeof(a), (double)t->first_block_ns, UNIT_NS, 0));
	if (t->has_cadence) {
		metric_fmt(a, sizeof(a), (double)t->cadence.median_ns, UNIT_NS, 0);
		metric_fmt(b, sizeof(b), (double)t->cadence.p90_ns, UNIT_NS, 0);
		metric_fmt(c, sizeof(c), (double)t->cadence.max_ns, UNIT_NS, 0);
		buf_printf(&l, ", one every %s (p90 %s, max %s)", a, b, c);
	}
	if (!isnan(t->streaming_fps))
		buf_printf(&l, "  streaming %s fps",
			   metric_fmt(a, sizeof(a), t->streaming_fps, UNIT_NUMBER, 0));
	if (t->target_fps > 0 && !isnan(t->streaming_realtime_factor))
		buf_printf(&l, " (%s real time)",
			   metric_fmt(a, sizeof(a), t->streaming_realtime_factor, UNIT_FACTOR, 0));
	fputs("  blocks   ", o->f);
	term_wrap(o->f, term_text(&l), 11, 11, o->width);
	buf_release(&l);
}

static void step_lines(const struct out *o, const struct report_rank *rk)
{
	const struct report_steps *st = &rk->steps;
	const struct report_throughput *t = &rk->throughput;
	char a[METRIC_FMT_MAX], b[METRIC_FMT_MAX], c[METRIC_FMT_MAX];
	struct buf l;

	buf_init(&l);
	if (st->nr_durations) {
		metric_fmt(a, sizeof(a), st->d.median_ns, UNIT_NS, 0);
		metric_fmt(b, sizeof(b), (double)st->d.min_ns, UNIT_NS, 0);
		metric_fmt(c, sizeof(c), (double)st->d.max_ns, UNIT_NS, 0);
		buf_printf(&l, "%zu x median %s (min %s, max %s)  %s%s", st->nr_durations, a, b, c,
			   st->pattern, st->warmup ? ", first left out as warm-up" : "");
		fputs("  steps    ", o->f);
		term_wrap(o->f, term_text(&l), 11, 11, o->width);
		buf_reset(&l);
	}
	buf_printf(&l, "%s, %zu generation%s",
		   metric_fmt(a, sizeof(a), (double)t->wall_ns, UNIT_NS, 0), t->nr_generations,
		   t->nr_generations == 1 ? "" : "s");
	if (!isnan(t->fps))
		buf_printf(&l, "  %s fps (%lld frames)",
			   metric_fmt(b, sizeof(b), t->fps, UNIT_NUMBER, 0), (long long)t->frames);
	if (t->target_fps > 0 && !isnan(t->realtime_factor))
		buf_printf(&l, "  %s real time at %s fps%s",
			   metric_fmt(a, sizeof(a), t->realtime_factor, UNIT_FACTOR, 0),
			   metric_fmt(b, sizeof(b), t->target_fps, UNIT_NUMBER, 0),
			   t->realtime_factor >= 1 ? "" : ": cannot stream");
	fputs("  wall     ", o->f);
	term_wrap(o->f, term_text(&l), 11, 11, o->width);
	buf_release(&l);
	block_line(o, t);
}

/*
 * The catalogue's stored scalars marked for the terminal (the newer ones;
 * the lines above write the older ones by hand): one line, when any.
 */
static void stored_lines(const struct out *o, const struct report_rank *rk)
{
	struct buf l;

	buf_init(&l);
	for (size_t i = 0; i < metric_nr; i++) {
		const struct metric_def *d = &metric_table[i];
		char v[METRIC_FMT_MAX];
		double x;

		if (d->store == STORE_BY_HAND || !(d->flags & MF_TERM) || !metric_value(d, rk, &x))
			continue;
		buf_printf(&l, "%s%s %s", l.len ? ", " : "", d->path,
			   metric_fmt(v, sizeof(v), x, d->unit, 0));
	}
	if (l.len) {
		fputs("  more     ", o->f);
		term_wrap(o->f, term_text(&l), 11, 11, o->width);
	}
	buf_release(&l);
}

/* tables: the rank's own phases, kernels and operators (not when it is the whole run). */
static void rank_detail(const struct out *o, const struct report_rank *rk, size_t top, int tables)
{
	struct report one = { 0 };
	struct rollup ru;
	char span[METRIC_FMT_MAX];
	struct buf l;

	buf_init(&l);
	buf_printf(&l, "%s  %s%s", rk->source, rk->format, rk->complete ? "" : "  (cut off)");
	fprintf(o->f, "%srank %lld%s  ", o->bold, (long long)rk->rank, o->off);
	term_wrap(o->f, term_text(&l), 7 + snprintf(NULL, 0, "%lld", (long long)rk->rank), 4,
		  o->width);
	buf_release(&l);
	metric_fmt(span, sizeof(span), (double)rk->span_ns, UNIT_NS, 0);
	fprintf(o->f, "  events   %lld   span %s\n", (long long)rk->events_total, span);
	counts(o->f, "by ph", rk->by_ph, rk->nr_by_ph, o->width);
	counts(o->f, "by cat", rk->by_cat, rk->nr_by_cat, o->width);
	if (rk->has_phases)
		step_lines(o, rk);
	if (rk->analysed)
		gpu_lines(o, rk);
	stored_lines(o, rk);
	if (!tables)
		return;
	/* the tables of the run, for this rank alone */
	one.ranks = (struct report_rank *)rk;
	one.nr_ranks = 1;
	if (rollup_init(&ru, &one)) {
		log_stdout_lost();
		return;
	}
	phase_table(o, &ru, 0);
	kernel_table(o, &ru, top, SORT_TOTAL);
	op_table(o, &ru, top, SORT_TOTAL);
	rollup_release(&ru);
}

/*
 * One line per metric of the catalogue marked MF_TERM: min / median / max
 * with the ranks holding them.
 */
static void cross_rank_lines(const struct out *o, const struct report *rep)
{
	if (rep->nr_ranks < 2)
		return;
	fprintf(o->f, "%scross-rank%s (%zu ranks)%*s %10s %5s %10s %10s %5s\n", o->bold, o->off,
		rep->nr_ranks, 6, "", "min", "", "median", "max", "");
	for (size_t i = 0; i < rep->nr_cross_rank; i++) {
		const struct report_stat *st = &rep->cross_rank[i];
		const struct metric_def *d = metric_find(st->metric);
		char nm[SHORTEN_CAP(26)];

		if (!d || !(d->flags & MF_TERM) || st->max == 0)
			continue;
		fprintf(o->f, "  %-26s ", shorten(nm, st->metric, 26));
		val(o->f, st->min, d->unit, 10);
		fprintf(o->f, " r%-4lld ", (long long)st->min_rank);
		val(o->f, st->median, d->unit, 10);
		fputc(' ', o->f);
		val(o->f, st->max, d->unit, 10);
		fprintf(o->f, " r%lld\n", (long long)st->max_rank);
	}
}

void term_vanalyze(FILE *f, const struct report *rep, const struct summary_opts *so)
{
	int color = term_use_color(f);
	struct out o = { f, term_width(f), color ? "\033[1m" : "", color ? "\033[0m" : "" };
	struct rollup ru;

	term_run_line(f, rep, o.bold, o.off, o.width, so->details);
	if (so->ranks)
		for (size_t i = 0; i < rep->nr_ranks; i++)
			rank_detail(&o, &rep->ranks[i], so->top, rep->nr_ranks > 1);
	if (so->ranks)
		cross_rank_lines(&o, rep);
	if (rep->nr_ranks)
		rank_table(&o, rep, so->all || so->ranks);
	if (!rollup_init(&ru, rep)) {
		phase_table(&o, &ru, so->all);
		kernel_table(&o, &ru, so->top, so->sort);
		op_table(&o, &ru, so->top, so->sort);
		term_perf(f, &ru, so->top, o.width, o.bold, o.off);
		rollup_release(&ru);
	} else {
		log_stdout_lost();	/* the tables memory ran out for */
	}
	term_stragglers(f, rep, o.bold, o.off);
	term_suggestions(f, rep, o.bold, o.off, so->details || so->ranks);
}
