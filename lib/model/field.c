/*
 * field: see field.h.
 */
#include "field.h"

#include <math.h>
#include <string.h>

#include "report.h"

#define AT(T, row, f) (*(T const *)((const char *)(row) + (f)->off))
#define AUX(T, row, f) (*(T const *)((const char *)(row) + (f)->aux))

int field_written(const struct field *f, const void *row, unsigned flags)
{
	if ((flags & FIELD_COMPACT && f->flags & FF_TABLE) || (f->when && !f->when(row)) ||
	    f->flags & FF_KEY)
		return 0;
	if (!(f->flags & FF_OMIT))
		return 1;
	switch (f->type) {
	case FT_I64:
		return AT(int64_t, row, f) != 0 && AT(int64_t, row, f) != INT64_MIN;
	case FT_F64:
		return isfinite(AT(double, row, f)) && AT(double, row, f) != 0;
	case FT_STR:
		return AT(const char *, row, f) != NULL;
	case FT_BOOL:
	case FT_INT:
	case FT_ENUM:
		return AT(int, row, f) != 0;
	case FT_I64S:
		return AT(const int64_t *, row, f) != NULL;
	case FT_OBJ:
		return AUX(int, row, f) != 0;
	case FT_STRS:
		return AT(const char *const *, row, f) != NULL;
	case FT_TAGS:
		return AT(const struct report_tag *, row, f) != NULL;
	case FT_COUNTS:
		return AT(const struct report_count *, row, f) != NULL;
	case FT_GROUP:
		return 1;
	case FT_F64S:
		return AT(const double *, row, f) != NULL;
	case FT_ROWS:
		return AT(const void *, row, f) != NULL;
	}
	return 1;
}

/* n rows of t from rows, one object each, as an array. */
static void rows_json(struct jsonw *w, const struct field_table *t, const void *rows, size_t n,
		      unsigned flags)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		field_json(w, t, (const char *)rows + i * t->size, flags);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void value_json(struct jsonw *w, const struct field *f, const void *row, unsigned flags)
{
	switch (f->type) {
	case FT_I64:
		if (AT(int64_t, row, f) == INT64_MIN)
			jsonw_null(w);
		else
			jsonw_int(w, AT(int64_t, row, f));
		break;
	case FT_F64:
		jsonw_double(w, AT(double, row, f));	/* not finite: null */
		break;
	case FT_STR:
		if (AT(const char *, row, f))
			jsonw_str(w, AT(const char *, row, f));
		else if (f->flags & FF_NONNULL)
			jsonw_str(w, "");	/* never null: a reader may count on a string */
		else
			jsonw_null(w);
		break;
	case FT_BOOL:
		jsonw_bool(w, AT(int, row, f));
		break;
	case FT_INT:
		jsonw_int(w, AT(int, row, f));
		break;
	case FT_ENUM:
		if (f->known && !f->known(row))
			jsonw_null(w);
		else if (AT(int, row, f) >= 0 && (unsigned)AT(int, row, f) < f->per)
			jsonw_str(w, f->names[AT(int, row, f)]);
		else
			jsonw_null(w);
		break;
	case FT_I64S:
		if (f->flags & FF_LINES) {
			jsonw_arr_begin(w);
			for (size_t i = 0; i < f->per * AUX(size_t, row, f); i++)
				jsonw_int(w, AT(const int64_t *, row, f)[i]);
			jsonw_arr_end(w);
			break;
		}
		jsonw_int_array(w, AT(const int64_t *, row, f), f->per * AUX(size_t, row, f));
		break;
	case FT_OBJ:
		if (!AUX(int, row, f)) {
			jsonw_null(w);
			break;
		}
		jsonw_obj_begin(w);
		field_json(w, f->sub, (const char *)row + f->off, flags);
		jsonw_obj_end(w);
		break;
	case FT_STRS:
		jsonw_arr_begin(w);
		for (size_t i = 0; i < AUX(size_t, row, f); i++)
			jsonw_str(w, AT(const char *const *, row, f)[i]);
		jsonw_arr_end(w);
		break;
	case FT_TAGS:
		jsonw_obj_begin(w);
		for (size_t i = 0; i < AUX(size_t, row, f); i++) {
			jsonw_key(w, AT(const struct report_tag *, row, f)[i].key);
			jsonw_str(w, AT(const struct report_tag *, row, f)[i].value);
		}
		jsonw_obj_end(w);
		break;
	case FT_COUNTS:
		jsonw_obj_begin(w);
		for (size_t i = 0; i < AUX(size_t, row, f); i++) {
			jsonw_key(w, AT(const struct report_count *, row, f)[i].key);
			jsonw_int(w, AT(const struct report_count *, row, f)[i].n);
		}
		jsonw_obj_end(w);
		break;
	case FT_GROUP:
		jsonw_obj_begin(w);
		field_json(w, f->sub, row, flags);
		jsonw_obj_end(w);
		break;
	case FT_F64S: {
		const double *v = AT(const double *, row, f);

		jsonw_arr_begin(w);
		for (size_t i = 0; v && i < f->per * AUX(size_t, row, f); i++)
			jsonw_double(w, v[i]);	/* not finite: null */
		jsonw_arr_end(w);
		break;
	}
	case FT_ROWS:
		rows_json(w, f->sub, AT(const void *, row, f),
			  AT(const void *, row, f) ? AUX(size_t, row, f) : 0, flags);
		break;
	}
}

