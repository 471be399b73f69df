/*
 * test_field: every entry of every field table (report_fields.h) goes
 * through the real report: written by report_to_json(), read back by
 * report_read(), and, where it has a column, written by render_csv().
 * Each field holds a value no other field holds, so an entry with the
 * wrong offset, type or key reads back wrong; then each nullable field
 * is null, which must come back null and leave an empty cell.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csv_fields.h"
#include "field.h"
#include "metric.h"
#include "render.h"
#include "report.h"
#include "report_fields.h"
#include "report_read.h"

/*
 * Where a table's rows live in a rank (or the report: run), or the one
 * object of the table (one), and its CSV file.
 */
static const struct {
	const struct field_table *t;
	size_t rows, n;
	const char *csv;
	int run, one;			/* one: 1 an object of the rank, 2 keys of the rank */
} places[] = {
#define PLACE(t, rows, n, csv) \
	{ &t, offsetof(struct report_rank, rows), offsetof(struct report_rank, n), csv, 0, 0 }
#define RUN_PLACE(t, rows, n, csv) \
	{ &t, offsetof(struct report, rows), offsetof(struct report, n), csv, 1, 0 }
#define ONE_PLACE(t, obj) { &t, offsetof(struct report_rank, obj), 0, NULL, 0, 1 }
#define RUN_ONE_PLACE(t, obj) { &t, offsetof(struct report, obj), 0, NULL, 1, 1 }
	/* keys of the rank itself: its fields are copied into the rank */
#define RANK_KEYS(t) { &t, 0, 0, NULL, 0, 2 }
	PLACE(kernel_fields, kernels, nr_kernels, "kernels.csv"),
	PLACE(phase_fields, phases, nr_phases, "phases.csv"),
	PLACE(memory_fields, memory, nr_memory, NULL),
	PLACE(cpu_op_fields, cpu_ops, nr_cpu_ops, "cpu_ops.csv"),
	PLACE(op_perf_fields, ops_perf, nr_ops_perf, "ops_perf.csv"),
	PLACE(comm_fields, comm, nr_comm, NULL),
	PLACE(idle_gap_fields, idle.top, idle.nr_top, "idle_gaps.csv"),
	PLACE(generation_fields, throughput.generations, throughput.nr_generations, NULL),
	RUN_PLACE(collective_fields, collectives, nr_collectives, "collectives.csv"),
	RUN_PLACE(stat_fields, cross_rank, nr_cross_rank, "cross_rank.csv"),
	RUN_PLACE(straggler_fields, stragglers, nr_stragglers, NULL),
	RUN_PLACE(suggestion_fields, suggestions, nr_suggestions, "suggestions.csv"),
	ONE_PLACE(steps_fields, steps),
	ONE_PLACE(device_fields, device),
	ONE_PLACE(throughput_fields, throughput),
	ONE_PLACE(perf_fields, perf),
	ONE_PLACE(gpu_fields, gpu),
	/* the histogram's first bucket (it has IDLE_HIST_BUCKETS) */
	ONE_PLACE(idle_bucket_fields, idle.hist[0]),
	RANK_KEYS(clock_fields),
	RANK_KEYS(input_fields),
	RANK_KEYS(rank_fields),
	RUN_ONE_PLACE(run_fields, run),
	{ &workload_fields, 0, 0, NULL, 1, 2 },	/* keys of the report itself */
	{ &straggler_rule_fields, 0, 0, NULL, 1, 2 },
#undef PLACE
#undef RUN_PLACE
#undef ONE_PLACE
#undef RUN_ONE_PLACE
#undef RANK_KEYS
};

static char tmpdir[] = "/tmp/test_field.XXXXXX";

#define AT(T, row, f) (*(T *)((char *)(row) + (f)->off))
#define AUX(T, row, f) (*(T *)((char *)(row) + (f)->aux))

