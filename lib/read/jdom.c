/* jdom: see jdom.h. */
#include "jdom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "jscan.h"

struct parser {
	struct jscan js;
	struct arena *a;
	const char *const *skip;	/* member names whose containers are skipped */
};

static int cut_off(struct parser *ps, const char *p)
{
	return err_set(ps->js.err, jscan_off(&ps->js, p), "the text ends inside a value");
}

/* A growable run of nodes: a container's children before they are placed. */
struct kids {
	struct jdom *v;
	size_t n, alloc;
};

static struct jdom *kids_push(struct kids *k)
{
	if (ALLOC_GROW(k->v, k->n + 1, k->alloc))
		return NULL;
	memset(&k->v[k->n], 0, sizeof(k->v[0]));
	return &k->v[k->n++];
}

static int value(struct parser *ps, const char **pp, struct jdom *out, int depth);

static int skipped(const struct parser *ps, const char *key, size_t n)
{
	/*
	 * Every member asks: the first byte settles most.  Lengths before
	 * bytes: a key may hold a NUL (\u0000), so it is no C string.
	 */
	for (const char *const *k = ps->skip; n && k && *k; k++)
		if ((*k)[0] == key[0] && strnlen(*k, n + 1) == n && !memcmp(*k, key, n))
			return 1;
	return 0;
}

/*
 * The container at *pp passed over to its closing bracket: brackets are
 * counted and strings (with their escapes) stepped over, nothing else is
 * looked at.  Depth is a counter here, so no nesting limit is needed.
 */
static int skip_container(struct parser *ps, const char **pp, struct jdom *out)
{
	const char *p = jscan_ws(*pp, ps->js.end), *start = p, *end = ps->js.end;
	size_t depth = 0;

	if (p >= end)
		return cut_off(ps, p);
	out->offset = jscan_off(&ps->js, p);
	if (*p != '[' && *p != '{')
		return value(ps, pp, out, 0);
	/* An array of numbers (what is skipped, mostly): its ']' is the first one. */
	if (*p == '[') {
		const char *q = memchr(p + 1, ']', (size_t)(end - p - 1));
		size_t n = q ? (size_t)(q - p - 1) : 0;

		if (q && !memchr(p + 1, '[', n) && !memchr(p + 1, '{', n) &&
		    !memchr(p + 1, '"', n)) {
			out->type = JDOM_SKIPPED;
			out->s = start;
			out->len = (size_t)(q + 1 - start);
			*pp = q + 1;
			return 0;
		}
	}
	for (; p < end; p++) {
		char c = *p;

		if (c == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\' && ++p == end)
					break;
			if (p >= end)
				break;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && --depth == 0) {
			out->type = JDOM_SKIPPED;
			out->s = start;
			out->len = (size_t)(p + 1 - start);
			*pp = p + 1;
			return 0;
		}
	}
	return cut_off(ps, end);
}

/* Move the collected children into the arena, as out's kids. */
static int place(struct parser *ps, struct kids *k, struct jdom *out, const char *p)
{
	out->n = k->n;
	if (!k->n)
		return 0;
	out->kids = arena_alloc(ps->a, k->n * sizeof(*out->kids));
	if (!out->kids)
		return err_set(ps->js.err, jscan_off(&ps->js, p), "out of memory");
	memcpy(out->kids, k->v, k->n * sizeof(*out->kids));
	return 0;
}

static int container(struct parser *ps, const char **pp, struct jdom *out, int depth)
{
	int is_obj = **pp == '{', first = 1, more = 1, rc = -1;
	const char *start = *pp;
	struct kids k = { 0 };

	if (depth >= JDOM_MAX_DEPTH) {
		return err_set(ps->js.err, jscan_off(&ps->js, *pp),
			       "nested deeper than %d levels", JDOM_MAX_DEPTH);
	}
	out->type = is_obj ? JDOM_OBJECT : JDOM_ARRAY;
	for (;;) {
		const char *key = NULL;
		size_t key_len = 0;
		struct jdom *kid;
		int r = is_obj ? jscan_member(&ps->js, pp, first, &key, &key_len, &more,
					      "expected ',' or '}' in object")
			       : jscan_element(&ps->js, pp, first, &more);

		if (r == JS_MORE) {
			cut_off(ps, ps->js.end);
			goto out;
		}
		if (r != JS_OK)
			goto out;
		first = 0;
		if (!more)
			break;
		kid = kids_push(&k);
		if (!kid) {
			err_set(ps->js.err, jscan_off(&ps->js, *pp), "out of memory");
			goto out;
		}
		if (is_obj) {
			kid->key = arena_strndup(ps->a, key, key_len);
			kid->key_len = key_len;
			if (!kid->key) {
				err_set(ps->js.err, jscan_off(&ps->js, *pp), "out of memory");
				goto out;
			}
		}
		/* kid may move when k grows below: parse into a copy. */
		{
			struct jdom v = *kid;

			if (is_obj && ps->skip && skipped(ps, key, key_len) ?
				    skip_container(ps, pp, &v) : value(ps, pp, &v, depth + 1))
				goto out;
			k.v[k.n - 1] = v;
		}
	}
	rc = place(ps, &k, out, start);
out:
	free(k.v);
	return rc;
}

