#!/usr/bin/env python3
"""Independent reference for the GPU, kernel, memory and CPU-operator parts of
a vanalyze report (the keys gpu, kernels, memory, cpu_ops of one rank).

    python3 tests/oracle_analyses.py FILE

prints {"device": {...}, "gpu": {...}, "kernels": [...], "memory": [...],
"cpu_ops": [...]}
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
  device     which events are device work (analyzer/device.c's table, restated
             here from its sources, not from its code):
             * by cat, compared exactly first, then ignoring ASCII case, in
               this order (vendor, source, cat, kind):
               nvidia kineto: kernel=kernel, gpu_memcpy=memcpy,
                 gpu_memset=memset, cuda_runtime=runtime, cuda_driver=runtime,
                 cuda_sync=wait;
               nvidia kineto-2021: Kernel=kernel, Memcpy=memcpy,
                 Memset=memset, Runtime=runtime;
               intel kineto-xpu: xpu_runtime=runtime, xpu_driver=runtime;
               mtia kineto-mtia: mtia_ccp_events=kernel (named dma_request:
                 memcpy; event_record, event_wait: wait), mtia_runtime=runtime;
             * events without a string cat, by the name of their process
               (args.name of the last ph "M" event named "process_name" with
               the same pid, pid compared as text: 7 and "7" are one):
               ascend torch_npu: "Ascend Hardware"=kernel (MEMCPY_ASYNC:
                 memcpy; EVENT_RECORD, EVENT_WAIT, Notify Wait, Notify
                 Record, Write Value: wait; SDMA and names starting "RDMA":
                 comm task), "HCCL"=kernel for names starting "hcom_"
                 (starting "Notify" or Write Value: wait; others: comm
                 task), "CANN"=runtime;
             * a runtime event of cuda_runtime, cuda_driver, Runtime or CANN is
               a host sync when its name starts with "cu" or "hip" and ends
               with "Synchronize", starts with "AscendCL@aclrtSynchronize",
               or is one of SYNC_COPIES.
             Only ph "X" events take part by process name.  An event a cat
             rule does not make device work, with ph "X" and a name starting
             "hccl:" is a host collective; starting "gloo:", "nccl:",
             "c10d::" or equal to "record_param_comms", a CPU collective.
  vendor     device.vendor/source: the rule (table order above) with the most
             kernel/memcpy/memset events, the first on ties; null/null when
             none.  An nvidia rule becomes intel/kineto-xpu when any runtime
             or sync event came from an intel rule, else amd (same source)
             when more runtime/sync names start with "hip" than with "cu".
  union      total length of the union of the intervals [ts, ts + dur);
             an interval with dur <= 0 contributes nothing.
  gpu        kernels: count of kernel events; kernel_time_ns: sum of their
             dur_ns.  busy_ns: union of kernel, memcpy, memset and comm task
             events.
             active_span_ns: max(ts + dur) - min(ts) over them, 0 when none.
             idle_ns = active_span_ns - busy_ns.  utilization = busy_ns /
             active_span_ns, null when active_span_ns is 0.  memory_ns: union
             of memcpy and memset events.  comm_ns: union of the comm-category
             kernels, the comm tasks, the host collectives, and, in runs
             without kernels, the CPU collectives.  compute_ns: union of the other kernels.
             comm_compute_overlap = |comm ∩ compute| / comm_ns (null without
             kernels, and
             comm_ns is 0).  comm_source "cpu" without kernels or when comm
             comes from host spans only, else "gpu".  host_sync_ns / count:
             sum of dur_ns and number of host syncs.  Without any kernel,
             memcpy or memset event, every figure above is null except
             comm_ns where comm_source is "cpu", and the host syncs.
             Events whose dur is negative take no part anywhere.
  category   of a kernel, from its first 4096 bytes with ASCII letters
             lowercased (A-Z only, as C's tolower in the "C" locale): the
             category of the first rule of CATEGORY_RULES that holds (has: a
             substring; prefix; exact; "also": and a second substring), else
             "other".
  kernels    one row per distinct kernel name: name, category and
             category_source (tests/oracle_kctx.py: from the launching
             operator or attention block, else the category above), count,
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
             string); peak_allocated 0 and peak_reserved null (unknown)
             when there is none.  Where no event of the group has
             a numeric "Total Allocated" but some has a nonzero integer
             args["Bytes"], peak_allocated is the largest running sum of Bytes
             over the group's events in (ts, file order) order, at least 0,
             and allocated_lower_bound is true.  capacity: totalGlobalMem of the
             first top-level deviceProperties entry whose "id" equals the
             device, when that is a JSON integer; else null.  timeline: the
             group's events in (ts, file order) order as triplets [ts_ns
             minus the rank's start (the smallest ts_ns of an event whose ph
             is not "M"), allocated, reserved], flattened; allocated is the
             running sum where allocated_lower_bound, else Total Allocated
             (0 when not a number), reserved is Total Reserved (0 likewise),
             both truncated toward zero.  Beyond 256 events, group g of k =
             256 holds events floor(g*n/k) to floor((g+1)*n/k) - 1 and gives
             [its last event's time, max(0, its allocated), max(0, its
             reserved)].  Sorted by device.
  cpu_ops    events with cat "cpu_op" or "Operator" (2021) and ph "X", per name: count, total_ns =
             sum of dur_ns, self_ns = sum of (dur_ns minus the dur_ns of its
             direct children).  Children: per thread (pid, tid; values compared
             with their JSON type, so 1 and "1" are different threads; absent
             is its own value), sort the thread's cpu_ops by ts ascending, dur
             descending, then file order; sweep with a stack: pop while the
             event does not start before the top's end (ts >= top_end); if the
             stack is not empty the top is the parent; push the event.  A child
             that ends after its parent still counts whole (nothing clipped).
             Sorted by total_ns descending, then name ascending.
             In a file where no event has a "cat" key (PyTorch's legacy
             writer), the operators are instead the "X" events whose pid is
             not the string "CUDA functions" and whose name is no user name
             (tests/oracle_phases.py's is_user_name).
             device_ns: device time launched inside the operator, as
             key_averages() counts it: device events (kernel, memcpy,
             memset by the cat rules above, ph "X") with an integer
             args.correlation sum their dur_ns per correlation; the first
             runtime or sync call (by cat rule, ph "X") in file order with
             that correlation is its launch, at its ts on its thread; an
             operator's device_ns sums the device time of the launches on
             its thread with op.ts <= launch.ts < op.ts + op.dur.
             self_device_ns: device_ns minus its direct children's.  Both
             null in a file with no such device event.
  numbers    ints stay ints; avg/median/stddev/share/utilization/overlap are
             floats (or null).  Statistics are computed exactly (integers and
             fractions) and rounded to float at the end.
"""