void field_json(struct jsonw *w, const struct field_table *t, const void *row, unsigned flags)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];

		if (!field_written(f, row, flags))
			continue;
		jsonw_key(w, f->key);
		value_json(w, f, row, flags);
	}
}

void field_rows_json(struct jsonw *w, const struct field_table *t, const void *rows, size_t n,
		     unsigned flags)
{
	jsonw_key(w, t->name);
	rows_json(w, t, rows, n, flags);
}

const char *field_key_at(const struct field_table *t, size_t off)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->f[i].off == off && !(t->f[i].flags & FF_KEY) && t->f[i].type != FT_GROUP)
			return t->f[i].key;
	return "";
}

int field_is_null(const struct field_table *t, size_t off, const void *row)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];

		if (f->off != off || f->flags & FF_KEY || f->type == FT_GROUP)
			continue;
		switch (f->type) {
		case FT_I64:
			return AT(int64_t, row, f) == INT64_MIN;
		case FT_F64:
			return !isfinite(AT(double, row, f));
		case FT_STR:
			return AT(const char *, row, f) == NULL;
		case FT_OBJ:
			return !AUX(int, row, f);
		case FT_BOOL:
		case FT_INT:
		case FT_ENUM:
		case FT_I64S:
		case FT_STRS:
		case FT_TAGS:
		case FT_COUNTS:
		case FT_GROUP:
		case FT_F64S:
		case FT_ROWS:
			return 0;	/* no null value: an empty array is one */
		}
	}
	return 1;
}

void field_null(const struct field *f, void *row)
{
	char *p = (char *)row + f->off;
	int omit = !!(f->flags & (FF_OMIT | FF_ZERO));

	switch (f->type) {
	case FT_I64:
		*(int64_t *)p = omit ? 0 : INT64_MIN;
		break;
	case FT_F64:
		*(double *)p = omit ? 0 : NAN;
		break;
	case FT_STR:
		*(const char **)p = f->dflt;
		break;
	case FT_BOOL:
	case FT_INT:
	case FT_ENUM:
		*(int *)p = 0;
		break;
	case FT_I64S:
		*(int64_t **)p = NULL;
		/* a count shared with an earlier array is that array's */
		if (!(f->flags & FF_SAME_N))
			*(size_t *)((char *)row + f->aux) = 0;
		break;
	case FT_OBJ:
		*(int *)((char *)row + f->aux) = 0;
		break;
	case FT_STRS:
		*(const char ***)p = NULL;
		*(size_t *)((char *)row + f->aux) = 0;
		break;
	case FT_TAGS:
		*(struct report_tag **)p = NULL;
		*(size_t *)((char *)row + f->aux) = 0;
		break;
	case FT_COUNTS:
		*(struct report_count **)p = NULL;
		*(size_t *)((char *)row + f->aux) = 0;
		break;
	case FT_GROUP:
		for (size_t i = 0; i < f->sub->n; i++)
			field_null(&f->sub->f[i], row);
		break;
	case FT_F64S:
		*(double **)p = NULL;
		if (!(f->flags & FF_SAME_N))
			*(size_t *)((char *)row + f->aux) = 0;
		break;
	case FT_ROWS:
		*(void **)p = NULL;
		*(size_t *)((char *)row + f->aux) = 0;
		break;
	}
}
