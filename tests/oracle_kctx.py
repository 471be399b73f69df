"""Independent reference for the kernel categories from their launches
(analyzer/kctx.c; doc/classification.md).  Python 3 stdlib only; it shares
no table with vtrace's C code.

Definition, per trace:
  kernels   "X" events whose cat (any case) is a device's kernels ("kernel",
            "mtia_ccp_events" but its dma_request / event_record /
            event_wait), with a numeric ts, dur >= 0 and an integer args.correlation.
  launch    of a kernel: the first "X" event in file order with that
            correlation whose cat (any case) is a runtime call (cuda_runtime,
            cuda_driver, runtime, xpu_runtime, xpu_driver, mtia_runtime);
            its thread (pid, tid) and ts.
  operators "X" events of cat cpu_op or Operator (dur >= 0) that OP_RULES
            below gives a category, on the launch's thread with
            ts <= launch ts < ts + dur.
  blocks    "X" events of cat python_function or user_annotation (dur >= 0)
            whose name holds "attention" or "attn" in any case, on the
            launch's thread, enclosing the launch the same way.
  category  of one kernel: a collective by name (the report's name category
            "comm") keeps it.  Else, if an enclosing operator is attention:
            attention (op).  Else the outermost enclosing operator (earliest
            ts, then latest end, then file order): gemm or softmax inside a
            block -> attention (module); else its category (softmax ->
            reduce) (op).  No enclosing operator: the name's (name).
  row       per kernel name: time per category, where kernels with no
            launch or no operator count for the name's category; the
            category with the most time (ties: the name's own, then the order
            comm attention norm conv gemm reduce elementwise other); source:
            "name" when the name's own time is at least each of the
            category's op and module time, else "op" when its op time is at
            least its module time, else "module".

The name category of a kernel is passed in (name_cat): oracle_analyses.py's
category(), its own copy of the name rules.
"""
import bisect

import oracle
import oracle_analyses as oa

CATS = ("comm", "attention", "norm", "conv", "gemm", "reduce", "elementwise", "other")
RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "runtime", "xpu_runtime", "xpu_driver",
                "mtia_runtime")
KERNEL_CATS = ("kernel", "mtia_ccp_events")
NOT_KERNELS = ("dma_request", "event_record", "event_wait")

GEMM_OPS = {"aten::" + n for n in ("mm", "addmm", "_addmm_activation", "bmm", "baddbmm",
                                   "addbmm", "linear", "matmul", "_scaled_mm", "mv", "addmv")}
SOFTMAX_OPS = {"aten::softmax", "aten::_softmax", "aten::_safe_softmax"}


def op_category(name):
    """attention, gemm, conv, norm, softmax or None for an operator name."""
    low = name.lower()
    if (name.startswith(("aten::_scaled_dot_product_", "aten::_flash_attention",
                         "aten::_efficient_attention", "aten::_cudnn_attention",
                         "aten::_native_multi_head_attention"))
            or name == "aten::scaled_dot_product_attention" or "flash_attn" in name
            or "sageattn" in low):
        return "attention"
    if name in GEMM_OPS:
        return "gemm"
    if name.startswith(("aten::conv", "aten::_conv", "aten::cudnn_convolution",
                        "aten::miopen_convolution", "aten::mkldnn_convolution")):
        return "conv"
    if any(w in name for w in ("layer_norm", "group_norm", "rms_norm", "batch_norm",
                               "instance_norm")):
        return "norm"
    if name in SOFTMAX_OPS:
        return "softmax"
    return None


def is_block(name):
    low = name.lower()
    return "attention" in low or "attn" in low


def enclosing(spans_by_thread, thread, ts):
    """The spans (ts, end, i, value) of thread that hold ts: ts <= t < end."""
    lst = spans_by_thread.get(thread)
    if not lst:
        return []
    starts, spans = lst
    k = bisect.bisect_right(starts, ts)
    return [s for s in spans[:k] if s[1] > ts]


def analyze(events, name_cat):
    """{kernel name: (category, source)} for the names with kernels of a
    launch; name_cat(name) gives vtrace's name category."""
    calls, kernels = {}, []
    ops, blocks = {}, {}
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or ev.get("ph") != "X":
            continue
        ts = oracle.to_ns(ev.get("ts"))
        if ts is None:
            continue
        dur = oracle.to_ns(ev.get("dur"))
        dur = dur if dur is not None else 0
        if dur < 0:
            continue
        cat = ev.get("cat")
        lcat = cat.lower() if isinstance(cat, str) else None
        name = ev.get("name")
        args = ev.get("args")
        corr = args.get("correlation") if isinstance(args, dict) else None
        thread = (oa.thread_key(ev, "pid"), oa.thread_key(ev, "tid"))
        if lcat in KERNEL_CATS and name not in NOT_KERNELS:
            if oa.is_int(corr):
                kernels.append((corr, dur, name if isinstance(name, str) else ""))
            continue
        if lcat in RUNTIME_CATS:
            if oa.is_int(corr) and corr not in calls:
                calls[corr] = (thread, ts)
            continue
        if not isinstance(name, str) or not name:
            continue
        if cat in ("cpu_op", "Operator"):
            c = op_category(name)
            if c:
                ops.setdefault(thread, []).append((ts, ts + dur, i, c))
        elif cat in ("python_function", "user_annotation") and is_block(name):
            blocks.setdefault(thread, []).append((ts, ts + dur, i, None))
    for table in (ops, blocks):
        for thread, lst in table.items():
            lst.sort(key=lambda s: (s[0], -s[1], s[2]))
            table[thread] = ([s[0] for s in lst], lst)

    times = {}  # name -> {(cat, src): ns}
    for corr, dur, name in kernels:
        if corr not in calls or name_cat(name) == "comm":
            continue
        thread, ts = calls[corr]
        held = enclosing(ops, thread, ts)
        if not held:
            continue
        if any(s[3] == "attention" for s in held):
            key = ("attention", "op")
        else:
            outer = held[0]  # sorted: earliest start, then latest end, then file order
            in_block = bool(enclosing(blocks, thread, ts))
            if outer[3] in ("gemm", "softmax") and in_block:
                key = ("attention", "module")
            else:
                key = ("reduce" if outer[3] == "softmax" else outer[3], "op")
        d = times.setdefault(name, {})
        d[key] = d.get(key, 0) + dur
    return times


def rows(events, kernel_rows, name_cat):
    """Expected (category, category_source) for each report kernel row
    (dicts with name and total_ns)."""
    times = analyze(events, name_cat)
    out = {}
    for row in kernel_rows:
        name, own_cat = row["name"], name_cat(row["name"])
        t = times.get(name, {})
        own = row["total_ns"] - sum(t.values())
        per = {c: t.get((c, "op"), 0) + t.get((c, "module"), 0) for c in CATS}
        per[own_cat] += own
        best = own_cat
        for c in CATS:
            if per[c] > per[best]:
                best = c
        op, mod = t.get((best, "op"), 0), t.get((best, "module"), 0)
        if best == own_cat and own >= op and own >= mod:
            out[name] = (best, "name")
        else:
            out[name] = (best, "op" if op >= mod else "module")
    return out
