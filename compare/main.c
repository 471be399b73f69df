/*
 * vcompare: compare two runs and say, with evidence, whether one regressed.
 *
 * main() parses options, loads each side (a report, or traces analysed
 * with vanalyze's own code and options), compares them (compare.c,
 * verdict.c) and prints the result as a table, markdown or JSON.  Exit
 * status as diff(1): 0 no regression, 1 a regression, 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "cli.h"
#include "compare.h"
#include "log.h"
#include "options.h"
#include "outfile.h"
#include "comparison.h"
#include "report_read.h"
#include "run_info.h"
#include "run.h"
#include "scaling.h"
#include "scaling_out.h"

static const char usage[] =
	"usage: vcompare [options] BASE NEW\n"
	"       vcompare --scaling [options] BASE NEW...\n"
	"\n"
	"Compare two runs of a pipeline and say whether NEW regressed against BASE.\n"
	"Each side is a report (report.json from vanalyze or vaggregate, or a\n"
	"directory holding one, as 'vanalyze --out' writes), or trace files: a\n"
	"trace or a directory of traces, analysed here as vanalyze would with the\n"
	"options below.\n"
	"\n"
	"A metric regresses when NEW is worse than BASE by more than its threshold\n"
	"and, where both sides have instance durations (steps, phase instances,\n"
	"kernel instances) enough for a Mann-Whitney U test to reach --alpha, the\n"
	"test finds the difference significant.  A change the test does not confirm\n"
	"is reported as noise.  Improvements are reported the same way.\n"
	"\n"
	"Options:\n"
	"      --threshold V       worse by more than V percent (5 or 5%)\n"
	"                          regresses (default 5%)\n"
	"      --threshold NAME=V  the same for one metric or a prefix of metrics:\n"
	"                          'phase:denoising=2%', 'kernel:=10%', 'span_ns=3%'\n"
	"                          (repeatable; the longest matching NAME wins)\n"
	"      --alpha P           significance level of the U test (default 0.01)\n"
	"      --min-share V       times that change by less than V percent of the\n"
	"                          span (0.5 or 0.5%, the default) count as the same\n"
	"      --top N             kernels compared: each side's top N by total time;\n"
	"                          also the added and removed kernels named (default 10)\n"
	"      --all               every row, not only the few that explain the change\n"
	"      --details           name each metric by its report key, as the JSON\n"
	"                          does, not in words\n"
	"      --markdown PATH     the comparison as markdown ('-' for stdout), for CI\n"
	"                          job summaries and pull-request comments\n"
	"      --json PATH         the comparison as JSON ('-' for stdout)\n"
	"      --strict            runs that differ in what was profiled (the device,\n"
	"                          their number, the world size, or a tag naming the\n"
	"                          model, resolution, frames or steps) are an error\n"
	"                          (exit 2), not a warning\n"
	"\n"
	"Scaling (doc/scaling.md):\n"
	"      --scaling           BASE is a run on M ranks, each NEW a run of the same\n"
	"                          workload on more ranks: time to solution, speedup,\n"
	"                          parallel efficiency, the Karp-Flatt serial fraction,\n"
	"                          per-phase speedups, and the loss of efficiency split\n"
	"                          into exposed communication, late ranks, work not\n"
	"                          parallelised, slower compute, device idle and other;\n"
	"                          --markdown and --json write it too; --strict makes\n"
	"                          runs of different workloads an error (exit 2)\n"
	"      --html PATH         with --scaling: a page with the speedup against\n"
	"                          the ranks (and the ideal) and a waterfall of the\n"
	"                          loss, drawn by gnuplot when installed\n"
	"      --no-charts         the page without gnuplot charts\n"
	"      --strong            strong scaling (same total work), whatever the\n"
	"                          workload figures say\n"
	"      --weak              weak scaling (same work per rank)\n"
	"\n"
	"Traces given as a side are analysed as vanalyze would:\n"
	ANALYZE_OPTS_HELP
	"\n"
	"Other options:\n"
	CLI_HELP_COMMON
	"\n"
	"Metrics (lower is better unless marked higher): span_ns, steps.median_ns,\n"
	"phase:PATH.total_ns and .median_ns, throughput.fps and .bps (higher),\n"
	"throughput.first_block_ns, gpu.utilization, gpu.effective_utilization and\n"
	"gpu.comm_compute_overlap (higher), gpu.memory_ns (memcpy and memset time),\n"
	"kernel:NAME.total_ns, op:NAME.total_ns (a CPU operator's inclusive time; the\n"
	"top N of each side), memory:DEV.peak_allocated and peak_reserved.  The\n"
	"run's value is its worst rank's; rows per rank follow when a side has\n"
	"several ranks (matched by rank number).  Only rows that changed are shown,\n"
	"then the count of the others.\n"
	"\n"
	"Like is compared with like: phase paths without the ProfilerStep#* wrapper;\n"
	"steps only when both sides count the same spans as steps; effective\n"
	"utilization instead of utilization where both sides have it, and elsewhere\n"
	"a utilization or idle time that improved while busy time grew no more than\n"
	"communication time is 'more waiting', not an improvement.  Kernels on one\n"
	"side only are counted with their total time as added or removed.\n"
	"\n"
	"Each side's run (its name, device, world size, date and tags, as the\n"
	"traces' metadata say) heads the output; where the two differ in what\n"
	"was profiled, vcompare says which keys differ, and compares anyway.\n"
	"\n"
	"Exit status: 0 no regression, 1 a regression found, 2 trouble (usage, an\n"
	"input that cannot be read completely, a report of another schema, runs\n"
	"that differ under --strict).\n"
	"\n"
	"Example:\n"
	"  vcompare --markdown summary.md baseline/report.json traces/\n";

struct opts {
	struct cli cli;
	struct analyze_opts a;
	struct thresholds t;
	size_t top;
	int all;
	int strict;
	int details;
	int scaling;
	enum scaling_mode mode;
	const char *markdown;
};

/* Returns -1 to go on, or the exit status. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		CLI_OPTS_COMMON,
		CLI_OPT_JSON,
		CLI_OPT_HTML,
		CLI_OPT_NO_CHARTS,
		ANALYZE_LONGOPTS,
		{ "threshold", required_argument, NULL, 'T' },
		{ "alpha", required_argument, NULL, 'A' },
		{ "min-share", required_argument, NULL, 'S' },
		{ "top", required_argument, NULL, 'N' },
		{ "all", no_argument, NULL, 'a' },
		{ "markdown", required_argument, NULL, 'M' },
		{ "strict", no_argument, NULL, 'X' },
		{ "details", no_argument, NULL, 'K' },
		{ "scaling", no_argument, NULL, 'G' },
		{ "strong", no_argument, NULL, 'g' },
		{ "weak", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	cli_init(&o->cli, usage, NULL);
	o->cli.longopts = longopts;
	opterr = 0;
	while ((c = getopt_long(argc, argv, CLI_SHORTOPTS, longopts, NULL)) != -1) {
		char *end, *eq;
		double v;
		long n;

		switch (c) {
		case 'T':
			eq = strrchr(optarg, '=');
			if (!eq) {
				if (threshold_parse_value(optarg, &o->t.all))
					return cli_usage_error("--threshold wants a percentage "
							       "such as 5 or 5%%, not '%s'",
							       optarg);
				continue;
			}
			if (eq == optarg || threshold_parse_value(eq + 1, &v))
				return cli_usage_error("--threshold wants NAME=5 or NAME=5%%, "
						       "not '%s'", optarg);
			*eq = '\0';
			o->t.rules[o->t.n++] = (struct threshold_rule){ optarg, v };
			continue;
		case 'A':
			v = strtod(optarg, &end);
			if (*end || !(v > 0 && v < 1))
				return cli_usage_error("--alpha wants a probability between 0 and "
						       "1, not '%s'", optarg);
			o->t.alpha = v;
			continue;
		case 'S':
			if (threshold_parse_value(optarg, &o->t.min_share) || o->t.min_share > 1)
				return cli_usage_error("--min-share wants a percentage of the span "
						       "such as 0.5 or 0.5%%, not '%s'", optarg);
			continue;
		case 'N':
			n = strtol(optarg, &end, 10);
			if (*end || n < 0 || n > 1000000)
				return cli_usage_error("--top wants a count from 0, not '%s'",
						       optarg);
			o->top = (size_t)n;
			continue;
		case 'a':
			o->all = 1;
			continue;
		case 'M':
			o->markdown = optarg;
			continue;
		case 'X':
			o->strict = 1;
			continue;
		case 'K':
			o->details = 1;
			continue;
		case 'G':
			o->scaling = 1;
			continue;
		case 'g':
		case 'w':
			if (o->mode != SCALING_AUTO && o->mode != (c == 'w' ? SCALING_WEAK
									    : SCALING_STRONG))
				return cli_usage_error("--strong and --weak exclude each other");
			o->mode = c == 'w' ? SCALING_WEAK : SCALING_STRONG;
			continue;
		}
		rc = analyze_opts_take(&o->a, &o->cli, c, optarg, argv[optind - 1]);
		if (rc >= 0)
			return rc;
	}
	if ((o->cli.html || o->cli.no_charts) && !o->scaling)
		return cli_usage_error("--html and --no-charts go with --scaling");
	if (o->mode != SCALING_AUTO && !o->scaling)
		return cli_usage_error("--strong and --weak go with --scaling");
	if (o->scaling && argc - optind < 2)
		return cli_usage_error("--scaling wants BASE and at least one NEW");
	if (argc - optind == 1) {
		/*
		 * "--markdown DIR DIR": the option took the first input as the file it
		 * writes (a path that exists: a report, a trace, a directory)
		 */
		const char *took[] = { o->markdown, o->cli.json };
		const char *name[] = { "--markdown", "--json" };
		struct stat st;

		for (int i = 0; i < 2; i++)
			if (took[i] && !cli_is_stdout(took[i]) && !stat(took[i], &st))
				return cli_usage_error("wants two inputs, BASE and NEW: %s took "
						       "'%s' as the file it writes; give it a "
						       "PATH ('-' for stdout) before BASE and NEW",
						       name[i], took[i]);
	}
	if (!o->scaling && argc - optind != 2)
		return cli_usage_error("wants two inputs, BASE and NEW");
	o->a.jobs = o->cli.jobs;
	o->a.progress = o->cli.progress;
	return -1;
}

