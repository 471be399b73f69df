#!/usr/bin/env bash
# vanalyze gives back exactly what the generator wrote into the demo set
# (testdata/demo-truth.json): per rank the event counts and span, every GPU
# total and the overlap, kernel counts and time per category, the CPU-side
# phase totals and counts (instances of one name summed), the step
# durations, frames, blocks (completed once per generation), first block,
# cadence, wall time and memory peaks.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
va demo --json demo.json --frames 81 "$VT_ROOT"/testdata/demo
expect_rc demo 0
python3 - demo.json "$VT_ROOT/testdata/demo-truth.json" <<'PY' || die "vanalyze differs from the generator's truth"
import json, re, sys
rep = {r["rank"]: r for r in json.load(open(sys.argv[1]))["ranks"]}
truth = json.load(open(sys.argv[2]))["ranks"]
bad = []

def same(rank, what, got, want):
    if got != want:
        bad.append("rank %d: %s: vanalyze %r, truth %r" % (rank, what, got, want))

def phase_name(raw):
    raw = re.sub(r"^fastvideo\.region::", "", raw)
    raw = re.sub(r"^profiler_region_", "", raw)
    return re.sub(r"([_#])[0-9]+$", r"\1*", raw)

for t in truth:
    k, r = t["rank"], rep[t["rank"]]
    same(k, "events.total", r["events"]["total"], t["events"]["total"])
    same(k, "by_ph", r["events"]["by_ph"], t["events"]["by_ph"])
    same(k, "span_ns", r["span_ns"], t["span_ns"])
    g, tg = r["gpu"], t["gpu"]
    for key in ("kernels", "kernel_time_ns", "busy_ns", "active_span_ns", "comm_ns",
                "compute_ns", "memory_ns"):
        same(k, "gpu." + key, g[key], tg[key])
    same(k, "comm/compute overlap ns", round(g["comm_compute_overlap"] * g["comm_ns"]),
         tg["comm_compute_overlap_ns"])
    for cat, c in tg["by_category"].items():
        rows = [x for x in r["kernels"] if x["category"] == cat]
        same(k, "kernels in " + cat, (sum(x["count"] for x in rows), sum(x["total_ns"] for x in rows)),
             (c["count"], c["total_ns"]))
    want = {}
    for p in t["phases"]:
        if p["cat"] == "user_annotation":
            n = phase_name(p["name"])
            c, tot = want.get(n, (0, 0))
            want[n] = (c + p["count"], tot + p["total_ns"])
    got = {}
    for p in r["phases"]:
        c, tot = got.get(p["name"], (0, 0))
        got[p["name"]] = (c + p["count"], tot + p["total_ns"])
    same(k, "phases (count, total) by name", got, want)
    same(k, "step durations", r["steps"]["durations_ns"], t["steps"]["durations_ns"])
    for key in ("frames", "blocks", "wall_ns", "first_block_ns"):
        same(k, "throughput." + key, r["throughput"][key], t["throughput"][key])
    same(k, "throughput.block_cadence", r["throughput"]["block_cadence"],
         t["throughput"]["cadence"])
    same(k, "memory", [(m["device"], m["peak_allocated"], m["peak_reserved"]) for m in r["memory"]],
         [(m["device"], m["peak_allocated"], m["peak_reserved"]) for m in t["memory"]])
print("\n".join(bad) if bad else "pass: %d ranks equal the generator's truth" % len(truth))
sys.exit(1 if bad else 0)
PY
