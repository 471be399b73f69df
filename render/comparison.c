/*
 * comparison: see comparison.h.
 *
 * Values are shown by the catalogue's formatter in their unit (metric_fmt());
 * the JSON keeps the raw numbers.
 * Trace strings (kernel and phase names inside metric names) are escaped
 * for markdown and JSON; the terminal gets them through tsafe.h.
 */
#include "comparison.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field.h"
#include "jsonw.h"
#include "shorten.h"
#include "term.h"

#define MD_NAME_COLS 60		/* a markdown cell's metric at most (kernel signatures cut) */

static void fmt_pct(char *s, size_t n, double v)
{
	if (isnan(v))
		snprintf(s, n, "-");
	else if (isinf(v))
		snprintf(s, n, v > 0 ? "+inf" : "-inf");
	else
		snprintf(s, n, "%+.1f%%", v * 100);
}

static void fmt_p(char *s, size_t n, const struct row *r)
{
	if (!r->tested)
		snprintf(s, n, "-");
	else if (r->p < 1e-4)
		snprintf(s, n, "<1e-4");
	else
		snprintf(s, n, "%.4f", r->p);
}

static void fmt_rank(char *s, size_t n, int64_t rank)
{
	if (rank < 0)
		snprintf(s, n, "all");
	else
		snprintf(s, n, "%lld", (long long)rank);
}

/*
 * Rows shown without --all: the few that explain the change, not every
 * changed row of every rank: the run's rows that changed (each rank's
 * repeat them; a rank's only where none of the run's changed), confirmed
 * changes before noise; the result first (span, throughput), then times by
 * the size of their change, then the rest (utilization, rates), ROWS_SHOWN
 * at most; shown in table order.  --all shows every row.
 */
#define ROWS_SHOWN 12

struct cand {
	size_t i;
	int rank;		/* a rank's row: after every row of the run */
	int noise;		/* a change the test did not confirm: last */
	int class;		/* 0: the result (span, throughput); 1: a time; 2: the rest */
	double size;		/* a time's |delta| */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->noise != y->noise)
		return x->noise - y->noise;
	if (x->class != y->class)
		return x->class - y->class;
	if (x->class == 1 && x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The rows to show as 1s in a new array of c->nr_rows (caller frees; NULL
 * when memory ran out: then every changed row), and in *hidden the
 * changed rows left to --all.
 */
static unsigned char *pick_rows(const struct comparison *c, const struct output_opts *o,
				size_t *hidden)
{
	unsigned char *sel = calloc(c->nr_rows ? c->nr_rows : 1, 1);
	struct cand *v = malloc((c->nr_rows ? c->nr_rows : 1) * sizeof(*v));
	size_t n = 0, changed = 0, picked = 0;

	*hidden = 0;
	if (!sel || !v) {
		free(sel);
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];
		int result;

		if (o->all) {
			sel[i] = 1;
			continue;
		}
		if (r->verdict == V_SAME)
			continue;
		changed++;
		result = !strcmp(r->metric, MK_SPAN_NS) || !strncmp(r->metric, "throughput.", 11);
		/* a rank's rows come after the run's: they explain only where the run's are same */
		v[n++] = (struct cand){ i, r->rank >= 0, r->verdict == V_NOISE,
					result ? 0 : r->unit == UNIT_NS ? 1 : 2,
					isfinite(r->delta) ? fabs(r->delta) : INFINITY };
	}
	qsort(v, n, sizeof(*v), cmp_cand);
	for (size_t k = 0; k < n && k < ROWS_SHOWN && (!k || v[k].rank == v[0].rank); k++, picked++)
		sel[v[k].i] = 1;
	if (!o->all)
		*hidden = changed - picked;
	free(v);
	return sel;
}

/* Row i is shown (sel from pick_rows(), or NULL: every changed row, all with --all). */
static int shown(const struct comparison *c, const unsigned char *sel, size_t i,
		 const struct output_opts *o)
{
	return sel ? sel[i] : o->all || c->rows[i].verdict != V_SAME;
}

