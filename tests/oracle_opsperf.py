#!/usr/bin/env python3
"""Independent oracle of vanalyze's ops_perf rows (doc/perf-model.md).

Python standard library only, written from the formulas' sources rather
than from the C: reads the raw trace, finds for every CPU operator the
device work (kernels, memsets, memcpys) launched by the runtime calls on
its thread inside its span (joined by args.correlation), keeps the calls
of the innermost modelled operator that launched some (a convolution
keeps all its subtree launched), and computes FLOPs
and bytes for the GEMM, attention and convolution families.

  oracle_opsperf.py TRACE            print the rows as JSON
  oracle_opsperf.py TRACE REPORT     compare with REPORT's ops_perf rows of
                                     those families (every row both ways);
                                     exit 1 on a difference
"""
import gzip
import json
import sys
from decimal import Decimal

# Every name the model has, any family: an operator with one of these
# inside it that launched device work does not get the calls' rows.
MODELLED = set("""
aten::mm aten::addmm aten::bmm aten::baddbmm aten::matmul aten::linear aten::_scaled_mm
aten::_scaled_dot_product_flash_attention aten::_scaled_dot_product_flash_attention_backward
aten::_scaled_dot_product_efficient_attention aten::_scaled_dot_product_cudnn_attention
flash_attn::_flash_attn_forward flash_attn::_flash_attn_backward
aten::convolution aten::convolution_backward
aten::native_layer_norm aten::layer_norm aten::native_group_norm aten::group_norm
aten::native_batch_norm aten::_native_batch_norm_legit_no_training aten::cudnn_batch_norm
aten::rms_norm aten::_fused_rms_norm aten::_softmax aten::softmax aten::_log_softmax
aten::add aten::add_ aten::sub aten::mul aten::mul_ aten::div aten::div_ aten::neg aten::rsqrt
aten::pow aten::exp aten::cos aten::sin aten::relu aten::silu aten::gelu aten::sigmoid
aten::tanh aten::sum aten::mean aten::amax aten::max aten::argmax
""".split())

SIZE = {"c10::BFloat16": 2, "c10::Half": 2, "float": 4, "double": 8}
DTYPE = {"c10::BFloat16": "bf16", "c10::Half": "fp16", "float": "fp32", "double": "fp64"}
# device work and the runtime calls that launch it (Kineto 2022+, Kineto 2021, MTIA)
DEVICE_CATS = {"kernel", "gpu_memset", "gpu_memcpy", "Kernel", "Memset", "Memcpy",
               "mtia_ccp_events"}
NOT_WORK = {"event_record", "event_wait"}     # MTIA's command processor waits
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver", "Runtime",
                "mtia_runtime"}
OP_CATS = {"cpu_op", "Operator"}


def ns(v):
    return int(Decimal(v) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f, parse_float=str)
    return d["traceEvents"] if isinstance(d, dict) else d


def prod(v):
    p = 1
    for x in v:
        p *= x
    return p


def elem(types, i):
    if i >= len(types):
        return None
    t = types[i]
    if t.startswith("c10::Float8_"):
        return 1
    return SIZE.get(t)


def dt(types, i):
    t = types[i]
    return "fp8" if t.startswith("c10::Float8_") else DTYPE.get(t)


def ints(s):
    s = s.strip()
    if not (s.startswith("[") and s.endswith("]")):
        return None
    body = s[1:-1].strip()
    return [int(x) for x in body.split(",")] if body else []


def per_dim(v, n):
    if v is None:
        return None
    if len(v) == 1:
        return v * n
    return v if len(v) == n else None


