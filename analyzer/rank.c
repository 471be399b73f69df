/* rank: see rank.h. */
#include "rank.h"

#include <ctype.h>
#include <string.h>

const char *rank_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* If a token starts at s, the number after it (< 10^9), else -1. */
static int64_t token_at(const char *name, const char *s)
{
	static const char *const prefixes[] = { "rank-", "rank_", "rank", "worker" };
	int64_t v;

	if (s > name && isalpha((unsigned char)s[-1]))
		return -1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		const char *p = s + n;

		if (strncmp(s, prefixes[i], n) || !isdigit((unsigned char)*p))
			continue;
		for (v = 0; isdigit((unsigned char)*p) && v < 1000000000; p++)
			v = v * 10 + (*p - '0');
		return v;
	}
	return -1;
}

int64_t rank_from_name(const char *path)
{
	const char *name = rank_basename(path);
	int64_t rank = -1;

	for (const char *s = name; *s; s++) {
		int64_t v = token_at(name, s);

		if (v >= 0)
			rank = v;
	}
	return rank;
}
