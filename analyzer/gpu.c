/*
 * gpu: see gpu.h.  Unions are computed by sorting intervals by start and
 * sweeping; the comm/compute overlap intersects the two merged unions.
 */
#include "gpu.h"

#include "interval.h"
#include "sat.h"
#include "sort.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void gpu_init(struct gpu *g)
{
	strtab_init(&g->names, 1);
	buf_init(&g->recs);
}

void gpu_release(struct gpu *g)
{
	strtab_release(&g->names);
	buf_release(&g->recs);
}

static int has_prefix(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

/* Collectives as CPU threads see them: gloo and nccl spans, c10d calls. */
static int is_cpu_comm(const char *s, size_t n)
{
	return has_prefix(s, n, "gloo:") || has_prefix(s, n, "nccl:") ||
	       has_prefix(s, n, "c10d::") ||
	       (n == 18 && memcmp(s, "record_param_comms", 18) == 0);
}

int gpu_collect(struct gpu *g, const struct event_batch *b)
{
	const struct strtab *st = &b->strs;
	uint32_t kernel = strtab_find(st, "kernel", 6);
	uint32_t memcpy_id = strtab_find(st, "gpu_memcpy", 10);
	uint32_t memset_id = strtab_find(st, "gpu_memset", 10);
	uint32_t nstr = strtab_count(st) + 1;
	uint32_t *map = calloc(nstr, sizeof(*map));	/* local name id -> ours */
	unsigned char *comm = calloc(nstr, 1);		/* 1 no, 2 yes, 0 unknown */
	int rc = -1;

	if (!map || !comm || buf_reserve(&g->recs, b->n * sizeof(struct gpu_rec)))
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		struct gpu_rec rec;

		if (!(ev->flags & EV_TS))
			continue;
		if (ev->cat && ev->cat == kernel)
			rec.kind = GPU_KERNEL;
		else if (ev->cat && ev->cat == memcpy_id)
			rec.kind = GPU_MEMCPY;
		else if (ev->cat && ev->cat == memset_id)
			rec.kind = GPU_MEMSET;
		else if (ev->phase == 'X' && ev->name) {
			if (!comm[ev->name])
				comm[ev->name] = is_cpu_comm(strtab_str(st, ev->name),
							     strtab_len(st, ev->name)) ? 2 : 1;
			if (comm[ev->name] != 2)
				continue;
			rec.kind = CPU_COMM;
		} else {
			continue;
		}
		rec.ts_ns = ev->ts_ns;
		rec.dur_ns = ev->dur_ns;
		rec.name = ev->name ? strtab_map(&g->names, st, ev->name, map) : 0;
		if (rec.name == STRTAB_OOM)
			goto out;
		/* room for the whole batch was reserved above */
		memcpy(g->recs.data + g->recs.len, &rec, sizeof(rec));
		g->recs.len += sizeof(rec);
	}
	g->recs.data[g->recs.len] = '\0';	/* buf's invariant, kept by hand */
	rc = 0;
out:
	free(map);
	free(comm);
	return rc;
}

const char *gpu_kernel_category(const char *name, size_t len)
{
	static const struct {
		const char *category;
		const char *words[12];
	} rules[] = {
		{ "comm", { "nccl", "rccl", "all_reduce", "allreduce", "allgather", "all_gather",
			    "reduce_scatter", "reducescatter", "sendrecv", "alltoall", "all_to_all" } },
		{ "attention", { "flash", "fmha", "attention", "sdpa" } },
		{ "gemm", { "gemm", "gemv", "matmul", "cutlass", "cublas", "wgmma", "sm90_xmma" } },
		{ "conv", { "conv" } },
		{ "norm", { "layer_norm", "layernorm", "rms_norm", "rmsnorm", "group_norm",
			    "groupnorm", "batch_norm", "batchnorm" } },
		{ "elementwise", { "elementwise" } },
		{ "reduce", { "reduce" } },
	};
	struct buf lower;
	const char *found = "other";

	/* The telling word can sit deep in a templated name: search all of it. */
	buf_init(&lower);
	buf_add(&lower, name, len);
	if (!buf_ok(&lower) || !lower.data)
		goto out;
	for (size_t i = 0; i < lower.len; i++)
		lower.data[i] = (char)tolower((unsigned char)lower.data[i]);
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		for (size_t w = 0; w < 12 && rules[r].words[w]; w++)
			if (strstr(lower.data, rules[r].words[w])) {
				found = rules[r].category;
				goto out;
			}
out:
	buf_release(&lower);
	return found;
}

/* Intervals of the records that match want(kind), merged. */
static size_t collect(const struct gpu_rec *r, size_t n, unsigned kinds, struct interval *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(kinds & (1u << r[i].kind)))
			continue;
		out[k].lo = r[i].ts_ns;
		out[k].hi = r[i].ts_ns + r[i].dur_ns;
		k++;
	}
	return interval_union(out, k);
}

/* Reorder r[0..n), which is in file order, by name id, keeping file order. */
static int group_by_name(struct gpu *g, struct gpu_rec *r, size_t n)
{
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids)), *perm = sort_identity(n);
	int rc = -1;

	if (!ids || !perm)
		goto out;
	for (size_t i = 0; i < n; i++)
		ids[i] = r[i].name;
	if (sort_perm_id(ids, strtab_count(&g->names), perm, n) ||
	    sort_apply(r, n, sizeof(*r), perm))
		goto out;
	rc = 0;
out:
	free(ids);
	free(perm);
	return rc;
}

