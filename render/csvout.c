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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "esc.h"
#include "metric.h"
#include "outfile.h"
#include "render.h"

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
	if (buf_ok(&clean) && !buf_reserve(w->b, need)) {
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

static void header(struct buf *b, const char *cols)
{
	buf_adds(b, cols);
	buf_adds(b, "\r\n");
}

static void dist(struct row *w, const struct report_dist *d)
{
	f_i64(w, d->count);
	f_i64(w, d->total_ns);
	f_dbl(w, d->avg_ns);
	f_dbl(w, d->median_ns);
	f_i64(w, d->min_ns);
	f_i64(w, d->max_ns);
	f_dbl(w, d->stddev_ns);
}

static void kernels(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,name,category,category_source,count,total_ns,avg_ns,median_ns,min_ns,max_ns,"
		  "stddev_ns,share");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; k < rk->nr_kernels; k++) {
			f_i64(&w, rk->rank);
			f_str(&w, rk->kernels[k].name);
			f_str(&w, rk->kernels[k].category);
			if (rk->kernels[k].category_source)
				f_str(&w, rk->kernels[k].category_source);
			else
				f_none(&w);
			dist(&w, &rk->kernels[k].d);
			f_dbl(&w, rk->kernels[k].share);
			row_end(&w);
		}
	}
}

/* Per rank, as key_averages(): calls, CPU total and self, device time launched and self. */
static void cpu_ops(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,name,count,total_ns,self_ns,device_ns,self_device_ns");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->analysed && k < rk->nr_cpu_ops; k++) {
			const struct report_cpu_op *op = &rk->cpu_ops[k];

			f_i64(&w, rk->rank);
			f_str(&w, op->name);
			f_i64(&w, op->count);
			f_i64(&w, op->total_ns);
			f_i64(&w, op->self_ns);
			if (op->device_ns >= 0)
				f_i64(&w, op->device_ns);
			else
				f_none(&w);
			if (op->self_device_ns >= 0)
				f_i64(&w, op->self_device_ns);
			else
				f_none(&w);
			row_end(&w);
		}
	}
}

static void phases(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,path,name,depth,count,total_ns,avg_ns,median_ns,min_ns,max_ns,stddev_ns,"
		  "share,gpu_ns");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->has_phases && k < rk->nr_phases; k++) {
			const struct report_phase *p = &rk->phases[k];

			f_i64(&w, rk->rank);
			f_str(&w, p->path);
			f_str(&w, p->name);
			f_i64(&w, p->depth);
			dist(&w, &p->d);
			f_dbl(&w, p->share);
			if (p->gpu_ns >= 0)
				f_i64(&w, p->gpu_ns);
			else
				f_none(&w);
			row_end(&w);
		}
	}
}

static void steps(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,step,duration_ns,warmup");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->has_phases && k < rk->steps.nr_durations; k++) {
			f_i64(&w, rk->rank);
			f_i64(&w, (int64_t)k);
			f_i64(&w, rk->steps.durations_ns[k]);
			f_i64(&w, k == 0 && rk->steps.warmup);
			row_end(&w);
		}
	}
}

/*
 * Why the device waits (doc/idle.md): per rank, the steady window and the
 * rest of the trace ("outside"), each with its idle time by cause; the
 * causes' columns come from lib/model/idle_causes.h.  Ranks without device
 * work have no rows.
 */
static void idle(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	buf_adds(b, "rank,part,window,window_ns,busy_ns,idle_ns,gaps");
	for (int c = 0; c < IDLE_NR_CAUSES; c++)
		buf_printf(b, ",%s_ns", idle_cause_key[c]);
	buf_adds(b, "\r\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_idle *id = &r->ranks[i].idle;

		for (int part = 0; r->ranks[i].analysed && id->window && part < 2; part++) {
			const struct report_idle_part *pt = part ? &id->outside : &id->in;

			f_i64(&w, r->ranks[i].rank);
			f_str(&w, part ? "outside" : "window");
			f_str(&w, id->window);
			f_i64(&w, pt->window_ns);
			f_i64(&w, pt->busy_ns);
			f_i64(&w, pt->idle_ns);
			f_i64(&w, pt->gaps);
			for (int c = 0; c < IDLE_NR_CAUSES; c++)
				f_i64(&w, pt->by_cause[c]);
			row_end(&w);
		}
	}
}