/* A value for each field of t in row that no other field holds. */
static void fill(const struct field_table *t, void *row, int seed, struct arena *a)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		int64_t *v;
		char s[64];

		switch (f->type) {
		case FT_I64:
			AT(int64_t, row, f) = 1000 * seed + 7 * (int64_t)i + 1;
			break;
		case FT_F64:
			AT(double, row, f) = seed + (double)i + 0.25;
			break;
		case FT_STR:
			snprintf(s, sizeof(s), "v%d_%zu", seed, i);
			AT(const char *, row, f) = arena_strndup(a, s, strlen(s));
			break;
		case FT_BOOL:
			AT(int, row, f) = 1;
			break;
		case FT_INT:
			AT(int, row, f) = 1;	/* a phase of depth 1 keeps its spans */
			break;
		case FT_ENUM:
			AT(int, row, f) = (int)f->per - 1;
			break;
		case FT_I64S:
			v = arena_alloc(a, 2 * f->per * sizeof(*v));
			for (unsigned k = 0; k < 2 * f->per; k++)
				v[k] = 100000 * seed + 100 * (int64_t)i + k;
			AT(int64_t *, row, f) = v;
			AUX(size_t, row, f) = 2;
			break;
		case FT_OBJ:
			AUX(int, row, f) = 1;
			fill(f->sub, (char *)row + f->off, seed + 1, a);
			break;
		case FT_STRS: {
			const char **sv = arena_alloc(a, 2 * sizeof(*sv));

			for (int k = 0; k < 2; k++) {
				snprintf(s, sizeof(s), "v%d_%zu_%d", seed, i, k);
				sv[k] = arena_strndup(a, s, strlen(s));
			}
			AT(const char **, row, f) = sv;
			AUX(size_t, row, f) = 2;
			break;
		}
		case FT_TAGS: {
			struct report_tag *tv = arena_alloc(a, 2 * sizeof(*tv));

			for (int k = 0; k < 2; k++) {
				snprintf(s, sizeof(s), "k%d_%zu_%d", seed, i, k);
				tv[k].key = arena_strndup(a, s, strlen(s));
				snprintf(s, sizeof(s), "v%d_%zu_%d", seed, i, k);
				tv[k].value = arena_strndup(a, s, strlen(s));
			}
			AT(struct report_tag *, row, f) = tv;
			AUX(size_t, row, f) = 1 + i % 2;
			break;
		}
		case FT_COUNTS: {
			struct report_count *cv = arena_alloc(a, 2 * sizeof(*cv));

			for (int k = 0; k < 2; k++) {
				snprintf(s, sizeof(s), "k%d_%zu_%d", seed, i, k);
				cv[k].key = arena_strndup(a, s, strlen(s));
				cv[k].n = 1000 * seed + 10 * (int64_t)i + k;
			}
			AT(struct report_count *, row, f) = cv;
			AUX(size_t, row, f) = 1 + i % 2;
			break;
		}
		case FT_GROUP:
			fill(f->sub, row, seed + 1, a);
			break;
		case FT_F64S: {
			/* a null (NaN) between numbers: the reader keeps its place */
			double *dv = arena_alloc(a, 3 * f->per * sizeof(*dv));

			for (unsigned k = 0; k < 3 * f->per; k++)
				dv[k] = k % 3 == 1 ? NAN : seed + 0.01 * (double)i + k + 0.5;
			AT(double *, row, f) = dv;
			AUX(size_t, row, f) = 3;
			break;
		}
		case FT_ROWS: {
			char *rv = arena_alloc(a, 2 * f->sub->size);

			memset(rv, 0, 2 * f->sub->size);
			for (int k = 0; k < 2; k++)
				fill(f->sub, rv + k * f->sub->size, seed + 10 * (k + 1), a);
			AT(void *, row, f) = rv;
			AUX(size_t, row, f) = 2;
			break;
		}
		}
	}
}

/* Every nullable field of t in row null. */
static void nullify(const struct field_table *t, void *row)
{
	for (size_t i = 0; i < t->n; i++)
		if (!(t->f[i].flags & FF_NONNULL))
			field_null(&t->f[i], row);
}

