/* memory: see memory.h. */
#include "memory.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hugepage.h"
#include "sat.h"
#include "sort.h"

/*
 * One [memory] event, in 16 bytes: a tenth of a real trace's events are
 * these.  Whether value is Total Allocated is a bit of mem_row.total; the
 * reserved bytes are kept where they change (mem_row.res), as the
 * allocator's segments change seldom.  Every value stays exact.
 */
struct mem_sample {
	int64_t ts_ns;
	int64_t value;		/* Total Allocated; without it, args.Bytes (the change) */
};

/* The reserved bytes (Total Reserved, 0 when not given) from sample at on. */
struct mem_res {
	size_t at;
	int64_t reserved;
};

/*
 * A device: what the report shows, what the samples told of it, and where
 * memory_finish()'s walk is in its samples.
 */
struct mem_row {
	struct report_memory out;
	struct mem_sample *samples;	/* in file order */
	size_t n, samples_alloc;
	unsigned char *total;		/* bit i: sample i has Total Allocated; none past */
	size_t total_alloc;		/* bytes */
	struct mem_res *res;		/* where the reserved bytes change, in file order */
	size_t nr_res, res_alloc;
	int64_t last_res;		/* the reserved bytes of the last sample */
	int any_total, any_bytes;	/* some sample had Total Allocated, a non-zero Bytes */
	int any_reserved;		/* some sample gave the reserved bytes */
	/* the walk */
	size_t seen, group, group_last;	/* samples walked; group, and its last sample */
	int64_t sum;			/* of Bytes, where the allocated figure is that */
};

void memory_init(struct memory *m)
{
	m->rows = NULL;
	m->nr_rows = m->rows_alloc = m->last = 0;
	m->nr_left_out = 0;
	m->util_sum = m->util_samples = 0;
}

void memory_release(struct memory *m)
{
	for (size_t i = 0; i < m->nr_rows; i++) {
		free(m->rows[i].samples);
		free(m->rows[i].total);
		free(m->rows[i].res);
	}
	free(m->rows);
	memory_init(m);
}

static void raise_to(int64_t *peak, int64_t v)
{
	if (v > *peak)
		*peak = v;
}

/*
 * The row of device dev, made on first use; NULL when out of memory or when
 * MEMORY_MAX_DEVICES rows are made already.
 */
static struct mem_row *row_of(struct memory *m, int64_t dev)
{
	struct mem_row *p;

	if (m->last < m->nr_rows && m->rows[m->last].out.device == dev)
		return &m->rows[m->last];
	for (size_t k = 0; k < m->nr_rows; k++) {
		if (m->rows[k].out.device == dev) {
			m->last = k;
			return &m->rows[k];
		}
	}
	if (m->nr_rows >= MEMORY_MAX_DEVICES)
		return NULL;
	if (ALLOC_GROW(m->rows, m->nr_rows + 1, m->rows_alloc))
		return NULL;
	m->last = m->nr_rows++;
	p = &m->rows[m->last];
	memset(p, 0, sizeof(*p));
	p->out.device = dev;
	p->out.capacity = INT64_MIN;	/* unknown */
	return p;
}