/* The longest gaps of each rank (report.json's idle.top), longest first. */
static void idle_gaps(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,start_ns,dur_ns,cause,in_window,step,host");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_idle *id = &r->ranks[i].idle;

		for (size_t k = 0; r->ranks[i].analysed && id->window && k < id->nr_top; k++) {
			const struct report_idle_gap *g = &id->top[k];

			f_i64(&w, r->ranks[i].rank);
			f_i64(&w, g->start_ns);
			f_i64(&w, g->dur_ns);
			f_str(&w, idle_cause_key[g->cause]);
			f_i64(&w, g->in_window);
			if (g->step >= 0)
				f_i64(&w, g->step);
			else
				f_none(&w);
			f_opt_str(&w, g->host);
			row_end(&w);
		}
	}
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
		buf_adds(b, col[c]->csv);
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
	struct row w = { b, 1 };

	header(b, "metric,count,min,max,avg,median,stddev,min_rank,max_rank");
	for (size_t i = 0; r->nr_ranks > 1 && i < r->nr_cross_rank; i++) {
		const struct report_stat *st = &r->cross_rank[i];

		f_str(&w, st->metric);
		f_i64(&w, st->count);
		f_dbl(&w, st->min);
		f_dbl(&w, st->max);
		f_dbl(&w, st->avg);
		f_dbl(&w, st->median);
		f_dbl(&w, st->stddev);
		f_i64(&w, st->min_rank);
		f_i64(&w, st->max_rank);
		row_end(&w);
	}
}

static void collectives(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "group,collective,ranks,instances,unmatched,wait_ns,transfer_ns,last_rank,"
		  "last_count,bytes,algbw_gbps,busbw_gbps");
	for (size_t i = 0; i < r->nr_collectives; i++) {
		const struct report_collective *c = &r->collectives[i];

		if (c->group)
			f_str(&w, c->group);
		else
			f_none(&w);
		f_str(&w, c->name);
		f_i64(&w, c->ranks);
		f_i64(&w, c->instances);
		f_i64(&w, c->unmatched);
		f_i64(&w, c->wait_ns);
		f_i64(&w, c->transfer_ns);
		f_i64(&w, c->last_rank);
		f_i64(&w, c->last_count);
		if (c->bytes >= 0)
			f_i64(&w, c->bytes);
		else
			f_none(&w);
		f_dbl(&w, c->algbw);
		f_dbl(&w, c->busbw);
		row_end(&w);
	}
}

static void suggestions(const struct report *r, struct buf *b)
{
	static const char *const sev[] = { "low", "medium", "high" };
	struct row w = { b, 1 };

	header(b, "id,severity,rank,ranks_text,worst_rank,metric,value,threshold,impact_ns,"
		  "impact_share,impact_basis,message,details");
	for (size_t i = 0; i < r->nr_suggestions; i++) {
		const struct report_suggestion *s = &r->suggestions[i];

		f_str(&w, s->id);
		f_str(&w, sev[s->severity]);
		if (s->rank >= 0)
			f_i64(&w, s->rank);
		else
			f_none(&w);
		f_opt_str(&w, s->ranks_text);
		if (s->worst_rank >= 0)
			f_i64(&w, s->worst_rank);
		else
			f_none(&w);
		f_str(&w, s->metric);
		f_dbl(&w, s->value);
		f_dbl(&w, s->threshold);
		if (s->impact_ns >= 0)
			f_i64(&w, s->impact_ns);
		else
			f_none(&w);
		f_dbl(&w, s->impact_share);
		f_opt_str(&w, s->impact_basis);
		f_str(&w, s->message);
		f_opt_str(&w, s->details);
		row_end(&w);
	}
}

/* Per rank, operator and shape: the performance model's figures (report_op_perf). */
static void ops_perf(const struct report *r, struct buf *b)
{
	struct row w = { b, 1 };

	header(b, "rank,name,input_dims,input_types,concrete_inputs,family,dtype,count,flops,bytes,"
		  "total_ns,avg_ns,median_ns,min_ns,max_ns,tflops_median,tbps_median,intensity,"
		  "peak_tflops,peak_share,roof_share,bound");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		for (size_t k = 0; rk->analysed && k < rk->nr_ops_perf; k++) {
			const struct report_op_perf *o = &rk->ops_perf[k];

			f_i64(&w, rk->rank);
			f_str(&w, o->name);
			f_str(&w, o->input_dims);
			f_str(&w, o->input_types);
			f_str(&w, o->concrete_inputs);
			f_opt_str(&w, o->family);
			f_opt_str(&w, o->dtype);
			f_i64(&w, o->count);
			f_dbl(&w, o->flops);
			f_dbl(&w, o->bytes);
			f_i64(&w, o->total_ns);
			f_dbl(&w, o->mean_ns);
			f_i64(&w, o->median_ns);
			f_i64(&w, o->min_ns);
			f_i64(&w, o->max_ns);
			f_dbl(&w, o->tflops_median);
			f_dbl(&w, o->tbps_median);
			f_dbl(&w, o->intensity);
			f_dbl(&w, o->peak_tflops);
			f_dbl(&w, o->peak_share);
			f_dbl(&w, o->roof_share);
			f_opt_str(&w, o->bound);
			row_end(&w);
		}
	}
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
			       errno == ELOOP || errno == ENOTDIR ? "not a directory (a link is not "
								   "followed)" : strerror(errno));
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
