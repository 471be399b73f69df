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

#include "buf.h"
#include "log.h"
#include "options.h"
#include "outfile.h"
#include "render.h"
#include "report.h"
#include "run.h"
#include "suggest.h"
#include "term.h"
#include "summary.h"

static const char usage[] =
	"usage: vanalyze [options] TRACE|DIR...\n"
	"\n"
	"Analyse PyTorch profiler traces (one file per rank) and report where the\n"
	"time goes.  TRACE is a Chrome/Kineto trace (.json or .json.gz, the legacy\n"
	"bare-array format too) or '-' for standard input; DIR stands for every\n"
	"*.json, *.json.gz and *.vtr file inside it.\n"
	"\n"
	"Options:\n"
	"  -j, --jobs N       threads to use (default: all cores)\n"
	"      --json PATH    write the report as JSON to PATH ('-' for stdout)\n"
	"      --html PATH    write the report as one self-contained HTML page with\n"
	"                     charts (drawn by gnuplot when installed)\n"
	"      --out DIR      write DIR/report.json, DIR/report.html and the CSV\n"
	"                     tables DIR/tables/*.csv\n"
	"      --top N        kernels shown per rank in the summary (default 5)\n"
	"\n"
	ANALYZE_OPTS_HELP
	"\n"
	"Suggestions:\n"
	"      --threshold NAME=V  change when a suggestion fires; NAME is one of the\n"
	"                     thresholds listed below (README has the table)\n"
	"  -q, --quiet        print no summary on stdout\n"
	"      --no-progress  no progress line for inputs over 100 MB of text\n"
	"  -h, --help         show this help and exit\n"
	"  -V, --version      show the version and exit\n"
	"\n"
	"Ranks come from distributedInfo.rank in the file, else from a rank<N>,\n"
	"rank-<N>, rank_<N> or worker<N> token in the file name, else from the\n"
	"position on the command line (with a warning).\n"
	"\n"
	"Exit status: 0 when every input was read completely; 1 when an input could\n"
	"not be read or was cut off (the rest is still analysed and reported) or an\n"
	"output could not be written; 2 for a usage error.\n"
	"\n"
	"Example:\n"
	"  vanalyze --json report.json traces/\n";

struct opts {
	struct analyze_opts a;
	long top;
	const char *json;
	const char *html, *out;		/* --html PATH, --out DIR */
	int quiet;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		ANALYZE_LONGOPTS,
		SUGGEST_LONGOPT,
		{ "json", required_argument, NULL, 'J' },
		{ "html", required_argument, NULL, 'W' },
		{ "out", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "top", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	analyze_opts_init(&o->a);
	o->json = NULL;
	o->html = o->out = NULL;
	o->top = 5;
	o->quiet = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qhV", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'J':
			o->json = optarg;
			break;
		case 'W':
			o->html = optarg;
			break;
		case 'O':
			o->out = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'T':
			v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1000000)
				return usage_error("--top wants a count from 0, not '%s'", optarg);
			o->top = v;
			break;
		case 'h':
			fputs(usage, stdout);
			term_thresholds(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("vanalyze %s\n", VTRACE_VERSION);
			exit(EXIT_OK);
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		case '?':
			return usage_error("unknown option '%s'", argv[optind - 1]);
		default:
			rc = analyze_opts_parse(&o->a, c, optarg);
			if (rc)
				return rc == 1 ? usage_error("unknown option '%s'", argv[optind - 1])
					       : rc;
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no input given");
	return -1;
}

/* --html and --out; the renderer warns itself when gnuplot is missing. */
static int write_rendered(const struct report *rep, const struct opts *o)
{
	struct err e;
	int rc = 0;

	if (o->html && render_html(rep, o->html, NULL, &e)) {
		log_error(NULL, &e);
		rc = -1;
	}
	if (o->out && render_out(rep, o->out, NULL, &e)) {
		log_error(NULL, &e);
		rc = -1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct report rep;
	struct opts o;
	int status, rc;

	log_init("vanalyze");
	/*
	 * Chunk buffers and event arrays are megabytes each and freed per file:
	 * keep them in the heap for the next file instead of returning them to
	 * the kernel and faulting them in again.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0) {
		analyze_opts_release(&o.a);
		return rc;
	}
	report_init(&rep, "vanalyze");
	status = analyze_run(&rep, argv + optind, (size_t)(argc - optind), &o.a);
	if (!o.quiet && !(o.json && !strcmp(o.json, "-")) && !(o.html && !strcmp(o.html, "-")))
		summary_print(stdout, &rep, (size_t)o.top);
	if (o.json) {
		struct buf out;
		struct err e;

		buf_init(&out);
		report_to_json(&rep, &out);
		if (!buf_ok(&out)) {
			log_msg("out of memory writing the report");
			status = EXIT_FAIL;
		} else if (outfile_write(o.json, out.data, out.len, &e)) {
			log_error(NULL, &e);
			status = EXIT_FAIL;
		}
		buf_release(&out);
	}
	if (write_rendered(&rep, &o))
		status = EXIT_FAIL;
	report_release(&rep);
	analyze_opts_release(&o.a);
	return status;
}