import bisect
import decimal
import fractions
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load, to_ns: the independent reading reference)

# (vendor, source, key, kind, refinements): refinements map names to kinds.
MTIA_NAMES = {"dma_request": "memcpy", "event_record": "wait", "event_wait": "wait"}
ASCEND_NAMES = {"MEMCPY_ASYNC": "memcpy", "EVENT_RECORD": "wait", "EVENT_WAIT": "wait",
                "Notify Wait": "wait", "Notify Record": "wait", "Write Value": "wait",
                "SDMA": "comm_task"}
CAT_TABLE = [
    ("nvidia", "kineto", "kernel", "kernel"),
    ("nvidia", "kineto", "gpu_memcpy", "memcpy"),
    ("nvidia", "kineto", "gpu_memset", "memset"),
    ("nvidia", "kineto", "cuda_runtime", "runtime"),
    ("nvidia", "kineto", "cuda_driver", "runtime"),
    ("nvidia", "kineto", "cuda_sync", "wait"),
    ("nvidia", "kineto-2021", "Kernel", "kernel"),
    ("nvidia", "kineto-2021", "Memcpy", "memcpy"),
    ("nvidia", "kineto-2021", "Memset", "memset"),
    ("nvidia", "kineto-2021", "Runtime", "runtime"),
    ("intel", "kineto-xpu", "xpu_runtime", "runtime"),
    ("intel", "kineto-xpu", "xpu_driver", "runtime"),
    ("mtia", "kineto-mtia", "mtia_ccp_events", "kernel"),
    ("mtia", "kineto-mtia", "mtia_runtime", "runtime"),
]
PROC_TABLE = [
    ("ascend", "torch_npu", "Ascend Hardware", "kernel"),
    ("ascend", "torch_npu", "HCCL", "kernel"),
    ("ascend", "torch_npu", "CANN", "runtime"),
]
RULES = CAT_TABLE + PROC_TABLE   # one numbering, for ties
SYNC_RULE_KEYS = ("cuda_runtime", "cuda_driver", "Runtime", "CANN")
SYNC_COPIES = ("cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cuMemcpyDtoH_v2",
               "cuMemcpyHtoD_v2", "hipMemcpy", "hipMemcpy2D", "hipMemcpyDtoH",
               "hipMemcpyHtoD", "AscendCL@aclrtMemcpy")