def gemm(name, dims, types, conc):
    """2 M N K per product (a multiply and an add), plus the bias add."""
    if name == "aten::mm":
        (m, k), (k2, n) = dims[0], dims[1]
        if k != k2:
            return None
        e = elem(types, 0)
        return 2 * m * n * k, e * (m * k + k * n + m * n), dt(types, 0)
    if name == "aten::addmm":
        bias, (m, k), (k2, n) = dims[0], dims[1], dims[2]
        if k != k2:
            return None
        e = elem(types, 1)
        return (2 * m * n * k + m * n,
                e * (m * k + k * n + m * n) + elem(types, 0) * prod(bias), dt(types, 1))
    if name == "aten::bmm":
        (b, m, k), (b2, k2, n) = dims[0], dims[1]
        if k != k2 or b != b2:
            return None
        e = elem(types, 0)
        return 2 * b * m * n * k, e * b * (m * k + k * n + m * n), dt(types, 0)
    if name == "aten::baddbmm":
        inp, (b, m, k), (b2, k2, n) = dims[0], dims[1], dims[2]
        if k != k2 or b != b2:
            return None
        e = elem(types, 1)
        return (2 * b * m * n * k + b * m * n,
                e * b * (m * k + k * n + m * n) + elem(types, 0) * prod(inp), dt(types, 1))
    if name == "aten::linear":
        x, w = dims[0], dims[1]
        has_bias = len(dims) > 2 and len(dims[2]) == 1 and elem(types, 2)
        k, n = x[-1], w[0]
        if w[1] != k:
            return None
        m = prod(x[:-1])
        e = elem(types, 0)
        flops = 2 * m * n * k + (m * n if has_bias else 0)
        by = e * (m * k + n * k + m * n) + (elem(types, 2) * n if has_bias else 0)
        return flops, by, dt(types, 0)
    if name == "aten::_scaled_mm":
        # fp8 A[M,K] B[K,N]; the output (out_dtype, not a shape) counted as 2 bytes
        # (bf16); the tensor scales, bias and result scale read where present
        (m, k), (k2, n) = dims[0], dims[1]
        if k != k2:
            return None
        extra = sum(elem(types, i) * prod(dims[i]) for i in range(2, min(6, len(dims)))
                    if elem(types, i))
        return (2 * m * n * k, elem(types, 0) * m * k + elem(types, 1) * k * n + 2 * m * n + extra,
                dt(types, 0))
    return None


# name: (q, k, v, [B,H,N,d] layout, is_causal's index, backward)
ATTN = {
    "aten::_scaled_dot_product_flash_attention": (0, 1, 2, True, 4, False),
    "aten::_scaled_dot_product_flash_attention_backward": (1, 2, 3, True, 11, True),
    "aten::_scaled_dot_product_efficient_attention": (0, 1, 2, True, 6, False),
    "aten::_scaled_dot_product_cudnn_attention": (0, 1, 2, True, 6, False),
    "flash_attn::_flash_attn_forward": (0, 1, 2, False, 5, False),
    "flash_attn::_flash_attn_backward": (1, 2, 3, False, 11, True),
}


def attention(name, dims, types, conc):
    """4 B H Nq Nk d (QK^T and PV), halved when causal; backward 2.5x."""
    qi, ki, vi, hf, ci, bwd = ATTN[name]
    q, k, v = dims[qi], dims[ki], dims[vi]
    if conc is None or ci >= len(conc) or conc[ci] not in ("True", "False"):
        return None
    causal = conc[ci] == "True"
    if hf:
        b, h, nq, d = q
        nk = k[2]
    else:
        b, nq, h, d = q
        nk = k[1]
    dv = v[3]
    e = elem(types, qi)
    flops = 2 * b * h * nq * nk * (d + dv)
    if causal:
        flops /= 2
    by = e * (prod(q) + prod(k) + prod(v) + b * h * nq * dv)
    if bwd:
        flops *= 2.5
        by = 2 * by + e * b * h * nq * dv
    return flops, by, dt(types, qi)


