/*
 * sigclean: see sigclean.h.  A fixed table of slots, each claimed with a
 * compare-and-swap: no allocation, no lock, nothing the handler could find
 * half-written (a slot is marked live only after its path is copied).
 */
#include "sigclean.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 64	/* temporaries alive at once: a few per writing thread */

enum { FREE, CLAIMED, LIVE_FILE, LIVE_FN };

static struct slot {
	_Atomic int state;
	void (*fn)(void *arg);
	void *arg;
	char path[PATH_MAX];
} slots[SLOTS];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < SLOTS; i++) {
		int st = atomic_load(&slots[i].state);

		if (st == LIVE_FILE)
			unlink(slots[i].path);
		else if (st == LIVE_FN)
			slots[i].fn(slots[i].arg);
	}
	errno = saved;
	/* SA_RESETHAND restored the default; SA_NODEFER lets it act now */
	raise(sig);
}

static void install(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(signals[i], &sa, NULL);
}

static int claim(void)
{
	pthread_once(&once, install);
	for (int i = 0; i < SLOTS; i++) {
		int expect = FREE;

		if (atomic_compare_exchange_strong(&slots[i].state, &expect, CLAIMED))
			return i;
	}
	return -1;
}

int sigclean_add(const char *path)
{
	size_t n = strlen(path);
	int h;

	if (n >= PATH_MAX || (h = claim()) < 0)
		return -1;
	memcpy(slots[h].path, path, n + 1);
	atomic_store(&slots[h].state, LIVE_FILE);
	return h;
}

int sigclean_add_fn(void (*fn)(void *arg), void *arg)
{
	int h = claim();

	if (h < 0)
		return -1;
	slots[h].fn = fn;
	slots[h].arg = arg;
	atomic_store(&slots[h].state, LIVE_FN);
	return h;
}

void sigclean_del(int h)
{
	if (h >= 0 && h < SLOTS)
		atomic_store(&slots[h].state, FREE);
}
