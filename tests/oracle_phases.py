#!/usr/bin/env python3
"""Independent reference for the phases, steps and throughput of one rank of a
vanalyze report (the keys phases, steps, throughput under ranks[]).

    python3 tests/oracle_phases.py [--frames N] [--frames-per-block N]
        [--target-fps F] [--phase NAME=GLOB]... [--step GLOB]... [--block GLOB] FILE

prints {"phases": [...], "steps": {...}, "throughput": {...}} for that one
trace.  It uses nothing but the python3 standard library and, from the
project, only tests/oracle.py (load, to_ns: the reading reference) and the
helpers of tests/oracle_analyses.py (stats, union_length, thread_key, ratio).
This docstring is the contract for those keys; keep the code obviously right,
not fast.  Options mean what they mean to vanalyze; exit 2 on a usage error,
1 when FILE is not a trace.

Definitions:
  times      ts_ns and dur_ns as in tests/oracle.py (dur_ns 0 when dur is
             absent or not numeric).  The span of an event is
             [ts_ns, ts_ns + dur_ns); end = ts_ns + dur_ns.
  glob       fnmatch.fnmatchcase: case-sensitive, "*" and "?" match any
             character ("/" included), [...] and [!...] are sets, there is no
             backslash escape (C: fnmatch(3) with FNM_NOESCAPE).
  phase span an object event with ph "X", a numeric ts and a string name,
             whose cat is "user_annotation"; or which has no "cat" key and
             whose name matches a phase rule; or, when no event of the file
             has a "cat" key (PyTorch's legacy writer), whose name is a user
             name and whose pid is not the string "CUDA functions"; or,
             whatever its string cat but "gpu_user_annotation", whose name is
             "ProfilerStep#" and digits (cpu_op in torch_npu, Operator in
             Kineto 2021).  Events with cat "gpu_user_annotation" (GPU
             mirrors of CPU annotations) are not phases, nor is any other
             cat.  Events with a negative dur take no part anywhere (not in
             span_ns either).
  user name  not empty, and not: an operator "ns::..." (ns = [A-Za-z_]
             [A-Za-z0-9_]*), a name starting with "gloo:", "nccl:" or "[",
             one of detach_, detach, set_data, requires_grad_, retain_grad,
             nor an autograd node (no space, one or more characters, then
             "Backward", then digits only: "MmBackward0").
  phase rule (events without cat) the raw name starts with
             "fastvideo.region::" or "profiler_region_", or matches
             "ProfilerStep#*", a --phase GLOB, a step glob or the block glob.
  phase name if the raw name matches a --phase NAME=GLOB, the NAME of the
             first such option (command-line order).  Else: strip one leading
             "fastvideo.region::", then one leading "profiler_region_"; then a
             trailing "_" or "#" followed by one or more ASCII digits has
             those digits replaced by "*" ("denoise_step_3" ->
             "denoise_step_*", "ProfilerStep#12" -> "ProfilerStep#*").
  tree       per thread (pid, tid compared with their JSON type and value,
             absent is its own value, as in oracle_analyses): sort the
             thread's phase spans by ts ascending, dur descending, file order;
             sweep with a stack: pop while the top does not contain the span
             (contains: top.ts <= s.ts and s.end <= top.end); the parent is
             the top (or none); push the span.  path = parent's path + "/" +
             phase name (a root's path is its phase name); depth = number of
             ancestors.  Rows are keyed by the sequence of phase names from
             the root (so a name holding "/" cannot merge two rows).
  phases     one row per distinct path over all threads: name (the phase
             name), path, depth, count, total_ns = length of the union of all
             its spans (all threads; empty spans add nothing), avg_ns,
             median_ns, min_ns, max_ns, stddev_ns over the span durations
             (float mean and median, mean of the middle two for an even count,
             population stddev; min/max ints), share = total_ns / span_ns
             (span_ns as in tests/oracle.py; 0.0 when span_ns is 0), gpu_ns.
             Order: depth-first pre-order of the path tree; siblings by their
             earliest span start, ties by path (byte order of UTF-8).
  gpu_ns     launches: "X" events whose cat (any case) is a host call
             into a device runtime (RUNTIME_CATS below: CUDA runtime and
             driver, Kineto 2021's Runtime, Intel XPU, MTIA), a numeric ts
             and an integer (not bool) args.correlation; kernels: "X" events
             whose cat is a device's kernels (KERNEL_CATS: CUDA/ROCm kernel,
             2021 Kernel, MTIA's mtia_ccp_events but its dma_request copies
             and event_record/event_wait markers), numeric ts, integer
             args.correlation.  A kernel belongs to the first launch (file
             order) with its correlation; a kernel without one is nobody's.
             Per thread, the union of the phase's spans on that thread;
             gpu_ns = sum of the kernels' dur_ns whose launch is on that
             thread with launch ts in one of the union intervals [lo, hi);
             summed over threads.  null (unknown, not 0) when the trace has
             device kernels but none with a correlation: torch_npu's tasks
             (events without cat in the process named "Ascend Hardware" that
             are not its copies and sync tasks, or hcom_* in "HCCL").
  steps      if some phase span has the phase name "ProfilerStep#*": those
             spans, pattern "ProfilerStep#*".  Else the phase spans whose raw
             name matches a step glob: the --step GLOBs (repeatable), or by
             default "denoise_step_*" and "*step_[0-9]*"; pattern = the globs
             joined by "|".  durations_ns: their dur_ns in ts order (ties:
             file order), all threads.  warmup: with 2 or more steps, true when
             float(first) > 1.5 * median(the others) (float median as above);
             a warm-up step stays in durations_ns but leaves the statistics.
             Cut off: with 2 or more steps, the last one, when the median of
             the others' gpu_ns (each step span alone, as for phases) is > 0,
             its own gpu_ns is below half of it and its dur_ns below the
             others' median dur_ns (the step torch.profiler closes when it
             stops), stays in durations_ns but leaves the statistics and the
             warm-up test.
             count, avg_ns, median_ns, min_ns, max_ns, stddev_ns over the
             remaining steps (as for phases); with no step: count 0, the
             statistics null, durations_ns [].
  throughput roots: the phase spans of depth 0.  denoising span: a phase
             span of depth > 0 whose raw name matches a step glob or the
             block glob and whose phase name is not "ProfilerStep#*".  A core
             is a root that is an ancestor of a denoising span and whose own
             raw name matches neither.  Counted roots: cores and roots whose
             phase name is not "ProfilerStep#*"; if there are none, all
             roots.  Sort them by (ts, file order).  Core groups: walk the
             counted roots in order; a core starting before the running end
             of the last group joins it (the end grows to its end), else it
             starts a new group.  Generations: one per group (one when there
             is no core).  bound[0] = -infinity; bound[g] for g >= 1 is the
             ts of the first counted root (in order) whose phase name equals
             that of the first counted root, with ts >= end of group g-1 and
             ts <= start of group g, else the start of group g.  Anything at
             time t belongs to the last g with bound[g] <= t.  Generation g:
             lo = min ts, hi = max end over the counted roots whose ts it
             holds (none: lo = hi = bound[g], or the rank's min ts for g =
             0); with no phase span at all, one generation, lo = the rank's
             min ts, hi = lo + span_ns.  wall_ns = max hi - lo of the first.
             blocks: phase spans whose raw name matches the block glob
             (--block, default "block_*"), all threads, placed by their ts; a
             block is a raw name within a generation, its completion the max
             end and its start the min ts of its spans there.  Per
             generation: start_ns = lo - the rank's min ts, wall_ns = hi -
             lo, frames = --frames N or null, blocks = number of blocks (null
             when the file has no block span), fps = frames / (wall_ns / 1e9)
             and bps = blocks / (wall_ns / 1e9) (null without the count or
             when wall_ns is 0), first_block_ns = first completion - lo (null
             without blocks), block_cadence over the differences of
             consecutive sorted completions (null with fewer than 2 blocks).
             Run: frames = sum (null without --frames), blocks = sum (null
             as above), wall_ns, fps, bps as above; first_block_ns = the
             lower middle of the generations' values (sorted[(n - 1) // 2],
             null if none); block_cadence over the differences of all
             generations pooled; block_latency over completion - start of
             every block (null without blocks).  Quantiles: median_ns =
             sorted[(n - 1) // 2], p90_ns = the ceil(9n/10)-th smallest
             (1-based, exact integer ceil), max_ns.  frames_per_block: the
             --frames-per-block N (a float) or null; streaming_fps = N /
             (run cadence median / 1e9), null without N or cadence or when
             the median is 0.  With --target-fps F (a finite number > 0):
             target_fps = F (float), realtime_factor = (frames / F) /
             (wall_ns / 1e9), null without frames or when wall_ns is 0, and
             streaming_realtime_factor = streaming_fps / F or null; without
             --target-fps the three keys are absent.
  numbers    ints stay ints; averages, medians, stddevs, shares and rates are
             floats computed exactly and rounded once (F is taken as the
             double it parses to).
"""

