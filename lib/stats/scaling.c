/*
 * scaling: see scaling.h and doc/scaling.md.
 *
 * Each rank's wall time per generation is cut into what is not work
 * (exposed communication, waiting in collectives, device idle) and work;
 * the run's ranks are summed, and every part of the loss is the NEW
 * run's sum less w times the BASE run's.  The work is split further by
 * the top-level phases: a phase's work is its time less the
 * non-overlapped part of the collectives inside its spans.  "other" is
 * what the named parts leave of the loss (time outside the phases, idle
 * inside them), which is what makes the parts add up to it exactly.
 */
#include "scaling.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_fields.h"
#include "run_info.h"

const char *const scaling_part_key[SCALING_NR_PARTS] = {
#define SCALING_KEY(u, k, t) #k,
	SCALING_PARTS(SCALING_KEY)
#undef SCALING_KEY
};

const char *const scaling_part_text[SCALING_NR_PARTS] = {
#define SCALING_TEXT(u, k, t) t,
	SCALING_PARTS(SCALING_TEXT)
#undef SCALING_TEXT
};

#define MAX_PHASES 64

/* What one run adds up over its ranks, per generation. */
struct side {
	int64_t ranks;
	double gens;
	double time_ns;			/* the slowest rank's wall */
	double wall_sum, exposed_sum, wait_sum, tail_sum, idle_sum;
	double idle[IDLE_NR_CAUSES];
	int64_t slowest_rank;
	const char *path[MAX_PHASES];
	double phase_sum[MAX_PHASES];	/* time, summed over ranks */
	double work_sum[MAX_PHASES];	/* time less non-overlapped comm inside */
	size_t nr_phases;
};

static double nz(int64_t v)
{
	return v == INT64_MIN || v < 0 ? 0 : (double)v;
}

static double rank_wall(const struct report_rank *rk)
{
	if (rk->has_throughput && rk->throughput.wall_ns > 0 && rk->throughput.wall_ns != INT64_MIN)
		return (double)rk->throughput.wall_ns;
	return nz(rk->span_ns);
}

/* A top-level phase: depth 0, or depth 1 under a ProfilerStep#* wrapper. */
static const char *top_phase(const struct report_rank *rk, size_t i)
{
	const struct report_phase *ph = &rk->phases[i];
	const char *slash;

	if (ph->nr_folded)	/* the other row: not a phase of its path */
		return NULL;
	if (ph->depth == 0)
		return strncmp(ph->name, "ProfilerStep#", 13) ? ph->path : NULL;
	if (ph->depth != 1 || strncmp(ph->path, "ProfilerStep#", 13))
		return NULL;
	slash = strchr(ph->path, '/');
	return slash ? slash + 1 : NULL;
}

/* ns of [s, e) inside the sorted, disjoint span pairs sp[0..2n). */
static double inside(const int64_t *sp, size_t n, int64_t s, int64_t e)
{
	size_t lo = 0, hi = n;
	double t = 0;

	/* the first span ending after s: a rank has thousands of collectives */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp[2 * mid + 1] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n; i++) {
		int64_t a = sp[2 * i] > s ? sp[2 * i] : s;
		int64_t b = sp[2 * i + 1] < e ? sp[2 * i + 1] : e;

		if (sp[2 * i] >= e)
			break;
		if (b > a)
			t += (double)(b - a);
	}
	return t;
}

/* Time of rk's collective instances inside ph's spans. */
static double phase_comm(const struct report_rank *rk, const struct report_phase *ph)
{
	double t = 0;

	if (!ph->spans_ns)
		return 0;
	for (size_t c = 0; c < rk->nr_comm; c++) {
		const struct report_comm_series *cs = &rk->comm[c];

		for (size_t k = 0; k < cs->n; k++)
			t += inside(ph->spans_ns, ph->nr_spans, cs->end_ns[k] - cs->dur_ns[k],
				    cs->end_ns[k]);
	}
	return t;
}

static size_t phase_slot(struct side *s, const char *path)
{
	for (size_t i = 0; i < s->nr_phases; i++)
		if (!strcmp(s->path[i], path))
			return i;
	if (s->nr_phases == MAX_PHASES)
		return MAX_PHASES;
	s->path[s->nr_phases] = path;
	return s->nr_phases++;
}

