/*
 * kctx: see kctx.h.
 */
#include "kctx.h"

#include <stdlib.h>
#include <string.h>

#include "category.h"
#include "gpu.h"
#include "grow.h"
#include "modcat.h"
#include "opcat.h"
#include "sat.h"
#include "track.h"

struct kx_span {
	int64_t ts_ns, end_ns;
	uint32_t track, seq;
	uint32_t cat, pad;	/* enum category (operators) */
};

/* The categories a row can get, CAT_COMM to CAT_OTHER, in the order ties are broken. */
#define NR_CATS ((size_t)CAT_OTHER + 1)
enum { SRC_OP, SRC_MODULE, NR_SRC };

static unsigned op_cat(const char *s, size_t n)
{
	return (unsigned)opcat_of(s, n);
}

static unsigned is_attention(const char *s, size_t n)
{
	return (unsigned)modcat_is_attention(s, n);
}

void kctx_init(struct kctx *k, struct names *names, struct name_memo *kcats)
{
	memset(k, 0, sizeof(*k));
	k->names = names;
	k->kcats = kcats;
	name_memo_init(&k->op_cat, op_cat);
	name_memo_init(&k->attention, is_attention);
}

void kctx_release(struct kctx *k)
{
	free(k->ops.v);
	free(k->blocks.v);
	name_memo_release(&k->op_cat);
	name_memo_release(&k->attention);
	kctx_init(k, k->names, k->kcats);
}

/* The category of a kernel row's word c; a word of no kernel category counts as other. */
static enum category row_cat(const char *c)
{
	enum category k = category_of(c);

	return k == CAT_NONE ? CAT_OTHER : k;
}

int kctx_collect(struct kctx *k, const struct event_batch *b, const unsigned char *cls,
		 struct strtab *tracks)
{
	struct track_cache cache = { 0 };

	for (size_t i = 0; i < b->n; i++) {
		const struct trace_event *ev = &b->ev[i];
		int is_op, is_frame, v;
		uint32_t name, track;

		if (ev->phase != 'X' || !(ev->flags & EV_TS) || ev->dur_ns < 0)
			continue;
		if (!ev->name)
			continue;
		is_op = cls[i] == EVC_CPU_OP;
		is_frame = cls[i] == EVC_FRAME || cls[i] == EVC_ANNOT;
		if (!is_op && !is_frame)
			continue;
		/* an operator's category, or whether a frame is an attention block */
		name = names_id(k->names, ev->name);
		if (name == STRTAB_OOM ||
		    (v = name_memo_get(is_op ? &k->op_cat : &k->attention, k->names, name)) < 0)
			return -1;
		if (!v)
			continue;
		track = track_id(tracks, &cache, b, ev);
		if (track == STRTAB_OOM)
			return -1;
		{
			struct kx_span s = { ev->ts_ns, sat_add(ev->ts_ns, ev->dur_ns), track,
					     k->seq++, is_op ? (uint32_t)v : 0, 0 };
			struct kx_spans *to = is_op ? &k->ops : &k->blocks;

			if (ALLOC_GROW(to->v, to->n + 1, to->alloc))
				return -1;
			to->v[to->n++] = s;
		}
	}
	return 0;
}

