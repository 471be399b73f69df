/*
 * run: see run.h.
 *
 * Inputs are spread over threads when there are at least as many files as
 * threads; otherwise each file gets all threads for its own pipeline.
 */
#include "run.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "buf.h"
#include "collectives.h"
#include "crossrank.h"
#include "inputs.h"
#include "log.h"
#include "rank.h"
#include "run_info.h"
#include "runs.h"
#include "perf_peak.h"
#include "suggest.h"

/*
 * Analyse each input into done[i].  Each thread has one struct file_result
 * for the file it reads; what is kept of a file moves to done[i] and the
 * rest is released before the next, so memory grows with the ranks kept,
 * not with what reading each file took.  Returns 0, or -1 when out of
 * memory before any file was read.
 */
static int analyze_all(struct file_done *done, char *const *paths, size_t n,
			const struct analyze_opts *o)
{
	int jobs = o->jobs, progress = o->progress;
	int many = n >= (size_t)jobs && jobs > 1;
	size_t nr_work = many ? (size_t)jobs : 1;
	struct file_result *work = malloc(nr_work * sizeof(*work));

	if (!work) {
		log_msg("out of memory");
		return -1;
	}
	if (many) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) default(none) \
	shared(done, paths, n, o, work)
		for (size_t i = 0; i < n; i++) {
			struct file_result *res = &work[omp_get_thread_num()];

			file_result_init(res, paths[i], &o->phase);
			res->full = o->full;
			analyze_file(res, 1, 0);
			analyze_keep(res, &done[i]);
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			file_result_init(work, paths[i], &o->phase);
			work->full = o->full;
			analyze_file(work, jobs, progress);
			analyze_keep(work, &done[i]);
		}
	}
	free(work);
	return 0;
}

