/*
 * csvout: render_csv(), the report as flat tables for spreadsheets and
 * scripts.
 *
 * One header row, then one row per item with the rank first; the columns
 * of ranks.csv are the metric catalogue's (metric.h).  Times in
 * integer nanoseconds and sizes in bytes as in report.json, floats as
 * report.json writes them (%.17g), and an empty field where report.json
 * has null.  Lines end in CRLF and text fields are quoted by libcsv's
 * csv_write(), as RFC 4180 has it; text is made valid UTF-8 first, and a
 * text that a spreadsheet would take for a formula gets a leading quote.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "csv_fields.h"
#include "esc.h"
#include "metric.h"
#include "outfile.h"
#include "render.h"
#include "report_fields.h"

struct row {
	struct buf *b;
	int first;
};

static void sep(struct row *w)
{
	if (!w->first)
		buf_addc(w->b, ',');
	w->first = 0;
}

static void f_str(struct row *w, const char *s)
{
	struct buf clean;
	size_t need;

	sep(w);
	buf_init(&clean);
	/*
	 * OWASP's rule against CSV injection: a cell that starts with = + - @,
	 * tab or CR would be a formula to a spreadsheet, so it starts with a
	 * quote instead ("=cmd|' /C calc'!A0" is written "'=cmd|...").
	 */
	if (s && *s && strchr("=+-@\t\r", *s))
		buf_addc(&clean, '\'');
	esc_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	/* csv_write() doubles quotes and adds the outer pair: at most 2n + 2 */
	need = 2 * clean.len + 2;
	if (!buf_ok(&clean))
		buf_fail(w->b);		/* the table fails with its cell */
	else if (!buf_reserve(w->b, need)) {
		w->b->len += csv_write(w->b->data + w->b->len, need,
				       clean.data ? clean.data : "", clean.len);
		w->b->data[w->b->len] = '\0';
	}
	buf_release(&clean);
}

static void f_i64(struct row *w, int64_t v)
{
	sep(w);
	buf_printf(w->b, "%" PRId64, v);
}

/* NaN (null in report.json) is an empty field. */
static void f_dbl(struct row *w, double v)
{
	sep(w);
	if (isfinite(v))
		buf_printf(w->b, "%.17g", v);
}

static void f_none(struct row *w)
{
	sep(w);
}

/* A string that may be missing: an empty cell then. */
static void f_opt_str(struct row *w, const char *s)
{
	if (s)
		f_str(w, s);
	else
		f_none(w);
}

static void row_end(struct row *w)
{
	buf_adds(w->b, "\r\n");
	w->first = 1;
}

static void field_cell(struct row *w, const struct field *f, const void *row)
{
	const char *p = (const char *)row + f->off;
	int e;

	switch (f->type) {
	case FT_I64:
		if (*(const int64_t *)p == INT64_MIN)
			f_none(w);
		else
			f_i64(w, *(const int64_t *)p);
		break;
	case FT_F64:
		f_dbl(w, *(const double *)p);
		break;
	case FT_STR:
		f_opt_str(w, *(const char *const *)p);
		break;
	case FT_BOOL:
	case FT_INT:
		f_i64(w, *(const int *)p);
		break;
	case FT_ENUM:
		e = *(const int *)p;
		if (e >= 0 && (unsigned)e < f->per)
			f_str(w, f->names[e]);
		else
			f_none(w);
		break;
	case FT_I64S:
	case FT_OBJ:
	case FT_STRS:
	case FT_TAGS:
	case FT_COUNTS:
	case FT_GROUP:
	case FT_F64S:
	case FT_ROWS:
		f_none(w);
		break;
	}
}

/* The fields of t with a CSV column, in column order, into col[] (room for t->n). */
static size_t csv_columns(const struct field_table *t, const struct field **col)
{
	size_t n = 0, before;

	for (int c = 1;; c++) {
		before = n;
		for (size_t i = 0; i < t->n; i++)
			if (t->f[i].csv == c)
				col[n++] = &t->f[i];
		if (n == before)
			return n;
	}
}

/* The header of a table of columns col: the rank first where with_rank. */
static void fields_header(struct buf *b, const struct field **col, size_t nc, int with_rank)
{
	if (with_rank)
		buf_adds(b, "rank");
	for (size_t c = 0; c < nc; c++) {
		if (c || with_rank)
			buf_addc(b, ',');
		buf_adds(b, col[c]->csv_key ? col[c]->csv_key : col[c]->key);
	}
	buf_adds(b, "\r\n");
}