import bisect
import fnmatch
import fractions
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load, to_ns: the independent reading reference)
import oracle_analyses as oa  # noqa: E402  (stats, union_length, thread_key)

REGION_PREFIX = "fastvideo.region::"
PROFILER_REGION_PREFIX = "profiler_region_"
PSTEP = "ProfilerStep#*"
PSTEP_RE = re.compile(r"ProfilerStep#[0-9]+")
DEFAULT_STEPS = ("denoise_step_*", "*step_[0-9]*")
DEFAULT_BLOCK = "block_*"
# Which cats are device kernels and runtime calls, written from Kineto's
# ActivityType names and the vendors' sample traces (not from vtrace's tables).
RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "runtime", "xpu_runtime", "xpu_driver",
                "mtia_runtime")
KERNEL_CATS = ("kernel", "mtia_ccp_events")
NOT_KERNELS = ("dma_request", "event_record", "event_wait")  # MTIA's command processor
NPU_NOT_KERNELS = ("MEMCPY_ASYNC", "SDMA", "EVENT_RECORD", "EVENT_WAIT", "Notify Wait",
                   "Notify Record", "Write Value")


def is_kernel(ev):
    cat = ev.get("cat")
    return (ev.get("ph") == "X" and isinstance(cat, str) and cat.lower() in KERNEL_CATS
            and ev.get("name") not in NOT_KERNELS)


