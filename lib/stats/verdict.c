/* verdict: see verdict.h. */
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mwu.h"

const char *const verdict_names[] = { "same",	   "REGRESSED",	  "improved",	 "noise",
				      "only in base", "only in new", "more waiting" };

int threshold_parse_value(const char *s, double *v)
{
	char *end;
	double x = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end == '%')	/* optional: a bare number is a percentage too */
		end++;
	if (*end || !(x >= 0 && x <= 1000))
		return -1;
	*v = x / 100;
	return 0;
}

/* rule names metric, or a prefix of it that ends at a separator or ':' */
static int names(const char *rule, const char *metric)
{
	size_t n = strlen(rule);

	if (strncmp(rule, metric, n))
		return 0;
	return metric[n] == '\0' || metric[n] == '.' || metric[n] == '/' ||
	       (n && rule[n - 1] == ':');
}

double threshold_for(const struct thresholds *t, const char *metric)
{
	double v = t->all;
	size_t best = 0;

	/* later rules win among equally long names, as later flags should */
	for (size_t i = 0; i < t->n; i++) {
		size_t len = strlen(t->rules[i].name);

		if (len >= best && names(t->rules[i].name, metric)) {
			best = len;
			v = t->rules[i].value;
		}
	}
	return v;
}

/* The smallest two-sided p the U test can give for n1 and n2 samples. */
static double min_p(size_t n1, size_t n2)
{
	double lc = lgamma((double)(n1 + n2) + 1) - lgamma((double)n1 + 1) -
		    lgamma((double)n2 + 1);

	return 2 * exp(-lc);
}

int verdict_row(struct row *r, const struct metric *b, const struct metric *n,
		const struct thresholds *t, double span)
{
	const struct metric *any = b ? b : n;
	int worse, better;

	r->metric = any->name;
	r->dir = any->dir;
	r->unit = any->unit;
	r->has_base = b != NULL;
	r->has_new = n != NULL;
	r->base = b ? b->value : NAN;
	r->new = n ? n->value : NAN;
	r->n_base = b ? b->nr_samples : 0;
	r->n_new = n ? n->nr_samples : 0;
	r->threshold = threshold_for(t, r->metric);
	r->tested = 0;
	r->p = NAN;
	r->delta = r->new - r->base;
	r->delta_pct = NAN;
	if (!b || !n) {
		r->verdict = b ? V_ONLY_BASE : V_ONLY_NEW;
		return 0;
	}
	r->delta_pct = r->base != 0 ? r->delta / fabs(r->base) : r->delta == 0 ? 0
					: r->delta > 0		? INFINITY
								: -INFINITY;
	worse = r->dir == DIR_LOWER ? r->delta_pct > r->threshold
					  : r->delta_pct < -r->threshold;
	better = r->dir == DIR_LOWER ? r->delta_pct < -r->threshold
					   : r->delta_pct > r->threshold;
	if (r->unit == UNIT_NS && strcmp(r->metric, MK_SPAN_NS) && isfinite(span) &&
	    fabs(r->delta) < t->min_share * span)
		worse = better = 0;
	if (!worse && !better) {
		r->verdict = V_SAME;
		return 0;
	}
	r->verdict = worse ? V_REGRESSED : V_IMPROVED;
	if (r->n_base && r->n_new && min_p(r->n_base, r->n_new) < t->alpha) {
		struct mwu u;

		if (mwu_test(b->samples, b->nr_samples, n->samples, n->nr_samples, &u))
			return -1;
		r->tested = 1;
		r->p = u.p;
		if (!(u.p < t->alpha))
			r->verdict = V_NOISE;
	}
	return 0;
}
