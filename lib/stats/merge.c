/*
 * merge: see merge.h.
 *
 * Threads: files are spread over threads one file each (reports are tens
 * of kilobytes: a file is too small to split).  Thread t reads into
 * slots[t], a struct report of its own, and a text buffer of its own that
 * is reused from file to file; file i records which slot and which range
 * of that slot's ranks it filled.  Ranks are referred to by index until all
 * files are read, because a slot's ranks array moves as it grows.  The
 * files go in batches so that the progress line can be drawn between them
 * without shared counters; a batch is large enough that the barrier at its
 * end costs nothing measurable.
 *
 * Big files and gzip files are sniffed first: a reports directory may also
 * hold the traces themselves, gigabytes of JSON that should not be read
 * whole to learn that they are no report.  report_sniff() walks their
 * top-level keys and stops at "traceEvents" (a trace, other JSON) or at
 * "schema" (a report).  Smaller plain files are read whole at once, which gives the
 * reader's own message for other JSON.
 */
#include "merge.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "report_read.h"

#define SNIFF_MIN (16u << 20)
#define BATCH 256
/* A directory merged twice gives a note per rank: the first ones tell. */
#define MAX_DUP_NOTES 20

enum { FILE_UNREADABLE = -2 };

struct file_res {
	int rc;				/* REPORT_READ_* or FILE_UNREADABLE */
	struct err err;
	char schema[64];		/* REPORT_READ_OTHER: the "schema" string, if any */
	int slot;
	size_t first, n;		/* the file's ranks in slots[slot] */
	size_t bytes;			/* its text */
	int compact;			/* a compact merged report: its ranks lack their tables */
};

/* One rank on its way into the merged report. */
struct entry {
	int64_t rank;
	const char *source;
	size_t file, pos;
	const struct report_rank *rk;
};