/* A trace-derived name on a terminal line of its own (tsafe.h). */
static void term_name(struct buf *b, const char *s)
{
	tsafe_add(b, s, strlen(s));
}

/* The lines after the rows, as plain text: what was left out, and why. */
static void notes_lines(struct buf *b, const struct comparison *c, const struct output_opts *o,
			size_t hidden)
{
	if (hidden)
		buf_printf(b, "%zu more changed row%s, of the run and of each rank (--all lists "
			   "them)\n", hidden, hidden == 1 ? "" : "s");
	if (!o->all && c->unchanged)
		buf_printf(b, "%zu metric%s unchanged (--all lists them)\n", c->unchanged,
			   c->unchanged == 1 ? "" : "s");
	if (c->steps_base) {
		/* --step globs, from a report that may come from anywhere */
		buf_adds(b, "steps not compared: base counts '");
		term_name(b, c->steps_base);
		buf_adds(b, "' spans as steps, new '");
		term_name(b, c->steps_new);
		buf_adds(b, "'; their phases are compared\n");
	}
	if (c->per_step_base)
		buf_printf(b, "totals compared per %s: base profiled %zu, new %zu\n",
			   c->per_generation ? "video" : "step", c->per_step_base, c->per_step_new);
}

/*
 * The kernels on one side only: how many and their total time, then the
 * top ones by total, each through name() (escaping for the output).
 */
static void kernel_lines(struct buf *b, const char *what, const struct kernel_delta *k, size_t n,
			 double sum, size_t top, const char *item,
			 void (*name)(struct buf *b, const char *s))
{
	char t[METRIC_FMT_MAX];
	size_t shown_n = n < top ? n : top;

	if (!n)
		return;
	metric_fmt(t, sizeof(t), sum, UNIT_NS, 0);
	buf_printf(b, "%s%zu kernel%s %s, %s in all%s\n", item, n, n == 1 ? "" : "s", what, t,
		   shown_n ? ":" : "");
	for (size_t i = 0; i < shown_n; i++) {
		metric_fmt(t, sizeof(t), k[i].total_ns, UNIT_NS, 0);
		buf_printf(b, "  %s%9s  ", item, t);
		name(b, k[i].name);
		buf_addc(b, '\n');
	}
	if (shown_n && n > shown_n) {
		double rest = sum;

		for (size_t i = 0; i < shown_n; i++)
			rest -= k[i].total_ns;
		metric_fmt(t, sizeof(t), rest, UNIT_NS, 0);
		buf_printf(b, "  %sand %zu more, %s in all\n", item, n - shown_n, t);
	}
}

/*
 * A trace-derived string in a terminal column, made safe (tsafe.h),
 * padded to width (< 0: not padded).  A longer one gets a line of its own,
 * so that names that differ only in their middle (kernel template
 * arguments) stay apart.
 */
static void term_str(FILE *f, const char *s, int width)
{
	struct buf b;
	int len, w;

	buf_init(&b);
	tsafe_add(&b, s, strlen(s));
	len = (int)b.len;
	w = term_cols(term_text(&b), strlen(term_text(&b)));	/* "…" is one column */
	if (width < 0) {
		fprintf(f, "%.*s", len, term_text(&b));
	} else if (w > width) {
		fprintf(f, "%.*s\n%*s", len, term_text(&b), width + 1, "");
	} else {
		fprintf(f, "%.*s%*s", len, term_text(&b), width - w + 1, "");
	}
	buf_release(&b);
}

/*
 * The end-to-end change in one sentence, from the run's span (per step or
 * per video where the totals were compared so): "end to end +10.3%: 301 ms
 * → 332 ms per video".  "" when either side lacks the span.
 */
