/*
 * namematch: how a rule's pattern meets a name of n bytes, which need not
 * end in NUL: as the whole name, its start, its end, anywhere in it, or
 * anywhere in any case.  The one matcher behind the name tables of
 * device.c (device kinds), idle.c (host span classes) and kcat.c (kernel
 * categories), each of which adds only its own twist.
 */
#ifndef VT_NAMEMATCH_H
#define VT_NAMEMATCH_H

#include <string.h>
#include <strings.h>

enum name_how { NAME_IS, NAME_STARTS, NAME_ENDS, NAME_HAS, NAME_HAS_ANYCASE };

static inline int name_matches(enum name_how how, const char *pat, const char *s, size_t n)
{
	size_t k = strlen(pat);

	switch (how) {
	case NAME_IS:
		return n == k && memcmp(s, pat, k) == 0;
	case NAME_STARTS:
		return n >= k && memcmp(s, pat, k) == 0;
	case NAME_ENDS:
		return n >= k && memcmp(s + n - k, pat, k) == 0;
	case NAME_HAS:
		return memmem(s, n, pat, k) != NULL;
	case NAME_HAS_ANYCASE:
		for (size_t i = 0; i + k <= n; i++)
			if (strncasecmp(s + i, pat, k) == 0)
				return 1;
		return 0;
	}
	return 0;
}

#endif