def conv(name, dims, types, conc):
    """2 x outputs x Cin/g x kernel volume, plus a FLOP per output for a bias."""
    if conc is None:
        return None
    if name != "aten::convolution":
        return None
    ii, wi, bi, si, pi, di, ti, oi, gi = 0, 1, 2, 3, 4, 5, 6, 7, 8
    x, w = dims[ii], dims[wi]
    nsp = len(x) - 2
    if nsp not in (1, 2, 3) or len(w) != nsp + 2:
        return None
    st, pd, dl = (per_dim(ints(conc[i]), nsp) for i in (si, pi, di))
    if None in (st, pd, dl):
        return None
    tr = ti is not None and conc[ti] == "True"
    op = per_dim(ints(conc[oi]), nsp) if tr else [0] * nsp
    g = int(conc[gi])
    out_sp = []
    for i in range(nsp):
        kk = w[2 + i]
        if tr:
            o = (x[2 + i] - 1) * st[i] - 2 * pd[i] + dl[i] * (kk - 1) + op[i] + 1
        else:
            o = (x[2 + i] + 2 * pd[i] - dl[i] * (kk - 1) - 1) // st[i] + 1
        out_sp.append(o)
    kvol = prod(w[2:])
    if tr:
        cout = w[1] * g
        flops = 2 * x[0] * w[0] * prod(x[2:]) * w[1] * kvol
    else:
        cout = w[0]
        flops = 2 * x[0] * cout * prod(out_sp) * w[1] * kvol
    out = x[0] * cout * prod(out_sp)
    e = elem(types, ii)
    by = e * (prod(x) + prod(w) + out)
    if bi is not None and bi < len(dims) and len(dims[bi]) == 1 and elem(types, bi):
        flops += out
        by += elem(types, bi) * prod(dims[bi])
    return flops, by, dt(types, ii)


def conv_backward(name, dims, types, conc):
    """The input's and the weight's gradients, as output_mask asks: a forward's FLOPs each."""
    if conc is None or len(conc) < 11:
        return None
    fwd = conv("aten::convolution", [dims[1], dims[2], []] + dims[4:10],
               [types[1], types[2], ""] + types[4:10], ["", "", ""] + conc[4:10])
    if fwd is None:
        return None
    mask = [m.strip() == "True" for m in conc[10].strip("[]").split(",")]
    e = elem(types, 1)
    n = mask[0] + mask[1]
    by = e * (prod(dims[0]) + prod(dims[1]) + prod(dims[2])) + \
        mask[0] * e * prod(dims[1]) + mask[1] * e * prod(dims[2])
    return fwd[0] * n, by, dt(types, 1)


FAMILY = {"aten::convolution_backward": ("conv", conv_backward)}
for n in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::_scaled_mm"):
    FAMILY[n] = ("gemm", gemm)
for n in ATTN:
    FAMILY[n] = ("attention", attention)
FAMILY["aten::convolution"] = ("conv", conv)


def one_line(v):
    """The args as a Python list prints: the report's input_dims text."""
    return json.dumps(v, separators=(", ", ": "), ensure_ascii=False)


