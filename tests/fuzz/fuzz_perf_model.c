/*
 * fuzz_perf_model: libFuzzer target for the roofline's shape arguments.
 * The input is an operator name and its "Input Dims", "Input type" and
 * "Concrete Inputs" texts, separated by 0x1f as vanalyze keeps them
 * (missing fields are absent args); the texts come from any trace, so
 * every number, nesting and cut is hostile.
 *
 * Invariants: perf_model_eval always fills the call; its family is the
 * table's for the name; figures are known only for a family, and then are
 * numbers, not negative; the dtype is one of the enum's; and a second
 * evaluation of the same text gives the same figures.
 * Any broken invariant aborts, so libFuzzer keeps the input.
 */
#include <math.h>
#include <string.h>

#include "perf_model.h"

#define FUZZ_NAME "fuzz_perf_model"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Field k of s[0..n), fields separated by 0x1f: its start, length in *len; NULL when absent. */
static const char *field(const char *s, size_t n, int k, size_t *len)
{
	const char *end = s + n, *q;

	for (; k > 0; k--) {
		q = memchr(s, 0x1f, (size_t)(end - s));
		if (!q)
			return *len = 0, NULL;
		s = q + 1;
	}
	q = memchr(s, 0x1f, (size_t)(end - s));
	*len = (size_t)((q ? q : end) - s);
	return s;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *s = (const char *)data, *f[4];
	size_t len[4];
	struct perf_args a;
	struct perf_call c, again;
	const char *family;

	for (int k = 0; k < 4; k++)
		f[k] = field(s, size, k, &len[k]);
	a = (struct perf_args){ f[1], f[2], f[3], len[1], len[2], len[3] };
	memset(&c, 0xa5, sizeof(c));
	perf_model_eval(f[0], len[0], &a, &c);
	family = category_family(perf_model_family(f[0], len[0]));

	ASSERT(c.family == family, "family %s, the table says %s", c.family ? c.family : "none",
	       family ? family : "none");
	ASSERT(c.known == 0 || c.known == 1, "known %d", c.known);
	ASSERT(!c.known || c.family, "figures for an operator the table does not know");
	if (c.known)
		ASSERT(!isnan(c.flops) && !isnan(c.bytes) && c.flops >= 0 && c.bytes >= 0,
		       "flops %g bytes %g", c.flops, c.bytes);
	ASSERT((int)c.dtype >= 0 && c.dtype < PERF_NR_DTYPES, "dtype %d", (int)c.dtype);
	ASSERT(c.dtype == PERF_DTYPE_UNKNOWN || perf_dtype_name(c.dtype), "dtype without a name");

	perf_model_eval(f[0], len[0], &a, &again);
	ASSERT(again.known == c.known && again.family == c.family && again.dtype == c.dtype &&
		       (!c.known || (memcmp(&again.flops, &c.flops, sizeof(c.flops)) == 0 &&
				     memcmp(&again.bytes, &c.bytes, sizeof(c.bytes)) == 0)),
	       "a second evaluation differs");
	return 0;
}
