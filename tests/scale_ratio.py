#!/usr/bin/env python3
"""Check that a command grows about linearly with its input.

    scale_ratio.py [--rss] [--rc N] LABEL 'CMD ON N' 'CMD ON 4N'

Each command (split as a shell would, but run without one) runs twice;
the best of the two wall times (each taken as at least MIN_SECONDS: below
that a run is mostly the program's start, and two tests at a time on two
cores make the ratio of such times noise) (and with --rss, of the two peak resident
set sizes, from wait4()) of the second must be at most 6 times the first's:
four times the input, with room for noise, where a square would be 16.
Each run must exit N (default 0).  Prints one line of figures; exit 1 when
a ratio is over 6 or a run exits otherwise.
"""
import os
import shlex
import subprocess
import sys
import time

MAX_RATIO = 6.0
MIN_SECONDS = 0.1


def best(cmd, rc_want):
    t, rss = [], []
    for _ in range(2):
        a = time.monotonic()
        p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        t.append(time.monotonic() - a)
        rss.append(ru.ru_maxrss)        # KiB on Linux
        rc = os.waitstatus_to_exitcode(status)
        if rc != rc_want:
            sys.exit("%s: exit status %d, expected %d" % (cmd, rc, rc_want))
    return min(t), min(rss)


def main(argv):
    rss_too, rc_want = False, 0
    while argv and argv[0].startswith("--"):
        if argv[0] == "--rss":
            rss_too = True
            argv = argv[1:]
        elif argv[0] == "--rc" and len(argv) > 1:
            rc_want = int(argv[1])
            argv = argv[2:]
        else:
            break
    if len(argv) != 3:
        sys.exit(__doc__)
    label, c1, c2 = argv
    t1, m1 = best(c1, rc_want)
    t2, m2 = best(c2, rc_want)
    rt, rm = max(t2, MIN_SECONDS) / max(t1, MIN_SECONDS), m2 / max(m1, 1)
    print("%s: N %.2f s %.0f MiB, 4N %.2f s %.0f MiB, ratio %.1f time %.1f memory"
          % (label, t1, m1 / 1024, t2, m2 / 1024, rt, rm))
    bad = []
    if rt > MAX_RATIO:
        bad.append("%.1f times the time" % rt)
    if rss_too and rm > MAX_RATIO:
        bad.append("%.1f times the peak memory" % rm)
    if bad:
        sys.exit("%s: four times N took %s" % (label, " and ".join(bad)))

if __name__ == "__main__":
    main(sys.argv[1:])
