/*
 * test_metric: the metric catalogue and its formatter.  Every value shown
 * anywhere goes through metric_fmt(), so its edges are pinned here: three
 * significant digits at each boundary of each unit, the carry into the
 * next unit when rounding reaches 1000, binary prefixes, signs and the dash
 * for no value.  The catalogue: unique paths, families found, getters that
 * leave the gaps the report has.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "metric.h"

/* A value, its unit and flags, and the text every output shows for it. */
static const struct fmt_case {
	double v;
	enum metric_unit u;
	unsigned flags;
	const char *want;
} fmt_cases[] = {
	{ 0, UNIT_NS, 0, "0 ns" },
	{ 93, UNIT_NS, 0, "93 ns" },
	{ 999, UNIT_NS, 0, "999 ns" },
	{ 999.4, UNIT_NS, 0, "999 ns" },
	{ 999.5, UNIT_NS, 0, "1.00 \xc2\xb5s" },
	{ 93000, UNIT_NS, 0, "93.0 \xc2\xb5s" },	/* the "93.000 µs" of the issue */
	{ 93000, UNIT_NS, FMT_ASCII, "93.0 us" },
	{ 123456, UNIT_NS, 0, "123 \xc2\xb5s" },
	{ 999499, UNIT_NS, 0, "999 \xc2\xb5s" },
	{ 999500, UNIT_NS, 0, "1.00 ms" },
	{ 1234567, UNIT_NS, 0, "1.23 ms" },
	{ 12345678, UNIT_NS, 0, "12.3 ms" },
	{ 999.96e6, UNIT_NS, 0, "1.00 s" },
	{ 1.5e9, UNIT_NS, 0, "1.50 s" },
	{ 3600e9, UNIT_NS, 0, "3600 s" },
	{ -2500, UNIT_NS, 0, "-2.50 \xc2\xb5s" },
	{ 2500, UNIT_NS, FMT_SIGN, "+2.50 \xc2\xb5s" },
	{ 0, UNIT_NS, FMT_SIGN, "0 ns" },

	{ 512, UNIT_BYTES, 0, "512 B" },
	{ 1023, UNIT_BYTES, 0, "1023 B" },
	{ 1024, UNIT_BYTES, 0, "1.00 KiB" },
	{ 30575337472.0, UNIT_BYTES, 0, "28.5 GiB" },	/* the "30.6 GB" of the issue */
	{ 80.0 * 1024 * 1024 * 1024, UNIT_BYTES, 0, "80.0 GiB" },
	{ 1536.0 * 1024 * 1024 * 1024, UNIT_BYTES, 0, "1.50 TiB" },

	{ 0.457, UNIT_RATIO, 0, "45.7%" },
	{ 1, UNIT_RATIO, 0, "100%" },
	{ 0.05, UNIT_RATIO, 0, "5.00%" },
	{ 0.000147, UNIT_RATIO, 0, "0.0147%" },
	{ 0, UNIT_RATIO, 0, "0%" },
	{ -0.31, UNIT_RATIO, FMT_SIGN, "-31.0%" },
	{ 0.9996, UNIT_RATIO, 0, "100%" },

	{ 281.04, UNIT_PER_S, 0, "281/s" },
	{ 41.636, UNIT_PER_S, 0, "41.6/s" },
	{ 0.5, UNIT_FACTOR, 0, "0.500x" },
	{ 16.805, UNIT_FACTOR, 0, "16.8x" },
	{ 1845, UNIT_COUNT, 0, "1845" },
	{ 12.5, UNIT_COUNT, 0, "12.5" },
	{ 16, UNIT_NUMBER, 0, "16" },
	{ 0.123456, UNIT_NUMBER, 0, "0.123" },

	/* no value: an en dash, or '-' in ASCII text */
	{ NAN, UNIT_NS, 0, "\xe2\x80\x93" },
	{ INFINITY, UNIT_BYTES, 0, "\xe2\x80\x93" },
	{ NAN, UNIT_RATIO, FMT_ASCII, "-" },
};

static void test_fmt(void)
{
	char small[4] = "xyz";

	for (size_t i = 0; i < sizeof(fmt_cases) / sizeof(fmt_cases[0]); i++) {
		const struct fmt_case *c = &fmt_cases[i];
		char out[METRIC_FMT_MAX];

		metric_fmt(out, sizeof(out), c->v, c->u, c->flags);
		CHECKF(strcmp(out, c->want) == 0, "%.17g: got '%s', want '%s'", c->v, out, c->want);
	}
	/* a buffer too small is cut, never overrun */
	metric_fmt(small, 3, 93000, UNIT_NS, 0);
	CHECK(small[2] == '\0');
}

