/* ranges: see ranges.h. */
#include "ranges.h"

void ranges_init(struct ranges *r)
{
	buf_init(&r->text);
	r->lo = 1;
	r->hi = 0;
	r->count = r->nr_ranges = r->hidden = 0;
}

void ranges_release(struct ranges *r)
{
	buf_release(&r->text);
}

/* Write the open range, or count it among the hidden ones. */
static void flush(struct ranges *r)
{
	if (r->lo > r->hi)
		return;
	if (r->nr_ranges > RANGES_SHOWN) {
		r->hidden += r->hi - r->lo + 1;
	} else {
		buf_printf(&r->text, "%s%lld", r->text.len ? ", " : "", (long long)r->lo);
		if (r->hi > r->lo)
			buf_printf(&r->text, "-%lld", (long long)r->hi);
	}
	r->lo = 1;
	r->hi = 0;
}

void ranges_add(struct ranges *r, int64_t n)
{
	if (r->lo <= r->hi && n <= r->hi)
		return;
	r->count++;
	if (r->lo <= r->hi && n == r->hi + 1) {
		r->hi = n;
		return;
	}
	flush(r);
	r->lo = r->hi = n;
	r->nr_ranges++;
}

void ranges_add_span(struct ranges *r, int64_t lo, int64_t hi)
{
	ranges_add(r, lo);
	if (hi > lo) {
		r->count += hi - lo;
		r->hi = hi;
	}
}

const char *ranges_str(struct ranges *r)
{
	flush(r);
	if (r->hidden && r->text.len)
		buf_printf(&r->text, ", ... and %lld more ranges (%lld ranks)",
			   (long long)(r->nr_ranges - RANGES_SHOWN), (long long)r->hidden);
	r->hidden = 0;
	return buf_ok(&r->text) && r->text.data ? r->text.data : "";
}
