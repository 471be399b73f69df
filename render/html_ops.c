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

/*
 * The table's columns: each a figure of the roll-up's row, named as
 * report.json's cpu_ops rows name the member of the same name.
 */
static const struct op_col {
	const char *head;
	size_t off;		/* in struct report_cpu_op: its key */
	size_t ru_off;		/* in struct rollup_op: its int64_t */
	enum metric_unit unit;
} op_cols[] = {
/* compiles only where the roll-up's member is the int64_t read below */
#define COL(head, m, unit) \
	{ head, offsetof(struct report_cpu_op, m), offsetof(struct rollup_op, m) + \
	  0 * sizeof(char[_Generic(((struct rollup_op *)0)->m, int64_t: 1, default: -1)]), unit }
	COL("calls", count, UNIT_COUNT),
	COL("CPU total", total_ns, UNIT_NS),
	COL("CPU self", self_ns, UNIT_NS),
	COL("device", device_ns, UNIT_NS),
	COL("device self", self_device_ns, UNIT_NS),
#undef COL
};
#define NR_OP_COLS (sizeof(op_cols) / sizeof(op_cols[0]))

void html_ops(struct page *p)
{
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
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>operator</th>");
	for (size_t c = 0; c < NR_OP_COLS; c++)
		buf_printf(p->b, "<th>%s</th>", op_cols[c].head);
	buf_adds(p->b, "</tr>\n");
	buf_init(&calc);
	for (size_t i = 0; i < shown; i++) {
		buf_adds(p->b, "<tr><td class=\"name\" title=\"");
		html_text(p, v[i].name);
		buf_adds(p->b, "\">");
		html_text(p, names + i * SHORTEN_CAP(NAME_COLS));
		buf_adds(p->b, "</td>");
		for (size_t c = 0; c < NR_OP_COLS; c++) {
			int64_t fig = *(const int64_t *)((const char *)&v[i] + op_cols[c].ru_off);

			calc_op(&calc, v[i].name, field_key_at(&cpu_op_fields, op_cols[c].off));
			/* unknown (rollup.h): null, in the unit of a time */
			if (fig < 0)
				html_dbl(p, "td", NULL, html_buf(p, &calc), NAN, UNIT_NS);
			else
				html_i64(p, "td", NULL, html_buf(p, &calc), fig, op_cols[c].unit);
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