static int read_all(int fd, struct buf *text, size_t size)
{
	buf_reset(text);
	if (buf_reserve(text, size + 1))
		return -1;
	for (;;) {
		ssize_t k;

		if (text->cap - text->len < 2 && buf_reserve(text, 1 << 16))
			return -1;
		k = read(fd, text->data + text->len, text->cap - text->len - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		text->len += (size_t)k;
	}
	text->data[text->len] = '\0';
	return 0;
}

/* Read path's ranks into r; the outcome goes into res. */
static void read_one(struct report *r, struct buf *text, const char *path, unsigned flags,
		     struct file_res *res)
{
	size_t before = r->nr_ranks;
	unsigned char magic[2];
	struct stat st;
	int fd, gz;

	err_clear(&res->err);
	res->schema[0] = '\0';
	res->rc = FILE_UNREADABLE;
	buf_reset(text);
	/* O_NONBLOCK: a FIFO named by mistake must not hang the run before fstat */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		err_set(&res->err, -1, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(&res->err, -1, "not a regular file");
		goto out;
	}
	gz = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	if (gz || (size_t)st.st_size > SNIFF_MIN) {
		int found = report_sniff(path, res->schema, sizeof(res->schema));

		if (found < 0) {
			err_set(&res->err, -1, "cannot read: %s", strerror(errno ? errno : EIO));
			goto out;
		}
		if (!found) {
			res->rc = REPORT_READ_OTHER;
			err_set(&res->err, -1, "not a vtrace report (no top-level \"schema\")");
			goto out;
		}
	}
	if (gz) {
		res->rc = report_read_file(r, path, flags, &res->err);
		goto out;
	}
	if (read_all(fd, text, (size_t)st.st_size)) {
		err_set(&res->err, (int64_t)text->len, "cannot read: %s",
			errno ? strerror(errno) : "out of memory");
		goto out;
	}
	res->rc = report_read(r, text->data, text->len, flags, &res->err);
	if (res->rc == REPORT_READ_OTHER)
		report_sniff_text(text->data, text->len, res->schema, sizeof(res->schema));
out:
	if (fd >= 0)
		close(fd);
	res->first = before;
	/* r gathers many files: which of them was compact is the file's to say */
	res->compact = res->rc == REPORT_READ_OK && r->compact;
	r->compact = 0;
	res->n = res->rc == REPORT_READ_OK ? r->nr_ranks - before : 0;
	res->bytes = res->rc == REPORT_READ_OK ? text->len : 0;
}

static void progress_line(size_t done, size_t n, int last)
{
	if (last)
		fprintf(stderr, "\r%*s\r", 60, "");
	else
		fprintf(stderr, "\r%s: %zu/%zu reports read", log_progname(), done, n);
	fflush(stderr);
}

static void read_files(struct report *slots, struct buf *texts, const struct merge_input *in,
		       size_t n, struct file_res *res, const struct merge_opts *o)
{
	int jobs = o->jobs;
	int progress = o->progress && n > BATCH;
	unsigned flags = o->read_flags;

	for (size_t lo = 0; lo < n; lo += BATCH) {
		size_t hi = lo + BATCH < n ? lo + BATCH : n;

#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) default(none) \
	shared(slots, texts, in, res, lo, hi, flags)
		for (size_t i = lo; i < hi; i++) {
			int t = omp_get_thread_num();

			read_one(&slots[t], &texts[t], in[i].path, flags, &res[i]);
			res[i].slot = t;
		}
		if (progress)
			progress_line(hi, n, 0);
	}
	if (progress)
		progress_line(n, n, 1);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	c = strcmp(x->source, y->source);
	if (c)
		return c;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* One line per file that gave no ranks, in input order; counts into st. */
static void report_files(const struct merge_input *in, size_t n, const struct file_res *res,
			 struct merge_stats *st)
{
	for (size_t i = 0; i < n; i++) {
		const struct file_res *f = &res[i];
		const char *p = in[i].path;

		switch (f->rc) {
		case REPORT_READ_OK:
			if (!f->n) {
				/* a map step whose vanalyze read nothing: not a rank of the run */
				log_msg("%s: the report holds no ranks (its vanalyze read no "
					"trace); skipped", p);
				st->skipped++;
				break;
			}
			st->reports++;
			st->bytes += f->bytes;
			if (f->compact && st->compact++ < MAX_DUP_NOTES)
				log_msg("warning: %s: a compact merged report: its ranks come "
					"without their tables, so their phase statistics, "
					"collectives and suggestions are left out (merge reports "
					"written with --full)", p);
			break;
		case REPORT_READ_OTHER:
			if (!strncmp(f->schema, "vtrace.report/", 14)) {
				log_msg("%s: report schema \"%s\" is not %s, which this %s "
					"reads; skipped", p, f->schema, REPORT_SCHEMA,
					log_progname());
				st->skipped++;
			} else {
				/* Other JSON in a directory is expected; named, a mistake. */
				log_msg("%s: %s, skipped", p, f->err.msg);
				if (in[i].named)
					st->skipped++;
				else
					st->other++;
			}
			break;
		default:
			if (f->err.offset >= 0)
				log_msg("%s: %sbyte %lld: %s; skipped", p,
					f->err.compressed ? "compressed " : "",
					(long long)f->err.offset, f->err.msg);
			else
				log_msg("%s: %s; skipped", p, f->err.msg);
			st->skipped++;
			break;
		}
	}
}

static const char shared_rank_msg[] = "another input also claims rank %lld; both are kept";

/*
 * Add vanalyze's warning about a shared rank number to rk, unless it has it;
 * print it too, the first MAX_DUP_NOTES times (*printed counts).
 */
static int warn_shared(struct report *rep, struct report_rank *rk, const char *path,
		       size_t *printed)
{
	const char **w;
	char text[96];
	struct err e;

	snprintf(text, sizeof(text), shared_rank_msg, (long long)rk->rank);
	for (size_t i = 0; i < rk->nr_warnings; i++)
		if (!strcmp(rk->warnings[i], text))
			return 0;
	err_set(&e, -1, "%s", text);
	if ((*printed)++ < MAX_DUP_NOTES)
		log_warn(path, &e);
	w = arena_alloc(&rep->arena, (rk->nr_warnings + 1) * sizeof(*w));
	if (!w)
		return -1;
	if (rk->nr_warnings)
		memcpy(w, rk->warnings, rk->nr_warnings * sizeof(*w));
	w[rk->nr_warnings] = arena_strndup(&rep->arena, text, strlen(text));
	if (!w[rk->nr_warnings])
		return -1;
	rk->warnings = w;
	rk->nr_warnings++;
	return 0;
}

/* Sorted, deduplicated ranks of every slot into rep. */
static int build(struct report *rep, struct report *slots, const struct merge_input *in,
		 size_t n, const struct file_res *res, struct merge_stats *st)
{
	struct entry *e;
	size_t *from;
	size_t total = 0, k = 0, printed = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		total += res[i].n;
	e = malloc((total ? total : 1) * sizeof(*e));
	from = malloc((total ? total : 1) * sizeof(*from));
	rep->ranks = arena_alloc(&rep->arena, (total ? total : 1) * sizeof(*rep->ranks));
	if (!e || !from || !rep->ranks) {
		free(e);
		free(from);
		rep->ranks = NULL;
		return -1;
	}
	rep->ranks_alloc = total ? total : 1;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < res[i].n; j++) {
			const struct report_rank *rk = &slots[res[i].slot].ranks[res[i].first + j];

			e[k].rank = rk->rank;
			e[k].source = rk->source;
			e[k].file = i;
			e[k].pos = j;
			e[k].rk = rk;
			k++;
		}
	}
	if (total > 1)
		qsort(e, total, sizeof(*e), cmp_entry);
	/* from[i]: the file rep->ranks[i] was read from, for the messages */
	k = 0;
	for (size_t i = 0; i < total; i++) {
		if (k && e[i].rank == rep->ranks[k - 1].rank &&
		    !strcmp(e[i].source, rep->ranks[k - 1].source)) {
			if (st->duplicates < MAX_DUP_NOTES)
				log_msg("%s: rank %lld (%s) was read from '%s' already; "
					"counted once", in[e[i].file].path,
					(long long)e[i].rank, e[i].source, in[from[k - 1]].path);
			st->duplicates++;
			continue;
		}
		rep->ranks[k] = *e[i].rk;
		rep->ranks[k].report_path = in[e[i].file].path;
		from[k++] = e[i].file;
	}
	rep->nr_ranks = k;
	if (st->duplicates > MAX_DUP_NOTES)
		log_msg("%zu more ranks were read twice and counted once",
			st->duplicates - MAX_DUP_NOTES);
	for (size_t i = 0; i < k && rc == 0; i++) {
		int shared = (i > 0 && rep->ranks[i - 1].rank == rep->ranks[i].rank) ||
			     (i + 1 < k && rep->ranks[i + 1].rank == rep->ranks[i].rank);

		if (shared) {
			st->shared_ranks++;
			rc = warn_shared(rep, &rep->ranks[i], in[from[i]].path, &printed);
		}
	}
	if (printed > MAX_DUP_NOTES)
		log_msg("warning: %zu more ranks share their rank number with another source",
			printed - MAX_DUP_NOTES);
	free(e);
	free(from);
	return rc;
}

