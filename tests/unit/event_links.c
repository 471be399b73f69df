/*
 * event_links: the device work of a trace placed at the runtime calls that
 * launched it, as vanalyze joins them, for tests/cli/089 to compare with
 * tests/oracle_links.py:
 *
 *     event_links TRACE
 *
 * reads TRACE through analyze_read() (the reader and every collector, as
 * vanalyze runs them), joins and places the launches with launches_link()
 * and launches_place(), and
 * prints one line per placed record, tab-separated:
 *
 *     LAUNCH_TS_NS  PID  TID  NAME  DEVICE_NS  PHASES_NS
 *
 * the launching call's ts, its thread's pid and tid text (the track table's
 * key), the kernel's name ("-" for other device work), the device time the
 * CPU operators count (all device work) and the time the phases count
 * (kernels only, else 0).  A tab, newline, CR or backslash in the text is
 * written \t, \n, \r or \\.  Exit 0, or 1 when the file cannot be read or
 * memory runs out.
 *
 * The operator around each launch (kctx.c's) is not printed: kctx finds it
 * by a sweep of its own operator spans over the placement, a second join.
 */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "options.h"

/* s[0..n) on stdout, escaped as the header says. */
static void put_text(const char *s, size_t n)
{
	/* the characters written escaped, and the letter after the backslash */
	static const char special[] = "\t\n\r\\", as[] = "tnr\\";

	for (size_t i = 0; i < n; i++) {
		const char *e = memchr(special, s[i], sizeof(special) - 1);

		if (e)
			printf("\\%c", as[e - special]);
		else
			putchar(s[i]);
	}
}

/* The track's "pid\x1ftid" key as "pid\ttid". */
static void put_track(const struct strtab *tracks, uint32_t id)
{
	const char *k = strtab_str(tracks, id);
	size_t n = strtab_len(tracks, id);
	const char *sep = memchr(k, '\x1f', n);
	size_t np = sep ? (size_t)(sep - k) : n;

	put_text(k, np);
	putchar('\t');
	if (sep)
		put_text(sep + 1, n - np - 1);
}

int main(int argc, char **argv)
{
	struct phase_opts opts;
	struct file_result res;
	struct placement pl = { 0 };
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: event_links TRACE\n");
		return 2;
	}
	phase_opts_init(&opts);
	file_result_init(&res, argv[1], &opts);
	analyze_read(&res, 1, 0);
	if (res.rc < 0) {
		fprintf(stderr, "event_links: %s: %s\n", argv[1], res.err.msg);
		goto out;
	}
	if (res.oom || launches_link(&res.launches, &res.calls) ||
	    launches_place(&res.launches, strtab_count(&res.tracks), &pl)) {
		fprintf(stderr, "event_links: %s: out of memory\n", argv[1]);
		goto out;
	}
	for (size_t i = 0; i < pl.n; i++) {
		const struct placed *p = &pl.v[i];

		printf("%lld\t", (long long)p->ts_ns);
		put_track(&res.tracks, p->track);
		putchar('\t');
		if (p->name)
			put_text(names_str(pl.names, p->name), names_len(pl.names, p->name));
		else
			putchar('-');
		printf("\t%lld\t%lld\n",
		       (long long)placed_dur(&pl, LAUNCH_CPUOPS, i),
		       (long long)placed_dur(&pl, LAUNCH_PHASES, i));
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	placement_release(&pl);
	file_result_release(&res);
	return rc;
}
