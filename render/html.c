/*
 * html: render_html(), the report as one self-contained page.
 *
 * No network and no JavaScript: the stylesheet is inline, charts are
 * inline SVG, and the page reads the same from file:// in any browser, in
 * light or dark mode, and on paper.  gnuplot draws the charts in light
 * colours; in dark mode the stylesheet recolours their background, text,
 * axes and grid (the series keep their colours).  The sections are built
 * first with a marker where each chart goes; gnuplot then runs once for
 * all charts and the markers are swapped for the SVGs, or for a visible
 * note when gnuplot is missing or fails (one warning on stderr).
 */
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "html.h"
#include "outfile.h"
#include "render.h"
#include "run_info.h"

static const char style[] =
	":root{color-scheme:light dark;--bg:#ffffff;--fg:#1d2026;--muted:#5c6370;"
	"--card:#f3f4f6;--line:#d7dae0;--accent:#2f5fb3;--high:#c62828;--medium:#b26a00;"
	"--low:#2e7d32}\n"
	"@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e4e6ea;--muted:#9aa1ac;"
	"--card:#20232a;--line:#363a44;--accent:#8ab0ff;--high:#ff7b72;--medium:#f0b350;"
	"--low:#7ee787}}\n"
	"body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"
	"'Segoe UI',sans-serif;margin:0 auto;max-width:1200px;padding:16px 24px}\n"
	"h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .5em;"
	"border-bottom:1px solid var(--line);padding-bottom:.2em}h3{font-size:1.05em}\n"
	".muted,figcaption{color:var(--muted)}\n"
	"nav{display:flex;flex-wrap:wrap;gap:.3em 1em;margin:.5em 0 1em}"
	"nav a{color:var(--accent);text-decoration:none}\n"
	".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px}\n"
	".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
	"padding:8px 12px}.card .label{color:var(--muted);font-size:.85em}"
	".card .value{font-size:1.35em;font-weight:600}.card .sub{color:var(--muted);"
	"font-size:.8em}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.9em}"
	"th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;"
	"vertical-align:top}td[data-v],td.num{text-align:right;font-variant-numeric:"
	"tabular-nums;white-space:nowrap}th{background:var(--card)}\n"
	".wrap{overflow-x:auto}.name{max-width:48em;overflow-wrap:anywhere;"
	"white-space:pre-wrap}\n"
	"figure.chart{background:#fff;color:#000;border:1px solid var(--line);"
	"border-radius:8px;margin:.6em 0;padding:4px}figure.chart svg{display:block;"
	"width:100%;height:auto}\n"
	/*
	 * gnuplot draws the light palette; in dark mode the same SVG takes the
	 * page's colours: CSS properties outrank SVG presentation attributes.
	 */
	"@media (prefers-color-scheme:dark){figure.chart{background:var(--card);color:var(--fg)}"
	"figure.chart svg rect[fill=\"#ffffff\"]{fill:var(--card)}"
	"figure.chart svg [color=black]{color:var(--fg)}"
	"figure.chart svg [stroke=black]{stroke:var(--fg)}"
	"figure.chart svg [fill=black]{fill:var(--fg)}"
	"figure.chart svg [color=gray]{color:var(--line)}"
	"figure.chart svg [stroke=gray]{stroke:var(--line)}}\n"
	"summary{cursor:pointer}summary h3{display:inline-block;margin:.6em 0 .3em}\n"
	".nochart{color:#6b4e00;background:#fff6d6;border:1px dashed #c9a227;"
	"padding:1.5em;margin:0;text-align:center}\n"
	".legend{list-style:none;padding:0;margin:.3em 0;display:flex;flex-wrap:wrap;"
	"gap:.2em 1.2em;font-size:.85em}.legend li{overflow-wrap:anywhere;max-width:40em}"
	".sw{display:inline-block;width:.9em;height:.9em;border-radius:2px;"
	"margin-right:.35em;vertical-align:-.1em}\n"
	".sev{font-weight:600;text-transform:uppercase;font-size:.8em}"
	".sev-high{color:var(--high)}.sev-medium{color:var(--medium)}.sev-low{color:var(--low)}\n"
	".sugg{background:var(--card);border-left:4px solid var(--line);border-radius:4px;"
	"padding:6px 12px;margin:.5em 0}.sugg.high{border-left-color:var(--high)}"
	".sugg.medium{border-left-color:var(--medium)}.sugg.low{border-left-color:var(--low)}\n"
	".warn{color:var(--medium)}\n"
	".run{font-size:1.05em;margin:.2em 0}.tags{display:grid;grid-template-columns:max-content "
	"1fr;gap:0 1em;margin:.3em 0;font-size:.9em}.tags dt{color:var(--muted)}.tags dd{margin:0;"
	"overflow-wrap:anywhere}\n"
	"@media print{body{max-width:none;padding:0;background:#fff;color:#000}nav{display:none}"
	"details{display:block}"
	"h2{break-after:avoid}figure.chart,.card,.sugg,tr{break-inside:avoid}"
	"figure.chart{border:none}.wrap{overflow:visible}}\n";

