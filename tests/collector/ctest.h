/*
 * ctest: helpers shared by the collector tests (header only, all static).
 *
 * Checks are those of tests/unit/check.h; ctest_load() reads
 * a .vtr file through lib/read/vtr.c into an array of plain events (names and
 * thread ids as text), which tests then search; ctest_stderr_*() capture
 * what the collector writes to fd 2.  Temporary directories live under
 * $TMPDIR (or /tmp) and are removed by ctest_rmdir().
 */
#ifndef VT_CTEST_H
#define VT_CTEST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vtr.h"

#include "../unit/check.h"

static void *ctest_alloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "ctest: out of memory\n");
		exit(1);
	}
	return p;
}

struct ctest_ev {
	char ph;
	char name[300];
	char cat[32];
	char pid[16], tid[16];
	char args[200];			/* a region's arguments, as JSON text */
	int64_t ts_ns, dur_ns, value, device;
	uint32_t flags;
};

struct ctest_trace {
	struct ctest_ev *ev;
	size_t n, cap;
	struct trace_info info;
	struct err err;
	int rc;
};

static void ctest_copy(char *dst, size_t cap, const struct strtab *t, uint32_t id)
{
	size_t n = id ? strtab_len(t, id) : 0;

	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(dst, strtab_str(t, id), n);
	dst[n] = '\0';
}

static int ctest_batch(void *ctx, const struct event_batch *b)
{
	struct ctest_trace *tr = ctx;

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct ctest_ev *c;

		if (tr->n == tr->cap) {
			tr->cap = tr->cap ? tr->cap * 2 : 1024;
			tr->ev = ctest_alloc(tr->ev, tr->cap * sizeof(*tr->ev));
		}
		c = &tr->ev[tr->n++];
		memset(c, 0, sizeof(*c));
		c->ph = ev->phase;
		ctest_copy(c->name, sizeof(c->name), &b->strs, ev->name);
		ctest_copy(c->cat, sizeof(c->cat), &b->strs, ev->cat);
		ctest_copy(c->pid, sizeof(c->pid), &b->strs, ev->pid);
		ctest_copy(c->tid, sizeof(c->tid), &b->strs, ev->tid);
		ctest_copy(c->args, sizeof(c->args), &b->strs, ev->args);
		c->ts_ns = ev->ts_ns;
		c->dur_ns = ev->flags & EV_DUR ? ev->dur_ns : 0;
		c->value = ev->flags & EV_VALUE ? ev->value : 0;
		c->device = ev->flags & EV_DEVICE ? ev->device : -1;
		c->flags = ev->flags;
	}
	return 0;
}

/* Read path into *tr (which the caller frees with ctest_free()). */
static __attribute__((unused)) int ctest_load(const char *path, struct ctest_trace *tr)
{
	struct trace_sink sink = { tr, ctest_batch, NULL };

	memset(tr, 0, sizeof(*tr));
	tr->rc = vtr_read(path, &sink, &tr->info, &tr->err);
	return tr->rc;
}

static __attribute__((unused)) void ctest_free(struct ctest_trace *tr)
{
	free(tr->ev);
	memset(tr, 0, sizeof(*tr));
}

/* Events with phase ph (0: any) and name (NULL: any). */
static __attribute__((unused)) size_t ctest_count(const struct ctest_trace *tr, char ph,
						  const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n; i++)
		if ((!ph || tr->ev[i].ph == ph) && (!name || !strcmp(tr->ev[i].name, name)))
			n++;
	return n;
}

/* The first such event, or NULL. */
static __attribute__((unused)) const struct ctest_ev *ctest_find(const struct ctest_trace *tr,
								 char ph, const char *name)
{
	for (size_t i = 0; i < tr->n; i++)
		if ((!ph || tr->ev[i].ph == ph) && (!name || !strcmp(tr->ev[i].name, name)))
			return &tr->ev[i];
	return NULL;
}

/* 1 when some warning of tr contains text. */
static __attribute__((unused)) int ctest_warned(const struct ctest_trace *tr, const char *text)
{
	for (size_t i = 0; i < tr->info.nr_warnings; i++)
		if (strstr(tr->info.warnings[i].msg, text))
			return 1;
	return 0;
}

static __attribute__((unused)) char *ctest_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = ctest_alloc(NULL, 4096);

	snprintf(dir, 4096, "%s/vtcol.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir)) {
		perror("ctest: mkdtemp");
		exit(1);
	}
	return dir;
}

/* Remove dir and what is in it (one level deep is all the tests make). */
static __attribute__((unused)) void ctest_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path))
			ctest_rmdir(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int ctest_saved_fd = -1;
static char ctest_err_path[4096];

/* Send fd 2 to a temporary file until ctest_stderr_end(). */
static __attribute__((unused)) void ctest_stderr_begin(const char *dir)
{
	int fd;

	snprintf(ctest_err_path, sizeof(ctest_err_path), "%s/stderr.txt", dir);
	fd = open(ctest_err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stderr);
	ctest_saved_fd = dup(2);
	if (fd < 0 || ctest_saved_fd < 0 || dup2(fd, 2) < 0) {
		perror("ctest: redirect stderr");
		exit(1);
	}
	close(fd);
}

/* Restore fd 2; what was written goes into buf.  Returns the line count. */
static __attribute__((unused)) int ctest_stderr_end(char *buf, size_t cap)
{
	FILE *f;
	size_t n = 0;
	int lines = 0;

	fflush(stderr);
	dup2(ctest_saved_fd, 2);
	close(ctest_saved_fd);
	f = fopen(ctest_err_path, "r");
	if (f) {
		n = fread(buf, 1, cap - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	unlink(ctest_err_path);
	for (size_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return lines;
}

#endif