static void test_catalogue(void)
{
	struct report_rank r;
	double v;

	for (size_t i = 0; i < metric_nr; i++) {
		const struct metric_def *d = &metric_table[i];
		const char *star = strchr(d->path, '*');

		CHECKF(metric_find(d->path) == d || star, "%s", d->path);
		CHECKF(!star || !d->get, "%s: a family has no getter", d->path);
		CHECKF(!d->get || d->store == STORE_BY_HAND, "%s: a getter or a field", d->path);
		CHECKF(!d->csv || d->get || d->store != STORE_BY_HAND,
		       "%s: a CSV column needs a value", d->path);
		CHECKF(!(d->flags & (MF_CROSS | MF_COMPARE | MF_TERM)) || d->get ||
			       d->store != STORE_BY_HAND || star,
		       "%s", d->path);
		for (size_t k = 0; k < i; k++) {
			CHECKF(strcmp(d->path, metric_table[k].path) != 0, "%s twice", d->path);
			CHECKF(!d->csv || !metric_table[k].csv ||
				       (strcmp(metric_csv(d), metric_csv(&metric_table[k])) != 0 &&
					d->csv_col != metric_table[k].csv_col),
			       "%s: CSV column taken", d->path);
		}
	}
	CHECK(metric_find("phase:a/b c.total_ns") == metric_find("phase:*.total_ns"));
	CHECK(metric_find("memory:-1.peak_reserved")->unit == UNIT_BYTES);
	CHECK(metric_find("memory:0.reserved_share")->unit == UNIT_RATIO);
	CHECK(metric_find("kernel:.total_ns") != NULL);
	CHECK(metric_find("phase:x.total_ms") == NULL);
	CHECK(metric_find("no.such") == NULL && metric_find(NULL) == NULL);
	CHECK(metric_unit_of("no.such") == UNIT_NUMBER);
	CHECK(metric_unit_of("gpu.utilization") == UNIT_RATIO);
	CHECK(metric_find("gpu.utilization")->dir == DIR_HIGHER);
	CHECK(metric_find("span_ns")->dir == DIR_LOWER);

	/* a rank that was not analysed has its span, and none of the GPU's figures */
	memset(&r, 0, sizeof(r));
	r.span_ns = 42;
	r.gpu.utilization = 0.5;
	CHECK(metric_value(metric_find("span_ns"), &r, &v) && v == 42);
	CHECK(!metric_value(metric_find("gpu.utilization"), &r, &v));
	r.analysed = 1;
	CHECK(metric_value(metric_find("gpu.utilization"), &r, &v) && v == 0.5);
	r.gpu.utilization = NAN;
	CHECK(!metric_value(metric_find("gpu.utilization"), &r, &v));
	CHECK(!metric_value(metric_find("steps.median_ns"), &r, &v));
	CHECK(!metric_value(metric_find("throughput.fps"), &r, &v));
}

/*
 * The catalogue's names that are report keys by design are the keys the
 * field tables write: the rank's span and clock offset, the memory family's
 * fields, the idle object's figures.
 */
static void test_report_keys(void)
{
	char name[64];

	CHECK(!strcmp(MK_SPAN_NS,
		      field_key_at(&rank_fields, offsetof(struct report_rank, span_ns))));
	CHECK(!strcmp(MK_CLOCK_OFFSET_NS,
		      field_key_at(&clock_fields, offsetof(struct report_rank, clock_offset_ns))));
	CHECK(metric_find(MK_SPAN_NS) && metric_find(MK_CLOCK_OFFSET_NS));
	snprintf(name, sizeof(name), "memory:0.%s", METRIC_MEMORY_KEY(peak_allocated));
	CHECK(metric_find(name) == metric_find("memory:*.peak_allocated"));
	snprintf(name, sizeof(name), "memory:0.%s", METRIC_MEMORY_KEY(peak_reserved));
	CHECK(metric_find(name) == metric_find("memory:*.peak_reserved"));
	snprintf(name, sizeof(name), "%s.idle_ns", REPORT_KEY_IDLE);
	CHECK(metric_find(name) != NULL);
}

int main(void)
{
	test_fmt();
	test_catalogue();
	test_report_keys();
	return check_done("test_metric");
}
