#!/usr/bin/env python3
"""Independent reference for idle-time attribution (doc/idle.md): the keys
ranks[].idle and ranks[].gpu.step_utilization of a vanalyze report.

    python3 tests/oracle_idle.py TRACE REPORT.json
        recompute idle for TRACE (one rank) and compare with REPORT's
        ranks[0]; exit 0 when all agree, 1 on any difference.
    python3 tests/oracle_idle.py --print TRACE [--steps-from REPORT.json]
        print the oracle's own {"idle", "step_utilization"} as JSON.

Python 3 standard library only; written from doc/idle.md and the vendor
table of analyzer/device.c, never from the C that computes idle.  From the
report it takes only ranks[0].steps.{pattern, warmup, cut_off,
durations_ns} (which steps are warm-up / cut off) and ranks[0].start_ns (an
assertion).  Without a report (--print alone): steps are the ProfilerStep#N
spans, warmup when the first is > 1.5 x the median of the others, no cut-off.

Readings chosen where doc/idle.md leaves room (see also the report of the
session that wrote this file):
  - times: int(Decimal(text) * 1000), truncated toward zero, as
    tests/oracle.py; events with dur < 0 or times past 2^62-1 take no part.
  - a "complete event with a duration": ph "X", numeric ts, numeric dur >= 0
    (dur 0 included: it covers nothing but counts as a span / an item).
  - the vendor process rules (Ascend Hardware, HCCL) apply to events with no
    string cat; cat and process names match exactly first, then ignoring
    ASCII case, as device.c's lookup.
  - rules 1 and 2 need a positive coverage/overlap (an empty W gives none).
  - slow first call: the earliest (start, file order) span of the name, when
    it meets the 1 ms and 100x conditions (FIRST_CALL_STRICT = True: "first
    call", and what "a one-pass reader can keep per name"); False reads it as
    the earliest of the spans that meet them (it calls a long last
    cudaDeviceSynchronize a "first call").
  - gaps / gaps_by_time / histogram count a gap once in each part (window,
    outside) it has time in; the histogram takes the sum of its pieces inside
    the window; bins are inclusive (len <= max_ns).
  - gaps_by_time counts gaps whose launch was actually found by time.
  - ties: "last runtime call" = greatest (start, file order); "earliest" =
    smallest (start, file order); rule 3's longest: ties earliest.
  - top[].host keeps the rule's name even where cause is forced to init.
  - slow call (a runtime call >= 100 x its name's median): the median over
    every runtime call of the name (sync calls and classed names have none),
    applied to any host span of that name left unclassed by the table; the
    ratio in its host name is floor(dur / median), exact in integers.
  - the compiled-code wrappers are dropped from the host spans before
    anything else (the slow first call's counts too).
  - step_utilization: null without steps or when window_ns is 0.
  - rule 0 (device_wait): the launch found by correlation only; held = b -
    the launching call's end, exact in integers; the event wait named is the
    greatest (start, file order) at or before l on the thread, dropped when
    a call on the thread that launched an item starts strictly between it
    and l.
"""

import bisect
import decimal
import fnmatch
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load, to_ns: the independent reading reference)

TIME_LIMIT = 2**62 - 1
PSTEP_RE = re.compile(r"ProfilerStep#[0-9]+\Z")
PSTEP = "ProfilerStep#*"

FIRST_CALL_STRICT = True

CAUSES = ("launch", "sync", "data_loading", "host_compute", "memory_mgmt", "init",
          "capture", "compile", "collective_wait", "device_wait", "other")
CLASSES = ("capture", "compile", "init", "data_loading", "collective_wait", "memory_mgmt",
           "sync")
HIST_BINS = (10000, 100000, 1000000, 10000000, 100000000, None)
SHORT_GAP_NS = 1_000_000  # rule 4: a gap of at most 1 ms
HOST_WORK_NS = 50000
SLOW_FIRST_NS = 1000000
DEVICE_WAIT_NS = 1_000_000  # rule 0: the device held a launched item this long
EVENT_WAITS = ("cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent",
               "AscendCL@aclrtStreamWaitEvent")


