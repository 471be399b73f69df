/*
 * jdom: a whole JSON text as a tree, for the small documents vtrace reads
 * back (reports), where random access matters more than streaming.
 *
 * Built on the jscan primitives, so strings and numbers follow the same
 * rules as in traces.  Every node lives in the caller's arena; strings are
 * NUL-terminated copies; numbers keep their text, and jdom_i64()/jdom_f64()
 * convert on demand (integers exactly, doubles with strtod, which reads
 * back what %.17g wrote bit for bit).  Nesting is bounded by JDOM_MAX_DEPTH
 * and the parse never recurses deeper than that.
 */
#ifndef VT_JDOM_H
#define VT_JDOM_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "log.h"

#define JDOM_MAX_DEPTH 64

enum jdom_type { JDOM_NULL, JDOM_BOOL, JDOM_NUMBER, JDOM_STRING, JDOM_ARRAY, JDOM_OBJECT,
		 JDOM_SKIPPED };

struct jdom {
	enum jdom_type type;
	int boolean;
	const char *s;			/* STRING: content; NUMBER: its text */
	size_t len;
	const char *key;		/* the member's key, inside an object */
	size_t key_len;
	struct jdom *kids;		/* ARRAY elements or OBJECT members, in order */
	size_t n;
	int64_t offset;			/* byte offset of the value, for messages */
};

/*
 * Parse text[0..len) (one value, then only whitespace) into a tree in a.
 * Returns the root, or NULL with err set: a syntax error or a text cut off
 * gives the byte offset; nesting deeper than JDOM_MAX_DEPTH is an error.
 */
struct jdom *jdom_parse(const char *text, size_t len, struct arena *a, struct err *err);

/*
 * jdom_parse(), except that an array or object that is the value of a
 * member named in skip (a NULL-terminated list) is passed over without
 * being built: its node is JDOM_SKIPPED, with its text in s and len.  Its
 * brackets and strings are matched (a text cut off inside it is still an
 * error), its contents are not checked.  For readers that leave such
 * members out anyway: most of a report's numbers are samples.
 */
struct jdom *jdom_parse_skip(const char *text, size_t len, struct arena *a, struct err *err,
			     const char *const *skip);

/* The first member of obj called key, or NULL (also when obj is no object). */
const struct jdom *jdom_get(const struct jdom *obj, const char *key);

/* A NUMBER written as an integer that fits int64: 0, else -1. */
int jdom_i64(const struct jdom *v, int64_t *out);

/* A NUMBER as a double, null as NaN: 0, else -1. */
int jdom_f64(const struct jdom *v, double *out);

/* The name of a type, for messages: "an object", "a number", ... */
const char *jdom_type_name(enum jdom_type t);

#endif