int memory_collect(struct memory *m, const struct event_batch *b)
{
	const struct strtab *st = &b->strs;
	uint32_t mem = strtab_find(st, "[memory]", 8);
	uint32_t used = strtab_find(st, "gpu.mem_used_bytes", 18);
	uint32_t total = strtab_find(st, "gpu.mem_total_bytes", 19);
	uint32_t rss = strtab_find(st, "proc.rss_bytes", 14);
	uint32_t util = strtab_find(st, "gpu.util_pct", 12);

	if (!mem && !used && !total && !rss && !util)
		return 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		int64_t dev = ev->flags & EV_DEVICE ? ev->device : -1;
		struct mem_row *r;

		if (!ev->name || (ev->name != mem && !(ev->flags & EV_VALUE)))
			continue;
		if (ev->name == util) {
			m->util_sum = sat_add(m->util_sum, ev->value);
			m->util_samples++;
			continue;
		}
		if (ev->name != mem && ev->name != used && ev->name != total && ev->name != rss)
			continue;
		if (!(r = row_of(m, dev))) {
			if (m->nr_rows < MEMORY_MAX_DEVICES)
				return -1;
			m->nr_left_out++;
			continue;
		}
		if (ev->name == mem) {
			int has_total = (ev->flags & EV_MEM_ALLOCATED) != 0;
			int64_t reserved = ev->flags & EV_MEM_RESERVED ? ev->mem_reserved : 0;
			struct mem_sample s = {
				ev->ts_ns,
				has_total ? ev->mem_allocated
					  : ev->flags & EV_MEM_BYTES ? ev->mem_bytes : 0,
			};

			if (ALLOC_GROW(r->samples, r->n + 1, r->samples_alloc))
				return -1;
			if (has_total) {
				if (ALLOC_GROW_ZERO(r->total, r->n / 8 + 1, r->total_alloc))
					return -1;
				r->total[r->n / 8] |= 1u << (r->n % 8);
			}
			if (reserved != r->last_res) {
				if (ALLOC_GROW(r->res, r->nr_res + 1, r->res_alloc))
					return -1;
				r->res[r->nr_res++] = (struct mem_res){ r->n, reserved };
				r->last_res = reserved;
			}
			r->samples[r->n++] = s;
			r->any_total |= has_total;
			r->any_bytes |= !has_total && s.value != 0;
			if (has_total)
				raise_to(&r->out.peak_allocated, ev->mem_allocated);
			if (ev->flags & EV_MEM_RESERVED)
				raise_to(&r->out.peak_reserved, ev->mem_reserved);
			r->any_reserved |= (ev->flags & EV_MEM_RESERVED) != 0;
		} else if (ev->name == used) {
			raise_to(&r->out.peak_reserved, ev->value);
			r->any_reserved = 1;
		} else if (ev->name == rss) {
			raise_to(&r->out.peak_allocated, ev->value);
		} else {
			r->out.capacity = ev->value >= 0 ? ev->value : INT64_MIN;
		}
	}
	return 0;
}

/*
 * Kineto 2021 [memory] events carry only the change in Bytes.  Where no
 * event of the device gives Total Allocated, the allocated figure is the
 * running sum from the start of the trace, in time order: a lower bound,
 * as what was allocated before profiling began is unknown.
 */
static int from_bytes(const struct mem_row *r)
{
	return !r->any_total && r->any_bytes;
}

/*
 * Each device's timeline: its samples in time order as triplets (time,
 * allocated, reserved), beyond REPORT_MEMLINE_MAX of them merged in equal
 * groups of consecutive samples into (time of the last, max, max).
 */
static int timelines_alloc(struct memory *m, struct arena *a)
{
	for (size_t i = 0; i < m->nr_rows; i++) {
		struct mem_row *r = &m->rows[i];
		size_t k = r->n < REPORT_MEMLINE_MAX ? r->n : REPORT_MEMLINE_MAX;

		r->out.timeline = NULL;
		r->out.nr_timeline = k;
		if (!k)
			continue;
		if (!(r->out.timeline = arena_alloc(a, 3 * k * sizeof(*r->out.timeline))))
			return -1;
		memset(r->out.timeline, 0, 3 * k * sizeof(*r->out.timeline));
		r->group_last = r->n / k - 1;	/* group g ends at (g + 1) * n / k - 1 */
		if (from_bytes(r))
			r->out.peak_allocated = 0;	/* the running sum's peak replaces it */
	}
	return 0;
}

/*
 * Sample s, the next of its device in time order, into the timeline;
 * has_total and reserved: what mem_row keeps of it apart.
 */
