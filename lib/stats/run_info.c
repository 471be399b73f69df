/*
 * run_info: see run_info.h.
 */
#include "run_info.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "field.h"
#include "log.h"
#include "report_fields.h"

/* Both known and not equal. */
static int str_differs(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

/* The name part of a path: no directory, no trace suffixes. */
static void stem_of(const char *path, const char **s, size_t *n)
{
	static const char *const suffixes[] = { ".gz", ".json", ".trace", ".pt", ".vtr" };
	const char *slash = strrchr(path, '/');
	int cut = 1;

	*s = slash ? slash + 1 : path;
	*n = strlen(*s);
	while (cut) {
		cut = 0;
		for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
			size_t k = strlen(suffixes[i]);

			if (*n > k && !strncmp(*s + *n - k, suffixes[i], k)) {
				*n -= k;
				cut = 1;
			}
		}
	}
}

/* Drop trailing rank numbers and separators: "run-rank" and "run_worker3." are "run". */
static size_t trim_rank(const char *s, size_t n)
{
	static const char *const words[] = { "rank", "worker" };
	int cut = 1;

	while (cut) {
		cut = 0;
		while (n && (isdigit((unsigned char)s[n - 1]) || strchr("-_. ", s[n - 1]))) {
			n--;
			cut = 1;
		}
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
			size_t k = strlen(words[i]);

			if (n >= k && !strncasecmp(s + n - k, words[i], k)) {
				n -= k;
				cut = 1;
			}
		}
	}
	return n;
}

/* The tag "name" of the first rank with one, else the inputs' common stem; NULL: none. */
static const char *name_of(struct report *rep)
{
	const char *first = NULL;
	size_t common = 0;

	for (size_t i = 0; i < rep->nr_ranks; i++)
		for (size_t k = 0; k < rep->ranks[i].nr_tags; k++)
			if (!strcmp(rep->ranks[i].tags[k].key, "name") &&
			    rep->ranks[i].tags[k].value[0])
				return rep->ranks[i].tags[k].value;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const char *s;
		size_t n, k = 0;

		stem_of(rep->ranks[i].path ? rep->ranks[i].path : rep->ranks[i].source, &s, &n);
		if (!first) {
			first = s;
			common = n;
			continue;
		}
		while (k < common && k < n && s[k] == first[k])
			k++;
		common = k;
	}
	common = first ? trim_rank(first, common) : 0;
	return common ? arena_strndup(&rep->arena, first, common) : NULL;
}

/* The key of run's member m, as run.differs names it: run_fields'. */
#define RUN_KEY(m) field_key_at(&run_fields, offsetof(struct report_run, m))

/* Add key to run.differs unless one of its first upto has it (room was made by the caller). */
static void differs(struct report_run *run, const char *key, size_t upto)
{
	for (size_t i = 0; i < run->nr_differs && i < upto; i++)
		if (!strcmp(run->differs[i], key))
			return;
	run->differs[run->nr_differs++] = key;
}

/*
 * A rank's tag among all ranks' tags, and where it came: sorted by key,
 * each key's ranks sit together, so finding a key's first value and the
 * ranks that lack it or disagree is n log n.  A scan of the keys seen so
 * far for each tag, and of each rank's tags for each key, was square in
 * ranks times tags.
 */
struct tag_ref {
	const struct report_tag *t;
	size_t rank;		/* index in rep->ranks */
	size_t seq;		/* order over all ranks' tags, rank by rank */
	int differs;		/* the first of its key: some rank lacks it or disagrees */
};

