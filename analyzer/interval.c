/*
 * interval: see interval.h.  Sort by start (radix, through lib/sort), then
 * one sweep.  Only the starts need ordering: the sweep takes the largest
 * end of each run.
 */
#include "interval.h"

#include <stdlib.h>

#include "grow.h"
#include "sat.h"
#include "sort.h"
#include "varint.h"

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Order v by lo: radix sort when memory allows, qsort otherwise.  Device
 * records mostly come in time order already, and then no sort (and no
 * scratch copy, as large as v) is needed; the union does not depend on how
 * equal starts are ordered.
 */
static void order(struct interval *v, size_t n)
{
	size_t k = 1;

	while (k < n && v[k - 1].lo <= v[k].lo)
		k++;
	if (k < n && sort_by_first_i64(v, n, sizeof(*v)))
		qsort(v, n, sizeof(*v), cmp_interval);
}

size_t interval_union(struct interval *v, size_t n)
{
	size_t k = 0;

	if (n > 1)
		order(v, n);
	for (size_t i = 0; i < n; i++) {
		if (v[i].hi <= v[i].lo)
			continue;
		if (k && v[i].lo <= v[k - 1].hi) {
			if (v[i].hi > v[k - 1].hi)
				v[k - 1].hi = v[i].hi;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

int64_t interval_length(const struct interval *v, size_t n)
{
	int64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total = sat_add(total, sat_sub(v[i].hi, v[i].lo));
	return total;
}


/*
 * The list starts at INT64_MIN, so a first interval anywhere is a
 * distance that fits in 64 unsigned bits; every sum wraps exactly.
 */
void interval_set_release(struct interval_set *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->alloc = 0;
}

int interval_union_push(struct interval_set *s, int64_t lo, int64_t hi)
{
	struct interval *last = s->n ? &s->v[s->n - 1] : NULL;

	if (hi <= lo)
		return 0;
	if (last && lo <= last->hi) {
		if (hi > last->hi)
			last->hi = hi;
		return 0;
	}
	if (ALLOC_GROW(s->v, s->n + 1, s->alloc))
		return -1;
	s->v[s->n++] = (struct interval){ lo, hi };
	return 0;
}

int64_t interval_overlap(const struct interval *a, size_t na, const struct interval *b,
			 size_t nb)
{
	int64_t total = 0;

	for (size_t i = 0, j = 0; i < na && j < nb;) {
		int64_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
		int64_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;

		if (hi > lo)
			total = sat_add(total, sat_sub(hi, lo));
		if (a[i].hi < b[j].hi)	/* the one that ends first can meet no more */
			i++;
		else
			j++;
	}
	return total;
}

int64_t interval_covered(const struct interval *v, size_t n, int64_t lo, int64_t hi)
{
	size_t first = 0, top = n;
	struct interval w = { lo, hi };

	while (first < top) {	/* the first interval that ends after lo */
		size_t mid = first + (top - first) / 2;

		if (v[mid].hi <= lo)
			first = mid + 1;
		else
			top = mid;
	}
	if (hi <= lo || first == n)
		return 0;	/* n may be 0 with v NULL, where v + 0 is no pointer */
	/* past [lo, hi) the intersection adds nothing: stop where v starts after hi */
	for (top = first; top < n && v[top].lo < hi; top++)
		;
	return interval_overlap(v + first, top - first, &w, 1);
}

void interval_list_init(struct interval_list *l)
{
	buf_init(&l->bytes);
	l->end = (uint64_t)INT64_MIN;
	l->n = 0;
}

void interval_list_release(struct interval_list *l)
{
	buf_release(&l->bytes);
	interval_list_init(l);
}

int interval_list_add(struct interval_list *l, int64_t lo, int64_t hi)
{
	unsigned char tmp[2 * VARINT_MAX], *p = tmp;

	p = varint_put(p, (uint64_t)lo - l->end);
	p = varint_put(p, (uint64_t)hi - (uint64_t)lo);
	buf_add(&l->bytes, tmp, (size_t)(p - tmp));
	l->end = (uint64_t)hi;
	l->n++;
	return buf_ok(&l->bytes) ? 0 : -1;
}

void interval_cursor_init(struct interval_cursor *c, const struct interval_list *l)
{
	c->p = (const unsigned char *)l->bytes.data;
	c->end = c->p ? c->p + l->bytes.len : NULL;
	c->at = (uint64_t)INT64_MIN;
}

int interval_cursor_next(struct interval_cursor *c, struct interval *v)
{
	uint64_t lo;

	if (c->p == c->end)
		return 0;
	lo = c->at + varint_get(&c->p);
	c->at = lo + varint_get(&c->p);
	v->lo = (int64_t)lo;
	v->hi = (int64_t)c->at;
	return 1;
}
