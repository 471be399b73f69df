/*
 * html_util: escaping, numbers with their sources, chart markers and
 * legends, the small pieces every section of the page uses.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "html.h"
#include "jsonw.h"
#include "report_fields.h"

/* Colour-blind-friendly enough, and readable on the white chart cards. */
/*
 * Tableau 10's hues, then an indigo, a light green and a grey: no two
 * alike (its 20-colour set's pale teal beside the teal read as one).
 */
const uint32_t html_palette[HTML_PALETTE] = {
	0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948,
	0xb07aa1, 0xff9da7, 0x9c755f, 0x3b3b98, 0x8cd17d, 0xbab0ac,
};

/*
 * The bytes of s that the page shows: all of it up to HTML_TEXT_MAX, else
 * that many cut back to the start of a code point.  A name of 60 MB would
 * otherwise land whole in each title, cell and data-calc that names it.
 */
static size_t text_len(const char *s, int *cut)
{
	size_t n = strnlen(s, HTML_TEXT_MAX + 1);

	*cut = n > HTML_TEXT_MAX;
	if (!*cut)
		return n;
	for (n = HTML_TEXT_MAX; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
		;
	return n;
}

void html_text(struct page *p, const char *s)
{
	int cut;
	size_t n;

	if (!s)
		return;
	n = text_len(s, &cut);
	esc_html_n(p->b, s, n);
	if (cut)
		buf_adds(p->b, "\xe2\x80\xa6");	/* U+2026 */
}

void html_key_str(struct buf *key, const char *s)
{
	int cut = 0;
	size_t n = s ? text_len(s, &cut) : 0;

	buf_addc(key, '"');
	jsonw_escape(key, s ? s : "", n);
	if (cut)
		buf_adds(key, "\xe2\x80\xa6");	/* as html_text() cuts it */
	buf_addc(key, '"');
}

/* s inside a single-quoted attribute: & < > ' are the bytes that matter. */
static void attr1(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addc(b, *s);
		}
	}
}

const char *html_buf(struct page *p, const struct buf *b)
{
	if (!buf_ok(b)) {
		buf_fail(p->b);
		return "";
	}
	return b->data ? b->data : "";
}

void *html_alloc(struct page *p, size_t n)
{
	void *v = malloc(n);

	if (!v)
		buf_fail(p->b);
	return v;
}

void *html_calloc(struct page *p, size_t n, size_t size)
{
	void *v = calloc(n, size);

	if (!v)
		buf_fail(p->b);
	return v;
}

void html_fmt(struct buf *b, double v, enum metric_unit k)
{
	char s[METRIC_FMT_MAX];

	buf_adds(b, metric_fmt(s, sizeof(s), v, k, 0));
}

static void open_tag(struct page *p, const char *tag, const char *key, const char *calc)
{
	buf_printf(p->b, "<%s", tag);
	if (key) {
		buf_adds(p->b, " data-key='");
		attr1(p->b, key);
		buf_addc(p->b, '\'');
	}
	if (calc) {
		buf_adds(p->b, " data-calc='");
		attr1(p->b, calc);
		buf_addc(p->b, '\'');
	}
}

/* The element name of "td class=x": up to the first space. */
static void close_tag(struct page *p, const char *tag)
{
	buf_adds(p->b, "</");
	buf_add(p->b, tag, strcspn(tag, " "));
	buf_addc(p->b, '>');
}

void html_i64(struct page *p, const char *tag, const char *key, const char *calc, int64_t v,
	      enum metric_unit k)
{
	open_tag(p, tag, key, calc);
	buf_printf(p->b, " data-v=\"%" PRId64 "\">", v);
	html_fmt(p->b, (double)v, k);
	close_tag(p, tag);
}

void html_dbl(struct page *p, const char *tag, const char *key, const char *calc, double v,
	      enum metric_unit k)
{
	open_tag(p, tag, key, calc);
	if (isfinite(v))
		buf_printf(p->b, " data-v=\"%.17g\">", v);	/* as jsonw_double() */
	else
		buf_adds(p->b, " data-v=\"null\">");
	html_fmt(p->b, v, k);
	close_tag(p, tag);
}

const char *html_rank_key(char *key, size_t n, size_t i, const struct field_table *t,
			  size_t off)
{
	snprintf(key, n, "[\"%s\",%zu,\"%s\",\"%s\"]", rank_fields.name, i, t->name,
		 field_key_at(t, off));
	return key;
}

const char *html_rank_row_key(char *key, size_t n, size_t i, const struct field_table *t,
			      size_t k, size_t off)
{
	snprintf(key, n, "[\"%s\",%zu,\"%s\",%zu,\"%s\"]", rank_fields.name, i, t->name, k,
		 field_key_at(t, off));
	return key;
}

const char *html_row_key(char *key, size_t n, const struct field_table *t, size_t i,
			 size_t off)
{
	snprintf(key, n, "[\"%s\",%zu,\"%s\"]", t->name, i, field_key_at(t, off));
	return key;
}

void html_stat(struct page *p, const char *tag, const struct report_stat *st, const char *field)
{
	struct buf key;

	buf_init(&key);
	buf_printf(&key, "[\"%s\",", stat_fields.name);
	html_key_str(&key, st->metric);
	buf_printf(&key, ",\"%s\"]", field);
	/* the figure as stat_fields has it: the counts and ranks whole, the rest in its unit */
	for (size_t i = 0; i < stat_fields.n; i++) {
		const struct field *f = &stat_fields.f[i];
		const char *at = (const char *)st + f->off;

		if (strcmp(f->key, field) || f->flags & (FF_KEY | FF_OMIT))
			continue;
		if (f->type == FT_I64)
			html_i64(p, tag, html_buf(p, &key), NULL, *(const int64_t *)at, UNIT_COUNT);
		else if (f->type == FT_F64)
			html_dbl(p, tag, html_buf(p, &key), NULL, *(const double *)at,
				 metric_unit_of(st->metric));
	}
	buf_release(&key);
}

void html_stat_row(struct page *p, const struct report_stat *st, const char *name,
		   const char *const *fields, size_t nr_fields)
{
	buf_adds(p->b, "<tr><td class=\"name\">");
	html_text(p, name);
	buf_adds(p->b, "</td>");
	for (size_t c = 0; c < nr_fields; c++)
		html_stat(p, "td", st, fields[c]);
	buf_adds(p->b, "</tr>\n");
}

int html_chart(struct page *p, int w, int h, const char *what)
{
	int n = p->charts ? gnuplot_chart(&p->gp, w, h) : -1;

	buf_printf(p->b, "<figure class=\"chart\" aria-label=\"%s\">\x01%d\x02</figure>\n", what,
		   n);
	return n;
}

void html_legend_begin(struct page *p)
{
	buf_adds(p->b, "<ul class=\"legend\">");
}

void html_legend_item(struct page *p, uint32_t rgb, const char *name)
{
	buf_printf(p->b, "<li><span class=\"sw\" style=\"background:#%06x\"></span>", rgb);
	html_text(p, name);
	buf_adds(p->b, "</li>");
}

void html_legend_end(struct page *p)
{
	buf_adds(p->b, "</ul>\n");
}
