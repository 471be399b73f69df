#!/usr/bin/env python3
"""Independent check of the collectives matching (python3 stdlib only).

    collectives_oracle.py REPORT.json TRACE...

Reads the traces itself (timestamps through decimal, never float), finds the
collective instances as doc/figures.md defines them, matches them across ranks and
compares everything vanalyze/vaggregate wrote about them: per rank
gpu.comm_wait_ns, comm_transfer_ns, effective_utilization, clock_offset_ns
and its spread; the run's collectives table, straggler_rule, stragglers
(rank, wait imposed, share arrived last, the collective delayed most) and
incomplete_ranks.  Prints what it computed and exits 1 on any difference.
"""
import decimal
import gzip
import json
import math
import re
import sys

COMM_WORDS = ("nccl", "rccl", "all_reduce", "allreduce", "allgather", "all_gather",
              "reduce_scatter", "reducescatter", "sendrecv", "alltoall", "all_to_all")
CPU_COMM_PREFIXES = ("gloo:", "nccl:", "c10d::")
DTYPE_BYTES = {"float": 4, "float32": 4, "double": 8, "float64": 8, "half": 2, "float16": 2,
               "bfloat16": 2, "long": 8, "int64": 8, "int": 4, "int32": 4, "short": 2,
               "int16": 2, "char": 1, "byte": 1, "int8": 1, "uint8": 1, "bool": 1,
               "float8_e4m3fn": 1, "float8_e5m2": 1}
FACTOR, MIN_SHARE = 2.0, 0.01


def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        try:
            text = f.read()
        except EOFError:        # a cut-off gzip stream: what inflated so far
            f = None
    if f is None:
        text = b""
        with gzip.open(path, "rb") as g:
            try:
                while True:
                    chunk = g.read(1)
                    if not chunk:
                        break
                    text += chunk
            except EOFError:
                pass
        text = text.decode("utf-8", "replace")
    try:
        doc = json.loads(text, parse_float=decimal.Decimal)
    except json.JSONDecodeError:
        # a cut-off trace written one event per line: the whole events before the cut
        m = re.search(r'"rank": (\d+)', text)
        evs = []
        for line in text.split("\n"):
            line = line.strip().rstrip(",")
            if line.startswith("{\"ph\""):
                try:
                    evs.append(json.loads(line, parse_float=decimal.Decimal))
                except json.JSONDecodeError:
                    pass
        doc = {"traceEvents": evs, "distributedInfo": {"rank": int(m.group(1))}}
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    rank = None
    if isinstance(doc, dict) and isinstance(doc.get("distributedInfo"), dict):
        rank = doc["distributedInfo"].get("rank")
    if rank is None:
        m = re.search(r"(?:rank[-_]?|worker)(\d+)", path.rsplit("/", 1)[-1])
        rank = int(m.group(1))
    return int(rank), events


def union(iv):
    iv = sorted(iv)
    out = []
    for lo, hi in iv:
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return sum(hi - lo for lo, hi in out)


def rank_of(path):
    rank, events = load(path)
    kernels, spans, meta = [], [], {}
    gpu_iv, comm_kernel_iv, cpu_comm_iv = [], [], []
    first = None
    for seq, e in enumerate(events):
        if not isinstance(e, dict):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        cat, name, ph = e.get("cat"), e.get("name"), e.get("ph")
        if "ts" in e and ph != "M":
            t = ns(e["ts"])
            first = t if first is None else min(first, t)
        if cat != "kernel" and "External id" in args and (
                "Collective name" in args or "Process Group Name" in args or
                "In msg nelems" in args or "Out msg nelems" in args):
            meta.setdefault(int(args["External id"]), args)
            continue
        if "ts" not in e or not isinstance(name, str):
            continue
        ts, dur = ns(e["ts"]), ns(e.get("dur", 0))
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            gpu_iv.append((ts, ts + dur))
        if cat == "kernel" and any(w in name.lower() for w in COMM_WORDS):
            kernels.append((ts, seq, dur, name, args.get("External id")))
            comm_kernel_iv.append((ts, ts + dur))
        elif cat != "kernel" and ph == "X":
            if name.startswith("gloo:"):
                spans.append((ts, seq, dur, name, None))
            if name.startswith(CPU_COMM_PREFIXES) or name == "record_param_comms":
                cpu_comm_iv.append((ts, ts + dur))
    nkernels = sum(1 for e in events if isinstance(e, dict) and e.get("cat") == "kernel")
    recs = kernels if kernels else spans
    series = {}
    for ts, seq, dur, name, ext in sorted(recs, key=lambda r: (r[0], r[1])):
        md = meta.get(int(ext)) if ext is not None else None
        key_name = re.split(r"[(<]", name, maxsplit=1)[0] or name
        group = None
        size = -1
        if md:
            key_name = md.get("Collective name", key_name)
            group = md.get("Process Group Name")
            el = max(int(md.get("In msg nelems", -1)), int(md.get("Out msg nelems", -1)))
            dt = str(md.get("dtype", "")).lower().replace("c10::", "")
            if el >= 0 and dt in DTYPE_BYTES:
                size = el * DTYPE_BYTES[dt]
        s = series.setdefault((group, key_name), {"dur": [], "end": [], "bytes": [], "gs": -1})
        s["dur"].append(dur)
        s["end"].append(ts + dur)
        s["bytes"].append(size)
        if md and "Group size" in md:
            s["gs"] = max(s["gs"], int(md["Group size"]))
    busy = union(gpu_iv)
    active = (max(h for _, h in gpu_iv) - min(l for l, _ in gpu_iv)) if gpu_iv else 0
    cpu_comm = nkernels == 0
    comm = union(cpu_comm_iv) if cpu_comm else union(comm_kernel_iv)
    last_end = max((ns(e["ts"]) + ns(e.get("dur", 0)) for e in events
                    if isinstance(e, dict) and "ts" in e and e.get("ph") != "M"), default=0)
    return {"rank": rank, "series": series, "busy": busy, "active": active, "comm": comm,
            "cpu_comm": cpu_comm, "span": (last_end - first) if first is not None else 0}