/* The same look for vcompare --scaling's page (scaling_html.c). */
const char *const html_stylesheet = style;

#define HTML_MAX_TAGS 32

/* What was profiled (run_info.h): the run's line, then its tags. */
static void run_header(struct page *p)
{
	const struct report_run *run = &p->r->run;
	size_t nr_private = 0;
	struct buf line;

	if (!run->computed)
		return;
	buf_init(&line);
	run_info_line(p->r, &line, 0);	/* the tags go in the list below */
	buf_adds(p->b, "<p class=\"run\">");
	html_text(p, html_buf(p, &line));
	buf_adds(p->b, "</p>\n");
	buf_release(&line);
	if (!run->nr_tags)
		return;
	buf_adds(p->b, "<dl class=\"tags\">");
	for (size_t i = 0; i < run->nr_tags && i < HTML_MAX_TAGS; i++) {
		/* a page is shared: who ran it, and where, stay in report.json */
		if (run_info_private(run->tags[i].key)) {
			nr_private++;
			continue;
		}
		buf_adds(p->b, "<dt>");
		html_text(p, run->tags[i].key);
		buf_adds(p->b, "</dt><dd>");
		html_text(p, run->tags[i].value);
		buf_adds(p->b, "</dd>");
	}
	if (run->nr_tags > HTML_MAX_TAGS)
		buf_printf(p->b, "<dt>&hellip;</dt><dd>%zu more in report.json</dd>",
			   run->nr_tags - HTML_MAX_TAGS);
	if (nr_private)
		buf_printf(p->b, "<dt>&hellip;</dt><dd>%zu naming a user or a host: in "
			   "report.json</dd>", nr_private);
	buf_adds(p->b, "</dl>\n");
	if (run->nr_differs)
		buf_adds(p->b, "<p class=\"warn\">The ranks disagree on some of this: see "
			       "report.json's run.differs and each input's own values.</p>\n");
}

static void head(struct page *p, const char *title)
{
	static const char *const nav[][2] = {
		{ "suggestions", "Suggestions" }, { "summary", "Summary" },
		{ "idle", "Why idle" },		{ "collectives", "Who waits" },
		{ "phases", "Phases" },		{ "timeline", "Timeline" },
		{ "steps", "Steps" },		{ "kernels", "Kernels" },
		{ "operators", "Operators" },
		{ "categories", "Device time" },	{ "memory", "Memory" },
		{ "cross-rank", "Cross-rank" }, { "inputs", "Inputs" },
	};

	buf_adds(p->b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		       "<meta name=\"color-scheme\" content=\"light dark\">\n"
		       "<meta name=\"generator\" content=\"vtrace " VTRACE_VERSION "\">\n<title>");
	html_text(p, title);
	buf_adds(p->b, "</title>\n<style>\n");
	buf_adds(p->b, style);
	buf_adds(p->b, "</style>\n</head>\n<body>\n<header>\n<h1>");
	html_text(p, title);
	buf_adds(p->b, "</h1>\n");
	run_header(p);
	buf_adds(p->b, "<p class=\"muted\">");
	html_text(p, p->r->tool ? p->r->tool : "vtrace");
	buf_printf(p->b, " " VTRACE_VERSION ", report schema " REPORT_SCHEMA ", %zu rank%s</p>\n"
			 "</header>\n<nav>",
		   p->r->nr_ranks, p->r->nr_ranks == 1 ? "" : "s");
	for (size_t i = 0; i < sizeof(nav) / sizeof(nav[0]); i++)
		buf_printf(p->b, "<a href=\"#%s\">%s</a>", nav[i][0], nav[i][1]);
	buf_adds(p->b, "</nav>\n");
}