/* 1 when field f holds the same in rows a and b (NaN is NaN). */
static int same(const struct field *f, void *a, void *b)
{
	size_t n;

	switch (f->type) {
	case FT_I64:
		return AT(int64_t, a, f) == AT(int64_t, b, f);
	case FT_F64:
		return AT(double, a, f) == AT(double, b, f) ||
		       (isnan(AT(double, a, f)) && isnan(AT(double, b, f)));
	case FT_STR:
		if (!AT(const char *, a, f) || !AT(const char *, b, f))
			return AT(const char *, a, f) == AT(const char *, b, f);
		return !strcmp(AT(const char *, a, f), AT(const char *, b, f));
	case FT_BOOL:
	case FT_INT:
	case FT_ENUM:
		return AT(int, a, f) == AT(int, b, f);
	case FT_I64S:
		if (f->flags & FF_OMIT && (!AT(int64_t *, a, f) || !AT(int64_t *, b, f)))
			return AT(int64_t *, a, f) == AT(int64_t *, b, f);
		n = AUX(size_t, a, f);
		return n == AUX(size_t, b, f) &&
		       (!n || !memcmp(AT(int64_t *, a, f), AT(int64_t *, b, f),
				      n * f->per * sizeof(int64_t)));
	case FT_STRS:
		n = AUX(size_t, a, f);
		if (n != AUX(size_t, b, f))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(AT(const char **, a, f)[i], AT(const char **, b, f)[i]))
				return 0;
		return 1;
	case FT_TAGS:
		n = AUX(size_t, a, f);
		if (n != AUX(size_t, b, f))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(AT(struct report_tag *, a, f)[i].key,
				   AT(struct report_tag *, b, f)[i].key) ||
			    strcmp(AT(struct report_tag *, a, f)[i].value,
				   AT(struct report_tag *, b, f)[i].value))
				return 0;
		return 1;
	case FT_COUNTS:
		n = AUX(size_t, a, f);
		if (n != AUX(size_t, b, f))
			return 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(AT(struct report_count *, a, f)[i].key,
				   AT(struct report_count *, b, f)[i].key) ||
			    AT(struct report_count *, a, f)[i].n !=
				    AT(struct report_count *, b, f)[i].n)
				return 0;
		return 1;
	case FT_GROUP:
		for (size_t i = 0; i < f->sub->n; i++)
			if (!same(&f->sub->f[i], a, b))
				return 0;
		return 1;
	case FT_OBJ:
		if (AUX(int, a, f) != AUX(int, b, f))
			return 0;
		for (size_t i = 0; AUX(int, a, f) && i < f->sub->n; i++)
			if (!same(&f->sub->f[i], (char *)a + f->off, (char *)b + f->off))
				return 0;
		return 1;
	case FT_F64S:
		n = AUX(size_t, a, f) * f->per;
		if (n != AUX(size_t, b, f) * f->per)
			return 0;
		for (size_t i = 0; i < n; i++) {
			double x = AT(double *, a, f)[i], y = AT(double *, b, f)[i];

			if (x != y && !(isnan(x) && isnan(y)))
				return 0;
		}
		return 1;
	case FT_ROWS:
		n = AUX(size_t, a, f);
		if (n != AUX(size_t, b, f))
			return 0;
		for (size_t k = 0; k < n; k++)
			for (size_t i = 0; i < f->sub->n; i++)
				if (!same(&f->sub->f[i], AT(char *, a, f) + k * f->sub->size,
					  AT(char *, b, f) + k * f->sub->size))
					return 0;
		return 1;
	}
	return 0;
}

/* What the CSV cell of f in row should read. */
static void cell(const struct field *f, void *row, char *out, size_t n)
{
	out[0] = '\0';
	switch (f->type) {
	case FT_I64:
		if (AT(int64_t, row, f) != INT64_MIN)
			snprintf(out, n, "%" PRId64, AT(int64_t, row, f));
		break;
	case FT_F64:
		if (isfinite(AT(double, row, f)))
			snprintf(out, n, "%.17g", AT(double, row, f));
		break;
	case FT_STR:
		if (AT(const char *, row, f))
			snprintf(out, n, "\"%s\"", AT(const char *, row, f));
		break;
	case FT_BOOL:
	case FT_INT:
		snprintf(out, n, "%d", AT(int, row, f));
		break;
	case FT_ENUM:
		snprintf(out, n, "\"%s\"", f->names[AT(int, row, f)]);
		break;
	case FT_I64S:
	case FT_OBJ:
	case FT_STRS:
	case FT_TAGS:
	case FT_COUNTS:
	case FT_GROUP:
	case FT_F64S:
	case FT_ROWS:
		break;
	}
}