def is_npu_kernel(ev, procs):
    """A torch_npu device task (no cat): in "Ascend Hardware" or an hcom_* in "HCCL"."""
    if ev.get("ph") != "X" or "cat" in ev or not isinstance(ev.get("name"), str):
        return False
    proc = procs.get(ev.get("pid"))
    name = ev["name"]
    if proc == "Ascend Hardware":
        return name not in NPU_NOT_KERNELS and not name.startswith("RDMA")
    return proc == "HCCL" and name.startswith("hcom_")
NUMBERED = re.compile(r"([_#])[0-9]+\Z")


class Usage(Exception):
    pass


def default_options():
    return {"frames": None, "frames_per_block": None, "target_fps": None, "phase": [],
            "step": None, "block": DEFAULT_BLOCK}


def parse_args(argv):
    """(options, files) from an argument list without the program name."""
    opts = default_options()
    files = []
    i = 0

    def value():
        nonlocal i
        if i + 1 >= len(argv):
            raise Usage("%s needs a value" % argv[i])
        i += 1
        return argv[i]

    while i < len(argv):
        a = argv[i]
        if a == "--":
            files += argv[i + 1:]
            break
        if a == "--frames":
            v = value()
            if not re.fullmatch(r"[0-9]+", v):
                raise Usage("bad --frames '%s'" % v)
            opts["frames"] = int(v)
        elif a == "--frames-per-block":
            v = value()
            if not re.fullmatch(r"[0-9]+", v) or int(v) < 1:
                raise Usage("bad --frames-per-block '%s'" % v)
            opts["frames_per_block"] = int(v)
        elif a == "--target-fps":
            v = value()
            try:
                f = float(v)
            except ValueError:
                raise Usage("bad --target-fps '%s'" % v)
            if not (math.isfinite(f) and f > 0):
                raise Usage("bad --target-fps '%s'" % v)
            opts["target_fps"] = f
        elif a == "--phase":
            v = value()
            name, eq, glob = v.partition("=")
            if not eq or not name or not glob:
                raise Usage("bad --phase '%s' (NAME=GLOB)" % v)
            opts["phase"].append((name, glob))
        elif a == "--step":
            opts["step"] = (opts["step"] or []) + [value()]
        elif a == "--block":
            opts["block"] = value()
        elif a.startswith("--") and a != "--":
            raise Usage("unknown option %s" % a)
        else:
            files.append(a)
        i += 1
    return opts, files


