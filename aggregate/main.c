/*
 * vaggregate: merge the reports of many ranks and nodes into one.
 *
 * The reduce step of a map/reduce over a cluster: vanalyze writes one
 * report per rank file wherever the ranks ran, and vaggregate reads them
 * back (lib/report_read.c), merges their ranks (merge.c), and computes
 * cross-rank statistics, stragglers and suggestions with the code vanalyze
 * runs on multi-rank input (lib/crossrank.c, lib/suggest.c), so one
 * vanalyze over every trace and vanalyze per trace followed by vaggregate
 * agree.  main() parses options, gathers the inputs, and picks the exit
 * code; it analyses nothing.
 */
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "collectives.h"
#include "crossrank.h"
#include "find.h"
#include "log.h"
#include "merge.h"
#include "outfile.h"
#include "render.h"
#include "report.h"
#include "suggest.h"
#include "term.h"
#include "summary.h"

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
	"Outputs (the summary goes to stdout unless -q):\n"
	"      --json PATH    the merged report as JSON ('-' for stdout)\n"
	"      --html PATH    the merged report as one HTML page\n"
	"      --out DIR      DIR/report.json, DIR/report.html and DIR/tables/*.csv\n"
	"      --title TEXT   the HTML page's title\n"
	"      --no-charts    HTML without gnuplot charts\n"
	"\n"
	"Other options:\n"
	"      --threshold NAME=V  change when a suggestion fires; NAME is one of the\n"
	"                     thresholds listed below (as in vanalyze)\n"
	"  -j, --jobs N       threads reading reports (default: all cores)\n"
	"  -q, --quiet        print no summary on stdout\n"
	"      --no-progress  no progress line on stderr (there is none unless\n"
	"                     stderr is a terminal and there are many reports)\n"
	"  -h, --help         show this help and exit\n"
	"  -V, --version      show the version and exit\n"
	"\n"
	"Merging: ranks are sorted by rank number, then source trace.  A rank read\n"
	"twice (same rank number and same source, e.g. a report copied into two\n"
	"places) is counted once, with a note.  The same rank number from two\n"
	"different traces is kept twice, each with a warning, as vanalyze does.\n"
	"\n"
	"Exit status: 0 when every report was merged; 1 when a report was skipped\n"
	"(cut off, not JSON, a missing field, another report schema, a named file\n"
	"that is no report, unreadable) -- the rest is still merged and written --\n"
	"when there was no report at all, or when an output could not be written;\n"
	"2 for a usage error.\n"
	"\n"
	"Examples:\n"
	"  vaggregate --reports_dir reports --out merged\n"
	"  vaggregate --json all.json node*/report.json\n";

struct opts {
	int jobs, quiet, progress;
	const char *json, *html, *out;
	struct render_opts render;
	struct suggest_opts suggest;
	struct find_list dirs;		/* --reports_dir, in order */
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", log_progname());
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ntry 'vaggregate --help'\n");
	return EXIT_USAGE;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "reports_dir", required_argument, NULL, 'R' },
		{ "reports-dir", required_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'J' },
		{ "html", required_argument, NULL, 'M' },
		{ "out", required_argument, NULL, 'O' },
		{ "title", required_argument, NULL, 't' },
		{ "no-charts", no_argument, NULL, 'C' },
		{ "threshold", required_argument, NULL, 'H' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->jobs = omp_get_num_procs();
	o->progress = 1;
	o->suggest = (struct suggest_opts)SUGGEST_OPTS_DEFAULT;
	find_list_init(&o->dirs);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qhV", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'R':
			if (find_list_add(&o->dirs, optarg))
				return usage_error("%s", "out of memory");
			break;
		case 'J':
			o->json = optarg;
			break;
		case 'M':
			o->html = optarg;
			break;
		case 'O':
			o->out = optarg;
			break;
		case 't':
			o->render.title = optarg;
			break;
		case 'C':
			o->render.no_charts = 1;
			break;
		case 'H':
			if (suggest_parse(&o->suggest, optarg))
				return usage_error("--threshold wants NAME=VALUE with NAME a "
						   "threshold listed by --help, not '%s'", optarg);
			break;
		case 'j':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 1024)
				return usage_error("-j wants a thread count from 1 to 1024, "
						   "not '%s'", optarg);
			o->jobs = (int)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'P':
			o->progress = 0;
			break;
		case 'h':
			fputs(usage, stdout);
			term_thresholds(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("vaggregate %s\n", VTRACE_VERSION);
			exit(EXIT_OK);
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc && o->dirs.n == 0)
		return usage_error("%s", "no reports given: use --reports_dir DIR or name "
					 "report files");
	return -1;
}

