#!/usr/bin/env bash
# Kernels replayed through a CUDA graph get the FLOPs of the operators that
# launched them while the graph was captured: a planted trace (an eager
# warm-up, a capture under aten::linear > aten::addmm with a memset,
# aten::mm, aten::add and an operator the model does not know, then six
# cudaGraphLaunch replays, one per ProfilerStep) has its coverage, FLOPs,
# step FLOPs and MFU checked against the figures computed here from the
# shapes and the replayed records; replays the rule cannot tell (two
# captures of the same kinds but other shapes, records on two streams, a
# record count no capture has) stay not covered.  Without a capture, a
# replayed kernel gets the FLOPs of the one eager shape that launched a
# kernel of its name (a warm-up), and none where two shapes did.  The
# _wide variants repeat two with negative correlations past 32 bits and a
# stream past 32 bits whose low bits are another's (analyzer/launch.h holds
# them wide): the streams must still differ.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze

python3 - <<'PY' || die "could not plant the traces"
import json

BF = "c10::BFloat16"
M, K, N = 2048, 1024, 4096


def trace(variant):
    wide = variant.endswith("_wide")
    variant = variant[:-len("_wide")] if wide else variant
    ev, corr = [], [-2**62 if wide else 100]
    stream0 = -2**33 + 7 if wide else 7     # stored as stream + 1: low bits 8, 7's
    dev_t = [0.0]
    kernels = []  # (cat, name, dur, stream): one capture's device records, in order

    def op(name, ts, dur, dims, types=None, conc=None):
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
                   "dur": dur, "args": {"Input Dims": dims,
                                        "Input type": types or [BF] * len(dims),
                                        "Concrete Inputs": conc or [""] * len(dims)}})

    def rt(name, ts, dur=1.0):
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1,
                   "ts": ts, "dur": dur, "args": {"correlation": corr[0]}})
        return corr[0]

    def dev(cat, name, c, dur, stream=None):
        stream = stream0 if stream is None else stream
        start = max(dev_t[0], 0)
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream,
                   "ts": start, "dur": dur,
                   "args": {"correlation": c, "stream": stream, "device": 0}})
        dev_t[0] = start + dur + 1.0

    def body(t, eager, mm=M, tag=""):
        """The four operators from host time t; eager ones run their kernels."""
        op("aten::linear", t, 20, [[mm, K], [N, K], [N]])
        op("aten::addmm", t + 1, 18, [[N], [mm, K], [K, N], [], []])
        c1 = rt("cudaMemsetAsync", t + 2)
        c2 = rt("cuLaunchKernelEx", t + 5)
        op("aten::mm", t + 30, 10, [[mm, N], [N, K]])
        c3 = rt("cudaLaunchKernel", t + 32)
        op("aten::add", t + 50, 10, [[mm, K], [mm, K], []])
        c4 = rt("cudaLaunchKernel", t + 52)
        op("vt::custom_op", t + 70, 10, [[mm, K]])
        c5 = rt("cudaLaunchKernel", t + 72)
        if eager:
            dev_t[0] = max(dev_t[0], t + 10)
            dev("gpu_memset", "Memset (Device)", c1, 2)
            dev("kernel", "gemm_a" + tag, c2, 300)
            dev("kernel", "gemm_b" + tag, c3, 320)
            dev("kernel", "add_k" + tag, c4, 40)
            dev("kernel", "custom_k" + tag, c5, 60)

    # the warm-up, eager: its kernels' names are the replays' only where
    # the eager rule is tested (the capture rule is, elsewhere)
    body(1000, True, tag="" if variant.startswith("eager") else "_warm")
    if variant == "eager2":             # the same kernels for another shape
        body(2000, True, mm=1024)
    if not variant.startswith("eager"):
        rt("cudaStreamBeginCapture", 3000)
        body(3010, False)
        rt("cudaStreamEndCapture", 3100)
    if variant == "ambiguous":          # another capture, same kinds, other shapes
        rt("cudaStreamBeginCapture", 3200)
        body(3210, False, mm=1024)
        rt("cudaStreamEndCapture", 3300)
    for i in range(6):
        t = 10000 + 3000 * i
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i,
                   "pid": 1, "tid": 1, "ts": t, "dur": 2500})
        c = rt("cudaGraphLaunch", t + 10, 20)
        dev_t[0] = max(dev_t[0], t + 40)
        if variant != "short":
            dev("gpu_memset", "Memset (Device)", c, 2 + i % 2)
        dev("kernel", "gemm_a", c, 300 + 10 * i)
        dev("kernel", "gemm_b", c, 320 + 5 * i,
            stream=(7 if wide else 8) if variant == "streams" else None)
        dev("kernel", "add_k", c, 40 + i)
        dev("kernel", "custom_k", c, 60)
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Planted GPU"}],
            "traceEvents": ev}