CATEGORY_RULES = [  # (category, how, pattern, also)
    # inductor: the kernel's shape decides, not the aten ops fused into it
    ("elementwise", "prefix", "triton_poi_"),
    ("norm", "prefix", "triton_red_", "rsqrt"), ("norm", "prefix", "triton_per_", "rsqrt"),
    ("norm", "prefix", "triton_red_", "layer_norm"), ("norm", "prefix", "triton_per_", "layer_norm"),
    ("norm", "prefix", "triton_red_", "group_norm"), ("norm", "prefix", "triton_per_", "group_norm"),
    ("reduce", "prefix", "triton_red_"), ("reduce", "prefix", "triton_per_"),
    # norm + rotary embedding: the attention its name holds is what it feeds
    ("norm", "has", "rmsnorm", "rope"), ("norm", "has", "rms_norm", "rope"),
    ("norm", "has", "layernorm", "rope"), ("norm", "has", "layer_norm", "rope"),
    ("norm", "has", "rmsnorm", "rotary"), ("norm", "has", "rms_norm", "rotary"),
    ("norm", "has", "layernorm", "rotary"), ("norm", "has", "layer_norm", "rotary"),
    ("comm", "has", "nccl"), ("comm", "has", "rccl"), ("comm", "has", "all_reduce"),
    ("comm", "has", "allreduce"), ("comm", "has", "allgather"), ("comm", "has", "all_gather"),
    ("comm", "has", "reduce_scatter"), ("comm", "has", "reducescatter"),
    ("comm", "has", "sendrecv"), ("comm", "has", "alltoall"), ("comm", "has", "all_to_all"),
    ("comm", "prefix", "hcom_"),
    ("attention", "has", "flash_fwd"), ("attention", "has", "flash_bwd"),
    ("attention", "has", "flash_attn"), ("attention", "has", "fmha"),
    ("attention", "has", "attention"), ("attention", "has", "attn_fwd"),
    ("attention", "has", "attn_bwd"), ("attention", "exact", "_fwd_kernel"),
    ("attention", "exact", "_bwd_kernel"), ("attention", "has", "sdpa"),
    ("attention", "has", "prefillwithpagedkv"), ("attention", "has", "decodewithpagedkv"),
    ("attention", "has", "mha_fwd"), ("attention", "has", "mha_bwd"),
    ("attention", "prefix", "sage"), ("attention", "has", "sageattn"),
    ("norm", "has", "layer_norm"), ("norm", "has", "layernorm"), ("norm", "has", "rms_norm"),
    ("norm", "has", "rmsnorm"), ("norm", "has", "group_norm"), ("norm", "has", "groupnorm"),
    ("norm", "has", "batch_norm"), ("norm", "has", "batchnorm"),
    ("norm", "has", "instance_norm"), ("norm", "has", "bn_fw"), ("norm", "has", "bn_bw"),
    ("conv", "has", "conv1d"), ("conv", "has", "conv2d"), ("conv", "has", "conv3d"),
    ("conv", "has", "convolution"), ("conv", "has", "convolve"), ("conv", "has", "conv_fwd"),
    ("conv", "has", "conv_bwd"), ("conv", "has", "scudnn"), ("conv", "has", "dgrad"),
    ("conv", "has", "wgrad"), ("conv", "has", "winograd"), ("conv", "has", "igemm_"),
    ("conv", "has", "implicit_gemm"),
    ("other", "has", "moe::dev::routing"), ("reduce", "has", "moe::dev::finalize"),
    ("reduce", "prefix", "_finalize_matmul"),
    ("gemm", "has", "gemm"), ("gemm", "has", "gemv"), ("gemm", "has", "matmul"),
    ("gemm", "has", "cutlass"), ("gemm", "has", "cublas"), ("gemm", "has", "wgmma"),
    ("gemm", "has", "xmma"), ("gemm", "prefix", "nvjet_"), ("gemm", "prefix", "bmm_"),
    ("gemm", "prefix", "cijk_"), ("gemm", "has", "addmm"), ("gemm", "prefix", "fc-dtype"),
    ("reduce", "has", "reduce"), ("reduce", "has", "softmax"),
    ("reduce", "has", "argmax"), ("reduce", "has", "topk"), ("reduce", "has", "vector_norm"),
    ("elementwise", "has", "elementwise"),
    ("elementwise", "has", "catarraybatchedcopy"), ("elementwise", "has", "multi_tensor_apply"),
    ("elementwise", "has", "act_and_mul"), ("elementwise", "has", "rotary_embedding"),
    ("elementwise", "has", "quant"), ("elementwise", "has", "aicore_"),
    ("elementwise", "prefix", "trans_"), ("elementwise", "has", "relu"),
    ("elementwise", "prefix", "add-dtype"), ("elementwise", "prefix", "divide-dtype"),
    ("elementwise", "prefix", "aten::mul"), ("elementwise", "has", "_mul_const"),
]