static int value(struct parser *ps, const char **pp, struct jdom *out, int depth)
{
	const char *p = jscan_ws(*pp, ps->js.end), *s;
	size_t len;
	int64_t ignored;
	int rc;

	if (p >= ps->js.end)
		return cut_off(ps, p);
	out->offset = jscan_off(&ps->js, p);
	switch (*p) {
	case '{':
	case '[':
		*pp = p;
		return container(ps, pp, out, depth);
	case '"':
		rc = jscan_string(&ps->js, &p, &s, &len);
		if (rc == JS_MORE)
			return cut_off(ps, p);
		if (rc != JS_OK)
			return -1;
		out->type = JDOM_STRING;
		out->s = arena_strndup(ps->a, s, len);
		out->len = len;
		if (!out->s)
			return err_set(ps->js.err, out->offset, "out of memory");
		break;
	case 't':
	case 'f':
	case 'n': {
		char c = *p;

		rc = jscan_word(&ps->js, &p, c == 't' ? "true" : c == 'f' ? "false" : "null");
		if (rc == JS_MORE)
			return cut_off(ps, p);
		if (rc != JS_OK)
			return -1;
		out->type = c == 'n' ? JDOM_NULL : JDOM_BOOL;
		out->boolean = c == 't';
		break;
	}
	default:
		s = p;
		rc = jscan_number(&ps->js, &p, 0, &ignored);
		/* A number that ends the text may be whole: "5" is a document. */
		if (rc == JS_MORE && jscan_number_text(s, (size_t)(ps->js.end - s), 0,
						       &ignored) != JS_BAD) {
			p = ps->js.end;
			rc = JS_OK;
		}
		if (rc == JS_MORE)
			return cut_off(ps, p);
		if (rc == JS_BAD)
			return -1;
		out->type = JDOM_NUMBER;
		out->s = s;
		out->len = (size_t)(p - s);
		break;
	}
	*pp = p;
	return 0;
}

struct jdom *jdom_parse(const char *text, size_t len, struct arena *a, struct err *err)
{
	return jdom_parse_skip(text, len, a, err, NULL);
}

struct jdom *jdom_parse_skip(const char *text, size_t len, struct arena *a, struct err *err,
			     const char *const *skip)
{
	struct parser ps = { .a = a, .skip = skip };
	struct jdom *root = arena_alloc(a, sizeof(*root));
	const char *p = text;

	if (!root) {
		err_set(err, 0, "out of memory");
		return NULL;
	}
	memset(root, 0, sizeof(*root));
	jscan_init(&ps.js, text, len, 0, a, err);
	if (value(&ps, &p, root, 0))
		return NULL;
	p = jscan_ws(p, text + len);
	if (p != text + len) {
		err_set(err, p - text, "unexpected text after the JSON value");
		return NULL;
	}
	return root;
}

const struct jdom *jdom_get(const struct jdom *obj, const char *key)
{
	size_t n = strlen(key);

	if (!obj || obj->type != JDOM_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->kids[i].key_len == n && !memcmp(obj->kids[i].key, key, n))
			return &obj->kids[i];
	return NULL;
}

int jdom_i64(const struct jdom *v, int64_t *out)
{
	if (!v || v->type != JDOM_NUMBER || memchr(v->s, '.', v->len) ||
	    memchr(v->s, 'e', v->len) || memchr(v->s, 'E', v->len))
		return -1;
	return jscan_number_text(v->s, v->len, 0, out) == JS_OK ? 0 : -1;
}

int jdom_f64(const struct jdom *v, double *out)
{
	char tmp[64], *end;

	if (v && v->type == JDOM_NULL) {
		*out = NAN;
		return 0;
	}
	if (!v || v->type != JDOM_NUMBER || v->len >= sizeof(tmp))
		return -1;
	memcpy(tmp, v->s, v->len);
	tmp[v->len] = 0;
	*out = strtod(tmp, &end);
	return end == tmp + v->len ? 0 : -1;
}

const char *jdom_type_name(enum jdom_type t)
{
	static const char *const names[] = { "null", "a boolean", "a number", "a string",
					     "an array", "an object", "skipped" };

	return names[t];
}