/* Field k (from 0) of a CSV line, into out. */
static void nth(const char *line, size_t k, char *out, size_t n)
{
	const char *end;

	for (; k && line; k--)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	if (!line) {
		snprintf(out, n, "(no field)");
		return;
	}
	end = line + strcspn(line, ",\r\n");
	snprintf(out, n, "%.*s", (int)(end - line), line);
}

/* Table p's rows in report r, *n of them. */
static void *rows_of(struct report *r, size_t p, size_t *n)
{
	char *at = places[p].run ? (char *)r : (char *)&r->ranks[0];

	if (places[p].one) {
		*n = 1;
		return at + places[p].rows;
	}
	*n = *(size_t *)(at + places[p].n);
	return *(void **)(at + places[p].rows);
}

static size_t width(const struct field *f);

/* The fields of t (and of its groups) from row into at, the same struct. */
static void copy_fields(const struct field_table *t, char *at, const char *row)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];

		if (f->type == FT_GROUP) {
			copy_fields(f->sub, at, row);
			continue;
		}
		memcpy(at + f->off, row + f->off, width(f));
		/* and its count */
		if (f->type == FT_I64S || f->type == FT_STRS || f->type == FT_TAGS ||
		    f->type == FT_COUNTS || f->type == FT_F64S || f->type == FT_ROWS)
			memcpy(at + f->aux, row + f->aux, sizeof(size_t));
	}
}

/* Put row as table p's one row into report r. */
static void place(struct report *r, size_t p, void *row)
{
	char *at = places[p].run ? (char *)r : (char *)&r->ranks[0];
	const struct field_table *t = places[p].t;

	if (places[p].one == 2) {
		copy_fields(t, at, row);
		return;
	}
	if (places[p].one) {
		memcpy(at + places[p].rows, row, places[p].t->size);
		return;
	}
	*(size_t *)(at + places[p].n) = 1;
	*(void **)(at + places[p].rows) = row;
}

/* Row `line` (from 0) of CSV table csv holds row of t, after the rank 3 unless run. */
static void csv_row_check(const struct field_table *t, const char *csv, int run, size_t line,
			  void *row, const char *what)
{
	char path[256], text[8192], want[128], got[128], col[64];
	const char *data;
	size_t len;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, csv);
	fp = fopen(path, "rb");
	len = fp ? fread(text, 1, sizeof(text) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	text[len] = '\0';
	data = text;
	for (size_t k = 0; data && k <= line; k++)
		data = strstr(data, "\r\n") ? strstr(data, "\r\n") + 2 : NULL;
	if (!CHECKF(data && *data, "%s: %s has no row %zu", what, path, line))
		return;
	nth(data, 0, got, sizeof(got));
	CHECKF(run || !strcmp(got, "3"), "%s: %s: the rank column reads '%s'", what, t->name, got);
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		size_t k;

		if (!f->csv)
			continue;
		/* the column of that name in the header */
		for (k = 0;; k++) {
			nth(text, k, col, sizeof(col));
			if (!strcmp(col, "(no field)") ||
			    !strcmp(col, f->csv_key ? f->csv_key : f->key))
				break;
		}
		CHECKF(strcmp(col, "(no field)"), "%s: %s.%s has no column", what, t->name, f->key);
		cell(f, row, want, sizeof(want));
		nth(data, k, got, sizeof(got));
		CHECKF(!strcmp(got, want), "%s: %s.%s: CSV cell '%s', want '%s'", what, t->name,
		       f->key, got, want);
	}
}

static void csv_check(size_t p, void *row, const char *what)
{
	csv_row_check(places[p].t, places[p].csv, places[p].run, 0, row, what);
}

/*
 * Read json lean: table p, its row row written there, has no rows if it is
 * FF_LEAN, else its FF_LEAN fields read as null and the others as written.
 */
