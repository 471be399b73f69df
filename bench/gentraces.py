#!/usr/bin/env python3
"""bench/gentraces.py: the traces `make bench` measures besides gentrace's.

  gentraces.py real SOURCE OUT.json.gz SIZE [RANK]
      A real-shaped trace: the events of the Kineto trace SOURCE (gzip or
      plain) written again and again until the text reaches SIZE bytes.
      Each copy is shifted past the one before in time (ts) and in every id
      that pairs events (args "correlation" and "External id", flow "id"),
      so that kernels still match their own launches and the copies follow
      one another on the same threads as further profiler steps would.
      The text is the source's own bytes with those numbers rewritten: its
      layout, args and key order stay as the profiler wrote them.  RANK,
      if given, replaces distributedInfo's rank (several files of one run).

  gentraces.py kernels OUT.json.gz SIZE
      The worst case for memory: SIZE bytes of minimal kernel events (no
      args, short names), the most records per byte of text.

SIZE is bytes with an optional K, M or G suffix (powers of 1000: bench
figures are MB of 1e6 bytes).  The output is written to OUT.tmp and renamed
when complete, so an interrupted run leaves no half file under OUT.
"""
import gzip
import os
import re
import subprocess
import sys


def parse_size(text):
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}
    t = text.strip().upper()
    if t and t[-1] in mult:
        return int(float(t[:-1]) * mult[t[-1]])
    return int(t)


def open_gzip_out(path):
    """A gzip -6 pipe (the C gzip is several times faster than Python's)."""
    out = open(path, "wb")
    proc = subprocess.Popen(["gzip", "-6", "-c"], stdin=subprocess.PIPE, stdout=out)
    return out, proc


def close_gzip_out(out, proc, tmp, path):
    proc.stdin.close()
    if proc.wait() != 0:
        sys.exit("gentraces: gzip failed")
    out.close()
    os.replace(tmp, path)


# The numbers that pair or order events, rewritten per copy.  Keys are
# matched with their quotes, so "Ev Idx" or "Sequence number" stay as they
# are.  A ts may have a fraction ("123.456"): only its integer part moves.
TS_RE = re.compile(rb'("ts"\s*:\s*)(-?\d+)')
ID_RE = re.compile(rb'("(?:correlation|External id|id)"\s*:\s*)(-?\d+)')


def split_source(text):
    """(head, events, tail): events is the body of the traceEvents array."""
    m = re.search(rb'"traceEvents"\s*:\s*\[', text)
    if not m:
        sys.exit("gentraces: no traceEvents array in the source")
    start = m.end()
    # The array's own ']' is the last one before the tail's closing keys;
    # found by a bracket walk that skips strings.
    depth, i, n, in_str = 1, start, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            if c == 0x5C:  # backslash
                i += 2
                continue
            if c == 0x22:
                in_str = False
        elif c == 0x22:
            in_str = True
        elif c in (0x5B, 0x7B):
            depth += 1
        elif c in (0x5D, 0x7D):
            depth -= 1
            if depth == 0:
                return text[:start], text[start:i], text[i:]
        i += 1
    sys.exit("gentraces: traceEvents array does not end")


def real(source, path, size, rank=None):
    with open(source, "rb") as f:
        raw = f.read()
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    head, events, tail = split_source(text)
    if rank is not None:
        head = re.sub(rb'("rank"\s*:\s*)\d+', lambda m: m.group(1) + str(rank).encode(), head)
    events = events.strip()
    if events.endswith(b","):
        events = events[:-1]
    ts = [int(m.group(2)) for m in TS_RE.finditer(events)]
    ids = [abs(int(m.group(2))) for m in ID_RE.finditer(events)]
    if not ts:
        sys.exit("gentraces: the source has no timestamps")
    # A copy starts a millisecond after the previous one ended, and its ids
    # start past every id of the copies before.
    ts_step = (max(ts) - min(ts)) // 1000 * 1000 + 1000
    id_step = 10 ** len(str(max(ids) if ids else 1))
    tmp = path + ".tmp"
    out, proc = open_gzip_out(tmp)
    w = proc.stdin
    w.write(head)
    written = len(head)
    copy = 0
    while True:
        dts, did = copy * ts_step, copy * id_step
        body = events if copy == 0 else ID_RE.sub(
            lambda m: m.group(1) + str(int(m.group(2)) + did).encode(),
            TS_RE.sub(lambda m: m.group(1) + str(int(m.group(2)) + dts).encode(), events))
        if copy:
            w.write(b",\n")
            written += 2
        w.write(b"\n" + body)
        written += 1 + len(body)
        copy += 1
        if written + len(tail) >= size:
            break
    w.write(b"\n" + tail)
    written += 1 + len(tail)
    close_gzip_out(out, proc, tmp, path)
    print(f"gentraces: {copy} copies, {written} bytes of text", file=sys.stderr)


def kernels(path, size):
    names = [b"void gemm_128x64_kernel<float>", b"elementwise_add",
             b"void softmax_warp_forward<4>", b"ncclKernel_AllReduce"]
    tmp = path + ".tmp"
    out, proc = open_gzip_out(tmp)
    w = proc.stdin
    head = b'{"traceEvents":[\n'
    w.write(head)
    written = len(head)
    ts = 1700000000000000
    i = 0
    parts = []
    while written < size:
        ev = b'%s{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d.%03d,"dur":%d.%03d}' % (
            b",\n" if i else b"", names[i & 3], ts + 10 * i, (i * 37) % 1000, 1 + (i & 7), (i * 7) % 1000)
        parts.append(ev)
        written += len(ev)
        i += 1
        if len(parts) == 10000:
            w.write(b"".join(parts))
            parts = []
    tail = b"\n]}\n"
    w.write(b"".join(parts) + tail)
    written += len(tail)
    close_gzip_out(out, proc, tmp, path)
    print(f"gentraces: {i} kernel events, {written} bytes of text", file=sys.stderr)


def main():
    args = sys.argv[1:]
    if len(args) in (4, 5) and args[0] == "real":
        real(args[1], args[2], parse_size(args[3]), int(args[4]) if len(args) == 5 else None)
    elif len(args) == 3 and args[0] == "kernels":
        kernels(args[1], parse_size(args[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
