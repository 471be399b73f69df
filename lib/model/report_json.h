/*
 * report_json: the keyed value writers of the report's JSON, shared by the
 * writer's files (report.c, report_perf.c) so that a key and its value are
 * one call and null is written one way.  Private to lib/model.
 */
#ifndef VT_REPORT_JSON_H
#define VT_REPORT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"

static inline void num(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);	/* not finite: null */
}

static inline void i64(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_int(w, v);
}

/* An integer, or null when has is 0. */
static inline void i64_or_null(struct jsonw *w, const char *key, int has, int64_t v)
{
	jsonw_key(w, key);
	if (has)
		jsonw_int(w, v);
	else
		jsonw_null(w);
}

/* An array of n numbers under key, one a line as the writer indents. */
static inline void num_array(struct jsonw *w, const char *key, const double *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_double(w, v[i]);
	jsonw_arr_end(w);
}

static inline void str_or_null(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	if (s)
		jsonw_str(w, s);
	else
		jsonw_null(w);
}

#endif
