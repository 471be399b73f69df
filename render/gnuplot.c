/*
 * gnuplot: see gnuplot.h.
 *
 * One process draws every chart: starting gnuplot costs tens of
 * milliseconds, a chart a few.  Its stdin and stdout are /dev/null and its
 * stderr is a pipe we read to the end before waitpid(), so it can never
 * block on a full pipe.  "-d" keeps a user's ~/.gnuplot out of our output,
 * which must be the same on every machine.  Files in the directory have
 * names we choose (plot.gp, cN.svg, dN.dat), so cleaning up needs no
 * directory listing.
 */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigclean.h"

extern char **environ;

#define STDERR_KEEP 4096	/* bytes of gnuplot's stderr kept for the message */

/* A directory name gnuplot can take in single quotes, on one line. */
static int usable_dir(const char *d)
{
	if (!d || d[0] != '/' || strlen(d) > 3000)
		return 0;
	for (const char *p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* s in gnuplot single quotes, where '' stands for one quote. */
static void quoted(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addc(b, '\'');
		buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

/* dir/<prefix>N<suffix> (n < 0: no N) into out[0..cap) with no stdio: for the signal handler. */
static void name_at(char *out, size_t cap, const char *dir, const char *prefix, int n,
		    const char *suffix)
{
	char digits[12];
	size_t k = 0, d = 0;

	while (n >= 0 && d < sizeof(digits)) {
		digits[d++] = (char)('0' + n % 10);
		if (!(n /= 10))
			break;
	}
	for (const char *p = dir; *p && k + 1 < cap; p++)
		out[k++] = *p;
	for (const char *p = "/"; *p && k + 1 < cap; p++)
		out[k++] = *p;
	for (const char *p = prefix; *p && k + 1 < cap; p++)
		out[k++] = *p;
	while (d && k + 1 < cap)
		out[k++] = digits[--d];
	for (const char *p = suffix; *p && k + 1 < cap; p++)
		out[k++] = *p;
	out[k] = '\0';
}

/*
 * What gnuplot_release() removes, async-signal-safe (sigclean.h): every
 * name the directory can hold is known, so no listing.  gnuplot itself may
 * be writing a chart: it is killed first.
 */
static void on_kill(void *arg)
{
	const struct gnuplot *g = arg;
	char path[sizeof(g->dir) + 32];

	if (g->child > 0) {	/* it would go on writing charts into the directory */
		kill(g->child, SIGKILL);
		waitpid(g->child, NULL, 0);
	}
	for (int i = 0; i < g->nr_charts; i++) {
		name_at(path, sizeof(path), g->dir, "c", i, ".svg");
		unlink(path);
	}
	for (int i = 0; i < g->nr_data; i++) {
		name_at(path, sizeof(path), g->dir, "d", i, ".dat");
		unlink(path);
	}
	name_at(path, sizeof(path), g->dir, "plot", -1, ".gp");
	unlink(path);
	rmdir(g->dir);
}

int gnuplot_init(struct gnuplot *g)
{
	const char *tmp = getenv("TMPDIR");

	memset(g, 0, sizeof(*g));
	buf_init(&g->script);
	err_clear(&g->err);
	if (!usable_dir(tmp))
		tmp = "/tmp";
	snprintf(g->dir, sizeof(g->dir), "%s/vtrace-charts.XXXXXX", tmp);
	if (!mkdtemp(g->dir)) {
		err_set(&g->err, -1, "cannot make a temporary directory in '%s' for gnuplot: %s",
			tmp, strerror(errno));
		g->dir[0] = '\0';
		return -1;
	}
	g->guard = sigclean_add_fn(on_kill, g);
	buf_adds(&g->script, "set encoding utf8\ncd ");
	quoted(&g->script, g->dir);
	buf_addc(&g->script, '\n');
	return 0;
}

static void remove_file(const struct gnuplot *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Remove the file named by fmt inside g's private directory. */
static void remove_file(const struct gnuplot *g, const char *fmt, ...)
{
	char path[4200];
	va_list ap;

	snprintf(path, sizeof(path), "%s/", g->dir);
	va_start(ap, fmt);
	vsnprintf(path + strlen(path), sizeof(path) - strlen(path), fmt, ap);
	va_end(ap);
	unlink(path);
}

void gnuplot_release(struct gnuplot *g)
{
	if (g->dir[0]) {
		for (int i = 0; i < g->nr_charts; i++)
			remove_file(g, "c%d.svg", i);
		for (int i = 0; i < g->nr_data; i++)
			remove_file(g, "d%d.dat", i);
		remove_file(g, "plot.gp");
		rmdir(g->dir);
		sigclean_del(g->guard);
	}
	for (int i = 0; g->svg && i < g->nr_charts; i++)
		buf_release(&g->svg[i]);
	free(g->svg);
	buf_release(&g->script);
	memset(g, 0, sizeof(*g));
}

int gnuplot_chart(struct gnuplot *g, int w, int h)
{
	int n = g->nr_charts++;

	buf_printf(&g->script,
		   "reset\n"
		   "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' "
		   "background rgb 'white'\n"
		   "set output 'c%d.svg'\n",
		   w, h, n);
	return n;
}

/* Write len bytes to a new file; 0 or -1 with errno. */
static int write_new(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t k = write(fd, data, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;

			close(fd);
			errno = e;
			return -1;
		}
		data += k;
		len -= (size_t)k;
	}
	return close(fd);
}

int gnuplot_data(struct gnuplot *g, const struct buf *data)
{
	char path[4200];
	int n = g->nr_data;

	snprintf(path, sizeof(path), "%s/d%d.dat", g->dir, n);
	if (!buf_ok(data)) {
		buf_fail(&g->script);	/* a script without its data: the page fails */
		return err_set(&g->err, -1, "out of memory writing chart data");
	}
	g->nr_data++;
	if (write_new(path, data->len ? data->data : "", data->len))
		return err_set(&g->err, -1, "cannot write '%s': %s", path, strerror(errno));
	buf_printf(&g->script, "'d%d.dat'", n);
	return 0;
}

/* The tail of gnuplot's stderr as one line, for our message. */
static void stderr_line(const struct buf *e, char *out, size_t size)
{
	size_t k = 0, start = 0, end = e->len;

	while (end > 0 && (e->data[end - 1] == '\n' || e->data[end - 1] == ' '))
		end--;
	if (end > 160)
		start = end - 160;
	for (size_t i = start; i < end && k + 1 < size; i++) {
		unsigned char c = (unsigned char)e->data[i];

		out[k++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	out[k] = '\0';
}

/* Spawn gnuplot -d SCRIPT; fill *pid and *fd (its stderr).  0 or an errno. */
static int spawn(const char *script, pid_t *pid, int *fd)
{
	char *argv[] = { "gnuplot", "-d", (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dfl;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC))
		return errno;
	if ((rc = posix_spawnattr_init(&attr)))
		goto out_pipe;
	if ((rc = posix_spawn_file_actions_init(&fa)))
		goto out_attr;
	/*
	 * log_init() ignores SIGXFSZ and an ignored signal stays ignored
	 * across exec: gnuplot, which never checks its writes, would leave a
	 * cut chart past a file-size limit instead of dying of it (a chart
	 * not drawn, and said).
	 */
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGXFSZ);
	rc = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!rc)
		rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	if (!rc)
		rc = posix_spawnp(pid, "gnuplot", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
out_attr:
	posix_spawnattr_destroy(&attr);
out_pipe:
	close(p[1]);
	if (rc) {
		close(p[0]);
		return rc;
	}
	*fd = p[0];
	return 0;
}

/* Returns 0, -1 when path cannot be read, or -2 when out of memory. */
static int read_file(const char *path, struct buf *b)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;

	if (fd < 0)
		return -1;
	while ((k = read(fd, chunk, sizeof(chunk))) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			close(fd);
			return -1;
		}
		buf_add(b, chunk, (size_t)k);
	}
	close(fd);
	return buf_ok(b) ? 0 : -2;
}

int gnuplot_run(struct gnuplot *g)
{
	char script[4200], line[200], chunk[4096];
	struct buf errtext;
	int fd = -1, status, rc;
	pid_t pid;
	ssize_t k;

	buf_adds(&g->script, "unset output\n");
	snprintf(script, sizeof(script), "%s/plot.gp", g->dir);
	if (!buf_ok(&g->script))
		return err_set(&g->err, -1, "out of memory writing the gnuplot script");
	if (write_new(script, g->script.data, g->script.len))
		return err_set(&g->err, -1, "cannot write '%s': %s", script, strerror(errno));
	rc = spawn(script, &pid, &fd);
	if (!rc)
		g->child = pid;
	if (rc == ENOENT)
		return err_set(&g->err, -1,
			       "gnuplot not found (install gnuplot-nox); the report has no charts");
	if (rc)
		return err_set(&g->err, -1, "cannot start gnuplot: %s; the report has no charts",
			       strerror(rc));
	buf_init(&errtext);
	while ((k = read(fd, chunk, sizeof(chunk))) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (errtext.len < STDERR_KEEP)
			buf_add(&errtext, chunk, (size_t)k);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	g->child = 0;
	stderr_line(&errtext, line, sizeof(line));
	buf_release(&errtext);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		char how[64];

		if (status != -1 && WIFSIGNALED(status))
			snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
		else
			snprintf(how, sizeof(how), "exit status %d",
				 status == -1 ? -1 : WEXITSTATUS(status));
		return err_set(&g->err, -1, "gnuplot failed (%s): \"%s\"; the report has no charts",
			       how, line);
	}
	g->svg = calloc((size_t)(g->nr_charts ? g->nr_charts : 1), sizeof(*g->svg));
	if (!g->svg)
		return err_set(&g->err, -1, "out of memory reading the charts");
	for (int i = 0; i < g->nr_charts; i++) {
		buf_init(&g->svg[i]);
		snprintf(script, sizeof(script), "%s/c%d.svg", g->dir, i);
		rc = read_file(script, &g->svg[i]);
		if (rc == -2)
			return err_set(&g->err, -1, "out of memory reading '%s'", script);
		if (rc)
			return err_set(&g->err, -1, "gnuplot wrote no readable '%s'", script);
	}
	g->ran = 1;
	return 0;
}

/* Copy s[0..n) to out without the first occurrence of [from, to]. */
static void cut(struct buf *out, const char *s, size_t n, const char *from, const char *to)
{
	const char *a = memmem(s, n, from, strlen(from)), *b = NULL;

	if (a) {
		a += strlen(from);
		b = memmem(a, n - (size_t)(a - s), to, strlen(to));
		a -= strlen(from);
	}
	if (!b) {
		buf_add(out, s, n);
		return;
	}
	b += strlen(to);
	buf_add(out, s, (size_t)(a - s));
	buf_add(out, b, n - (size_t)(b - s));
}

int gnuplot_svg(const struct gnuplot *g, int n, int defs, struct buf *out)
{
	const struct buf *svg;
	struct buf a, b;
	const char *start;

	if (!g->ran || n < 0 || n >= g->nr_charts)
		return -1;
	svg = &g->svg[n];
	start = svg->len ? memmem(svg->data, svg->len, "<svg", 4) : NULL;
	if (!start)
		return -1;
	buf_init(&a);
	buf_init(&b);
	/* The prolog goes; so do the canvas id and the "Gnuplot" tooltip title. */
	cut(&a, start, svg->len - (size_t)(start - svg->data), "<title>", "</title>");
	cut(&b, a.data ? a.data : "", a.len, " id=\"gnuplot_canvas", "\"");
	if (!buf_ok(&a) || !buf_ok(&b))
		buf_fail(out);	/* the page fails with its chart */
	else if (defs)
		buf_add(out, b.data, b.len);
	else
		cut(out, b.data ? b.data : "", b.len, "<defs>", "</defs>");
	buf_release(&a);
	buf_release(&b);
	return 0;
}
