/* report: see report.h.  Keys are written in the order DESIGN.md lists them. */
#include "report.h"

#include <string.h>

#include "jsonw.h"

void report_init(struct report *r, const char *tool)
{
	memset(r, 0, sizeof(*r));
	r->tool = tool;
	arena_init(&r->arena);
}

void report_release(struct report *r)
{
	arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}

static void counts(struct jsonw *w, const char *key, const struct report_count *c, size_t n)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_key(w, c[i].key);
		jsonw_int(w, c[i].n);
	}
	jsonw_obj_end(w);
}

static void rank_json(struct jsonw *w, const struct report_rank *rk)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "rank");
	jsonw_int(w, rk->rank);
	jsonw_key(w, "source");
	jsonw_str(w, rk->source);
	jsonw_key(w, "complete");
	jsonw_bool(w, rk->complete);
	jsonw_key(w, "warnings");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < rk->nr_warnings; i++)
		jsonw_str(w, rk->warnings[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "events");
	jsonw_obj_begin(w);
	jsonw_key(w, "total");
	jsonw_int(w, rk->events_total);
	counts(w, "by_ph", rk->by_ph, rk->nr_by_ph);
	counts(w, "by_cat", rk->by_cat, rk->nr_by_cat);
	jsonw_obj_end(w);
	jsonw_key(w, "span_ns");
	jsonw_int(w, rk->span_ns);
	jsonw_obj_end(w);
}

void report_to_json(const struct report *r, struct buf *out)
{
	struct jsonw w;

	jsonw_init(&w, out, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "schema");
	jsonw_str(&w, REPORT_SCHEMA);
	jsonw_key(&w, "tool");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "name");
	jsonw_str(&w, r->tool);
	jsonw_key(&w, "version");
	jsonw_str(&w, VTRACE_VERSION);
	jsonw_obj_end(&w);
	jsonw_key(&w, "inputs");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];

		jsonw_obj_begin(&w);
		jsonw_key(&w, "path");
		jsonw_str(&w, rk->path);
		jsonw_key(&w, "rank");
		jsonw_int(&w, rk->rank);
		jsonw_key(&w, "bytes");
		jsonw_int(&w, rk->bytes);
		jsonw_key(&w, "bytes_text");
		jsonw_int(&w, rk->bytes_text);
		jsonw_key(&w, "format");
		jsonw_str(&w, rk->format);
		jsonw_key(&w, "complete");
		jsonw_bool(&w, rk->complete);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "ranks");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nr_ranks; i++)
		rank_json(&w, &r->ranks[i]);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	buf_addc(out, '\n');
}
