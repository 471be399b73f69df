/*
 * vanalyze: analyse PyTorch profiler traces of video-generation pipelines.
 *
 * main() parses options, expands directories, runs analyze_file() over the
 * inputs, decides each input's rank, and writes the report and summary.
 * Inputs are spread over threads when there are at least as many files as
 * threads; otherwise each file gets all threads for its own pipeline.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze.h"
#include "buf.h"
#include "crossrank.h"
#include "log.h"
#include "outfile.h"
#include "rank.h"
#include "render.h"
#include "report.h"
#include "suggest.h"
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
	"Phases, steps and throughput:\n"
	"      --phase NAME=GLOB  spans whose name matches GLOB are phase NAME\n"
	"                     (repeatable; also makes such spans phases in traces\n"
	"                     without cat)\n"
	"      --phase-file PATH  the same rules, one NAME=GLOB a line ('#' comments)\n"
	"      --step GLOB    denoising-step spans when there is no ProfilerStep#\n"
	"                     (repeatable; default 'denoise_step_*' and '*step_[0-9]*')\n"
	"      --block GLOB   block spans for BPS (default 'block_*')\n"
	"      --frames N     frames each rank produced in the traced window, for FPS\n"
	"      --target-fps F the video frame rate: adds the real-time factor\n"
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
	int jobs;
	long top;
	struct phase_opts phase;
	char *phase_lines[PHASES_MAX_RULES];	/* --phase-file rules point into these */
	size_t nr_phase_lines;
	struct suggest_opts suggest;
	const char *json;
	const char *html, *out;		/* --html PATH, --out DIR */
	int quiet, progress;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", log_progname());
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\ntry 'vanalyze --help'\n");
	return EXIT_USAGE;
}

/* NAME=GLOB into the rules; rule is kept (argv or a leaked file line).  -1 if malformed. */
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
static int read_phase_file(struct opts *o, const char *path)
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

static void opts_release(struct opts *o)
{
	for (size_t i = 0; i < o->nr_phase_lines; i++)
		free(o->phase_lines[i]);
	o->nr_phase_lines = 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", required_argument, NULL, 'J' },
		{ "html", required_argument, NULL, 'W' },
		{ "out", required_argument, NULL, 'O' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "top", required_argument, NULL, 'T' },
		{ "phase", required_argument, NULL, 'p' },
		{ "phase-file", required_argument, NULL, 'F' },
		{ "step", required_argument, NULL, 's' },
		{ "block", required_argument, NULL, 'b' },
		{ "frames", required_argument, NULL, 'f' },
		{ "target-fps", required_argument, NULL, 't' },
		{ "threshold", required_argument, NULL, 'H' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->jobs = omp_get_num_procs();
	o->json = NULL;
	o->html = o->out = NULL;
	o->top = 5;
	o->nr_phase_lines = 0;
	phase_opts_init(&o->phase);
	o->suggest = (struct suggest_opts)SUGGEST_OPTS_DEFAULT;
	o->quiet = 0;
	o->progress = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qhV", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'j':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 1024)
				return usage_error("-j wants a thread count from 1 to 1024, not '%s'",
						   optarg);
			o->jobs = (int)v;
			break;
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
		case 'p':
			if (add_phase_rule(&o->phase, optarg))
				return usage_error("--phase wants NAME=GLOB, not '%s'", optarg);
			break;
		case 'F':
			if (read_phase_file(o, optarg))
				return EXIT_USAGE;
			break;
		case 's':
			if (o->phase.nr_step_globs == PHASES_MAX_RULES)
				return usage_error("%s", "too many --step globs");
			o->phase.step_globs[o->phase.nr_step_globs++] = optarg;
			break;
		case 'b':
			o->phase.block_glob = optarg;
			break;
		case 'f':
			v = strtol(optarg, &end, 10);
			if (*end || v < 0)
				return usage_error("--frames wants a frame count, not '%s'", optarg);
			o->phase.frames = v;
			break;
		case 't': {
			double fps = strtod(optarg, &end);

			if (*end || !(fps > 0 && fps < 1e6))
				return usage_error("--target-fps wants frames per second, not '%s'",
						   optarg);
			o->phase.target_fps = fps;
			break;
		}
		case 'H': {
			char *eq = strchr(optarg, '=');
			double value;

			if (!eq)
				return usage_error("--threshold wants NAME=VALUE, not '%s'", optarg);
			*eq = '\0';
			value = strtod(eq + 1, &end);
			if (*end || eq[1] == '\0' || suggest_set(&o->suggest, optarg, value))
				return usage_error("unknown threshold or bad value in '%s'; see "
						   "'vanalyze --help'", optarg);
			break;
		}
		case 'T':
			v = strtol(optarg, &end, 10);
			if (*end || v < 0 || v > 1000000)
				return usage_error("--top wants a count from 0, not '%s'", optarg);
			o->top = v;
			break;
		case 'P':
			o->progress = 0;
			break;
		case 'h':
			fputs(usage, stdout);
			printf("\nThresholds (--threshold NAME=V):\n");
			for (size_t i = 0; i < suggest_nr_thresholds; i++)
				printf("  %-18s %-8g %s\n", suggest_thresholds[i].name,
				       suggest_thresholds[i].def, suggest_thresholds[i].meaning);
			exit(EXIT_OK);
		case 'V':
			printf("vanalyze %s\n", VTRACE_VERSION);
			exit(EXIT_OK);
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no input given");
	return -1;
}

struct inputs {
	char **paths;
	size_t n, cap;
};

static void inputs_add(struct inputs *in, const char *path)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 16;
		in->paths = realloc(in->paths, in->cap * sizeof(*in->paths));
		if (!in->paths) {
			log_msg("out of memory");
			exit(EXIT_FAIL);
		}
	}
	in->paths[in->n] = strdup(path);
	if (!in->paths[in->n]) {
		log_msg("out of memory");
		exit(EXIT_FAIL);
	}
	in->n++;
}