/*
 * Whether path names a report file, one whose first bytes say so
 * (report_sniff()): 1 or 0, or -1 when it cannot be read (errno).
 */
static int is_report(const char *path, char *schema, size_t n)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return report_sniff(path, schema, n);
}

/*
 * One side into r: a report file, a directory with report.json in it, or
 * traces.  Returns 0, or EXIT_USAGE (trouble) after saying why.
 */
static int load_side(struct report *r, const char *arg, const struct analyze_opts *a)
{
	char schema[64], *args[1] = { (char *)arg };
	struct buf path;
	struct stat st;
	struct err e;
	int rc = 0, sniff;

	buf_init(&path);
	buf_adds(&path, arg);
	if (buf_ok(&path) && stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		buf_printf(&path, "%sreport.json", arg[strlen(arg) - 1] == '/' ? "" : "/");
		if (buf_ok(&path) && is_report(path.data, schema, sizeof(schema)) == 0) {
			buf_reset(&path);
			buf_adds(&path, arg);
		}
	}
	if (!buf_ok(&path)) {
		log_msg("%s: out of memory", arg);
		buf_release(&path);
		return EXIT_USAGE;
	}
	/* a file that cannot be sniffed is not read as a trace instead */
	sniff = is_report(path.data, schema, sizeof(schema));
	if (sniff < 0) {
		log_msg("%s: cannot read: %s", path.data, strerror(errno));
		rc = EXIT_USAGE;
	} else if (sniff) {
		outfile_input(path.data);	/* --json or --markdown must not replace it */
		rc = report_read_file(r, path.data, REPORT_READ_RUN, &e);
		if (rc == REPORT_READ_OTHER || (rc == REPORT_READ_OK && !r->nr_ranks)) {
			if (rc == REPORT_READ_OK)
				err_set(&e, -1, "the report has no ranks");
			log_error(path.data, &e);
			rc = EXIT_USAGE;
		} else if (rc != REPORT_READ_OK) {
			log_error(path.data, &e);
			rc = EXIT_USAGE;
		}
	} else if (stat(arg, &st)) {
		log_msg("%s: cannot open: %s", arg, strerror(errno));
		rc = EXIT_USAGE;
	} else if ((rc = analyze_run(r, args, 1, a)) == EXIT_USAGE) {
		/* several runs in one side: said, with how to pick one */
	} else if (rc != EXIT_OK || !r->nr_ranks) {
		/* a side read only in part would make the comparison a guess */
		log_msg("%s: %s", arg, r->nr_ranks ? "not read completely; not comparing"
						   : "no trace could be read");
		rc = EXIT_USAGE;
	}
	buf_release(&path);
	return rc;
}