for v in ("replay", "ambiguous", "streams", "short", "eager", "eager2", "replay_wide",
          "streams_wide"):
    with open(v + ".json", "w") as f:
        json.dump(trace(v), f)
PY

for v in replay ambiguous streams short eager eager2 replay_wide streams_wide; do
	va "$v" -q --peak-tflops 1000 --peak-tbps 3 --json "$v.report.json" "$v.json"
	expect_rc "$v" 0
done

# The figures, from the trace alone: each covered call's FLOPs by the
# formulas of doc/perf-model.md, the device time of the records its
# operator launched (a memset counts with its kernel), over the union of
# the kernels.
python3 - <<'PY' || die "the replays' figures (lines above)"
import json

M, K, N = 2048, 1024, 4096
FL = {"gemm_a": 2 * M * N * K + M * N, "gemm_b": 2 * M * K * N, "add_k": M * K}
bad = []
for v in ("replay", "ambiguous", "streams", "short", "eager", "eager2", "replay_wide",
          "streams_wide"):
    base = v[:-len("_wide")] if v.endswith("_wide") else v
    tr = json.load(open(v + ".json"))["traceEvents"]
    dev = [e for e in tr if e["cat"] in ("kernel", "gpu_memset")]
    kern = sorted((e["ts"], e["ts"] + e["dur"]) for e in dev if e["cat"] == "kernel")
    union, end = 0.0, None
    for a, b in kern:
        if end is None or a >= end:
            union += b - a
            end = b
        elif b > end:
            union += b - end
            end = b
    graph = {e["args"]["correlation"]: e["ts"] for e in tr if e["name"] == "cudaGraphLaunch"}
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in tr if e["name"].startswith("ProfilerStep#"))
    covered, step_flops = 0.0, [0.0] * len(steps)
    for e in dev:
        name = "gemm_a" if e["name"] == "Memset (Device)" else e["name"]
        c = e["args"]["correlation"]
        if c not in graph:
            # eager: every call of a modelled operator is covered
            if e["name"].split("_warm")[0] in FL or (e["name"] == "Memset (Device)"):
                covered += e["dur"]
            continue
        if name not in FL:
            continue
        # replayed: by the capture (the memset with its GEMM), or by
        # kernel name where one eager shape alone launched it
        if not (base == "replay" or (base == "eager" and e["name"] != "Memset (Device)")):
            continue
        covered += e["dur"]
        if c in graph and e["name"] != "Memset (Device)":
            for s, (a, b) in enumerate(steps):
                if a <= graph[c] < b:
                    step_flops[s] += FL[name]
    cov = min(1.0, covered / union)
    window = sum(b - a for a, b in steps) * 1e3
    flops = sum(step_flops)
    mfu = flops / window / 1e3 / 1000 if cov >= 0.5 and flops else None
    rk = json.load(open(v + ".report.json"))["ranks"][0]
    p = rk["perf"]
    print("%s: coverage %.6f (want %.6f), flops %r (want %r), mfu %r (want %r)"
          % (v, p["flops_coverage"], cov, p["flops"], flops, p["mfu"], mfu))
    if abs(p["flops_coverage"] - cov) > 1e-9:
        bad.append("%s: coverage %r, want %r" % (v, p["flops_coverage"], cov))
    if abs(p["flops"] - flops) > 1e-6 * max(flops, 1):
        bad.append("%s: flops %r, want %r" % (v, p["flops"], flops))
    if [round(x) for x in p["step_flops"]] != [round(x) for x in step_flops]:
        bad.append("%s: step_flops %r, want %r" % (v, p["step_flops"], step_flops))
    if (mfu is None) != (p["mfu"] is None) or (mfu and abs(p["mfu"] - mfu) > 1e-9 * mfu):
        bad.append("%s: mfu %r, want %r" % (v, p["mfu"], mfu))
    # the replays add no ops_perf rows: the rows hold the eager calls only
    for r in rk["ops_perf"]:
        if r["count"] != 1:
            bad.append("%s: row %s %s has %d calls" % (v, r["name"], r["input_dims"], r["count"]))
for b in bad:
    print(b)
raise SystemExit(1 if bad else 0)
PY

echo "pass: replayed kernels get their capture's FLOPs"