def matches(name, glob):
    return fnmatch.fnmatchcase(name, glob)


def phase_name(raw, opts):
    for name, glob in opts["phase"]:
        if matches(raw, glob):
            return name
    s = raw
    if s.startswith(REGION_PREFIX):
        s = s[len(REGION_PREFIX):]
    if s.startswith(PROFILER_REGION_PREFIX):
        s = s[len(PROFILER_REGION_PREFIX):]
    return NUMBERED.sub(r"\1*", s)


def step_globs(opts):
    return tuple(opts["step"]) if opts["step"] else DEFAULT_STEPS


def is_phase_rule(raw, opts):
    return (raw.startswith(REGION_PREFIX) or raw.startswith(PROFILER_REGION_PREFIX)
            or matches(raw, PSTEP)
            or any(matches(raw, g) for _, g in opts["phase"])
            or any(matches(raw, g) for g in step_globs(opts))
            or matches(raw, opts["block"]))


NOT_USER_EXACT = ("detach_", "detach", "set_data", "requires_grad_", "retain_grad")
OPERATOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::")
AUTOGRAD_NODE = re.compile(r"[^ ]+Backward[0-9]*")


def is_user_name(raw):
    return bool(raw) and not (OPERATOR.match(raw) or raw.startswith(("gloo:", "nccl:", "["))
                              or raw in NOT_USER_EXACT
                              or (" " not in raw and AUTOGRAD_NODE.fullmatch(raw)))


def path_bytes(path):
    return path.encode("utf-8", "surrogatepass")


def float_stats(durs):
    """Row statistics of a list of ints; count 0 and the rest null (unknown) for an
    empty list."""
    if not durs:
        return {"count": 0, "avg_ns": None, "median_ns": None, "min_ns": None, "max_ns": None,
                "stddev_ns": None}
    avg, median, stddev = oa.stats(durs)
    return {"count": len(durs), "avg_ns": avg, "median_ns": median, "min_ns": min(durs),
            "max_ns": max(durs), "stddev_ns": stddev}