static void walk(struct mem_row *r, const struct mem_sample *s, int has_total, int64_t reserved,
		 int64_t min_ts)
{
	int64_t *t = &r->out.timeline[3 * r->group], allocated = 0;

	if (from_bytes(r)) {
		/* overflow saturates rather than wrapping (hostile Bytes) */
		if (__builtin_add_overflow(r->sum, s->value, &r->sum))
			r->sum = s->value > 0 ? INT64_MAX : INT64_MIN;
		allocated = r->sum;
		raise_to(&r->out.peak_allocated, allocated);
	} else if (has_total) {
		allocated = s->value;
	}
	raise_to(&t[1], allocated);
	raise_to(&t[2], reserved);
	if (r->seen++ == r->group_last) {
		t[0] = s->ts_ns - min_ts;
		r->group++;
		r->group_last = (r->group + 1) * r->n / r->out.nr_timeline - 1;
	}
}

static int cmp_device(const void *a, const void *b)
{
	const struct report_memory *x = a, *y = b;

	return x->device < y->device ? -1 : x->device > y->device;
}

/*
 * Where a device's samples leave time order, a new run starts: samples
 * come in time order per thread, and Kineto writes the threads one after
 * another, so a device has a run per thread that allocated on it (a few).
 * Merging the runs, ties to the earlier one, gives the samples in time
 * order, equal times in file order, as a stable sort would: a heap of the
 * runs' heads picks each next sample, without moving or copying any.
 * Beyond MEM_MERGE_RUNS runs (a shuffled or hostile trace may make one per
 * sample) a heap of them would miss the cache at every step, and the
 * samples' times and indices are sorted instead (by time, stably).
 */
#define MEM_MERGE_RUNS 64

/* Whether sample i of row r has Total Allocated. */
static int has_total(const struct mem_row *r, size_t i)
{
	return i / 8 < r->total_alloc && (r->total[i / 8] >> (i % 8) & 1);
}

/* A change's sample index, its key for key_lower_bound(). */
static int64_t res_at(const void *rec, const void *ctx)
{
	(void)ctx;
	return (int64_t)((const struct mem_res *)rec)->at;
}

/* The index in r->res of the first change after sample i (nr_res when none). */
static size_t res_after(const struct mem_row *r, size_t i)
{
	return key_lower_bound(r->res, sizeof(*r->res), 0, r->nr_res, res_at, NULL,
			       (int64_t)i + 1);
}

/* The reserved bytes of the samples before change k of r->res. */
static int64_t res_before(const struct mem_row *r, size_t k)
{
	return k ? r->res[k - 1].reserved : 0;
}

/* A run of samples at..end-1, and the time and reserved bytes of sample at. */
struct mem_run {
	size_t at, end;
	size_t res;		/* the next change in mem_row.res */
	int64_t ts_ns, reserved;
};

static void run_init(const struct mem_row *r, struct mem_run *t)
{
	t->res = res_after(r, t->at);
	t->reserved = res_before(r, t->res);
	t->ts_ns = t->at < t->end ? r->samples[t->at].ts_ns : 0;
}

/* Walk run t's next sample. */
static inline void run_step(struct mem_row *r, struct mem_run *t, int64_t min_ts)
{
	walk(r, &r->samples[t->at], has_total(r, t->at), t->reserved, min_ts);
	if (++t->at < t->end)
		t->ts_ns = r->samples[t->at].ts_ns;
	if (t->res < r->nr_res && r->res[t->res].at == t->at)
		t->reserved = r->res[t->res++].reserved;
}

/* Whether run a's head comes before run b's. */
static int run_before(const struct mem_run *run, uint32_t a, uint32_t b)
{
	int64_t x = run[a].ts_ns, y = run[b].ts_ns;

	return x < y || (x == y && a < b);
}

static void sift_down(uint32_t *heap, size_t n, size_t i, const struct mem_run *run)
{
	uint32_t top = heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && run_before(run, heap[c + 1], heap[c]))
			c++;
		if (!run_before(run, heap[c], top))
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = top;
}

/* A sample's time and index, for walk_sorted(). */
struct mem_order {
	int64_t ts_ns;
	size_t at;
};

