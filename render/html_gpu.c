/*
 * html_gpu: what the GPUs did: the top kernels over all ranks, GPU time
 * by kernel category per rank, and memory peaks per device.
 *
 * The kernels are the report's roll-up (rollup.h): each rank's rows summed
 * by name; those figures carry data-calc, naming the sum a test recomputes.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "html.h"
#include "report_fields.h"
#include "sat.h"
#include "shorten.h"
#include "vendor_words.h"

#define TOP_CHART 15
#define TOP_TABLE 25

static const char *const categories[] = {
	"gemm", "attention", "comm", "conv", "norm", "elementwise", "reduce", "other",
};
#define NR_CAT (sizeof(categories) / sizeof(categories[0]))

#define LABEL_COLS 28

/*
 * A shortened name as a single-quoted gnuplot string, the one place a trace
 * string reaches gnuplot: quotes doubled; control bytes, invalid UTF-8, '%'
 * (a tic label can be a format) and '`' (command substitution) as '?'.
 * The svg terminal is noenhanced (no markup in text) and escapes & and <.
 */
static void gp_label(struct buf *b, const char *shown)
{
	const unsigned char *u = (const unsigned char *)shown;
	size_t n = strlen(shown);

	buf_addc(b, '\'');
	for (size_t i = 0; i < n;) {
		size_t len = tsafe_utf8_len(u + i, n - i);

		if (len == 0 ||
		    (len == 1 && (u[i] < 0x20 || u[i] == 0x7f || u[i] == '%' || u[i] == '`')) ||
		    (len == 2 && u[i] == 0xc2 && u[i + 1] < 0xa0)) {
			buf_addc(b, '?');
			i += len ? len : 1;
			continue;
		}
		if (u[i] == '\'')
			buf_addc(b, '\'');
		buf_add(b, u + i, len);
		i += len;
	}
	buf_addc(b, '\'');
}

/* The run's device in words: "GPU", "NPU"; "Device" for a CPU-only or unknown run. */
static const char *dev_word(const struct report *r)
{
	const char *d = vendor_words_of_run(r)->device;

	return d && strcmp(d, "device") ? d : "Device";
}

static size_t cat_index(const char *c)
{
	for (size_t i = 0; i < NR_CAT; i++)
		if (c && !strcmp(c, categories[i]))
			return i;
	return NR_CAT - 1;
}

static void calc_kernel(struct buf *calc, const char *name, const char *field)
{
	buf_reset(calc);
	buf_adds(calc, "[\"kernel\",");
	html_key_str(calc, name);
	buf_printf(calc, ",\"%s\"]", field);
}

void html_kernels(struct page *p)
{
	const struct report *r = p->r;
	const struct rollup_kernel *v = p->ru.kernels;
	size_t n = p->ru.nr_kernels, shown;
	struct buf d, calc;
	char *names;
	const char **list;

	buf_adds(p->b, "<section id=\"kernels\">\n<h2>Top kernels</h2>\n");
	if (!n) {
		buf_adds(p->b, "<p class=\"muted\">No device kernels in these traces.</p>\n"
			       "</section>\n");
		return;
	}
	buf_printf(p->b, "<p class=\"muted\">Kernels of all %zu rank%s by total time; long names "
			 "are shortened in the middle (the table's cells show the whole name on "
			 "hover).</p>\n",
		   r->nr_ranks, r->nr_ranks == 1 ? "" : "s");
	shown = n < TOP_CHART ? n : TOP_CHART;
	if (html_chart(p, 900, (int)(60 + 22 * shown), "top kernels by total time") >= 0) {
		buf_init(&d);
		for (size_t i = 0; i < shown; i++)
			buf_printf(&d, "0 %.9g %.2f %.2f %u\n", (double)v[i].total_ns / 1e6,
				   (double)i - 0.38, (double)i + 0.38,
				   html_palette[cat_index(v[i].category)]);
		buf_printf(&p->gp.script,
			   "set xlabel 'ms, all ranks'\nset key off\nset grid xtics\n"
			   "set xrange [0:*]\nset yrange [%zu.6:-0.6]\nset ytics (",
			   shown - 1);
		names = html_alloc(p, shown * SHORTEN_CAP(LABEL_COLS));
		list = html_alloc(p, shown * sizeof(*list));
		for (size_t i = 0; names && list && i < shown; i++)
			list[i] = v[i].name;
		if (names && list)
			shorten_set(names, SHORTEN_CAP(LABEL_COLS), list, shown, LABEL_COLS);
		for (size_t i = 0; i < shown; i++) {
			buf_adds(&p->gp.script, i ? ", " : "");
			if (names && list)
				gp_label(&p->gp.script, names + i * SHORTEN_CAP(LABEL_COLS));
			else
				buf_printf(&p->gp.script, "'#%zu'", i + 1);
			buf_printf(&p->gp.script, " %zu", i);
		}
		free(names);
		free(list);
		buf_adds(&p->gp.script, ")\nplot ");
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror "
					"fs solid 1.0 noborder lc rgb variable\n");
		buf_release(&d);
	}
	html_legend_begin(p);
	for (size_t c = 0; c < NR_CAT; c++)
		html_legend_item(p, html_palette[c], categories[c]);
	html_legend_end(p);
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>#</th><th>kernel</th><th>category</th>"
		       "<th title=\"op: the operator that launched it; module: the attention block "
		       "around that; name: its own name\">from</th><th>ranks</th><th>count</th>"
		       "<th>total</th><th>avg</th><th>median</th><th>min</th><th>max</th>"
		       "<th>stddev</th><th>share of kernel time</th></tr>\n");
	buf_init(&calc);
	/* the figures named as report.json's kernel rows name them; ranks is the roll-up's own */
