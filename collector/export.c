/*
 * vtrace-export: a collector raw file (.vtr) as Chrome trace JSON, the
 * format Perfetto, chrome://tracing and vanalyze read.
 *
 *	vtrace-export run-rank0.vtr -o run-rank0.trace.json.gz
 *
 * Events stream from lib/read/vtr.c through a struct buf into the output
 * (gzip when the name ends in .gz), which is written to a fresh temporary
 * beside it (lib/util/outfile.h) and renamed, so a failure never leaves a
 * half-written trace.  Times are written as
 * microseconds with three decimals, exactly, on the CLOCK_REALTIME
 * timeline.  Every string goes through jsonw_escape(): quotes, control
 * characters and invalid UTF-8 cannot break the JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "jsonw.h"
#include "log.h"
#include "outfile.h"
#include "vtr.h"

#define EXPORT_FLUSH (1u << 20)

struct export {
	const char *path;		/* the final name */
	char *tmp;			/* what is written: a fresh path.tmp.XXXXXX */
	int guard;			/* its sigclean.h handle */
	FILE *f;			/* plain output, or NULL */
	gzFile gz;			/* gzip output, or NULL */
	struct buf out;
	int nr_written, failed;
	struct err err;
};

static const char usage[] =
	"usage: vtrace-export FILE.vtr [-o OUT]\n"
	"Write a vtrace collector file as Chrome trace JSON (Perfetto, vanalyze).\n"
	"\n"
	"  -o OUT      output file; gzip-compressed when it ends in .gz, '-' for\n"
	"              standard output (default: FILE with .vtr replaced by\n"
	"              .trace.json.gz)\n"
	"  -h, --help  this text\n"
	"\n"
	"Exit status: 0 when the file was read to its end; 1 when it is cut off or\n"
	"lacks its end record (what it holds is still exported, with a warning and\n"
	"\"complete\": false), or could not be read or written; 2 for a usage error.\n"
	"\n"
	"vanalyze DIR reads a .vtr and its export under the default name (or\n"
	"STEM.json, STEM.json.gz, STEM.trace.json beside STEM.vtr) once, from the\n"
	".vtr; an export under another name in DIR would be a second copy of the\n"
	"rank.\n";

static int export_flush(struct export *x)
{
	size_t n = x->out.len;

	if (x->failed)
		return -1;
	/* before the length: a buffer whose first append failed is empty */
	if (!buf_ok(&x->out)) {
		err_set(&x->err, -1, "out of memory");
		x->failed = 1;
		return -1;
	}
	if (!n)
		return 0;
	if (x->gz ? gzwrite(x->gz, x->out.data, n) != (int)n
		  : fwrite(x->out.data, 1, n, x->f) != n) {
		err_set(&x->err, -1, "cannot write '%s': %s", x->path, strerror(errno));
		x->failed = 1;
		return -1;
	}
	buf_reset(&x->out);
	return 0;
}

static void put_str(struct buf *b, const char *s, size_t n)
{
	buf_addc(b, '"');
	jsonw_escape(b, s, n);
	buf_addc(b, '"');
}

static void put_id(struct buf *b, const struct strtab *t, uint32_t id)
{
	if (id)
		put_str(b, strtab_str(t, id), strtab_len(t, id));
	else
		buf_adds(b, "\"\"");
}

/* pid and tid: a number when the text is one, else a string. */
static void put_pid(struct buf *b, const struct strtab *t, uint32_t id)
{
	const char *s = id ? strtab_str(t, id) : "";
	uint32_t n = id ? strtab_len(t, id) : 0, i = s[0] == '-';

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (n && i == n && n < 12 && !(n == 1 && s[0] == '-'))
		buf_add(b, s, n);
	else
		put_str(b, s, n);
}

