/*
 * vaggregate: merge the reports of many ranks and nodes into one.
 *
 * The reduce step of a map/reduce over a cluster: vanalyze writes one
 * report per rank file wherever the ranks ran, and vaggregate reads them
 * back (lib/model/report_read.c), merges their ranks (lib/stats/merge.c),
 * and computes cross-rank statistics, stragglers and suggestions with the
 * code vanalyze runs on multi-rank input (lib/stats/crossrank.c,
 * lib/stats/suggest.c), so one vanalyze over every trace and vanalyze per
 * trace followed by vaggregate agree.  main() parses options, gathers the
 * inputs, and picks the exit code; it analyses nothing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "collectives.h"
#include "crossrank.h"
#include "find.h"
#include "gaps.h"
#include "grow.h"
#include "log.h"
#include "merge.h"
#include "report_read.h"
#include "run_info.h"
#include "runs.h"
#include "render.h"
#include "report.h"
#include "suggest.h"
#include "term.h"
#include "term_vaggregate.h"

static const char usage[] =
	"usage: vaggregate [options] --reports_dir DIR\n"
	"       vaggregate [options] REPORT|DIR...\n"
	"\n"
	"Merge the reports vanalyze wrote for single ranks (or groups of ranks) into\n"
	"one report of the whole run: every rank, with cross-rank statistics (min,\n"
	"max, avg, median, stddev and the ranks holding min and max), stragglers and\n"
	"suggestions computed as vanalyze computes them for many traces at once.\n"
	"This is the reduce step when each node analyses its own ranks:\n"
	"\n"
	"  vanalyze -q --json reports/rank_3/report.json trace-rank3.json.gz   # map\n"
	"  vaggregate --reports_dir reports --out merged                       # reduce\n"
	"\n"
	"Inputs:\n"
	"      --reports_dir DIR  every *.json and *.json.gz file below DIR, at any\n"
	"                     depth, that is a vtrace report (\"schema\":\n"
	"                     \"vtrace.report/1\"); other JSON there is passed over\n"
	"                     with a note (repeatable)\n"
	"  REPORT|DIR         a report file, or a directory as with --reports_dir;\n"
	"                     a file named here that is no report is an error\n"
	"\n"
	"Outputs (the summary goes to stdout unless -q or --json is '-'):\n"
	CLI_HELP_OUTPUTS
	"      --full         the merged report.json keeps every rank's tables\n"
	"                     (kernels, phases, cpu_ops, steps, generations,\n"
	"                     collective instances, samples); without it each rank\n"
	"                     keeps its scalars and the run its cross-rank\n"
	"                     statistics, stragglers, collectives and suggestions\n"
	"      --details      the summary gives every finding in full (advice,\n"
	"                     evidence, time at stake)\n"
	"\n"
	"Checks:\n"
	"      --expect-ranks N  the run has ranks 0 to N-1: name every missing one\n"
	"                     and exit 1 (default: the world_size the traces\n"
	"                     recorded, when the reports agree on one; without\n"
	"                     either, nothing is checked)\n"
	"\n"
	"Other options:\n"
	CLI_HELP_THRESHOLD
	CLI_HELP_COMMON
	"\n"
	"Merging: ranks are sorted by rank number, then source trace.  A rank read\n"
	"twice (same rank number and same source, e.g. a report copied into two\n"
	"places) is counted once, with a note.  The same rank number from two\n"
	"different traces is kept twice, each with a warning, as vanalyze does.\n"
	"\n"
	"Exit status: 0 when every report was merged; 1 when a report was skipped\n"
	"(cut off, not JSON, a missing field, another report schema, no ranks, a\n"
	"named file that is no report, unreadable) -- the rest is still merged and\n"
	"written --, when ranks of the run are missing, when there was no report at\n"
	"all, or when an output could not be written; 2 for a usage error.\n"
	"\n"
	"Examples:\n"
	"  vaggregate --reports_dir reports --out merged\n"
	"  vaggregate --json all.json node*/report.json\n";

struct opts {
	struct cli cli;
	int full;			/* --full: the rank tables in report.json */
	int details;			/* --details: the findings in full in the summary */
	int64_t expect_ranks;		/* --expect-ranks; 0: the reports' world_size */
	struct pathlist dirs;		/* --reports_dir, in order */
};

