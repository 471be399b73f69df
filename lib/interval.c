/* interval: see interval.h.  Sort by start, then one sweep. */
#include "interval.h"

#include <stdlib.h>

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

size_t interval_union(struct interval *v, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_interval);
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
		total += v[i].hi - v[i].lo;
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
			total += hi - lo;
		if (a[i].hi < b[j].hi)
			i++;
		else
			j++;
	}
	return total;
}