/* Flag the files added since *done as named (1) or found in a directory (0). */
static void mark(unsigned char **named, size_t *cap, size_t *done, size_t n, int flag)
{
	if (n > *cap) {
		*cap = n > 2 * *cap ? n : 2 * *cap;
		*named = realloc(*named, *cap);
		if (!*named) {
			log_msg("out of memory");
			exit(EXIT_FAIL);
		}
	}
	for (; *done < n; (*done)++)
		(*named)[*done] = (unsigned char)flag;
}

/* find_reports() with a note for a directory without candidates; -1 if unreadable. */
static int walk_dir(struct find_list *files, const char *dir)
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
static int gather(struct opts *o, int argc, char **argv, struct find_list *files,
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
		if (find_list_add(files, argv[i])) {
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
	const char *paths[3] = { o->json, o->html, NULL };
	struct buf json;
	struct stat st;

	out->n = 0;
	buf_init(&json);
	if (o->out) {
		buf_printf(&json, "%s/report.json", o->out);
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

static int write_outputs(const struct report *rep, const struct opts *o, size_t bytes_in)
{
	struct err e;
	int status = EXIT_OK;

	if (o->json) {
		struct buf out;

		/*
		 * The merged report is about as long as the reports it was made
		 * of: reserving that at once saves the copies of doubling (a
		 * quarter of a gigabyte for 4,096 ranks) and their page faults.
		 */
		buf_init(&out);
		buf_reserve(&out, bytes_in + bytes_in / 16);
		report_to_json(rep, &out);
		if (!buf_ok(&out)) {
			log_msg("out of memory writing the report");
			status = EXIT_FAIL;
		} else if (outfile_write(o->json, out.data, out.len, &e)) {
			log_error(NULL, &e);
			status = EXIT_FAIL;
		}
		buf_release(&out);
	}
	if (o->html && render_html(rep, o->html, &o->render, &e)) {
		log_error(NULL, &e);
		status = EXIT_FAIL;
	}
	if (o->out && render_out(rep, o->out, &o->render, &e)) {
		log_error(NULL, &e);
		status = EXIT_FAIL;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct find_list files;
	struct merge_input *in;
	size_t nr_in = 0;
	struct merge_stats st;
	struct merge_opts mo;
	struct outputs outs;
	unsigned char *named = NULL;
	struct report rep;
	struct opts o;
	int status = EXIT_OK, rc;

	log_init("vaggregate");
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0) {
		find_list_release(&o.dirs);
		return rc;
	}
	find_list_init(&files);
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
	mo.jobs = o.jobs;
	mo.progress = o.progress && isatty(STDERR_FILENO);

	report_init(&rep, "vaggregate");
	if (merge_reports(&rep, in, nr_in, &mo, &st))
		status = EXIT_FAIL;
	if (st.skipped)
		status = EXIT_FAIL;
	if (!rep.nr_ranks) {
		if (nr_in)
			log_msg("no ranks to merge: none of the %zu files read was a vtrace "
				"report", nr_in);
		else
			log_msg("no ranks to merge: no report files found");
		status = EXIT_FAIL;
	}
	if (collectives_compute(&rep) || crossrank_compute(&rep) ||
	    suggest_compute(&rep, &o.suggest)) {
		log_msg("out of memory computing cross-rank statistics or suggestions");
		status = EXIT_FAIL;
	}
	if (!o.quiet && !(o.json && !strcmp(o.json, "-")))
		summary_print(stdout, &rep, &st);
	if (write_outputs(&rep, &o, st.bytes) != EXIT_OK)
		status = EXIT_FAIL;
	if (st.skipped)
		log_msg("%zu of %zu files skipped (lines above); the other reports were merged",
			st.skipped, st.files);

	report_release(&rep);
	free(in);
	free(named);
	find_list_release(&files);
	find_list_release(&o.dirs);
	return status;
}
