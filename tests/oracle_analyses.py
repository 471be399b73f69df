#!/usr/bin/env python3
"""Independent reference for the GPU, kernel, memory and CPU-operator parts of
a vanalyze report (the keys gpu, kernels, memory, cpu_ops of one rank).

    python3 tests/oracle_analyses.py FILE

prints {"gpu": {...}, "kernels": [...], "memory": [...], "cpu_ops": [...]}
for that one trace.  It uses nothing but the python3 standard library and,
from the project, only the reading helpers of tests/oracle.py (load, to_ns),
which are themselves the independent reference for reading.  This docstring is
the contract for those keys; keep the code obviously right, not fast.

Definitions:
  event      a JSON object of the events array whose "ts" is numeric
             (oracle.to_ns); nothing else takes part below.  ts_ns and dur_ns
             as in tests/oracle.py (dur_ns is 0 when dur is absent or not
             numeric).  Any ph takes part unless a rule below names one.
  name       the "name" value when it is a string, else "" (a kernel or
             cpu_op without a string name is still counted, under "").
  GPU event  cat exactly "kernel", "gpu_memcpy" or "gpu_memset".
  union      total length of the union of the intervals [ts, ts + dur);
             an interval with dur <= 0 contributes nothing.
  gpu        kernels: count of kernel events; kernel_time_ns: sum of their
             dur_ns.  busy_ns: union over all GPU events.  active_span_ns:
             max(ts + dur) - min(ts) over GPU events, 0 when none.
             idle_ns = active_span_ns - busy_ns.  utilization = busy_ns /
             active_span_ns, null when active_span_ns is 0.  memory_ns: union
             of gpu_memcpy and gpu_memset events.
             With at least one kernel event: comm_ns = union of comm kernels,
             compute_ns = union of all other kernels, comm_compute_overlap =
             |union(comm) ∩ union(compute)| / comm_ns (null when comm_ns is
             0), comm_source "gpu".
             Without any kernel event (CPU-only run): comm_ns = union of the
             ph "X" events whose name starts with "gloo:", "nccl:" or
             "c10d::" or equals "record_param_comms" (any thread, any cat);
             compute_ns 0; overlap null when comm_ns is 0, else 0.0;
             comm_source "cpu".
  category   of a kernel, from its name with ASCII letters lowercased (A-Z
             only, as C's tolower in the "C" locale), the first of CATEGORIES
             with a substring in it, else "other".
  kernels    one row per distinct kernel name: name, category, count,
             total_ns, avg_ns (total/count), median_ns (mean of the two middle
             values for an even count), min_ns, max_ns, stddev_ns (population),
             share = total_ns / gpu.kernel_time_ns (0.0 when that is 0).
             Sorted by total_ns descending, then name ascending (code point
             order, the same as byte order of UTF-8).
  memory     events named "[memory]" (any ph, any cat), grouped by
             args["Device Id"] when that is a JSON integer, else -1 (absent,
             or args not an object).  peak_allocated / peak_reserved: max of
             args["Total Allocated"] / args["Total Reserved"] over the group's
             events where that value is a JSON number (not a bool, not a
             string); 0 when there is none.  capacity: totalGlobalMem of the
             first top-level deviceProperties entry whose "id" equals the
             device, when that is a JSON integer; else null.  Sorted by device.
  cpu_ops    events with cat "cpu_op" and ph "X", per name: count, total_ns =
             sum of dur_ns, self_ns = sum of (dur_ns minus the dur_ns of its
             direct children).  Children: per thread (pid, tid; values compared
             with their JSON type, so 1 and "1" are different threads; absent
             is its own value), sort the thread's cpu_ops by ts ascending, dur
             descending, then file order; sweep with a stack: pop while the
             event does not start before the top's end (ts >= top_end); if the
             stack is not empty the top is the parent; push the event.  A child
             that ends after its parent still counts whole (nothing clipped).
             Sorted by total_ns descending, then name ascending.
  numbers    ints stay ints; avg/median/stddev/share/utilization/overlap are
             floats (or null).  Statistics are computed exactly (integers and
             fractions) and rounded to float at the end.
"""

import decimal
import fractions
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load, to_ns: the independent reading reference)

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