def is_graph_launch(name):
    return "GraphLaunch" in name or name.startswith("AscendCL@aclmdlRIExecute")

# ---- analyzer/device.c's table, restated --------------------------------
K_DEV, K_RUNTIME, K_WAIT, K_NONE = "dev", "runtime", "wait", "none"

# runtime_names: SYNC_CALL (prefix + ends "Synchronize"), EXACT, PREFIX
SYNC_EXACT = {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cuMemcpyDtoH_v2",
              "cuMemcpyHtoD_v2", "hipMemcpy", "hipMemcpy2D", "hipMemcpyDtoH",
              "hipMemcpyHtoD", "AscendCL@aclrtMemcpy"}


def runtime_is_sync(name):
    if (name.startswith("cu") or name.startswith("hip")) and name.endswith("Synchronize"):
        return True
    return name in SYNC_EXACT or name.startswith("AscendCL@aclrtSynchronize")


# (key, kind, names): names is "runtime" (runtime_names), "mtia", "ascend", "hccl" or None
CAT_ROWS = [
    ("kernel", K_DEV, None), ("gpu_memcpy", K_DEV, None), ("gpu_memset", K_DEV, None),
    ("cuda_runtime", K_RUNTIME, "runtime"), ("cuda_driver", K_RUNTIME, "runtime"),
    ("cuda_sync", K_WAIT, None),
    ("Kernel", K_DEV, None), ("Memcpy", K_DEV, None), ("Memset", K_DEV, None),
    ("Runtime", K_RUNTIME, "runtime"),
    ("xpu_runtime", K_RUNTIME, None), ("xpu_driver", K_RUNTIME, None),
    ("mtia_ccp_events", K_DEV, "mtia"), ("mtia_runtime", K_RUNTIME, None),
]
PROC_ROWS = [
    ("Ascend Hardware", K_DEV, "ascend"), ("HCCL", K_DEV, "hccl"),
    ("CANN", K_RUNTIME, "runtime"),
]


def ascii_lower(s):
    return s.encode("utf-8", "surrogatepass").lower()


def lookup(rows, key):
    for r in rows:
        if r[0] == key:
            return r
    low = ascii_lower(key)
    for r in rows:
        if ascii_lower(r[0]) == low:
            return r
    return None


def row_kind(row, name):
    """device_kind(): refine a row's kind by the event name."""
    _, kind, names = row
    if names == "mtia":
        if name == "dma_request":
            return K_DEV
        if name in ("event_record", "event_wait"):
            return K_WAIT
    elif names == "ascend":
        if name == "MEMCPY_ASYNC":
            return K_DEV
        if name in ("EVENT_RECORD", "EVENT_WAIT", "Notify Wait", "Notify Record",
                    "Write Value"):
            return K_WAIT
    elif names == "hccl":
        return K_DEV if name.startswith("hcom_") else K_NONE
    elif names == "runtime":
        if runtime_is_sync(name):
            return K_RUNTIME  # DK_SYNC: still a runtime call
    return kind


# ---- reading -------------------------------------------------------------

def load(path):
    """The trace's events, read by tests/oracle.py (exact decimal times)."""
    try:
        return oracle.load(path)[1]
    except oracle.NotATrace as exc:
        raise SystemExit("oracle_idle: %s: %s" % (path, exc))


to_ns = oracle.to_ns  # decimal microseconds to int ns, truncated; None when not a number


def id_text(v):
    """pid/tid as the text the C interns: 5 and "5" are one thread."""
    if v is None:
        return "\0absent"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    return json.dumps(v, sort_keys=True, default=str)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# ---- interval helpers ------------------------------------------------------

def merge(ivs):
    out = []
    for s, e in sorted(ivs):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def clip_len(ivs, lo, hi):
    """length of (merged, sorted) ivs inside [lo, hi)"""
    t = 0
    for s, e in ivs:
        s2, e2 = max(s, lo), min(e, hi)
        if e2 > s2:
            t += e2 - s2
    return t