int merge_reports(struct report *rep, const struct merge_input *in, size_t n,
		  const struct merge_opts *o, struct merge_stats *st)
{
	int jobs = o->jobs > 0 ? o->jobs : 1;
	struct file_res *res = calloc(n ? n : 1, sizeof(*res));
	struct report *slots = calloc((size_t)jobs, sizeof(*slots));
	struct buf *texts = calloc((size_t)jobs, sizeof(*texts));
	/* one name table a thread: the ranks of a run repeat the same names */
	struct strtab *names = calloc((size_t)jobs, sizeof(*names));
	struct merge_opts eff = *o;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	st->files = n;
	if (!res || !slots || !texts || !names)
		goto out;
	for (int t = 0; t < jobs; t++) {
		report_init(&slots[t], rep->tool);
		buf_init(&texts[t]);
		strtab_init(&names[t], 1);
		slots[t].strings = &names[t];
	}
	eff.jobs = jobs;
	read_files(slots, texts, in, n, res, &eff);
	for (int t = 0; t < jobs; t++)
		buf_release(&texts[t]);
	report_files(in, n, res, st);
	rc = build(rep, slots, in, n, res, st);
	/* The ranks point into the slots' arenas: they now live as long as rep. */
	for (int t = 0; t < jobs; t++) {
		arena_adopt(&rep->arena, &slots[t].arena);
		arena_adopt(&rep->arena, &names[t].arena);
		report_release(&slots[t]);
		strtab_release(&names[t]);
	}
out:
	if (rc)
		log_msg("out of memory merging the reports");
	free(res);
	free(slots);
	free(texts);
	free(names);
	return rc;
}