def bus_factor(name, n):
    low = name.lower()
    if "allreduce" in low or "all_reduce" in low:
        return 2.0 * (n - 1) / n
    if any(w in low for w in ("allgather", "all_gather", "reducescatter", "reduce_scatter",
                              "alltoall", "all_to_all")):
        return (n - 1) / n
    return 1.0


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else v[n // 2 - 1] + (v[n // 2] - v[n // 2 - 1]) // 2


def compute(ranks, complete):
    """ranks: list in report order; complete: list of bools."""
    n = len(ranks)
    keys = sorted({k for r in ranks for k in r["series"]},
                  key=lambda k: (k[0] is not None, (k[0] or "").encode(), k[1].encode()))
    wait = [0] * n
    imposed = [0] * n
    last = [0] * n
    matched = [0] * n
    best = [(0, None)] * n
    table = []
    shared = []
    for key in keys:
        part = [i for i in range(n) if key in ranks[i]["series"]]
        if len(part) < 2:
            continue
        ss = [ranks[i]["series"][key] for i in part]
        m = min(len(s["dur"]) for s in ss)
        kimp = [0] * len(part)
        klast = [0] * len(part)
        row = {"group": key[0], "collective": key[1], "ranks": len(part), "instances": m,
               "unmatched": max(len(s["dur"]) for s in ss) - m, "wait_ns": 0, "transfer_ns": 0}
        total_bytes, known = 0, m > 0
        for j in range(m):
            d = [s["dur"][j] for s in ss]
            lo = min(d)
            li = d.index(lo)
            w = [x - lo for x in d]
            for pi, i in enumerate(part):
                wait[i] += w[pi]
            kimp[li] += sum(w)
            klast[li] += 1
            row["wait_ns"] += sum(w)
            row["transfer_ns"] += lo
            b = next((s["bytes"][j] for s in ss if s["bytes"][j] >= 0), -1)
            if b < 0:
                known = False
            total_bytes += max(b, 0)
        for pi, i in enumerate(part):
            imposed[i] += kimp[pi]
            last[i] += klast[pi]
            matched[i] += m
            if kimp[pi] > best[i][0]:
                best[i] = (kimp[pi], key)
        lc = max(klast)
        row["last_rank"] = ranks[part[klast.index(lc)]]["rank"]
        row["last_count"] = lc
        row["bytes"] = total_bytes if known else None
        gs = max(s["gs"] for s in ss)
        if known and row["transfer_ns"] > 0:
            row["algbw_gbps"] = total_bytes / row["transfer_ns"]
            row["busbw_gbps"] = row["algbw_gbps"] * bus_factor(key[1], gs if gs > 0 else len(part))
        else:
            row["algbw_gbps"] = row["busbw_gbps"] = None
        table.append(row)
        shared.append((key, part, m))
    per_rank = []
    part_all = [i for i in range(n) if matched[i]]
    ref = part_all[0] if part_all else None
    for i, r in enumerate(ranks):
        if not matched[i]:
            per_rank.append(None)
            continue
        diffs = []
        for key, part, m in shared:
            if i in part and ref in part:
                a, b = r["series"][key]["end"], ranks[ref]["series"][key]["end"]
                diffs += [a[j] - b[j] for j in range(m)]
        work = max(r["busy"] - (0 if r["cpu_comm"] else wait[i]), 0)
        per_rank.append({
            "comm_wait_ns": wait[i],
            "comm_transfer_ns": max(r["comm"] - wait[i], 0),
            "effective_utilization": work / r["active"] if r["active"] else None,
            "clock_offset_ns": median(diffs) if diffs else None,
            "clock_offset_spread_ns": (max(diffs) - min(diffs)) if diffs else None,
        })
    stragglers = []
    if part_all:
        total = sum(imposed[i] for i in part_all)
        p = len(part_all)
        med_span = median([ranks[i]["span"] for i in part_all])
        for i in sorted(part_all, key=lambda i: (-imposed[i], i)):
            others = (total - imposed[i]) / (p - 1)
            if (complete[i] and imposed[i] > 0 and imposed[i] > FACTOR * others and
                    imposed[i] / (p - 1) >= MIN_SHARE * med_span):
                stragglers.append({"rank": ranks[i]["rank"], "wait_imposed_ns": imposed[i],
                                   "last_share": last[i] / matched[i],
                                   "delays_most": {"group": best[i][1][0],
                                                   "collective": best[i][1][1],
                                                   "wait_ns": best[i][0]}})
    return {"per_rank": per_rank, "collectives": table, "stragglers": stragglers,
            "rule": "collectives" if table and any(matched) else None,
            "imposed": {ranks[i]["rank"]: imposed[i] for i in part_all}}


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(b))
    return a == b


