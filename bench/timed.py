#!/usr/bin/env python3
"""timed.py OUT CMD [ARG...]: run CMD and write "SECONDS PEAK_KIB" to OUT.

bench/run.sh's timer.  GNU time's %e counts centiseconds, and at the
0.65 s a gigabyte takes at -j 2 a tick is 1.5 %: the ratios to inflate-only
(which times itself to the millisecond) moved in steps of 0.02 either side
of the bars.  This times the child from its spawn to its exit with
perf_counter, and takes its peak RSS from wait4() as GNU time does.  The
child's own stdout and stderr are the caller's; CMD's exit status is ours.
"""
import os
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: timed.py OUT CMD [ARG...]\n")
        return 2
    out, cmd = sys.argv[1], sys.argv[2:]
    t0 = time.perf_counter()
    try:
        pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    except OSError as e:
        sys.stderr.write("timed.py: %s: %s\n" % (cmd[0], e.strerror))
        return 127
    _, status, usage = os.wait4(pid, 0)
    secs = time.perf_counter() - t0
    with open(out, "w") as f:
        f.write("%.3f %d\n" % (secs, usage.ru_maxrss))
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())
