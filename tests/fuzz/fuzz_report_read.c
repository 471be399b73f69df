/*
 * fuzz_report_read: libFuzzer target for jdom and report_read, the reader
 * of report files that vaggregate and vcompare take from anywhere.
 *
 * Invariants: a read that fails leaves the report as it was; error offsets
 * lie in the input; a read that succeeds writes back text that reads again
 * into the same text (the writer and the reader agree on every field).
 * vaggregate's lean, interned read (jdom_parse_skip) of the same input
 * succeeds wherever the full read does, with as many ranks, and its
 * compact form reads back.
 * Any broken invariant aborts, so libFuzzer keeps the input.
 */
#include <inttypes.h>
#include <string.h>

#include "buf.h"
#include "report_read.h"

#define FUZZ_NAME "fuzz_report_read"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The lean read of data: -1 when it fails, else its rank count; compact text reads back. */
static long lean_read(const unsigned char *data, size_t size)
{
	struct strtab names;
	struct report lean, back;
	struct buf text;
	struct err e;
	long n = -1;

	strtab_init(&names, 1);
	report_init(&lean, "vaggregate");
	report_init(&back, "vaggregate");
	buf_init(&text);
	lean.strings = &names;
	if (report_read(&lean, (const char *)data, size, REPORT_READ_LEAN, &e) != REPORT_READ_OK) {
		ASSERT(e.offset >= -1 && e.offset <= (int64_t)size, "lean: error offset %" PRId64,
		       e.offset);
		goto out;
	}
	n = (long)lean.nr_ranks;
	lean.compact = 1;
	report_to_json(&lean, &text);
	ASSERT(buf_ok(&text), "out of memory writing");
	ASSERT(report_read(&back, text.data, text.len, REPORT_READ_RUN, &e) == REPORT_READ_OK &&
	       back.nr_ranks == lean.nr_ranks && back.compact, "the compact text reads as: %s",
	       e.msg);
out:
	buf_release(&text);
	report_release(&lean);
	report_release(&back);
	strtab_release(&names);
	return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct report r, again;
	struct buf once, twice;
	struct err e;
	long lean = lean_read(data, size);
	int rc;

	report_init(&r, "vaggregate");
	report_init(&again, "vaggregate");
	buf_init(&once);
	buf_init(&twice);
	rc = report_read(&r, (const char *)data, size, REPORT_READ_RUN, &e);
	if (rc != REPORT_READ_OK) {
		ASSERT(r.nr_ranks == 0 && r.nr_cross_rank == 0 && r.nr_suggestions == 0,
		       "a failed read (%d) changed the report", rc);
		ASSERT(e.offset >= -1 && e.offset <= (int64_t)size,
		       "error offset %" PRId64, e.offset);
		goto out;
	}
	ASSERT(lean == (long)r.nr_ranks, "the lean read gave %ld ranks, the full one %zu", lean,
	       r.nr_ranks);
	report_to_json(&r, &once);
	ASSERT(buf_ok(&once), "out of memory writing");
	rc = report_read(&again, once.data, once.len, REPORT_READ_RUN, &e);
	ASSERT(rc == REPORT_READ_OK, "written back, it reads as %d: %s", rc, e.msg);
	report_to_json(&again, &twice);
	ASSERT(once.len == twice.len && !memcmp(once.data, twice.data, once.len),
	       "written twice, the texts differ");
out:
	buf_release(&once);
	buf_release(&twice);
	report_release(&r);
	report_release(&again);
	return 0;
}
