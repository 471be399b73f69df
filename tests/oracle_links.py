#!/usr/bin/env python3
"""Independent reference for the links of device work to the runtime calls
that launched it (vanalyze's join by args.correlation, analyzer/launch.c).
Python 3 stdlib only; besides tests/oracle.py's reading of the file and its
to_ns(), it shares nothing with vtrace's code.

    python3 tests/oracle_links.py TRACE

prints one line per device record that has a launch, in the format of
build/tests/event_links (tab-separated, unsorted):

    LAUNCH_TS_NS  PID  TID  NAME  DEVICE_NS  PHASES_NS

Definitions, from Kineto's activity cats (libkineto ActivityType; the 2021
writer capitalised them) and HTA's MTIA samples:
  events     the trace's events in file order; only objects with ph "X", a
             numeric ts, a dur that is numeric and >= 0 or absent (0), and
             an integer args.correlation take part.  Times as oracle.py:
             decimal microseconds to exact ns; an event whose ts, dur or
             ts + dur lies past oracle.TIME_LIMIT is left out.
  cat        compared without case.
  call       a runtime call: cat cuda_runtime, cuda_driver, runtime (2021),
             xpu_runtime, xpu_driver or mtia_runtime.
  device     device work: cat kernel (a kernel), gpu_memcpy, gpu_memset,
             memcpy or memset (2021) (copies and sets), mtia_ccp_events (a
             kernel, but dma_request, a copy, and event_record and
             event_wait, which do no work and are not device work).
  launch     of a device record: the FIRST call in file order with its
             correlation; a record whose correlation no call has is left out.
  line       the launch's ts; its pid and tid as text (a JSON integer's
             digits, a string as it is, "" when absent); the kernel's name,
             "-" for a copy or set (or a kernel without a name); the
             record's dur; its dur again for a kernel (the phases count
             kernels only), else 0.  Tab, newline, CR and backslash in the
             text are written \\t, \\n, \\r and \\\\.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (the trace reading and to_ns)

CALL_CATS = {"cuda_runtime", "cuda_driver", "runtime", "xpu_runtime", "xpu_driver",
             "mtia_runtime"}
KERNEL_CATS = {"kernel", "mtia_ccp_events"}
COPY_CATS = {"gpu_memcpy", "gpu_memset", "memcpy", "memset"}
# mtia_ccp_events by name: a copy, and records that are no work
MTIA_COPIES = {"dma_request"}
MTIA_NO_WORK = {"event_record", "event_wait"}


def text(v):
    if isinstance(v, bool):
        return ""
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    return ""


def escape(s):
    return (s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            .replace("\r", "\\r"))


def timed(ev):
    """(ts_ns, dur_ns) of an X event, or None when it has no usable times."""
    ts = oracle.to_ns(ev.get("ts"))
    if ts is None:
        return None
    dur = oracle.to_ns(ev["dur"]) if "dur" in ev else 0
    if dur is None:
        dur = 0
    if dur < 0 or any(abs(t) > oracle.TIME_LIMIT for t in (ts, dur, ts + dur)):
        return None
    return ts, dur


def kind(cat, name):
    """"call", "kernel", "copy" or None for an event of cat (lowered)."""
    if cat in CALL_CATS:
        return "call"
    if cat == "mtia_ccp_events":
        if name in MTIA_NO_WORK:
            return None
        return "copy" if name in MTIA_COPIES else "kernel"
    if cat in KERNEL_CATS:
        return "kernel"
    if cat in COPY_CATS:
        return "copy"
    return None


def links(path):
    """The lines for the trace at path, device records in file order."""
    _, events = oracle.load(path)
    first = {}      # correlation -> (ts, pid, tid) of its first call
    device = []     # (correlation, name, dur, is_kernel)
    for ev in events:
        if not isinstance(ev, dict) or ev.get("ph") != "X":
            continue
        cat = ev.get("cat")
        args = ev.get("args")
        if not isinstance(cat, str) or not isinstance(args, dict):
            continue
        corr = args.get("correlation")
        if not isinstance(corr, int) or isinstance(corr, bool):
            continue
        name = ev.get("name")
        k = kind(cat.lower(), name)
        times = timed(ev) if k else None
        if times is None:
            continue
        if k == "call":
            if corr not in first:
                first[corr] = (times[0], text(ev.get("pid")), text(ev.get("tid")))
        else:
            device.append((corr, name if k == "kernel" and isinstance(name, str) else None,
                           times[1], k == "kernel"))
    out = []
    for corr, name, dur, is_kernel in device:
        launch = first.get(corr)
        if launch is None:
            continue
        ts, pid, tid = launch
        out.append("%d\t%s\t%s\t%s\t%d\t%d" % (ts, escape(pid), escape(tid),
                                               "-" if name is None else escape(name),
                                               dur, dur if is_kernel else 0))
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: oracle_links.py TRACE", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in links(argv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
