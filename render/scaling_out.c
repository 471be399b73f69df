/*
 * scaling_out: see scaling_out.h and doc/scaling.md.
 *
 * The terminal and the markdown say the same lines, built once into a
 * buffer (lines()); markdown only adds the table syntax.  Phase paths and
 * the inputs' names come from traces and arguments: tsafe.h on the
 * terminal, output_md_cell() in markdown, jsonw in JSON.  Values go through the
 * catalogue's formatter (metric_fmt()); the JSON keeps raw numbers.
 */
#include "scaling_out.h"

#include <math.h>
#include <string.h>

#include "comparison.h"
#include "jsonw.h"
#include "metric.h"
#include "term.h"

static void sentence(struct buf *b, const struct scaling_point *p, int md);

/* What usually fixes each part, after its finding. */
const char *const scaling_fix[SCALING_NR_PARTS] = {
	[SCALING_COMM] = "overlap the all-to-all and all-gather with compute (asynchronous "
			 "collectives, ring attention, a pipelined Ulysses)",
	[SCALING_LATE] = "rebalance the sequence split, and find why that rank is slower",
	[SCALING_SERIAL] = "split or pipeline it across ranks (a VAE decode: decode temporal "
			   "chunks on different ranks; a text encoder: encode once and broadcast)",
	[SCALING_COMPUTE] = "per-rank kernels are smaller and less efficient: larger shards, "
			    "fused kernels, CUDA graphs",
	[SCALING_IDLE] = "see what the idle attribution blames (vanalyze's idle section)",
	[SCALING_OTHER] = "time outside the phases or idle inside them: look at the timeline",
};

static const char *ns(char *s, size_t n, double v)
{
	return metric_fmt(s, n, v, UNIT_NS, FMT_ASCII);
}

static const char *pct(char *s, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(s, n, "-");
	else
		snprintf(s, n, "%.0f %%", v * 100);
	return s;
}

static const char *factor(char *s, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(s, n, "-");
	else
		snprintf(s, n, "%.2fx", v);
	return s;
}

/* A phase name on a line: at most this many columns of it (the JSON has it whole). */
#define NAME_COLS 80

/* A name from a trace or an argument: safe for a terminal, escaped for markdown. */
static void name(struct buf *b, const char *s, int md)
{
	size_t n = strlen(s);

	if (md) {
		output_md_cell(b, s);
		return;
	}
	if (term_cols(s, n) > NAME_COLS) {
		tsafe_add(b, s, term_bytes(s, n, NAME_COLS - 3));
		buf_adds(b, "...");
		return;
	}
	tsafe_add(b, s, n);
}

/* The loss that parts are shares of, in words: a part's share of 1 - E. */
static double of_loss(const struct scaling_point *p, enum scaling_part k)
{
	return p->loss > 0 ? p->parts_share[k] / p->loss : NAN;
}

void scaling_sentence(struct buf *b, const struct scaling_point *p)
{
	sentence(b, p, 0);
}

/* "4 ranks gave 1.90x (48 %): ..., ... (12 %), rank 3 late (5 %)" */
static void sentence(struct buf *b, const struct scaling_point *p, int md)
{
	enum scaling_part top[3];
	size_t n = scaling_top_parts(p, top);
	char s[METRIC_FMT_MAX], e[METRIC_FMT_MAX], l[METRIC_FMT_MAX];

	buf_printf(b, "%lld ranks gave %s (%s)", (long long)p->ranks,
		   factor(s, sizeof(s), p->speedup), pct(e, sizeof(e), p->efficiency));
	if (!(p->loss > 0)) {
		buf_adds(b, ": no loss");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, i ? ", " : ": ");
		if (top[i] == SCALING_SERIAL && p->replicated >= 0) {
			name(b, p->phases[p->replicated].path, md);
			buf_adds(b, " runs whole on every rank");
		} else if (top[i] == SCALING_LATE && p->late_rank >= 0) {
			buf_printf(b, "rank %lld late", (long long)p->late_rank);
		} else {
			buf_adds(b, scaling_part_text[top[i]]);
		}
		buf_printf(b, " (%s%s)", pct(l, sizeof(l), of_loss(p, top[i])),
			   i ? "" : " of the loss");
	}
}

