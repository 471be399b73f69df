/*
 * options: the analysis options vanalyze and vcompare share, so that
 * vcompare analyses traces exactly as vanalyze would.
 *
 * A program puts ANALYZE_LONGOPTS in its getopt_long table (and "j:" in its
 * short options), hands every option it does not know itself to
 * analyze_opts_parse(), and prints ANALYZE_OPTS_HELP in its --help.
 */
#ifndef VT_OPTIONS_H
#define VT_OPTIONS_H

#include <stddef.h>

#include "phases.h"
#include "suggest.h"

struct analyze_opts {
	int jobs;				/* -j; default: all cores */
	struct phase_opts phase;
	char *phase_lines[PHASES_MAX_RULES];	/* --phase-file rules point into these */
	size_t nr_phase_lines;
	struct suggest_opts suggest;
	int progress;				/* 0: --no-progress */
};

/* The option codes analyze_opts_parse() takes; a program's own must differ. */
#define ANALYZE_LONGOPTS                                          \
	{ "jobs", required_argument, NULL, 'j' },                 \
	{ "phase", required_argument, NULL, 'p' },                \
	{ "phase-file", required_argument, NULL, 'F' },           \
	{ "step", required_argument, NULL, 's' },                 \
	{ "block", required_argument, NULL, 'b' },                \
	{ "frames", required_argument, NULL, 'f' },               \
	{ "target-fps", required_argument, NULL, 't' },           \
	{ "frames-per-block", required_argument, NULL, 'k' },     \
	{ "no-progress", no_argument, NULL, 'P' }

/* --threshold NAME=V for the suggestions, where a program wants them. */
#define SUGGEST_LONGOPT { "threshold", required_argument, NULL, 'H' }

#define ANALYZE_OPTS_HELP                                                              \
	"Phases, steps and throughput:\n"                                              \
	"      --phase NAME=GLOB  spans whose name matches GLOB are phase NAME\n"     \
	"                     (repeatable; also makes such spans phases in traces\n"  \
	"                     without cat)\n"                                          \
	"      --phase-file PATH  the same rules, one NAME=GLOB a line ('#' comments)\n" \
	"      --step GLOB    denoising-step spans when there is no ProfilerStep#\n"   \
	"                     (repeatable; default 'denoise_step_*' and '*step_[0-9]*')\n" \
	"      --block GLOB   block spans for BPS (default 'block_*')\n"               \
	"      --frames N     frames of one generation (one video), for FPS\n"       \
	"      --frames-per-block N  frames each block adds: the streaming FPS\n"   \
	"      --target-fps F the video frame rate: adds the real-time factor\n"

void analyze_opts_init(struct analyze_opts *o);
void analyze_opts_release(struct analyze_opts *o);

/*
 * Option c (a code of ANALYZE_LONGOPTS) with its argument.  Returns 0 when
 * taken, 1 when c is not an analysis option, or EXIT_USAGE after printing
 * what is wrong.
 */
int analyze_opts_parse(struct analyze_opts *o, int c, char *arg);

/* "PROG: " + the message + "try 'PROG --help'"; returns EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);

#endif
