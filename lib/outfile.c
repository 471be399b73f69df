/* outfile: see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int outfile_write(const char *path, const void *data, size_t len, struct err *e)
{
	size_t n = strlen(path);
	char *tmp;
	FILE *f;
	int saved;

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
			return err_set(e, -1, "cannot write to standard output: %s",
				       strerror(errno));
		return 0;
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
