/* term: see term.h. */
#include "term.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "esc.h"
#include "log.h"
#include "run_info.h"
#include "suggest.h"
#include "vendor_words.h"

int term_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && !(nc && *nc);
}

int term_width(FILE *f)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long w = 0;

	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	else if (env && *env)
		w = strtol(env, NULL, 10);
	if (w <= 0)	/* piped with no $COLUMNS: a file or a log keeps 120 columns of names */
		w = isatty(fileno(f)) ? 80 : 120;
	return w < 40 ? 40 : w > 1000 ? 1000 : (int)w;
}

int term_cols(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

size_t term_bytes(const char *s, size_t n, int cols)
{
	size_t i = 0;

	while (i < n && cols-- > 0) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

/* Whether s starts with a unit that metric_fmt() writes after a number. */
static int is_unit(const char *s)
{
	static const char *const units[] = { "ns", "\xc2\xb5s", "ms", "s", "B", "KiB", "MiB",
					     "GiB", "TiB", "PiB" };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i]);

		if (!strncmp(s, units[i], n) && !((s[n] >= 'a' && s[n] <= 'z') ||
						  (s[n] >= 'A' && s[n] <= 'Z')))
			return 1;
	}
	return 0;
}

/* Bytes of the word at s: up to a space, but "137 ms" is one word. */
static size_t word_len(const char *s)
{
	size_t n = strcspn(s, " ");

	while (n && s[n] == ' ' && s[n - 1] >= '0' && s[n - 1] <= '9' && is_unit(s + n + 1))
		n += 1 + strcspn(s + n + 1, " ");
	return n;
}

const char *term_text(const struct buf *b)
{
	if (b && buf_ok(b))
		return b->data ? b->data : "";
	log_stdout_lost();
	return "";
}

/* term_wrap() into f, or with f NULL only counted: returns the lines it takes. */
static int wrap_to(FILE *f, const char *text, int first_indent, int indent, int width)
{
	int lines = 1;
	int col = first_indent, started = 0, room = width - indent < 10 ? 10 : width - indent;
	const char *p = text ? text : term_text(NULL);

	for (;;) {
		int gap = (int)strspn(p, " "), w;
		size_t n;

		p += gap;
		if (!*p)
			break;
		n = word_len(p);
		w = term_cols(p, n);
		if (!started)
			gap = 0;	/* the caller's indent is the gap */
		if (col > indent && col + gap + w > width) {
			lines++;
			if (f)
				fprintf(f, "\n%*s", indent, "");
			col = indent;
			gap = 0;
		}
		if (f)
			fprintf(f, "%*s", gap, "");
		col += gap;
		while (w > width - col) {
			/* a word longer than a line: what fits, then the rest on the next */
			size_t k = term_bytes(p, n, width - col > 0 ? width - col : room);

			lines++;
			if (f) {
				tsafe_putn(f, p, k);
				fprintf(f, "\n%*s", indent, "");
			}
			col = indent;
			p += k;
			n -= k;
			w = term_cols(p, n);
		}
		if (f)
			tsafe_putn(f, p, n);
		col += w;
		started = 1;
		p += n;
	}
	if (f)
		fputc('\n', f);
	return lines;
}

void term_wrap(FILE *f, const char *text, int first_indent, int indent, int width)
{
	wrap_to(f, text, first_indent, indent, width);
}

int term_wrap_lines(const char *text, int first_indent, int indent, int width)
{
	return wrap_to(NULL, text, first_indent, indent, width);
}

void term_fmt_ns(char *out, size_t n, int64_t ns)
{
	metric_fmt(out, n, (double)ns, UNIT_NS, 0);
}

void term_run_line(FILE *f, const struct report *rep, const char *bold, const char *off,
		   int width, int private_tags)
{
	struct buf line;

	if (!rep->run.computed || !rep->nr_ranks)	/* no rank: no run to describe */
		return;
	buf_init(&line);
	run_info_line_with(rep, &line, (size_t)(width > 0 ? width : 80),
			   private_tags ? RUN_INFO_PRIVATE : 0);
	if (buf_ok(&line) && line.len) {
		fprintf(f, "%srun%s  ", bold, off);
		tsafe_putn(f, line.data,
			       width > 5 ? term_bytes(line.data, line.len, width - 5) : line.len);
		fputc('\n', f);
	} else if (!buf_ok(&line)) {
		log_stdout_lost();
	}
	buf_release(&line);
}

void term_value(FILE *f, double v, enum metric_unit u, unsigned flags, int width)
{
	char s[METRIC_FMT_MAX];
	int cols = 0;

	metric_fmt(s, sizeof(s), v, u, flags);
	for (const char *c = s; *c; c++)
		cols += ((unsigned char)*c & 0xc0) != 0x80;	/* UTF-8 lead bytes */
	fprintf(f, "%*s%s", width > cols ? width - cols : 0, "", s);
}

