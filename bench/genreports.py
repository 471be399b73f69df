#!/usr/bin/env python3
"""genreports.py TEMPLATE OUTDIR N [SEED]: N plausible rank reports for the vaggregate bench.

TEMPLATE is a one-rank report.json written by vanalyze (the bench makes it
from a gentrace trace).  Rank r's report goes to OUTDIR/rank_r/report.json:
the template's rank with rank number r, its own source and path, every
duration scaled by a factor of its own (about +-5 %, every 512th rank 30 %
slower, as a straggler), kernels padded to 30 rows with variants of the
template's, the samples and step durations scaled the same way.  The text is
laid out as vanalyze lays it out (two-space indent, integer arrays on one
line), so sizes and parsing work are realistic.  Python 3 standard library.
"""
import json
import os
import random
import re
import sys

KERNELS = 30
INT_ARRAY = re.compile(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]")


def scaled(v, f):
    return int(round(v * f))


def scale_dist(d, f, keys=("total_ns", "min_ns", "max_ns")):
    for k in keys:
        if isinstance(d.get(k), int):
            d[k] = scaled(d[k], f)
    for k in ("avg_ns", "median_ns", "stddev_ns"):
        if isinstance(d.get(k), (int, float)):
            d[k] = d[k] * f
    for k in ("samples_ns", "durations_ns", "spans_ns"):
        if isinstance(d.get(k), list):
            d[k] = [scaled(x, f) for x in d[k]]


def make_rank(tmpl, r, rng):
    rk = json.loads(tmpl)
    f = rng.uniform(0.95, 1.05) * (1.3 if r % 512 == 7 else 1.0)
    comm = rng.uniform(0.9, 1.1) * (0.5 if r % 512 == 7 else 1.0)
    rk["rank"] = r
    rk["source"] = "bench-rank%d.trace.json.gz" % r
    rk["span_ns"] = scaled(rk["span_ns"], f)
    g = rk["gpu"]
    for k in ("kernel_time_ns", "busy_ns", "active_span_ns", "idle_ns", "compute_ns", "memory_ns"):
        g[k] = scaled(g[k], f)
    g["comm_ns"] = scaled(g["comm_ns"], comm)
    if isinstance(g.get("utilization"), float):
        g["utilization"] = min(1.0, g["utilization"] * rng.uniform(0.97, 1.03))
    base = rk["kernels"]
    kernels = []
    for i in range(KERNELS):
        k = json.loads(json.dumps(base[i % len(base)]))
        if i >= len(base):
            k["name"] = "%s_v%d" % (k["name"], i // len(base) + 1)
        scale_dist(k, f * rng.uniform(0.98, 1.02))
        kernels.append(k)
    total = sum(k["total_ns"] for k in kernels) or 1
    for k in kernels:
        k["share"] = k["total_ns"] / total
    kernels.sort(key=lambda k: -k["total_ns"])
    rk["kernels"] = kernels
    for p in rk.get("phases", []):
        scale_dist(p, f)
        p["gpu_ns"] = scaled(p["gpu_ns"], f)
    if "steps" in rk:
        scale_dist(rk["steps"], f)
    t = rk.get("throughput")
    if t:
        for k in ("wall_ns", "first_block_ns"):
            if isinstance(t.get(k), int):
                t[k] = scaled(t[k], f)
        for k in ("fps", "bps"):
            if isinstance(t.get(k), float):
                t[k] = t[k] / f
        for k in t.get("block_latency", {}):
            t["block_latency"][k] = scaled(t["block_latency"][k], f)
    for op in rk.get("cpu_ops", []):
        op["total_ns"] = scaled(op["total_ns"], f)
        op["self_ns"] = scaled(op["self_ns"], f)
    return rk


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[0])
    template, outdir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) == 5 else 1)
    with open(template) as fh:
        rep = json.load(fh)
    tmpl = json.dumps(rep["ranks"][0])
    inp = rep["inputs"][0]
    for r in range(n):
        rk = make_rank(tmpl, r, rng)
        out = dict(rep)
        out["inputs"] = [dict(inp, path="traces/" + rk["source"], rank=r)]
        out["ranks"] = [rk]
        out["stragglers"] = []
        out["suggestions"] = []
        out.pop("cross_rank", None)
        text = json.dumps(out, indent=2, ensure_ascii=False)
        text = INT_ARRAY.sub(lambda m: "[" + ", ".join(re.split(r",\s*", m.group(1))) + "]", text)
        d = os.path.join(outdir, "rank_%d" % r)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "report.json"), "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
