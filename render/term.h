/*
 * term: what the terminal summaries of vanalyze and vaggregate share.
 * Colour only when the stream is a terminal and NO_COLOR is unset.
 */
#ifndef VT_TERM_H
#define VT_TERM_H

#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "metric.h"
#include "report.h"
#include "tsafe.h"	/* every input string shown goes through it */

int term_use_color(FILE *f);

/*
 * Columns to fill: the terminal's (TIOCGWINSZ) when f is one, else
 * $COLUMNS, else 120 (80 on a terminal that does not say); at least 40.
 */
int term_width(FILE *f);

/*
 * text (a trace string is part of it: shown safe, as tsafe_put()) as
 * lines of at most width columns, the first after first_indent columns
 * the caller printed, the others indented by indent spaces; a line breaks
 * at spaces (which it drops), words longer than a line are cut.  Ends
 * with a newline.
 */
void term_wrap(FILE *f, const char *text, int first_indent, int indent, int width);

/* The lines term_wrap() would write for these arguments, writing nothing. */
int term_wrap_lines(const char *text, int first_indent, int indent, int width);

/*
 * The text of b for the terminal: "" when memory ran out building it,
 * which leaves standard output incomplete (log_stdout_lost(): said at exit,
 * and the exit status says it).
 */
const char *term_text(const struct buf *b);

/* Columns of s[0..n): code points (tsafe_putn() writes one column each). */
int term_cols(const char *s, size_t n);

/* Bytes of s[0..n) holding at most cols code points. */
size_t term_bytes(const char *s, size_t n, int cols);

/* A duration as every output shows it (metric_fmt(), UNIT_NS). */
void term_fmt_ns(char *out, size_t n, int64_t ns);

/*
 * The stragglers and the rule that named them; under the collectives rule,
 * each with the wait it imposes, and the rank that waits most, so the
 * reader sees who waits for whom.
 */
void term_stragglers(FILE *f, const struct report *rep, const char *bold, const char *off);

/*
 * "run  NAME: DEVICE, world size N (backend), DATE; tags" (run_info.h),
 * one line cut to width columns, when rep->run was computed; the tags
 * that name a user or a host only with private_tags.
 */
void term_run_line(FILE *f, const struct report *rep, const char *bold, const char *off,
		   int width, int private_tags);

/*
 * v in unit u (metric_fmt()), right-aligned in width columns: the µ and the
 * dash are one column each though more than one byte.
 */
void term_value(FILE *f, double v, enum metric_unit u, unsigned flags, int width);

/*
 * The findings (term_findings.c), as suggest_compute() ordered them: the
 * top three one line each, then with details every finding with its advice
 * and evidence, wrapped to term_width(), else a line saying how to see them.
 */
void term_suggestions(FILE *f, const struct report *rep, const char *bold, const char *off,
		      int details);

/* The --threshold table of a --help. */
void term_thresholds(FILE *f);

#endif
