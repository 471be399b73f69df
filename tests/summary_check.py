#!/usr/bin/env python3
"""Check vanalyze's terminal summary against independent computations.

    summary_check.py SUMMARY.txt WIDTH [--frames N] TRACE...

SUMMARY.txt is what vanalyze printed (COLUMNS=WIDTH, stdout not a
terminal) for TRACE... with the same --frames.  The traces are read here
by the oracles (tests/oracle.py for spans, oracle_phases.py for steps,
phases and throughput, oracle_analyses.py for GPU figures, kernels and
operators, collectives_oracle.py for the wait at collectives); the summary
is parsed and every figure it shows must be the oracle's value rounded for
display (html_check.shown_ok()).  Also: every line fits WIDTH columns, no
line is printed twice, no trace warning is repeated on stdout, the CPU's
[memory] peak is not shown, 8 ranks fit 60 lines before the findings in
detail, and a column exists only
where some rank has a value.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collectives_oracle  # noqa: E402
import html_check  # noqa: E402  (shown_ok: a shown value is v rounded)
import oracle  # noqa: E402
import oracle_analyses  # noqa: E402
import oracle_idle  # noqa: E402
import oracle_phases  # noqa: E402
from vtcheck import cached  # noqa: E402  (each oracle's result per trace, for the test run)

ELL = "\u2026"


def fail(msg):
    print("summary_check: " + msg)
    sys.exit(1)


def name_ok(shown, full):
    """shown is full cut in the middle: its pieces appear in full, in order."""
    if shown == full:
        return True
    pos = 0
    for piece in shown.split(ELL):
        if not piece:
            continue
        k = full.find(piece, pos)
        if k < 0:
            return False
        pos = k + len(piece)
    return ELL in shown


def sections(lines):
    """{section title: [lines]} for the blocks that start at column 0."""
    out, cur = {}, None
    for ln in lines:
        if ln and not ln.startswith(" "):
            cur = ln.split(" ")[0]
            out[cur] = [ln]
        elif cur:
            out[cur].append(ln)
    return out


def columns(line, n):
    """The first n whitespace-separated values, a value being "12.3 ms" or "–"."""
    toks, out = line.split(), []
    i = 0
    while len(out) < n and i < len(toks):
        t = toks[i]
        if i + 1 < len(toks) and toks[i + 1] in ("ns", "\u00b5s", "ms", "s", "B", "KiB", "MiB",
                                                  "GiB"):
            t += " " + toks[i + 1]
            i += 1
        out.append(t)
        i += 1
    return out, " ".join(toks[i:])


def main(argv):
    path, width = argv[0], int(argv[1])
    frames = None
    rest = argv[2:]
    if rest[:1] == ["--frames"]:
        frames, rest = int(rest[1]), rest[2:]
    traces = rest
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")[:-1]

    for ln in lines:
        if len(ln) > width:
            fail("%d columns > %d: %r" % (len(ln), width, ln))
    seen = set()
    for ln in lines:
        if ln.strip() and ln in seen:
            fail("printed twice: %r" % ln)
        seen.add(ln)
    # the status column may count warnings ("1 warning" ends its line); their text is on stderr
    if re.search(r"warnings?[^\n]", text) or "memory   cpu" in text:
        fail("a trace warning or the CPU's memory on stdout")
    # the screen is what comes before the findings in detail (the advice
    # under it grows with the findings, not with the ranks); the lead's
    # findings, wrapped, take at most 4 lines where they took 3 cut ones
    screen = lines.index("findings in detail") if "findings in detail" in lines else len(lines)
    if len(traces) == 8 and screen > 51:
        fail("%d lines for 8 ranks before the findings in detail: more than a screen" % screen)

    # the oracles, in the report's rank order
    opts = oracle_phases.default_options()
    if frames is not None:
        opts["frames"] = frames
    by_rank = {}
    for pos, t in enumerate(traces):
        entry, _ = cached("span", t, pos, oracle.analyze, t, pos)
        by_rank[entry["rank"]] = {"path": t, "span": entry["span_ns"],
                                  "ph": cached("phases", t, opts, oracle_phases.analyze, t, opts),
                                  "an": cached("analyses", t, None, oracle_analyses.analyze, t)}
    ranks = sorted(by_rank)
    coll = [None] * len(ranks)  # one rank waits for nobody
    if len(ranks) > 1:
        cranks = [cached("collectives", by_rank[r]["path"], None, collectives_oracle.rank_of,
                         by_rank[r]["path"]) for r in ranks]
        coll = collectives_oracle.compute(cranks, [True] * len(ranks))["per_rank"]

    sec = sections(lines)
    table = sec.get("rank")
    if not table:
        fail("no rank table")
    head = table[0].split()
    heads = []
    for h in head[1:]:
        if h == "wait" and heads and heads[-1] == "comm":
            heads[-1] = "comm wait"
        elif h != "status":
            heads.append(h)
    rows = [r for r in table[1:] if not r.startswith("  (step: ")]
    steps_note = [r for r in table[1:] if r.startswith("  (step: ")]
    if any(by_rank[r]["ph"]["steps"].get("durations_ns") for r in ranks) != bool(steps_note):
        fail("the step note %r where the steps are %r" % (steps_note, [bool(by_rank[r]["ph"]["steps"].get("durations_ns")) for r in ranks]))
    if len(rows) != len(ranks):
        fail("%d rank rows for %d ranks" % (len(rows), len(ranks)))
    want_cols = {"fps": any(by_rank[r]["ph"]["throughput"]["fps"] is not None for r in ranks),
                 "bps": any(by_rank[r]["ph"]["throughput"]["bps"] is not None for r in ranks)}
    for c, want in want_cols.items():
        if (c in heads) != want:
            fail("column %s %s, the oracle has %s" % (c, "shown" if c in heads else "missing",
                                                      "values" if want else "none"))
    for r, ln, cw in zip(ranks, rows, coll):
        o = by_rank[r]
        vals, status = columns(ln, len(heads) + 1)
        if vals[0] != str(r):
            fail("row %r: rank %s, expected %d" % (ln, vals[0], r))
        want = {"span": o["span"], "step": o["ph"]["steps"]["median_ns"] if
                o["ph"]["steps"]["count"] else None,
                "fps": o["ph"]["throughput"]["fps"], "bps": o["ph"]["throughput"]["bps"],
                "util": o["an"]["gpu"]["utilization"],
                "step.util": cached("idle", o["path"], (o["ph"]["steps"], None),
                                    lambda: oracle_idle.analyze(oracle_idle.load(o["path"]),
                                                                o["ph"]["steps"]))[1],
                "eff.util": cw and cw["effective_utilization"],
                "comm wait": cw and cw["comm_wait_ns"], "comm": o["an"]["gpu"]["comm_ns"]}
        for h, v in zip(heads, vals[1:]):
            if h in ("fps", "bps") and v != "\u2013":
                v = v[:-2]  # "72.6/s"
            if not html_check.shown_ok(v, want[h]):
                fail("rank %d: %s shows %r, oracle %r" % (r, h, v, want[h]))
        if not re.fullmatch(r"ok|[0-9]+ warnings?", status):
            fail("rank %d: status %r" % (r, status))

    # kernels summed over ranks: top rows by time
    allk = {}
    ktime = 0
    for r in ranks:
        g = by_rank[r]["an"]["gpu"]
        ktime += g["kernel_time_ns"] or 0
        for k in by_rank[r]["an"]["kernels"]:
            a = allk.setdefault(k["name"], [0, 0, k["category"]])
            a[0] += k["total_ns"]
            a[1] += k["count"]
    want_k = sorted(allk.items(), key=lambda kv: (-kv[1][0], kv[0]))
    shown_k = sec.get("kernels", [None, None])[2:]
    if bool(shown_k) != bool(want_k):
        fail("kernel table %s, oracle has %d kernels" % ("shown" if shown_k else "missing",
                                                         len(want_k)))
    for ln, (name, (total, count, cat)) in zip(shown_k, want_k):
        vals, nm = columns(ln, 5)
        checks = [(vals[0], total / ktime), (vals[1], total), (vals[2], count),
                  (vals[3], total / count)]
        for v, w in checks:
            if not html_check.shown_ok(v, w):
                fail("kernel %s: shows %r, oracle %r" % (name, v, w))
        if vals[4] != cat or not name_ok(nm, name):
            fail("kernel row %r is not %s %s" % (ln, cat, name))

    # operators summed over ranks, by CPU time
    ops = {}
    for r in ranks:
        for op in by_rank[r]["an"]["cpu_ops"]:
            a = ops.setdefault(op["name"], [0, 0, 0, None, None])
            a[0] += op["count"]
            a[1] += op["total_ns"]
            a[2] += op["self_ns"]
            for j, f in ((3, "device_ns"), (4, "self_device_ns")):
                if op[f] is not None:
                    a[j] = (a[j] or 0) + op[f]
    want_o = sorted(ops.items(), key=lambda kv: (-kv[1][1], kv[0]))
    shown_o = sec.get("operators", [None, None])[2:]
    if bool(shown_o) != bool(want_o):
        fail("operator table %s, oracle has %d" % ("shown" if shown_o else "missing",
                                                    len(want_o)))
    for ln, (name, w) in zip(shown_o, want_o):
        vals, nm = columns(ln, 5)
        for v, x in zip(vals, w):
            if not html_check.shown_ok(v, x):
                fail("operator %s: shows %r, oracle %r (%r)" % (name, v, x, ln))
        if not name_ok(nm, name):
            fail("operator row %r is not %s" % (ln, name))

    # phases to depth 2, summed over ranks: those of at least 1 % of the summed
    # span (and their ancestors) as a tree, each level by time, largest first
    # (then by path), at most 12 rows; then how many more, and how many of
    # those are over 1 %
    tot, cnt, info, span = {}, {}, {}, 0
    deep = {}           # the phases below depth 2: hidden, but counted
    for r in ranks:
        phases = by_rank[r]["ph"]["phases"]
        if not phases:
            continue
        span += by_rank[r]["span"]
        for p in phases:
            if p["depth"] > 2:
                deep.setdefault(p["path"], [p["name"], 0])[1] += p["total_ns"]
                continue
            if p["path"] not in tot:
                info[p["path"]] = p
                tot[p["path"]] = cnt[p["path"]] = 0
            tot[p["path"]] += p["total_ns"]
            cnt[p["path"]] += p["count"]

    def parent(path):
        p = info[path]
        cut = len(path) - len(p["name"]) - 1
        return path[:cut] if p["depth"] > 0 and cut > 0 and path[:cut] in info else None

    big = {k for k in tot if span and tot[k] >= 0.01 * span}
    keep = set(big)
    for k in big:
        q = parent(k)
        while q is not None and q not in keep:
            keep.add(q)
            q = parent(q)
    order = []

    def walk(par):
        kids = sorted((k for k in keep if parent(k) == par), key=lambda k: (-tot[k], k))
        for k in kids:
            order.append(info[k])
            walk(k)
    walk(None)
    shown_p = sec.get("phases", [None, None])[2:]
    more = [ln for ln in shown_p if re.match(r"^  \d+ more phases?\b", ln)]
    shown_p = [ln for ln in shown_p if ln not in more]
    order = order[:12]
    if len(shown_p) != len(order):
        fail("%d phase rows, oracle %d" % (len(shown_p), len(order)))
    # the count line counts what is hidden at every depth and names the largest
    gone = [(tot[k], info[k]["name"]) for k in tot if k not in {p["path"] for p in order}]
    gone += [(t, name) for name, t in deep.values()]
    hidden = len(gone)
    hidden_big = sum(1 for t, _ in gone if span and t >= 0.01 * span)
    if hidden:
        top = max(gone)
        noun = "phase" if hidden == 1 else "phases"
        want = ("  %d more %s (--all), %d over 1%% of the span; the largest "
                % (hidden, noun, hidden_big) if hidden_big
                else "  %d more %s, each under 1%% of the span (--all)" % (hidden, noun))
        if len(more) != 1 or not more[0].startswith(want) or (hidden_big and not (
                more[0].endswith(" %.1f%%" % (100 * top[0] / span)) and
                name_ok(more[0][len(want):].rsplit(" ", 1)[0], top[1]))):
            fail("more-phases line %r, oracle %r, the largest %r" % (more, want, top))
    elif more:
        fail("a more-phases line %r with every phase shown" % more)
    for ln, p in zip(shown_p, order):
        vals, nm = columns(ln, 3)
        for v, x in zip(vals, (tot[p["path"]] / span, tot[p["path"]], cnt[p["path"]])):
            if not html_check.shown_ok(v, x):
                fail("phase %s: shows %r, oracle %r" % (p["path"], v, x))
        # "  share time count  " is 30 columns, then two per depth
        if not name_ok(nm, p["name"]) or ln.rindex(nm) != 30 + 2 * p["depth"]:
            fail("phase row %r is not %s at depth %d" % (ln, p["name"], p["depth"]))
    print("summary_check: %s: %d lines within %d columns, %d ranks, %d kernel, %d operator "
          "and %d phase rows agree" % (path, len(lines), width, len(ranks), len(shown_k),
                                       len(shown_o), len(shown_p)))


if __name__ == "__main__":
    main(sys.argv[1:])