/* Returns -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		CLI_OPTS_COMMON,
		CLI_OPTS_OUTPUTS,
		CLI_OPT_THRESHOLD,
		{ "reports_dir", required_argument, NULL, 'R' },
		{ "reports-dir", required_argument, NULL, 'R' },
		{ "full", no_argument, NULL, 'F' },
		{ "details", no_argument, NULL, 'D' },
		{ "expect-ranks", required_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cli_init(&o->cli, usage, term_thresholds);
	o->cli.longopts = longopts;
	o->full = 0;
	o->details = 0;
	o->expect_ranks = 0;
	pathlist_init(&o->dirs);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'R':
			if (pathlist_add(&o->dirs, optarg)) {
				log_msg("out of memory");
				return EXIT_FAIL;
			}
			continue;
		case 'F':
			o->full = 1;
			continue;
		case 'D':
			o->details = 1;
			continue;
		case 'E': {
			char *end;
			long long v = strtoll(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > (1LL << 31))
				return cli_usage_error("--expect-ranks wants a rank count from 1, "
						       "not '%s'", optarg);
			o->expect_ranks = v;
			continue;
		}
		}
		switch (cli_parse(&o->cli, c, optarg, argv[optind - 1])) {
		case CLI_TAKEN:
			break;
		case CLI_EXIT_OK:
			return EXIT_OK;
		case CLI_EXIT_USAGE:
			return EXIT_USAGE;
		case CLI_OTHER:
			return cli_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc && o->dirs.n == 0)
		return cli_usage_error("no reports given: use --reports_dir DIR or name report "
				       "files");
	return -1;
}

/* Flag the files added since *done as named (1) or found in a directory (0). */
static void mark(unsigned char **named, size_t *cap, size_t *done, size_t n, int flag)
{
	if (ALLOC_GROW(*named, n, *cap)) {
		log_msg("out of memory");
		exit(EXIT_FAIL);
	}
	for (; *done < n; (*done)++)
		(*named)[*done] = (unsigned char)flag;
}

/* find_reports() with a note for a directory without candidates; -1 if unreadable. */
static int walk_dir(struct pathlist *files, const char *dir)
{
	long k = find_reports(files, dir);

	if (k == 0)
		log_msg("%s: no *.json or *.json.gz files below this directory", dir);
	return k < 0 ? -1 : 0;
}

/*
 * The inputs: --reports_dir walks first, then the arguments in order (a
 * directory argument walked the same way); named[i] tells whether files[i]
 * was named on the command line.  Returns 0, or -1 when a directory could
 * not be opened (printed).
 */
static int gather(struct opts *o, int argc, char **argv, struct pathlist *files,
		  unsigned char **named)
{
	size_t cap = 0, done = 0;
	int status = 0;

	*named = NULL;
	for (size_t i = 0; i < o->dirs.n; i++)
		if (walk_dir(files, o->dirs.paths[i]))
			status = -1;
	mark(named, &cap, &done, files->n, 0);
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (walk_dir(files, argv[i]))
				status = -1;
			mark(named, &cap, &done, files->n, 0);
			continue;
		}
		if (pathlist_add(files, argv[i])) {
			log_msg("out of memory");
			exit(EXIT_FAIL);
		}
		mark(named, &cap, &done, files->n, 1);
	}
	mark(named, &cap, &done, files->n + 1, 0);	/* never NULL */
	return status;
}

/* The files this run writes, as (device, inode) where they exist already. */
struct outputs {
	dev_t dev[3];
	ino_t ino[3];
	int n;
};

static void outputs_of(const struct opts *o, struct outputs *out)
{
	const char *paths[3] = { o->cli.json, o->cli.html, NULL };
	struct buf json;
	struct stat st;

	out->n = 0;
	buf_init(&json);
	if (o->cli.out) {
		buf_printf(&json, "%s/report.json", o->cli.out);
		paths[2] = buf_ok(&json) ? json.data : NULL;
	}
	for (int i = 0; i < 3; i++) {
		if (!paths[i] || !strcmp(paths[i], "-") || stat(paths[i], &st))
			continue;
		out->dev[out->n] = st.st_dev;
		out->ino[out->n++] = st.st_ino;
	}
	buf_release(&json);
}

/*
 * Whether path is one of this run's outputs, left by an earlier run: a
 * merged report inside the reports directory would bring every rank back
 * a second time.
 */
static int is_output(const char *path, const struct outputs *out)
{
	struct stat st;

	if (!out->n || stat(path, &st))
		return 0;
	for (int i = 0; i < out->n; i++)
		if (out->dev[i] == st.st_dev && out->ino[i] == st.st_ino)
			return 1;
	return 0;
}