static void lean_check(size_t p, void *row, const struct buf *json, const char *what)
{
	const struct field_table *t = places[p].t;
	struct report back;
	struct err e = { 0 };
	size_t n;
	void *got;

	report_init(&back, "vanalyze");
	if (!CHECKF(report_read(&back, json->data, json->len, REPORT_READ_RUN | REPORT_READ_LEAN,
				&e) == REPORT_READ_OK, "lean %s: %s: %s", what, t->name, e.msg) ||
	    !CHECK(back.nr_ranks == 2))
		goto out;
	got = rows_of(&back, p, &n);
	if (t->flags & FF_LEAN) {
		CHECKF(n == 0, "lean %s: %s: %zu rows read", what, t->name, n);
		goto out;
	}
	for (size_t i = 0; n == 1 && i < t->n; i++) {
		const struct field *f = &t->f[i];

		if (f->flags & FF_LEAN)
			CHECKF(AT(void *, got, f) == NULL, "lean %s: %s.%s was read", what, t->name,
			       f->key);
		else
			CHECKF(same(f, row, got), "lean %s: %s.%s does not read back", what,
			       t->name, f->key);
	}
out:
	report_release(&back);
}

/* Two ranks, the first with one row of table p: written, read back and compared, and as CSV. */
static void round_trip(size_t p, int nulls)
{
	const struct field_table *t = places[p].t;
	const char *what = nulls ? "null" : "value";
	struct report r, back;
	struct report_rank *rk;
	struct err e = { 0 };
	struct buf json;
	size_t n;
	void *row;

	report_init(&r, "vanalyze");
	report_init(&back, "vanalyze");
	buf_init(&json);
	rk = report_add_rank(&r);
	rk->rank = 3;
	rk->source = rk->path = "rank3.json";
	rk->format = "kineto";
	rk->complete = rk->analysed = rk->has_phases = rk->has_throughput = 1;
	rk->steps.pattern = "ProfilerStep#*";
	report_idle_null(&rk->idle);
	rk->idle.window = "steps";
	/* a second rank: cross_rank is written for two or more */
	rk = report_add_rank(&r);
	rk->rank = 4;
	rk->source = rk->path = "rank4.json";
	rk->format = "kineto";
	row = arena_alloc(&r.arena, t->size);
	memset(row, 0, t->size);
	fill(t, row, 1 + (int)p, &r.arena);
	if (nulls)
		nullify(t, row);
	place(&r, p, row);

	report_to_json(&r, &json);
	if (!CHECKF(report_read(&back, json.data, json.len, REPORT_READ_RUN, &e) == REPORT_READ_OK,
		    "%s: %s: %s", what, t->name, e.msg))
		goto out;
	CHECK_EQ_INT(back.nr_ranks, 2);
	if (back.nr_ranks == 2) {
		void *got = rows_of(&back, p, &n);

		CHECKF(n == 1, "%s: %s: %zu rows read", what, t->name, n);
		for (size_t i = 0; n == 1 && i < t->n; i++)
			CHECKF(same(&t->f[i], row, got), "%s: %s.%s does not read back", what,
			       t->name, t->f[i].key);
	}
	lean_check(p, row, &json, what);
	CHECKF(!render_csv(&r, tmpdir, &e), "%s: %s", what, e.msg);
	if (places[p].csv)
		csv_check(p, row, what);
out:
	buf_release(&json);
	report_release(&back);
	report_release(&r);
}

/*
 * The tables of rows that only CSV has: steps.csv a row per step, idle.csv
 * the window's figures and then the rest's, null (empty cells) here.
 */
static void csv_only_tables(void)
{
	static int64_t durations[] = { 1100, 2200, 3300 };
	struct csv_step_row step;
	struct csv_idle_row part;
	struct report_rank *rk;
	struct err e = { 0 };
	struct report r;

	report_init(&r, "vanalyze");
	rk = report_add_rank(&r);
	rk->rank = 3;
	rk->source = rk->path = "rank3.json";
	rk->complete = rk->analysed = rk->has_phases = 1;
	rk->steps.durations_ns = durations;
	rk->steps.nr_durations = 3;
	rk->steps.warmup = 1;
	report_idle_null(&rk->idle);
	rk->idle.window = "trace";
	memset(&part, 0, sizeof(part));
	fill(&csv_idle_fields, &part, 7, &r.arena);
	/* the part and window cells are the rank's, not the row's own */
	part.part = "window";
	part.window = "trace";
	rk->idle.in = part.p;
	if (!CHECKF(!render_csv(&r, tmpdir, &e), "CSV-only tables: %s", e.msg))
		goto out;
	for (size_t k = 0; k < 3; k++) {
		step = (struct csv_step_row){ (int64_t)k, durations[k], k == 0 };
		csv_row_check(&csv_step_fields, "steps.csv", 0, k, &step, "CSV-only");
	}
	csv_row_check(&csv_idle_fields, "idle.csv", 0, 0, &part, "CSV-only");
	part.part = "outside";
	part.p = rk->idle.outside;	/* null: empty cells */
	csv_row_check(&csv_idle_fields, "idle.csv", 0, 1, &part, "CSV-only");
out:
	report_release(&r);
}

