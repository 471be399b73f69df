/*
 * test_collector_filter: VTRACE_REGIONS records only the regions named in
 * it, keeps begins and ends paired around the regions it drops, and warns
 * once, in one line, about a name that never matched, with the closest
 * real name as a hint.  The warning is not repeated in a later session.
 */
#include "ctest.h"
#include "vtrace.h"

static void pipeline(void)
{
	vt_region_begin("pipeline");
	for (int step = 0; step < 3; step++) {
		vt_region_begin("denoise");
		vt_region_begin("step");		/* dropped, its child kept */
		vt_region_begin("denoise");
		vt_region_end();
		vt_region_end();
		vt_region_end();
	}
	vt_region_begin("vae_decode");
	vt_region_begin("denoise_step");	/* dropped */
	vt_region_end();
	vt_region_end();
	vt_instant("instants are not filtered");
	vt_region_end();
}

int main(void)
{
	char *dir = ctest_tmpdir(), err[4096], path[4096];
	const struct ctest_ev *outer, *inner;
	struct ctest_trace tr;
	int lines;

	unsetenv("VTRACE_DIR");
	unsetenv("VTRACE_NAME");
	unsetenv("VTRACE_RANK");
	setenv("VTRACE_REGIONS", "denoise, vae_decode,denoize_step", 1);
	ctest_stderr_begin(dir);
	vt_init(dir, "filter", 0);
	snprintf(path, sizeof(path), "%s", vt_path());
	pipeline();
	vt_shutdown();
	lines = ctest_stderr_end(err, sizeof(err));

	ctest_load(path, &tr);
	CHECK_MSG(tr.rc == 0, "file reads completely");
	CHECK_MSG(ctest_count(&tr, 'X', "denoise") == 6, "denoise kept, nested too (%zu)",
		  ctest_count(&tr, 'X', "denoise"));
	CHECK_MSG(ctest_count(&tr, 'X', "vae_decode") == 1, "vae_decode kept");
	CHECK_MSG(ctest_count(&tr, 'X', NULL) == 7, "nothing else kept (%zu regions)",
		  ctest_count(&tr, 'X', NULL));
	CHECK_MSG(ctest_count(&tr, 'i', NULL) == 1, "instants are not filtered");
	CHECK_MSG(tr.info.nr_warnings == 0, "begins and ends stay paired (%s)",
		  tr.info.nr_warnings ? tr.info.warnings[0].msg : "");
	/* The first two denoise regions to end are the inner then the outer of step 0. */
	inner = &tr.ev[0];
	outer = &tr.ev[1];
	CHECK_MSG(!strcmp(inner->name, "denoise") && !strcmp(outer->name, "denoise") &&
		      outer->ts_ns <= inner->ts_ns &&
		      inner->ts_ns + inner->dur_ns <= outer->ts_ns + outer->dur_ns,
		  "the inner denoise lies in the outer one across a dropped region");
	ctest_free(&tr);

	CHECK_MSG(lines == 1, "exactly one line on stderr (%d): %s", lines, err);
	CHECK_MSG(strstr(err, "VTRACE_REGIONS") && strstr(err, "'denoize_step'") &&
		      strstr(err, "did you mean 'denoise_step'?"),
		  "it names the misspelled entry and the likely meant name");
	CHECK_MSG(!strstr(err, "'denoise'") || strstr(err, "'denoise_step'"),
		  "names that matched are not reported");

	ctest_stderr_begin(dir);
	vt_init(dir, "again", 0);
	pipeline();
	vt_shutdown();
	lines = ctest_stderr_end(err, sizeof(err));
	CHECK_MSG(lines == 0, "no second warning in a later session (%s)", err);

	unsetenv("VTRACE_REGIONS");
	vt_init(dir, "all", 0);
	snprintf(path, sizeof(path), "%s", vt_path());
	pipeline();
	vt_shutdown();
	ctest_load(path, &tr);
	CHECK_MSG(ctest_count(&tr, 'X', NULL) == 12, "without VTRACE_REGIONS every region is kept");
	ctest_free(&tr);

	ctest_rmdir(dir);
	free(dir);
	return check_done("test_collector_filter");
}