CATEGORIES = [
    ("comm", ["nccl", "rccl", "all_reduce", "allreduce", "allgather", "all_gather",
              "reduce_scatter", "reducescatter", "sendrecv", "alltoall", "all_to_all"]),
    ("attention", ["flash", "fmha", "attention", "sdpa"]),
    ("gemm", ["gemm", "gemv", "matmul", "cutlass", "cublas", "wgmma", "sm90_xmma"]),
    ("conv", ["conv"]),
    ("norm", ["layer_norm", "layernorm", "rms_norm", "rmsnorm", "group_norm", "groupnorm",
              "batch_norm", "batchnorm"]),
    ("elementwise", ["elementwise"]),
    ("reduce", ["reduce"]),
]

CPU_COMM_PREFIXES = ("gloo:", "nccl:", "c10d::")
CPU_COMM_NAMES = ("record_param_comms",)

ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def category(name):
    low = name.translate(ASCII_LOWER)
    for cat, words in CATEGORIES:
        for w in words:
            if w in low:
                return cat
    return "other"


def union_length(intervals):
    """Length of the union of [start, end) intervals; empty ones count 0."""
    total = 0
    cur_start = cur_end = None
    for start, end in sorted(iv for iv in intervals if iv[1] > iv[0]):
        if cur_end is None or start > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = start, end
        elif end > cur_end:
            cur_end = end
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return is_int(v) or isinstance(v, decimal.Decimal)