def pieces(a, b, window):
    """split [a, b) by the merged window: (inside pieces, outside pieces)"""
    ins, outs = [], []
    cur = a
    for s, e in window:
        if e <= cur:
            continue
        if s >= b:
            break
        if s > cur:
            outs.append((cur, s))
        p, q = max(s, cur), min(e, b)
        if q > p:
            ins.append((p, q))
        cur = max(cur, q)
        if cur >= b:
            break
    if cur < b:
        outs.append((cur, b))
    return ins, outs


class Cover:
    """merged union of intervals, with prefix sums: coverage of [lo, hi) in O(log n)."""

    def __init__(self, ivs):
        m = merge(ivs)
        self.starts = [s for s, _ in m]
        self.ends = [e for _, e in m]
        self.prefix = [0]
        for s, e in m:
            self.prefix.append(self.prefix[-1] + e - s)

    def cover(self, lo, hi):
        if hi <= lo:
            return 0
        i = bisect.bisect_right(self.ends, lo)
        j = bisect.bisect_left(self.starts, hi)
        if i >= j:
            return 0
        t = self.prefix[j] - self.prefix[i]
        t -= max(0, lo - self.starts[i])
        t -= max(0, self.ends[j - 1] - hi)
        return t


class Stab:
    """spans sorted by (start, file index); max-end segment tree for
    'start < X (or <= X) and end > Y (or >= Y)' queries, output-sensitive."""

    def __init__(self, spans):
        self.spans = sorted(spans, key=lambda s: (s[0], s[2]))
        self.starts = [s[0] for s in self.spans]
        n = len(self.spans)
        size = 1
        while size < max(n, 1):
            size *= 2
        self.size = size
        tree = [-(2**63)] * (2 * size)
        for k, s in enumerate(self.spans):
            tree[size + k] = s[1]
        for k in range(size - 1, 0, -1):
            tree[k] = max(tree[2 * k], tree[2 * k + 1])
        self.tree = tree

    def query(self, x, x_inclusive, y, y_inclusive):
        k_hi = (bisect.bisect_right if x_inclusive else bisect.bisect_left)(self.starts, x)
        out = []
        if k_hi == 0:
            return out
        tree, size = self.tree, self.size
        stack = [(1, 0, size)]
        while stack:
            node, lo, hi = stack.pop()
            if lo >= k_hi:
                continue
            m = tree[node]
            if m < y or (m == y and not y_inclusive):
                continue
            if node >= size:
                out.append(self.spans[node - size])
                continue
            mid = (lo + hi) // 2
            stack.append((2 * node + 1, mid, hi))
            stack.append((2 * node, lo, mid))
        return out


# ---- the analysis ----------------------------------------------------------

def span_class(name, is_sync_call, slow_first, outlier=False):
    low = ascii_lower(name)
    if (b"capture" in low or name.startswith(("cudaGraphInstantiate", "cuGraphInstantiate",
                                              "hipGraphInstantiate", "aclmdlRICapture"))
            or name == "CUDAGraphNode.record"):
        return "capture"
    if is_compilation(name):
        return "compile"
    if name.startswith(INIT_PREFIXES) or slow_first or outlier:
        return "init"
    if b"dataloader" in low:
        return "data_loading"
    if name.startswith(("gloo:", "c10d::wait", "c10d::barrier", "c10d::monitored_barrier")):
        return "collective_wait"
    if name.startswith(MEM_PREFIXES):
        return "memory_mgmt"
    if is_sync_call or name in ("aten::item", "aten::_local_scalar_dense"):
        return "sync"
    return None


# Spans every call of torch.compile'd code runs inside, in steady state as
# much as while compiling: they say where the host is, never why it waits.
def is_steady_wrapper(name):
    return ("compile_wrapper" in name or "CompiledFunction" in name
            or name.startswith("Torch-Compiled Region"))


# Compilation itself: dynamo converting a frame, the dynamo_timed phases,
# Inductor's entry points and code generation, Triton autotuning/benchmarks.
COMPILATION_RE = re.compile(
    r"convert_frame|_compile|compile_inner|compile_to_module|compile_file|codegen"
    r"|benchmark_all_configs|do_bench|dynamo_timed|(?i:autotune)")


def is_compilation(name):
    if name == "dynamo" or COMPILATION_RE.search(name):
        return True
    return name.startswith("compile_fx") or name.endswith((": compile_fx", ": compile_fx_inner"))


