/* cli: see cli.h. */
#include "cli.h"

#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "editdist.h"
#include "log.h"
#include "report.h"

void cli_init(struct cli *c, const char *usage, void (*help_tail)(FILE *f))
{
	memset(c, 0, sizeof(*c));
	c->usage = usage;
	c->help_tail = help_tail;
	c->jobs = omp_get_num_procs();
	c->progress = 1;
	suggest_opts_init(&c->suggest);
}

/*
 * The long option nearest to what was typed ("--frams=3": "frames"),
 * within two edits and closer than any other; NULL when none is.
 */
static const char *closest_option(const struct option *opts, const char *typed)
{
	const char *best = NULL;
	size_t n, d, bestd = 3;
	int tie = 0;

	if (!opts || !typed || strncmp(typed, "--", 2))
		return NULL;
	typed += 2;
	n = strcspn(typed, "=");
	for (; opts->name; opts++) {
		d = edit_distance(typed, n, opts->name, strlen(opts->name));
		if (d < bestd) {
			bestd = d;
			best = opts->name;
			tie = 0;
		} else if (d == bestd && best && strcmp(best, opts->name)) {
			tie = 1;
		}
	}
	return tie ? NULL : best;
}

int cli_usage_error(const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	/* through log_msg(), which makes the argument quoted in it safe */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg("%s", msg);
	fprintf(stderr, "try '%s --help'\n", log_progname());
	return EXIT_USAGE;
}

int cli_is_stdout(const char *path)
{
	return path && !strcmp(path, "-");
}

int cli_summary_on_stdout(const struct cli *c)
{
	return !c->quiet && !cli_is_stdout(c->json) && !cli_is_stdout(c->html);
}

enum cli_result cli_parse(struct cli *c, int code, char *arg, const char *name)
{
	char *end;
	long v;

	switch (code) {
	case 'j':
		v = strtol(arg, &end, 10);
		if (*end || v < 1 || v > 1024) {
			cli_usage_error("-j wants a thread count from 1 to 1024, not '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		c->jobs = (int)v;
		return CLI_TAKEN;
	case 'q':
		c->quiet = 1;
		return CLI_TAKEN;
	case CLI_NO_PROGRESS:
		c->progress = 0;
		return CLI_TAKEN;
	case CLI_JSON:
		c->json = arg;
		return CLI_TAKEN;
	case CLI_HTML:
		c->html = arg;
		return CLI_TAKEN;
	case CLI_OUT:
		c->out = arg;
		return CLI_TAKEN;
	case CLI_TITLE:
		c->title = arg;
		return CLI_TAKEN;
	case CLI_NO_CHARTS:
		c->no_charts = 1;
		return CLI_TAKEN;
	case CLI_THRESHOLD:
		if (suggest_parse(&c->suggest, arg)) {
			cli_usage_error("--threshold wants NAME=VALUE with NAME a threshold "
					"listed by --help, not '%s'", arg);
			return CLI_EXIT_USAGE;
		}
		return CLI_TAKEN;
	case 'h':
		fputs(c->usage, stdout);
		if (c->help_tail)
			c->help_tail(stdout);
		return CLI_EXIT_OK;
	case 'V':
		printf("%s %s\n", log_progname(), VTRACE_VERSION);
		return CLI_EXIT_OK;
	case ':':
		cli_usage_error("option '%s' needs an argument", name);
		return CLI_EXIT_USAGE;
	case '?': {
		const char *near = closest_option(c->longopts, name);

		if (near)
			cli_usage_error("unknown option '%s'; did you mean '--%s'?", name, near);
		else
			cli_usage_error("unknown option '%s'", name);
		return CLI_EXIT_USAGE;
	}
	}
	return CLI_OTHER;
}
