/* runs: see runs.h. */
#include "runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "run_info.h"
#include "sat.h"

/* A rank, what identifies its run (run_info_identity()) and its file's stem. */
struct ranked {
	size_t i;		/* index in rep->ranks */
	const struct report_rank *rk;
	char *id, *stem;
};

/* By identity, then start (unknown starts first), then rank. */
static int cmp_start(const void *a, const void *b)
{
	const struct ranked *p = a, *q = b;
	const struct report_rank *x = p->rk, *y = q->rk;
	int c = strcmp(p->id, q->id);

	if (c)
		return c;
	if (x->start_unix_ns != y->start_unix_ns)
		return x->start_unix_ns < y->start_unix_ns ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* By identity, then stem, then rank: the ranks without a start, in groups. */
static int cmp_stem(const void *a, const void *b)
{
	const struct ranked *p = a, *q = b;
	int c = strcmp(p->id, q->id);

	if (!c)
		c = strcmp(p->stem, q->stem);
	return c ? c : (p->rk->rank > q->rk->rank) - (p->rk->rank < q->rk->rank);
}

/*
 * Ranks with a start: a run per identity, cut where a trace starts long
 * after the others of its identity ended.  Ranks without one cannot be
 * placed in time: each joins the run of a timed rank of its identity and
 * file stem (a trace cut before its time base), else the ranks of one
 * identity and stem make a run of their own (legacy traces of one run).
 */
long runs_find(const struct report *rep, size_t *run_of)
{
	struct ranked *v = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*v));
	size_t n = 0, nt = 0, nr_runs = 0;
	int64_t end = 0;
	struct buf id, stem;
	int oom = !v;

	buf_init(&id);
	buf_init(&stem);
	for (size_t i = 0; v && i < rep->nr_ranks; i++) {
		run_info_identity(&rep->ranks[i], &id);
		run_info_stem(&rep->ranks[i], &stem);
		v[n] = (struct ranked){ i, &rep->ranks[i], NULL, NULL };
		if (!buf_ok(&id) || !buf_ok(&stem) || !(v[n].id = strdup(id.len ? id.data : "")) ||
		    !(v[n].stem = strdup(stem.len ? stem.data : "")))
			oom = 1;
		n++;
	}
	buf_release(&id);
	buf_release(&stem);
	if (!oom && n > 1)
		qsort(v, n, sizeof(*v), cmp_start);	/* the ranks without a start first */
	while (nt < n && !oom && v[nt].rk->start_unix_ns <= 0)
		nt++;
	for (size_t i = nt; !oom && i < n; i++) {
		const struct report_rank *rk = v[i].rk;
		int64_t e = sat_add(rk->start_unix_ns, rk->span_ns > 0 ? rk->span_ns : 0);

		/* another identity, or a start long after the run before ended */
		if (i == nt || strcmp(v[i].id, v[i - 1].id) ||
		    rk->start_unix_ns > sat_add(end, RUNS_GAP_NS)) {
			nr_runs++;
			end = e;
		}
		run_of[v[i].i] = nr_runs - 1;
		if (e > end)
			end = e;
	}
	/* both sides by identity and stem: a search for each group without a start */
	if (!oom && nt > 1)
		qsort(v, nt, sizeof(*v), cmp_stem);
	if (!oom && n - nt > 1)
		qsort(v + nt, n - nt, sizeof(*v), cmp_stem);
	for (size_t i = 0; !oom && i < nt; i++) {
		size_t lo = nt, hi = n;

		if (i && !strcmp(v[i].id, v[i - 1].id) && !strcmp(v[i].stem, v[i - 1].stem)) {
			run_of[v[i].i] = run_of[v[i - 1].i];
			continue;
		}
		/* the first timed rank not before v[i]'s identity and stem */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(v[mid].id, v[i].id);

			if (c < 0 || (!c && strcmp(v[mid].stem, v[i].stem) < 0))
				lo = mid + 1;
			else
				hi = mid;
		}
		run_of[v[i].i] = lo < n && !strcmp(v[lo].id, v[i].id) &&
				 !strcmp(v[lo].stem, v[i].stem)
					 ? run_of[v[lo].i]
					 : nr_runs++;
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].stem);
	}
	free(v);
	return oom ? -1 : (long)nr_runs;
}

/* "2023-09-07 23:10:01 UTC" */
static void when(char *out, size_t n, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0)
		snprintf(out, n, "an unknown time");
	else if (!gmtime_r(&s, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, n, "%lld ns", (long long)ns);
}

void runs_describe(const struct report *rep, const size_t *run_of, size_t nr_runs,
		   int numbered, struct buf *out)
{
	for (size_t r = 0; r < nr_runs && r < RUNS_SHOWN; r++) {
		const struct report_rank *first = NULL;
		size_t ranks = 0;
		char t[64];

		for (size_t i = 0; i < rep->nr_ranks; i++) {
			const struct report_rank *rk = &rep->ranks[i];

			if (run_of[i] != r)
				continue;
			ranks++;
			if (!first || (rk->start_unix_ns > 0 &&
				       (first->start_unix_ns <= 0 ||
					rk->start_unix_ns < first->start_unix_ns)))
				first = rk;
		}
		when(t, sizeof(t), first->start_unix_ns);
		buf_adds(out, r ? "; " : "");
		if (numbered)
			buf_printf(out, "run %zu: ", r + 1);
		buf_printf(out, "%zu %s from %s ('%s', rank %lld)", ranks,
			   ranks > 1 ? "ranks" : "rank", t,
			   first->report_path ? first->report_path : first->path,
			   (long long)first->rank);
	}
	if (nr_runs > RUNS_SHOWN)
		buf_printf(out, "; and %zu more", nr_runs - RUNS_SHOWN);
}

int runs_check(const struct report *rep)
{
	size_t *run_of = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*run_of));
	long nr_runs = run_of ? runs_find(rep, run_of) : -1;
	struct buf b;

	if (nr_runs < 0) {
		log_msg("out of memory telling the runs apart");
		free(run_of);
		return -1;
	}
	if (nr_runs > 1) {
		buf_init(&b);
		runs_describe(rep, run_of, (size_t)nr_runs, 0, &b);
		if (!buf_ok(&b)) {
			log_msg("out of memory telling the runs apart");
			nr_runs = -1;
		} else {
			log_msg("warning: these reports come from %ld different runs (other "
				"metadata: device, world size, run name, model, resolution, "
				"frames or steps; or traces more than %lld s apart that never "
				"overlap): %s", nr_runs, RUNS_GAP_NS / 1000000000, b.data);
		}
		buf_release(&b);
	}
	free(run_of);
	if (nr_runs < 0)
		return -1;
	return nr_runs > 1 << 30 ? 1 << 30 : (int)nr_runs;
}
