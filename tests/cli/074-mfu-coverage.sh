#!/usr/bin/env bash
# MFU with its coverage: perf.flops_coverage is the share of the device's
# compute time that calls with known FLOPs launched (at least what the
# independent oracle finds for the GEMM, attention and convolution calls,
# over the union of the non-collective kernels, computed here), MFU is
# withheld (null: window, steps, phases, generations) below 50 % and the
# summary says so; the demo set's shapes are consistent (its addmm, SDPA and
# convolution rows all have FLOPs, and MFU stands); a deviceProperties list
# stored as JSON text in a string (ROCm) still names the device; an fp32
# GEMM faster than the fp32 peak is held to the TF32 peak, and rows still
# above their roof are said on the page.
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
ORACLE_OPS=$VT_ROOT/tests/oracle_opsperf.py
TL=$PUBLIC/AMD-AGI__TraceLens
DECODE=$TL/tests__traces__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz
QWEN=$TL/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz

cover() {	# cover TRACE REPORT: the coverage against the oracle's lower bound
	python3 - "$ORACLE_OPS" "$1" "$2" <<'PY'
import gzip, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("oracle_opsperf", sys.argv[1])
o = importlib.util.module_from_spec(spec)
spec.loader.exec_module(o)
rows = o.rows(sys.argv[2])
covered = sum(r["total_ns"] for r in rows if r["flops"] is not None)
spans = []
for e in o.load(sys.argv[2]):
    if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
        n = e.get("name", "").lower()
        if "nccl" in n or "rccl" in n:
            continue
        s = o.ns(e["ts"])
        spans.append((s, s + o.ns(e.get("dur", "0"))))
spans.sort()
union, end = 0, None
for s, t in spans:
    if end is None or s > end:
        union += t - s
        end = t
    elif t > end:
        union += t - end
        end = t
rep = json.load(open(sys.argv[3]))
bad = []
for rk in rep["ranks"]:
    p = rk["perf"]
    c = p.get("flops_coverage", "absent")
    if not isinstance(c, float) or not 0 <= c <= 1:
        bad.append("rank %s: flops_coverage %r" % (rk["rank"], c))
        continue
    if len(rep["ranks"]) == 1 and union and c < covered / union * 0.99:
        bad.append("coverage %r under the oracle's %r (%d of %d ns)" % (c, covered / union, covered, union))
    low = c < 0.5
    if low != (p["mfu"] is None) and p["peak_tflops"] is not None:
        bad.append("coverage %r, mfu %r" % (c, p["mfu"]))
    if low and (any(v is not None for v in p["step_mfu"] + p["generation_mfu"]) or
                any(q["mfu"] is not None for q in p["phases"])):
        bad.append("coverage %r: an MFU per step, generation or phase" % c)
for b in bad:
    print(b)
print("coverage", [rk["perf"].get("flops_coverage") for rk in rep["ranks"]])
sys.exit(1 if bad else 0)
PY
}

# a graph-replayed decode: a sliver of the device time has FLOPs, MFU is withheld
NO_COLOR=1 COLUMNS=100 run_as dec "$VANALYZE" --json dec.json --html dec.html "$DECODE"
expect_rc dec 0
cover "$DECODE" dec.json || die "decode: the coverage (lines above)"
python3 "$VT_ROOT/tests/html_check.py" dec.html dec.json --charts any ||
	die "decode: the page (lines above)"

# TraceLens's Qwen: above the line, MFU stands and the summary gives the coverage
NO_COLOR=1 COLUMNS=200 run_as qw "$VANALYZE" --json qw.json "$QWEN"
expect_rc qw 0
cover "$QWEN" qw.json || die "Qwen: the coverage (lines above)"
expect_line qw.out 'MFU [0-9.]+% of H100 SXM.*FLOPs known for 5[0-9.]+% of the device.s compute time' \
	"Qwen: MFU with its coverage"

# the demo: consistent shapes, FLOPs for every GEMM, attention and convolution row
NO_COLOR=1 COLUMNS=200 run_as demo "$VANALYZE" --json demo.json "$VT_ROOT/testdata/demo"
expect_rc demo 0
cover "$VT_ROOT/testdata/demo/fastvideo-rank0.trace.json.gz" demo.json ||
	die "demo: the coverage (lines above)"