def analyze_events(top, events, opts):
    # ---- rank span (exactly as tests/oracle.py), events and phase spans
    lo = hi = None
    spans = []     # dicts: i, ts, dur, end, raw, name, thread
    no_cat = not any(isinstance(ev, dict) and "cat" in ev for ev in events)
    launches = {}  # correlation -> (thread, ts), first in file order
    kernels = []   # (correlation, dur)
    any_kernel = False
    procs = {ev.get("pid"): ev["args"]["name"] for ev in events
             if isinstance(ev, dict) and ev.get("ph") == "M" and ev.get("name") == "process_name"
             and isinstance(ev.get("args"), dict) and isinstance(ev["args"].get("name"), str)}
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            continue
        ts = oracle.to_ns(ev.get("ts"))
        if ts is None:
            continue
        dur = oracle.to_ns(ev.get("dur"))
        dur = dur if dur is not None else 0
        if dur < 0:
            continue  # dropped from every time sum
        if ev.get("ph") != "M":
            lo = ts if lo is None or ts < lo else lo
            hi = ts + dur if hi is None or ts + dur > hi else hi
        cat = ev.get("cat")
        args = ev.get("args")
        corr = args.get("correlation") if isinstance(args, dict) else None
        if ev.get("ph") == "X" and isinstance(cat, str) and cat.lower() in RUNTIME_CATS \
                and oa.is_int(corr):
            if corr not in launches:
                launches[corr] = ((oa.thread_key(ev, "pid"), oa.thread_key(ev, "tid")), ts)
        if is_kernel(ev) and oa.is_int(corr):
            kernels.append((corr, dur))
        any_kernel = any_kernel or is_kernel(ev) or is_npu_kernel(ev, procs)
        raw = ev.get("name")
        if ev.get("ph") != "X" or not isinstance(raw, str):
            continue
        by_name = (no_cat and is_user_name(raw) and ev.get("pid") != "CUDA functions")
        if cat == "user_annotation" or ("cat" not in ev and (is_phase_rule(raw, opts) or by_name)) or \
                (isinstance(cat, str) and cat != "gpu_user_annotation" and PSTEP_RE.fullmatch(raw)):
            spans.append({"i": i, "ts": ts, "dur": dur, "end": ts + dur, "raw": raw,
                          "name": phase_name(raw, opts),
                          "thread": (oa.thread_key(ev, "pid"), oa.thread_key(ev, "tid"))})
    span_ns = hi - lo if lo is not None else 0

    # ---- tree per thread
    threads = {}
    for s in spans:
        threads.setdefault(s["thread"], []).append(s)
    for evs in threads.values():
        evs.sort(key=lambda s: (s["ts"], -s["dur"], s["i"]))
        stack = []
        for s in evs:
            while stack and not (stack[-1]["ts"] <= s["ts"] and s["end"] <= stack[-1]["end"]):
                stack.pop()
            s["key"] = (stack[-1]["key"] if stack else ()) + (s["name"],)
            s["root"] = stack[0] if stack else s
            stack.append(s)

    # ---- kernel time per launch, per thread, sorted by launch ts
    per_launch = {}  # correlation -> summed kernel dur
    for corr, dur in kernels:
        if corr in launches:
            per_launch[corr] = per_launch.get(corr, 0) + dur
    gpu_threads = {}  # thread -> [(ts, kernel ns)]
    for corr, ns in per_launch.items():
        thread, ts = launches[corr]
        gpu_threads.setdefault(thread, []).append((ts, ns))
    gpu_index = {}  # thread -> (sorted ts list, prefix sums)
    for thread, lst in gpu_threads.items():
        lst.sort()
        prefix = [0]
        for _, ns in lst:
            prefix.append(prefix[-1] + ns)
        gpu_index[thread] = ([t for t, _ in lst], prefix)

    def gpu_ns_of(group):
        total = 0
        by_thread = {}
        for s in group:
            by_thread.setdefault(s["thread"], []).append((s["ts"], s["end"]))
        for thread, ivs in by_thread.items():
            if thread not in gpu_index:
                continue
            tss, prefix = gpu_index[thread]
            for a, b in merge(ivs):
                total += prefix[bisect.bisect_left(tss, b)] - prefix[bisect.bisect_left(tss, a)]
        return total

    # ---- phase rows
    groups = {}
    for s in spans:
        groups.setdefault(s["key"], []).append(s)
    children = {}
    for key in groups:
        children.setdefault(key[:-1], []).append(key)
    first = {key: min(s["ts"] for s in g) for key, g in groups.items()}

    def path_of(key):
        return "/".join(key)

    rows = []

    def visit(parent):
        kids = sorted(children.get(parent, []),
                      key=lambda k: (first[k], path_bytes(path_of(k))))
        for key in kids:
            g = groups[key]
            durs = [s["dur"] for s in g]
            total = oa.union_length([(s["ts"], s["end"]) for s in g])
            row = {"name": key[-1], "path": path_of(key), "depth": len(key) - 1}
            row.update(float_stats(durs))
            row["total_ns"] = total
            row["share"] = oa.ratio(total, span_ns) if span_ns else 0.0
            row["gpu_ns"] = gpu_ns_of(g) if kernels or not any_kernel else None
            rows.append(row)
            visit(key)

    visit(())
    order = ("name", "path", "depth", "count", "total_ns", "avg_ns", "median_ns", "min_ns",
             "max_ns", "stddev_ns", "share", "gpu_ns")
    rows = [{k: r[k] for k in order} for r in rows]

    # ---- steps
    in_order = sorted(spans, key=lambda s: (s["ts"], s["i"]))
    if any(s["name"] == PSTEP for s in spans):
        pattern = PSTEP
        chosen = [s for s in in_order if s["name"] == PSTEP]
    else:
        globs = step_globs(opts)
        pattern = "|".join(globs)
        chosen = [s for s in in_order if any(matches(s["raw"], g) for g in globs)]
    durations = [s["dur"] for s in chosen]
    counted = durations
    if len(chosen) >= 2:
        gpu = [gpu_ns_of([s]) for s in chosen]
        _, med_gpu, _ = oa.stats(gpu[:-1])
        _, med_dur, _ = oa.stats(durations[:-1])
        if med_gpu > 0 and gpu[-1] < 0.5 * med_gpu and durations[-1] < med_dur:
            counted = durations[:-1]
    warmup = False
    if len(counted) >= 2:
        _, med_others, _ = oa.stats(counted[1:])
        warmup = float(durations[0]) > 1.5 * med_others
    steps = {"pattern": pattern}
    steps.update(float_stats(counted[1:] if warmup else counted))
    steps["warmup"] = warmup
    steps["durations_ns"] = durations

    # ---- throughput
    tp = throughput(spans, opts, lo if lo is not None else 0, span_ns)
    return {"phases": rows, "steps": steps, "throughput": tp}