static int cmp_tag_ref(const void *a, const void *b)
{
	const struct tag_ref *x = a, *y = b;
	int c = strcmp(x->t->key, y->t->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_tag_seq(const void *a, const void *b)
{
	const struct tag_ref *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * run.tags: each key once, where it first comes, with the first rank's
 * value; and in run.differs after the first fixed ones, each key that a
 * rank lacks or has with another value.  -1 when out of memory.
 */
static int run_tags(struct report *rep, size_t all, size_t fixed)
{
	struct report_run *run = &rep->run;
	struct tag_ref *v = malloc((all ? all : 1) * sizeof(*v));
	size_t n = 0, nk = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < rep->nr_ranks; i++)
		for (size_t k = 0; k < rep->ranks[i].nr_tags; k++, n++)
			v[n] = (struct tag_ref){ &rep->ranks[i].tags[k], i, n, 0 };
	qsort(v, n, sizeof(*v), cmp_tag_ref);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, ranks = 1;
		int diff = 0;

		for (; j < n && !strcmp(v[j].t->key, v[i].t->key); j++) {
			if (v[j].rank == v[j - 1].rank)
				continue;	/* the rank's first value of the key is its own */
			ranks++;
			if (strcmp(v[j].t->value, v[i].t->value))
				diff = 1;
		}
		v[i].differs = diff || ranks < rep->nr_ranks;
		v[nk++] = v[i];
		i = j;
	}
	qsort(v, nk, sizeof(*v), cmp_tag_seq);
	for (size_t i = 0; i < nk; i++)
		run->tags[run->nr_tags++] = *v[i].t;
	for (size_t i = 0; i < nk; i++)
		if (v[i].differs)
			differs(run, v[i].t->key, fixed);
	free(v);
	return 0;
}

/* Keys named in the warning: one line, however many tags the ranks carry. */
#define RUN_WARN_KEYS 8

void run_info_warn(const struct report *rep)
{
	const struct report_run *run = &rep->run;
	struct buf msg;
	struct err e;

	if (!run->nr_differs)
		return;
	buf_init(&msg);
	for (size_t i = 0; i < run->nr_differs && i < RUN_WARN_KEYS; i++) {
		buf_adds(&msg, i ? ", " : "");
		for (const char *c = run->differs[i]; *c; c++)
			buf_addc(&msg, *c >= 0x20 && *c < 0x7f ? *c : '?');
	}
	if (run->nr_differs > RUN_WARN_KEYS)
		buf_printf(&msg, " and %zu more", run->nr_differs - RUN_WARN_KEYS);
	err_set(&e, -1, "ranks disagree on what was profiled: %s (report.json's run.differs; "
		"each rank's own values are in its inputs entry)", buf_ok(&msg) ? msg.data : "?");
	log_warn(NULL, &e);
	buf_release(&msg);
}

/* 1 when the run's field at off is unknown: its null value (field.h). */
static int unknown(const struct report_run *run, size_t off)
{
	return field_is_null(&run_fields, off, run);
}

int run_info_compute(struct report *rep)
{
	struct report_run *run = &rep->run;
	size_t all = 3;
	int64_t devices = 0;
	char date[32];

	memset(run, 0, sizeof(*run));
	for (size_t i = 0; i < rep->nr_ranks; i++)
		all += rep->ranks[i].nr_tags;
	run->tags = arena_alloc(&rep->arena, all * sizeof(*run->tags));
	run->differs = arena_alloc(&rep->arena, all * sizeof(*run->differs));
	if (!run->tags || !run->differs)
		return -1;
	run->name = name_of(rep);
	run->world_size = run->start_unix_ns = INT64_MIN;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		if (str_differs(run->device.name, rk->device_name))
			differs(run, RUN_KEY(device), SIZE_MAX);
		if (!run->device.name)
			run->device.name = rk->device_name;
		if (str_differs(run->backend, rk->backend))
			differs(run, RUN_KEY(backend), SIZE_MAX);
		if (!run->backend)
			run->backend = rk->backend;
		/* a world size or a start of 0 or less is none */
		if (!unknown(run, offsetof(struct report_run, world_size)) && rk->world_size > 0 &&
		    rk->world_size != run->world_size)
			differs(run, RUN_KEY(world_size), SIZE_MAX);
		if (unknown(run, offsetof(struct report_run, world_size)) && rk->world_size > 0)
			run->world_size = rk->world_size;
		if (rk->start_unix_ns > 0 &&
		    (unknown(run, offsetof(struct report_run, start_unix_ns)) ||
		     rk->start_unix_ns < run->start_unix_ns))
			run->start_unix_ns = rk->start_unix_ns;
		devices += rk->analysed && !rk->gpu.no_device;
	}
	if (run_tags(rep, all - 3, run->nr_differs))
		return -1;
	run->device.count = devices ? devices : INT64_MIN;
	if (!unknown(run, offsetof(struct report_run, start_unix_ns))) {
		report_date(run->start_unix_ns, date);
		run->date = arena_strndup(&rep->arena, date, strlen(date));
		if (!run->date)
			return -1;
	}
	run->computed = 1;
	return 0;
}

/* A tag key that names what an experiment is: model, resolution, frames, steps. */
static int defining_key(const char *key)
{
	static const char *const words[] = { "model", "resolution", "height", "width", "frames",
					     "steps" };
	char low[64];
	size_t n = 0;

	for (; key[n] && n + 1 < sizeof(low); n++)
		low[n] = (char)tolower((unsigned char)key[n]);
	low[n] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(low, words[i]))
			return 1;
	return 0;
}

