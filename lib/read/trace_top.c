/*
 * trace_top: see trace_top.h.
 *
 * Each step scans one whole member from the start of t->pend; a member
 * that is not complete yet is scanned again when the pending text has
 * doubled (or at the end of input), so a large top-level value costs
 * linear time, not quadratic.
 */
#include "trace_top.h"

#include <string.h>

#include "jscan.h"

void trace_top_init(struct trace_top *t, struct trace_info *info)
{
	memset(t, 0, sizeof(*t));
	t->state = TOP_START;
	buf_init(&t->pend);
	t->info = info;
}

void trace_top_release(struct trace_top *t)
{
	buf_release(&t->pend);
}

/* An integer value, or a string holding one (some writers quote numbers). */
static int get_int(struct jscan *js, const char **pp, int64_t *out)
{
	const char *s;
	size_t n;
	int rc;

	if (**pp == '"') {
		if ((rc = jscan_string(js, pp, &s, &n)) != JS_OK)
			return rc;
		return jscan_number_text(s, n, 0, out) == JS_OK ? JS_OK : JS_RANGE;
	}
	if (**pp == '-' || (**pp >= '0' && **pp <= '9'))
		return jscan_number(js, pp, 0, out);
	rc = jscan_skip(js, pp);
	return rc == JS_OK ? JS_RANGE : rc;
}

/* Walk the members of the object at *p, calling fn for each. */
static int each_member(struct jscan *js, const char *p,
		       int (*fn)(struct jscan *js, const char **pp, const char *k, size_t n,
				 void *ctx), void *ctx)
{
	const char *k;
	size_t n;
	int rc, more;

	if (*p != '{')
		return JS_OK;
	for (rc = jscan_member(js, &p, 1, &k, &n, &more, "expected ',' or '}'");
	     rc == JS_OK && more;
	     rc = jscan_member(js, &p, 0, &k, &n, &more, "expected ',' or '}'"))
		if ((rc = fn(js, &p, k, n, ctx)) != JS_OK)
			return rc;
	return rc;
}

static int dist_member(struct jscan *js, const char **pp, const char *k, size_t n, void *ctx)
{
	struct trace_info *info = ctx;
	int64_t v;
	int rc;

	if (n == 7 && !memcmp(k, "backend", 7) && **pp == '"') {
		const char *s;
		size_t len;

		if ((rc = jscan_string(js, pp, &s, &len)) != JS_OK)
			return rc;
		if (len < sizeof(info->backend)) {	/* a longer one is no backend name */
			memcpy(info->backend, s, len);
			info->backend[len] = '\0';
		}
		return JS_OK;
	}
	/* Only a JSON number counts: "rank": "4" is not taken on trust. */
	if (**pp != '"' &&
	    ((n == 4 && !memcmp(k, "rank", 4)) || (n == 10 && !memcmp(k, "world_size", 10)))) {
		rc = get_int(js, pp, &v);
		if (rc == JS_OK)
			*(n == 4 ? &info->rank : &info->world_size) = v;
		return rc == JS_RANGE ? JS_OK : rc;
	}
	return jscan_skip(js, pp);
}

static int device_member(struct jscan *js, const char **pp, const char *k, size_t n, void *ctx)
{
	struct trace_device *d = ctx;
	const char *s;
	size_t len;
	int64_t v;
	int rc;

	if (n == 4 && !memcmp(k, "name", 4) && **pp == '"') {
		if ((rc = jscan_string(js, pp, &s, &len)) != JS_OK)
			return rc;
		if (len >= sizeof(d->name))
			len = sizeof(d->name) - 1;
		memcpy(d->name, s, len);
		d->name[len] = '\0';
		return JS_OK;
	}
	if ((n == 2 && !memcmp(k, "id", 2)) || (n == 14 && !memcmp(k, "totalGlobalMem", 14))) {
		rc = get_int(js, pp, &v);
		if (rc == JS_OK)
			*(n == 2 ? &d->id : &d->total_mem) = v;
		return rc == JS_RANGE ? JS_OK : rc;
	}
	return jscan_skip(js, pp);
}

static int read_devices(struct jscan *js, const char *p, struct trace_info *info)
{
	int rc, more;

	if (*p == '"') {
		/*
		 * Some ROCm writers store the list as its JSON text in a string:
		 * read that text the same way.  It is a tag, not the trace's
		 * structure: text that does not parse is left unread.
		 */
		struct jscan inner;
		struct err ignored = { 0 };
		const char *s;
		size_t len;

		if ((rc = jscan_string(js, &p, &s, &len)) != JS_OK)
			return rc;
		jscan_init(&inner, s, len, jscan_off(js, p), js->arena, &ignored);
		s = jscan_ws(s, s + len);
		if (s < inner.end && *s == '[')
			read_devices(&inner, s, info);
		return JS_OK;
	}
	if (*p != '[')
		return JS_OK;
	for (rc = jscan_element(js, &p, 1, &more); rc == JS_OK && more;
	     rc = jscan_element(js, &p, 0, &more)) {
		struct trace_device dummy, *d = &dummy;
		const char *q = p;

		if (info->nr_devices < TRACE_MAX_DEVICES)
			d = &info->devices[info->nr_devices++];
		memset(d, 0, sizeof(*d));
		d->id = (int64_t)(d - info->devices);
		d->total_mem = -1;
		if ((rc = each_member(js, q, device_member, d)) != JS_OK)
			return rc;
		if ((rc = jscan_skip(js, &p)) != JS_OK)
			return rc;
	}
	return rc;
}