static void mode_line(struct buf *b, const struct scaling *sc, int md)
{
	char t[METRIC_FMT_MAX];

	buf_adds(b, md ? "**BASE** " : "base  ");
	name(b, sc->base_label, md);
	buf_printf(b, ": %lld rank%s, %s per generation; %s scaling (%s)\n",
		   (long long)sc->base_ranks, sc->base_ranks == 1 ? "" : "s",
		   ns(t, sizeof(t), sc->base_time_ns), sc->weak ? "weak" : "strong",
		   sc->forced ? "as asked"
		   : sc->weak ? "the work grew with the ranks"
			      : "the same total work");
	for (size_t i = 0; i < sc->nr_points; i++) {
		const struct scaling_point *p = &sc->points[i];

		if (!p->nr_mismatch)
			continue;
		buf_adds(b, md ? "\n**warning**: " : "warning: ");
		name(b, p->label, md);
		buf_adds(b, " differs from base in the workload:");
		for (size_t k = 0; k < p->nr_mismatch; k++) {
			buf_addc(b, ' ');
			name(b, p->mismatch[k], md);
		}
		buf_addc(b, '\n');
	}
}

/* The curve: one row per run, BASE first. */
static void curve(struct buf *b, const struct scaling *sc, int md)
{
	char t[METRIC_FMT_MAX], s[METRIC_FMT_MAX], e[METRIC_FMT_MAX], k[METRIC_FMT_MAX];

	if (md)
		buf_adds(b, "\n| ranks | time per generation | speedup | efficiency | "
			    "serial fraction (Karp-Flatt) | run |\n"
			    "|---:|---:|---:|---:|---:|---|\n");
	else
		buf_printf(b, "\n%6s  %12s  %8s  %10s  %15s  %s\n", "ranks", "time", "speedup",
			   "efficiency", "serial fraction", "run");
	for (size_t i = 0; i <= sc->nr_points; i++) {
		const struct scaling_point *p = i ? &sc->points[i - 1] : NULL;
		int64_t r = p ? p->ranks : sc->base_ranks;

		ns(t, sizeof(t), p ? p->time_ns : sc->base_time_ns);
		factor(s, sizeof(s), p ? p->speedup : 1);
		pct(e, sizeof(e), p ? p->efficiency : 1);
		if (p && isfinite(p->karp_flatt))
			snprintf(k, sizeof(k), "%.3f", p->karp_flatt);
		else
			snprintf(k, sizeof(k), "-");
		if (md)
			buf_printf(b, "| %lld | %s | %s | %s | %s | ", (long long)r, t, s, e, k);
		else
			buf_printf(b, "%6lld  %12s  %8s  %10s  %15s  ", (long long)r, t, s, e, k);
		name(b, p ? p->label : sc->base_label, md);
		buf_adds(b, md ? " |\n" : "\n");
	}
}

static void phases(struct buf *b, const struct scaling_point *p, int md)
{
	char x[5][METRIC_FMT_MAX];

	if (!p->nr_phases)
		return;
	if (md)
		buf_printf(b, "\n**Phases at %lld ranks** (per rank and generation)\n\n"
			      "| phase | base | new | ideal | speedup | efficiency |  |\n"
			      "|---|---:|---:|---:|---:|---:|---|\n", (long long)p->ranks);
	else
		buf_printf(b, "\nphases at %lld ranks, per rank  %10s  %10s  %10s  %8s  %10s\n",
			   (long long)p->ranks, "base", "new", "ideal", "speedup", "efficiency");
	for (size_t i = 0; i < p->nr_phases; i++) {
		const struct scaling_phase *ph = &p->phases[i];
		struct buf nm;
		int cols;

		ns(x[0], sizeof(x[0]), ph->base_ns);
		ns(x[1], sizeof(x[1]), ph->new_ns);
		ns(x[2], sizeof(x[2]), ph->ideal_ns);
		factor(x[3], sizeof(x[3]), ph->speedup);
		pct(x[4], sizeof(x[4]), ph->efficiency);
		if (md) {
			buf_adds(b, "| ");
			name(b, ph->path, 1);
			buf_printf(b, " | %s | %s | %s | %s | %s | %s |\n", x[0], x[1], x[2], x[3],
				   x[4], ph->not_shrunk ? "did not shrink" : "");
			continue;
		}
		/* cut and padded by columns, never inside a character */
		buf_init(&nm);
		tsafe_add(&nm, ph->path, term_bytes(ph->path, strlen(ph->path), 29));
		cols = term_cols(term_text(&nm), nm.len);
		buf_printf(b, "  %s%*s  %10s  %10s  %10s  %8s  %10s%s\n", term_text(&nm),
			   cols < 29 ? 29 - cols : 0, "", x[0], x[1], x[2], x[3], x[4],
			   ph->not_shrunk ? "  did not shrink" : "");
		buf_release(&nm);
	}
}