static void end_to_end(char *s, size_t n, const struct comparison *c)
{
	char b[METRIC_FMT_MAX], v[METRIC_FMT_MAX], pct[24];

	s[0] = '\0';
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		if (r->rank >= 0 || strcmp(r->metric, MK_SPAN_NS) || !r->has_base || !r->has_new)
			continue;
		fmt_pct(pct, sizeof(pct), r->delta_pct);
		snprintf(s, n, "end to end %s: %s \xe2\x86\x92 %s per %s", pct,
			 metric_fmt(b, sizeof(b), r->base, UNIT_NS, 0),
			 metric_fmt(v, sizeof(v), r->new, UNIT_NS, 0),
			 !c->per_step_base ? "run" : c->per_generation ? "video" : "step");
		return;
	}
}

/* What the comparison says, first (the terminal's first line): "REGRESSED", ... */
static const char *verdict_word(const struct comparison *c)
{
	return c->regressions ? "REGRESSED" : c->improvements ? "improved" : "no change";
}

/*
 * Shown rows' labels (metric_label_of()) cut to cols columns together, as
 * vanalyze cuts kernel names (shorten.h), SHORTEN_CAP(cols) bytes apart;
 * caller frees; NULL when memory ran out (the keys are shown then).
 */
static char *shown_names(const struct comparison *c, const unsigned char *sel,
			 const struct output_opts *o, size_t n, size_t cols)
{
	const char **v = calloc(n ? n : 1, sizeof(*v));
	char *out = malloc((n ? n : 1) * SHORTEN_CAP(cols));
	size_t k = 0, ok = v && out;

	for (size_t i = 0; ok && i < c->nr_rows; i++) {
		size_t len = strlen(c->rows[i].metric) + 32;
		char *l;

		if (!shown(c, sel, i, o))
			continue;
		if (!(l = malloc(len))) {
			ok = 0;
			break;
		}
		if (o->keys)
			v[k++] = strcpy(l, c->rows[i].metric);
		else
			v[k++] = metric_label_of(l, len, c->rows[i].metric);
	}
	if (ok)
		shorten_set(out, SHORTEN_CAP(cols), v, k, cols);
	for (size_t i = 0; v && i < k; i++)
		free((char *)v[i]);
	free(v);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

static void summary_line(char *s, size_t n, const struct comparison *c)
{
	snprintf(s, n, "%zu regression%s (%zu of the run as a whole), %zu improvement%s",
		 c->regressions, c->regressions == 1 ? "" : "s", c->run_regressions,
		 c->improvements, c->improvements == 1 ? "" : "s");
}

void output_table(FILE *f, const struct comparison *c, const struct output_opts *o)
{
	char pct[24], p[24], rank[24], line[96], e2e[160];
	int width = 28, cols = term_width(f) - 2 > 200 ? 200 : term_width(f) - 2;
	char *names;
	size_t k = 0;
	struct buf b;
	size_t nr_shown = 0, hidden;
	unsigned char *sel = pick_rows(c, o, &hidden);

	for (size_t i = 0; i < c->nr_rows; i++)
		nr_shown += shown(c, sel, i, o);
	names = shown_names(c, sel, o, nr_shown, (size_t)cols);
	/* The metric column: as wide as the names, up to a width that fits a screen. */
	for (size_t i = 0, j = 0; i < c->nr_rows; i++) {
		const char *nm;

		if (!shown(c, sel, i, o))
			continue;
		nm = names ? names + j++ * SHORTEN_CAP(cols) : c->rows[i].metric;
		if (term_cols(nm, strlen(nm)) > width)
			width = term_cols(nm, strlen(nm));
	}
	if (width > 60)
		width = 60;
	/* the numbers take 70 columns: the names what is left of the line, else a line each */
	if (width > term_width(f) - 70)
		width = term_width(f) - 70 < 8 ? 8 : term_width(f) - 70;
	/* the verdict first, with the end-to-end change in one sentence */
	end_to_end(e2e, sizeof(e2e), c);
	fprintf(f, "vcompare: %s%s%s\n", verdict_word(c), e2e[0] ? ", " : "", e2e);
	fputs("base ", f);
	tsafe_put(f, o->base_name);
	fputs(", new ", f);
	tsafe_put(f, o->new_name);
	fprintf(f, " (threshold %.3g%%, alpha %g)\n", o->threshold * 100, o->alpha);
	if (o->base_run && o->new_run) {
		fputs("  base: ", f);
		tsafe_putn(f, o->base_run, term_bytes(o->base_run, strlen(o->base_run), 72));
		fputs("\n  new:  ", f);
		tsafe_putn(f, o->new_run, term_bytes(o->new_run, strlen(o->new_run), 72));
		fputc('\n', f);
	}
	for (size_t i = 0; i < o->nr_mismatch; i++) {
		fputs("  differs: ", f);
		tsafe_putn(f, o->mismatch[i], 40);
		fputs(" (", f);
		tsafe_putn(f, o->mismatch_vals[2 * i], 40);
		fputs(" -> ", f);
		tsafe_putn(f, o->mismatch_vals[2 * i + 1], 40);
		fputs(")\n", f);
	}
	fputc('\n', f);
	if (nr_shown)
		fprintf(f, "%-*s %5s %10s %10s %10s %8s %7s  %s\n", width, "metric", "rank", "base",
			"new", "delta", "delta%", "p", "verdict");
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		if (!shown(c, sel, i, o))
			continue;
		fmt_rank(rank, sizeof(rank), r->rank);
		fmt_pct(pct, sizeof(pct), r->delta_pct);
		fmt_p(p, sizeof(p), r);
		/* a long kernel's name cut as vanalyze cuts it, no two alike */
		term_str(f, names ? names + k++ * SHORTEN_CAP(cols) : r->metric, width);
		fprintf(f, "%5s ", rank);
		term_value(f, r->base, r->unit, 0, 10);
		fputc(' ', f);
		term_value(f, r->new, r->unit, 0, 10);
		fputc(' ', f);
		term_value(f, r->delta, r->unit, FMT_SIGN, 10);
		fprintf(f, " %8s %7s  %s\n", pct, p, verdict_names[r->verdict]);
	}
	free(names);
	free(sel);
	buf_init(&b);
	if (nr_shown)
		buf_addc(&b, '\n');
	notes_lines(&b, c, o, hidden);
	kernel_lines(&b, "added (only in new)", c->added, c->nr_added, c->added_ns, o->top, "",
		     term_name);
	kernel_lines(&b, "removed (only in base)", c->removed, c->nr_removed, c->removed_ns,
		     o->top, "", term_name);
	for (size_t i = 0; i < c->nr_only_base; i++)
		buf_printf(&b, "rank %lld only in base\n", (long long)c->ranks_only_base[i]);
	for (size_t i = 0; i < c->nr_only_new; i++)
		buf_printf(&b, "rank %lld only in new\n", (long long)c->ranks_only_new[i]);
	summary_line(line, sizeof(line), c);
	buf_printf(&b, "\n%s\n", line);
	fputs(term_text(&b), f);
	buf_release(&b);
}

