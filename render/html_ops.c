/*
 * html_ops: the CPU operators of all ranks summed by name (the roll-up,
 * rollup.h), as torch.profiler's key_averages() shows them: calls, CPU
 * total and self time, and the device time each launched (by correlation)
 * and launched itself.  Figures carry data-calc naming the sum a test recomputes.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"
#include "shorten.h"

#define TOP_OPS 20
#define NAME_COLS 64

static void calc_op(struct buf *calc, const char *name, const char *field)
{
	buf_reset(calc);
	buf_adds(calc, "[\"cpu_op\",");
	html_key_str(calc, name);
	buf_printf(calc, ",\"%s\"]", field);
}

void html_ops(struct page *p)
{
	/* the row's figures, named as report.json's cpu_ops rows have them */
	static const size_t field_off[] = {
		offsetof(struct report_cpu_op, count), offsetof(struct report_cpu_op, total_ns),
		offsetof(struct report_cpu_op, self_ns), offsetof(struct report_cpu_op, device_ns),
		offsetof(struct report_cpu_op, self_device_ns),
	};
	const struct rollup_op *v = p->ru.ops;
	size_t n = p->ru.nr_ops, shown;
	struct buf calc;
	char *names;
	const char **list;

	buf_adds(p->b, "<section id=\"operators\">\n<h2>CPU operators</h2>\n");
	shown = n < TOP_OPS ? n : TOP_OPS;
	names = html_alloc(p, (shown ? shown : 1) * SHORTEN_CAP(NAME_COLS));
	list = html_alloc(p, (shown ? shown : 1) * sizeof(*list));
	if (!n || !names || !list) {
		buf_adds(p->b, "<p class=\"muted\">No CPU operators in these traces.</p>\n"
			       "</section>\n");
		goto out;
	}
	for (size_t i = 0; i < shown; i++)
		list[i] = v[i].name;
	shorten_set(names, SHORTEN_CAP(NAME_COLS), list, shown, NAME_COLS);
	buf_printf(p->b, "<p class=\"muted\">Operators of all %zu rank%s by CPU time, as "
			 "torch.profiler's key_averages(); device time is that of the "
			 "kernels, copies and sets launched inside the operator (by "
			 "correlation id), self without its child operators'.</p>\n",
		   p->r->nr_ranks, p->r->nr_ranks == 1 ? "" : "s");
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>operator</th><th>calls</th>"
		       "<th>CPU total</th><th>CPU self</th><th>device</th>"
		       "<th>device self</th></tr>\n");
	buf_init(&calc);
	for (size_t i = 0; i < shown; i++) {
		const int64_t fig[] = { v[i].count, v[i].total_ns, v[i].self_ns, v[i].device_ns,
					v[i].self_device_ns };

		buf_adds(p->b, "<tr><td class=\"name\" title=\"");
		html_text(p, v[i].name);
		buf_adds(p->b, "\">");
		html_text(p, names + i * SHORTEN_CAP(NAME_COLS));
		buf_adds(p->b, "</td>");
		for (int f = 0; f < 5; f++) {
			calc_op(&calc, v[i].name, field_key_at(&cpu_op_fields, field_off[f]));
			if (fig[f] < 0)
				html_dbl(p, "td", NULL, html_buf(p, &calc), NAN, UNIT_NS);
			else
				html_i64(p, "td", NULL, html_buf(p, &calc), fig[f],
					 f ? UNIT_NS : UNIT_COUNT);
		}
		buf_adds(p->b, "</tr>\n");
	}
	buf_release(&calc);
	if (n > shown)
		buf_printf(p->b, "</table></div>\n<p class=\"muted\">%scpu_ops.csv has every "
				 "operator of every rank.</p>\n</section>\n", html_tables(p));
	else
		buf_adds(p->b, "</table></div>\n</section>\n");
out:
	free(names);
	free(list);
}
