#!/usr/bin/env python3
"""Independent reference for the trace-reading part of a vanalyze report.

    python3 tests/oracle.py FILE...

prints {"ranks": [...]} with, per readable trace, the keys rank, source,
events (total, by_ph, by_cat) and span_ns, sorted as vanalyze sorts them (by
rank, ties by argument position).  A file that is not a readable trace is
reported on stderr and left out; the exit status is then 1.

This file is the contract for those keys and must stay obviously right: it
uses nothing but the python3 standard library and never imports project code.

Definitions:
  input      gzip when the first two bytes are 1f 8b (multi-member allowed),
             else plain; one UTF-8 BOM before the JSON text is skipped.
  events     top level {"traceEvents": [...], ...} or a bare array [...].
  total      number of elements of the events array (objects or not).
  by_ph      count per string value of "ph"; events without a string ph are
             not counted.  by_cat: the same for "cat".
  ts_ns      int(Decimal(ts) * 1000), truncated toward zero, where ts is a
             JSON number or a string holding a JSON number; dur_ns likewise
             from "dur", 0 when absent or not numeric.
  span_ns    max(ts_ns + dur_ns) - min(ts_ns) over object events whose ph is
             not "M" (a missing ph counts as not "M") and whose ts is numeric;
             0 when there is none.  An event whose ts_ns, dur_ns or
             ts_ns + dur_ns lies outside int64 is left out (vanalyze keeps it
             "without times" and warns).
  rank       distributedInfo.rank of the top-level object when it is a JSON
             integer in [0, 2^63); else the last file-name token rank<N>,
             rank-<N>, rank_<N> or worker<N> not preceded by an ASCII letter;
             else the 0-based position of the file among the readable
             traces in the arguments (a file that is not one takes none).
"""

import decimal
import gzip
import json
import os
import re
import sys

INT64_MIN = -2**63
INT64_MAX = 2**63 - 1
# lib/sat.h: events whose ts, dur or ts + dur lie past this are left out.
TIME_LIMIT = 2**62 - 1

# A JSON number, whole string (used for numbers given as strings).
NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
# File-name rank tokens; the last match wins.
RANK_NAME_RE = re.compile(r"(?<![A-Za-z])(?:rank[-_]?|worker)([0-9]+)")

# Enough digits that ts * 1000 is never rounded, whatever the exponent
# notation (Decimal keeps the exponent separately, so 1e300 stays cheap).
decimal.getcontext().prec = 1000


class NotATrace(Exception):
    pass


def _reject_constant(name):
    raise ValueError("invalid JSON constant %s" % name)


def read_text(path):
    """Return the decompressed bytes of path (whole file, gzip or plain)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception as exc:  # EOFError, BadGzipFile, zlib.error
            raise NotATrace("gzip: %s: %s" % (type(exc).__name__, exc))
    return data


def load(path):
    """Return (top-level value, events list)."""
    data = read_text(path)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if not data.strip():
        raise NotATrace("empty input")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotATrace("not UTF-8: %s" % exc)
    try:
        # Integers stay Python ints (exact, any size); other numbers become
        # Decimal from their own text.  NaN/Infinity are not JSON.
        top = json.loads(text, parse_float=decimal.Decimal, parse_int=int,
                         parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise NotATrace("invalid JSON: %s: %s" % (type(exc).__name__, exc))
    if isinstance(top, list):
        return top, top
    if isinstance(top, dict) and isinstance(top.get("traceEvents"), list):
        return top, top["traceEvents"]
    raise NotATrace("no traceEvents array")


def to_ns(v):
    """Microseconds (JSON number or numeric string) to int ns, else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, str):
        if not NUMBER_RE.match(v):
            return None
        v = decimal.Decimal(v)
    if isinstance(v, int):
        return v * 1000
    if isinstance(v, decimal.Decimal):
        return int(v * 1000)  # int() truncates toward zero
    return None


def rank_of(top, path, position):
    """Return (rank, origin) with origin "distributedInfo", "name" or "position"."""
    if isinstance(top, dict):
        di = top.get("distributedInfo")
        if isinstance(di, dict):
            r = di.get("rank")
            if isinstance(r, int) and not isinstance(r, bool) and 0 <= r <= INT64_MAX:
                return r, "distributedInfo"
    matches = RANK_NAME_RE.findall(os.path.basename(path))
    if matches:
        return int(matches[-1]), "name"
    return position, "position"


def analyze(path, position):
    """Return the oracle's rank entry for one file (raises on a non-trace)."""
    top, events = load(path)
    by_ph = {}
    by_cat = {}
    lo = None
    hi = None
    total = len(events)
    for ev in events:
        if not isinstance(ev, dict):
            continue
        ts, dur = to_ns(ev.get("ts")), to_ns(ev.get("dur"))
        if ((ts is not None and abs(ts) > TIME_LIMIT) or
                (dur is not None and max(abs(dur), abs((ts or 0) + dur)) > TIME_LIMIT)):
            total -= 1
            continue
        ph = ev.get("ph")
        if isinstance(ph, str):
            by_ph[ph] = by_ph.get(ph, 0) + 1
        cat = ev.get("cat")
        if isinstance(cat, str):
            by_cat[cat] = by_cat.get(cat, 0) + 1
        if ph == "M":
            continue
        if ts is None:
            continue
        if dur is not None and dur < 0:
            continue  # vanalyze drops it from time sums, with a warning
        end = ts + (dur if dur is not None else 0)
        lo = ts if lo is None or ts < lo else lo
        hi = end if hi is None or end > hi else hi
    rank, origin = rank_of(top, path, position)
    entry = {
        "rank": rank,
        "source": os.path.basename(path),
        "events": {
            "total": total,
            "by_ph": dict(sorted(by_ph.items())),
            "by_cat": dict(sorted(by_cat.items())),
        },
        "span_ns": (hi - lo) if lo is not None else 0,
    }
    return entry, origin


def oracle(paths):
    """Return (ranks list, failures list of (path, message), origins list)."""
    done = []
    failures = []
    for pos, path in enumerate(paths):
        try:
            entry, origin = analyze(path, len(done))  # unreadable files hold no position
        except (OSError, NotATrace) as exc:
            failures.append((path, str(exc)))
            continue
        done.append((entry["rank"], pos, entry, origin))
    done.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in done], failures, [t[3] for t in done]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: oracle.py FILE...\n")
        return 2
    ranks, failures, _ = oracle(argv[1:])
    for path, msg in failures:
        sys.stderr.write("oracle: %s: %s\n" % (path, msg))
    json.dump({"ranks": ranks}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