/* The page with each chart marker replaced by its SVG or by the note. */
static void finish(struct page *p, const char *note, struct buf *out)
{
	const char *s = p->b->data ? p->b->data : "", *end = s + p->b->len;
	int defs = 1;

	while (s < end) {
		const char *m = memchr(s, '\x01', (size_t)(end - s));
		int n;

		if (!m) {
			buf_add(out, s, (size_t)(end - s));
			break;
		}
		buf_add(out, s, (size_t)(m - s));
		n = atoi(m + 1);
		s = memchr(m, '\x02', (size_t)(end - m));
		s = s ? s + 1 : end;
		if (n >= 0 && gnuplot_svg(&p->gp, n, defs, out) == 0) {
			defs = 0;
			continue;
		}
		buf_adds(out, "<p class=\"nochart\">Chart not drawn: ");
		esc_html(out, note);
		buf_adds(out, "</p>");
	}
}

int render_html(const struct report *r, const char *path, const struct render_opts *o,
		struct err *err)
{
	const char *title = o && o->title ? o->title : r->run.name ? r->run.name : "vtrace report";
	const char *note = "charts were turned off";
	struct buf page, out;
	struct page p;
	int rc;

	memset(&p, 0, sizeof(p));
	if (rollup_init(&p.ru, r))
		return err_set(err, -1, "out of memory writing '%s'", path);
	buf_init(&page);
	buf_init(&out);
	p.r = r;
	p.b = &page;
	p.many = r->nr_ranks > HTML_MANY_RANKS;
	p.tables = o && o->tables;
	p.charts = !(o && o->no_charts);
	if (p.charts && gnuplot_init(&p.gp)) {
		log_warn(NULL, &p.gp.err);
		note = p.gp.err.msg;
		p.charts = 0;
	}
	head(&p, title);
	/* what to change first, then the figures behind it */
	html_suggestions(&p);
	html_summary(&p);
	html_idle(&p);
	html_collectives(&p);
	html_phases(&p);
	html_timeline(&p);
	html_steps(&p);
	/*
	 * The details follow, unfolded: a reader scrolling down a page that
	 * folds its second half away takes the page to end at its steps.
	 */
	html_kernels(&p);
	html_ops(&p);
	html_roofline(&p);
	html_categories(&p);
	html_memory(&p);
	html_cross_rank(&p);
	html_inputs(&p);
	buf_adds(&page, "</body>\n</html>\n");
	if (p.charts && p.gp.nr_charts && gnuplot_run(&p.gp)) {
		log_warn(NULL, &p.gp.err);
		note = p.gp.err.msg;
	}
	finish(&p, note, &out);
	rc = !buf_ok(&page) || !buf_ok(&out) || !buf_ok(&p.gp.script);
	/* the directory goes before the write, which a closed pipe can kill */
	gnuplot_release(&p.gp);
	if (rc)
		rc = err_set(err, -1, "out of memory writing '%s'", path);
	else
		rc = outfile_write(path, out.data, out.len, err);
	buf_release(&page);
	buf_release(&out);
	rollup_release(&p.ru);
	return rc;
}