CPU_COMM_PREFIXES = ("gloo:", "nccl:", "c10d::")
CPU_COMM_NAMES = ("record_param_comms",)

ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


# torch_npu's aclnn<Operator>_...: by the operator (lowered, "inplace" dropped)
ASCEND_OP_RULES = [
    ("attention", "has", "attention"), ("norm", "has", "layernorm"), ("norm", "has", "rmsnorm"),
    ("norm", "has", "groupnorm"), ("norm", "has", "batchnorm"), ("conv", "prefix", "conv"),
    ("gemm", "exact", "mm"), ("gemm", "exact", "addmm"), ("gemm", "exact", "bmm"),
    ("gemm", "exact", "baddbmm"), ("gemm", "exact", "addbmm"), ("gemm", "exact", "mv"),
    ("gemm", "exact", "addmv"), ("gemm", "has", "matmul"), ("reduce", "has", "softmax"),
    ("reduce", "has", "pool"), ("reduce", "has", "argm"), ("reduce", "has", "topk"),
    ("reduce", "has", "reduce"), ("elementwise", "exact", "cast"),
    ("elementwise", "prefix", "foreach"), ("elementwise", "prefix", "dropout"),
]


def first_rule(rules, low):
    for rule in rules:
        cat, how, pat = rule[:3]
        also = rule[3] if len(rule) > 3 else None
        if how == "has":
            ok = pat in low
        elif how == "prefix":
            ok = low.startswith(pat)
        else:
            ok = low == pat
        if ok and (also is None or also in low):
            return cat
    return None


def category(name):
    low = name.encode("utf-8", "surrogatepass")[:4096].decode("utf-8", "ignore")
    low = low.translate(ASCII_LOWER)
    if low.startswith("aclnn") and len(low) > 5:
        op = low[5:]
        if len(op) > 7 and op.startswith("inplace"):
            op = op[7:]
        op = op.split("_", 1)[0]
        if op:
            cat = first_rule(ASCEND_OP_RULES, op) or first_rule(CATEGORY_RULES, op)
            if cat:
                return cat
    for rule in CATEGORY_RULES:
        cat, how, pat = rule[:3]
        also = rule[3] if len(rule) > 3 else None
        if how == "has":
            ok = pat in low
        elif how == "prefix":
            ok = low.startswith(pat)
        else:
            ok = low == pat
        if ok and (also is None or also in low):
            return cat
    return "other"