def plain_number(v):
    """A JSON number for output: int when integral, else float."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v


def ratio(a, b):
    """a / b as the float nearest the exact quotient."""
    return float(fractions.Fraction(a, b))


def stats(durs):
    """(avg, median, stddev) of a non-empty list of ints, each a float."""
    n = len(durs)
    s = sorted(durs)
    total = sum(s)
    avg = fractions.Fraction(total, n)
    if n % 2:
        median = fractions.Fraction(s[n // 2])
    else:
        median = fractions.Fraction(s[n // 2 - 1] + s[n // 2], 2)
    var = sum((fractions.Fraction(x) - avg) ** 2 for x in s) / n
    # sqrt of the exact variance: math.isqrt on a scaled integer keeps it
    # exact to far beyond double precision before the one rounding.
    scale = 10 ** 40
    root = math.isqrt(var.numerator * scale * scale // var.denominator)
    stddev = float(fractions.Fraction(root, scale))
    return float(avg), float(median), stddev


def thread_key(ev, key):
    """pid or tid compared with its JSON type; absent is its own value."""
    if key not in ev:
        return ("absent",)
    v = ev[key]
    if isinstance(v, decimal.Decimal):
        return ("number", str(v))
    return (type(v).__name__, json.dumps(v, sort_keys=True, default=str))


def analyze_events(top, events):
    rows = []  # (file index, ev, ts_ns, dur_ns, name)
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            continue
        ts = oracle.to_ns(ev.get("ts"))
        if ts is None:
            continue
        dur = oracle.to_ns(ev.get("dur")) if "dur" in ev else None
        if dur is None:
            dur = 0
        name = ev.get("name")
        rows.append((i, ev, ts, dur, name if isinstance(name, str) else ""))

    # ---- GPU
    gpu_ivs = []
    kernel_ivs_comm, kernel_ivs_compute, mem_ivs = [], [], []
    per_kernel = {}
    for i, ev, ts, dur, name in rows:
        cat = ev.get("cat")
        if cat not in GPU_CATS:
            continue
        gpu_ivs.append((ts, ts + dur))
        if cat == "kernel":
            c = category(name)
            (kernel_ivs_comm if c == "comm" else kernel_ivs_compute).append((ts, ts + dur))
            per_kernel.setdefault(name, []).append(dur)
        else:
            mem_ivs.append((ts, ts + dur))

    n_kernels = sum(len(v) for v in per_kernel.values())
    kernel_time = sum(sum(v) for v in per_kernel.values())
    busy = union_length(gpu_ivs)
    if gpu_ivs:
        active = max(e for _, e in gpu_ivs) - min(s for s, _ in gpu_ivs)
    else:
        active = 0

    if n_kernels > 0:
        comm = union_length(kernel_ivs_comm)
        compute = union_length(kernel_ivs_compute)
        both = union_length(kernel_ivs_comm + kernel_ivs_compute)
        overlap_ns = comm + compute - both  # |A ∩ B| = |A| + |B| - |A ∪ B|
        overlap = ratio(overlap_ns, comm) if comm else None
        source = "gpu"
    else:
        cpu_comm = [(ts, ts + dur) for i, ev, ts, dur, name in rows
                    if ev.get("ph") == "X"
                    and (name.startswith(CPU_COMM_PREFIXES) or name in CPU_COMM_NAMES)]
        comm = union_length(cpu_comm)
        compute = 0
        overlap = 0.0 if comm else None
        source = "cpu"

    gpu = {
        "kernels": n_kernels,
        "kernel_time_ns": kernel_time,
        "busy_ns": busy,
        "active_span_ns": active,
        "idle_ns": active - busy,
        "utilization": ratio(busy, active) if active else None,
        "comm_ns": comm,
        "compute_ns": compute,
        "memory_ns": union_length(mem_ivs),
        "comm_compute_overlap": overlap,
        "comm_source": source,
    }

    # ---- kernels
    kernels = []
    for name, durs in per_kernel.items():
        total = sum(durs)
        avg, median, stddev = stats(durs)
        kernels.append({
            "name": name,
            "category": category(name),
            "count": len(durs),
            "total_ns": total,
            "avg_ns": avg,
            "median_ns": median,
            "min_ns": min(durs),
            "max_ns": max(durs),
            "stddev_ns": stddev,
            "share": ratio(total, kernel_time) if kernel_time else 0.0,
        })
    kernels.sort(key=lambda k: (-k["total_ns"], k["name"]))

    # ---- memory
    props = top.get("deviceProperties") if isinstance(top, dict) else None
    groups = {}
    for i, ev, ts, dur, name in rows:
        if ev.get("name") != "[memory]":
            continue
        args = ev.get("args")
        args = args if isinstance(args, dict) else {}
        dev = args.get("Device Id")
        dev = dev if is_int(dev) else -1
        g = groups.setdefault(dev, {"alloc": [], "res": []})
        if is_number(args.get("Total Allocated")):
            g["alloc"].append(args["Total Allocated"])
        if is_number(args.get("Total Reserved")):
            g["res"].append(args["Total Reserved"])
    memory = []
    for dev in sorted(groups):
        g = groups[dev]
        capacity = None
        if isinstance(props, list):
            for p in props:
                if isinstance(p, dict) and is_int(p.get("id")) and p["id"] == dev:
                    cap = p.get("totalGlobalMem")
                    capacity = cap if is_int(cap) else None
                    break
        memory.append({
            "device": dev,
            "peak_allocated": plain_number(max(g["alloc"])) if g["alloc"] else 0,
            "peak_reserved": plain_number(max(g["res"])) if g["res"] else 0,
            "capacity": capacity,
        })

    # ---- cpu_ops
    threads = {}
    for i, ev, ts, dur, name in rows:
        if ev.get("cat") == "cpu_op" and ev.get("ph") == "X":
            key = (thread_key(ev, "pid"), thread_key(ev, "tid"))
            threads.setdefault(key, []).append((ts, dur, i, name))
    ops = {}  # name -> [count, total, self]
    for evs in threads.values():
        evs.sort(key=lambda e: (e[0], -e[1], e[2]))
        child_sum = [0] * len(evs)
        stack = []  # indices into evs
        for k, (ts, dur, i, name) in enumerate(evs):
            while stack and not ts < evs[stack[-1]][0] + evs[stack[-1]][1]:
                stack.pop()
            if stack:
                child_sum[stack[-1]] += dur
            stack.append(k)
        for k, (ts, dur, i, name) in enumerate(evs):
            o = ops.setdefault(name, [0, 0, 0])
            o[0] += 1
            o[1] += dur
            o[2] += dur - child_sum[k]
    cpu_ops = [{"name": n, "count": c, "total_ns": t, "self_ns": s}
               for n, (c, t, s) in ops.items()]
    cpu_ops.sort(key=lambda o: (-o["total_ns"], o["name"]))

    return {"gpu": gpu, "kernels": kernels, "memory": memory, "cpu_ops": cpu_ops}


def analyze(path):
    """The oracle's {"gpu", "kernels", "memory", "cpu_ops"} for one file
    (raises oracle.NotATrace or OSError for a file that is not a trace)."""
    top, events = oracle.load(path)
    return analyze_events(top, events)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: oracle_analyses.py FILE\n")
        return 2
    try:
        result = analyze(argv[1])
    except (OSError, oracle.NotATrace) as exc:
        sys.stderr.write("oracle_analyses: %s: %s\n" % (argv[1], exc))
        return 1
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