static int is_trace_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".json")) ||
	       (n > 8 && !strcmp(name + n - 8, ".json.gz")) || (n > 4 && !strcmp(name + n - 4, ".vtr"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory stands for its trace files, sorted by name. */
static int expand(struct inputs *in, const char *arg)
{
	struct inputs found = { 0 };
	struct stat st;
	struct dirent *d;
	DIR *dir;

	if (strcmp(arg, "-") == 0 || stat(arg, &st) || !S_ISDIR(st.st_mode)) {
		inputs_add(in, arg);
		return 0;
	}
	dir = opendir(arg);
	if (!dir) {
		log_msg("%s: cannot open directory: %s", arg, strerror(errno));
		return -1;
	}
	while ((d = readdir(dir))) {
		struct buf path;

		if (d->d_name[0] == '.' || !is_trace_name(d->d_name))
			continue;
		buf_init(&path);
		buf_printf(&path, "%s%s%s", arg, arg[strlen(arg) - 1] == '/' ? "" : "/", d->d_name);
		if (stat(path.data, &st) == 0 && S_ISREG(st.st_mode))
			inputs_add(&found, path.data);
		buf_release(&path);
	}
	closedir(dir);
	if (found.n == 0)
		log_msg("%s: no *.json, *.json.gz or *.vtr files in this directory", arg);
	if (found.n > 1)
		qsort(found.paths, found.n, sizeof(*found.paths), cmp_str);
	for (size_t i = 0; i < found.n; i++) {
		inputs_add(in, found.paths[i]);
		free(found.paths[i]);
	}
	free(found.paths);
	return found.n ? 0 : -1;
}

static void analyze_all(struct file_result *res, size_t n, const struct opts *o)
{
	int jobs = o->jobs, progress = o->progress;

	if (n >= (size_t)jobs && jobs > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(jobs) default(none) shared(res, n)
		for (size_t i = 0; i < n; i++)
			analyze_file(&res[i], 1, 0);
	} else {
		for (size_t i = 0; i < n; i++)
			analyze_file(&res[i], jobs, progress);
	}
}

struct ranked {
	size_t index;		/* into res[] */
	int64_t rank;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static const char *warning_text(struct report *rep, const struct err *w)
{
	struct buf b;
	const char *s;

	buf_init(&b);
	if (w->offset >= 0)
		buf_printf(&b, "%sbyte %lld: ", w->compressed ? "compressed " : "",
			   (long long)w->offset);
	buf_adds(&b, w->msg);
	s = buf_ok(&b) ? arena_strndup(&rep->arena, b.data, b.len) : "out of memory";
	buf_release(&b);
	return s;
}

/* Report each readable input as a rank, deciding ranks as DESIGN.md says. */
static int build_report(struct report *rep, struct file_result *res, size_t n)
{
	struct ranked *order = calloc(n ? n : 1, sizeof(*order));
	const char **extra = calloc(n ? n : 1, sizeof(*extra));
	size_t k = 0;
	int status = EXIT_OK;

	if (!order || !extra) {
		log_msg("out of memory");
		exit(EXIT_FAIL);
	}
	for (size_t i = 0; i < n; i++) {
		struct file_result *r = &res[i];
		int64_t rank = r->info.rank;

		for (size_t w = 0; w < r->info.nr_warnings; w++)
			log_warn(r->path, &r->info.warnings[w]);
		if (r->rc < 0) {
			log_error(r->path, &r->err);
			status = EXIT_FAIL;
			continue;
		}
		if (r->rc > 0 || r->oom)
			status = EXIT_FAIL;
		if (rank < 0)
			rank = rank_from_name(r->path);
		if (rank < 0) {
			struct err w;

			rank = (int64_t)i;
			err_set(&w, -1, "no rank in the file or its name; rank %lld from its position",
				(long long)rank);
			extra[i] = warning_text(rep, &w);
			log_warn(r->path, &w);
		}
		order[k].index = i;
		order[k].rank = rank;
		k++;
	}
	if (k > 1)
		qsort(order, k, sizeof(*order), cmp_ranked);
	rep->ranks = arena_alloc(&rep->arena, (k ? k : 1) * sizeof(*rep->ranks));
	if (!rep->ranks) {
		log_msg("out of memory");
		exit(EXIT_FAIL);
	}
	for (size_t j = 0; j < k; j++) {
		struct file_result *r = &res[order[j].index];
		struct report_rank *rk = &rep->ranks[j];
		size_t nw = r->info.nr_warnings, w = 0;
		int dup = (j > 0 && order[j - 1].rank == order[j].rank) ||
			  (j + 1 < k && order[j + 1].rank == order[j].rank);

		analyze_to_rank(r, rep, rk);
		if (r->oom) {
			log_msg("%s: out of memory in the analyses", r->path);
			status = EXIT_FAIL;
		}
		rk->rank = order[j].rank;
		rk->warnings = arena_alloc(&rep->arena, (nw + 3) * sizeof(*rk->warnings));
		for (size_t i = 0; i < nw; i++)
			rk->warnings[w++] = warning_text(rep, &r->info.warnings[i]);
		if (r->info.nr_warnings_total > nw) {
			struct err more;

			err_set(&more, -1, "%zu more warnings not shown", r->info.nr_warnings_total - nw);
			rk->warnings[w++] = warning_text(rep, &more);
		}
		if (extra[order[j].index])
			rk->warnings[w++] = extra[order[j].index];
		if (dup) {
			struct err d;

			err_set(&d, -1, "another input also claims rank %lld; both are kept",
				(long long)rk->rank);
			rk->warnings[w++] = warning_text(rep, &d);
			log_warn(r->path, &d);
		}
		rk->nr_warnings = w;
	}
	rep->nr_ranks = k;
	free(order);
	free(extra);
	return status;
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
	struct inputs in = { 0 };
	struct file_result *res;
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
		opts_release(&o);
		return rc;
	}
	status = EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (expand(&in, argv[i]))
			status = EXIT_FAIL;
	res = calloc(in.n ? in.n : 1, sizeof(*res));
	if (!res) {
		log_msg("out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < in.n; i++)
		file_result_init(&res[i], in.paths[i], &o.phase);
	analyze_all(res, in.n, &o);

	report_init(&rep, "vanalyze");
	if (build_report(&rep, res, in.n) != EXIT_OK)
		status = EXIT_FAIL;
	if (crossrank_compute(&rep) || suggest_compute(&rep, &o.suggest)) {
		log_msg("out of memory computing cross-rank statistics or suggestions");
		status = EXIT_FAIL;
	}
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
	for (size_t i = 0; i < in.n; i++) {
		file_result_release(&res[i]);
		free(in.paths[i]);
	}
	free(res);
	free(in.paths);
	opts_release(&o);
	return status;
}
