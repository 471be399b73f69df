/*
 * rules_ranks: the rules about ranks against each other (rule.h): the
 * ranks whose trace was cut off, and crossrank's stragglers.
 */
#include "rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankset.h"
#include "vendor_words.h"

/*
 * incomplete-ranks: the ranks whose trace was cut off, at any value.  It
 * alone sees them (.incomplete): their figures cover only what was read.
 */
static int eval_incomplete(const struct report_rank *r, const double *t, struct arena *a,
			   struct finding *f)
{
	(void)r;
	(void)t;
	(void)a;
	(void)f;
	return FIRES;
}

static void msg_incomplete(struct text *t, const struct finding *f)
{
	(void)f;
	snprintf(t->m, sizeof(t->m), "%s: the trace is incomplete (cut off while reading).",
		 t->where);
	snprintf(t->d, sizeof(t->d),
		 "Its figures cover only what was read, so every other finding leaves it out and "
		 "it is never named a straggler. Copy the trace again, or let the profiler "
		 "finish writing it.");
}

/* How a metric of the straggler table reads in a sentence. */
static const char *metric_words(const char *m)
{
	if (strcmp(m, MK_STEPS_MEDIAN_NS) == 0)
		return "median step";
	if (strcmp(m, MK_SPAN_NS) == 0)
		return "trace span";
	if (strcmp(m, MK_GPU_COMM_NS) == 0)
		return "communication time";
	if (strcmp(m, MK_COMM_WAIT_IMPOSED_NS) == 0)
		return "wait imposed on the others";
	if (strcmp(m, MK_GPU_COMM_WAIT_NS) == 0)
		return "wait inside collectives";
	return "figure (see the evidence)";	/* no raw key in prose */
}

/* The complete rank with rank number rk, or NULL. */
static const struct report_rank *rank_of(const struct report *rep, int64_t rk)
{
	for (size_t i = 0; i < rep->nr_ranks; i++)
		if (rep->ranks[i].rank == rk && rep->ranks[i].complete)
			return &rep->ranks[i];
	return NULL;
}

static int is_straggler(const struct report *rep, int64_t rk)
{
	for (size_t i = 0; i < rep->nr_stragglers; i++)
		if (rep->stragglers[i].rank == rk)
			return 1;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The ranks that wait for the stragglers (complete, not stragglers,
 * waiting inside collectives for a late peer: report_peer_wait_ns(), not
 * the idle time inside the operators, which no straggler causes) as words
 * in rep's arena; in *share the part of their communication time spent
 * waiting, in *worst the rank that waits
 * longest and in *wait its wait.  *who is NULL when none waits.  Returns
 * 0, or -1 when out of memory: a finding that lost its waiters would
 * change its figure and words without a word.
 */
static int waiters(struct report *rep, const char **who, double *share, int64_t *worst,
		   double *wait)
{
	int64_t *v = malloc((rep->nr_ranks ? rep->nr_ranks : 1) * sizeof(*v));
	double w = 0, c = 0;
	size_t n = 0;
	char text[160];

	*who = NULL;
	*wait = -1;
	if (!v)
		return -1;
	for (size_t i = 0; i < rep->nr_ranks; i++) {
		const struct report_rank *r = &rep->ranks[i];

		int64_t pw = report_peer_wait_ns(&r->gpu);

		/* a CPU run's collectives (gloo) have their waits too: has_wait alone */
		if (!r->complete || !r->analysed || is_straggler(rep, r->rank) ||
		    !r->gpu.has_wait || pw <= 0)
			continue;
		v[n++] = r->rank;
		w += (double)pw;
		c += (double)r->gpu.comm_ns;
		if ((double)pw > *wait) {
			*wait = (double)pw;
			*worst = r->rank;
		}
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_i64);
		rankset_text(text, sizeof(text), v, n, 0);
		*share = c > 0 ? w / c : 0;
		*who = arena_strndup(&rep->arena, text, strlen(text));
	}
	free(v);
	return n && !*who ? -1 : 0;
}

/*
 * straggler: a run-wide rule, its findings are crossrank's stragglers
 * (value: the rank's, threshold: the median over ranks), at any value.
 * An incomplete rank is never named.  A straggler by wait has at stake the
 * longest wait of another rank.
 */