static void side_of(struct side *s, const struct report *rep)
{
	int64_t gens = 0;

	memset(s, 0, sizeof(*s));
	s->ranks = (int64_t)rep->nr_ranks;
	s->slowest_rank = -1;
	for (size_t r = 0; r < rep->nr_ranks; r++)
		if (rep->ranks[r].has_throughput &&
		    (int64_t)rep->ranks[r].throughput.nr_generations > gens)
			gens = (int64_t)rep->ranks[r].throughput.nr_generations;
	s->gens = gens > 0 ? (double)gens : 1;
	for (size_t r = 0; r < rep->nr_ranks; r++) {
		const struct report_rank *rk = &rep->ranks[r];
		const struct report_gpu *g = &rk->gpu;
		double wall = rank_wall(rk) / s->gens, comm = nz(g->comm_ns) / s->gens;
		double wait = g->has_wait ? nz(g->comm_wait_ns) / s->gens : 0, exposed, lost;
		double overlap = isnan(g->comm_compute_overlap) ? 0 : g->comm_compute_overlap;

		if (wait > comm)
			wait = comm;
		exposed = comm * (1 - overlap) - wait;
		if (exposed < 0)
			exposed = 0;
		s->wall_sum += wall;
		s->exposed_sum += exposed;
		s->wait_sum += wait;
		if (rk->idle.window && rk->idle.in.idle_ns != INT64_MIN) {
			s->idle_sum += nz(rk->idle.in.idle_ns) / s->gens;
			for (size_t c = 0; c < IDLE_NR_CAUSES; c++)
				s->idle[c] += nz(rk->idle.in.by_cause[c]) / s->gens;
		}
		if (wall > s->time_ns || s->slowest_rank < 0) {
			s->time_ns = wall;
			s->slowest_rank = rk->rank;
		}
		/* the share of a collective's time that is not hidden behind compute */
		lost = comm > 0 ? (exposed + wait) / comm : 0;
		for (size_t i = 0; i < rk->nr_phases; i++) {
			const char *path = top_phase(rk, i);
			size_t k;

			if (!path || (k = phase_slot(s, path)) == MAX_PHASES)
				continue;
			s->phase_sum[k] += nz(rk->phases[i].d.total_ns) / s->gens;
			s->work_sum[k] += (nz(rk->phases[i].d.total_ns) -
					   lost * phase_comm(rk, &rk->phases[i])) / s->gens;
		}
	}
	for (size_t r = 0; r < rep->nr_ranks; r++)
		s->tail_sum += s->time_ns - rank_wall(&rep->ranks[r]) / s->gens;
}

static void workload_of_run(struct scaling_workload *wl, const struct report *rep)
{
	const struct report_rank *rk = rep->nr_ranks ? &rep->ranks[0] : NULL;
	int64_t g;

	*wl = (struct scaling_workload){ INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN };
	if (!rk)
		return;
	g = rk->has_throughput ? (int64_t)rk->throughput.nr_generations : 0;
	wl->generations = g;
	if (g < 1)
		g = 1;
	if (rk->has_throughput && rk->throughput.frames != INT64_MIN)
		wl->frames = rk->throughput.frames / g;
	if (rk->has_throughput && rk->throughput.blocks != INT64_MIN)
		wl->blocks = rk->throughput.blocks / g;
	if (rk->has_phases && rk->steps.nr_durations)
		wl->steps = (int64_t)rk->steps.nr_durations / g;
}

/* b / a: 1 same, 0 unknown or 0, else the ratio */
static double ratio(int64_t a, int64_t b)
{
	return a == INT64_MIN || b == INT64_MIN || a <= 0 ? 0 : (double)b / (double)a;
}

static int near(double x, double y)
{
	return fabs(x - y) <= 0.01 * y;
}

static void add_mismatch(struct scaling_point *p, const char *key)
{
	if (p->nr_mismatch < sizeof(p->mismatch) / sizeof(p->mismatch[0]))
		p->mismatch[p->nr_mismatch++] = key;
}

/* Workload keys on which NEW differs from BASE, given the mode. */
static void mismatches(struct scaling_point *p, const struct scaling *sc, struct report *base,
		       struct report *new)
{
	const struct scaling_workload *a = &sc->base_wl, *b = &p->wl;
	double grow = sc->weak ? (double)p->ranks / (double)sc->base_ranks : 1;
	const char *keys[16];
	/* run_info_mismatch() names the run's own figures by run_fields' keys */
	const char *device = field_key_at(&run_fields, offsetof(struct report_run, device));
	const char *world = field_key_at(&run_fields, offsetof(struct report_run, world_size));
	size_t n;