/* Walk row r's samples sorted by time, stably, through a scratch array. */
static int walk_sorted(struct mem_row *r, int64_t min_ts)
{
	struct mem_order *o = hugepage_malloc((r->n ? r->n : 1) * sizeof(*o));

	if (!o)
		return -1;
	for (size_t i = 0; i < r->n; i++)
		o[i] = (struct mem_order){ r->samples[i].ts_ns, i };
	if (sort_by_first_i64(o, r->n, sizeof(*o))) {
		free(o);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++)
		walk(r, &r->samples[o[i].at], has_total(r, o[i].at),
		     res_before(r, res_after(r, o[i].at)), min_ts);
	free(o);
	return 0;
}

/* Walk row r's samples in time order, equal times in file order. */
static int walk_row(struct mem_row *r, int64_t min_ts)
{
	const struct mem_sample *s = r->samples;
	struct mem_run run[MEM_MERGE_RUNS];
	uint32_t heap[MEM_MERGE_RUNS];
	size_t n = r->n, k = 1, nh;

	/* the runs, k of them, until there are more than a heap takes */
	run[0].at = 0;
	for (size_t i = 1; i < n && k <= MEM_MERGE_RUNS; i++) {
		if (s[i].ts_ns >= s[i - 1].ts_ns)
			continue;
		if (k < MEM_MERGE_RUNS) {
			run[k - 1].end = i;
			run[k].at = i;
		}
		k++;
	}
	if (k > MEM_MERGE_RUNS)
		return walk_sorted(r, min_ts);
	run[k - 1].end = n;
	for (size_t j = 0; j < k; j++)
		run_init(r, &run[j]);
	if (k == 1) {
		while (run[0].at < n)
			run_step(r, &run[0], min_ts);
		return 0;
	}
	for (size_t j = 0; j < k; j++)
		heap[j] = (uint32_t)j;
	for (size_t j = k / 2; j-- > 0;)
		sift_down(heap, k, j, run);
	for (nh = k; nh;) {
		struct mem_run *t = &run[heap[0]];

		run_step(r, t, min_ts);
		if (t->at == t->end)
			heap[0] = heap[--nh];
		if (nh)
			sift_down(heap, nh, 0, run);
	}
	return 0;
}

int memory_finish(struct memory *m, const struct trace_info *info, int64_t min_ts,
		  struct arena *a, struct report_rank *rk)
{
	rk->memory = arena_alloc(a, (m->nr_rows + 1) * sizeof(*rk->memory));
	if (!rk->memory || timelines_alloc(m, a))
		return -1;
	for (size_t i = 0; i < m->nr_rows; i++) {
		if (walk_row(&m->rows[i], min_ts))
			return -1;
		/* not under the peak of what follows */
		free(m->rows[i].samples);
		m->rows[i].samples = NULL;
		m->rows[i].samples_alloc = 0;
		free(m->rows[i].total);
		m->rows[i].total = NULL;
		m->rows[i].total_alloc = 0;
		free(m->rows[i].res);
		m->rows[i].res = NULL;
		m->rows[i].nr_res = m->rows[i].res_alloc = 0;
	}
	for (size_t i = 0; i < m->nr_rows; i++) {
		struct report_memory *out = &rk->memory[i];

		*out = m->rows[i].out;
		out->from_bytes = from_bytes(&m->rows[i]);
		/* no Total Reserved in the trace (Kineto 2021): unknown, not 0 */
		if (!m->rows[i].any_reserved)
			out->peak_reserved = INT64_MIN;
		for (size_t d = 0; d < info->nr_devices; d++)
			if (info->devices[d].id == out->device && info->devices[d].total_mem >= 0)
				out->capacity = info->devices[d].total_mem;
	}
	if (m->nr_rows > 1)
		qsort(rk->memory, m->nr_rows, sizeof(*rk->memory), cmp_device);
	rk->nr_memory = m->nr_rows;
	return 0;
}
