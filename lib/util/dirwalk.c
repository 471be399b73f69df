/*
 * dirwalk: see dirwalk.h.
 *
 * The walk keeps the chain of directories from dir to where it is as
 * (device, inode) pairs: a directory is a loop exactly when it is already on
 * that chain.  Without recurse, only the names want() takes are stat()ed, as
 * a directory of traces holds little else worth a system call.
 */
#include "dirwalk.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"

struct dir_id {
	dev_t dev;
	ino_t ino;
};

struct walk {
	struct pathlist *l;
	const struct dirwalk *w;
	struct dir_id chain[DIRWALK_MAX_DEPTH + 1];
	struct err *err;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void warn(const struct walk *s, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(const struct walk *s, const char *path, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!s->w->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	s->w->warn(path, what);
}

/*
 * The names in dir worth a look, sorted, into names.  Returns 0, or -1 with
 * errno (ENOMEM when out of memory).
 */
static int list_names(const struct walk *s, const char *dir, struct pathlist *names)
{
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return -1;
	while ((d = readdir(dh))) {
		if (d->d_name[0] == '.' || (!s->w->recurse && !s->w->want(d->d_name)))
			continue;
		if (pathlist_add(names, d->d_name)) {
			closedir(dh);
			errno = ENOMEM;
			return -1;
		}
	}
	closedir(dh);
	if (names->n > 1)
		qsort(names->paths, names->n, sizeof(*names->paths), cmp_str);
	return 0;
}

/* One subdirectory, found at depth: entered unless a loop or too deep. */
static int enter(struct walk *s, const char *path, const struct stat *st, int depth);

/* dir, at depth (1: the root).  -1 only when the walk must stop. */
static int walk(struct walk *s, const char *dir, int depth)
{
	const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
	struct pathlist names;
	int rc = 0;

	pathlist_init(&names);
	if (list_names(s, dir, &names)) {
		int e = errno;

		pathlist_release(&names);
		if (e == ENOMEM)
			return err_set(s->err, -1, "out of memory");
		if (depth == 1)
			return err_set(s->err, -1, "cannot open directory: %s", strerror(e));
		warn(s, dir, "cannot open directory: %s", strerror(e));
		return 0;
	}
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		const char *name = names.paths[i];
		struct buf path;
		struct stat st;

		buf_init(&path);
		buf_printf(&path, "%s%s%s", dir, sep, name);
		if (!buf_ok(&path))
			rc = err_set(s->err, -1, "out of memory");
		else if (stat(path.data, &st)) {
			/* A dangling link is no file; say so only for a name wanted. */
			if (s->w->want(name))
				warn(s, path.data, "cannot open: %s", strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			if (s->w->recurse)
				rc = enter(s, path.data, &st, depth);
		} else if (S_ISREG(st.st_mode) && s->w->want(name)) {
			if (pathlist_add(s->l, path.data))
				rc = err_set(s->err, -1, "out of memory");
		}
		buf_release(&path);
	}
	pathlist_release(&names);
	return rc;
}

static int enter(struct walk *s, const char *path, const struct stat *st, int depth)
{
	for (int k = 0; k < depth; k++)
		if (s->chain[k].dev == st->st_dev && s->chain[k].ino == st->st_ino) {
			warn(s, path, "a link back to a directory above it; not entered");
			return 0;
		}
	if (depth == DIRWALK_MAX_DEPTH) {
		warn(s, path, "deeper than %d directories; not entered", DIRWALK_MAX_DEPTH);
		return 0;
	}
	s->chain[depth].dev = st->st_dev;
	s->chain[depth].ino = st->st_ino;
	return walk(s, path, depth + 1);
}

long dirwalk(struct pathlist *l, const char *dir, const struct dirwalk *w, struct err *err)
{
	struct walk s = { .l = l, .w = w, .err = err };
	size_t before = l->n;
	struct stat st;

	err_clear(err);
	if (stat(dir, &st))
		return err_set(err, -1, "cannot open: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -1, "not a directory");
	s.chain[0].dev = st.st_dev;
	s.chain[0].ino = st.st_ino;
	if (walk(&s, dir, 1)) {
		pathlist_truncate(l, before);
		return -1;
	}
	return (long)(l->n - before);
}