static int cmp_kernel_row(const void *a, const void *b)
{
	const struct report_kernel *x = a, *y = b;

	if (x->d.total_ns != y->d.total_ns)
		return x->d.total_ns > y->d.total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One row per kernel name; the records must be sorted by name. */
static int kernel_table(struct gpu *g, struct gpu_rec *r, size_t n, struct arena *a,
			struct report_rank *rk)
{
	int64_t *durs = malloc((n ? n : 1) * sizeof(*durs));
	size_t rows = 0;

	rk->kernels = arena_alloc(a, (n ? n : 1) * sizeof(*rk->kernels));
	if (!durs || !rk->kernels) {
		free(durs);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		struct report_kernel *k = &rk->kernels[rows++];
		const char *name = g->names.n > r[i].name && r[i].name ?
					   strtab_str(&g->names, r[i].name) : "";
		size_t len = r[i].name ? strtab_len(&g->names, r[i].name) : 0;
		size_t j = i;

		for (; j < n && r[j].name == r[i].name; j++)
			durs[j - i] = r[j].dur_ns;
		report_dist_of(&k->d, durs, j - i);
		k->name = arena_strndup(a, name, len);
		k->category = gpu_kernel_category(name, len);
		k->share = rk->gpu.kernel_time_ns ?
				   (double)k->d.total_ns / (double)rk->gpu.kernel_time_ns : 0.0;
		if (!k->name || report_samples_of(&k->samples, a, durs, j - i)) {
			free(durs);
			return -1;
		}
		i = j;
	}
	free(durs);
	if (rows > 1)
		qsort(rk->kernels, rows, sizeof(*rk->kernels), cmp_kernel_row);
	rk->nr_kernels = rows;
	return 0;
}

int gpu_finish(struct gpu *g, struct arena *a, struct report_rank *rk)
{
	struct gpu_rec *r = (struct gpu_rec *)g->recs.data;
	size_t n = g->recs.len / sizeof(*r), nk = 0, nc, nm, nmem, nb, ncomm, ncomp;
	struct interval *all = malloc((n ? n : 1) * sizeof(*all));
	struct interval *busy = malloc((n ? n : 1) * sizeof(*busy));
	struct interval *comm = malloc((n ? n : 1) * sizeof(*comm));
	struct interval *comp = malloc((n ? n : 1) * sizeof(*comp));
	struct report_gpu *gp = &rk->gpu;
	unsigned char *is_comm = NULL;
	int64_t first = 0, last = 0;
	int any = 0, rc = -1;

	if (!all || !busy || !comm || !comp)
		goto out;
	memset(gp, 0, sizeof(*gp));
	for (size_t i = 0; i < n; i++) {
		if (r[i].kind == CPU_COMM)
			continue;
		if (!any || r[i].ts_ns < first)
			first = r[i].ts_ns;
		if (!any || r[i].ts_ns + r[i].dur_ns > last)
			last = r[i].ts_ns + r[i].dur_ns;
		any = 1;
		if (r[i].kind == GPU_KERNEL) {
			nk++;
			gp->kernel_time_ns = sat_add(gp->kernel_time_ns, r[i].dur_ns);
		}
	}
	gp->kernels = (int64_t)nk;
	gp->active_span_ns = any ? last - first : 0;
	nmem = collect(r, n, 1u << GPU_MEMCPY | 1u << GPU_MEMSET, all);
	gp->memory_ns = interval_length(all, nmem);

	/* Split kernels by category: comm or compute. */
	is_comm = calloc(strtab_count(&g->names) + 1, 1);
	if (!is_comm)
		goto out;
	for (uint32_t id = 1; id <= strtab_count(&g->names); id++)
		is_comm[id] = !strcmp(gpu_kernel_category(strtab_str(&g->names, id),
							   strtab_len(&g->names, id)), "comm");
	ncomm = ncomp = 0;
	for (size_t i = 0; i < n; i++) {
		struct interval iv = { r[i].ts_ns, r[i].ts_ns + r[i].dur_ns };

		if (r[i].kind == GPU_KERNEL && is_comm[r[i].name])
			comm[ncomm++] = iv;
		else if (r[i].kind == GPU_KERNEL)
			comp[ncomp++] = iv;
		else if (r[i].kind == CPU_COMM && nk == 0)
			comm[ncomm++] = iv;
	}
	nc = interval_union(comm, ncomm);
	nm = interval_union(comp, ncomp);
	gp->comm_ns = interval_length(comm, nc);
	gp->compute_ns = interval_length(comp, nm);
	gp->cpu_comm = nk == 0;
	gp->comm_compute_overlap = gp->comm_ns ? (double)interval_overlap(comm, nc, comp, nm) /
							 (double)gp->comm_ns
					       : NAN;

	/* Busy: the three unions merged in linear time (CPU collectives are no GPU work). */
	nb = interval_merge(comm, gp->cpu_comm ? 0 : nc, comp, nm, busy);
	nb = interval_merge(busy, nb, all, nmem, comm);
	gp->busy_ns = interval_length(comm, nb);
	gp->idle_ns = sat_sub(gp->active_span_ns, gp->busy_ns);
	gp->utilization = gp->active_span_ns ? (double)gp->busy_ns / (double)gp->active_span_ns
					     : NAN;

	/* The kernel table: kernels first, grouped by name in file order. */
	for (size_t i = 0, k = 0; i < n; i++)
		if (r[i].kind == GPU_KERNEL)
			r[k++] = r[i];
	g->recs.len = nk * sizeof(*r);	/* the other records were folded in above */
	if (group_by_name(g, r, nk))
		goto out;
	rc = kernel_table(g, r, nk, a, rk);
out:
	free(all);
	free(busy);
	free(comm);
	free(comp);
	free(is_comm);
	return rc;
}
