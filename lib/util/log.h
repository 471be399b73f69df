/*
 * log: exit codes, error records and the one message shape every program uses.
 *
 *   vanalyze: rank7.json.gz: byte 18342: expected ',' after member "ts"
 *
 * lib/ code never prints and never exits: it fills a caller-supplied struct err
 * and returns -1 (or NULL).  Programs decide what is fatal and print with
 * log_error()/log_warn(), which prefix the program name set by log_init().
 */
#ifndef VT_LOG_H
#define VT_LOG_H

#include <stdarg.h>
#include <stdint.h>

enum exit_code {
	EXIT_OK = 0,		/* success; vcompare: no regression */
	EXIT_FAIL = 1,		/* an input or output failed; vcompare: regression */
	EXIT_USAGE = 2,		/* bad command line; vcompare: trouble */
};

/* Where in an input a problem sits.  offset < 0 means "no position". */
struct err {
	int64_t offset;		/* byte offset in the (decompressed) input text */
	int compressed;		/* offset counts compressed bytes, not text bytes */
	char msg[256];
};

/*
 * 1 when *e says that memory ran out: lib/ words every allocation failure
 * "out of memory" alone (the position aside), so a program can tell it
 * from a bad input and make it an error wherever the reader met it.
 */
int err_is_oom(const struct err *e);

/* Clear *e.  Safe on NULL. */
void err_clear(struct err *e);

/* Fill *e with a message at offset (-1 for none).  Returns -1 for tail calls. */
int err_set(struct err *e, int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Set the program name printed before every message, and check standard
 * output at exit: a write error there (EPIPE aside) prints a message and
 * makes the exit status 1.  SIGXFSZ is ignored, so that a write past a
 * file-size limit fails with EFBIG (an output failure, said) instead of
 * killing the program.  Programs call it once, first.
 */
void log_init(const char *progname);
/* The exit status for a standard output failure (1 unless set; vcompare: 2). */
void log_stdout_status(int status);
/*
 * Text meant for standard output was lost (memory ran out building it): a
 * standard output failure like a write error, said once at exit.
 */
void log_stdout_lost(void);
const char *log_progname(void);

/*
 * Print "prog: what: byte N: msg" (what and the offset are optional) to
 * stderr.  log_error() and log_warn() differ only in a "warning: " marker.
 */
void log_error(const char *what, const struct err *e);
void log_warn(const char *what, const struct err *e);
void log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