static int cmp_tag_key(const void *a, const void *b)
{
	return strcmp((*(const struct report_tag *const *)a)->key,
		      (*(const struct report_tag *const *)b)->key);
}

void run_info_stem(const struct report_rank *rk, struct buf *out)
{
	const char *path = rk->path ? rk->path : rk->source ? rk->source : "";
	const char *s;
	size_t n;

	buf_reset(out);
	stem_of(path, &s, &n);
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i])) {
			buf_addc(out, s[i]);
			continue;
		}
		buf_addc(out, '#');
		while (i + 1 < n && isdigit((unsigned char)s[i + 1]))
			i++;
	}
}

void run_info_identity(const struct report_rank *rk, struct buf *out)
{
	const struct report_tag *keep[64];
	size_t n = 0;

	buf_reset(out);
	if (rk->device_name)
		buf_printf(out, "device=%s\x1f", rk->device_name);
	if (rk->world_size > 0)
		buf_printf(out, "world_size=%" PRId64 "\x1f", rk->world_size);
	for (size_t i = 0; i < rk->nr_tags && n < sizeof(keep) / sizeof(keep[0]); i++)
		if (!strcmp(rk->tags[i].key, "name") || defining_key(rk->tags[i].key))
			keep[n++] = &rk->tags[i];
	if (n > 1)
		qsort(keep, n, sizeof(keep[0]), cmp_tag_key);
	for (size_t i = 0; i < n; i++)
		buf_printf(out, "%s=%s\x1f", keep[i]->key, keep[i]->value);
}

/* Add key with both values, when there is room. */
static size_t mismatch(const char **keys, const char **vals, size_t n, size_t max, const char *key,
		       const char *va, const char *vb)
{
	if (n >= max)
		return n;
	keys[n] = key;
	if (vals) {
		vals[2 * n] = va ? va : "-";
		vals[2 * n + 1] = vb ? vb : "-";
	}
	return n + 1;
}