/*
 * perf.families names only the families with rows (time_ns not 0), and
 * the MFU arrays keep their nulls in place.
 */
static void perf_written(void)
{
	static double flops[] = { 1.5, 2.5 }, mfu[] = { NAN, 0.25 };
	struct report_rank *rk;
	struct err e = { 0 };
	struct report r, back;
	struct buf json;

	report_init(&r, "vanalyze");
	report_init(&back, "vanalyze");
	buf_init(&json);
	rk = report_add_rank(&r);
	rk->source = rk->path = "rank0.json";
	rk->complete = rk->analysed = 1;
	report_idle_null(&rk->idle);
	rk->perf.step_flops = flops;
	rk->perf.step_mfu = mfu;
	rk->perf.nr_steps = 2;
	rk->perf.families[0] = (struct report_perf_family){ 10, 0.5, "mm", 0.75 };
	rk->perf.families[2] = (struct report_perf_family){ 20, 0.25, "conv2d", 0.125 };
	/* perf_peak.c files operators by category, the report names the family */
	for (size_t i = 0; i < REPORT_PERF_FAMILIES; i++)
		CHECKF(!strcmp(report_perf_family_name(i), category_family(report_perf_family(i))),
		       "family %zu", i);
	report_to_json(&r, &json);
	CHECK(json.data && strstr(json.data, "\"gemm\"") && strstr(json.data, "\"conv\""));
	CHECK(json.data && !strstr(json.data, "\"attention\""));
	if (!CHECKF(report_read(&back, json.data, json.len, REPORT_READ_RUN, &e) == REPORT_READ_OK,
		    "perf: %s", e.msg))
		goto out;
	CHECK(back.ranks[0].perf.nr_steps == 2 && isnan(back.ranks[0].perf.step_mfu[0]) &&
	      back.ranks[0].perf.step_mfu[1] == 0.25 && back.ranks[0].perf.step_flops[1] == 2.5);
	CHECK(back.ranks[0].perf.families[1].time_ns == 0 &&
	      back.ranks[0].perf.families[2].time_ns == 20 &&
	      !strcmp(back.ranks[0].perf.families[2].top, "conv2d"));
out:
	buf_release(&json);
	report_release(&back);
	report_release(&r);
}

/* The bytes field f takes in its row. */
static size_t width(const struct field *f)
{
	switch (f->type) {
	case FT_I64:
		return sizeof(int64_t);
	case FT_F64:
		return sizeof(double);
	case FT_STR:
		return sizeof(const char *);
	case FT_BOOL:
	case FT_INT:
	case FT_ENUM:
		return sizeof(int);
	case FT_I64S:
		return sizeof(int64_t *);
	case FT_OBJ:
		return f->sub->size;
	case FT_STRS:
		return sizeof(const char **);
	case FT_TAGS:
		return sizeof(struct report_tag *);
	case FT_COUNTS:
		return sizeof(struct report_count *);
	case FT_GROUP:
		return 0;	/* its fields are the row's: see disjoint() */
	case FT_F64S:
		return sizeof(double *);
	case FT_ROWS:
		return sizeof(void *);
	}
	return 0;
}

/* The fields of t with those of its groups in their place, into out (room for 64). */
static size_t flat(const struct field_table *t, const struct field **out, size_t n)
{
	for (size_t i = 0; i < t->n && n < 64; i++)
		if (t->f[i].type == FT_GROUP)
			n = flat(t->f[i].sub, out, n);
		else
			out[n++] = &t->f[i];
	return n;
}

