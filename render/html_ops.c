/*
 * html_ops: the CPU operators of all ranks merged by name, as
 * torch.profiler's key_averages() shows them: calls, CPU total and self
 * time, and the device time each launched (by correlation) and launched
 * itself.  Figures carry data-calc naming the sum a test recomputes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "sat.h"
#include "shorten.h"

#define TOP_OPS 20
#define NAME_COLS 64

struct op {
	const char *name;
	int64_t v[5];		/* count, total, self, device, self device; -1 null */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct op *)a)->name, ((const struct op *)b)->name);
}

static int cmp_total(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->v[1] != y->v[1])
		return x->v[1] > y->v[1] ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void calc_op(struct buf *calc, const char *name, const char *field)
{
	buf_reset(calc);
	buf_adds(calc, "[\"cpu_op\",");
	html_key_str(calc, name);
	buf_printf(calc, ",\"%s\"]", field);
}

/* Operators of all ranks merged by name, by CPU total; *n set; NULL when none. */
static struct op *merged(const struct report *r, size_t *n)
{
	size_t all = 0, k = 0;
	struct op *v;

	*n = 0;
	for (size_t i = 0; i < r->nr_ranks; i++)
		all += r->ranks[i].analysed ? r->ranks[i].nr_cpu_ops : 0;
	if (!all || !(v = malloc(all * sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < r->nr_ranks; i++)
		for (size_t j = 0; r->ranks[i].analysed && j < r->ranks[i].nr_cpu_ops; j++) {
			const struct report_cpu_op *o = &r->ranks[i].cpu_ops[j];

			if (o->nr_folded)	/* the other row: not an operator of its name */
				continue;
			v[k++] = (struct op){ o->name, { o->count, o->total_ns, o->self_ns, o->device_ns,
							 o->self_device_ns } };
		}
	all = k;
	qsort(v, all, sizeof(*v), cmp_name);
	k = 0;
	for (size_t i = 0; i < all; i++) {
		if (!k || strcmp(v[k - 1].name, v[i].name)) {
			v[k++] = v[i];
			continue;
		}
		for (int f = 0; f < 5; f++)
			if (v[i].v[f] >= 0)
				v[k - 1].v[f] = v[k - 1].v[f] < 0 ? v[i].v[f] : sat_add(v[k - 1].v[f], v[i].v[f]);
	}
	qsort(v, k, sizeof(*v), cmp_total);
	*n = k;
	return v;
}

void html_ops(struct page *p)
{
	static const char *const field[] = { "count", "total_ns", "self_ns", "device_ns",
					     "self_device_ns" };
	size_t n, shown;
	struct op *v = merged(p->r, &n);
	struct buf calc;
	char *names;
	const char **list;

	buf_adds(p->b, "<section id=\"operators\">\n<h2>CPU operators</h2>\n");
	shown = n < TOP_OPS ? n : TOP_OPS;
	names = malloc((shown ? shown : 1) * SHORTEN_CAP(NAME_COLS));
	list = malloc((shown ? shown : 1) * sizeof(*list));
	if (!n || !names || !list) {
		buf_adds(p->b, "<p class=\"muted\">No CPU operators in these traces.</p>\n</section>\n");
		goto out;
	}
	for (size_t i = 0; i < shown; i++)
		list[i] = v[i].name;
	shorten_set(names, SHORTEN_CAP(NAME_COLS), list, shown, NAME_COLS);
	buf_printf(p->b, "<p class=\"muted\">Operators of all %zu rank%s by CPU time, as "
			 "torch.profiler's key_averages(); device time is that of the kernels, copies "
			 "and sets launched inside the operator (by correlation id), self without its "
			 "child operators'.</p>\n",
		   p->r->nr_ranks, p->r->nr_ranks == 1 ? "" : "s");
	buf_adds(p->b, "<div class=\"wrap\"><table><tr><th>operator</th><th>calls</th>"
		       "<th>CPU total</th><th>CPU self</th><th>device</th><th>device self</th></tr>\n");
	buf_init(&calc);
	for (size_t i = 0; i < shown; i++) {
		buf_adds(p->b, "<tr><td class=\"name\" title=\"");
		html_text(p, v[i].name);
		buf_adds(p->b, "\">");
		html_text(p, names + i * SHORTEN_CAP(NAME_COLS));
		buf_adds(p->b, "</td>");
		for (int f = 0; f < 5; f++) {
			calc_op(&calc, v[i].name, field[f]);
			if (v[i].v[f] < 0)
				html_dbl(p, "td", NULL, calc.data, NAN, UNIT_NS);
			else
				html_i64(p, "td", NULL, calc.data, v[i].v[f], f ? UNIT_NS : UNIT_COUNT);
		}
		buf_adds(p->b, "</tr>\n");
	}
	buf_release(&calc);
	buf_printf(p->b, "</table></div>\n%s</section>\n",
		   n > shown ? "<p class=\"muted\">tables/cpu_ops.csv has every operator of "
			       "every rank.</p>\n" : "");
out:
	free(names);
	free(list);
	free(v);
}
