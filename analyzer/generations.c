/*
 * generations: see generations.h.
 *
 * Roots, blocks and counters are few (one per region, block span or
 * counter event), so everything here is sorting and linear sweeps: sort the
 * roots by start, find the generation boundaries, then place each block
 * span and counter by binary search on the boundaries.
 */
#include "generations.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"

/*
 * One completion in one generation: a block (its first span start, its
 * last span end, n = 1), or a collector counter event (n blocks at once).
 */
struct unit {
	size_t gen;
	uint32_t raw;
	int64_t first_ns, done_ns;
	int64_t n;
};

struct gen_state {
	int64_t *bound;			/* bound[g >= 1]: where generation g's slot starts */
	size_t n;			/* generations */
	int64_t *lo, *hi;		/* extent per generation */
};

static int cmp_root(const void *a, const void *b)
{
	const struct gen_root *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_unit(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->raw != y->raw)
		return x->raw < y->raw ? -1 : 1;
	if (x->done_ns != y->done_ns)
		return x->done_ns < y->done_ns ? -1 : 1;
	return (x->first_ns > y->first_ns) - (x->first_ns < y->first_ns);
}

/* The generation whose time slot holds ts: the last g with bound[g] <= ts. */
static size_t gen_of(const struct gen_state *s, int64_t ts)
{
	size_t lo = 1, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->bound[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * Boundaries between generations from the sorted roots r[0..n) that count
 * towards the wall time.  s->n is at least 1.
 */
static int find_generations(struct gen_state *s, const struct gen_root *r, size_t n)
{
	size_t nr_groups = 0, g = 0, i = 0;
	int64_t group_end = 0;
	int64_t *start = malloc((n ? n : 1) * sizeof(*start));
	int64_t *end = malloc((n ? n : 1) * sizeof(*end));

	if (!start || !end)
		goto fail;
	/* Cores that overlap in time (on several threads) are one generation. */
	for (i = 0; i < n; i++) {
		if (!r[i].core)
			continue;
		if (nr_groups && r[i].ts_ns < group_end) {
			if (r[i].end_ns > group_end)
				group_end = end[nr_groups - 1] = r[i].end_ns;
			continue;
		}
		start[nr_groups] = r[i].ts_ns;
		group_end = end[nr_groups] = r[i].end_ns;
		nr_groups++;
	}
	s->n = nr_groups ? nr_groups : 1;
	s->bound = malloc(s->n * sizeof(*s->bound));
	s->lo = malloc(s->n * sizeof(*s->lo));
	s->hi = malloc(s->n * sizeof(*s->hi));
	if (!s->bound || !s->lo || !s->hi)
		goto fail;
	s->bound[0] = INT64_MIN;
	/* The gaps between groups are disjoint and in order: one pass over r. */
	for (g = 1, i = 0; g < nr_groups; g++) {
		s->bound[g] = start[g];
		while (i < n && r[i].ts_ns < end[g - 1])
			i++;
		for (size_t j = i; j < n && r[j].ts_ns <= start[g]; j++) {
			if (r[j].pname == r[0].pname) {
				s->bound[g] = r[j].ts_ns;
				break;
			}
		}
	}
	free(start);
	free(end);
	return 0;
fail:
	free(start);
	free(end);
	return -1;
}

/* Lower median, nearest-rank p90 and max of v[0..n), n > 0; sorts v. */
static void quantiles(struct report_quantiles *q, int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	q->median_ns = v[(n - 1) / 2];
	q->p90_ns = v[(9 * n + 9) / 10 - 1];
	q->max_ns = v[n - 1];
}

static double rate(int64_t count, int64_t wall_ns)
{
	return count >= 0 && wall_ns > 0 ? (double)count / ((double)wall_ns / 1e9) : NAN;
}

/* Completions: blocks from spans, else the counter events (n > 0). */
static struct unit *make_units(struct gen_input *in, const struct gen_state *s, size_t *nr)
{
	size_t n = 0, k = 0;
	struct unit *u = malloc((in->nr_blocks + in->nr_block_counts + 1) * sizeof(*u));

	if (!u)
		return NULL;
	if (!in->nr_blocks) {
		for (size_t i = 0; i < in->nr_block_counts; i++) {
			const struct gen_count *c = &in->block_counts[i];

			if (c->n <= 0)
				continue;
			u[n].gen = gen_of(s, c->ts_ns);
			u[n].raw = 0;
			u[n].first_ns = u[n].done_ns = c->ts_ns;
			u[n].n = c->n;
			n++;
		}
		*nr = n;
		return u;
	}
	for (size_t i = 0; i < in->nr_blocks; i++) {
		const struct gen_block *b = &in->blocks[i];

		u[n].gen = gen_of(s, b->ts_ns);
		u[n].raw = b->raw;
		u[n].first_ns = b->ts_ns;
		u[n].done_ns = b->end_ns;
		u[n].n = 1;
		n++;
	}
	qsort(u, n, sizeof(*u), cmp_unit);
	/* The spans of one block: its first start and its last end. */
	for (size_t i = 0; i < n; i++) {
		if (k && u[k - 1].gen == u[i].gen && u[k - 1].raw == u[i].raw) {
			if (u[i].first_ns < u[k - 1].first_ns)
				u[k - 1].first_ns = u[i].first_ns;
			if (u[i].done_ns > u[k - 1].done_ns)
				u[k - 1].done_ns = u[i].done_ns;
			continue;
		}
		u[k++] = u[i];
	}
	*nr = k;
	return u;
}

static int cmp_done(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return (x->done_ns > y->done_ns) - (x->done_ns < y->done_ns);
}

/* Blocks, first block and cadence per generation, and pooled for the run. */
static int block_figures(struct gen_input *in, const struct gen_state *s,
			 struct report_throughput *t)
{
	int has_blocks = in->nr_blocks > 0 || in->has_block_counts;
	size_t n = 0, nr_gaps = 0, nr_first = 0;
	struct unit *u = make_units(in, s, &n);
	int64_t *gaps = malloc((n ? n : 1) * sizeof(*gaps));
	int64_t *lat = malloc((n ? n : 1) * sizeof(*lat));
	int64_t *first = malloc(s->n * sizeof(*first));
	int rc = -1;

	if (!u || !gaps || !lat || !first)
		goto out;
	qsort(u, n, sizeof(*u), cmp_done);
	t->blocks = has_blocks ? 0 : INT64_MIN;
	for (size_t g = 0, i = 0; g < s->n; g++) {
		struct report_generation *ge = &t->generations[g];
		size_t j = i, k = 0;

		/* without blocks there are no units: null stays null */
		ge->blocks = has_blocks ? 0 : INT64_MIN;
		for (; j < n && u[j].gen == g; j++)
			ge->blocks = sat_add(ge->blocks, u[j].n);
		ge->first_block_ns = INT64_MIN;
		if (j > i) {
			ge->first_block_ns = u[i].done_ns - s->lo[g];
			first[nr_first++] = ge->first_block_ns;
		}
		for (size_t m = i + 1; m < j; m++, k++)
			gaps[nr_gaps + k] = u[m].done_ns - u[m - 1].done_ns;
		if (k) {
			int64_t *mine = malloc(k * sizeof(*mine));

			if (!mine)
				goto out;
			memcpy(mine, gaps + nr_gaps, k * sizeof(*mine));
			quantiles(&ge->cadence, mine, k);
			ge->has_cadence = 1;
			free(mine);
		}
		nr_gaps += k;
		if (has_blocks)
			t->blocks = sat_add(t->blocks, ge->blocks);
		i = j;
	}
	if (nr_first) {
		qsort(first, nr_first, sizeof(*first), cmp_i64);
		t->first_block_ns = first[(nr_first - 1) / 2];
	}
	if (nr_gaps) {
		t->has_cadence = 1;
		quantiles(&t->cadence, gaps, nr_gaps);
	}
	if (in->nr_blocks && n) {
		for (size_t i = 0; i < n; i++)
			lat[i] = u[i].done_ns - u[i].first_ns;
		quantiles(&t->latency, lat, n);
		t->has_latency = 1;
	}
	rc = 0;
out:
	free(u);
	free(gaps);
	free(lat);
	free(first);
	return rc;
}

static int cmp_block_frames(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->raw != y->raw)
		return x->raw < y->raw ? -1 : 1;
	return (x->n < y->n) - (x->n > y->n);
}

/*
 * Frames from regions' block_size: each block (raw name) once per
 * generation, its largest size; a counter not told to a region (raw 0)
 * counts on its own.
 */
static int block_size_frames(struct gen_input *in, const struct gen_state *s,
			     struct report_throughput *t)
{
	struct unit *u = malloc((in->nr_block_frames ? in->nr_block_frames : 1) * sizeof(*u));
	size_t n = 0;

	if (!u)
		return -1;
	for (size_t i = 0; i < in->nr_block_frames; i++) {
		const struct gen_count *c = &in->block_frames[i];

		if (c->n <= 0)
			continue;
		u[n].gen = gen_of(s, c->ts_ns);
		u[n].raw = c->raw;
		u[n].n = c->n;
		n++;
	}
	if (n > 1)
		qsort(u, n, sizeof(*u), cmp_block_frames);
	for (size_t i = 0; i < n; i++) {
		struct report_generation *ge = &t->generations[u[i].gen];

		if (i && u[i].raw && u[i].gen == u[i - 1].gen && u[i].raw == u[i - 1].raw)
			continue;
		ge->frames = sat_add(ge->frames, u[i].n);
	}
	free(u);
	return 0;
}

/* Frames per generation: --frames, else the collector's counters by time. */
static int frame_figures(struct gen_input *in, const struct gen_state *s,
			 struct report_throughput *t)
{
	const struct phase_opts *o = in->opts;

	for (size_t g = 0; g < s->n; g++)
		t->generations[g].frames = o->frames >= 0 ? o->frames
					   : in->has_frame_counts ? 0 : INT64_MIN;
	if (o->frames < 0 && in->has_frame_counts)
		for (size_t i = 0; i < in->nr_frames; i++)
			if (in->frames[i].n > 0) {
				struct report_generation *ge;

				ge = &t->generations[gen_of(s, in->frames[i].ts_ns)];
				ge->frames = sat_add(ge->frames, in->frames[i].n);
			}
	/* vt_frames() counts every frame already: block sizes beside it would count twice */
	if (o->frames < 0 && !in->nr_frames && block_size_frames(in, s, t))
		return -1;
	t->frames = t->generations[0].frames >= 0 ? 0 : INT64_MIN;
	for (size_t g = 0; g < s->n && t->frames >= 0; g++)
		t->frames = sat_add(t->frames, t->generations[g].frames);
	return 0;
}

int generations_fill(struct gen_input *in, struct arena *a, struct report_throughput *t)
{
	const struct phase_opts *o = in->opts;
	struct gen_state s = { 0 };
	struct gen_root *r = in->roots;
	size_t n = 0;
	int any_extent = 0, rc = -1;

	memset(t, 0, sizeof(*t));
	t->first_block_ns = INT64_MIN;
	/* The roots that count: extent ones, or every root when none is. */
	for (size_t i = 0; i < in->nr_roots; i++)
		any_extent |= r[i].extent;
	for (size_t i = 0; i < in->nr_roots; i++)
		if (r[i].extent || !any_extent)
			r[n++] = r[i];
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_root);
	if (find_generations(&s, r, n))
		goto out;
	for (size_t g = 0; g < s.n; g++) {
		s.lo[g] = INT64_MAX;
		s.hi[g] = INT64_MIN;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = gen_of(&s, r[i].ts_ns);

		if (r[i].ts_ns < s.lo[g])
			s.lo[g] = r[i].ts_ns;
		if (r[i].end_ns > s.hi[g])
			s.hi[g] = r[i].end_ns;
	}
	if (!n) {
		s.lo[0] = in->min_ts;
		s.hi[0] = in->min_ts + in->span_ns;
	}
	/* A zero-length core can lose its slot to the next one: keep it empty. */
	for (size_t g = 0; g < s.n; g++)
		if (s.lo[g] == INT64_MAX)
			s.lo[g] = s.hi[g] = g ? s.bound[g] : in->min_ts;
	t->generations = arena_alloc(a, s.n * sizeof(*t->generations));
	if (!t->generations)
		goto out;
	memset(t->generations, 0, s.n * sizeof(*t->generations));
	t->nr_generations = s.n;
	for (size_t g = 0; g < s.n; g++) {
		t->generations[g].start_ns = s.lo[g] - in->min_ts;
		t->generations[g].wall_ns = s.hi[g] - s.lo[g];
	}
	t->wall_ns = s.hi[s.n - 1] - s.lo[0];
	for (size_t g = 0; g < s.n; g++)
		if (s.hi[g] - s.lo[0] > t->wall_ns)
			t->wall_ns = s.hi[g] - s.lo[0];
	if (frame_figures(in, &s, t) || block_figures(in, &s, t))
		goto out;
	for (size_t g = 0; g < s.n; g++) {
		struct report_generation *ge = &t->generations[g];

		ge->fps = rate(ge->frames, ge->wall_ns);
		ge->bps = rate(ge->blocks, ge->wall_ns);
	}
	t->fps = rate(t->frames, t->wall_ns);
	t->bps = rate(t->blocks, t->wall_ns);
	t->frames_per_block = o->frames_per_block > 0 ? (double)o->frames_per_block :
			      in->has_frame_counts && in->has_block_counts && t->frames > 0 &&
					      t->blocks > 0 ? (double)t->frames / (double)t->blocks
							    : NAN;
	t->streaming_fps = t->frames_per_block > 0 && t->has_cadence && t->cadence.median_ns > 0 ?
				   t->frames_per_block / ((double)t->cadence.median_ns / 1e9) : NAN;
	t->target_fps = o->target_fps;
	t->realtime_factor = NAN;
	t->streaming_realtime_factor = NAN;
	if (o->target_fps > 0) {
		if (t->frames >= 0 && t->wall_ns > 0)
			t->realtime_factor = ((double)t->frames / o->target_fps) /
					     ((double)t->wall_ns / 1e9);
		if (!isnan(t->streaming_fps))
			t->streaming_realtime_factor = t->streaming_fps / o->target_fps;
	}
	rc = 0;
out:
	free(s.bound);
	free(s.lo);
	free(s.hi);
	return rc;
}