static void parts(struct buf *b, const struct scaling_point *p, int md)
{
	char r[METRIC_FMT_MAX], s[METRIC_FMT_MAX], l[METRIC_FMT_MAX];

	if (md)
		buf_printf(b, "\n**Loss of efficiency at %lld ranks: %s**\n\n"
			      "| part | rank-time | share (of 1 - E) | of the loss |\n"
			      "|---|---:|---:|---:|\n", (long long)p->ranks,
			   pct(l, sizeof(l), p->loss));
	else
		buf_printf(b, "\nloss of efficiency at %lld ranks: %s   %10s  %8s  %11s\n",
			   (long long)p->ranks, pct(l, sizeof(l), p->loss), "rank-time", "share",
			   "of the loss");
	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		ns(r, sizeof(r), p->parts_rank_ns[k]);
		if (!isfinite(p->parts_share[k]))
			snprintf(s, sizeof(s), "-");
		else
			snprintf(s, sizeof(s), "%.1f %%", p->parts_share[k] * 100);
		pct(l, sizeof(l), of_loss(p, (enum scaling_part)k));
		if (md)
			buf_printf(b, "| %s | %s | %s | %s |\n", scaling_part_text[k], r, s, l);
		else
			buf_printf(b, "  %-29s  %10s  %8s  %11s\n", scaling_part_text[k], r, s, l);
		if (k != SCALING_IDLE)
			continue;
		/* the idle part by cause (doc/idle.md), where a cause changed */
		for (int c = 0; c < IDLE_NR_CAUSES; c++) {
			if (p->idle_rank_ns[c] == 0 || !isfinite(p->idle_rank_ns[c]))
				continue;
			ns(r, sizeof(r), p->idle_rank_ns[c]);
			if (md)
				buf_printf(b, "| &nbsp;&nbsp;idle: %s | %s | | |\n",
					   idle_cause_key[c], r);
			else
				buf_printf(b, "    idle: %-23s  %10s\n", idle_cause_key[c], r);
		}
	}
}

static void findings(struct buf *b, const struct scaling_point *p, int md)
{
	int any = 0;

	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		double sh = of_loss(p, (enum scaling_part)k);

		if (!(sh >= SCALING_FINDING_SHARE) || p->parts_rank_ns[k] <= 0)
			continue;
		if (!any++)
			buf_adds(b, md ? "\n**Findings**\n\n" : "\nfindings\n");
		buf_adds(b, md ? "- " : "  - ");
		if (k == SCALING_SERIAL && p->replicated >= 0) {
			name(b, p->phases[p->replicated].path, md);
			buf_adds(b, " did not shrink with the ranks");
		} else if (k == SCALING_LATE && p->late_rank >= 0) {
			buf_printf(b, "the ranks wait for rank %lld", (long long)p->late_rank);
		} else {
			buf_adds(b, scaling_part_text[k]);
		}
		buf_printf(b, " (%.0f %% of the loss): %s\n", sh * 100, scaling_fix[k]);
	}
}

static void lines(struct buf *b, const struct scaling *sc, int md)
{
	const struct scaling_point *last = sc->nr_points ? &sc->points[sc->nr_points - 1] : NULL;

	mode_line(b, sc, md);
	curve(b, sc, md);
	buf_addc(b, '\n');
	for (size_t i = 0; i < sc->nr_points; i++) {
		sentence(b, &sc->points[i], md);
		buf_adds(b, md ? "\n\n" : "\n");
	}
	if (!last)
		return;
	/* the details of the largest run: the other runs' are in the JSON */
	phases(b, last, md);
	parts(b, last, md);
	findings(b, last, md);
}