check demo.json \
	'all(o["flops"] is not None for rk in r["ranks"] for o in rk["ops_perf"] if o["family"] in ("gemm", "attention", "conv"))' \
	"every GEMM, attention and convolution row of the demo has FLOPs" \
	'all({"gemm", "attention", "conv"} <= {o["family"] for o in rk["ops_perf"]} for rk in r["ranks"])' \
	"the demo's ranks have GEMM, attention and convolution rows" \
	'all(rk["perf"]["flops_coverage"] >= 0.9 and 0.2 < rk["perf"]["mfu"] < 0.8 for rk in r["ranks"])' \
	"the demo's MFU stands, with its FLOPs known for most of the device time" \
	'all(o["roof_share"] is None or o["roof_share"] <= 1 for rk in r["ranks"] for o in rk["ops_perf"])' \
	"no row of the demo above its roof: its shapes and kernel times agree"

# below the line the summary gives no MFU figure
no_line dec.out 'MFU [0-9]' "decode: an MFU in the summary below the coverage line"

# above the roof: an A100's fp32 GEMMs at 43 TFLOP/s ran on TF32 (peak 156),
# so none passes its roof; memory-bound rows that still do (fp32 mul at 1.3
# times the A100's memory roof) are said under the page's roofline table
HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
va ctl -q --json ctl.json "$HTA/tests__data__trace_diff__control__control.json.gz"
expect_rc ctl 0
check ctl.json \
	'r["ranks"][0]["perf"]["peak_model"].startswith("A100")' "the control trace is an A100's" \
	'any(o["dtype"] == "fp32" and o["family"] == "gemm" and o["tflops_median"] > 19.5 for o in r["ranks"][0]["ops_perf"])' \
	"fp32 GEMMs faster than the fp32 peak" \
	'all(o["roof_share"] <= 1 and (o["tflops_median"] <= 19.5 or o["peak_tflops"] == 156) for o in r["ranks"][0]["ops_perf"] if o["family"] in ("gemm", "conv") and o["roof_share"] is not None)' \
	"no GEMM above its roof: TF32's peak where fp32's is passed"
va nq -q --html nq.html "$HTA/tests__data__negative_queue_length_values_check__rank0.json.gz"
expect_rc nq 0
python3 - nq.html <<'PY' || die "rows above their roof are not said (lines above)"
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<section id="roofline">'):]
sec = sec[:sec.index("</section>")]
above = [v for v in re.findall(r'"roof_share"\]\' data-v="([^"]*)"', sec) if v != "null" and float(v) > 1]
m = re.search(r"(\d+) rows? above (its|their) roof", sec)
if not above or not m or int(m.group(1)) != len(above):
    sys.exit("%d rows above their roof, the page says %r" % (len(above), m and m.group(0)))
PY

# deviceProperties as JSON text in a string (as some ROCm writers store it)
python3 - <<'PY' || die "cannot write the MI300X trace"
import json
dev = [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992,
        "computeMajor": 9, "computeMinor": 4}]
ev = [{"ph": "X", "cat": "kernel", "name": "Cijk_Ailk_Bljk_BBS_BH", "pid": 0, "tid": 1,
       "ts": 1000 + 100 * i, "dur": 50, "args": {"device": 0, "stream": 1, "correlation": i}}
      for i in range(1, 4)]
json.dump({"schemaVersion": 1, "deviceProperties": json.dumps(dev), "traceEvents": ev},
          open("mi300x.json", "w"))
json.dump({"schemaVersion": 1, "deviceProperties": "[{\"name\": \"AMD Instinct MI300X\"",
           "traceEvents": ev}, open("cut.json", "w"))
PY
va mi -q --json mi.json mi300x.json
expect_rc mi 0
check mi.json 'r["ranks"][0]["perf"]["peak_model"] == "MI300X"' \
	"an MI300X named in deviceProperties as text is recognised"
va cut -q --json cut.json.out cut.json
expect_rc cut 0
check cut.json.out 'r["ranks"][0]["gpu"]["kernels"] == 3' "device text cut short: the trace is still read"
echo "pass: MFU with its coverage"
