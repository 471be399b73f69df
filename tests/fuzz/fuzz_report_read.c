/*
 * fuzz_report_read: libFuzzer target for jdom and report_read, the reader
 * of report files that vaggregate and vcompare take from anywhere.
 *
 * Invariants: a read that fails leaves the report as it was; error offsets
 * lie in the input; a read that succeeds writes back text that reads again
 * into the same text (the writer and the reader agree on every field).
 * Any broken invariant aborts, so libFuzzer keeps the input.
 */
#include <inttypes.h>
#include <string.h>

#include "buf.h"
#include "report_read.h"

#define FUZZ_NAME "fuzz_report_read"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct report r, again;
	struct buf once, twice;
	struct err e;
	int rc;

	report_init(&r, "vaggregate");
	report_init(&again, "vaggregate");
	buf_init(&once);
	buf_init(&twice);
	rc = report_read(&r, (const char *)data, size, REPORT_READ_RUN, &e);
	if (rc != REPORT_READ_OK) {
		ASSERT(r.nr_ranks == 0 && r.nr_cross_rank == 0 && r.nr_suggestions == 0,
		       "a failed read (%d) changed the report", rc);
		ASSERT(e.offset >= -1 && e.offset <= (int64_t)size, "error offset %" PRId64, e.offset);
		goto out;
	}
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
