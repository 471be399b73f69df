/* outfile: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Straight into an existing non-regular file: renaming over it would replace it. */
static int write_through(const char *path, FILE *f, const void *data, size_t len,
			 struct err *e)
{
	if (fwrite(data, 1, len, f) != len || fflush(f))
		return err_set(e, -1, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int outfile_write(const char *path, const void *data, size_t len, struct err *e)
{
	size_t n = strlen(path);
	struct stat st;
	char *tmp;
	FILE *f;
	int saved, rc;

	if (strcmp(path, "-") == 0)
		return write_through("standard output", stdout, data, len, e);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(path, "wb");
		if (!f)
			return err_set(e, -1, "cannot write '%s': %s", path, strerror(errno));
		rc = write_through(path, f, data, len, e);
		if (fclose(f) && rc == 0)
			rc = err_set(e, -1, "cannot write '%s': %s", path, strerror(errno));
		return rc;
	}
	tmp = malloc(n + 5);
	if (!tmp)
		return err_set(e, -1, "cannot write '%s': out of memory", path);
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp", 5);
	f = fopen(tmp, "wb");
	if (!f) {
		err_set(e, -1, "cannot write '%s': %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	fwrite(data, 1, len, f);
	if (ferror(f) | fflush(f)) {
		saved = errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f)) {
		saved = errno;
		goto fail;
	}
	if (rename(tmp, path)) {
		saved = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	remove(tmp);
	free(tmp);
	return err_set(e, -1, "cannot write '%s': %s", path, strerror(saved));
}
