/* outfile: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grow.h"
#include "sigclean.h"

/* ".tmp.XXXXXX": what the temporary adds to the output's name. */
#define TMP_SUFFIX 11

/* Straight into an existing non-regular file: renaming over it would replace it. */
static int write_through(const char *path, FILE *f, const void *data, size_t len,
			 struct err *e)
{
	if (fwrite(data, 1, len, f) != len || fflush(f))
		return err_set(e, -1, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* All of data to fd, through short writes.  0, or -1 with errno. */
static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The inputs, as (device, inode): renaming over one would destroy what
 * the run reads ('vanalyze --json T T').  Filled serially before writing.
 */
static struct {
	dev_t dev;
	ino_t ino;
} *inputs;
static size_t nr_inputs, inputs_alloc;

void outfile_input(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-") || stat(path, &st))
		return;
	if (ALLOC_GROW(inputs, nr_inputs + 1, inputs_alloc))
		return;	/* the check is lost, nothing else */
	inputs[nr_inputs].dev = st.st_dev;
	inputs[nr_inputs++].ino = st.st_ino;
}

static int is_input(int dfd, const char *name)
{
	struct stat st;

	if (!nr_inputs || fstatat(dfd, name, &st, 0))
		return 0;
	for (size_t i = 0; i < nr_inputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return 1;
	return 0;
}

/*
 * The temporary for name, relative to dfd (AT_FDCWD: name is a path);
 * shown is name as messages and the signal handler know it (the same
 * string for AT_FDCWD, else the directory's path and name).
 */
static int open_tmp_at(int dfd, const char *name, const char *shown, char **tmp, int *guard,
		       struct err *e)
{
	static _Atomic unsigned long counter;
	const char *slash = strrchr(name, '/');
	size_t dir = slash ? (size_t)(slash - name) + 1 : 0, base = strlen(name) - dir;
	size_t cap = strlen(name) + 48;
	struct timespec now;
	int fd = -1;

	*guard = -1;
	*tmp = NULL;
	if (is_input(dfd, name))
		return err_set(e, -1, "cannot write '%s': it is an input of this run", shown);
	*tmp = malloc(cap);
	if (!*tmp)
		return err_set(e, -1, "cannot write '%s': out of memory", shown);
	/*
	 * The temporary is a name in the output's directory, so a name of up
	 * to NAME_MAX bytes must leave room for the suffix: the base is cut.
	 */
	if (base + TMP_SUFFIX > NAME_MAX)
		base = NAME_MAX - TMP_SUFFIX;
	clock_gettime(CLOCK_REALTIME, &now);
	/*
	 * mkstemp's idea with open's mode: a fresh name that O_CREAT | O_EXCL
	 * | O_NOFOLLOW creates or refuses, so a planted file or link is never
	 * written; the mode follows the umask like any file we create.
	 */
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long x = (unsigned long)now.tv_nsec ^ (unsigned long)getpid() << 20 ^
				  atomic_fetch_add(&counter, 1) * 0x9e3779b9ul;

		snprintf(*tmp, cap, "%.*s.tmp.%06lx", (int)(dir + base), name, x & 0xfffffful);
		fd = openat(dfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
		now.tv_nsec += 7919;
	}
	if (fd < 0) {
		err_set(e, -1, "cannot write '%s': %s", shown, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	if (dfd == AT_FDCWD) {
		*guard = sigclean_add(*tmp);
	} else {
		/* the handler has no descriptor: the path the directory was opened by */
		size_t k = strlen(shown) - strlen(name);
		char *full = malloc(k + strlen(*tmp) + 1);

		if (full) {
			memcpy(full, shown, k);
			strcpy(full + k, *tmp);
			*guard = sigclean_add(full);
			free(full);
		}
	}
	return fd;
}

int outfile_open_tmp(const char *path, char **tmp, int *guard, struct err *e)
{
	return open_tmp_at(AT_FDCWD, path, path, tmp, guard, e);
}

static int end_tmp_at(int dfd, char *tmp, int guard, const char *name)
{
	int rc = name ? renameat(dfd, tmp, dfd, name) : unlinkat(dfd, tmp, 0), saved = errno;

	if (rc && name)
		unlinkat(dfd, tmp, 0);
	sigclean_del(guard);	/* after: a kill between the two removes nothing of ours */
	free(tmp);
	errno = saved;
	return rc;
}

int outfile_end_tmp(char *tmp, int guard, const char *path)
{
	return end_tmp_at(AT_FDCWD, tmp, guard, path);
}

int outfile_write_at(int dfd, const char *shown, const char *name, const void *data,
		     size_t len, struct err *e)
{
	struct stat st;
	char *tmp;
	FILE *f;
	int fd, saved, rc, guard;

	if (is_input(dfd, name))
		return err_set(e, -1, "cannot write '%s': it is an input of this run", shown);
	/* A link to a non-regular file (/dev/null) is written through on purpose. */
	if (fstatat(dfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode)) {
		fd = openat(dfd, name, O_WRONLY | O_CLOEXEC);
		f = fd < 0 ? NULL : fdopen(fd, "wb");
		if (!f) {
			saved = errno;
			if (fd >= 0)
				close(fd);
			return err_set(e, -1, "cannot write '%s': %s", shown, strerror(saved));
		}
		rc = write_through(shown, f, data, len, e);
		if (fclose(f) && rc == 0)
			rc = err_set(e, -1, "cannot write '%s': %s", shown, strerror(errno));
		return rc;
	}
	fd = open_tmp_at(dfd, name, shown, &tmp, &guard, e);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len)) {
		saved = errno;
		close(fd);
		goto fail;
	}
	if (close(fd)) {
		saved = errno;
		goto fail;
	}
	if (end_tmp_at(dfd, tmp, guard, name))
		return err_set(e, -1, "cannot write '%s': %s", shown, strerror(errno));
	return 0;
fail:
	end_tmp_at(dfd, tmp, guard, NULL);
	return err_set(e, -1, "cannot write '%s': %s", shown, strerror(saved));
}

int outfile_write(const char *path, const void *data, size_t len, struct err *e)
{
	if (strcmp(path, "-") == 0)
		return write_through("standard output", stdout, data, len, e);
	return outfile_write_at(AT_FDCWD, path, path, data, len, e);
}
