/*
 * log: see log.h.  Messages are assembled in one buffer and written with a
 * single fputs, so lines from different threads never interleave mid-line.
 * Every line passes through tsafe_copy() on its way out: messages quote
 * file names, report fields and trace strings, and this is the one place
 * that sees them all, so no caller can forget to.
 */
#include "log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsafe.h"

static const char *progname = "vtrace";
static int stdout_status = 1;
static volatile int stdout_lost;

/*
 * At exit: what stdout could not take is an output failure like any other
 * (vanalyze T > /dev/full), so exit 1 with a message.  A closed pipe
 * (vanalyze T | head) is the reader's choice and stays quiet.  An error
 * that an earlier write met and nothing is left to flush was the program's
 * to report: the status still says it.
 */
static void close_stdout(void)
{
	int earlier = ferror(stdout);

	errno = 0;
	if (fclose(stdout) == 0) {
		if (stdout_lost)
			fprintf(stderr, "%s: out of memory: standard output is incomplete\n",
				progname);
		if (earlier || stdout_lost)
			_exit(stdout_status);
		return;
	}
	if (errno == EPIPE)
		return;
	fprintf(stderr, "%s: cannot write to standard output: %s\n", progname,
		errno ? strerror(errno) : "write error");
	_exit(stdout_status);
}

void log_stdout_status(int status)
{
	stdout_status = status;
}

void log_stdout_lost(void)
{
	stdout_lost = 1;
}

void log_init(const char *name)
{
	const char *slash = strrchr(name, '/');
	struct sigaction old;

	progname = slash ? slash + 1 : name;
	atexit(close_stdout);
	/*
	 * A write past a file-size limit (ulimit -f) raises SIGXFSZ, whose
	 * default kills us silently with the output's temporary left behind.
	 * Ignored, the write fails with EFBIG instead, which the writers say
	 * and clean up after as they do a full disk.  A handler someone else
	 * installed is theirs.
	 */
	if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	    !(old.sa_flags & SA_SIGINFO))
		signal(SIGXFSZ, SIG_IGN);
}

const char *log_progname(void)
{
	return progname;
}

int err_is_oom(const struct err *e)
{
	return !strcmp(e->msg, "out of memory");
}

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->offset = -1;
	e->compressed = 0;
	e->msg[0] = '\0';
}

int err_set(struct err *e, int64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->offset = offset;
	e->compressed = 0;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* line made safe for a terminal, with a newline, in one write. */
static void put_line(const char *line)
{
	char safe[1024];
	size_t n = tsafe_copy(safe, sizeof(safe) - 1, line);

	safe[n++] = '\n';
	fwrite(safe, 1, n, stderr);
}

static void emit(const char *marker, const char *what, const struct err *e)
{
	char line[1024];
	int n;

	n = snprintf(line, sizeof(line), "%s: %s", progname, marker);
	if (what && n < (int)sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, "%s: ", what);
	if (e->offset >= 0 && n < (int)sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, "%sbyte %lld: ",
			      e->compressed ? "compressed " : "", (long long)e->offset);
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - n, "%s", e->msg);
	put_line(line);
}

void log_error(const char *what, const struct err *e)
{
	emit("", what, e);
}

void log_warn(const char *what, const struct err *e)
{
	emit("warning: ", what, e);
}

void log_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "%s: ", progname);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	put_line(line);
}
