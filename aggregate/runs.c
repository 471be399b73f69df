/* runs: see runs.h. */
#include "runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buf.h"
#include "log.h"
#include "sat.h"

/* One run: its earliest trace and how many ranks it holds. */
struct run {
	const struct report_rank *first;
	size_t ranks;
};

static int cmp_start(const void *a, const void *b)
{
	const struct report_rank *x = *(const struct report_rank *const *)a;
	const struct report_rank *y = *(const struct report_rank *const *)b;

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

	when(t, sizeof(t), r->first->start_unix_ns);
	buf_printf(b, "%s%zu %s from %s ('%s', rank %lld)", b->len ? "; " : "", r->ranks,
		   r->ranks > 1 ? "ranks" : "rank", t,
		   r->first->report_path ? r->first->report_path : r->first->path,
		   (long long)r->first->rank);
}

int runs_check(const struct report *rep)
{
	const struct report_rank **v;
	struct run shown[RUNS_SHOWN];
	size_t n = 0, nr_runs = 0;
	int64_t end = 0;
	struct buf b;

	v = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*v));
	if (!v) {
		log_msg("out of memory comparing the ranks' start times");
		return -1;
	}
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].start_unix_ns > 0)
			v[n++] = &rep->ranks[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_start);
	for (size_t i = 0; i < n; i++) {
		int64_t e = sat_add(v[i]->start_unix_ns, v[i]->span_ns > 0 ? v[i]->span_ns : 0);

		if (i == 0 || v[i]->start_unix_ns > sat_add(end, RUNS_GAP_NS)) {
			if (nr_runs < RUNS_SHOWN)
				shown[nr_runs] = (struct run){ v[i], 0 };
			nr_runs++;
			end = e;
		}
		if (nr_runs <= RUNS_SHOWN)
			shown[nr_runs - 1].ranks++;
		if (e > end)
			end = e;
	}
	free(v);
	if (nr_runs < 2)
		return (int)nr_runs;
	buf_init(&b);
	for (size_t i = 0; i < nr_runs && i < RUNS_SHOWN; i++)
		describe(&b, &shown[i]);
	if (nr_runs > RUNS_SHOWN)
		buf_printf(&b, "; and %zu more", nr_runs - RUNS_SHOWN);
	log_msg("warning: these reports come from %zu different runs (traces more than %lld s "
		"apart that never overlap): %s", nr_runs, RUNS_GAP_NS / 1000000000,
		buf_ok(&b) ? b.data : "(out of memory)");
	buf_release(&b);
	return nr_runs > 1 << 30 ? 1 << 30 : (int)nr_runs;
}