static int eval_straggler(struct report *rep, const double *t, struct hits *h)
{
	double share = 0, wait = -1;
	int64_t worst = -1;
	const char *who = NULL;

	(void)t;
	for (size_t i = 0; i < rep->nr_stragglers; i++) {
		const struct report_straggler *st = &rep->stragglers[i];
		const struct report_rank *r = rank_of(rep, st->rank);
		struct finding *f;
		struct straggler_ev *e;

		if (!r)
			continue;	/* an incomplete rank is never named */
		if (st->by_wait && !who && waiters(rep, &who, &share, &worst, &wait))
			return -1;
		if (!(f = rule_fire(h, r)))
			return -1;
		e = &f->e.straggler;
		f->metric = st->metric ? st->metric : "?";
		f->value = st->value;
		f->threshold = st->median;
		e->excess = st->excess;
		e->last_share = st->last_share;
		e->delays = st->by_wait ? st->delays.name : NULL;
		e->worst = -1;
		e->steps = (double)(r->steps.nr_durations ? (int64_t)r->steps.nr_durations
							  : r->steps.d.count);
		if (st->by_wait && who && wait >= 0) {
			const struct report_rank *wr = rank_of(rep, worst);

			e->waiters = who;
			e->wait_share = share;
			e->worst = worst;
			e->worst_wait = wait;
			f->impact_ns = wait;
			f->span_ns = wr ? (double)wr->span_ns : f->span_ns;
			f->basis = "the longest wait of another rank for a late peer inside "
				   "collectives";
		} else if (metric_unit_of(f->metric) == UNIT_NS && isfinite(st->value) &&
			   isfinite(st->median)) {
			f->impact_ns = fabs(st->value - st->median);
			f->basis = "the rank's value less the median over ranks";
		}
	}
	return 0;
}

/*
 * The straggler in the reader's terms: who waits for whom, how long per
 * step, how often it is last; a ratio to the median reads as arithmetic.
 */
static void msg_straggler(struct text *t, const struct finding *f)
{
	const struct straggler_ev *e = &f->e.straggler;
	enum metric_unit u = metric_unit_of(f->metric);
	char x[METRIC_FMT_MAX], v[METRIC_FMT_MAX], med[METRIC_FMT_MAX], name[124], per[96];
	char most[160], last[64];
	const char *split = f->wl == WL_DIFFUSION ? "the sequence or blocks" : "the work";
	const char *dev = vendor_words(f->vendor)->device;
	char chk[256];

	FMT(v, f->value, u);
	snprintf(chk, sizeof(chk), "Check %s for thermal or power throttling, a slow or busy host, "
		 "data loading, and an uneven split of %s across ranks.",
		 t->plural ? "those ranks" : "that rank", split);
	if (e->delays) {
		int one = e->waiters && strncmp(e->waiters, "ranks", 5) != 0;

		per[0] = '\0';
		if (e->steps > 1 && isfinite(f->value))
			snprintf(per, sizeof(per), ", %s per step",
				 FMT(x, f->value / e->steps, UNIT_NS));
		/* "every" only where the counts say so */
		if (e->last_share >= 1)
			snprintf(last, sizeof(last), "every one of %s",
				 t->plural ? "their" : "its");
		else
			snprintf(last, sizeof(last), "%s of %s",
				 FMT(med, e->last_share, UNIT_RATIO), t->plural ? "their" : "its");
		snprintf(t->m, sizeof(t->m),
			 "%s hold%s the others back: %s last at %s collectives, and %s "
			 "wait%s for %s %s in all%s.",
			 t->where, t->plural ? "" : "s", t->plural ? "they arrive" : "it arrives",
			 last,
			 e->waiters ? e->waiters : "the other ranks", one ? "s" : "",
			 t->plural ? "them" : "it", v, per);
		most[0] = '\0';
		if (e->worst >= 0)
			snprintf(most, sizeof(most),
				 "Rank %lld waits longest (%s inside collectives); the waiting "
				 "ranks spend %s of their communication time waiting. ",
				 (long long)e->worst, FMT(x, e->worst_wait, UNIT_NS),
				 FMT(med, e->wait_share, UNIT_RATIO));
		snprintf(t->d, sizeof(t->d), "%sMost of the wait is at %s. Their long steps%s%s%s "
			 "are that waiting, not their own work. %s",
			 most, rule_plain(name, sizeof(name), e->delays),
			 dev ? " and busy-looking " : "", dev ? dev : "", dev ? " time" : "", chk);
		return;
	}
	FMT(med, f->threshold, u);
	/* no collectives counted here: "every collective" would be a guess */
	if (e->excess >= 0)
		snprintf(t->m, sizeof(t->m),
			 "%s %s slower than the others: %s %s is %s where the median rank's is %s, "
			 "and the others wait for %s where they synchronise with %s.",
			 t->where, t->plural ? "are" : "is", t->plural ? "the worst's" : "its",
			 metric_words(f->metric), v, med, t->plural ? "them" : "it",
			 t->plural ? "them" : "it");
	else
		snprintf(t->m, sizeof(t->m),
			 "%s spend%s %s in communication where the median rank spends %s: the "
			 "others wait for %s inside collectives.",
			 t->where, t->plural ? "" : "s", v, med, t->plural ? "them" : "it");
	snprintf(t->d, sizeof(t->d), "%s", chk);
}

const struct rule rule_incomplete = {
	.id = "incomplete-ranks",
	.metric = "complete",
	.sev = SEV_HIGH,
	.eval = eval_incomplete,
	.message = msg_incomplete,
	.incomplete = 1,
};

const struct rule rule_straggler = {
	.id = "straggler",
	.sev = SEV_HIGH,
	.eval_run = eval_straggler,
	.message = msg_straggler,
};