#define MAX_MISMATCH 16

/*
 * What each side profiled, and where the two differ (run_info.h): said on
 * stderr, an error under --strict.  Returns 0, or EXIT_USAGE.
 */
static int check_runs(struct report *base, struct report *new, int strict, struct output_opts *oo,
		      struct buf *lines, const char **keys, const char **vals)
{
	struct buf msg;
	struct err e;

	if ((!base->run.computed && run_info_compute(base)) ||
	    (!new->run.computed && run_info_compute(new))) {
		log_msg("out of memory");
		return EXIT_USAGE;
	}
	run_info_line(base, &lines[0], 200);
	run_info_line(new, &lines[1], 200);
	if (!buf_ok(&lines[0]) || !buf_ok(&lines[1])) {
		log_msg("out of memory");
		return EXIT_USAGE;
	}
	oo->base_run = lines[0].len ? lines[0].data : NULL;
	oo->new_run = lines[1].len ? lines[1].data : NULL;
	oo->nr_mismatch = run_info_mismatch(base, new, keys, vals, MAX_MISMATCH);
	oo->mismatch = keys;
	oo->mismatch_vals = vals;
	if (!oo->nr_mismatch)
		return 0;
	buf_init(&msg);
	for (size_t i = 0; i < oo->nr_mismatch; i++) {
		buf_adds(&msg, i ? ", " : "");
		for (const char *c = keys[i]; *c; c++)	/* a key from a trace: printable only */
			buf_addc(&msg, *c >= 0x20 && *c < 0x7f ? *c : '?');
	}
	if (!buf_ok(&msg)) {
		buf_release(&msg);
		log_msg("out of memory");
		return EXIT_USAGE;
	}
	err_set(&e, -1, "base and new differ in what was profiled: %s%s", msg.data,
		strict ? "" : "; comparing anyway (--strict makes this an error)");
	if (strict)
		log_error(NULL, &e);
	else
		log_warn(NULL, &e);
	buf_release(&msg);
	return strict ? EXIT_USAGE : 0;
}