def rows(path):
    ev = load(path)
    launch = {}      # correlation -> (thread, ts) of its first runtime call
    device = {}      # correlation -> summed device ns
    ops = {}         # thread -> [[ts, end, index, event]]
    for i, e in enumerate(ev):
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        args = e.get("args") or {}
        th = (str(e.get("pid")), str(e.get("tid")))
        ts = ns(e["ts"])
        dur = ns(e.get("dur", "0"))
        if cat in OP_CATS:
            ops.setdefault(th, []).append([ts, ts + dur, i, e])
        elif "correlation" in args:
            c = int(args["correlation"])
            if cat in RUNTIME_CATS:
                launch.setdefault(c, (th, ts))
            elif cat in DEVICE_CATS and e.get("name") not in NOT_WORK:
                device[c] = device.get(c, 0) + dur
    calls_at = {}    # thread -> sorted [(ts, device ns)] of launches
    for c, (th, ts) in launch.items():
        if c in device:
            calls_at.setdefault(th, []).append((ts, device[c]))
    out = {}
    for th, lst in ops.items():
        lst.sort(key=lambda r: (r[0], -(r[1] - r[0]), r[2]))
        la = sorted(calls_at.get(th, []))
        # device time launched inside each span: two-pointer over launches
        import bisect
        keys = [t for t, _ in la]
        pre = [0]
        for _, d in la:
            pre.append(pre[-1] + d)
        dev = []
        for ts, end, _, _ in lst:
            a, b = bisect.bisect_left(keys, ts), bisect.bisect_left(keys, end)
            dev.append(pre[b] - pre[a])
        # the ancestors of each span, by a stack sweep
        # A convolution with shapes keeps every kernel of its subtree, whoever
        # launched it (the bias add_ under aten::_convolution, a backward's
        # bias sum): what lies under one neither claims nor gets a row.
        claimed = [False] * len(lst)
        under_conv = [False] * len(lst)
        stack = []
        for j, (ts, end, _, e) in enumerate(lst):
            while stack and ts >= lst[stack[-1]][1]:
                stack.pop()
            under_conv[j] = any(FAMILY.get(lst[s][3].get("name"), ("",))[0] == "conv" and
                                "Input Dims" in (lst[s][3].get("args") or {}) for s in stack)
            if e.get("name") in MODELLED and (e.get("args") or {}).get("Input Dims") is not None \
                    and dev[j] > 0 and not under_conv[j]:
                for s in stack:
                    claimed[s] = True
            stack.append(j)
        for j, (ts, end, _, e) in enumerate(lst):
            name = e.get("name")
            args = e.get("args") or {}
            if name not in MODELLED or "Input Dims" not in args or dev[j] <= 0 or claimed[j] \
                    or under_conv[j]:
                continue
            key = (name, one_line(args.get("Input Dims")), one_line(args.get("Input type", "")),
                   one_line(args.get("Concrete Inputs", "")) if "Concrete Inputs" in args else "")
            r = out.setdefault(key, {"times": [], "args": args})
            r["times"].append(dev[j])
    result = []
    for (name, dims, types, conc), r in out.items():
        if name not in FAMILY:
            continue
        fam, f = FAMILY[name]
        a = r["args"]
        idims = [[int(x) for x in d] if isinstance(d, list) and all(not isinstance(y, list) for y in d)
                 else None for d in a["Input Dims"]]
        try:
            fig = f(name, idims, a.get("Input type", []), a.get("Concrete Inputs"))
        except (TypeError, ValueError, IndexError, ZeroDivisionError):
            fig = None
        t = sorted(r["times"])
        med = t[(len(t) - 1) // 2]
        row = {"name": name, "input_dims": dims, "input_types": types, "concrete_inputs": conc,
               "family": fam, "count": len(t), "total_ns": sum(t), "median_ns": med,
               "flops": None, "bytes": None, "tflops_median": None, "dtype": None}
        if fig:
            row["flops"], row["bytes"], row["dtype"] = fig
            row["tflops_median"] = fig[0] / med / 1e3
        result.append(row)
    return result


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-9


def compare(trace, report):
    want = {(r["name"], r["input_dims"], r["input_types"], r["concrete_inputs"]): r
            for r in rows(trace)}
    rep = json.load(open(report, encoding="utf-8"))
    got = {}
    for rk in rep["ranks"]:
        for r in rk.get("ops_perf", []):
            if r["family"] in ("gemm", "attention", "conv"):
                got[(r["name"], r["input_dims"], r["input_types"], r["concrete_inputs"])] = r
    bad = []
    for k in sorted(set(want) | set(got)):
        if k not in got:
            bad.append("missing from the report: %s %s" % (k[0], k[1]))
            continue
        if k not in want:
            bad.append("not in the oracle: %s %s" % (k[0], k[1]))
            continue
        w, g = want[k], got[k]
        for f in ("count", "total_ns", "median_ns", "dtype"):
            if w[f] != g[f]:
                bad.append("%s %s: %s %r, oracle %r" % (k[0], k[1], f, g[f], w[f]))
        for f in ("flops", "bytes", "tflops_median"):
            if not close(g[f], w[f]):
                bad.append("%s %s: %s %r, oracle %r" % (k[0], k[1], f, g[f], w[f]))
    for b in bad:
        print("%s: %s" % (trace, b))
    return len(want), bad


if __name__ == "__main__":
    if len(sys.argv) == 2:
        json.dump(rows(sys.argv[1]), sys.stdout, indent=1)
        print()
    elif len(sys.argv) == 3:
        n, bad = compare(sys.argv[1], sys.argv[2])
        print("%d rows, %d differences" % (n, len(bad)))
        sys.exit(1 if bad else 0)
    else:
        sys.exit(__doc__)