/*
 * The profiler's own top-level keys (Kineto's output_json.cpp and
 * torch.profiler's export, HTA's and TensorBoard's test traces): the rest
 * are the run's metadata, add_metadata()'s keys.
 */
static const char *const profiler_keys[] = {
	"schemaVersion", "deviceProperties", "computeProperties", "distributedInfo",
	"traceName", "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "stackFrames",
	"samples", "systemTraceEvents", "record_shapes", "with_stack", "with_flops",
	"with_modules", "profile_memory", "trace_id", "cupti_version", "cuda_runtime_version",
	"cuda_driver_version", "roctracer_version", "hip_runtime_version", "hip_driver_version",
	"INFO", "WARNING", "ERROR", "vtrace", "vtraceInput",
};

static int profiler_key(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof(profiler_keys) / sizeof(profiler_keys[0]); i++)
		if (strlen(profiler_keys[i]) == n && !memcmp(profiler_keys[i], k, n))
			return 1;
	return 0;
}

/* A tag from a top-level member: a string's text, else the value's JSON text [p, end). */
static int tag_value(struct trace_top *t, struct jscan *js, const char *k, size_t n,
		     const char *p, const char *end)
{
	const char *s;
	size_t len;
	int rc;

	if (*p != '"') {
		trace_info_tag(t->info, k, n, p, (size_t)(end - p));
		return JS_OK;
	}
	if ((rc = jscan_string(js, &p, &s, &len)) != JS_OK)
		return rc;
	trace_info_tag(t->info, k, n, s, len);
	return JS_OK;
}

/* A complete member value at [p, end). */
static int use_value(struct trace_top *t, struct jscan *js, const char *k, size_t n,
		     const char *p, const char *end)
{
	struct trace_info *info = t->info;
	int64_t v;

	if (n == 15 && !memcmp(k, "distributedInfo", 15))
		return each_member(js, p, dist_member, info);
	if (n == 16 && !memcmp(k, "deviceProperties", 16))
		return read_devices(js, p, info);
	if (n == 19 && !memcmp(k, "baseTimeNanoseconds", 19)) {
		if (get_int(js, &p, &v) == JS_OK) {
			info->base_time_ns = v;
			info->has_base_time = 1;
		}
	}
	/* our own report or comparison, given where a trace goes: said at the end */
	if (n == 6 && !memcmp(k, "schema", 6) && end - p > 8 && !memcmp(p, "\"vtrace.", 8))
		t->vtrace_output = 1;
	if (!profiler_key(k, n))
		return tag_value(t, js, k, n, p, end);
	return JS_OK;
}

/*
 * Mark the next n pending bytes read: *used of them are, from the start of
 * t->pend.  run() drops them all at once when it returns: moving the rest
 * of a chunk down for each member read made a prologue of many small
 * members quadratic in the chunk.
 */
static void consume(struct trace_top *t, size_t *used, size_t n)
{
	if (n == 0)
		return;
	*used += n;
	t->pend_off += (int64_t)n;
	t->retry_len = 0;
}

/*
 * Run the machine over the pending text.  final: no more text will come,
 * so scan whatever is there.  Returns 0 (need more), 1 (events begin), -1.
 */