void term_thresholds(FILE *f)
{
	struct buf text;

	buf_init(&text);
	fprintf(f, "\nThresholds (--threshold NAME=V):\n");
	for (size_t i = 0; i < suggest_nr_thresholds(); i++) {
		const char *rule;
		const struct suggest_threshold *t = suggest_threshold_at(i, &rule);

		/* plain text at 80 columns: doc/findings.md's markdown quotes dropped */
		buf_reset(&text);
		for (const char *c = t->meaning; *c; c++)
			if (*c != '`')
				buf_addc(&text, *c);
		fprintf(f, "  %s = %g (%s)\n      ", t->name, t->def, rule);
		term_wrap(f, buf_ok(&text) ? text.data : t->meaning, 6, 6, 80);
	}
	buf_release(&text);
}

/* "NAME" or "NAME (group G)" (made safe when the line is written). */
static void put_collective(struct buf *b, const char *group, const char *name)
{
	buf_adds(b, name);
	if (group) {
		buf_adds(b, " (group ");
		buf_adds(b, group);
		buf_addc(b, ')');
	}
}

/* The line in b, wrapped to width with a hanging indent; b is emptied. */
static void flush_line(FILE *f, struct buf *b, int width)
{
	if (b->len) {
		fputs("  ", f);
		term_wrap(f, b->data, 2, 4, width);
	}
	buf_reset(b);
}

void term_stragglers(FILE *f, const struct report *rep, const char *bold, const char *off)
{
	int wait = rep->straggler_rule && !strcmp(rep->straggler_rule, "collectives");
	int width = term_width(f);
	char a[32], b[32];
	struct buf line;

	if (rep->nr_ranks < 2)
		return;
	buf_init(&line);
	fprintf(f, "%sstragglers%s ", bold, off);
	buf_printf(&line, "(%s)%s",
		   wait ? "the ranks the others wait for at collectives" :
		   rep->straggler_rule ? "no collectives matched: step rule" : "no rule applies",
		   rep->nr_stragglers ? "" : ": none");
	term_wrap(f, line.data, 11, 4, width);
	buf_reset(&line);
	for (size_t i = 0; i < rep->nr_stragglers; i++) {
		const struct report_straggler *sg = &rep->stragglers[i];

		if (!sg->by_wait) {
			/* the figure in words and in its unit, not a key and a ratio */
			enum metric_unit u = metric_unit_of(sg->metric);
			char lbl[64], v[METRIC_FMT_MAX], m[METRIC_FMT_MAX];

			metric_label_of(lbl, sizeof(lbl), sg->metric);
			metric_fmt(v, sizeof(v), sg->value, u, 0);
			metric_fmt(m, sizeof(m), sg->median, u, 0);
			buf_printf(&line, "rank %lld: %s %s against the median %s (%+.0f%%)%s",
				   (long long)sg->rank, lbl, v, m, 100 * sg->excess,
				   sg->excess < 0 ? " (the others wait for it)" : "");
			flush_line(f, &line, width);
			continue;
		}
		term_fmt_ns(a, sizeof(a), sg->wait_imposed_ns);
		term_fmt_ns(b, sizeof(b), sg->delays.wait_ns);
		buf_printf(&line, "rank %lld holds the others back: it arrives last at %.0f%% of "
			   "its collectives and the other ranks wait %s for it in all, most at ",
			   (long long)sg->rank, 100 * sg->last_share, a);
		put_collective(&line, sg->delays.group, sg->delays.name);
		buf_printf(&line, " (%s)", b);
		flush_line(f, &line, width);
	}
	if (wait && rep->nr_stragglers) {
		/* the ranks that wait most are the victims: say so, since their steps look slow */
		const struct report_rank *w = NULL;

		for (size_t i = 0; i < rep->nr_ranks; i++) {
			const struct report_rank *rk = &rep->ranks[i];

			if (rk->gpu.has_wait && (!w || report_peer_wait_ns(&rk->gpu) >
							      report_peer_wait_ns(&w->gpu)))
				w = rk;
		}
		if (w && report_peer_wait_ns(&w->gpu) > 0) {
			term_fmt_ns(a, sizeof(a), report_peer_wait_ns(&w->gpu));
			const char *d = vendor_words_of_run(rep)->device;

			buf_printf(&line, "the other ranks wait for %s: rank %lld waits most "
				   "(%s inside collectives), which shows as %s%s%slong steps there",
				   rep->nr_stragglers > 1 ? "them" : "it", (long long)w->rank, a,
				   d ? "busy " : "", d ? d : "", d ? " time and " : "");
			flush_line(f, &line, width);
		}
	}
	if (rep->nr_incomplete_ranks) {
		buf_adds(&line, "incomplete traces, never named:");
		for (size_t i = 0; i < rep->nr_incomplete_ranks; i++)
			buf_printf(&line, " %lld", (long long)rep->incomplete_ranks[i]);
		flush_line(f, &line, width);
	}
	buf_release(&line);
}