/*
 * The table of t's rows over the ranks: the rank, then t's columns.
 * rows gives a rank's rows of t and their count; where it gives NULL, the
 * rank has no such array and make() makes its row k in scratch.
 */
static void made_rows_csv(const struct report *r, struct buf *b, const struct field_table *t,
			  const void *(*rows)(const struct report_rank *, size_t *),
			  const void *(*make)(const struct report_rank *, size_t, void *))
{
	const struct field *col[64];
	struct row w = { b, 1 };
	_Alignas(max_align_t) char scratch[256];
	size_t nc;

	assert(t->n <= sizeof(col) / sizeof(col[0]) && t->size <= sizeof(scratch));
	nc = csv_columns(t, col);
	fields_header(b, col, nc, 1);
	for (size_t i = 0; i < r->nr_ranks; i++) {
		size_t n;
		const char *v = rows(&r->ranks[i], &n);

		for (size_t k = 0; k < n; k++) {
			const void *row = v ? v + k * t->size : make(&r->ranks[i], k, scratch);

			f_i64(&w, r->ranks[i].rank);
			for (size_t c = 0; c < nc; c++)
				field_cell(&w, col[c], row);
			row_end(&w);
		}
	}
}

static void rows_csv(const struct report *r, struct buf *b, const struct field_table *t,
		     const void *(*rows)(const struct report_rank *, size_t *))
{
	made_rows_csv(r, b, t, rows, NULL);
}

/* A table of the run's n rows of t (no rank column). */
static void run_rows_csv(struct buf *b, const struct field_table *t, const void *rows, size_t n)
{
	const struct field *col[64];
	struct row w = { b, 1 };
	size_t nc;

	assert(t->n <= sizeof(col) / sizeof(col[0]));
	nc = csv_columns(t, col);
	fields_header(b, col, nc, 0);
	for (size_t k = 0; k < n; k++) {
		for (size_t c = 0; c < nc; c++)
			field_cell(&w, col[c], (const char *)rows + k * t->size);
		row_end(&w);
	}
}

static const void *kernel_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->nr_kernels;
	return rk->kernels;
}

static void kernels(const struct report *r, struct buf *b)
{
	rows_csv(r, b, &kernel_fields, kernel_rows);
}

static const void *cpu_op_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->analysed ? rk->nr_cpu_ops : 0;
	return rk->cpu_ops;
}

/* Per rank, as key_averages(): calls, CPU total and self, device time launched and self. */
static void cpu_ops(const struct report *r, struct buf *b)
{
	rows_csv(r, b, &cpu_op_fields, cpu_op_rows);
}

static const void *phase_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->has_phases ? rk->nr_phases : 0;
	return rk->phases;
}

static void phases(const struct report *r, struct buf *b)
{
	rows_csv(r, b, &phase_fields, phase_rows);
}

static const void *step_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->has_phases ? rk->steps.nr_durations : 0;
	return NULL;
}

static const void *step_row(const struct report_rank *rk, size_t k, void *scratch)
{
	struct csv_step_row *s = scratch;

	s->step = (int64_t)k;
	s->duration_ns = rk->steps.durations_ns[k];
	s->warmup = k == 0 && rk->steps.warmup;
	return s;
}

static void steps(const struct report *r, struct buf *b)
{
	made_rows_csv(r, b, &csv_step_fields, step_rows, step_row);
}

static const void *idle_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->analysed && rk->idle.window ? 2 : 0;
	return NULL;
}

static const void *idle_row(const struct report_rank *rk, size_t k, void *scratch)
{
	struct csv_idle_row *s = scratch;

	s->part = k ? "outside" : "window";
	s->window = rk->idle.window;
	s->p = k ? rk->idle.outside : rk->idle.in;
	return s;
}

/*
 * Why the device waits (doc/idle.md): per rank, the steady window and the
 * rest of the trace ("outside"), each with its idle time by cause; the
 * causes' columns come from lib/model/idle_causes.h.  Ranks without device
 * work have no rows.
 */
static void idle(const struct report *r, struct buf *b)
{
	made_rows_csv(r, b, &csv_idle_fields, idle_rows, idle_row);
}

static const void *idle_gap_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->analysed && rk->idle.window ? rk->idle.nr_top : 0;
	return rk->idle.top;
}

