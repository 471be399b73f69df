/*
 * field: the report's objects as data.  A field table lists, in the order
 * report.json writes them, the keys of one kind of object (a kernel row, a
 * memory row, ...) with the type and offset of each in its C struct; the
 * writer (field_json()), the reader (report_read.c) and the CSV tables
 * (report/csvout.c) walk the table, so a new key is one entry.
 *
 * One null convention: an int64_t is null when INT64_MIN, a double when
 * not finite (NaN), a string when NULL.  JSON writes null, CSV an empty
 * cell, and reading null or a missing key (a report from before the key)
 * gives that value back; but a key marked FF_NONNULL must be there and not
 * null, as report_read() has always refused such a report.
 */
#ifndef VT_FIELD_H
#define VT_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "jsonw.h"

struct report_count;
struct report_tag;

enum field_type {
	FT_I64,			/* int64_t; INT64_MIN: null */
	FT_F64,			/* double; not finite: null */
	FT_STR,			/* const char *; NULL: null */
	FT_BOOL,		/* int: false or true */
	FT_INT,			/* int */
	FT_ENUM,		/* an enum (int-sized), written as names[value] */
	FT_I64S,		/* int64_t *: per times the size_t at aux, one array */
	FT_OBJ,			/* a struct of sub's fields, or null where the int at aux is 0 */
	FT_STRS,		/* const char **: as many strings as the size_t at aux */
	FT_TAGS,		/* struct report_tag *: as many as the size_t at aux, one
				   object of key: string value */
	FT_COUNTS,		/* struct report_count *: likewise, key: integer */
	FT_GROUP,		/* an object of sub's fields, which are the row's own (no off) */
	FT_F64S,		/* double *: as FT_I64S, one number a line, NaN: null; NULL: [] */
	FT_ROWS,		/* a pointer to rows of sub: as many as the size_t at aux, an
				   array of objects; NULL: [] */
};

/* Flags of a field. */
#define FF_NONNULL	1u	/* never null: a report with null or without it is refused;
				   a NULL string is written "" */
#define FF_OMIT		2u	/* written only when set (nonzero, non-NULL, true); absent: zero */
#define FF_TABLE	4u	/* a rank table's: left out of a compact report */
#define FF_LEAN		8u	/* left out of a lean read (REPORT_READ_LEAN) */
#define FF_SAME_N	16u	/* FT_I64S, FT_F64S: as long as the array before it with the same
				   count */
#define FF_KEY		32u	/* FT_STR: the key naming the row in its object, not a member */
#define FF_ZERO		64u	/* FT_I64: never written null; missing (a report from before
				   it) or null reads as 0 */
#define FF_LINES	128u	/* FT_I64S: a number a line, not one line (a short list) */

struct field_table;

struct field {
	const char *key;
	enum field_type type;
	unsigned flags;
	size_t off;			/* in the row's struct */
	size_t aux;			/* FT_I64S, FT_F64S, FT_ROWS: its size_t count; FT_OBJ:
					   its int presence */
	unsigned per;			/* FT_I64S, FT_F64S: numbers an item; FT_ENUM: how many
					   names */
	const char *const *names;	/* FT_ENUM */
	const struct field_table *sub;	/* FT_OBJ, FT_GROUP, FT_ROWS */
	int csv;			/* its column in the row table's CSV, from 1; 0: none */
	const char *csv_key;		/* the column's name, NULL: key */
	/* written only where when(row) holds; NULL: always (as FF_OMIT says) */
	int (*when)(const void *row);
	/*
	 * FT_ENUM, which has no null value: written null where known(row) is
	 * 0, as another field of the row says; read from null as 0.  NULL:
	 * always known.
	 */
	int (*known)(const void *row);
	/* FT_STR: what null or missing reads as (reports from before the key); NULL: NULL */
	const char *dflt;
};

struct field_table {
	const char *name;		/* the report's key of the rows: "kernels" (an array, or
					   an object of rows named by their FF_KEY field) */
	const struct field *f;
	size_t n;
	size_t size;			/* of a row */
	unsigned flags;			/* FF_LEAN: the whole table left out of a lean read */
};

/*
 * The start of an entry, designated, the rest following as needed:
 * { FIELD("count", FT_I64, struct report_kernel, d.count, FF_NONNULL), .csv = 5 }
 */
#define FIELD(k, t, T, m, fl) \
	.key = (k), .type = (t), .flags = (fl), .off = offsetof(T, m) + 0 * FIELD_TYPE_OK(T, m, t)

/* Compiles only where type t suits member m of struct T. */
#define FIELD_TYPE_OK(T, m, t) sizeof(char[_Generic(((T *)0)->m, \
	int64_t: (t) == FT_I64, \
	double: (t) == FT_F64, \
	const char *: (t) == FT_STR, \
	int: (t) == FT_BOOL || (t) == FT_INT || (t) == FT_ENUM, \
	int64_t *: (t) == FT_I64S, \
	double *: (t) == FT_F64S, \
	const char **: (t) == FT_STRS, \
	struct report_tag *: (t) == FT_TAGS, \
	struct report_count *: (t) == FT_COUNTS, \
	default: (t) == FT_ENUM || (t) == FT_OBJ || (t) == FT_ROWS) ? 1 : -1])

#define FIELD_TABLE(name, fields, T) \
	{ name, fields, sizeof(fields) / sizeof(fields[0]), sizeof(T), 0 }
#define FIELD_TABLE_LEAN(name, fields, T) \
	{ name, fields, sizeof(fields) / sizeof(fields[0]), sizeof(T), FF_LEAN }

/* field_json()'s flags */
#define FIELD_COMPACT	1u	/* a compact report: no FF_TABLE field */

/* 1 when field f of row is written (its when and FF_OMIT hold). */
int field_written(const struct field *f, const void *row, unsigned flags);

/* Write row's members as t lists them (no braces: the caller's object). */
void field_json(struct jsonw *w, const struct field_table *t, const void *row, unsigned flags);

/* Write n rows as an array under key t->name, one object each. */
void field_rows_json(struct jsonw *w, const struct field_table *t, const void *rows, size_t n,
		     unsigned flags);

/* The key of t's field at offset off of its row ("" where t has none there). */
const char *field_key_at(const struct field_table *t, size_t off);

/* 1 when the field of t at offset off holds its null value in row (none there: 1). */
int field_is_null(const struct field_table *t, size_t off, const void *row);

/* Set f of row to its null value (zero for FF_OMIT, FF_ZERO and the types without null, dflt). */
void field_null(const struct field *f, void *row);

#endif