/*
 * A table cell: made safe as for a terminal (tsafe.h: no controls, no bidi
 * or invisible characters, and so no line breaks), HTML-significant
 * characters as entities (a markdown renderer passes HTML through),
 * markdown punctuation escaped, no pipes that would end the cell.
 *
 * An '@' goes in a code span: a PR comment would otherwise notify whoever
 * a kernel named "@name" names.  GitHub finds mentions in the rendered
 * text outside <code>, <pre> and links, so neither "\@" nor "&#64;" stops
 * one (both render to a plain '@' first); a zero-width character after the
 * '@' would, but is what tsafe strips elsewhere and breaks a copied name.
 * "`@`name" renders as the name, copies as it, and notifies nobody.
 */
void output_md_cell(struct buf *out, const char *s)
{
	struct buf b;

	buf_init(&b);
	tsafe_add(&b, s, strlen(s));
	for (size_t i = 0; i < b.len; i++) {
		char ch = b.data[i];

		switch (ch) {
		case '<': buf_adds(out, "&lt;"); break;
		case '>': buf_adds(out, "&gt;"); break;
		case '&': buf_adds(out, "&amp;"); break;
		case '@': buf_adds(out, "`@`"); break;
		case '|':
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '#':
		case '~':
		case '!':
			buf_addc(out, '\\');
			buf_addc(out, ch);
			break;
		default: buf_addc(out, ch); break;
		}
	}
	if (!buf_ok(&b))	/* a name lost must not pass for an empty one */
		buf_fail(out);
	buf_release(&b);
}

