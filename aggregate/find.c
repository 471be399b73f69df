/*
 * find: see find.h.
 */
#include "find.h"

#include <string.h>

#include "dirwalk.h"
#include "log.h"

static int is_report_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       (n > 8 && !strcmp(name + n - 8, ".json.gz"));
}

static void warn(const char *path, const char *what)
{
	log_msg("warning: %s: %s", path, what);
}

long find_reports(struct pathlist *l, const char *dir)
{
	static const struct dirwalk reports = {
		.want = is_report_name,
		.recurse = 1,
		.warn = warn,
	};
	struct err err;
	long k = dirwalk(l, dir, &reports, &err);

	if (k < 0)
		log_error(dir, &err);
	return k;
}