void scaling_table(FILE *f, const struct scaling *sc)
{
	struct buf b;

	buf_init(&b);
	lines(&b, sc, 0);
	fputs(term_text(&b), f);
	buf_release(&b);
}

void scaling_markdown(struct buf *out, const struct scaling *sc)
{
	buf_adds(out, "## Scaling\n\n");
	lines(out, sc, 1);
}

static void num(struct jsonw *w, const char *key, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, v);
}

static void workload(struct jsonw *w, const struct scaling_workload *wl)
{
	static const char *const keys[] = { "generations", "frames", "steps", "blocks" };
	const int64_t v[] = { wl->generations, wl->frames, wl->steps, wl->blocks };

	jsonw_key(w, "workload");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < 4; i++) {
		jsonw_key(w, keys[i]);
		if (v[i] == INT64_MIN)
			jsonw_null(w);
		else
			jsonw_int(w, v[i]);
	}
	jsonw_obj_end(w);
}

static void point_json(struct jsonw *w, const struct scaling_point *p)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "input");
	jsonw_str(w, p->label);
	jsonw_key(w, "ranks");
	jsonw_int(w, p->ranks);
	workload(w, &p->wl);
	jsonw_key(w, "workload_differs");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->nr_mismatch; i++)
		jsonw_str(w, p->mismatch[i]);
	jsonw_arr_end(w);
	num(w, "time_ns", p->time_ns);
	num(w, "speedup", p->speedup);
	num(w, "efficiency", p->efficiency);
	num(w, "karp_flatt", p->karp_flatt);
	num(w, "loss", p->loss);
	num(w, "rank_time_ns", p->total_rank_ns);
	jsonw_key(w, "late_rank");
	if (p->late_rank >= 0)
		jsonw_int(w, p->late_rank);
	else
		jsonw_null(w);
	jsonw_key(w, "loss_parts");
	jsonw_obj_begin(w);
	for (int k = 0; k < SCALING_NR_PARTS; k++) {
		jsonw_key(w, scaling_part_key[k]);
		jsonw_obj_begin(w);
		num(w, "rank_ns", p->parts_rank_ns[k]);
		num(w, "share", p->parts_share[k]);
		if (k == SCALING_IDLE) {
			jsonw_key(w, "by_cause_rank_ns");
			jsonw_obj_begin(w);
			for (int c = 0; c < IDLE_NR_CAUSES; c++)
				num(w, idle_cause_key[c], p->idle_rank_ns[c]);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_key(w, "phases");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < p->nr_phases; i++) {
		const struct scaling_phase *ph = &p->phases[i];

		jsonw_obj_begin(w);
		jsonw_key(w, "path");
		jsonw_str(w, ph->path);
		num(w, "base_ns", ph->base_ns);
		num(w, "new_ns", ph->new_ns);
		num(w, "ideal_ns", ph->ideal_ns);
		num(w, "speedup", ph->speedup);
		num(w, "efficiency", ph->efficiency);
		jsonw_key(w, "not_shrunk");
		jsonw_bool(w, ph->not_shrunk);
		num(w, "loss_rank_ns", ph->loss_rank_ns);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void scaling_json(struct buf *out, const struct scaling *sc)
{
	struct jsonw w;

	jsonw_init(&w, out, 0);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "schema");
	jsonw_str(&w, "vtrace.scaling/1");
	jsonw_key(&w, "scaling");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "mode");
	jsonw_str(&w, sc->weak ? "weak" : "strong");
	jsonw_key(&w, "mode_forced");
	jsonw_bool(&w, sc->forced);
	jsonw_key(&w, "base");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "input");
	jsonw_str(&w, sc->base_label);
	jsonw_key(&w, "ranks");
	jsonw_int(&w, sc->base_ranks);
	workload(&w, &sc->base_wl);
	num(&w, "time_ns", sc->base_time_ns);
	jsonw_obj_end(&w);
	jsonw_key(&w, "points");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < sc->nr_points; i++)
		point_json(&w, &sc->points[i]);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	buf_addc(out, '\n');
}