void output_markdown(struct buf *out, const struct comparison *c, const struct output_opts *o)
{
	char base[48], new[48], delta[48], pct[24], p[24], rank[24], line[96], e2e[160];
	size_t nr_shown = 0, k = 0, hidden;
	unsigned char *sel = pick_rows(c, o, &hidden);
	char *names;

	summary_line(line, sizeof(line), c);
	buf_printf(out, "### vcompare: %s %s\n\n", c->regressions ? ":x:" : ":white_check_mark:",
		   line);
	end_to_end(e2e, sizeof(e2e), c);
	if (e2e[0])
		buf_printf(out, "**%c%s.**\n\n", e2e[0] - 'a' + 'A', e2e + 1);
	buf_adds(out, "Base ");
	output_md_cell(out, o->base_name);
	buf_adds(out, ", new ");
	output_md_cell(out, o->new_name);
	buf_printf(out, "; threshold %.3g%%, alpha %g.\n\n", o->threshold * 100, o->alpha);
	if (o->base_run && o->new_run) {
		buf_adds(out, "Base run: ");
		output_md_cell(out, o->base_run);
		buf_adds(out, "  \nNew run: ");
		output_md_cell(out, o->new_run);
		buf_adds(out, "\n\n");
	}
	for (size_t i = 0; i < o->nr_mismatch; i++) {
		buf_adds(out, i ? ", " : "**The runs differ:** ");
		output_md_cell(out, o->mismatch[i]);
		buf_adds(out, " (");
		output_md_cell(out, o->mismatch_vals[2 * i]);
		buf_adds(out, " -> ");
		output_md_cell(out, o->mismatch_vals[2 * i + 1]);
		buf_adds(out, i + 1 == o->nr_mismatch ? ").\n\n" : ")");
	}
	for (size_t i = 0; i < c->nr_rows; i++)
		nr_shown += shown(c, sel, i, o);
	if (nr_shown)
		buf_adds(out, "| metric | rank | base | new | delta | delta % | p | verdict |\n"
			      "|---|---:|---:|---:|---:|---:|---:|---|\n");
	/* a kernel's signature cut in its middle, as the terminal cuts it: a cell, not a page */
	names = shown_names(c, sel, o, nr_shown, MD_NAME_COLS);
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		if (!shown(c, sel, i, o))
			continue;
		fmt_rank(rank, sizeof(rank), r->rank);
		metric_fmt(base, sizeof(base), r->base, r->unit, 0);
		metric_fmt(new, sizeof(new), r->new, r->unit, 0);
		metric_fmt(delta, sizeof(delta), r->delta, r->unit, FMT_SIGN);
		fmt_pct(pct, sizeof(pct), r->delta_pct);
		fmt_p(p, sizeof(p), r);
		buf_adds(out, "| ");
		output_md_cell(out, names ? names + k++ * SHORTEN_CAP(MD_NAME_COLS) : r->metric);
		buf_printf(out, " | %s | %s | %s | %s | %s | ", rank, base, new, delta, pct);
		output_md_cell(out, p);
		buf_printf(out, " | %s%s%s |\n", r->verdict == V_REGRESSED ? "**" : "",
			   verdict_names[r->verdict], r->verdict == V_REGRESSED ? "**" : "");
	}
	free(names);
	free(sel);
	buf_addc(out, '\n');
	for (size_t i = 0; i < c->nr_only_base; i++)
		buf_printf(out, "- rank %lld only in base\n", (long long)c->ranks_only_base[i]);
	for (size_t i = 0; i < c->nr_only_new; i++)
		buf_printf(out, "- rank %lld only in new\n", (long long)c->ranks_only_new[i]);
	{
		struct buf notes;
		size_t at = 0;

		/* the plain notes as list items; trace strings in them are step globs, escaped */
		buf_init(&notes);
		notes_lines(&notes, c, o, hidden);
		for (size_t i = 0; buf_ok(&notes) && i < notes.len; i++) {
			if (notes.data[i] != '\n')
				continue;
			notes.data[i] = '\0';
			buf_adds(out, "- ");
			output_md_cell(out, notes.data + at);
			buf_addc(out, '\n');
			at = i + 1;
		}
		buf_release(&notes);
	}
	kernel_lines(out, "added (only in new)", c->added, c->nr_added, c->added_ns, o->top, "- ",
		     output_md_cell);
	kernel_lines(out, "removed (only in base)", c->removed, c->nr_removed, c->removed_ns,
		     o->top, "- ", output_md_cell);
}

