/*
 * html_collectives: the "Who waits for whom" section: the ranks the others
 * wait for (with the wait they impose), the collectives table with its
 * bandwidths, and per rank the wait, the transfer, both utilizations and
 * the clock offset.  Every number carries its data-key (see html.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "report_fields.h"
#include "vendor_words.h"

/* [ "collectives", i, "field" ] and the like into kb. */
static const char *key3(char *kb, size_t n, const char *a, size_t i, const char *b)
{
	snprintf(kb, n, "[\"%s\",%zu,\"%s\"]", a, i, b);
	return kb;
}

/* ["stragglers", i, "delays_most", "wait_ns"] into kb: the keys of the straggler's object */
static const char *delays_key(char *kb, size_t n, size_t i)
{
	const size_t off = offsetof(struct report_straggler, delays);
	const struct field_table *sub = NULL;

	for (size_t k = 0; k < straggler_fields.n; k++)
		if (straggler_fields.f[k].off == off && straggler_fields.f[k].sub)
			sub = straggler_fields.f[k].sub;
	snprintf(kb, n, "[\"%s\",%zu,\"%s\",\"%s\"]", straggler_fields.name, i,
		 field_key_at(&straggler_fields, off),
		 sub ? field_key_at(sub, offsetof(struct report_delays, wait_ns)) : "");
	return kb;
}

static void name_cell(struct page *p, const char *group, const char *name)
{
	buf_adds(p->b, "<td class=\"name\">");
	html_text(p, name);
	if (group) {
		buf_adds(p->b, " <span class=\"muted\">(group ");
		html_text(p, group);
		buf_adds(p->b, ")</span>");
	}
	buf_adds(p->b, "</td>");
}

static void stragglers(struct page *p)
{
	const struct report *r = p->r;
	const struct report_rank *most = NULL;
	char kb[96];

	for (size_t i = 0; i < r->nr_ranks; i++)
		if (r->ranks[i].gpu.has_wait &&
		    (!most || r->ranks[i].gpu.comm_wait_ns > most->gpu.comm_wait_ns))
			most = &r->ranks[i];
	if (!r->nr_stragglers) {
		buf_adds(p->b, "<p>No rank holds the others back: the wait at collectives is "
			       "spread over the ranks.</p>\n");
		return;
	}
	buf_adds(p->b, "<p>");
	for (size_t i = 0; i < r->nr_stragglers; i++) {
		const struct report_straggler *s = &r->stragglers[i];

		buf_printf(p->b, "%s<strong>Rank %lld</strong>", i ? ", " : "",
			   (long long)s->rank);
	}
	if (vendor_words_of_run(r)->device)
		buf_printf(p->b, " %s the rank%s the others wait for: %s last at the collectives, "
				 "and the other ranks spin inside their collective kernels until "
				 "%s arrives. That waiting counts as busy %s time and as long "
				 "steps on the ranks that wait, so their plain utilization looks "
				 "best; effective utilization leaves it out.",
			   r->nr_stragglers > 1 ? "are" : "is", r->nr_stragglers > 1 ? "s" : "",
			   r->nr_stragglers > 1 ? "they arrive" : "it arrives",
			   r->nr_stragglers > 1 ? "each" : "it", vendor_words_of_run(r)->device);
	else
		buf_printf(p->b, " %s the rank%s the others wait for: %s last at the collectives, "
				 "and the other ranks block in them until %s arrives, which shows "
				 "as long steps on the ranks that wait.",
			   r->nr_stragglers > 1 ? "are" : "is", r->nr_stragglers > 1 ? "s" : "",
			   r->nr_stragglers > 1 ? "they arrive" : "it arrives",
			   r->nr_stragglers > 1 ? "each" : "it");
	if (most && most->gpu.comm_wait_ns > 0) {
		buf_printf(p->b, " Rank %lld waits most: ", (long long)most->rank);
		html_rank_key(kb, sizeof(kb), (size_t)(most - r->ranks), &gpu_fields,
			      offsetof(struct report_gpu, comm_wait_ns));
		html_i64(p, "span", kb, NULL, most->gpu.comm_wait_ns, UNIT_NS);
		buf_adds(p->b, ".");
	}
	buf_adds(p->b, "</p>\n<table><tr><th>rank</th><th>wait it imposes</th>"
		       "<th>arrives last at</th><th>delays most</th><th>wait there</th></tr>\n");
	for (size_t i = 0; i < r->nr_stragglers; i++) {
		const struct report_straggler *s = &r->stragglers[i];

		buf_adds(p->b, "<tr>");
#define SG_KEY(m) html_row_key(kb, sizeof(kb), &straggler_fields, i, \
				offsetof(struct report_straggler, m))
		html_i64(p, "td", SG_KEY(rank), NULL, s->rank, UNIT_COUNT);
		html_i64(p, "td", SG_KEY(wait_imposed_ns), NULL, s->wait_imposed_ns, UNIT_NS);
		html_dbl(p, "td", SG_KEY(last_share), NULL, s->last_share, UNIT_RATIO);
		name_cell(p, s->delays.group, s->delays.name);
		html_i64(p, "td", delays_key(kb, sizeof(kb), i), NULL, s->delays.wait_ns, UNIT_NS);
#undef SG_KEY
		buf_adds(p->b, "</tr>\n");
	}
	buf_adds(p->b, "</table>\n");
}