#define KERNEL_KEY(m) field_key_at(&kernel_fields, offsetof(struct report_kernel, m))
	for (size_t i = 0; i < n && i < TOP_TABLE; i++) {
		char nm[SHORTEN_CAP(96)];
		double median;

		buf_printf(p->b, "<tr><td class=\"num\">%zu</td><td class=\"name\" title=\"",
			   i + 1);
		html_text(p, v[i].name);
		buf_adds(p->b, "\">");
		html_text(p, shorten(nm, v[i].name, 96));
		buf_adds(p->b, "</td><td>");
		html_text(p, v[i].category);
		buf_adds(p->b, "</td><td>");
		html_text(p, v[i].category_source ? v[i].category_source : "-");
		buf_adds(p->b, "</td>");
		calc_kernel(&calc, v[i].name, "ranks");
		html_i64(p, "td", NULL, html_buf(p, &calc), (int64_t)v[i].ranks, UNIT_COUNT);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.count));
		html_i64(p, "td", NULL, html_buf(p, &calc), v[i].count, UNIT_COUNT);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.total_ns));
		html_i64(p, "td", NULL, html_buf(p, &calc), v[i].total_ns, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.avg_ns));
		html_dbl(p, "td", NULL, html_buf(p, &calc), v[i].avg_ns, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.median_ns));
		if (rollup_kernel_median(&p->ru, &v[i], &median))
			buf_fail(p->b);	/* a cell memory ran out for: the page fails */
		html_dbl(p, "td", NULL, html_buf(p, &calc), median, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.min_ns));
		html_i64(p, "td", NULL, html_buf(p, &calc), v[i].min_ns, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.max_ns));
		html_i64(p, "td", NULL, html_buf(p, &calc), v[i].max_ns, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(d.stddev_ns));
		html_dbl(p, "td", NULL, html_buf(p, &calc), v[i].stddev_ns, UNIT_NS);
		calc_kernel(&calc, v[i].name, KERNEL_KEY(share));
		html_dbl(p, "td", NULL, html_buf(p, &calc), v[i].share, UNIT_RATIO);
		buf_adds(p->b, "</tr>\n");
	}
#undef KERNEL_KEY
	buf_release(&calc);
	if (n > TOP_TABLE)
		buf_printf(p->b, "</table></div>\n<p class=\"muted\">%skernels.csv has every "
				 "kernel of every rank.</p>\n</section>\n", html_tables(p));
	else
		buf_adds(p->b, "</table></div>\n</section>\n");
}