/* Microseconds with exactly three decimals, from nanoseconds. */
static void put_us(struct buf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	buf_printf(b, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

static int export_batch(void *ctx, const struct event_batch *bt)
{
	struct export *x = ctx;
	struct buf *b = &x->out;

	for (size_t i = 0; i < bt->n; i++) {
		const struct trace_event *ev = &bt->ev[i];

		buf_adds(b, x->nr_written++ ? ",\n{\"ph\": " : "\n{\"ph\": ");
		put_id(b, &bt->strs, ev->ph);
		if (ev->phase == 'i')
			buf_adds(b, ", \"s\": \"t\"");
		buf_adds(b, ", \"cat\": ");
		put_id(b, &bt->strs, ev->cat);
		buf_adds(b, ", \"name\": ");
		put_id(b, &bt->strs, ev->name);
		buf_adds(b, ", \"pid\": ");
		put_pid(b, &bt->strs, ev->pid);
		buf_adds(b, ", \"tid\": ");
		put_pid(b, &bt->strs, ev->tid);
		buf_adds(b, ", \"ts\": ");
		put_us(b, ev->ts_ns);
		if (ev->flags & EV_DUR) {
			buf_adds(b, ", \"dur\": ");
			put_us(b, ev->dur_ns);
		}
		/* Per-device counters get an id: name + id is one counter in Perfetto. */
		if (ev->flags & EV_DEVICE)
			buf_printf(b, ", \"id\": \"gpu%" PRId64 "\"", ev->device);
		if (ev->args) {	/* the reader's JSON text: keys escaped, numbers or null */
			buf_adds(b, ", \"args\": ");
			buf_add(b, strtab_str(&bt->strs, ev->args),
				strtab_len(&bt->strs, ev->args));
		} else if (ev->flags & EV_VALUE) {
			buf_printf(b, ", \"args\": {\"value\": %" PRId64, ev->value);
			if (ev->flags & EV_DEVICE)
				buf_printf(b, ", \"device\": %" PRId64, ev->device);
			buf_addc(b, '}');
		}
		buf_addc(b, '}');
		if (b->len >= EXPORT_FLUSH && export_flush(x))
			return -1;
	}
	return 0;
}

static int export_open(struct export *x, const char *path)
{
	size_t n = strlen(path);
	int fd;

	memset(x, 0, sizeof(*x));
	buf_init(&x->out);
	x->path = path;
	if (!strcmp(path, "-")) {
		x->f = stdout;
		return 0;
	}
	if ((fd = outfile_open_tmp(path, &x->tmp, &x->guard, &x->err)) < 0)
		return -1;
	if (n > 3 && !strcmp(path + n - 3, ".gz"))
		x->gz = gzdopen(fd, "wb6");
	else
		x->f = fdopen(fd, "wb");
	if (!x->gz && !x->f) {
		int e = errno;

		close(fd);
		outfile_end_tmp(x->tmp, x->guard, NULL);
		x->tmp = NULL;
		return err_set(&x->err, -1, "cannot write '%s': %s", path,
			       e ? strerror(e) : "out of memory");
	}
	return 0;
}

static int export_fail(struct export *x)
{
	return err_set(&x->err, -1, "cannot write '%s': %s", x->path, strerror(errno));
}

/* Finish the file and rename it into place, or remove it.  0 or -1. */
static int export_close(struct export *x, int keep)
{
	int rc = export_flush(x);

	if (x->gz) {
		if (gzclose(x->gz) != Z_OK && !rc)
			rc = export_fail(x);
	} else if (x->f == stdout) {
		if (fflush(stdout) && !rc)
			rc = err_set(&x->err, -1, "cannot write to standard output: %s",
				     strerror(errno));
	} else if (x->f) {
		if ((ferror(x->f) | fclose(x->f)) && !rc)
			rc = export_fail(x);
	}
	if (x->tmp && outfile_end_tmp(x->tmp, x->guard, !rc && keep ? x->path : NULL) && !rc &&
	    keep)
		rc = export_fail(x);
	buf_release(&x->out);
	return rc || !keep ? -1 : 0;
}

static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *out;

	if (n > 4 && !strcmp(in + n - 4, ".vtr"))
		n -= 4;
	if (!(out = malloc(n + sizeof(".trace.json.gz"))))
		return NULL;
	memcpy(out, in, n);
	memcpy(out + n, ".trace.json.gz", sizeof(".trace.json.gz"));
	return out;
}

/* The keys before traceEvents: what the header says about the process. */
static void export_head(struct export *x, const struct vtr_header *h)
{
	struct buf *b = &x->out;
	char label[200];

	buf_printf(b, "{\"schemaVersion\": 1, \"displayTimeUnit\": \"ms\",\n"
		   "\"distributedInfo\": {\"rank\": %" PRId64, h->rank);
	if (h->world_size >= 0)
		buf_printf(b, ", \"world_size\": %" PRId64, h->world_size);
	buf_adds(b, "},\n\"vtrace\": {\"name\": ");
	put_str(b, h->name, strlen(h->name));
	buf_adds(b, ", \"host\": ");
	put_str(b, h->host, strlen(h->host));
	buf_printf(b, ", \"pid\": %d, \"clock_offset_ns\": %" PRId64 "},\n\"traceEvents\": [",
		   (int)h->pid, h->clock_offset_ns);
	snprintf(label, sizeof(label), "%s rank %" PRId64, h->name, h->rank);
	buf_printf(b, "\n{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, "
		   "\"args\": {\"name\": ", (int)h->pid);
	put_str(b, label, strlen(label));
	buf_adds(b, "}}");
	x->nr_written = 1;
}

/* Keys the export writes itself: a tag of the same name is not written again. */
static int export_key(const char *k)
{
	static const char *const own[] = { "schemaVersion", "displayTimeUnit", "distributedInfo",
					   "vtrace", "traceEvents", "vtraceInput" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(k, own[i]))
			return 1;
	return 0;
}

/*
 * The keys after traceEvents: the run's tags as top-level keys (where
 * torch.profiler's add_metadata() puts them, so that vanalyze reads the
 * export as it reads the .vtr), then how complete the input was.
 */
static void export_tail(struct export *x, const struct trace_info *info)
{
	struct buf *b = &x->out;

	buf_adds(b, "\n]");
	for (size_t i = 0; i < info->nr_tags; i++) {
		if (export_key(info->tags[i].key))
			continue;
		buf_adds(b, ",\n");
		put_str(b, info->tags[i].key, strlen(info->tags[i].key));
		buf_adds(b, ": ");
		put_str(b, info->tags[i].value, strlen(info->tags[i].value));
	}

	buf_printf(b, ",\n\"vtraceInput\": {\"complete\": %s, \"events\": %" PRId64
		   ", \"warnings\": [", info->complete ? "true" : "false", info->nr_events);
	for (size_t i = 0; i < info->nr_warnings; i++) {
		if (i)
			buf_adds(b, ", ");
		put_str(b, info->warnings[i].msg, strlen(info->warnings[i].msg));
	}
	buf_adds(b, "]}}\n");
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	char *out_alloc = NULL;
	struct trace_sink sink;
	struct trace_info info;
	struct vtr_header h;
	struct export x;
	struct err e;
	int rc;

	log_init(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			log_msg("unknown option '%s'; try 'vtrace-export --help'", argv[i]);
			return EXIT_USAGE;
		} else if (!in) {
			in = argv[i];
		} else {
			log_msg("one input file only; try 'vtrace-export --help'");
			return EXIT_USAGE;
		}
	}
	if (!in) {
		log_msg("no input file; try 'vtrace-export --help'");
		return EXIT_USAGE;
	}
	if (!out && !(out = out_alloc = default_output(in))) {
		log_msg("out of memory");
		return EXIT_FAIL;
	}
	outfile_input(in);
	if (vtr_read_header(in, &h, &e)) {
		log_error(in, &e);
		free(out_alloc);
		return EXIT_FAIL;
	}
	if (export_open(&x, out)) {
		log_error(NULL, &x.err);
		free(out_alloc);
		return EXIT_FAIL;
	}
	export_head(&x, &h);
	sink = (struct trace_sink){ &x, export_batch, NULL };
	rc = vtr_read(in, &sink, &info, &e);
	if (rc < 0 && !x.failed) {
		log_error(in, &e);
		export_close(&x, 0);
		free(out_alloc);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < info.nr_warnings; i++)
		log_warn(in, &info.warnings[i]);
	export_tail(&x, &info);
	if (export_close(&x, !x.failed)) {
		log_error(NULL, &x.err);
		free(out_alloc);
		return EXIT_FAIL;
	}
	/* as vanalyze says where its outputs went: the default name is not obvious */
	if (strcmp(out, "-"))
		log_msg("wrote %s", out);
	free(out_alloc);
	/* written, but events were lost: scripts must see it, as with vanalyze */
	return rc ? EXIT_FAIL : EXIT_OK;
}