static void table(struct page *p)
{
	const struct report *r = p->r;
	char kb[96];

	buf_adds(p->b, "<h3>Collectives</h3>\n<p class=\"muted\">Instances matched on every rank "
		       "that took part, by process group, collective and order. Transfer is the "
		       "shortest duration of each instance (the last rank to arrive does not "
		       "wait); bandwidths follow nccl-tests on that time, where the trace gives "
		       "message sizes.</p>\n<div class=\"wrap\"><table><tr><th>collective</th>"
		       "<th>ranks</th><th>instances</th><th>unmatched</th><th>wait</th>"
		       "<th>transfer</th><th>last most often</th><th>times</th><th>bytes</th>"
		       "<th>algbw GB/s</th><th>busbw GB/s</th></tr>\n");
#define COLL_KEY(m) html_row_key(kb, sizeof(kb), &collective_fields, i, \
				  offsetof(struct report_collective, m))
	for (size_t i = 0; i < r->nr_collectives; i++) {
		const struct report_collective *c = &r->collectives[i];

		buf_adds(p->b, "<tr>");
		name_cell(p, c->group, c->name);
		html_i64(p, "td", COLL_KEY(ranks), NULL, c->ranks, UNIT_COUNT);
		html_i64(p, "td", COLL_KEY(instances), NULL, c->instances, UNIT_COUNT);
		html_i64(p, "td", COLL_KEY(unmatched), NULL, c->unmatched, UNIT_COUNT);
		html_i64(p, "td", COLL_KEY(wait_ns), NULL, c->wait_ns, UNIT_NS);
		html_i64(p, "td", COLL_KEY(transfer_ns), NULL, c->transfer_ns, UNIT_NS);
		html_i64(p, "td", COLL_KEY(last_rank), NULL, c->last_rank, UNIT_COUNT);
		html_i64(p, "td", COLL_KEY(last_count), NULL, c->last_count, UNIT_COUNT);
		if (c->bytes >= 0)
			html_i64(p, "td", COLL_KEY(bytes), NULL, c->bytes, UNIT_BYTES);
		else
			buf_adds(p->b, "<td>\xe2\x80\x94</td>");
		html_dbl(p, "td", COLL_KEY(algbw), NULL, c->algbw, UNIT_NUMBER);
		html_dbl(p, "td", COLL_KEY(busbw), NULL, c->busbw, UNIT_NUMBER);
		buf_adds(p->b, "</tr>\n");
	}
#undef COLL_KEY
	buf_adds(p->b, "</table></div>\n");
}