void html_categories(struct page *p)
{
	const struct report *r = p->r;
	size_t ns = NR_CAT + 1, any = 0;
	uint32_t colors[NR_CAT + 1];
	double *v = html_calloc(p, r->nr_ranks * ns + 1, sizeof(*v));
	char calc[64], key[64];

	buf_printf(p->b, "<section id=\"categories\">\n<h2>%s time by category</h2>\n",
		   dev_word(r));
	for (size_t i = 0; v && i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];
		/* null without a device */
		int64_t mem = rk->analysed && rk->gpu.memory_ns > 0 ? rk->gpu.memory_ns : 0;

		for (size_t j = 0; rk->analysed && j < rk->nr_kernels; j++)
			v[i * ns + cat_index(rk->kernels[j].category)] +=
				(double)rk->kernels[j].d.total_ns;
		v[i * ns + NR_CAT] = (double)mem;
		any += rk->analysed && (rk->nr_kernels || mem);
	}
	if (!v || !any) {
		buf_adds(p->b, "<p class=\"muted\">No device kernels or memory copies in these "
			       "traces.</p>\n</section>\n");
		free(v);
		return;
	}
	for (size_t c = 0; c < ns; c++)
		colors[c] = html_palette[c];
	buf_adds(p->b, "<p class=\"muted\">Kernel time per category (summed over streams, so "
		       "it can exceed wall time) and memcpy/memset busy time, per rank.</p>\n");
	html_plot_ranks(p, "device time by category per rank", v, ns, colors, 1e-6, "ms", 1);
	if (r->nr_ranks > 1) {
		/* the series the chart has: no legend entry for a category without time */
		html_legend_begin(p);
		for (size_t c = 0; c < ns; c++) {
			int has = 0;

			for (size_t i = 0; i < r->nr_ranks; i++)
				has |= v[i * ns + c] > 0;
			if (has)
				html_legend_item(p, colors[c],
						 c < NR_CAT ? categories[c] : "memcpy/memset");
		}
		html_legend_end(p);
	}
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>rank</th>");
	for (size_t c = 0; c < NR_CAT; c++)
		buf_printf(p->b, "<th>%s</th>", categories[c]);
	buf_adds(p->b, "<th>memcpy/memset</th></tr>\n");
	for (size_t i = 0; i < r->nr_ranks && (!p->many || i < HTML_MANY_RANKS); i++) {
		buf_printf(p->b, "<tr><td class=\"num\">%lld</td>", (long long)r->ranks[i].rank);
		for (size_t c = 0; c < NR_CAT; c++) {
			snprintf(calc, sizeof(calc), "[\"category\",%zu,\"%s\"]", i, categories[c]);
			html_i64(p, "td", NULL, calc, sat_of_double(v[i * ns + c]), UNIT_NS);
		}
		html_rank_key(key, sizeof(key), i, &gpu_fields,
			      offsetof(struct report_gpu, memory_ns));
		html_i64(p, "td", key, NULL, sat_of_double(v[i * ns + NR_CAT]), UNIT_NS);
		buf_adds(p->b, "</tr>\n");
	}
	if (p->many)
		buf_printf(p->b, "</table></div>\n<p class=\"muted\">The first 32 ranks; "
				 "%skernels.csv has every rank's kernels.</p>\n</section>\n",
			   html_tables(p));
	else
		buf_adds(p->b, "</table></div>\n</section>\n");
	free(v);
}

struct memline {
	size_t rank, dev;		/* indices into ranks and their memory */
	int64_t peak;
};

static int cmp_memline(const void *a, const void *b)
{
	const struct memline *x = a, *y = b;

	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/* Allocated memory over time of the HTML_PALETTE devices with the highest peaks. */
static void memory_timeline(struct page *p)
{
	const struct report *r = p->r;
	struct memline *v;
	size_t n = 0, all = 0;
	struct buf d;

	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t m = 0; r->ranks[i].analysed && m < r->ranks[i].nr_memory; m++)
			all += r->ranks[i].memory[m].nr_timeline > 0 &&
			       r->ranks[i].memory[m].peak_allocated > 0 &&
			       r->ranks[i].memory[m].device >= 0;
	if (!all || !(v = html_alloc(p, all * sizeof(*v))))
		return;
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t m = 0; r->ranks[i].analysed && m < r->ranks[i].nr_memory; m++)
			/* the CPU's [memory] events are the profiler's own: GPUs only */
			if (r->ranks[i].memory[m].nr_timeline &&
			    r->ranks[i].memory[m].peak_allocated > 0 &&
			    r->ranks[i].memory[m].device >= 0)
				v[n++] = (struct memline){ i, m,
							   r->ranks[i].memory[m].peak_allocated };
	qsort(v, n, sizeof(*v), cmp_memline);
	if (n > HTML_PALETTE)
		n = HTML_PALETTE;
	buf_printf(p->b, "<h3>Memory over time</h3>\n<p class=\"muted\">Total Allocated at each "
			 "[memory] event (at most %d points a device, each the highest of its "
			 "stretch)%s.</p>\n",
		   REPORT_MEMLINE_MAX, all > n ? ", for the devices with the highest peaks" : "");
	if (html_chart(p, 900, 280, "allocated memory over time") >= 0) {
		buf_init(&d);
		for (size_t j = 0; j < n; j++) {
			const struct report_memory *me = &r->ranks[v[j].rank].memory[v[j].dev];

			for (size_t t = 0; t < me->nr_timeline; t++)
				buf_printf(&d, "%.9g %.9g %u\n", (double)me->timeline[3 * t] / 1e6,
					   (double)me->timeline[3 * t + 1] / (1024.0 * 1024 * 1024),
					   html_palette[j]);
			buf_adds(&d, "\n");
		}
		buf_adds(&p->gp.script, "set xlabel 'ms since the rank''s first event'\n"
					"set ylabel 'GiB allocated'\nset key off\nset grid\n"
					"set yrange [0:*]\nplot ");
		gnuplot_data(&p->gp, &d);
		buf_adds(&p->gp.script, " using 1:2:3 with lines lw 1.5 lc rgb variable\n");
		buf_release(&d);
	}
	html_legend_begin(p);
	for (size_t j = 0; j < n; j++) {
		char name[64];

		snprintf(name, sizeof(name), "rank %lld, device %lld",
			 (long long)r->ranks[v[j].rank].rank,
			 (long long)r->ranks[v[j].rank].memory[v[j].dev].device);
		html_legend_item(p, html_palette[j], name);
	}
	html_legend_end(p);
	free(v);
}

