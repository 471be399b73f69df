/*
 * interval: see interval.h.  Sort by start (radix, through lib/sort), then
 * one sweep.  Only the starts need ordering: the sweep takes the largest
 * end of each run.
 */
#include "interval.h"

#include <stdlib.h>

#include "sat.h"
#include "sort.h"

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

size_t interval_merge(const struct interval *a, size_t na, const struct interval *b, size_t nb,
		      struct interval *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na || j < nb) {
		struct interval next = j >= nb || (i < na && a[i].lo <= b[j].lo) ? a[i++] : b[j++];

		if (k && next.lo <= out[k - 1].hi) {
			if (next.hi > out[k - 1].hi)
				out[k - 1].hi = next.hi;
		} else {
			out[k++] = next;
		}
	}
	return k;
}

int64_t interval_union_length3(const struct interval *a, size_t na, const struct interval *b,
			       size_t nb, const struct interval *c, size_t nc)
{
	size_t i = 0, j = 0, k = 0;
	int64_t total = 0, lo = 0, hi = 0;
	int open = 0;

	for (;;) {
		struct interval next;

		/* The next start of the three, as interval_merge() takes them. */
		if (i < na && (j >= nb || a[i].lo <= b[j].lo) && (k >= nc || a[i].lo <= c[k].lo))
			next = a[i++];
		else if (j < nb && (k >= nc || b[j].lo <= c[k].lo))
			next = b[j++];
		else if (k < nc)
			next = c[k++];
		else
			break;
		if (open && next.lo <= hi) {
			if (next.hi > hi)
				hi = next.hi;
			continue;
		}
		if (open)
			total = sat_add(total, sat_sub(hi, lo));
		lo = next.lo;
		hi = next.hi;
		open = 1;
	}
	if (open)
		total = sat_add(total, sat_sub(hi, lo));
	return total;
}

int64_t interval_length(const struct interval *v, size_t n)
{
	int64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total = sat_add(total, sat_sub(v[i].hi, v[i].lo));
	return total;
}

int64_t interval_overlap(const struct interval *a, size_t na, const struct interval *b,
			 size_t nb)
{
	int64_t total = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		int64_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
		int64_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;

		if (hi > lo)
			total = sat_add(total, sat_sub(hi, lo));
		if (a[i].hi < b[j].hi)
			i++;
		else
			j++;
	}
	return total;
}