/*
 * The JSON's objects as field tables (field.h), each over a view of the
 * comparison made as it is written: the views hold the figures as the
 * tables' types have them (counts as int64_t, null as INT64_MIN).
 */
struct json_sides {			/* steps_not_compared */
	const char *base, *new;
};

struct json_per_step {			/* totals_per_step */
	int per_generation;
	int64_t base, new;
};

struct json_top {
	const char *schema, *base, *new;
	double threshold, alpha;
	const char *base_run, *new_run;	/* NULL: null */
	int64_t regressions, run_regressions, improvements, unchanged;
	struct json_sides steps;
	int has_steps;
	struct json_per_step per_step;
	int has_per_step;
	int64_t *only_base, *only_new;
	size_t nr_only_base, nr_only_new;
};

struct json_row {
	const char *metric;
	int64_t rank;			/* INT64_MIN: the run's */
	int better;			/* enum metric_dir */
	double base, new, delta, delta_pct, threshold, p;
	int64_t samples[2];		/* base, new */
	int64_t *samples_v;		/* samples, for FT_I64S */
	size_t nr_samples;
	const char *verdict;
};

struct json_kernels {			/* kernels_added, kernels_removed, less their rows */
	int64_t count;
	double total_ns;
};

struct json_differs {			/* one key of run_differs: base's value, new's */
	const char **vals;
	size_t n;
};

#define S(k, t, m, fl) FIELD(k, t, struct json_sides, m, fl)
static const struct field sides_f[] = {
	{ S("base", FT_STR, base, FF_NONNULL) },
	{ S("new", FT_STR, new, FF_NONNULL) },
};
#undef S

static const struct field_table sides_fields = FIELD_TABLE("steps_not_compared", sides_f,
							   struct json_sides);

static const char *const per_names[] = { "step", "generation" };

#define P(k, t, m, fl) FIELD(k, t, struct json_per_step, m, fl)
static const struct field per_step_f[] = {
	{ P("per", FT_ENUM, per_generation, FF_NONNULL), .names = per_names, .per = 2 },
	{ P("base", FT_I64, base, FF_NONNULL) },
	{ P("new", FT_I64, new, FF_NONNULL) },
};
#undef P

static const struct field_table per_step_fields = FIELD_TABLE("totals_per_step", per_step_f,
							      struct json_per_step);

/* The top object's keys, in four runs: run_differs, rows and the kernels come between. */
#define T(k, t, m, fl) FIELD(k, t, struct json_top, m, fl)
static const struct field head_f[] = {
	{ T("schema", FT_STR, schema, FF_NONNULL) },
	{ T("base", FT_STR, base, FF_NONNULL) },
	{ T("new", FT_STR, new, FF_NONNULL) },
	{ T("threshold", FT_F64, threshold, 0) },
	{ T("alpha", FT_F64, alpha, 0) },
	{ T("base_run", FT_STR, base_run, 0) },
	{ T("new_run", FT_STR, new_run, 0) },
};