struct ranked {
	size_t index;		/* into res[] */
	int64_t rank;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* w as the report says it, in rep's arena; NULL when out of memory. */
static const char *warning_text(struct report *rep, const struct err *w)
{
	struct buf b;
	const char *s;

	buf_init(&b);
	if (w->offset >= 0)
		buf_printf(&b, "%sbyte %lld: ", w->compressed ? "compressed " : "",
			   (long long)w->offset);
	buf_adds(&b, w->msg);
	s = buf_ok(&b) ? arena_strndup(&rep->arena, b.data, b.len) : NULL;
	buf_release(&b);
	return s;
}

/* Add w's text to rk's warnings: 0, or -1 when out of memory. */
static int keep_warning(struct report *rep, struct report_rank *rk, const struct err *w)
{
	const char *text = warning_text(rep, w);

	if (!text)
		return -1;
	rk->warnings[rk->nr_warnings++] = text;
	return 0;
}

/*
 * Whether memory ran out while r was read or analysed: the reader says so
 * in a warning when it stops early, the analyses in r->oom.  Either way the
 * rank may lack its metadata (read last, after the events) or any figure.
 */
static int ran_out(const struct file_done *r)
{
	if (r->oom || (r->rc < 0 && r->err && err_is_oom(r->err)))
		return 1;
	for (size_t w = 0; w < r->nr_warnings; w++)
		if (err_is_oom(&r->warnings[w]))
			return 1;
	return 0;
}

static int no_device_warning(const struct err *w)
{
	return !strncmp(w->msg, ANALYZE_NO_DEVICE, strlen(ANALYZE_NO_DEVICE));
}

/*
 * Report each readable input as a rank, deciding ranks as DESIGN.md says.
 * An input that memory ran out on is an error and no rank: what was read
 * of it is not the file (a rank without its run's metadata would pass for
 * another run).  Returns EXIT_OK, or EXIT_FAIL when an input could not be
 * read completely or memory ran out (without ranks when it ran out before
 * them).
 */
static int build_report(struct report *rep, struct file_done *res, size_t n)
{
	struct ranked *order = calloc(n ? n : 1, sizeof(*order));
	const char **extra = calloc(n ? n : 1, sizeof(*extra));
	size_t k = 0, nr_read = 0, nr_host = 0, first_host = 0;
	int status = EXIT_OK;

	if (!order || !extra) {
		log_msg("out of memory");
		status = EXIT_FAIL;
		goto out;
	}
	/* counted as the loop below takes them: an input memory ran out on is none */
	for (size_t i = 0; i < n; i++) {
		if (ran_out(&res[i]))
			continue;
		nr_read += res[i].rc >= 0;
		for (size_t w = 0; w < res[i].nr_warnings; w++)
			if (no_device_warning(&res[i].warnings[w]) && !nr_host++)
				first_host = i;
	}
	for (size_t i = 0; i < n; i++) {
		struct file_done *r = &res[i];
		int64_t rank = r->rank;

		if (ran_out(r)) {
			log_msg("%s: out of memory", r->path);
			status = EXIT_FAIL;
			continue;
		}
		for (size_t w = 0; w < r->nr_warnings; w++)
			if (nr_host < 2 || !no_device_warning(&r->warnings[w]))
				log_warn(r->path, &r->warnings[w]);
		/* several host-only traces: one line for the run, each rank's own in report.json */
		if (nr_host > 1 && i == first_host)
			log_msg("warning: %zu of %zu inputs (%s, ...): " ANALYZE_NO_DEVICE
				"; figures are host-side only", nr_host, n, r->path);
		if (r->rc < 0) {
			if (r->err)
				log_error(r->path, r->err);
			else
				log_msg("%s: out of memory", r->path);
			status = EXIT_FAIL;
			continue;
		}
		if (r->rc > 0)
			status = EXIT_FAIL;
		if (rank < 0)
			rank = rank_from_name(r->path);
		/*
		 * The position among the inputs read (an unreadable file is no
		 * rank); a single trace is rank 0 without a word.
		 */
		if (rank < 0) {
			struct err w;

			rank = (int64_t)k;
			err_set(&w, -1,
				"no rank in the file or its name; rank %lld from its position",
				(long long)rank);
			if (nr_read > 1) {
				extra[i] = warning_text(rep, &w);
				if (!extra[i]) {
					log_msg("%s: out of memory keeping its warnings", r->path);
					status = EXIT_FAIL;
				}
				log_warn(r->path, &w);
			}
		}
		order[k].index = i;
		order[k].rank = rank;
		k++;
	}
	if (k > 1)
		qsort(order, k, sizeof(*order), cmp_ranked);
	rep->ranks = arena_alloc(&rep->arena, (k ? k : 1) * sizeof(*rep->ranks));
	if (!rep->ranks) {
		log_msg("out of memory");
		status = EXIT_FAIL;
		goto out;
	}
	for (size_t j = 0; j < k; j++) {
		struct file_done *r = &res[order[j].index];
		struct report_rank *rk = &rep->ranks[j];
		size_t nw = r->nr_warnings;
		int dup = (j > 0 && order[j - 1].rank == order[j].rank) ||
			  (j + 1 < k && order[j + 1].rank == order[j].rank);
		int lost = 0;

		analyze_to_rank(r, rep, rk);
		rk->rank = order[j].rank;
		rk->nr_warnings = 0;
		rk->warnings = arena_alloc(&rep->arena, (nw + 3) * sizeof(*rk->warnings));
		if (!rk->warnings) {
			log_msg("%s: out of memory keeping its warnings", r->path);
			status = EXIT_FAIL;
			continue;
		}
		for (size_t i = 0; i < nw; i++)
			lost |= keep_warning(rep, rk, &r->warnings[i]);
		if (r->nr_warnings_total > nw) {
			struct err more;

			err_set(&more, -1, "%zu more warnings not shown",
				r->nr_warnings_total - nw);
			lost |= keep_warning(rep, rk, &more);
		}
		if (extra[order[j].index])
			rk->warnings[rk->nr_warnings++] = extra[order[j].index];
		if (dup) {
			struct err d;

			err_set(&d, -1, "another input also claims rank %lld; both are kept",
				(long long)rk->rank);
			lost |= keep_warning(rep, rk, &d);
			log_warn(r->path, &d);
		}
		/* a report that says less than was found is no success */
		if (lost) {
			log_msg("%s: out of memory keeping its warnings", r->path);
			status = EXIT_FAIL;
		}
	}
	rep->nr_ranks = k;
out:
	free(order);
	free(extra);
	return status;
}

/*
 * Several runs given together (runs.h): refused, each named with its
 * number, unless --run picks one (the others' ranks are dropped) or
 * --merge-runs says to take them as one.  Returns EXIT_OK, EXIT_USAGE, or
 * EXIT_FAIL when out of memory.
 */
static int pick_run(struct report *rep, const struct analyze_opts *o)
{
	size_t *run_of = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*run_of)), k = 0;
	long nr_runs = run_of ? runs_find(rep, run_of) : -1;
	struct buf b;
	int rc = EXIT_OK;

	buf_init(&b);
	if (nr_runs < 0) {
		log_msg("out of memory telling the runs apart");
		rc = EXIT_FAIL;
	} else if (o->run && o->run > nr_runs) {
		log_msg("--run %ld: the inputs hold %ld run%s", o->run, nr_runs,
			nr_runs == 1 ? "" : "s");
		rc = EXIT_USAGE;
	} else if (o->run) {
		for (size_t i = 0; i < rep->nr_ranks; i++)
			if (run_of[i] == (size_t)(o->run - 1))
				rep->ranks[k++] = rep->ranks[i];
		rep->nr_ranks = k;
	} else if (nr_runs > 1) {
		runs_describe(rep, run_of, (size_t)nr_runs, 1, &b);
		if (!buf_ok(&b)) {
			log_msg("out of memory telling the runs apart");
			rc = EXIT_FAIL;
			goto out;
		}
		log_msg("%s: these inputs come from %ld different runs (other metadata: device, "
			"world size, run name, model, resolution, frames or steps; or traces more "
			"than %lld s apart): %s; %s", o->merge_runs ? "warning" : "error", nr_runs,
			RUNS_GAP_NS / 1000000000, b.data,
			o->merge_runs ? "analysed as one (--merge-runs)"
				      : "pick one with --run N, or merge them with --merge-runs");
		rc = o->merge_runs ? EXIT_OK : EXIT_USAGE;
	}
