/*
 * html: the pieces render_html() builds its page from (internal to render/).
 *
 * A page is built into one struct buf.  A chart is a marker in that text
 * ("\x01N\x02", bytes no escaped trace string can hold) plus commands in the
 * gnuplot script; once gnuplot has run, html.c swaps each marker for the
 * chart's SVG, or for a visible note when there are no charts.
 *
 * Every number shown carries its source: data-key is the JSON path of the
 * value in report.json (an array of keys and indices) and data-v the value
 * exactly as report.json writes it; a figure the page derives (a sum over
 * ranks) carries data-calc instead, naming the computation.  Tests read
 * these back.
 */
#ifndef VT_HTML_H
#define VT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "gnuplot.h"
#include "metric.h"
#include "report.h"
#include "rollup.h"

#define HTML_MANY_RANKS 32	/* above this, per-rank bars become distributions */
#define HTML_PALETTE 12

struct page {
	const struct report *r;
	struct rollup ru;	/* r's kernels, operators and phases summed over its ranks */
	struct buf *b;
	struct gnuplot gp;
	int charts;		/* 1: charts go to the gnuplot script */
	int many;		/* more than HTML_MANY_RANKS ranks */
	int tables;		/* tables/ lies beside the page (--out) */
};

/*
 * How the page names the CSV tables: "tables/" beside a page written by
 * --out, else "--out's tables/", so that a page written alone points at
 * no file that is not there.
 */
static inline const char *html_tables(const struct page *p)
{
	return p->tables ? "tables/" : "--out's tables/";
}

extern const uint32_t html_palette[HTML_PALETTE];

/* The pages' inline stylesheet (light and dark, print). */
extern const char *const html_stylesheet;

/*
 * Every trace string in the page goes through one of these two, each cut
 * to HTML_TEXT_MAX bytes (on a code point, then an ellipsis) so that the
 * page stays bounded however long the names: a reader can use a title of
 * 16 KiB (real templated kernel names pass 5 KB), not one of 60 MB.
 */
#define HTML_TEXT_MAX 16384

/* Text of a trace string, escaped for HTML. */
void html_text(struct page *p, const char *s);

/*
 * The text of b, a piece of the page built apart ("" when empty); when
 * memory ran out building it, "" and the page fails with it (buf_fail()),
 * so that no page goes out without a piece.
 */
const char *html_buf(struct page *p, const struct buf *b);

/*
 * malloc() and calloc() for a piece of the page: NULL when out of memory,
 * and the page fails with it (buf_fail()), so that no page goes out with a
 * section or a chart left out.
 */
void *html_alloc(struct page *p, size_t n);
void *html_calloc(struct page *p, size_t n, size_t size);

/* A JSON string for a data-key or data-calc, from a trace string (quotes included). */
void html_key_str(struct buf *key, const char *s);

/*
 * <tag data-key='KEY' data-v="V">shown</tag>: an integer or a double (NaN
 * is null, shown as a dash) in unit k, shown by metric_fmt().  tag may carry attributes ("td
 * class=x"); key may be NULL (no data-key) and calc, when not NULL, is
 * written as data-calc.
 */
void html_i64(struct page *p, const char *tag, const char *key, const char *calc, int64_t v,
	      enum metric_unit k);
void html_dbl(struct page *p, const char *tag, const char *key, const char *calc, double v,
	      enum metric_unit k);

struct field_table;

/*
 * The data-key of figure off (an offset in t's row) of ranks[i]'s object t
 * ("gpu", "perf"): ["ranks",i,"gpu","busy_ns"], into key (n bytes).
 */
const char *html_rank_key(char *key, size_t n, size_t i, const struct field_table *t,
			  size_t off);

/* ... and of row k of ranks[i]'s table t: ["ranks",i,"phases",k,"count"]. */
const char *html_rank_row_key(char *key, size_t n, size_t i, const struct field_table *t,
			      size_t k, size_t off);

/* ... and of row i of the report's table t: ["collectives",i,"bytes"]. */
const char *html_row_key(char *key, size_t n, const struct field_table *t, size_t i,
			 size_t off);

/*
 * One field of a cross-rank statistic ("min", "max", "avg", "median",
 * "stddev", "count", "min_rank", "max_rank") as html_dbl() or html_i64()
 * writes it, its data-key ["cross_rank",METRIC,FIELD], in the metric's unit.
 */
void html_stat(struct page *p, const char *tag, const struct report_stat *st, const char *field);

/* A table row: name, then the fields of st (html_stat()), one cell each. */
void html_stat_row(struct page *p, const struct report_stat *st, const char *name,
		   const char *const *fields, size_t nr_fields);

/* The value alone, as the page shows it (metric_fmt()). */
void html_fmt(struct buf *b, double v, enum metric_unit k);

/*
 * Start a chart of w x h pixels: its marker goes into the page and its
 * plot commands into p->gp.script.  Returns the chart number, or -1 when
 * charts are off (the caller then writes no script; the marker is there).
 */
int html_chart(struct page *p, int w, int h, const char *what);

/* A legend of colour swatches with escaped names. */
void html_legend_begin(struct page *p);
void html_legend_item(struct page *p, uint32_t rgb, const char *name);
void html_legend_end(struct page *p);

/*
 * Per-rank values of ns series as one chart: v[i * ns + s] for rank index i
 * and series s (NaN: none), drawn in colors[s] and multiplied by scale.
 * Stacked (or side by side) bars for up to HTML_MANY_RANKS ranks; above
 * that, a line per series over the ranks (never stacked), which stays
 * small and readable for a thousand ranks.
 */
void html_plot_ranks(struct page *p, const char *what, const double *v, size_t ns,
		     const uint32_t *colors, double scale, const char *ylabel, int stacked);

/* Append the gnuplot xtics that label rank positions 0..n-1 with rank numbers. */
void html_rank_tics(struct page *p, const char *axis);

/* Sections, in page order (html_sections.c, html_phases.c, html_steps.c, html_gpu.c). */
void html_summary(struct page *p);
void html_suggestions(struct page *p);
/* The top three findings, one line each with the time at stake (html_findings.c). */
void html_findings_lead(struct page *p);
void html_phases(struct page *p);
void html_timeline(struct page *p);
void html_collectives(struct page *p);
void html_idle(struct page *p);		/* html_idle.c */
void html_steps(struct page *p);
void html_kernels(struct page *p);
void html_ops(struct page *p);		/* html_ops.c */
void html_roofline(struct page *p);	/* html_roofline.c */
void html_categories(struct page *p);
void html_memory(struct page *p);
void html_cross_rank(struct page *p);
void html_inputs(struct page *p);

#endif