static int run(struct trace_top *t, int final, struct err *e)
{
	struct arena scratch;
	struct jscan js;
	size_t used = 0;	/* bytes of t->pend read (consume()) */
	int ret = 0;

	if (!final && t->retry_len && t->pend.len < t->retry_len)
		return 0;
	if (!t->pend.data)
		return 0;	/* nothing fed yet: an empty input */
	arena_init(&scratch);
	for (;;) {
		const char *start = t->pend.data + used, *end = t->pend.data + t->pend.len;
		const char *p, *k, *v;
		size_t n;
		int rc;

		jscan_init(&js, start, (size_t)(end - start), t->pend_off, &scratch, e);
		p = jscan_ws(start, end);
		if (t->state == TOP_START && end - p >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
			p = jscan_ws(p + 3, end);	/* UTF-8 byte order mark */
		if (p >= end) {
			consume(t, &used, (size_t)(p - start));
			break;
		}
		switch (t->state) {
		case TOP_START:
			if (*p == '[') {
				t->is_array = 1;
				t->seen_events = 1;
				t->state = TOP_EVENTS;
				t->info->format = "array";
				consume(t, &used, (size_t)(p + 1 - start));
				ret = 1;
				goto out;
			}
			if (*p != '{') {
				err_set(e, jscan_off(&js, p), "not a trace: expected '{' or '['");
				ret = -1;
				goto out;
			}
			t->state = TOP_OBJ_FIRST;
			t->info->format = "kineto";
			consume(t, &used, (size_t)(p + 1 - start));
			continue;
		case TOP_OBJ_FIRST:
		case TOP_OBJ_MEMBER:
			if (*p == '}' && t->state == TOP_OBJ_FIRST) {
				t->state = TOP_DONE;
				consume(t, &used, (size_t)(p + 1 - start));
				continue;
			}
			if (*p != '"') {
				err_set(e, jscan_off(&js, p), "expected a member name");
				ret = -1;
				goto out;
			}
			rc = jscan_string(&js, &p, &k, &n);
			if (rc == JS_OK) {
				p = jscan_ws(p, end);
				if (p < end && *p != ':') {
					err_set(e, jscan_off(&js, p),
						"expected ':' after member name");
					ret = -1;
					goto out;
				}
				p = p < end ? jscan_ws(p + 1, end) : end;
				rc = p < end ? JS_OK : JS_MORE;
			}
			if (rc == JS_OK && !t->seen_events && *p == '[' && n == 11 &&
			    !memcmp(k, "traceEvents", 11)) {
				t->seen_events = 1;
				t->state = TOP_EVENTS;
				consume(t, &used, (size_t)(p + 1 - start));
				ret = 1;
				goto out;
			}
			v = p;
			if (rc == JS_OK)
				rc = jscan_skip(&js, &p);
			if (rc == JS_OK)
				rc = use_value(t, &js, k, n, v, p);
			if (rc == JS_MORE && !final) {
				if ((size_t)(end - start) > TRACE_MAX_EVENT_BYTES) {
					err_set(e, t->pend_off,
						"top-level value larger than %u MiB",
						TRACE_MAX_EVENT_BYTES >> 20);
					ret = -1;
					goto out;
				}
				t->retry_len = (size_t)(end - start) * 2;
				goto out;
			}
			if (rc == JS_MORE)
				goto out;	/* cut off: trace_top_finish() says so */
			if (rc != JS_OK) {
				ret = -1;
				goto out;
			}
			t->state = TOP_OBJ_AFTER;
			consume(t, &used, (size_t)(p - start));
			continue;
		case TOP_OBJ_AFTER:
			if (*p == ',') {
				t->state = TOP_OBJ_MEMBER;
			} else if (*p == '}') {
				t->state = TOP_DONE;
			} else {
				err_set(e, jscan_off(&js, p), "expected ',' or '}' after member");
				ret = -1;
				goto out;
			}
			consume(t, &used, (size_t)(p + 1 - start));
			continue;
		case TOP_DONE:
			if (!t->trailing) {
				struct err w;

				/* two traces in one file, or a traceEvents closed early */
				err_set(&w, jscan_off(&js, p), "text after the end of the trace "
					"not read: the trace is incomplete");
				trace_info_warn(t->info, &w);
				t->trailing = 1;
			}
			consume(t, &used, (size_t)(end - start));
			goto out;
		case TOP_EVENTS:
			goto out;	/* the reader's part */
		}
	}
out:
	if (used) {
		memmove(t->pend.data, t->pend.data + used, t->pend.len - used);
		t->pend.len -= used;
	}
	arena_release(&scratch);
	return ret;
}

int trace_top_feed(struct trace_top *t, const char *text, size_t len, int64_t off,
		   struct err *e)
{
	if (t->pend.len == 0)
		t->pend_off = off;
	if (t->state == TOP_DONE && t->trailing)
		return 0;
	buf_add(&t->pend, text, len);
	if (!buf_ok(&t->pend))
		return err_set(e, off, "out of memory");
	if (t->state == TOP_EVENTS)
		return 0;
	return run(t, 0, e);
}

int trace_top_drain(struct trace_top *t, struct err *e)
{
	if (t->state == TOP_EVENTS || (t->state == TOP_DONE && t->trailing))
		return 0;
	return run(t, 1, e);
}

void trace_top_take(struct trace_top *t)
{
	t->pend.len = 0;
}

void trace_top_events_done(struct trace_top *t)
{
	t->state = t->is_array ? TOP_DONE : TOP_OBJ_AFTER;
	t->pend.len = 0;
	t->retry_len = 0;
}

int trace_top_finish(struct trace_top *t, int64_t end_off, struct err *e)
{
	if (trace_top_drain(t, e) < 0)
		return -1;
	switch (t->state) {
	case TOP_START:
		return err_set(e, end_off, end_off == 0 ? "empty input, not a trace"
							  : "not a trace: no JSON value");
	case TOP_DONE:
		/* at the end of the text: the whole value was read and held no events */
		if (!t->seen_events && t->vtrace_output)
			return err_set(e, end_off, "not a trace but a vtrace report: give it to "
						   "vcompare or vaggregate");
		if (!t->seen_events)
			return err_set(e, end_off, "not a trace: no traceEvents array");
		return 0;
	case TOP_EVENTS:
		return err_set(e, end_off, "input ends inside traceEvents");
	default:
		return err_set(e, end_off, "input ends inside the top-level object");
	}
}