/* Tags of one array by key, then place: the first of a key is where it first comes. */
static int cmp_tag_place(const void *a, const void *b)
{
	const struct report_tag *x = *(const struct report_tag *const *)a;
	const struct report_tag *y = *(const struct report_tag *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : x < y ? -1 : x > y;
}

/*
 * The defining tags of run, sorted by cmp_tag_place(), into *n; NULL when
 * out of memory (then found by a scan).  Looking each tag of one side up
 * in the other by a scan was square in the tags.
 */
static const struct report_tag **tag_index(const struct report_run *run, size_t *n)
{
	const struct report_tag **v = malloc((run->nr_tags ? run->nr_tags : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < run->nr_tags; i++)
		if (defining_key(run->tags[i].key))
			v[(*n)++] = &run->tags[i];
	qsort(v, *n, sizeof(*v), cmp_tag_place);
	return v;
}

/* The value of the first tag of run keyed key, NULL when none: key is a defining one. */
static const char *tag_value_of(const struct report_run *run, const struct report_tag **index,
				size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	if (!index) {
		for (size_t j = 0; j < run->nr_tags; j++)
			if (!strcmp(run->tags[j].key, key))
				return run->tags[j].value;
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(index[mid]->key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(index[lo]->key, key) ? index[lo]->value : NULL;
}

size_t run_info_mismatch(const struct report *a, const struct report *b, const char **keys,
			 const char **vals, size_t max)
{
	const struct report_run *x = &a->run, *y = &b->run;
	static char num[4][24];
	size_t n = 0, nx, ny;
	const struct report_tag **ix = tag_index(x, &nx), **iy = tag_index(y, &ny);

	if (str_differs(x->device.name, y->device.name))
		n = mismatch(keys, vals, n, max, RUN_KEY(device), x->device.name, y->device.name);
	if (x->device.count > 0 && y->device.count > 0 && x->device.count != y->device.count) {
		snprintf(num[0], sizeof(num[0]), "%" PRId64, x->device.count);
		snprintf(num[1], sizeof(num[1]), "%" PRId64, y->device.count);
		n = mismatch(keys, vals, n, max, "devices", num[0], num[1]);
	}
	if (!unknown(x, offsetof(struct report_run, world_size)) &&
	    !unknown(y, offsetof(struct report_run, world_size)) &&
	    x->world_size != y->world_size) {
		snprintf(num[2], sizeof(num[2]), "%" PRId64, x->world_size);
		snprintf(num[3], sizeof(num[3]), "%" PRId64, y->world_size);
		n = mismatch(keys, vals, n, max, RUN_KEY(world_size), num[2], num[3]);
	}
	for (int side = 0; side < 2; side++) {
		const struct report_run *p = side ? y : x, *q = side ? x : y;

		for (size_t i = 0; i < p->nr_tags && n < max; i++) {
			const char *other;

			if (!defining_key(p->tags[i].key))
				continue;
			other = side ? tag_value_of(q, ix, nx, p->tags[i].key)
				     : tag_value_of(q, iy, ny, p->tags[i].key);
			if (side && other)	/* on both sides: seen from a already */
				continue;
			if (!other || strcmp(other, p->tags[i].value))
				n = mismatch(keys, vals, n, max, p->tags[i].key,
					     side ? other : p->tags[i].value,
					     side ? p->tags[i].value : other);
		}
	}
	free((void *)ix);
	free((void *)iy);
	return n;
}

/* s, or its first max bytes (not inside a UTF-8 character) and "...". */
static void put_cut(struct buf *out, const char *s, size_t max)
{
	size_t n = strlen(s), shown = n > max ? max : n;

	while (shown < n && shown && ((unsigned char)s[shown] & 0xc0) == 0x80)
		shown--;
	buf_add(out, s, shown);
	if (shown < n)
		buf_adds(out, "...");
}

int run_info_private(const char *key)
{
	static const char *const keys[] = { "username", "user_name", "user", "host_name",
					    "hostname", "host" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(key, keys[i]))
			return 1;
	return 0;
}

/*
 * A tag's value on one line: a JSON object or array (a top-level member's
 * text) without the whitespace between its tokens, other text with each
 * run of white space (line breaks too) as one space.
 */
static void put_flat(struct buf *out, const char *s)
{
	int json = *s == '{' || *s == '[', in_str = 0, esc = 0, space = 0, any = 0;

	for (; *s; s++) {
		int ws = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' ||
			 *s == '\v';

		if (in_str) {
			in_str = esc || *s != '"';
			esc = !esc && *s == '\\';
		} else if (json && *s == '"') {
			in_str = 1;
		}
		if (ws && (!json || in_str)) {
			space = 1;
			continue;
		}
		if (ws)
			continue;
		if (space && any)
			buf_addc(out, ' ');
		space = 0;
		any = 1;
		buf_addc(out, *s);
	}
}

void run_info_line(const struct report *rep, struct buf *out, size_t max_tags)
{
	run_info_line_with(rep, out, max_tags, 0);
}

void run_info_line_with(const struct report *rep, struct buf *out, size_t max_tags,
			unsigned flags)
{
	const struct report_run *run = &rep->run;
	const char *sep = "";
	struct buf flat;
	size_t start;

	buf_init(&flat);
	if (run->name) {
		put_cut(out, run->name, 32);
		sep = ": ";
	}
	buf_adds(out, sep);
	if (run->device.count > 1)
		buf_printf(out, "%" PRId64 " x ", run->device.count);
	buf_adds(out, run->device.name ? run->device.name
		       : run->device.count > 0 ? "device of unknown model"
					       : "no device work");
	if (!unknown(run, offsetof(struct report_run, world_size)))
		buf_printf(out, ", world size %" PRId64, run->world_size);
	if (run->backend)
		buf_printf(out, " (%s)", run->backend);
	if (run->start_unix_ns > 0) {
		char d[32];

		report_date(run->start_unix_ns, d);
		d[16] = '\0';	/* to the minute */
		d[10] = ' ';
		buf_printf(out, ", %s UTC", d);
	}
	start = out->len;
	for (size_t i = 0; max_tags && i < run->nr_tags; i++) {
		const struct report_tag *t = &run->tags[i];
		size_t before = out->len;

		if (!strcmp(t->key, "name") ||
		    (!(flags & RUN_INFO_PRIVATE) && run_info_private(t->key)))
			continue;
		buf_adds(out, i && out->len > start ? " " : "; ");
		buf_adds(out, t->key);
		buf_addc(out, '=');
		buf_reset(&flat);
		put_flat(&flat, t->value);
		if (!buf_ok(&flat))
			buf_fail(out);
		put_cut(out, buf_ok(&flat) && flat.len ? flat.data : "", 40);
		if (out->len - start > max_tags) {	/* the rest: counted */
			out->len = before;
			out->data[out->len] = '\0';
			buf_printf(out, " (+%zu more)", run->nr_tags - i);
			break;
		}
	}
	buf_release(&flat);
}