/* Thread, then start; the longer (enclosing) span first, then file order. */
static int cmp_span(const void *a, const void *b)
{
	const struct kx_span *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The context category of the kernel launched at p (and *src), or -1
 * where no operator is known.  stack[0..*depth) holds the
 * operators started at or before p on its thread, outermost first.
 */
static int context_cat(const struct kx_span *const *stack, size_t depth, int64_t ts, int in_block,
		       int *src)
{
	const struct kx_span *outer = NULL;

	for (size_t i = 0; i < depth; i++) {
		if (stack[i]->end_ns <= ts)
			continue;	/* ended under a span that crossed it */
		if (stack[i]->cat == CAT_ATTENTION) {
			*src = SRC_OP;
			return CAT_ATTENTION;
		}
		if (!outer)
			outer = stack[i];
	}
	if (!outer)
		return -1;
	if (in_block && (outer->cat == CAT_GEMM || outer->cat == CAT_SOFTMAX)) {
		*src = SRC_MODULE;
		return CAT_ATTENTION;
	}
	*src = SRC_OP;
	return (int)category_kernel((enum category)outer->cat);
}

int kctx_finish(struct kctx *k, const struct placement *pl, struct report_rank *rk)
{
	struct kx_span *ops = k->ops.v, *blk = k->blocks.v;
	size_t nops = k->ops.n, nblk = k->blocks.n;
	const struct names *names = pl->names;
	uint32_t nnames = names_count(names) + 1;
	/* by kernel name with a context, cat, src: the names' rows in order of meeting */
	int64_t *t = NULL;
	size_t nt = 0, t_alloc = 0;
	uint32_t *row_of = calloc(nnames, sizeof(*row_of));	/* by name: 0 none, else row + 1 */
	const struct kx_span **stack = malloc((nops ? nops : 1) * sizeof(*stack));
	const struct placed *p = pl->v;
	size_t depth = 0, o = 0, bl = 0;
	int64_t blk_end = INT64_MIN;
	uint32_t track = 0;
	int rc = -1;

	if (!row_of || !stack)
		goto out;
	if (nops > 1)
		qsort(ops, nops, sizeof(*ops), cmp_span);
	if (nblk > 1)
		qsort(blk, nblk, sizeof(*blk), cmp_span);
	/*
	 * One sweep over the kernels at their launches (by thread, then time),
	 * the operators and the blocks, thread by thread.  A kernel's time is
	 * its record's share of the phases' prefix sum.
	 */
	for (size_t i = 0; i < pl->n; i++) {
		const struct placed *q = &p[i];
		uint32_t name = q->name;
		int c, kc, src = SRC_OP;

		if (!name)
			continue;	/* not a kernel, or one without a name: no row */
		if (q->track != track) {
			track = q->track;
			depth = 0;
			blk_end = INT64_MIN;
			while (o < nops && ops[o].track < q->track)
				o++;
			while (bl < nblk && blk[bl].track < q->track)
				bl++;
		}
		for (; o < nops && ops[o].track == q->track && ops[o].ts_ns <= q->ts_ns; o++) {
			while (depth && stack[depth - 1]->end_ns <= ops[o].ts_ns)
				depth--;
			stack[depth++] = &ops[o];
		}
		while (depth && stack[depth - 1]->end_ns <= q->ts_ns)
			depth--;
		for (; bl < nblk && blk[bl].track == q->track && blk[bl].ts_ns <= q->ts_ns; bl++)
			if (blk[bl].end_ns > blk_end)
				blk_end = blk[bl].end_ns;
		/* gpu_finish(), which ran before, asked every kernel's name already */
		if ((kc = name_memo_get(k->kcats, names, name)) < 0)
			goto out;
		if (kc == CAT_COMM)
			continue;	/* a collective is its own, whoever called it */
		c = context_cat(stack, depth, q->ts_ns, blk_end > q->ts_ns, &src);
		if (c >= 0) {
			int64_t *slot;
			size_t row;

			if (!row_of[name]) {
				if (ALLOC_GROW_ZERO(t, (nt + 1) * NR_CATS * NR_SRC, t_alloc))
					goto out;
				row_of[name] = (uint32_t)++nt;
			}
			row = row_of[name] - 1;
			slot = &t[(row * NR_CATS + (size_t)c) * NR_SRC + src];
			*slot = sat_add(*slot, placed_dur(pl, LAUNCH_PHASES, i));
		}
	}
	/*
	 * Each row: the category that holds most of its name's time, the time
	 * without a known operator counting for the name's own; its source the
	 * one that gave that category most of it (ties: name, op, module).
	 */
	for (size_t r = 0; r < rk->nr_kernels; r++) {
		struct report_kernel *row = &rk->kernels[r];
		uint32_t id = strtab_find(&names->t, row->name, strlen(row->name));
		const int64_t *v;
		int64_t by_ctx = 0, sum[NR_CATS], own;
		size_t own_cat = (size_t)row_cat(row->category), best = own_cat;

		row->category_source = "name";
		if (!id || !row_of[id])
			continue;	/* no time in a context: its name's category */
		v = &t[(size_t)(row_of[id] - 1) * NR_CATS * NR_SRC];
		for (size_t x = 0; x < NR_CATS * NR_SRC; x++)
			by_ctx = sat_add(by_ctx, v[x]);
		own = row->d.total_ns - by_ctx;
		for (size_t c = 0; c < NR_CATS; c++)
			sum[c] = sat_add(v[c * NR_SRC + SRC_OP], v[c * NR_SRC + SRC_MODULE]);
		sum[own_cat] = sat_add(sum[own_cat], own);
		for (size_t c = CAT_COMM; c < NR_CATS; c++)
			if (sum[c] > sum[best])
				best = c;
		if (best == own_cat && own >= v[best * NR_SRC + SRC_OP] &&
		    own >= v[best * NR_SRC + SRC_MODULE])
			continue;
		row->category = category_name((enum category)best);
		row->category_source = v[best * NR_SRC + SRC_OP] >= v[best * NR_SRC + SRC_MODULE]
					       ? "op" : "module";
	}
	rc = 0;
out:
	free(t);
	free(row_of);
	free(stack);
	kctx_release(k);
	return rc;
}
