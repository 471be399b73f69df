/*
 * vanalyze: analyse PyTorch profiler traces of video-generation pipelines.
 *
 * main() parses options, runs analyze_run() over the inputs (run.c: reading,
 * ranks, cross-rank statistics, suggestions), and writes the report, the
 * summary and the rendered forms.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"
#include "log.h"
#include "options.h"
#include "render.h"
#include "report.h"
#include "run.h"
#include "suggest.h"
#include "term.h"
#include "term_vanalyze.h"

static const char usage[] =
	"usage: vanalyze [options] TRACE|DIR...\n"
	"\n"
	"Analyse PyTorch profiler traces (one file per rank) and report where the\n"
	"time goes.  TRACE is a Chrome/Kineto trace (.json or .json.gz, the legacy\n"
	"bare-array format too) or '-' for standard input; DIR stands for every\n"
	"*.json, *.json.gz and *.vtr file inside it.\n"
	"\n"
	"Outputs (the summary goes to stdout unless -q or an output is '-'):\n"
	CLI_HELP_OUTPUTS
	"      --top N        kernels and operators shown in the summary (default 5)\n"
	"      --ranks        the summary shows each rank's figures too\n"
	"      --all          the summary shows every phase and every rank's row\n"
	"                     (else the largest phases, and how many more; beyond 16\n"
	"                     ranks, the outliers)\n"
	"      --details      the summary gives every finding in full (advice,\n"
	"                     evidence, time at stake), and the tags that name a\n"
	"                     user or a host (username, host_name)\n"
	"      --sort KEY     the operator and kernel tables by total (default),\n"
	"                     self, device or count, as key_averages() sorts them\n"
	"\n"
	ANALYZE_OPTS_HELP
	"\n"
	"Other options:\n"
	CLI_HELP_THRESHOLD
	CLI_HELP_COMMON
	"\n"
	"Ranks come from distributedInfo.rank in the file, else from a rank<N>,\n"
	"rank-<N>, rank_<N> or worker<N> token in the file name, else from the\n"
	"position among the traces read (with a warning; a single trace is rank 0).\n"
	"\n"
	"Exit status: 0 when every input was read completely; 1 when an input could\n"
	"not be read or was cut off (the rest is still analysed and reported) or an\n"
	"output could not be written; 2 for a usage error, or inputs of several runs\n"
	"without --run or --merge-runs.\n"
	"\n"
	"Example:\n"
	"  vanalyze --json report.json traces/\n";

struct opts {
	struct cli cli;
	struct analyze_opts a;
	long top;
	int ranks;
	int all;
	int details;
	enum summary_sort sort;
};

/* Returns -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		CLI_OPTS_COMMON,
		CLI_OPTS_OUTPUTS,
		CLI_OPT_THRESHOLD,
		ANALYZE_LONGOPTS,
		{ "top", required_argument, NULL, 'T' },
		{ "ranks", no_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'a' },
		{ "details", no_argument, NULL, 'D' },
		{ "sort", required_argument, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	cli_init(&o->cli, usage, term_thresholds);
	o->cli.longopts = longopts;
	analyze_opts_init(&o->a);
	o->top = 5;
	o->ranks = 0;
	o->all = 0;
	o->details = 0;
	o->sort = SORT_TOTAL;
	opterr = 0;
	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, longopts, NULL)) != -1) {
		char *end;
		long v;
		int rc;

		if (c == 'T') {
			v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1000000)
				return cli_usage_error("--top wants a count from 0, not '%s'",
						       optarg);
			o->top = v;
			continue;
		}
		if (c == 'R') {
			o->ranks = 1;
			continue;
		}
		if (c == 'a') {
			o->all = 1;
			continue;
		}
		if (c == 'D') {
			o->details = 1;
			continue;
		}
		if (c == 'O') {
			static const char *const keys[] = { "total", "self", "device", "count" };
			size_t k = 0;

			while (k < 4 && strcmp(optarg, keys[k]))
				k++;
			if (k == 4)
				return cli_usage_error("--sort wants total, self, device or count, "
						       "not '%s'", optarg);
			o->sort = (enum summary_sort)k;
			continue;
		}
		rc = analyze_opts_take(&o->a, &o->cli, c, optarg, argv[optind - 1]);
		if (rc >= 0)
			return rc;
	}
	if (optind >= argc)
		return cli_usage_error("no input given");
	o->a.jobs = o->cli.jobs;
	o->a.progress = o->cli.progress;
	o->a.suggest = o->cli.suggest;
	return -1;
}

int main(int argc, char **argv)
{
	struct report rep;
	struct opts o;
	int status, rc;

	log_init("vanalyze");
	/*
	 * Chunk buffers and event arrays (under 1 MiB each, freed per chunk
	 * and per file) stay in the heap for reuse instead of being returned
	 * to the kernel and faulted in again.  The record arrays the analyses
	 * grow (tens of MB on a big trace) are mapped on their own: realloc
	 * then moves pages (mremap) instead of copying, and leaves no freed
	 * block behind in the heap at every doubling, which had peak memory
	 * 10-20 % of the text higher on real traces.
	 */
	mallopt(M_MMAP_THRESHOLD, GROW_MAPPED);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	/*
	 * One arena for all threads: with one per thread, memory freed by one
	 * is kept for it alone, and -j 2 peaked 10-30 % above -j 1 on a trace
	 * of kernels.  Threads allocate per chunk, never per event, so they
	 * hardly ever wait for each other here.
	 */
	mallopt(M_ARENA_MAX, 1);
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0) {
		analyze_opts_release(&o.a);
		return rc;
	}
	report_init(&rep, "vanalyze");
	status = analyze_run(&rep, argv + optind, (size_t)(argc - optind), &o.a);
	if (status == EXIT_USAGE) {	/* several runs, none picked: nothing is written */
		report_release(&rep);
		analyze_opts_release(&o.a);
		return status;
	}
	/*
	 * Nothing read: an empty report written over the last good one would
	 * lose it for nothing.  Each input's error is said above.
	 */
	if (!rep.nr_ranks) {
		if (o.cli.json || o.cli.html || o.cli.out)
			log_msg("no input could be read: no report written");
		report_release(&rep);
		analyze_opts_release(&o.a);
		return EXIT_FAIL;
	}
	if (cli_summary_on_stdout(&o.cli)) {
		struct summary_opts so = { (size_t)o.top, o.ranks, o.all, o.details, o.sort };

		term_vanalyze(stdout, &rep, &so);
	}
	/* the renderer warns itself when gnuplot is missing */
	if (render_outputs(&rep, &o.cli, 0))
		status = EXIT_FAIL;
	report_release(&rep);
	analyze_opts_release(&o.a);
	return status;
}