/* Write text to path ('-': stdout); 0 or -1 after saying why. */
static int emit(const char *path, const struct buf *text)
{
	struct err e;

	if (!buf_ok(text)) {
		log_msg("out of memory");
		return -1;
	}
	if (!strcmp(path, "-")) {
		fwrite(text->data, 1, text->len, stdout);
		return 0;
	}
	if (outfile_write(path, text->data, text->len, &e)) {
		log_error(NULL, &e);
		return -1;
	}
	return 0;
}

/*
 * --scaling: BASE and every NEW loaded as a side is, checked for one
 * workload, and the scaling written where asked.  Returns the exit status.
 */
static int run_scaling(const struct opts *o, char **args, size_t n)
{
	struct report *reps = calloc(n, sizeof(*reps)), **news = calloc(n, sizeof(*news));
	const char **labels = calloc(n, sizeof(*labels));
	struct scaling sc = { 0 };
	size_t loaded = 0, bad = 0;
	int status = 0;

	if (!reps || !news || !labels) {
		log_msg("out of memory");
		status = EXIT_USAGE;
		goto out;
	}
	for (; loaded < n && !status; loaded++) {
		report_init(&reps[loaded], "vcompare");
		status = load_side(&reps[loaded], args[loaded], &o->a);
		if (!status && !reps[loaded].run.computed && run_info_compute(&reps[loaded])) {
			log_msg("out of memory");
			status = EXIT_USAGE;
		}
		news[loaded] = &reps[loaded];
		labels[loaded] = args[loaded];
	}
	if (!status && scaling_compute(&sc, &reps[0], args[0], news + 1, labels + 1, n - 1,
				       o->mode)) {
		log_msg("out of memory");
		status = EXIT_USAGE;
	}
	for (size_t i = 0; !status && i < sc.nr_points; i++) {
		const struct scaling_point *p = &sc.points[i];
		struct buf keys;
		struct err e;

		if (p->ranks < sc.base_ranks) {
			err_set(&e, -1, "fewer ranks (%lld) than base (%lld)", (long long)p->ranks,
				(long long)sc.base_ranks);
			log_warn(args[i + 1], &e);
		}
		if (!p->nr_mismatch)
			continue;
		buf_init(&keys);
		for (size_t k = 0; k < p->nr_mismatch; k++) {
			buf_adds(&keys, k ? ", " : "");
			for (const char *c = p->mismatch[k]; *c; c++)	/* printable only */
				buf_addc(&keys, *c >= 0x20 && *c < 0x7f ? *c : '?');
		}
		err_set(&e, -1, "not the workload of base: %s differ%s",
			buf_ok(&keys) ? keys.data : "?",
			o->strict ? "" : "; comparing anyway (--strict makes this an error)");
		if (o->strict) {
			log_error(args[i + 1], &e);
			bad++;
		} else {
			log_warn(args[i + 1], &e);
		}
		buf_release(&keys);
	}
	if (bad)
		status = EXIT_USAGE;
	if (!status) {
		struct buf text;

		if (!o->cli.quiet && !cli_is_stdout(o->markdown) && !cli_is_stdout(o->cli.json) &&
		    !cli_is_stdout(o->cli.html))
			scaling_table(stdout, &sc);
		buf_init(&text);
		if (o->markdown) {
			scaling_markdown(&text, &sc);
			if (emit(o->markdown, &text))
				status = EXIT_USAGE;
		}
		buf_reset(&text);
		if (o->cli.json) {
			scaling_json(&text, &sc);
			if (emit(o->cli.json, &text))
				status = EXIT_USAGE;
		}
		buf_reset(&text);
		if (o->cli.html) {
			struct err e;

			/* a page without its charts still goes out, and says why */
			if (scaling_html(&text, &sc, !o->cli.no_charts, &e))
				log_warn(NULL, &e);
			if (emit(o->cli.html, &text))
				status = EXIT_USAGE;
		}
		buf_release(&text);
	}
out:
	scaling_release(&sc);
	for (size_t i = 0; i < loaded; i++)
		report_release(&reps[i]);
	free(reps);
	free(news);
	free(labels);
	return status;
}