void html_memory(struct page *p)
{
	const struct report *r = p->r;
	size_t rows = 0, positive = 0;
	uint32_t colors[2] = { 0x4e79a7, 0xa0cbe8 };
	double *v = html_calloc(p, 2 * r->nr_ranks + 1, sizeof(*v));
	char key[96];

	buf_adds(p->b, "<section id=\"memory\">\n<h2>Memory</h2>\n");
	for (size_t i = 0; v && i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		v[2 * i] = v[2 * i + 1] = NAN;
		for (size_t m = 0; rk->analysed && m < rk->nr_memory; m++) {
			rows++;
			if (rk->memory[m].device < 0)
				continue;
			if (!(v[2 * i] >= (double)rk->memory[m].peak_allocated))
				v[2 * i] = (double)rk->memory[m].peak_allocated;
			if (rk->memory[m].peak_reserved != INT64_MIN &&
			    !(v[2 * i + 1] >= (double)rk->memory[m].peak_reserved))
				v[2 * i + 1] = (double)rk->memory[m].peak_reserved;
		}
	}
	if (!v || !rows) {
		buf_adds(p->b, "<p class=\"muted\">No [memory] events in these traces (profile "
			       "with profile_memory=True).</p>\n</section>\n");
		free(v);
		return;
	}
	buf_adds(p->b, "<p class=\"muted\">Peak allocated and reserved memory of the busiest GPU "
		       "of each rank; the table lists every device (-1 is the CPU).</p>\n");
	for (size_t i = 0; i < 2 * r->nr_ranks; i++)
		positive += v[i] > 0;
	if (positive && r->nr_ranks > 1) {
		html_plot_ranks(p, "peak GPU memory per rank", v, 2, colors,
				1.0 / (1024.0 * 1024 * 1024), "GiB", 0);
		html_legend_begin(p);
		html_legend_item(p, colors[0], "peak allocated");
		html_legend_item(p, colors[1], "peak reserved");
		html_legend_end(p);
	}
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>rank</th><th>device</th>"
		       "<th>peak allocated</th><th>peak reserved</th><th>capacity</th></tr>\n");
	rows = 0;
	for (size_t i = 0; i < r->nr_ranks && (!p->many || rows < 64); i++) {
		const struct report_rank *rk = &r->ranks[i];

#define MEMORY_KEY(f) html_rank_row_key(key, sizeof(key), i, &memory_fields, m, \
					offsetof(struct report_memory, f))
		for (size_t m = 0; rk->analysed && m < rk->nr_memory; m++, rows++) {
			const struct report_memory *me = &rk->memory[m];

			buf_printf(p->b, "<tr><td class=\"num\">%lld</td>", (long long)rk->rank);
			MEMORY_KEY(device);
			html_i64(p, "td", key, NULL, me->device, UNIT_COUNT);
			MEMORY_KEY(peak_allocated);
			html_i64(p, "td", key, NULL, me->peak_allocated, UNIT_BYTES);
			MEMORY_KEY(peak_reserved);
			if (me->peak_reserved != INT64_MIN)
				html_i64(p, "td", key, NULL, me->peak_reserved, UNIT_BYTES);
			else
				html_dbl(p, "td", key, NULL, NAN, UNIT_BYTES);
			MEMORY_KEY(capacity);
			if (me->capacity >= 0)
				html_i64(p, "td", key, NULL, me->capacity, UNIT_BYTES);
			else
				html_dbl(p, "td", key, NULL, NAN, UNIT_BYTES);
			buf_adds(p->b, "</tr>\n");
		}
#undef MEMORY_KEY
	}
	buf_printf(p->b, "</table></div>\n%s",
		   p->many ? "<p class=\"muted\">The first ranks' devices; the chart has every "
			     "rank.</p>\n" : "");
	memory_timeline(p);
	buf_adds(p->b, "</section>\n");
	free(v);
}