out:
	buf_release(&b);
	free(run_of);
	return rc;
}

/*
 * The phase tables capped as the others are (analyze.c), but only once the
 * cross-rank rows have been made of every phase.
 */
static int fold_phases(struct report *rep)
{
	for (size_t i = 0; !rep->full && i < rep->nr_ranks; i++)
		if (report_fold_phases(&rep->ranks[i], REPORT_ROWS_MAX))
			return -1;
	return 0;
}

int analyze_run(struct report *rep, char *const *args, size_t n, const struct analyze_opts *o)
{
	struct pathlist in = { 0 };
	struct file_done *res;
	int status = EXIT_OK, rc;

	for (size_t i = 0; i < n; i++)
		if (inputs_expand(&in, args[i], o->jobs))
			status = EXIT_FAIL;
	res = calloc(in.n ? in.n : 1, sizeof(*res));
	if (!res || analyze_all(res, in.paths, in.n, o)) {
		if (!res)
			log_msg("out of memory");
		free(res);
		pathlist_release(&in);
		return EXIT_FAIL;
	}
	if (build_report(rep, res, in.n) != EXIT_OK)
		status = EXIT_FAIL;
	if ((rc = pick_run(rep, o)) != EXIT_OK) {
		status = rc;
		goto out;
	}
	perf_peak_apply(rep, &o->peak);
	rep->full = o->full;
	if (run_info_compute(rep) || collectives_compute(rep) || crossrank_compute(rep) ||
	    fold_phases(rep) || suggest_compute(rep, &o->suggest)) {
		log_msg("out of memory computing cross-rank statistics or suggestions");
		status = EXIT_FAIL;
	}
	run_info_warn(rep);
out:
	for (size_t i = 0; i < in.n; i++)
		file_done_release(&res[i]);
	free(res);
	pathlist_release(&in);
	return status;
}
