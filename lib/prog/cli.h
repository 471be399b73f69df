/*
 * cli: the command-line layer vanalyze, vaggregate and vcompare share.
 *
 * The options the programs have in common (-j, --json, --html, --out,
 * --title, -q, --threshold, --no-progress, --help, --version) are parsed
 * here once, with one wording for their help and their errors, and the
 * exit codes of log.h: a usage error is EXIT_USAGE, running out of memory
 * EXIT_FAIL.  A program lists the CLI_OPT_* entries it takes in its
 * getopt_long table, with CLI_SHORTOPTS as its short options (its own long
 * options use codes below CLI_FIRST), and hands every code it does not
 * handle itself to cli_parse().  Its --help text uses the CLI_HELP_*
 * lines, so an option reads the same in every program.
 */
#ifndef VT_CLI_H
#define VT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "suggest.h"

enum cli_code {
	CLI_FIRST = 0x1000,
	CLI_JSON = CLI_FIRST,
	CLI_HTML,
	CLI_OUT,
	CLI_TITLE,
	CLI_THRESHOLD,
	CLI_NO_PROGRESS,
	CLI_NO_CHARTS,
};

#define CLI_SHORTOPTS ":j:qhV"

#define CLI_OPT_JOBS { "jobs", required_argument, NULL, 'j' }
#define CLI_OPT_JSON { "json", required_argument, NULL, CLI_JSON }
#define CLI_OPT_HTML { "html", required_argument, NULL, CLI_HTML }
#define CLI_OPT_OUT { "out", required_argument, NULL, CLI_OUT }
#define CLI_OPT_TITLE { "title", required_argument, NULL, CLI_TITLE }
#define CLI_OPT_THRESHOLD { "threshold", required_argument, NULL, CLI_THRESHOLD }
#define CLI_OPT_QUIET { "quiet", no_argument, NULL, 'q' }
#define CLI_OPT_NO_PROGRESS { "no-progress", no_argument, NULL, CLI_NO_PROGRESS }
#define CLI_OPT_HELP { "help", no_argument, NULL, 'h' }
#define CLI_OPT_VERSION { "version", no_argument, NULL, 'V' }
#define CLI_OPT_NO_CHARTS { "no-charts", no_argument, NULL, CLI_NO_CHARTS }

/* Every program has these. */
#define CLI_OPTS_COMMON CLI_OPT_JOBS, CLI_OPT_QUIET, CLI_OPT_NO_PROGRESS, CLI_OPT_HELP, \
	CLI_OPT_VERSION
/* The rendered forms of a report (vanalyze, vaggregate). */
#define CLI_OPTS_OUTPUTS CLI_OPT_JSON, CLI_OPT_HTML, CLI_OPT_OUT, CLI_OPT_TITLE, CLI_OPT_NO_CHARTS

#define CLI_HELP_JOBS "  -j, --jobs N       threads to use (default: all cores)\n"
#define CLI_HELP_JSON "      --json PATH    the report as JSON ('-' for stdout)\n"
#define CLI_HELP_HTML                                                             \
	"      --html PATH    the report as one self-contained HTML page with charts\n" \
	"                     (drawn by gnuplot when installed)\n"
#define CLI_HELP_OUT "      --out DIR      DIR/report.json, DIR/report.html and DIR/tables/*.csv\n"
#define CLI_HELP_TITLE "      --title TEXT   the HTML page's title (default: vtrace report)\n"
#define CLI_HELP_THRESHOLD                                                         \
	"      --threshold NAME=V  change when a suggestion fires; NAME is one of the\n" \
	"                     thresholds listed below (doc/findings.md has the table)\n"
#define CLI_HELP_QUIET "  -q, --quiet        print no summary on stdout\n"
#define CLI_HELP_NO_PROGRESS \
	"      --no-progress  no progress line on stderr (shown only on a terminal)\n"
#define CLI_HELP_HELP "  -h, --help         show this help and exit\n"
#define CLI_HELP_VERSION "  -V, --version      show the version and exit\n"
#define CLI_HELP_NO_CHARTS "      --no-charts    HTML without gnuplot charts\n"
#define CLI_HELP_OUTPUTS CLI_HELP_JSON CLI_HELP_HTML CLI_HELP_OUT CLI_HELP_TITLE CLI_HELP_NO_CHARTS
#define CLI_HELP_COMMON CLI_HELP_JOBS CLI_HELP_QUIET CLI_HELP_NO_PROGRESS CLI_HELP_HELP \
	CLI_HELP_VERSION

struct cli {
	const char *usage;		/* the --help text; borrowed */
	void (*help_tail)(FILE *f);	/* printed after it, or NULL */
	int jobs;			/* -j; default: all cores */
	int quiet;			/* -q */
	int progress;			/* 0: --no-progress */
	const char *json, *html, *out;	/* output paths; NULL: not asked for */
	const char *title;		/* --title; NULL: the default */
	int no_charts;			/* --no-charts */
	struct suggest_opts suggest;	/* --threshold NAME=V */
	const struct option *longopts;	/* the program's table, for "did you mean"; may be NULL */
};

enum cli_result {
	CLI_TAKEN,	/* a shared option, stored in the struct cli */
	CLI_OTHER,	/* not one of them: the program's own */
	CLI_EXIT_OK,	/* --help or --version was printed: exit with EXIT_OK */
	CLI_EXIT_USAGE,	/* a usage error was printed: exit with EXIT_USAGE */
};

/* Defaults for a program whose --help prints usage, then help_tail (may be NULL). */
void cli_init(struct cli *c, const char *usage, void (*help_tail)(FILE *f));

/*
 * Option code (getopt_long's return value) with its argument arg; name is
 * the word the user typed (argv[optind - 1]), for messages.  Unknown
 * options (getopt's '?') and missing arguments (':') are usage errors here.
 */
enum cli_result cli_parse(struct cli *c, int code, char *arg, const char *name);

/*
 * "PROG: " + the message + "\ntry 'PROG --help'" on stderr; returns
 * EXIT_USAGE so that a parser can return cli_usage_error(...).
 */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The file named on the command line is '-': standard output. */
int cli_is_stdout(const char *path);

/* The terminal summary goes to standard output: no -q, and no output there. */
int cli_summary_on_stdout(const struct cli *c);

#endif