static void ranks(struct page *p)
{
	const struct report *r = p->r;
	char kb[96];

	buf_adds(p->b, "<h3>Per rank</h3>\n<div class=\"wrap\"><table><tr><th>rank</th>"
		       "<th>comm</th><th>waiting</th><th>transfer</th><th>utilization</th>"
		       "<th>effective utilization</th><th>clock offset</th><th>offset spread</th>"
		       "</tr>\n");
	for (size_t i = 0; i < r->nr_ranks; i++) {
		const struct report_rank *rk = &r->ranks[i];
		const struct report_gpu *g = &rk->gpu;

		if (!g->has_wait)
			continue;
		buf_adds(p->b, "<tr>");
		html_i64(p, "td", html_row_key(kb, sizeof(kb), &rank_fields, i,
					       offsetof(struct report_rank, rank)),
			 NULL, rk->rank, UNIT_COUNT);
#define GPU_KEY(m) html_rank_key(kb, sizeof(kb), i, &gpu_fields, offsetof(struct report_gpu, m))
		html_i64(p, "td", GPU_KEY(comm_ns), NULL, g->comm_ns, UNIT_NS);
		html_i64(p, "td", GPU_KEY(comm_wait_ns), NULL, g->comm_wait_ns, UNIT_NS);
		html_i64(p, "td", GPU_KEY(comm_transfer_ns), NULL, g->comm_transfer_ns, UNIT_NS);
		html_dbl(p, "td", GPU_KEY(utilization), NULL, g->utilization, UNIT_RATIO);
		html_dbl(p, "td", GPU_KEY(effective_utilization), NULL, g->effective_utilization,
			 UNIT_RATIO);
#undef GPU_KEY
#define CLOCK_KEY(m) key3(kb, sizeof(kb), rank_fields.name, i, \
			  field_key_at(&clock_fields, offsetof(struct report_rank, m)))
		if (rk->has_clock) {
			html_i64(p, "td", CLOCK_KEY(clock_offset_ns), NULL, rk->clock_offset_ns,
				 UNIT_NS);
			html_i64(p, "td", CLOCK_KEY(clock_offset_spread_ns), NULL,
				 rk->clock_offset_spread_ns, UNIT_NS);
		} else {
			buf_adds(p->b, "<td>\xe2\x80\x94</td><td>\xe2\x80\x94</td>");
		}
#undef CLOCK_KEY
		buf_adds(p->b, "</tr>\n");
	}
	buf_adds(p->b, "</table></div>\n");
}

/*
 * Without collectives matched across ranks, a device that records its
 * collectives' own tasks (HCCL) still shows each rank's wait: say so and
 * give the per-rank table.  0 when no rank has such a wait.
 */
static int own_waits(struct page *p)
{
	const struct report *r = p->r;
	const char *coll = vendor_words_of_run(r)->collectives;

	for (size_t i = 0; i < r->nr_ranks; i++)
		if (r->ranks[i].gpu.wait_from_tasks) {
			buf_printf(p->b, "<p>No collective matched across ranks, but the device "
					 "records its %s%scollectives' own tasks: the time inside "
					 "them that moves no data is waiting for peers this "
					 "analysis does not have. Analyse every rank together to "
					 "name the one they wait for.</p>\n",
				   coll ? coll : "", coll ? " " : "");
			if (!p->many)
				ranks(p);
			buf_adds(p->b, "</section>\n");
			return 1;
		}
	return 0;
}

void html_collectives(struct page *p)
{
	const struct report *r = p->r;
	int matched = r->straggler_rule && !strcmp(r->straggler_rule, "collectives");

	buf_adds(p->b, "<section id=\"collectives\">\n<h2>Who waits for whom</h2>\n");
	if (!matched && own_waits(p))
		return;
	if (r->nr_ranks < 2) {
		buf_adds(p->b,
			 "<p class=\"muted\">One rank: nobody to wait for.</p>\n</section>\n");
		return;
	}
	if (!matched) {
		buf_printf(p->b, "<p class=\"muted\">No collective matched across ranks, so "
				 "waiting cannot be told from work; stragglers come from the %s "
				 "rule (see Across ranks).</p>\n</section>\n",
			   r->straggler_rule ? r->straggler_rule : "step");
		return;
	}
	stragglers(p);
	if (r->nr_incomplete_ranks) {
		buf_adds(p->b, "<p class=\"muted\">Incomplete traces, never named as stragglers:");
		for (size_t i = 0; i < r->nr_incomplete_ranks; i++)
			buf_printf(p->b, " %lld", (long long)r->incomplete_ranks[i]);
		buf_adds(p->b, ".</p>\n");
	}
	table(p);
	if (!p->many)
		ranks(p);
	buf_adds(p->b, "</section>\n");
}
