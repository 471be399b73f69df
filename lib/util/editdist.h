/*
 * editdist: the Levenshtein distance of two short strings, enough to spot
 * a typo ("--frams" for "--frames", a region name in VTRACE_REGIONS).
 * Header only, so that the collector, which links nothing of lib/, shares it.
 */
#ifndef VT_EDITDIST_H
#define VT_EDITDIST_H

#include <stddef.h>

#define EDITDIST_MAX 255	/* longer strings are "far": EDITDIST_FAR */
#define EDITDIST_FAR (EDITDIST_MAX + 1)

static inline size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[EDITDIST_MAX + 1];

	if (na > EDITDIST_MAX || nb > EDITDIST_MAX)
		return EDITDIST_FAR;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[nb];
}

#endif
