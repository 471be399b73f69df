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
#include <stdlib.h>
#include <string.h>

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
		result = !strcmp(r->metric, "span_ns") || !strncmp(r->metric, "throughput.", 11);
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

		if (r->rank >= 0 || strcmp(r->metric, "span_ns") || !r->has_base || !r->has_new)
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

static void num(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

static void kernels(struct jsonw *w, const char *key, const struct kernel_delta *v, size_t n,
		    double sum)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_key(w, "count");
	jsonw_int(w, (int64_t)n);
	num(w, "total_ns", sum);
	jsonw_key(w, "kernels");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_key(w, "name");
		jsonw_str(w, v[i].name);
		num(w, "total_ns", v[i].total_ns);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static void ranks(struct jsonw *w, const char *key, const int64_t *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_int_array(w, v, n);
}

void output_json(struct buf *out, const struct comparison *c, const struct output_opts *o)
{
	static const char *const dir[] = { [DIR_NEUTRAL] = "neutral", [DIR_LOWER] = "lower",
					   [DIR_HIGHER] = "higher" };
	struct jsonw w;

	jsonw_init(&w, out, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "schema");
	jsonw_str(&w, "vtrace.compare/2");
	jsonw_key(&w, "base");
	jsonw_str(&w, o->base_name);
	jsonw_key(&w, "new");
	jsonw_str(&w, o->new_name);
	num(&w, "threshold", o->threshold);
	num(&w, "alpha", o->alpha);
	jsonw_key(&w, "base_run");
	if (o->base_run)
		jsonw_str(&w, o->base_run);
	else
		jsonw_null(&w);
	jsonw_key(&w, "new_run");
	if (o->new_run)
		jsonw_str(&w, o->new_run);
	else
		jsonw_null(&w);
	jsonw_key(&w, "run_differs");
	jsonw_obj_begin(&w);
	for (size_t i = 0; i < o->nr_mismatch; i++) {
		jsonw_key(&w, o->mismatch[i]);
		jsonw_arr_begin(&w);
		jsonw_str(&w, o->mismatch_vals[2 * i]);
		jsonw_str(&w, o->mismatch_vals[2 * i + 1]);
		jsonw_arr_end(&w);
	}
	jsonw_obj_end(&w);
	jsonw_key(&w, "regressions");
	jsonw_int(&w, (int64_t)c->regressions);
	jsonw_key(&w, "run_regressions");
	jsonw_int(&w, (int64_t)c->run_regressions);
	jsonw_key(&w, "improvements");
	jsonw_int(&w, (int64_t)c->improvements);
	jsonw_key(&w, "rows");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < c->nr_rows; i++) {
		const struct row *r = &c->rows[i];

		jsonw_obj_begin(&w);
		jsonw_key(&w, "metric");
		jsonw_str(&w, r->metric);
		jsonw_key(&w, "rank");
		if (r->rank < 0)
			jsonw_null(&w);
		else
			jsonw_int(&w, r->rank);
		jsonw_key(&w, "better");
		jsonw_str(&w, dir[r->dir]);
		num(&w, "base", r->base);
		num(&w, "new", r->new);
		num(&w, "delta", r->delta);
		num(&w, "delta_pct", r->delta_pct);
		num(&w, "threshold", r->threshold);
		num(&w, "p", r->p);
		jsonw_key(&w, "samples");
		jsonw_arr_begin(&w);
		jsonw_int(&w, (int64_t)r->n_base);
		jsonw_int(&w, (int64_t)r->n_new);
		jsonw_arr_end(&w);
		jsonw_key(&w, "verdict");
		jsonw_str(&w, r->verdict == V_REGRESSED ? "regressed" : verdict_names[r->verdict]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "unchanged");
	jsonw_int(&w, (int64_t)c->unchanged);
	jsonw_key(&w, "steps_not_compared");
	if (c->steps_base) {
		jsonw_obj_begin(&w);
		jsonw_key(&w, "base");
		jsonw_str(&w, c->steps_base);
		jsonw_key(&w, "new");
		jsonw_str(&w, c->steps_new);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "totals_per_step");
	if (c->per_step_base) {
		jsonw_obj_begin(&w);
		jsonw_key(&w, "per");
		jsonw_str(&w, c->per_generation ? "generation" : "step");
		jsonw_key(&w, "base");
		jsonw_int(&w, (int64_t)c->per_step_base);
		jsonw_key(&w, "new");
		jsonw_int(&w, (int64_t)c->per_step_new);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	kernels(&w, "kernels_added", c->added, c->nr_added, c->added_ns);
	kernels(&w, "kernels_removed", c->removed, c->nr_removed, c->removed_ns);
	ranks(&w, "ranks_only_base", c->ranks_only_base, c->nr_only_base);
	ranks(&w, "ranks_only_new", c->ranks_only_new, c->nr_only_new);
	jsonw_obj_end(&w);
	buf_addc(out, '\n');
}