def quantiles(v):
    if not v:
        return None
    v = sorted(v)
    n = len(v)
    return {"median_ns": v[(n - 1) // 2], "p90_ns": v[-(-9 * n // 10) - 1], "max_ns": v[-1]}


def rate(count, wall):
    return oa.ratio(count * 10**9, wall) if count is not None and wall else None


def throughput(spans, opts, min_ts, span_ns):
    """The throughput keys of one rank (see the docstring)."""
    globs = step_globs(opts)

    def denoising(raw):
        return any(matches(raw, g) for g in globs) or matches(raw, opts["block"])

    roots = [s for s in spans if len(s["key"]) == 1]
    for r in roots:
        r["core"] = False
    for s in spans:
        if len(s["key"]) > 1 and denoising(s["raw"]) and s["name"] != PSTEP \
                and not denoising(s["root"]["raw"]):
            s["root"]["core"] = True
    counted = [r for r in roots if r["core"] or r["name"] != PSTEP] or roots
    counted.sort(key=lambda r: (r["ts"], r["i"]))
    groups = []  # [start, end]
    for r in counted:
        if not r["core"]:
            continue
        if groups and r["ts"] < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], r["end"])
        else:
            groups.append([r["ts"], r["end"]])
    ngen = max(1, len(groups))
    bound = [None]
    for g in range(1, len(groups)):
        b = groups[g][0]
        for r in counted:
            if r["ts"] > groups[g][0]:
                break
            if r["name"] == counted[0]["name"] and r["ts"] >= groups[g - 1][1]:
                b = r["ts"]
                break
        bound.append(b)

    def gen_of(t):
        g = 0
        for k in range(1, ngen):
            if bound[k] <= t:
                g = k
        return g

    lo, hi = [None] * ngen, [None] * ngen
    for r in counted:
        g = gen_of(r["ts"])
        lo[g] = r["ts"] if lo[g] is None else min(lo[g], r["ts"])
        hi[g] = r["end"] if hi[g] is None else max(hi[g], r["end"])
    if not counted:
        lo[0], hi[0] = min_ts, min_ts + span_ns
    for g in range(ngen):
        if lo[g] is None:
            lo[g] = hi[g] = bound[g] if g else min_ts
    wall = max(hi) - lo[0]

    block_spans = [s for s in spans if matches(s["raw"], opts["block"])]
    units = {}  # (generation, raw) -> [first start, completion]
    for s in block_spans:
        u = units.setdefault((gen_of(s["ts"]), s["raw"]), [s["ts"], s["end"]])
        u[0], u[1] = min(u[0], s["ts"]), max(u[1], s["end"])
    has_blocks = bool(block_spans)
    frames = opts["frames"]
    gens, firsts, gaps = [], [], []
    for g in range(ngen):
        done = sorted(u[1] for (gg, _), u in units.items() if gg == g)
        mine = [b - a for a, b in zip(done, done[1:])]
        nb = len(done) if has_blocks else None
        gw = hi[g] - lo[g]
        gens.append({"start_ns": lo[g] - min_ts, "wall_ns": gw, "frames": frames,
                     "blocks": nb, "fps": rate(frames, gw), "bps": rate(nb, gw),
                     "first_block_ns": done[0] - lo[g] if done else None,
                     "block_cadence": quantiles(mine)})
        if done:
            firsts.append(done[0] - lo[g])
        gaps += mine
    run_frames = frames * ngen if frames is not None else None
    blocks = sum(x["blocks"] for x in gens) if has_blocks else None
    firsts.sort()
    cadence = quantiles(gaps)
    tp = {
        "frames": run_frames,
        "blocks": blocks,
        "wall_ns": wall,
        "fps": rate(run_frames, wall),
        "bps": rate(blocks, wall),
        "first_block_ns": firsts[(len(firsts) - 1) // 2] if firsts else None,
        "block_latency": quantiles([u[1] - u[0] for u in units.values()]),
        "block_cadence": cadence,
    }
    fpb = opts["frames_per_block"]
    sfps = None
    if fpb is not None and cadence and cadence["median_ns"] > 0:
        sfps = float(fractions.Fraction(fpb * 10**9, cadence["median_ns"]))
    tp["frames_per_block"] = float(fpb) if fpb is not None else None
    tp["streaming_fps"] = sfps
    f = opts["target_fps"]
    if f is not None:
        tp["target_fps"] = float(f)
        if run_frames is not None and wall:
            rf = fractions.Fraction(run_frames * 10**9) / (fractions.Fraction(f) * wall)
            tp["realtime_factor"] = float(rf)
        else:
            tp["realtime_factor"] = None
        tp["streaming_realtime_factor"] = (
            float(fractions.Fraction(fpb * 10**9, cadence["median_ns"]) / fractions.Fraction(f))
            if sfps is not None else None)
    tp["generations"] = gens
    return tp


def merge(ivs):
    """The union of [a, b) intervals as sorted disjoint intervals."""
    out = []
    for a, b in sorted(iv for iv in ivs if iv[1] > iv[0]):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def analyze(path, opts=None):
    """The oracle's {"phases", "steps", "throughput"} for one file (raises
    oracle.NotATrace or OSError for a file that is not a trace)."""
    top, events = oracle.load(path)
    return analyze_events(top, events, opts or default_options())


def main(argv):
    usage = ("usage: oracle_phases.py [--frames N] [--frames-per-block N] [--target-fps F] "
             "[--phase NAME=GLOB]... "
             "[--step GLOB]... [--block GLOB] FILE\n")
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        sys.stdout.write(usage)
        return 0
    try:
        opts, files = parse_args(argv[1:])
        if len(files) != 1:
            raise Usage("exactly one FILE")
    except Usage as exc:
        sys.stderr.write("oracle_phases: %s\n%s" % (exc, usage))
        return 2
    try:
        result = analyze(files[0], opts)
    except (OSError, oracle.NotATrace) as exc:
        sys.stderr.write("oracle_phases: %s: %s\n" % (files[0], exc))
        return 1
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