/*
 * Reports of vanalyze --full: their phase tables capped as vanalyze's own
 * are, after the cross-rank rows have been made of every phase.
 */
static int fold_phases(struct report *rep, int full)
{
	for (size_t i = 0; !full && i < rep->nr_ranks; i++)
		if (report_fold_phases(&rep->ranks[i], REPORT_ROWS_MAX))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct pathlist files;
	struct merge_input *in;
	size_t nr_in = 0;
	struct merge_stats st;
	struct merge_opts mo;
	struct outputs outs;
	unsigned char *named = NULL;
	struct report rep;
	struct opts o;
	int status = EXIT_OK, rc;
	int64_t world;

	log_init("vaggregate");
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0) {
		pathlist_release(&o.dirs);
		return rc;
	}
	pathlist_init(&files);
	if (gather(&o, argc, argv, &files, &named))
		status = EXIT_FAIL;
	in = calloc(files.n ? files.n : 1, sizeof(*in));
	if (!in) {
		log_msg("out of memory");
		return EXIT_FAIL;
	}
	outputs_of(&o, &outs);
	for (size_t i = 0, k = 0; i < files.n; i++) {
		/* Found in a directory only: a file named on purpose is read. */
		if (!named[i] && is_output(files.paths[i], &outs))
			continue;
		in[k].path = files.paths[i];
		in[k].named = named[i];
		nr_in = ++k;
	}
	mo.jobs = o.cli.jobs;
	mo.progress = o.cli.progress && isatty(STDERR_FILENO);
	/* The page and the CSVs draw every rank's tables: read them whole for those. */
	mo.read_flags = o.full || o.cli.html || o.cli.out ? 0 : REPORT_READ_LEAN;

	report_init(&rep, "vaggregate");
	rep.compact = !o.full;
	rep.full = o.full;
	if (merge_reports(&rep, in, nr_in, &mo, &st))
		status = EXIT_FAIL;
	if (st.skipped)
		status = EXIT_FAIL;
	/*
	 * Nothing to merge: an empty report written over the last good one
	 * would lose it for nothing.
	 */
	if (!rep.nr_ranks) {
		if (nr_in)
			log_msg("no ranks to merge: none of the %zu files read was a vtrace "
				"report; nothing written", nr_in);
		else
			log_msg("no ranks to merge: no report files found; nothing written");
		status = EXIT_FAIL;
		goto out;
	}
	gaps_drop_implausible(&rep);
	world = o.expect_ranks ? o.expect_ranks : gaps_world_size(&rep);
	if (world < 0 || gaps_report(&rep, world, o.expect_ranks ? "--expect-ranks" : "world_size"))
		status = EXIT_FAIL;
	if (runs_check(&rep) < 0)
		status = EXIT_FAIL;
	/* reports of vanalyze --full: their tables capped as vanalyze's own are */
	for (size_t i = 0; !o.full && i < rep.nr_ranks; i++) {
		report_fold_rows(&rep.ranks[i], REPORT_ROWS_MAX);
		if (report_fold_comm(&rep.ranks[i], REPORT_ROWS_MAX)) {
			log_msg("out of memory");
			status = EXIT_FAIL;
			break;
		}
	}
	if (run_info_compute(&rep) || collectives_compute(&rep) || crossrank_compute(&rep) ||
	    fold_phases(&rep, o.full) || suggest_compute(&rep, &o.cli.suggest)) {
		log_msg("out of memory computing cross-rank statistics or suggestions");
		status = EXIT_FAIL;
	}
	run_info_warn(&rep);
	if (cli_summary_on_stdout(&o.cli))
		term_vaggregate(stdout, &rep, &st, o.details);
	/*
	 * A full merged report is about as long as the reports it was made of:
	 * reserving that at once saves the copies of doubling (a quarter of a
	 * gigabyte for 4,096 ranks) and their page faults.
	 */
	if (render_outputs(&rep, &o.cli, rep.compact ? 0 : st.bytes))
		status = EXIT_FAIL;
	/* every file a line above called skipped is counted: bad ones and other JSON */
	if (st.skipped && st.other)
		log_msg("%zu of %zu files skipped and %zu other JSON file%s passed over (lines "
			"above); the other reports were merged", st.skipped, st.files, st.other,
			st.other == 1 ? "" : "s");
	else if (st.skipped)
		log_msg("%zu of %zu files skipped (lines above); the other reports were merged",
			st.skipped, st.files);
out:
	report_release(&rep);
	free(in);
	free(named);
	pathlist_release(&files);
	pathlist_release(&o.dirs);
	return status;
}