INIT_PREFIXES = (
    "cudaStreamCreate", "cudaEventCreate", "cudaDeviceGetStreamPriorityRange",
    "cudaGetDeviceCount", "cudaGetDeviceProperties", "cuInit", "cuDevicePrimaryCtxRetain",
    "cuCtxCreate", "cuModuleLoad", "cuLibraryLoad", "cudnnCreate", "cublasCreate",
    "cublasLtCreate", "hipStreamCreate", "hipEventCreate", "hipInit", "hipModuleLoad",
    "AscendCL@aclInit", "AscendCL@aclrtSetDevice", "AscendCL@aclrtCreateStream",
    "AscendCL@aclrtCreateContext")
MEM_PREFIXES = (
    "cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister", "cuMemAlloc", "cuMemFree",
    "cuMemCreate", "cuMemMap", "hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree",
    "hipExtMallocWithFlags", "AscendCL@aclrtMalloc", "AscendCL@aclrtFree")


def median(v):
    v = sorted(v)
    n = len(v)
    if n % 2:
        return float(v[n // 2])
    return (v[n // 2 - 1] + v[n // 2]) / 2.0


def analyze(events, steps_info=None, report_start=None):
    """steps_info: None (defaults) or dict(pattern, warmup, cut_off, durations_ns)."""
    # pass 1: process names
    pnames = {}
    for ev in events:
        if isinstance(ev, dict) and ev.get("ph") == "M" and ev.get("name") == "process_name":
            args = ev.get("args")
            if isinstance(args, dict) and isinstance(args.get("name"), str):
                pnames[id_text(ev.get("pid"))] = args["name"]

    lo = hi = None
    devs = []       # (ts, end, i, corr)
    calls = []      # (ts, end, i, thread, name, corr)
    host = []       # (ts, end, i, thread, name, is_sync_call)
    xspans = []     # (ts, dur, i, name, cat) candidate step spans
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            continue
        ts, dur = to_ns(ev.get("ts")), to_ns(ev.get("dur"))
        if ((ts is not None and abs(ts) > TIME_LIMIT) or
                (dur is not None and max(abs(dur), abs((ts or 0) + dur)) > TIME_LIMIT)):
            continue
        if ts is None or (dur is not None and dur < 0):
            continue
        ph = ev.get("ph")
        if ph != "M":
            end = ts + (dur or 0)
            lo = ts if lo is None or ts < lo else lo
            hi = end if hi is None or end > hi else hi
        if ph != "X" or dur is None:
            continue
        name = ev.get("name")
        name = name if isinstance(name, str) else ""
        cat = ev.get("cat")
        args = ev.get("args")
        corr = args.get("correlation") if isinstance(args, dict) else None
        corr = corr if is_int(corr) else None
        row = None
        if isinstance(cat, str):
            row = lookup(CAT_ROWS, cat)
        else:
            pn = pnames.get(id_text(ev.get("pid")))
            if pn is not None:
                row = lookup(PROC_ROWS, pn)
                if row is not None and row[1] == K_RUNTIME:
                    row = None  # CANN: runtime calls are found by name below
        kind = row_kind(row, name) if row is not None else K_NONE
        xspans.append((ts, dur, i, name, cat))
        if kind == K_DEV:
            devs.append((ts, ts + dur, i, corr))
            continue
        if cat == "gpu_user_annotation":
            continue
        thread = (id_text(ev.get("pid")), id_text(ev.get("tid")))
        sync_call = False
        if kind == K_RUNTIME:
            sync_call = row[2] == "runtime" and runtime_is_sync(name)
            calls.append((ts, ts + dur, i, thread, name, corr))
        elif not isinstance(cat, str) and name.startswith("AscendCL@"):
            sync_call = runtime_is_sync(name)
            calls.append((ts, ts + dur, i, thread, name, corr))
        host.append((ts, ts + dur, i, thread, name, sync_call))

    if report_start is not None and report_start != lo:
        raise AssertionError("start_ns: report %r, oracle %r" % (report_start, lo))

    # ---- steps
    if steps_info is None:
        chosen = sorted((s for s in xspans if PSTEP_RE.match(s[3]) and
                         s[4] != "gpu_user_annotation"), key=lambda s: (s[0], s[2]))
        durs = [s[1] for s in chosen]
        warmup = len(durs) >= 2 and float(durs[0]) > 1.5 * median(durs[1:])
        cut_off = False
    else:
        pattern = steps_info.get("pattern")
        if pattern == PSTEP:
            chosen = [s for s in xspans if PSTEP_RE.match(s[3]) and
                      s[4] != "gpu_user_annotation"]
        else:
            globs = pattern.split("|") if isinstance(pattern, str) else []
            chosen = [s for s in xspans if (s[4] is None or s[4] == "user_annotation") and
                      any(fnmatch.fnmatchcase(s[3], g) for g in globs)]
        chosen.sort(key=lambda s: (s[0], s[2]))
        durs = [s[1] for s in chosen]
        want = steps_info.get("durations_ns")
        if want is not None and durs != want:
            raise AssertionError("steps: report durations_ns %r, oracle %r" % (want, durs))
        warmup = bool(steps_info.get("warmup"))
        cut_off = bool(steps_info.get("cut_off"))
    step_ivs = [(s[0], s[0] + s[1]) for s in chosen]

    if not devs:
        return None, None
    if lo is None:
        return None, None

    have_steps = len(step_ivs) > 0
    if have_steps:
        n = len(step_ivs)
        keep = [iv for k, iv in enumerate(step_ivs)
                if not (warmup and k == 0) and not (cut_off and k == n - 1)]
        window = merge(keep)
        first_step = step_ivs[0][0]
    else:
        window = [[lo, hi]] if hi > lo else []
        first_step = None
    window_ns = sum(e - s for s, e in window)

    # ---- device side
    busy = merge([(d[0], d[1]) for d in devs])
    busy_total = sum(e - s for s, e in busy)
    busy_in = sum(clip_len(window, s, e) for s, e in busy)
    first_at = {}       # ts -> first device item in file order
    first_corr_at = {}  # ts -> first device item with a correlation
    dev_corrs = set()
    for d in sorted(devs, key=lambda d: d[2]):
        first_at.setdefault(d[0], d)
        if d[3] is not None:
            first_corr_at.setdefault(d[0], d)
            dev_corrs.add(d[3])

    # ---- runtime calls
    calls_by_corr = {}
    for c in sorted(calls, key=lambda c: c[2]):
        if c[5] is not None:
            calls_by_corr.setdefault(c[5], c)
    calls_sorted = sorted(calls, key=lambda c: (c[0], c[2]))
    call_starts = [c[0] for c in calls_sorted]
    launched_starts = {}  # thread -> sorted starts of runtime calls that launched an item
    for c in calls_sorted:
        if c[5] is not None and c[5] in dev_corrs:
            launched_starts.setdefault(c[3], []).append(c[0])

    # stream event waits per thread, in time then file order
    waits_at = {}  # thread -> [(start, file index, name)]
    for c in calls:
        if c[4].startswith(EVENT_WAITS):
            waits_at.setdefault(c[3], []).append((c[0], c[2], c[4]))
    for v in waits_at.values():
        v.sort()

    def waited_on(thread, l):
        """the last event wait at or before l with no launch on the thread after it"""
        v = waits_at.get(thread, [])
        k = bisect.bisect_right(v, (l, TIME_LIMIT * 4))
        if k == 0:
            return None
        w = v[k - 1]
        ls = launched_starts.get(thread, [])
        j = bisect.bisect_right(ls, w[0])
        if j < len(ls) and ls[j] < l:
            return None  # a launch between the wait and this one
        return w[2]

    # ---- host span classes
    host = [h for h in host if not is_steady_wrapper(h[4])]
    # a runtime call at least 1 ms and 100 times its name's median: init
    call_durs = {}
    for c in calls:
        call_durs.setdefault(c[4], []).append(max(0, c[1] - c[0]))
    # (only unclassed calls: a long sync or allocation keeps its own kind)
    sync_names = {h[4] for h in host if h[5]}
    call_median = {nm: median(v) for nm, v in call_durs.items()
                   if nm not in sync_names and span_class(nm, False, False) is None}

    def median_outlier(name, dur):
        m = call_median.get(name)
        return m is not None and m > 0 and dur >= SLOW_FIRST_NS and dur >= 100 * m
    by_name = {}
    for h in host:
        by_name.setdefault(h[4], []).append(h)
    slow_first = set()
    for name, lst in by_name.items():
        n = len(lst)
        if n < 2:
            continue
        total = sum(h[1] - h[0] for h in lst)
        for h in sorted(lst, key=lambda h: (h[0], h[2])):
            d = h[1] - h[0]
            if d >= SLOW_FIRST_NS and d * (n - 1) >= 100 * (total - d):
                slow_first.add(h[2])
                break
            if FIRST_CALL_STRICT:
                break
    per_thread = {}  # thread -> {class or "work": [(start, end, i, name)]}
    for h in host:
        ts, end, i, thread, name, sync_call = h
        plain = span_class(name, sync_call, False)
        label = name
        if plain is None or plain in ("data_loading", "collective_wait", "memory_mgmt", "sync"):
            if plain is None and median_outlier(name, end - ts):
                m = call_median[name]
                label = "%s (%dx its median)" % (name, (2 * (end - ts)) // int(round(2 * m)))
                cls = "init"
            elif i in slow_first:
                lst = by_name[name]
                rest = sum(h2[1] - h2[0] for h2 in lst) - (end - ts)
                if rest > 0:
                    label = "%s (first call, %dx the mean of the later ones)" % (
                        name, (end - ts) * (len(lst) - 1) // rest)
                cls = "init"
            else:
                cls = plain
        else:
            cls = plain
        if cls is None:
            if end - ts < HOST_WORK_NS:
                continue
            ls = launched_starts.get(thread)
            if ls:
                k = bisect.bisect_left(ls, ts)
                if k < len(ls) and ls[k] < end:
                    continue  # launched something
            cls = "work"
        per_thread.setdefault(thread, {}).setdefault(cls, []).append((ts, end, i, label))
    # capture regions: BeginCapture .. the next EndCapture call on the thread
    open_at = {}
    for c in sorted(calls, key=lambda c: (c[3], c[0], c[2])):
        ts, end, i, thread, name, corr = c
        if "BeginCapture" in name or "CaptureBegin" in name:
            open_at[thread] = c
        elif ("EndCapture" in name or "CaptureEnd" in name) and thread in open_at:
            b = open_at.pop(thread)
            per_thread.setdefault(thread, {}).setdefault("capture", []).append(
                (b[0], end, b[2], b[4]))
    covers = {}
    stabs = {}

    def cover_of(thread, cls):
        key = (thread, cls)
        if key not in covers:
            lst = per_thread.get(thread, {}).get(cls, [])
            covers[key] = Cover([(s[0], s[1]) for s in lst]) if lst else None
        return covers[key]

    def stab_of(thread, cls):
        key = (thread, cls)
        if key not in stabs:
            lst = per_thread.get(thread, {}).get(cls, [])
            stabs[key] = Stab(lst) if lst else None
        return stabs[key]

    # ---- gaps
    gaps = []  # (a, b, is_last)
    cur = lo
    for s, e in busy:
        if s > cur:
            gaps.append((cur, s, False))
        cur = max(cur, e)
    if cur < hi:
        gaps.append((cur, hi, True))

    def cause_of(a, b, is_last):
        """(cause, host name or None, by_time)"""
        call = None
        by_time = False
        if not is_last:
            item = first_corr_at.get(b)
            if item is not None and item[3] in calls_by_corr:
                call = calls_by_corr[item[3]]
            else:
                k = bisect.bisect_right(call_starts, b)
                if k > 0:
                    call = calls_sorted[k - 1]
                    by_time = True
        if call is not None:
            thread, l = call[3], call[0]
        else:
            k = bisect.bisect_left(call_starts, a)
            if k == 0:
                return "other", None, False
            thread, l = calls_sorted[k - 1][3], b
        found = call is not None
        # rule 0: launched (by correlation) long before the device started it
        if found and not by_time and not is_last:
            held = b - call[1]
            if held >= DEVICE_WAIT_NS and 2 * held >= b - a:
                if is_graph_launch(call[4]):
                    return "device_wait", call[4], False
                return "device_wait", waited_on(thread, l), False
        ws, we = a, max(a, l)
        if found and not is_last and median_outlier(call[4], call[1] - call[0]):
            we = max(we, min(b, call[1]))  # the outlier call itself holds the gap
        wlen = we - ws
        # rule 1
        best, best_cls = 0, None
        for cls in CLASSES:
            cv = cover_of(thread, cls)
            c = cv.cover(ws, we) if cv is not None else 0
            if c > best:
                best, best_cls = c, cls
        if best_cls is not None and 2 * best >= wlen:
            cands = stab_of(thread, best_cls).query(we, False, ws, False)
            pick = min(cands, key=lambda s: (-(min(s[1], we) - max(s[0], ws)), s[0], s[2]))
            return best_cls, pick[3], by_time
        # rule 2: the union of host work covers most of W
        st = stab_of(thread, "work")
        if st is not None and wlen > 0:
            cands = st.query(we, False, ws, False)
            if cands:
                pick = min(cands, key=lambda s: (-(min(s[1], we) - max(s[0], ws)),
                                                 s[1] - s[0], s[0], s[2]))
                cov = cover_of(thread, "work").cover(ws, we)
                if cov > 0 and 2 * cov >= wlen:
                    return "host_compute", pick[3], by_time
        # rule 3
        st = stab_of(thread, "sync")
        if st is not None:
            cands = st.query(a, True, a, True)
            if cands:
                pick = min(cands, key=lambda s: (-(s[1] - s[0]), s[0], s[2]))
                return "sync", pick[3], by_time
        # rules 4-6
        if found and b - a <= SHORT_GAP_NS:
            return "launch", call[4], by_time
        if found:
            return "host_compute", None, by_time
        return "other", None, by_time

    def zero_causes():
        return {c: 0 for c in CAUSES}

    win = {"gaps": 0, "gaps_by_time": 0, "by_cause": zero_causes()}
    out = {"gaps": 0, "by_cause": zero_causes()}
    hist = [[0, 0] for _ in HIST_BINS]
    tops = []
    for a, b, is_last in gaps:
        cause, name, by_time = cause_of(a, b, is_last)
        ins, outs = pieces(a, b, window)
        for group, parts in ((win, ins), (out, outs)):
            if parts:
                group["gaps"] += 1  # a gap counts once in each part it has time in
            for p, q in parts:
                init_part = max(0, min(q, first_step) - p) if have_steps else 0
                group["by_cause"]["init"] += init_part
                group["by_cause"][cause] += (q - p) - init_part
        if ins:
            if by_time:
                win["gaps_by_time"] += 1
            L = sum(q - p for p, q in ins)
            for k, m in enumerate(HIST_BINS):
                if m is None or L <= m:
                    hist[k][0] += 1
                    hist[k][1] += L
                    break
        step = None
        for k, (s, e) in enumerate(step_ivs):
            if s <= a < e:
                step = k
                break
        tops.append({
            "start_ns": a - lo, "dur_ns": b - a,
            "cause": "init" if have_steps and b <= first_step else cause,
            "window": len(ins) > 0, "step": step, "host": name})
    tops.sort(key=lambda t: (-t["dur_ns"], t["start_ns"]))
    span = hi - lo
    idle_in = window_ns - busy_in
    assert sum(win["by_cause"].values()) == idle_in, (win, idle_in)
    out_window = span - window_ns
    out_busy = busy_total - busy_in
    assert sum(out["by_cause"].values()) == out_window - out_busy
    idle = {
        "window": "steps" if have_steps else "trace",
        "window_ns": window_ns,
        "busy_ns": busy_in,
        "idle_ns": idle_in,
        "gaps": win["gaps"],
        "gaps_by_time": win["gaps_by_time"],
        "by_cause": win["by_cause"],
        "outside": {"window_ns": out_window, "busy_ns": out_busy,
                    "idle_ns": out_window - out_busy, "gaps": out["gaps"],
                    "by_cause": out["by_cause"]},
        "histogram": [{"max_ns": m, "gaps": hist[k][0], "idle_ns": hist[k][1]}
                      for k, m in enumerate(HIST_BINS)],
        "top": tops[:10],
    }
    util = busy_in / window_ns if have_steps and window_ns > 0 else None
    return idle, util


# ---- comparison -------------------------------------------------------------

def compare(path, want, got, diffs):
    if isinstance(want, dict) and isinstance(got, dict):
        for k in want:
            if k not in got:
                diffs.append("%s.%s: oracle %s, report missing" % (path, k, json.dumps(want[k])))
            else:
                compare("%s.%s" % (path, k), want[k], got[k], diffs)
        for k in got:
            if k not in want:
                diffs.append("%s.%s: report has extra key (%s)" % (path, k, json.dumps(got[k])))
        return
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            diffs.append("%s: length oracle %d, report %d" % (path, len(want), len(got)))
        for k in range(min(len(want), len(got))):
            compare("%s[%d]" % (path, k), want[k], got[k], diffs)
        return
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        g = float(got)
        if not (abs(want - g) <= 1e-9 * max(abs(want), abs(g)) or want == g):
            diffs.append("%s: oracle %r, report %r" % (path, want, got))
        return
    if type(want) is not type(got) or want != got:
        if isinstance(got, decimal.Decimal) and isinstance(want, float) and float(got) == want:
            return
        diffs.append("%s: oracle %s, report %s" % (path, json.dumps(want), json.dumps(got, default=str)))


def summary(trace, idle):
    if idle is None:
        return "%s: idle null (no device items)" % trace
    causes = ", ".join("%s %.3f ms" % (c, v / 1e6)
                       for c, v in sorted(idle["by_cause"].items(), key=lambda x: -x[1]) if v)
    return "%s: window %s %.3f ms, idle %.3f ms (%d gaps, %d by time): %s" % (
        trace, idle["window"], idle["window_ns"] / 1e6, idle["idle_ns"] / 1e6, idle["gaps"],
        idle["gaps_by_time"], causes or "-")


def read_report(path):
    with open(path) as f:
        r = json.load(f)
    return r["ranks"][0]


def main(argv):
    args = argv[1:]
    if args and args[0] == "--print":
        rest = args[1:]
        steps_from = None
        if "--steps-from" in rest:
            k = rest.index("--steps-from")
            steps_from = rest[k + 1]
            rest = rest[:k] + rest[k + 2:]
        if len(rest) != 1:
            sys.stderr.write("usage: oracle_idle.py --print TRACE [--steps-from REPORT]\n")
            return 2
        steps_info = start = None
        if steps_from:
            rk = read_report(steps_from)
            steps_info, start = rk["steps"], rk.get("start_ns")
        try:
            idle, util = analyze(load(rest[0]), steps_info, start)
        except AssertionError as exc:
            sys.stderr.write("%s: MISMATCH before idle: %s\n" % (rest[0], exc))
            return 1
        json.dump({"idle": idle, "step_utilization": util}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stderr.write(summary(rest[0], idle) + "\n")
        return 0
    if len(args) != 2:
        sys.stderr.write("usage: oracle_idle.py TRACE REPORT.json\n"
                         "       oracle_idle.py --print TRACE [--steps-from REPORT.json]\n")
        return 2
    trace, report = args
    rk = read_report(report)
    try:
        idle, util = analyze(load(trace), rk["steps"], rk.get("start_ns"))
    except AssertionError as exc:
        print("%s: MISMATCH before idle: %s" % (trace, exc))
        return 1
    print(summary(trace, idle))
    if "idle" not in rk:
        print("%s: the report has no ranks[0].idle key" % report)
        return 1
    diffs = []
    compare("idle", idle, rk["idle"], diffs)
    gpu = rk.get("gpu")
    if not isinstance(gpu, dict) or "step_utilization" not in gpu:
        if util is not None or gpu is not None:
            diffs.append("gpu.step_utilization: oracle %r, report missing" % (util,))
    else:
        compare("gpu.step_utilization", util, gpu["step_utilization"], diffs)
    for d in diffs:
        print("  MISMATCH " + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