	if (a->generations != b->generations)
		add_mismatch(p, "generations");
	if (a->steps != b->steps)
		add_mismatch(p, "steps");
	if ((a->frames != INT64_MIN || b->frames != INT64_MIN) &&
	    !near(ratio(a->frames, b->frames), grow))
		add_mismatch(p, "frames");
	if ((a->blocks != INT64_MIN || b->blocks != INT64_MIN) &&
	    !near(ratio(a->blocks, b->blocks), grow))
		add_mismatch(p, "blocks");
	/* the tags naming the model or resolution; device count and world size differ by design */
	n = run_info_mismatch(base, new, keys, NULL, 16);
	for (size_t i = 0; i < n; i++)
		if (strcmp(keys[i], "devices") && strcmp(keys[i], world) &&
		    strcmp(keys[i], device) &&
		    (!sc->weak || (strcmp(keys[i], "frames") && strcmp(keys[i], "height") &&
				   strcmp(keys[i], "width"))))
			add_mismatch(p, keys[i]);
}

/* Weak when the work grew with the ranks (frames, else blocks), else strong. */
static int weak_from_workload(const struct scaling_workload *a, const struct scaling_workload *b,
			      double grow)
{
	double f = ratio(a->frames, b->frames), k = ratio(a->blocks, b->blocks);

	if (grow == 1)
		return 0;
	if (f > 0)
		return near(f, grow);
	return k > 0 && near(k, grow);
}

static int point_phases(struct scaling_point *p, const struct side *bs, const struct side *ns,
			double w)
{
	size_t n = bs->nr_phases;
	double worst = 0;

	p->phases = calloc(bs->nr_phases + ns->nr_phases + 1, sizeof(*p->phases));
	if (!p->phases)
		return -1;
	for (size_t i = 0; i < bs->nr_phases; i++)
		p->phases[i].path = bs->path[i];
	for (size_t i = 0; i < ns->nr_phases; i++) {
		size_t k = 0;

		while (k < n && strcmp(p->phases[k].path, ns->path[i]))
			k++;
		if (k == n)
			p->phases[n++].path = ns->path[i];
	}
	p->nr_phases = n;
	p->replicated = -1;
	for (size_t i = 0; i < n; i++) {
		struct scaling_phase *ph = &p->phases[i];
		double bt = 0, bw = 0, nt = 0, nw = 0, gone;

		for (size_t k = 0; k < bs->nr_phases; k++)
			if (!strcmp(bs->path[k], ph->path)) {
				bt = bs->phase_sum[k];
				bw = bs->work_sum[k];
			}
		for (size_t k = 0; k < ns->nr_phases; k++)
			if (!strcmp(ns->path[k], ph->path)) {
				nt = ns->phase_sum[k];
				nw = ns->work_sum[k];
			}
		ph->base_ns = bt / (double)bs->ranks;
		ph->new_ns = nt / (double)ns->ranks;
		ph->ideal_ns = ph->base_ns * w * (double)bs->ranks / (double)ns->ranks;
		ph->speedup = ph->new_ns > 0 ? ph->base_ns / ph->new_ns : NAN;
		ph->efficiency = ph->new_ns > 0 ? ph->ideal_ns / ph->new_ns : NAN;
		ph->loss_rank_ns = nw - w * bw;
		/* per-rank work past the midpoint between its ideal share and no split at all */
		gone = bw / (double)bs->ranks * w;
		ph->not_shrunk = ns->ranks > bs->ranks && bw > 0 &&
				 nw / (double)ns->ranks >
					 gone * (double)bs->ranks / (double)ns->ranks +
						 SCALING_NOT_SHRUNK *
							 (gone - gone * (double)bs->ranks /
									 (double)ns->ranks);
		if (ph->not_shrunk && ph->loss_rank_ns > worst) {
			worst = ph->loss_rank_ns;
			p->replicated = (int64_t)i;
		}
	}
	return 0;
}