/* The longest gaps of each rank (report.json's idle.top), longest first. */
static void idle_gaps(const struct report *r, struct buf *b)
{
	rows_csv(r, b, &idle_gap_fields, idle_gap_rows);
}

/*
 * The catalogue's entries with a ranks.csv column, in column order, into
 * col[] (room for metric_nr); returns how many.
 */
static size_t rank_columns(const struct metric_def **col)
{
	size_t n = 0;

	for (size_t i = 0; i < metric_nr; i++) {
		size_t k = n++;

		if (!metric_table[i].csv) {
			n--;
			continue;
		}
		while (k > 0 && col[k - 1]->csv_col > metric_table[i].csv_col) {
			col[k] = col[k - 1];
			k--;
		}
		col[k] = &metric_table[i];
	}
	return n;
}

/* One row per rank: who it is, then the catalogue's columns (empty: null). */
static void ranks(const struct report *r, struct buf *b)
{
	const struct metric_def *col[128];
	struct row w = { b, 1 };
	size_t nc;

	assert(metric_nr <= sizeof(col) / sizeof(col[0]));
	nc = rank_columns(col);
	buf_adds(b, "rank,source,complete,warnings");
	for (size_t c = 0; c < nc; c++) {
		buf_addc(b, ',');
		buf_adds(b, metric_csv(col[c]));
	}
	buf_adds(b, "\r\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		f_i64(&w, rk->rank);
		f_str(&w, rk->source);
		f_i64(&w, rk->complete);
		f_i64(&w, (int64_t)rk->nr_warnings);
		for (size_t c = 0; c < nc; c++) {
			double v;

			f_dbl(&w, metric_value(col[c], rk, &v) ? v : NAN);
		}
		row_end(&w);
	}
}

static void cross_rank(const struct report *r, struct buf *b)
{
	run_rows_csv(b, &stat_fields, r->cross_rank, r->nr_ranks > 1 ? r->nr_cross_rank : 0);
}

static void collectives(const struct report *r, struct buf *b)
{
	run_rows_csv(b, &collective_fields, r->collectives, r->nr_collectives);
}

static void suggestions(const struct report *r, struct buf *b)
{
	run_rows_csv(b, &suggestion_fields, r->suggestions, r->nr_suggestions);
}

static const void *op_perf_rows(const struct report_rank *rk, size_t *n)
{
	*n = rk->analysed ? rk->nr_ops_perf : 0;
	return rk->ops_perf;
}

/* Per rank, operator and shape: the performance model's figures (report_op_perf). */
static void ops_perf(const struct report *r, struct buf *b)
{
	rows_csv(r, b, &op_perf_fields, op_perf_rows);
}

static const struct {
	const char *name;
	void (*fill)(const struct report *, struct buf *);
} tables[] = {
	{ "kernels.csv", kernels },	{ "phases.csv", phases },
	{ "steps.csv", steps },		{ "ranks.csv", ranks },
	{ "cross_rank.csv", cross_rank }, { "collectives.csv", collectives },
	{ "suggestions.csv", suggestions }, { "cpu_ops.csv", cpu_ops },
	{ "idle.csv", idle },		{ "idle_gaps.csv", idle_gaps },
	{ "ops_perf.csv", ops_perf },
};

int render_csv(const struct report *r, const char *dir, struct err *err)
{
	struct buf path, out;
	int rc = 0, dfd;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return err_set(err, -1, "cannot create directory '%s': %s", dir, strerror(errno));
	/*
	 * Opened once, never through a link: one planted at DIR/tables would
	 * send the tables wherever it points.  Written relative to it.
	 */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return err_set(err, -1, "cannot write to '%s': %s", dir,
			       errno == ELOOP || errno == ENOTDIR ?
			       "not a directory (a link is not followed)" : strerror(errno));
	buf_init(&path);
	buf_init(&out);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !rc; i++) {
		buf_reset(&path);
		buf_reset(&out);
		buf_printf(&path, "%s/%s", dir, tables[i].name);
		tables[i].fill(r, &out);
		if (!buf_ok(&path) || !buf_ok(&out))
			rc = err_set(err, -1, "out of memory writing '%s'", tables[i].name);
		else
			rc = outfile_write_at(dfd, path.data, tables[i].name,
					      out.len ? out.data : "", out.len, err);
	}
	close(dfd);
	buf_release(&path);
	buf_release(&out);
	return rc;
}