/* 1 when f has a count of its own at aux. */
static int counted(const struct field *f)
{
	return ((f->type == FT_I64S || f->type == FT_F64S) && !(f->flags & FF_SAME_N)) ||
	       f->type == FT_STRS || f->type == FT_TAGS || f->type == FT_COUNTS ||
	       f->type == FT_ROWS;
}

/*
 * No two fields of t (its groups' among them) share a byte, nor two
 * counts, and each lies inside the row.
 */
static void disjoint(const struct field_table *t)
{
	const struct field *all[64];
	size_t n = flat(t, all, 0);

	for (size_t i = 0; i < n; i++) {
		const struct field *f = all[i];

		for (size_t k = 0; counted(f) && k < i; k++)
			CHECKF(!counted(all[k]) || all[k]->aux != f->aux,
			       "%s.%s and %s share their count", t->name, f->key, all[k]->key);

		CHECKF(f->off + width(f) <= t->size, "%s.%s lies outside the row", t->name, f->key);
		for (size_t k = 0; k < i; k++) {
			const struct field *g = all[k];

			CHECKF(f->off + width(f) <= g->off || g->off + width(g) <= f->off,
			       "%s.%s and %s share their place", t->name, f->key, g->key);
		}
		if (f->type == FT_OBJ || f->type == FT_ROWS)
			disjoint(f->sub);
	}
}

/*
 * Each table is placed above, its fields do not overlap, and its CSV
 * columns are numbered 1, 2, ... once each.
 */
static void tables_known(void)
{
	for (size_t i = 0; report_field_tables[i]; i++) {
		const struct field_table *t = report_field_tables[i];
		size_t p = 0;
		int max = 0, seen[64] = { 0 };

		while (p < sizeof(places) / sizeof(places[0]) && places[p].t != t)
			p++;
		if (!CHECKF(p < sizeof(places) / sizeof(places[0]), "table %s is not tested",
			    t->name))
			continue;
		disjoint(t);
		for (size_t k = 0; k < t->n; k++) {
			int c = t->f[k].csv;

			if (!CHECKF(c >= 0 && c < 64 && !seen[c] + !c, "%s.%s: column %d twice",
				    t->name, t->f[k].key, c))
				continue;
			seen[c] = 1;
			max = c > max ? c : max;
		}
		for (int c = 1; c <= max; c++)
			CHECKF(seen[c], "%s: no column %d", t->name, c);
		CHECKF(!max || places[p].csv, "%s has CSV columns: name its file above", t->name);
	}
}

/* The CSV tables render_csv() wrote, and their directory. */
static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	char path[512];

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}

/*
 * Each catalogue entry that reads a field by its offset (METRIC_FIELD_*)
 * names the key its table writes there: "gpu.busy_ns" reads gpu_fields'
 * busy_ns, in the object the place says.
 */
static void catalogue_reads_its_key(void)
{
	for (size_t i = 0; i < metric_nr; i++) {
		const struct metric_def *d = &metric_table[i];
		const char *dot = strrchr(d->path, '.');
		int found = 0;

		if (d->store != FIELD_I64 && d->store != FIELD_F64)
			continue;
		for (size_t p = 0; p < sizeof(places) / sizeof(places[0]); p++) {
			const struct field_table *t = places[p].t;
			size_t n = strlen(t->name);

			if (places[p].one != 1 || strncmp(d->path, t->name, n) ||
			    d->path[n] != '.' || d->field < places[p].rows ||
			    d->field >= places[p].rows + t->size)
				continue;
			found = 1;
			CHECKF(dot && !strcmp(field_key_at(t, d->field - places[p].rows), dot + 1),
			       "%s reads %s.%s", d->path, t->name,
			       field_key_at(t, d->field - places[p].rows));
		}
		CHECKF(found, "%s: no table holds the field it reads", d->path);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "test_field: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	tables_known();
	catalogue_reads_its_key();
	csv_only_tables();
	perf_written();
	for (size_t p = 0; p < sizeof(places) / sizeof(places[0]); p++) {
		round_trip(p, 0);
		round_trip(p, 1);
	}
	remove_tmpdir();
	return check_done("test_field");
}
