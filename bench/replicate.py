#!/usr/bin/env python3
"""replicate.py OUTDIR N [--skip R] TEMPLATE...: N real-size rank reports for the reduce bench.

Each TEMPLATE is a one-rank report.json that vanalyze wrote for one real
trace (the bench uses the 8 DLRM ranks of ../shared, about 99 kB each).
Rank r's report goes to OUTDIR/NNNNNN/report.json: template r % len(TEMPLATE)
with its rank number set to r, its source and path renamed after r, and
its world_size set to N, so the set reads as one run of N ranks.  Everything
else (kernels, phases, cpu_ops, collectives) stays as the real trace gave
it, so sizes and parsing work are those of real reports.  --skip R leaves
rank R out (the missing rank of the bench's bar).  The text is rewritten,
not re-serialised, so the layout is exactly vanalyze's.  Python 3 standard
library only.
"""
import json
import os
import re
import sys


def template(path):
    with open(path) as fh:
        text = fh.read()
    rep = json.loads(text)
    if len(rep["ranks"]) != 1:
        sys.exit("replicate.py: %s: want a report of one rank" % path)
    rk = rep["ranks"][0]
    src, rank = rk["source"], rk["rank"]
    inp = rep["inputs"][0]["path"]
    # Every place the rank's identity appears, as the writer spells it.
    subs = [
        (json.dumps(inp, ensure_ascii=False), "\0PATH\0"),
        (json.dumps(src, ensure_ascii=False), "\0SOURCE\0"),
    ]
    for old, new in subs:
        if old not in text:
            sys.exit("replicate.py: %s: %s not found" % (path, old))
        text = text.replace(old, new)
    # inputs[0].rank and ranks[0].rank come first; suggestions may name it too
    text, k = re.subn(r'("rank": )%d(,)' % rank, r"\1\0RANK\0\2", text, count=2)
    if k != 2:
        sys.exit("replicate.py: %s: the rank is not in inputs and ranks" % path)
    # inputs[0].world_size, and the run's where the report has one
    text, k = re.subn(r'("world_size": )(\d+|null)', r"\1\0WORLD\0", text)
    if k < 1:
        sys.exit("replicate.py: %s: no world_size" % path)
    return text.split("\0")


def main():
    args = sys.argv[1:]
    skip = None
    if len(args) >= 2 and "--skip" in args:
        i = args.index("--skip")
        skip = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__.strip().splitlines()[0])
    outdir, n = args[0], int(args[1])
    parts = [template(p) for p in args[2:]]
    for r in range(n):
        if r == skip:
            continue
        t = parts[r % len(parts)]
        name = "replica-rank%d.pt.trace.json.gz" % r
        val = {"PATH": json.dumps("traces/" + name), "SOURCE": json.dumps(name),
               "RANK": str(r), "WORLD": str(n)}
        text = "".join(val.get(p, p) for p in t)
        d = os.path.join(outdir, "%06d" % r)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "report.json"), "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