static const struct field counts_f[] = {
	{ T("regressions", FT_I64, regressions, FF_NONNULL) },
	{ T("run_regressions", FT_I64, run_regressions, FF_NONNULL) },
	{ T("improvements", FT_I64, improvements, FF_NONNULL) },
};

static const struct field tail_f[] = {
	{ T("unchanged", FT_I64, unchanged, FF_NONNULL) },
	{ T("steps_not_compared", FT_OBJ, steps, 0), .aux = offsetof(struct json_top, has_steps),
	  .sub = &sides_fields },
	{ T("totals_per_step", FT_OBJ, per_step, 0),
	  .aux = offsetof(struct json_top, has_per_step), .sub = &per_step_fields },
};

static const struct field only_f[] = {
	{ T("ranks_only_base", FT_I64S, only_base, FF_NONNULL),
	  .aux = offsetof(struct json_top, nr_only_base), .per = 1 },
	{ T("ranks_only_new", FT_I64S, only_new, FF_NONNULL),
	  .aux = offsetof(struct json_top, nr_only_new), .per = 1 },
};
#undef T

static const struct field_table head_fields = FIELD_TABLE("compare", head_f, struct json_top);
static const struct field_table counts_fields = FIELD_TABLE("compare", counts_f, struct json_top);
static const struct field_table tail_fields = FIELD_TABLE("compare", tail_f, struct json_top);
static const struct field_table only_fields = FIELD_TABLE("compare", only_f, struct json_top);

static const char *const dir_names[] = { [DIR_NEUTRAL] = "neutral", [DIR_LOWER] = "lower",
					 [DIR_HIGHER] = "higher" };

#define R(k, t, m, fl) FIELD(k, t, struct json_row, m, fl)
static const struct field row_f[] = {
	{ R("metric", FT_STR, metric, FF_NONNULL) },
	{ R("rank", FT_I64, rank, 0) },
	{ R("better", FT_ENUM, better, FF_NONNULL), .names = dir_names,
	  .per = sizeof(dir_names) / sizeof(dir_names[0]) },
	{ R("base", FT_F64, base, 0) },
	{ R("new", FT_F64, new, 0) },
	{ R("delta", FT_F64, delta, 0) },
	{ R("delta_pct", FT_F64, delta_pct, 0) },
	{ R("threshold", FT_F64, threshold, 0) },
	{ R("p", FT_F64, p, 0) },
	{ R("samples", FT_I64S, samples_v, FF_NONNULL | FF_LINES),
	  .aux = offsetof(struct json_row, nr_samples), .per = 1 },
	{ R("verdict", FT_STR, verdict, FF_NONNULL) },
};
#undef R

static const struct field_table row_fields = FIELD_TABLE("rows", row_f, struct json_row);

#define K(k, t, m, fl) FIELD(k, t, struct json_kernels, m, fl)
static const struct field kernels_f[] = {
	{ K("count", FT_I64, count, FF_NONNULL) },
	{ K("total_ns", FT_F64, total_ns, 0) },
};
#undef K

static const struct field_table added_fields = FIELD_TABLE("kernels_added", kernels_f,
							   struct json_kernels);
static const struct field_table removed_fields = FIELD_TABLE("kernels_removed", kernels_f,
							     struct json_kernels);

#define D(k, t, m, fl) FIELD(k, t, struct kernel_delta, m, fl)
static const struct field kernel_delta_f[] = {
	{ D("name", FT_STR, name, FF_NONNULL) },
	{ D("total_ns", FT_F64, total_ns, 0) },
};
#undef D