int main(int argc, char **argv)
{
	struct threshold_rule rules[256];
	const char *keys[MAX_MISMATCH], *vals[2 * MAX_MISMATCH];
	struct buf lines[2];
	struct report base, new;
	struct comparison c;
	struct output_opts oo;
	struct opts o = { .top = 10 };
	int status, rc;

	log_init("vcompare");
	log_stdout_status(2);	/* diff(1): trouble, not a regression */
	analyze_opts_init(&o.a);
	o.t = (struct thresholds){ 0.05, rules, 0, 0.01, 0.005 };
	if (argc > (int)(sizeof(rules) / sizeof(rules[0]))) {
		log_msg("too many arguments");
		return EXIT_USAGE;
	}
	rc = parse_opts(argc, argv, &o);
	if (rc >= 0) {
		analyze_opts_release(&o.a);
		return rc;
	}
	if (o.scaling) {
		status = run_scaling(&o, argv + optind, (size_t)(argc - optind));
		fflush(stdout);
		if (ferror(stdout)) {
			log_msg("cannot write to standard output");
			status = EXIT_USAGE;
		}
		analyze_opts_release(&o.a);
		return status;
	}
	report_init(&base, "vcompare");
	report_init(&new, "vcompare");
	buf_init(&lines[0]);
	buf_init(&lines[1]);
	oo = (struct output_opts){ argv[optind], argv[optind + 1], o.all, o.top, o.t.alpha, o.t.all,
				   NULL, NULL, NULL, NULL, 0, o.details };
	status = load_side(&base, argv[optind], &o.a);
	if (!status)
		status = load_side(&new, argv[optind + 1], &o.a);
	if (!status)
		status = check_runs(&base, &new, o.strict, &oo, lines, keys, vals);
	if (!status && compare_reports(&c, &base, &new, &o.t, o.top)) {
		log_msg("out of memory comparing");
		comparison_release(&c);
		status = EXIT_USAGE;
	}
	if (!status) {
		struct buf text;

		if (!o.cli.quiet && !cli_is_stdout(o.markdown) && !cli_is_stdout(o.cli.json))
			output_table(stdout, &c, &oo);
		buf_init(&text);
		if (o.markdown) {
			output_markdown(&text, &c, &oo);
			if (emit(o.markdown, &text))
				status = EXIT_USAGE;
		}
		buf_reset(&text);
		if (o.cli.json) {
			output_json(&text, &c, &oo);
			if (emit(o.cli.json, &text))
				status = EXIT_USAGE;
		}
		buf_release(&text);
		if (!status && c.regressions)
			status = EXIT_FAIL;
		comparison_release(&c);
	}
	fflush(stdout);
	if (ferror(stdout)) {
		log_msg("cannot write to standard output");
		status = EXIT_USAGE;
	}
	report_release(&base);
	report_release(&new);
	buf_release(&lines[0]);
	buf_release(&lines[1]);
	analyze_opts_release(&o.a);
	return status;
}