def cat_rule(cat):
    """The index in RULES of a cat's rule, or None."""
    for k, r in enumerate(CAT_TABLE):
        if r[2] == cat:
            return k
    for k, r in enumerate(CAT_TABLE):
        if r[2].translate(ASCII_LOWER) == cat.translate(ASCII_LOWER):
            return k
    return None


def proc_rule(pname):
    for k, r in enumerate(PROC_TABLE):
        if r[2] == pname:
            return len(CAT_TABLE) + k
    return None


def kind_of(rule, name):
    """What an event of RULES[rule] named name is."""
    vendor, source, key, kind = RULES[rule]
    if key == "mtia_ccp_events" and name in MTIA_NAMES:
        return MTIA_NAMES[name]
    if key == "Ascend Hardware" and name in ASCEND_NAMES:
        return ASCEND_NAMES[name]
    if key == "Ascend Hardware" and name.startswith("RDMA"):
        return "comm_task"
    if key == "HCCL":
        if name.startswith("hcom_"):
            return "kernel"
        return "wait" if name.startswith("Notify") or name == "Write Value" else "comm_task"
    if key in SYNC_RULE_KEYS:
        if ((name.startswith("cu") or name.startswith("hip")) and name.endswith("Synchronize")) \
                or name.startswith("AscendCL@aclrtSynchronize") or name in SYNC_COPIES:
            return "sync"
    return kind


def pid_text(v):
    if isinstance(v, str):
        return v
    if isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool):
        return str(v)
    return None


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


