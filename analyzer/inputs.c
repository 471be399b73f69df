/*
 * inputs: see inputs.h.
 *
 * Sniffing reads each candidate's first bytes once more (up to where its
 * events begin); it runs on the threads given, and the notes come after, in
 * name order, so -j does not change the output.
 */
#include "inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "dirwalk.h"
#include "log.h"
#include "outfile.h"
#include "trace_sniff.h"

/* Returns 0, or -1 when out of memory (said). */
static int add(struct pathlist *in, const char *path)
{
	if (pathlist_add(in, path)) {
		log_msg("out of memory listing the inputs");
		return -1;
	}
	outfile_input(path);	/* never replaced by an output of this run */
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

static int is_trace_name(const char *name)
{
	return ends_with(name, ".json") || ends_with(name, ".json.gz") || ends_with(name, ".vtr");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The .vtr in names[0..n) (sorted) that path is vtrace-export's output of
 * under the names it writes by default or is usually given, or NULL.
 */
static const char *export_source(char **names, size_t n, const char *path)
{
	static const char *const ext[] = { ".trace.json.gz", ".trace.json", ".json.gz", ".json" };

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		struct buf vtr;
		char **hit;

		if (!ends_with(path, ext[i]))
			continue;
		buf_init(&vtr);
		buf_add(&vtr, path, strlen(path) - strlen(ext[i]));
		buf_adds(&vtr, ".vtr");
		hit = buf_ok(&vtr) ? bsearch(&vtr.data, names, n, sizeof(*names), cmp_str) : NULL;
		buf_release(&vtr);
		if (hit)
			return *hit;
	}
	return NULL;
}

int inputs_expand(struct pathlist *in, const char *arg, int jobs)
{
	static const struct dirwalk traces = { .want = is_trace_name };
	struct pathlist found;
	struct err err, *why;
	size_t kept = 0;
	int *sniff, oom = 0;
	struct stat st;

	if (strcmp(arg, "-") == 0 || stat(arg, &st) || !S_ISDIR(st.st_mode))
		return add(in, arg);
	pathlist_init(&found);
	if (dirwalk(&found, arg, &traces, &err) < 0) {
		log_error(arg, &err);
		return -1;
	}
	for (size_t i = 0; i < found.n; i++)
		outfile_input(found.paths[i]);	/* skipped or not, never replaced */
	sniff = calloc(found.n + 1, sizeof(*sniff));
	why = calloc(found.n + 1, sizeof(*why));
	if (!sniff || !why) {
		log_msg("out of memory listing the inputs");
		oom = 1;
		goto out;
	}
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs > 0 ? jobs : 1) default(none) \
	shared(found, sniff, why)
	for (size_t i = 0; i < found.n; i++)
		if (!export_source(found.paths, found.n, found.paths[i]))
			sniff[i] = trace_sniff(found.paths[i], &why[i]);
	for (size_t i = 0; i < found.n; i++) {
		const char *vtr = export_source(found.paths, found.n, found.paths[i]);

		if (vtr)
			log_msg("%s: the export of %s, which is read instead; skipped",
				found.paths[i], vtr);
		else if (sniff[i] == 0)
			log_msg("%s: %s, skipped", found.paths[i], why[i].msg);
		else if (add(in, found.paths[i]) == 0)
			kept++;
		else {
			oom = 1;
			break;
		}
	}
	if (!found.n)
		log_msg("%s: no *.json, *.json.gz or *.vtr files in this directory", arg);
	else if (!kept)
		log_msg("%s: no trace among the %zu *.json, *.json.gz or *.vtr files in this "
			"directory", arg, found.n);
out:
	free(sniff);
	free(why);
	pathlist_release(&found);
	return kept && !oom ? 0 : -1;
}
