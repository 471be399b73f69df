/* runs: see runs.h. */
#include "runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <string.h>

#include "buf.h"
#include "log.h"
#include "run_info.h"
#include "sat.h"

/* One run: its earliest trace and how many ranks it holds. */
struct run {
	const struct report_rank *first;
	size_t ranks;
};

/* A rank and what identifies its run (run_info_identity()). */
struct ranked {
	const struct report_rank *rk;
	char *id;
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

/* "2023-09-07 23:10:01 UTC" */
static void when(char *out, size_t n, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, n, "%lld ns", (long long)ns);
}

static void describe(struct buf *b, const struct run *r)
{
	char t[64];

	if (r->first->start_unix_ns > 0)
		when(t, sizeof(t), r->first->start_unix_ns);
	else
		snprintf(t, sizeof(t), "an unknown time");
	buf_printf(b, "%s%zu %s from %s ('%s', rank %lld)", b->len ? "; " : "", r->ranks,
		   r->ranks > 1 ? "ranks" : "rank", t,
		   r->first->report_path ? r->first->report_path : r->first->path,
		   (long long)r->first->rank);
}

int runs_check(const struct report *rep)
{
	struct ranked *v;
	struct run shown[RUNS_SHOWN];
	size_t n = 0, nr_runs = 0;
	int64_t end = 0;
	struct buf b, id;
	int oom = 0;

	v = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*v));
	buf_init(&id);
	for (size_t i = 0; v && i < rep->nr_ranks; i++) {
		const struct report_rank *rk = &rep->ranks[i];

		run_info_identity(rk, &id);
		if (rk->start_unix_ns <= 0 && !id.len)
			continue;	/* nothing tells its run */
		v[n].rk = rk;
		if (!buf_ok(&id) || !(v[n++].id = strdup(id.len ? id.data : "")))
			oom = 1;
	}
	buf_release(&id);
	if (!v || oom) {
		log_msg("out of memory telling the runs apart");
		for (size_t i = 0; v && i < n; i++)
			free(v[i].id);
		free(v);
		return -1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_start);
	for (size_t i = 0; i < n; i++) {
		const struct report_rank *rk = v[i].rk;
		int64_t e = sat_add(rk->start_unix_ns, rk->span_ns > 0 ? rk->span_ns : 0);

		/* another identity, or (both known) a start long after the run before ended */
		if (i == 0 || strcmp(v[i].id, v[i - 1].id) ||
		    (rk->start_unix_ns > 0 && end > 0 && rk->start_unix_ns > sat_add(end, RUNS_GAP_NS))) {
			if (nr_runs < RUNS_SHOWN)
				shown[nr_runs] = (struct run){ rk, 0 };
			nr_runs++;
			end = rk->start_unix_ns > 0 ? e : 0;
		}
		if (nr_runs <= RUNS_SHOWN)
			shown[nr_runs - 1].ranks++;
		if (rk->start_unix_ns > 0 && e > end)
			end = e;
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].id);
	free(v);
	if (nr_runs < 2)
		return (int)nr_runs;
	buf_init(&b);
	for (size_t i = 0; i < nr_runs && i < RUNS_SHOWN; i++)
		describe(&b, &shown[i]);
	if (nr_runs > RUNS_SHOWN)
		buf_printf(&b, "; and %zu more", nr_runs - RUNS_SHOWN);
	log_msg("warning: these reports come from %zu different runs (other metadata: device, "
		"world size, run name, model, resolution, frames or steps; or traces more than "
		"%lld s apart that never overlap): %s", nr_runs, RUNS_GAP_NS / 1000000000,
		buf_ok(&b) ? b.data : "(out of memory)");
	buf_release(&b);
	return nr_runs > 1 << 30 ? 1 << 30 : (int)nr_runs;
}
