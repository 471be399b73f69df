/* options: see options.h. */
#include "options.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"

void analyze_opts_init(struct analyze_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->jobs = omp_get_num_procs();
	phase_opts_init(&o->phase);
	suggest_opts_init(&o->suggest);
	o->progress = 1;
}

void analyze_opts_release(struct analyze_opts *o)
{
	for (size_t i = 0; i < o->nr_phase_lines; i++)
		free(o->phase_lines[i]);
	o->nr_phase_lines = 0;
}

/*
 * The peaks a device may have: TFLOP/s and TB/s, the range of --peak-tflops
 * and --peak-tbps (the fastest device in lib/model/device_peak.c does
 * 4,500 TFLOP/s and 8 TB/s).
 */
#define PEAK_MIN 0.01
#define PEAK_TFLOPS_MAX 100000.0
#define PEAK_TBPS_MAX 1000.0

/*
 * A peak as datasheets write it: digits with at most one '.', from
 * PEAK_MIN to max.  strtod() alone takes "0x10" as 16, and "4.9e-324",
 * which makes every share a figure of hundreds of digits.  -1 otherwise.
 */
static int peak_arg(const char *arg, double max, double *peak)
{
	size_t digits = 0, dots = 0;

	for (const char *s = arg; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s != '.' || dots++)
			return -1;
	}
	if (!digits)
		return -1;
	*peak = strtod(arg, NULL);
	return *peak >= PEAK_MIN && *peak <= max ? 0 : -1;
}

/* NAME=GLOB into the rules; rule is kept (argv or a file line).  -1 if malformed. */
static int add_phase_rule(struct phase_opts *p, char *rule)
{
	char *eq = strchr(rule, '='), *glob, *end;

	if (!eq || p->nr_rules == PHASES_MAX_RULES)
		return -1;
	/* "NAME = GLOB" reads as NAME=GLOB: spaces around '=' are not part of either */
	for (end = eq; end > rule && (end[-1] == ' ' || end[-1] == '\t'); end--)
		;
	for (glob = eq + 1; *glob == ' ' || *glob == '\t'; glob++)
		;
	if (end == rule || !*glob)
		return -1;
	*end = '\0';
	p->rules[p->nr_rules].name = rule;
	p->rules[p->nr_rules++].glob = glob;
	return 0;
}

/* --phase-file: one NAME=GLOB a line; blank lines and '#' comments skipped. */
static int read_phase_file(struct analyze_opts *o, const char *path)
{
	struct phase_opts *p = &o->phase;
	FILE *f = fopen(path, "r");
	char line[4096];
	int nr = 0;

	if (!f) {
		log_msg("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *end;

		nr++;
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		end = s + strlen(s);
		while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*s == '\0' || *s == '#')
			continue;
		s = strdup(s);	/* o->phase_lines owns it; the rule points into it */
		if (!s || add_phase_rule(p, s)) {
			log_msg("%s: line %d: expected NAME=GLOB (at most %d rules)", path, nr,
				PHASES_MAX_RULES);
			free(s);
			fclose(f);
			return -1;
		}
		o->phase_lines[o->nr_phase_lines++] = s;
	}
	fclose(f);
	return 0;
}

int analyze_opts_parse(struct analyze_opts *o, int c, char *arg)
{
	char *end;
	long v;

	switch (c) {
	case 'p':
		if (add_phase_rule(&o->phase, arg))
			return cli_usage_error("--phase wants NAME=GLOB, not '%s'", arg);
		return 0;
	case 'F':
		return read_phase_file(o, arg) ? EXIT_USAGE : 0;
	case 's':
		if (o->phase.nr_step_globs == PHASES_MAX_RULES)
			return cli_usage_error("too many --step globs (at most %d)",
					       PHASES_MAX_RULES);
		o->phase.step_globs[o->phase.nr_step_globs++] = arg;
		return 0;
	case 'b':
		o->phase.block_glob = arg;
		return 0;
	case 'f':
		v = strtol(arg, &end, 10);
		if (*end || v < 0)
			return cli_usage_error("--frames wants a frame count, not '%s'", arg);
		o->phase.frames = v;
		return 0;
	case 'k':
		v = strtol(arg, &end, 10);
		if (*end || v < 1)
			return cli_usage_error("--frames-per-block wants a frame count, not '%s'",
					       arg);
		o->phase.frames_per_block = v;
		return 0;
	case 'r':
		v = strtol(arg, &end, 10);
		if (*end || v < 1 || v > 1000000)
			return cli_usage_error("--run wants a run's number from 1, not '%s'", arg);
		o->run = v;
		return 0;
	case 'm':
		o->merge_runs = 1;
		return 0;
	case 'U':
		o->full = 1;
		return 0;
	case 'P':
	case 'B': {
		double peak, max = c == 'P' ? PEAK_TFLOPS_MAX : PEAK_TBPS_MAX;

		if (peak_arg(arg, max, &peak))
			return cli_usage_error("--peak-%s wants a decimal from %g to %g, not '%s'",
					       c == 'P' ? "tflops" : "tbps", PEAK_MIN, max, arg);
		*(c == 'P' ? &o->peak.tflops : &o->peak.tbps) = peak;
		return 0;
	}
	case 't': {
		double fps = strtod(arg, &end);

		if (*end || !(fps > 0 && fps < 1e6))
			return cli_usage_error("--target-fps wants frames per second, not '%s'",
					       arg);
		o->phase.target_fps = fps;
		return 0;
	}
	}
	return 1;
}

int analyze_opts_take(struct analyze_opts *o, struct cli *cli, int c, char *arg,
		      const char *name)
{
	int rc;

	switch (cli_parse(cli, c, arg, name)) {
	case CLI_TAKEN:
		return -1;
	case CLI_EXIT_OK:
		return EXIT_OK;
	case CLI_EXIT_USAGE:
		return EXIT_USAGE;
	case CLI_OTHER:
		break;
	}
	rc = analyze_opts_parse(o, c, arg);
	if (rc)
		return rc == 1 ? cli_usage_error("unknown option '%s'", name) : rc;
	return -1;
}
