/* rankset: see rankset.h. */
#include "rankset.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define EN_DASH "\xe2\x80\x93"

const char *rankset_text(char *out, size_t size, const int64_t *r, size_t n, size_t nr_all)
{
	size_t len, left = n;
	int w;

	if (!size)
		return out;
	out[0] = '\0';
	if (n == 0)
		return out;
	if (n >= 2 && n == nr_all) {
		if (n == 2)
			snprintf(out, size, "both ranks");
		else
			snprintf(out, size, "all %zu ranks", n);
		return out;
	}
	if (n == 1) {
		snprintf(out, size, "rank %" PRId64, r[0]);
		return out;
	}
	w = snprintf(out, size, "ranks ");
	len = w > 0 && (size_t)w < size ? (size_t)w : 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		char run[64];

		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		if (j == i)
			snprintf(run, sizeof(run), "%s%" PRId64, i ? ", " : "", r[i]);
		else if (j == i + 1)
			snprintf(run, sizeof(run), "%s%" PRId64 ", %" PRId64, i ? ", " : "", r[i],
				 r[j]);
		else
			snprintf(run, sizeof(run), "%s%" PRId64 EN_DASH "%" PRId64, i ? ", " : "",
				 r[i], r[j]);
		/* keep room for " and N more" */
		if (len + strlen(run) + 24 >= size) {
			snprintf(out + len, size - len, " and %zu more", left);
			return out;
		}
		memcpy(out + len, run, strlen(run) + 1);
		len += strlen(run);
		left -= j - i + 1;
		i = j + 1;
	}
	return out;
}
