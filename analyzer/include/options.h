/*
 * options: the analysis options vanalyze and vcompare share, so that
 * vcompare analyses traces exactly as vanalyze would.  With run.h, this is
 * libanalyze's public interface: the only analyzer headers other programs
 * see (the Makefile gives them -Ianalyzer/include, not -Ianalyzer).
 *
 * A program puts ANALYZE_LONGOPTS in its getopt_long table, beside the
 * command-line layer's (cli.h), hands every option neither it nor that layer
 * knows to analyze_opts_parse(), and prints ANALYZE_OPTS_HELP in its --help.
 */
#ifndef VT_OPTIONS_H
#define VT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "perf_peak.h"
#include "suggest.h"

#define PHASES_MAX_RULES 32

struct phase_rule {
	const char *name;		/* the phase name given */
	const char *glob;		/* fnmatch(3) pattern on the raw event name */
};

struct phase_opts {
	struct phase_rule rules[PHASES_MAX_RULES];	/* --phase NAME=GLOB */
	size_t nr_rules;
	const char *step_globs[PHASES_MAX_RULES];	/* --step; none: the defaults */
	size_t nr_step_globs;
	const char *block_glob;		/* --block; NULL: "block_*" */
	int64_t frames;			/* --frames, per generation; -1 unknown */
	int64_t frames_per_block;	/* --frames-per-block; 0 unknown */
	double target_fps;		/* --target-fps; 0 none */
};

/* Defaults: no rules, the default step and block globs, frames unknown. */
void phase_opts_init(struct phase_opts *o);

struct analyze_opts {
	int jobs;				/* threads; the program's -j */
	struct phase_opts phase;
	char *phase_lines[PHASES_MAX_RULES];	/* --phase-file rules point into these */
	size_t nr_phase_lines;
	struct suggest_opts suggest;		/* the program's --threshold */
	int progress;				/* 0: the program's --no-progress */
	long run;				/* --run N: the N-th run found; 0: all */
	int merge_runs;				/* --merge-runs: several runs as one */
	int full;				/* --full: every kernel and operator row */
	struct perf_peak_opts peak;		/* --peak-tflops, --peak-tbps */
};

/*
 * The options of the analysis itself; a program's own codes must differ.
 * -j, --threshold and --no-progress are the command-line layer's (cli.h):
 * the program copies them in before analyze_run().
 */
#define ANALYZE_LONGOPTS                                          \
	{ "phase", required_argument, NULL, 'p' },                \
	{ "phase-file", required_argument, NULL, 'F' },           \
	{ "step", required_argument, NULL, 's' },                 \
	{ "block", required_argument, NULL, 'b' },                \
	{ "frames", required_argument, NULL, 'f' },               \
	{ "target-fps", required_argument, NULL, 't' },           \
	{ "frames-per-block", required_argument, NULL, 'k' },     \
	{ "run", required_argument, NULL, 'r' },                  \
	{ "merge-runs", no_argument, NULL, 'm' },                 \
	{ "full", no_argument, NULL, 'U' },                     \
	{ "peak-tflops", required_argument, NULL, 'P' },          \
	{ "peak-tbps", required_argument, NULL, 'B' }

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
	"      --target-fps F the video frame rate: adds the real-time factor\n"   \
	"Several runs given together (other metadata, or traces a minute apart)\n"   \
	"are refused, each named with its number:\n"                                \
	"      --run N        analyse the N-th of them alone\n"                       \
	"      --merge-runs   analyse them as one run all the same\n"                 \
	"Tables: each rank keeps its 500 kernels, operators and shapes with the\n"  \
	"most time, and 500 collectives; the rest in one row marked \"other\": N.\n" \
	"      --full         keep every row\n"                                      \
	"The device's peak, for TFLOP/s shares and MFU (default: from its name):\n" \
	"      --peak-tflops F  peak TFLOP/s, for every dtype (0.01 to 100000)\n"   \
	"      --peak-tbps F  peak memory bandwidth, TB/s (0.01 to 1000)\n"

void analyze_opts_init(struct analyze_opts *o);
void analyze_opts_release(struct analyze_opts *o);

/*
 * Option c (a code of ANALYZE_LONGOPTS) with its argument.  Returns 0 when
 * taken, 1 when c is not an analysis option, or EXIT_USAGE after printing
 * what is wrong.
 */
int analyze_opts_parse(struct analyze_opts *o, int c, char *arg);

/*
 * Option c of a program that analyses traces, after its own: the
 * command-line layer's shared options (cli_parse()), then the analysis
 * options; anything else is an unknown option.  name is the word the user
 * typed.  Returns -1 when the option was taken, else the exit status to
 * return (EXIT_OK after --help or --version, EXIT_USAGE after an error).
 */
int analyze_opts_take(struct analyze_opts *o, struct cli *cli, int c, char *arg,
		      const char *name);

#endif