def memory_timeline(events, start, lower_bound):
    """A memory row's timeline (see the docstring) from its (ts, i, Total
    Allocated, Total Reserved, Bytes) events."""
    def whole(v):
        return int(v) if is_number(v) else 0
    vals, run = [], 0
    for ts, _, alloc, res, nbytes in sorted(events, key=lambda e: (e[0], e[1])):
        run += nbytes
        vals.append((ts - start, run if lower_bound else whole(alloc), whole(res)))
    n = len(vals)
    k = min(n, 256)
    out = []
    for g in range(k):
        chunk = vals[g * n // k:(g + 1) * n // k]
        out += [chunk[-1][0], max([0] + [v[1] for v in chunk]),
                max([0] + [v[2] for v in chunk])]
    return out


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
        if dur < 0:
            continue  # dropped from every time sum, with a warning
        name = ev.get("name")
        rows.append((i, ev, ts, dur, name if isinstance(name, str) else ""))

    # ---- device events
    procs = {}
    for ev in events:
        if isinstance(ev, dict) and ev.get("ph") == "M" and ev.get("name") == "process_name":
            args = ev.get("args")
            pid = pid_text(ev.get("pid"))
            if pid is not None and isinstance(args, dict) and isinstance(args.get("name"), str):
                procs[pid] = args["name"]
    dev_ivs, mem_ivs, comm_ivs, compute_ivs, host_coll, cpu_coll = [], [], [], [], [], []
    per_kernel = {}
    n_dev = [0] * len(RULES)
    n_rt = [0] * len(RULES)
    n_name = {"hip": 0, "cu": 0}
    sync = [0, 0]  # ns, count

    def count_runtime(rule, name, kind):
        n_rt[rule] += 1
        for prefix in n_name:
            n_name[prefix] += name.startswith(prefix)

    for i, ev, ts, dur, name in rows:
        cat = ev.get("cat")
        kind = rule = None
        if isinstance(cat, str):
            rule = cat_rule(cat)
            kind = kind_of(rule, name) if rule is not None else None
        if kind in ("runtime", "sync"):
            count_runtime(rule, name, kind)
        if kind not in ("kernel", "memcpy", "memset", "comm_task", "sync") and \
                ev.get("ph") == "X" \
                and isinstance(ev.get("name"), str):
            if name.startswith("hccl:"):
                host_coll.append((ts, ts + dur))
                continue
            if name.startswith(CPU_COMM_PREFIXES) or name in CPU_COMM_NAMES:
                cpu_coll.append((ts, ts + dur))
                continue
        if not isinstance(cat, str) and ev.get("ph") == "X":
            pid = pid_text(ev.get("pid"))
            rule = proc_rule(procs.get(pid)) if pid is not None else None
            kind = kind_of(rule, name) if rule is not None else None
            if kind in ("runtime", "sync"):
                count_runtime(rule, name, kind)
        if kind in ("kernel", "memcpy", "memset", "comm_task"):
            n_dev[rule] += 1
            dev_ivs.append((ts, ts + dur))
            if kind == "comm_task":
                comm_ivs.append((ts, ts + dur))
            elif kind == "kernel":
                per_kernel.setdefault(name, []).append(dur)
                (comm_ivs if category(name) == "comm" else compute_ivs).append((ts, ts + dur))
            else:
                mem_ivs.append((ts, ts + dur))
        elif kind == "sync":
            sync[0] += dur
            sync[1] += 1

    n_kernels = sum(len(v) for v in per_kernel.values())
    kernel_time = sum(sum(v) for v in per_kernel.values())
    busy = union_length(dev_ivs)
    active = max(e for _, e in dev_ivs) - min(s for s, _ in dev_ivs) if dev_ivs else 0
    comm_all = comm_ivs + host_coll + (cpu_coll if n_kernels == 0 else [])
    comm = union_length(comm_all)
    compute = union_length(compute_ivs)
    both = union_length(comm_all + compute_ivs)
    # |A∩B| = |A|+|B|-|A∪B|; nothing to overlap with where there are no kernels
    overlap = ratio(comm + compute - both, comm) if comm and n_kernels else None
    cpu_source = n_kernels == 0 or (not comm_ivs and bool(comm_all))
    none = not dev_ivs

    vendor = source = None
    best = None
    for k in range(len(RULES)):
        if n_dev[k] > 0 and (best is None or n_dev[k] > n_dev[best]):
            best = k
    if best is not None:
        vendor, source = RULES[best][0], RULES[best][1]
        if vendor == "nvidia":
            if any(n_rt[k] for k in range(len(RULES)) if RULES[k][0] == "intel"):
                vendor, source = "intel", "kineto-xpu"
            elif n_name["hip"] > n_name["cu"]:
                vendor = "amd"

    gpu = {
        "kernels": None if none else n_kernels,
        "kernel_time_ns": None if none else kernel_time,
        "busy_ns": None if none else busy,
        "active_span_ns": None if none else active,
        "idle_ns": None if none else active - busy,
        "utilization": ratio(busy, active) if active else None,
        "comm_ns": None if none and not cpu_source else comm,
        "compute_ns": None if none else compute,
        "memory_ns": None if none else union_length(mem_ivs),
        "comm_compute_overlap": overlap,
        "comm_source": "cpu" if cpu_source else "gpu",
        "host_sync_ns": sync[0],
        "host_sync_count": sync[1],
    }
    device = {"vendor": vendor, "source": source}

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
    # the category from what launched each kernel (tests/oracle_kctx.py), else its name
    import oracle_kctx  # noqa: E402  (it imports this module)
    by_ctx = oracle_kctx.rows(events, kernels, category)
    for k in kernels:
        k["category"], k["category_source"] = by_ctx[k["name"]]

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
        g = groups.setdefault(dev, {"alloc": [], "res": [], "bytes": [], "events": []})
        if is_int(args.get("Bytes")):
            g["bytes"].append((ts, i, args["Bytes"]))
        if is_number(args.get("Total Allocated")):
            g["alloc"].append(args["Total Allocated"])
        if is_number(args.get("Total Reserved")):
            g["res"].append(args["Total Reserved"])
        g["events"].append((ts, i, args.get("Total Allocated"), args.get("Total Reserved"),
                            args["Bytes"] if is_int(args.get("Bytes")) else 0))
    start = min((ts for _, ev, ts, _, _ in rows if ev.get("ph") != "M"), default=0)
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
        row = {
            "device": dev,
            "peak_allocated": plain_number(max(g["alloc"])) if g["alloc"] else 0,
            "peak_reserved": plain_number(max(g["res"])) if g["res"] else None,
            "capacity": capacity,
        }
        if not g["alloc"] and any(b for _, _, b in g["bytes"]):
            run = peak = 0
            for _, _, b in sorted(g["bytes"]):
                run += b
                peak = max(peak, run)
            row["peak_allocated"] = peak
            row["allocated_lower_bound"] = True
        row["timeline"] = memory_timeline(g["events"], start,
                                          row.get("allocated_lower_bound", False))
        memory.append(row)

    # ---- cpu_ops
    import oracle_phases  # its is_user_name; imported here as it imports this module
    no_cat = not any(isinstance(ev, dict) and "cat" in ev for ev in events)
    dev_time, launch = {}, {}  # correlation -> summed device dur; -> (thread, ts)
    for i, ev, ts, dur, name in rows:
        cat, args = ev.get("cat"), ev.get("args")
        corr = args.get("correlation") if isinstance(args, dict) else None
        if not isinstance(cat, str) or ev.get("ph") != "X" or not is_int(corr):
            continue
        rule = cat_rule(cat)
        kind = kind_of(rule, name) if rule is not None else None
        if kind in ("kernel", "memcpy", "memset"):
            dev_time[corr] = dev_time.get(corr, 0) + dur
        elif kind in ("runtime", "sync") and corr not in launch:
            launch[corr] = ((thread_key(ev, "pid"), thread_key(ev, "tid")), ts)
    placed = {}  # thread -> [(launch ts, device time)]
    for corr, (thread, ts) in launch.items():
        if corr in dev_time:
            placed.setdefault(thread, []).append((ts, dev_time[corr]))
    prefix = {}  # thread -> (sorted launch times, prefix sums of their device time)
    for thread, v in placed.items():
        v.sort()
        sums = [0]
        for _, d in v:
            sums.append(sums[-1] + d)
        prefix[thread] = ([t for t, _ in v], sums)

    def launched(thread, lo, hi):
        """Device time launched on thread at lo <= ts < hi."""
        times, sums = prefix.get(thread, ((), [0]))
        return sums[bisect.bisect_left(times, hi)] - sums[bisect.bisect_left(times, lo)]
    threads = {}
    for i, ev, ts, dur, name in rows:
        if ev.get("ph") != "X":
            continue
        if no_cat:
            if ev.get("pid") == "CUDA functions" or not isinstance(ev.get("name"), str) or \
                    oracle_phases.is_user_name(name):
                continue
        elif ev.get("cat") not in ("cpu_op", "Operator"):
            continue
        key = (thread_key(ev, "pid"), thread_key(ev, "tid"))
        dev = launched(key, ts, ts + dur)
        threads.setdefault(key, []).append((ts, dur, i, name, dev))
    ops = {}  # name -> [count, total, self, device, self device]
    for evs in threads.values():
        evs.sort(key=lambda e: (e[0], -e[1], e[2]))
        child_sum = [0] * len(evs)
        child_dev = [0] * len(evs)
        stack = []  # indices into evs
        for k, (ts, dur, i, name, dev) in enumerate(evs):
            while stack and not ts < evs[stack[-1]][0] + evs[stack[-1]][1]:
                stack.pop()
            if stack:
                child_sum[stack[-1]] += dur
                child_dev[stack[-1]] += dev
            stack.append(k)
        for k, (ts, dur, i, name, dev) in enumerate(evs):
            o = ops.setdefault(name, [0, 0, 0, 0, 0])
            o[0] += 1
            o[1] += dur
            o[2] += dur - child_sum[k]
            o[3] += dev
            o[4] += dev - child_dev[k]
    has_dev = bool(dev_time)
    cpu_ops = [{"name": n, "count": c, "total_ns": t, "self_ns": s,
                "device_ns": d if has_dev else None, "self_device_ns": sd if has_dev else None}
               for n, (c, t, s, d, sd) in ops.items()]
    cpu_ops.sort(key=lambda o: (-o["total_ns"], o["name"]))

    return {"device": device, "gpu": gpu, "kernels": kernels, "memory": memory,
            "cpu_ops": cpu_ops}


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
