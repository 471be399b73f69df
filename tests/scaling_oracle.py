#!/usr/bin/env python3
"""Independent oracle for `vcompare --scaling` (doc/scaling.md), python3 stdlib.

Reads the traces themselves, never vtrace's reports, and computes the
scaling figures of doc/scaling.md from their events:

    scaling_oracle.py [--weak] BASE_DIR NEW_DIR...

Each DIR holds one run: NAME-rank{R}.trace.json.gz (or .json) files, Chrome
trace JSON as torch.profiler writes it (the legacy bare array or Kineto's
object).  Host-only runs (no device events): device idle is 0 and a
collective overlaps no compute.  Prints JSON shaped like the "scaling"
object of vcompare --json (the figures only).

Definitions, as doc/scaling.md gives them:
- phases: the fastvideo regions (names with "profiler_region_"), named by
  what follows it; a phase's time is the union of its spans;
- a generation is one span of the denoising region; a rank's wall time is
  the first region start to the last region end, divided by generations;
- communication: the union of spans named gloo:*, nccl:*, c10d::* or
  record_param_comms; the collective instances are the gloo:* spans, per
  name in start order, matched across ranks by (name, index); an
  instance's wait is its duration less the shortest duration of the same
  instance over the ranks;
- everything else (tail, parts, "did not shrink") as doc/scaling.md says.
"""
import gzip
import json
import os
import re
import sys

NOT_SHRUNK = 0.5
COMM_PREFIXES = ("gloo:", "nccl:", "c10d::")


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(v):
    # decimal microseconds to integer ns without a float round trip
    s = str(v)
    if "." in s:
        a, b = s.split(".")
        b = (b + "000")[:3]
        return int(a) * 1000 + (int(b) if not a.startswith("-") else -int(b))
    return int(s) * 1000


def union(iv):
    iv = sorted(iv)
    out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(u):
    return sum(e - s for s, e in u)


def inside(u, s, e):
    return sum(max(0, min(b, e) - max(a, s)) for a, b in u)


def rank_of(path, i):
    m = re.search(r"rank[-_]?(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else i


def read_rank(path):
    phases, comm, inst = {}, [], {}
    for ev in load(path):
        if ev.get("ph") != "X" or "dur" not in ev:
            continue
        name = ev.get("name", "")
        s = ns(ev["ts"])
        e = s + ns(ev["dur"])
        if "profiler_region_" in name:
            phases.setdefault(name.split("profiler_region_", 1)[1], []).append((s, e))
        if name.startswith(COMM_PREFIXES) or name == "record_param_comms":
            comm.append((s, e))
        if name.startswith("gloo:"):
            inst.setdefault(name, []).append((s, e))
    for k in inst:
        inst[k].sort()
    spans = [x for v in phases.values() for x in v]
    den = [k for k in phases
           if k.endswith("denoising") and not k.endswith(("pre_denoising", "post_denoising"))]
    gens = max(1, len(phases[den[0]])) if den else 1
    return {
        "phases": {k: union(v) for k, v in phases.items()},
        "wall": (max(e for _, e in spans) - min(s for s, _ in spans)) if spans else 0,
        "comm": length(union(comm)),
        "inst": inst,
        "gens": gens,
    }


def read_run(d):
    files = sorted(os.path.join(d, f) for f in os.listdir(d)
                   if f.endswith((".json", ".json.gz")) and "rank" in f)
    ranks = [read_rank(f) for f in files]
    # the wait in each matched instance
    waits = [0] * len(ranks)
    names = set.intersection(*(set(r["inst"]) for r in ranks)) if len(ranks) > 1 else set()
    for name in names:
        n = min(len(r["inst"][name]) for r in ranks)
        for k in range(n):
            durs = [r["inst"][name][k][1] - r["inst"][name][k][0] for r in ranks]
            low = min(durs)
            for i, dd in enumerate(durs):
                waits[i] += dd - low
    g = max(r["gens"] for r in ranks)
    side = {"ranks": len(ranks), "wall": [], "exposed": 0.0, "wait": 0.0, "tail": 0.0,
            "phase": {}, "work": {}}
    for r, w in zip(ranks, waits):
        comm = r["comm"] / g
        wait = min(w / g, comm)
        exposed = max(0.0, comm - wait)
        lost = (exposed + wait) / comm if comm > 0 else 0.0
        side["wall"].append(r["wall"] / g)
        side["exposed"] += exposed
        side["wait"] += wait
        for p, u in r["phases"].items():
            c = sum(inside(u, s, e) for v in r["inst"].values() for s, e in v)
            side["phase"][p] = side["phase"].get(p, 0.0) + length(u) / g
            side["work"][p] = side["work"].get(p, 0.0) + (length(u) - lost * c) / g
    side["time"] = max(side["wall"])
    side["tail"] = sum(side["time"] - w for w in side["wall"])
    return side


def point(b, n, weak):
    M, N = b["ranks"], n["ranks"]
    rel = N / M
    w = rel if weak else 1.0
    S = w * b["time"] / n["time"]
    E = S / rel
    total = N * n["time"]
    ideal = w * M * b["time"]
    parts = {
        "exposed_comm": n["exposed"] - w * b["exposed"],
        "late_ranks": n["wait"] + n["tail"] - w * (b["wait"] + b["tail"]),
        "not_parallelised": 0.0,
        "slower_compute": 0.0,
        "device_idle": 0.0,
    }
    phases = {}
    for p in list(b["work"]) + [q for q in n["work"] if q not in b["work"]]:
        bw, nw = b["work"].get(p, 0.0), n["work"].get(p, 0.0)
        gone = bw / M * w
        shrunk = not (N > M and bw > 0 and nw / N > gone * M / N + NOT_SHRUNK * (gone - gone * M / N))
        loss = nw - w * bw
        parts["slower_compute" if shrunk else "not_parallelised"] += loss
        phases[p] = {"base_ns": b["phase"].get(p, 0.0) / M, "new_ns": n["phase"].get(p, 0.0) / N,
                     "not_shrunk": not shrunk, "loss_rank_ns": loss}
    parts["other"] = total - ideal - sum(parts.values())
    return {
        "ranks": N, "time_ns": n["time"], "speedup": S, "efficiency": E,
        "karp_flatt": (1 / S - 1 / rel) / (1 - 1 / rel) if rel > 1 else None,
        "loss": 1 - ideal / total, "rank_time_ns": total,
        "loss_parts": {k: {"rank_ns": v, "share": v / total} for k, v in parts.items()},
        "phases": phases,
    }


def main(argv):
    weak = False
    if argv and argv[0] == "--weak":
        weak, argv = True, argv[1:]
    if len(argv) < 2:
        sys.exit("usage: scaling_oracle.py [--weak] BASE_DIR NEW_DIR...")
    base = read_run(argv[0])
    out = {"mode": "weak" if weak else "strong",
           "base": {"ranks": base["ranks"], "time_ns": base["time"]},
           "points": [point(base, read_run(d), weak) for d in argv[1:]]}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
