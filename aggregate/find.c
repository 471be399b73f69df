/*
 * find: see find.h.
 *
 * The walk keeps the chain of directories from the root to where it is as
 * (device, inode) pairs: a directory is a loop exactly when it is already on
 * that chain.  A directory reached twice through different links but not
 * through a loop (two links to one node directory) is walked twice; its
 * reports then come back as duplicates, which the merge counts once.
 */
#include "find.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "grow.h"
#include "log.h"

/* Deeper than any real layout; bounds the stack of the recursion. */
#define FIND_MAX_DEPTH 64

struct dir_id {
	dev_t dev;
	ino_t ino;
};

void find_list_init(struct find_list *l)
{
	l->paths = NULL;
	l->n = l->cap = 0;
}

void find_list_release(struct find_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	find_list_init(l);
}

int find_list_add(struct find_list *l, const char *path)
{
	char *s;

	if (ALLOC_GROW(l->paths, l->n + 1, l->cap))
		return -1;
	s = strdup(path);
	if (!s)
		return -1;
	l->paths[l->n++] = s;
	return 0;
}

static int is_report_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       (n > 8 && !strcmp(name + n - 8, ".json.gz"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry names of dir (no dot files), sorted; NULL with errno on failure. */
static char **list_dir(const char *dir, size_t *n)
{
	struct find_list names;
	struct dirent *d;
	DIR *dh = opendir(dir);

	*n = 0;
	if (!dh)
		return NULL;
	find_list_init(&names);
	errno = 0;
	while ((d = readdir(dh))) {
		if (d->d_name[0] == '.')
			continue;
		if (find_list_add(&names, d->d_name)) {
			closedir(dh);
			find_list_release(&names);
			errno = ENOMEM;
			return NULL;
		}
	}
	closedir(dh);
	if (names.n > 1)
		qsort(names.paths, names.n, sizeof(*names.paths), cmp_str);
	*n = names.n;
	if (!names.paths)
		return calloc(1, sizeof(char *));
	return names.paths;
}

/* -1 only when out of memory: everything else is a warning. */
static int walk(struct find_list *l, const char *dir, struct dir_id *chain, int depth,
		long *found)
{
	size_t n;
	char **names = list_dir(dir, &n);
	int rc = 0;

	if (!names) {
		if (errno == ENOMEM)
			return -1;
		log_msg("warning: %s: cannot open directory: %s", dir, strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct buf path;
		struct stat st;

		buf_init(&path);
		buf_printf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (!buf_ok(&path)) {
			rc = -1;
		} else if (stat(path.data, &st)) {
			/* A dangling link is no report; say so only for a report name. */
			if (is_report_name(names[i]))
				log_msg("warning: %s: cannot open: %s", path.data, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			int loop = 0;

			for (int k = 0; k < depth; k++)
				loop |= chain[k].dev == st.st_dev && chain[k].ino == st.st_ino;
			if (loop) {
				log_msg("warning: %s: a link back to a directory above it; "
					"not entered", path.data);
			} else if (depth == FIND_MAX_DEPTH) {
				log_msg("warning: %s: deeper than %d directories; not entered",
					path.data, FIND_MAX_DEPTH);
			} else {
				chain[depth].dev = st.st_dev;
				chain[depth].ino = st.st_ino;
				rc = walk(l, path.data, chain, depth + 1, found);
			}
		} else if (S_ISREG(st.st_mode) && is_report_name(names[i])) {
			rc = find_list_add(l, path.data);
			*found += rc == 0;
		}
		buf_release(&path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

long find_reports(struct find_list *l, const char *dir)
{
	struct dir_id chain[FIND_MAX_DEPTH + 1];
	struct stat st;
	long found = 0;

	if (stat(dir, &st)) {
		log_msg("%s: cannot open: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_msg("%s: not a directory", dir);
		return -1;
	}
	chain[0].dev = st.st_dev;
	chain[0].ino = st.st_ino;
	if (walk(l, dir, chain, 1, &found)) {
		log_msg("out of memory listing '%s'", dir);
		return -1;
	}
	return found;
}