static const struct field_table kernel_delta_fields = FIELD_TABLE("kernels", kernel_delta_f,
								  struct kernel_delta);

/* run_differs: its keys are the run's (run_info_mismatch()), this one field under each */
static const struct field differs_f[] = {
	{ FIELD(NULL, FT_STRS, struct json_differs, vals, 0),
	  .aux = offsetof(struct json_differs, n) },
};

static const struct field_table differs_fields = FIELD_TABLE("run_differs", differs_f,
							     struct json_differs);

static void differs_json(struct jsonw *w, const struct output_opts *o)
{
	jsonw_key(w, differs_fields.name);
	jsonw_obj_begin(w);
	for (size_t i = 0; i < o->nr_mismatch; i++) {
		struct field f = differs_f[0];
		struct field_table t = differs_fields;
		const char *vals[2] = { o->mismatch_vals[2 * i], o->mismatch_vals[2 * i + 1] };
		struct json_differs d = { vals, 2 };

		f.key = o->mismatch[i];
		t.f = &f;
		field_json(w, &t, &d, 0);
	}
	jsonw_obj_end(w);
}

static void rows_json(struct jsonw *w, const struct comparison *c)
{
	jsonw_key(w, row_fields.name);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];
		struct json_row v = {
			.metric = r->metric, .rank = r->rank < 0 ? INT64_MIN : r->rank,
			.better = (int)r->dir, .base = r->base, .new = r->new, .delta = r->delta,
			.delta_pct = r->delta_pct, .threshold = r->threshold, .p = r->p,
			.samples = { (int64_t)r->n_base, (int64_t)r->n_new }, .nr_samples = 2,
		};

		/* the JSON's verdict is a word in lower case, as a key's value */
		v.verdict = r->verdict == V_REGRESSED ? "regressed" : verdict_names[r->verdict];
		v.samples_v = v.samples;
		jsonw_obj_begin(w);
		field_json(w, &row_fields, &v, 0);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void kernels_json(struct jsonw *w, const struct field_table *t,
			 const struct kernel_delta *v, size_t n, double sum)
{
	struct json_kernels k = { (int64_t)n, sum };

	jsonw_key(w, t->name);
	jsonw_obj_begin(w);
	field_json(w, t, &k, 0);
	field_rows_json(w, &kernel_delta_fields, v, n, 0);
	jsonw_obj_end(w);
}

void output_json(struct buf *out, const struct comparison *c, const struct output_opts *o)
{
	struct json_top top = {
		.schema = "vtrace.compare/2", .base = o->base_name, .new = o->new_name,
		.threshold = o->threshold, .alpha = o->alpha,
		.base_run = o->base_run, .new_run = o->new_run,
		.regressions = (int64_t)c->regressions,
		.run_regressions = (int64_t)c->run_regressions,
		.improvements = (int64_t)c->improvements, .unchanged = (int64_t)c->unchanged,
		.steps = { c->steps_base, c->steps_new }, .has_steps = c->steps_base != NULL,
		.per_step = { c->per_generation, (int64_t)c->per_step_base,
			      (int64_t)c->per_step_new },
		.has_per_step = c->per_step_base != 0,
		.only_base = c->ranks_only_base, .only_new = c->ranks_only_new,
		.nr_only_base = c->nr_only_base, .nr_only_new = c->nr_only_new,
	};
	struct jsonw w;

	jsonw_init(&w, out, 0);
	jsonw_obj_begin(&w);
	field_json(&w, &head_fields, &top, 0);
	differs_json(&w, o);
	field_json(&w, &counts_fields, &top, 0);
	rows_json(&w, c);
	field_json(&w, &tail_fields, &top, 0);
	kernels_json(&w, &added_fields, c->added, c->nr_added, c->added_ns);
	kernels_json(&w, &removed_fields, c->removed, c->nr_removed, c->removed_ns);
	field_json(&w, &only_fields, &top, 0);
	jsonw_obj_end(&w);
	buf_addc(out, '\n');
}
