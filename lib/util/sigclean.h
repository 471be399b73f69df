/*
 * sigclean: what SIGINT, SIGTERM or SIGHUP must not leave behind.
 *
 * A program killed while it writes would leave its temporaries (outfile's
 * "PATH.tmp.XXXXXX", gnuplot's chart directory) for good.  Each is
 * registered here while it exists; the first registration installs a
 * handler for the three signals, unless the program ignores one (nohup,
 * a background job) or handles it itself.  The handler removes what is
 * registered, then dies of the same signal with its default action, so the
 * exit status still says what killed it.
 *
 * The handler only calls unlink() and the registered functions, which must
 * be async-signal-safe themselves; paths are copied into the table when
 * registered, so nothing it reads is ever freed.  Thread-safe.
 */
#ifndef VT_SIGCLEAN_H
#define VT_SIGCLEAN_H

/*
 * Remove path if a signal ends the program before sigclean_del().  Returns
 * a handle, or -1 when the path is too long or the table is full (the file
 * is then left behind by a kill, as it was before).
 */
int sigclean_add(const char *path);

/* Call fn(arg) from the handler instead: fn must be async-signal-safe. */
int sigclean_add_fn(void (*fn)(void *arg), void *arg);

/* Forget handle h (-1 is ignored).  Call it before the file is renamed or removed. */
void sigclean_del(int h);

#endif
