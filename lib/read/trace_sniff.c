/* trace_sniff: see trace_sniff.h. */
#include "trace_sniff.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gzin.h"
#include "trace_read.h"
#include "trace_top.h"
#include "vtr.h"

/* Small: the prologue before traceEvents is a few kilobytes. */
#define SNIFF_CHUNK (64u << 10)

static int is_vtr_file(const char *path)
{
	char magic[VTR_MAGIC_LEN];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), yes = 0;

	if (fd < 0)
		return 0;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      !memcmp(magic, VTR_MAGIC, VTR_MAGIC_LEN);
	close(fd);
	return yes;
}

int trace_sniff(const char *path, struct err *why)
{
	struct trace_info *info = calloc(1, sizeof(*info));
	char *chunk = malloc(SNIFF_CHUNK);
	struct trace_top top;
	struct gzin *gz = NULL;
	struct err e;
	int64_t off = 0;
	int rc = -1;

	err_clear(why);
	if (!info || !chunk)
		goto out_free;
	if (is_vtr_file(path)) {
		rc = 1;
		goto out_free;
	}
	trace_top_init(&top, info);
	gz = gzin_open(path, &e);
	while (gz) {
		ssize_t n = gzin_read(gz, chunk, SNIFF_CHUNK, &e);
		int fed;

		if (n < 0)
			break;	/* a corrupt or cut-off gzip: the reader says where */
		fed = n ? trace_top_feed(&top, chunk, (size_t)n, off, &e)
			: trace_top_drain(&top, &e);
		off += n;
		if (fed == 1) {
			rc = 1;
			break;
		}
		if (fed < 0)
			break;
		if (top.state == TOP_DONE) {
			/* a whole object closed without traceEvents: nothing later can add one */
			if (top.vtrace_output)
				err_set(why, -1, "not a trace but a vtrace report (for vcompare or "
						 "vaggregate)");
			else
				err_set(why, -1, "not a trace (a JSON object without traceEvents)");
			rc = 0;
			break;
		}
		if (!n)
			break;	/* ended inside the top level: the reader says so */
	}
	gzin_close(gz);
	trace_top_release(&top);
out_free:
	free(chunk);
	free(info);
	return rc;
}