static int point_of(struct scaling_point *p, const struct scaling *sc, const struct side *bs,
		    const struct report *new)
{
	struct side *ns = malloc(sizeof(*ns));
	double w, ideal, *pr = p->parts_rank_ns, named = 0;
	double rel;

	if (!ns)
		return -1;
	side_of(ns, new);
	p->ranks = ns->ranks;
	p->time_ns = ns->time_ns;
	rel = (double)p->ranks / (double)sc->base_ranks;
	w = sc->weak ? rel : 1;
	p->speedup = p->time_ns > 0 ? sc->base_time_ns / p->time_ns * w : NAN;
	p->efficiency = p->speedup / rel;
	p->karp_flatt = rel > 1 ? (1 / p->speedup - 1 / rel) / (1 - 1 / rel) : NAN;
	p->total_rank_ns = (double)p->ranks * p->time_ns;
	ideal = w * (double)sc->base_ranks * sc->base_time_ns;
	p->loss = p->total_rank_ns > 0 ? 1 - ideal / p->total_rank_ns : NAN;

	pr[SCALING_COMM] = ns->exposed_sum - w * bs->exposed_sum;
	pr[SCALING_LATE] = ns->wait_sum + ns->tail_sum - w * (bs->wait_sum + bs->tail_sum);
	pr[SCALING_IDLE] = ns->idle_sum - w * bs->idle_sum;
	for (size_t c = 0; c < IDLE_NR_CAUSES; c++)
		p->idle_rank_ns[c] = ns->idle[c] - w * bs->idle[c];
	if (point_phases(p, bs, ns, w)) {
		free(ns);
		return -1;
	}
	for (size_t i = 0; i < p->nr_phases; i++)
		pr[p->phases[i].not_shrunk ? SCALING_SERIAL : SCALING_COMPUTE] +=
			p->phases[i].loss_rank_ns;
	for (size_t i = 0; i < SCALING_OTHER; i++)
		named += pr[i];
	pr[SCALING_OTHER] = p->total_rank_ns - ideal - named;
	for (size_t i = 0; i < SCALING_NR_PARTS; i++)
		p->parts_share[i] = p->total_rank_ns > 0 ? pr[i] / p->total_rank_ns : NAN;

	p->late_rank = -1;
	if (new->nr_stragglers)
		p->late_rank = new->stragglers[0].rank;
	else if (ns->ranks > 1 && pr[SCALING_LATE] > 0)
		p->late_rank = ns->slowest_rank;
	free(ns);
	return 0;
}

int scaling_compute(struct scaling *sc, struct report *base, const char *base_label,
		    struct report *const *news, const char *const *labels, size_t n,
		    enum scaling_mode mode)
{
	struct side *bs = malloc(sizeof(*bs));

	memset(sc, 0, sizeof(*sc));
	sc->points = calloc(n ? n : 1, sizeof(*sc->points));
	if (!bs || !sc->points) {
		free(bs);
		return -1;
	}
	side_of(bs, base);
	sc->base_label = base_label;
	sc->base_ranks = bs->ranks;
	sc->base_time_ns = bs->time_ns;
	workload_of_run(&sc->base_wl, base);
	sc->forced = mode != SCALING_AUTO;
	if (mode != SCALING_AUTO) {
		sc->weak = mode == SCALING_WEAK;
	} else {
		/* every NEW run must look weak for the comparison to be read as weak */
		sc->weak = n > 0;
		for (size_t i = 0; i < n; i++) {
			struct scaling_workload wl;

			workload_of_run(&wl, news[i]);
			if (!weak_from_workload(&sc->base_wl, &wl,
						(double)news[i]->nr_ranks / (double)bs->ranks))
				sc->weak = 0;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct scaling_point *p = &sc->points[i];

		p->label = labels[i];
		workload_of_run(&p->wl, news[i]);
		if (point_of(p, sc, bs, news[i])) {
			sc->nr_points = i + 1;
			free(bs);
			return -1;
		}
		sc->nr_points = i + 1;
		mismatches(p, sc, base, news[i]);
	}
	free(bs);
	return 0;
}

void scaling_release(struct scaling *sc)
{
	for (size_t i = 0; i < sc->nr_points; i++)
		free(sc->points[i].phases);
	free(sc->points);
	memset(sc, 0, sizeof(*sc));
}

size_t scaling_top_parts(const struct scaling_point *p, enum scaling_part out[3])
{
	size_t n = 0;
	int used[SCALING_NR_PARTS] = { 0 };

	while (n < 3) {
		int best = -1;

		for (int i = 0; i < SCALING_NR_PARTS; i++)
			if (!used[i] && p->parts_rank_ns[i] > 0 &&
			    (best < 0 || p->parts_rank_ns[i] > p->parts_rank_ns[best]))
				best = i;
		if (best < 0)
			break;
		used[best] = 1;
		out[n++] = (enum scaling_part)best;
	}
	return n;
}