def main():
    rep = json.load(open(sys.argv[1]))
    by_source = {}
    for path in sys.argv[2:]:
        by_source[path.rsplit("/", 1)[-1]] = path
    ranks = [rank_of(by_source[rk["source"]]) for rk in rep["ranks"]]
    got = compute(ranks, [rk["complete"] for rk in rep["ranks"]])
    bad = []
    for rk, want in zip(rep["ranks"], got["per_rank"]):
        g = rk["gpu"]
        if want is None:
            if g.get("comm_wait_ns") is not None:
                bad.append("rank %d: comm_wait_ns %r, oracle none" % (rk["rank"], g["comm_wait_ns"]))
            continue
        for k in ("comm_wait_ns", "comm_transfer_ns", "effective_utilization"):
            if not close(g.get(k), want[k]):
                bad.append("rank %d: gpu.%s %r, oracle %r" % (rk["rank"], k, g.get(k), want[k]))
        for k in ("clock_offset_ns", "clock_offset_spread_ns"):
            if not close(rk.get(k), want[k]):
                bad.append("rank %d: %s %r, oracle %r" % (rk["rank"], k, rk.get(k), want[k]))
    if len(rep["collectives"]) != len(got["collectives"]):
        bad.append("collectives: %d rows, oracle %d" % (len(rep["collectives"]), len(got["collectives"])))
    for a, b in zip(rep["collectives"], got["collectives"]):
        for k, v in b.items():
            if not close(a.get(k), v):
                bad.append("collective %s: %s %r, oracle %r" % (b["collective"], k, a.get(k), v))
    if rep.get("straggler_rule") != got["rule"] and got["rule"]:
        bad.append("straggler_rule %r, oracle %r" % (rep.get("straggler_rule"), got["rule"]))
    if got["rule"]:
        have = [{k: s.get(k) for k in ("rank", "wait_imposed_ns", "last_share", "delays_most")}
                for s in rep["stragglers"]]
        if len(have) != len(got["stragglers"]) or any(
                not all(close(h[k], w[k]) for k in w) for h, w in zip(have, got["stragglers"])):
            bad.append("stragglers %r, oracle %r" % (have, got["stragglers"]))
    want_inc = [rk["rank"] for rk in rep["ranks"] if not rk["complete"]]
    if rep.get("incomplete_ranks") != want_inc:
        bad.append("incomplete_ranks %r, oracle %r" % (rep.get("incomplete_ranks"), want_inc))
    if len(rep["ranks"]) <= 16:
        print("oracle: stragglers %s; imposed %s; waits %s" % (
            [s["rank"] for s in got["stragglers"]], got["imposed"],
            {rk["rank"]: (w or {}).get("comm_wait_ns") for rk, w in zip(rep["ranks"], got["per_rank"])}))
    else:
        print("oracle: stragglers %s over %d ranks, %d collectives" % (
            [s["rank"] for s in got["stragglers"]], len(rep["ranks"]), len(got["collectives"])))
    for b in bad:
        print("MISMATCH: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
