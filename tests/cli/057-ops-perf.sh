#!/usr/bin/env bash
# The performance model's rows (ranks[].ops_perf, tables/ops_perf.csv):
# every GEMM, attention and convolution row of every shared trace that
# carries shapes, and of testdata/gpu's H100 traces, agrees with the
# independent oracle tests/oracle_opsperf.py (both ways, FLOPs, bytes,
# calls, device time, TFLOP/s); TraceLens's three published rows of its
# H100 Qwen trace come out (FLOPs and MiB exact, TFLOP/s median within
# 5 %); the CSV holds report.json's rows; the peak comes from the device's
# name or --peak-tflops / --peak-tbps; a trace without shapes gives no
# rows and no error.
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze

# Every trace recording shapes: the oracle's rows in total must be many.
python3 - "$TRACES" "$VT_ROOT/testdata/gpu" >files <<'PY' || die "cannot list the traces"
import gzip, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from vtcheck import cached  # noqa: E402


def shapes(p):
    op = gzip.open if p.endswith(".gz") else open
    try:
        return b'"Input Dims"' in op(p, "rb").read()
    except OSError:
        return False


for top in sys.argv[1:]:
    for d, _, fs in os.walk(top):
        for f in sorted(fs):
            p = os.path.join(d, f)
            if not (f.endswith(".json") or f.endswith(".json.gz")):
                continue
            if cached("shapes", p, None, shapes, p):
                print(p)
PY
[ "$(wc -l <files)" -ge 20 ] || die "only $(wc -l <files) traces with shapes found"
total=0
i=0
while read -r f; do
	i=$((i + 1))
	# Under the sanitizers 047-vendors already runs each public trace through
	# this same `vanalyze -q --json`; its rows are the plain build's to check.
	[ "$VT_SANITIZED" = 1 ] && [ "${f#"$PUBLIC"/}" != "$f" ] && continue
	va "r$i" -q --json "r$i.json" "$f"
	[ -f "r$i.json" ] || die "$f: no report"
	# tests/oracle_opsperf.py, its rows cached for the test run (vtcheck.py)
	pycheck opsperf "$f" "r$i.json" >"o$i.out" || {
		cat "o$i.out" >&2
		die "$f: ops_perf disagrees with the oracle"
	}
	n=$(tail -n 1 "o$i.out" | cut -d' ' -f1)
	total=$((total + n))
done <files
[ "$VT_SANITIZED" = 1 ] || [ "$total" -ge 500 ] || die "only $total GEMM, attention and convolution rows compared"

# TraceLens's rows: GFLOP per call, MiB moved, TFLOP/s median (its report)
QWEN=$PUBLIC/AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
va q --out q "$QWEN"
expect_rc q 0
python3 - q <<'PY' || die "TraceLens's rows are not reproduced"
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
rk = r["ranks"][0]
rows = {(o["name"], o["input_dims"]): o for o in rk["ops_perf"]}
want = [
    ("aten::mm", "[[8944, 1024], [1024, 2816]]", 51.5816, 71.0078, 610.70),
    ("aten::addmm", "[[1024], [8944, 1024], [1024, 1024], [], []]", 18.7661, 36.9395, 579.77),
    ("aten::_scaled_dot_product_flash_attention",
     "[[16, 16, 559, 64], [16, 16, 559, 64], [16, 16, 559, 64], [], [], [], []]",
     10.2394, 69.875, 90.00),
]
bad = []
for name, dims, gflop, mib, tflops in want:
    o = rows.get((name, dims))
    if not o:
        bad.append("no row %s %s" % (name, dims))
        continue
    if round(o["flops"] / 1e9, 4) != gflop:
        bad.append("%s: %.4f GFLOP, TraceLens %.4f" % (name, o["flops"] / 1e9, gflop))
    if round(o["bytes"] / 2**20, 4) != mib:
        bad.append("%s: %.4f MiB, TraceLens %.4f" % (name, o["bytes"] / 2**20, mib))
    if abs(o["tflops_median"] / tflops - 1) > 0.05:
        bad.append("%s: %.2f TFLOP/s, TraceLens %.2f" % (name, o["tflops_median"], tflops))
    if o["dtype"] != "bf16" or o["peak_tflops"] != 989.5:
        bad.append("%s: peak %r of %r" % (name, o["peak_tflops"], o["dtype"]))
    # the roofline at H100 SXM's ridge, 989.5 / 3.35 FLOP per byte
    ridge = 989.5 / 3.35
    if o["bound"] != ("compute" if o["intensity"] >= ridge else "memory"):
        bad.append("%s: bound %r at intensity %r" % (name, o["bound"], o["intensity"]))
    if abs(o["peak_share"] - o["tflops_median"] / 989.5) > 1e-12:
        bad.append("%s: peak_share %r" % (name, o["peak_share"]))
p = rk["perf"]
if p["peak_model"] != "H100 SXM" or p["dtype"] != "bf16" or not p["has_shapes"]:
    bad.append("perf: %r" % p)
# MFU: FLOPs of the rows' calls in the one step / its wall time / the bf16 peak
step = rk["steps"]["durations_ns"]
flops = sum(o["flops"] * o["count"] for o in rk["ops_perf"] if o["flops"] is not None)
if len(step) != 1 or abs(p["step_flops"][0] / flops - 1) > 1e-12 or \
        abs(p["mfu"] - flops / step[0] / 1e3 / 989.5) > 1e-12:
    bad.append("perf: step_flops %r mfu %r, expected %r over %r ns" % (p["step_flops"], p["mfu"], flops, step))
# the CSV holds the rows
with open(d + "/tables/ops_perf.csv", newline="", encoding="utf-8") as f:
    csvrows = list(csv.DictReader(f))
if len(csvrows) != len(rk["ops_perf"]):
    bad.append("ops_perf.csv: %d rows, report %d" % (len(csvrows), len(rk["ops_perf"])))
for c, o in zip(csvrows, rk["ops_perf"]):
    for k, v in o.items():
        want = "" if v is None else v if isinstance(v, str) else repr(v)
        got = c[k]
        if isinstance(v, (int, float)) and got and float(got) == float(v):
            continue
        if got != want:
            bad.append("ops_perf.csv %s %s: %r, report %r" % (o["name"], k, got, v))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# peaks by hand; an unknown device: null shares
va m -q --peak-tflops 500 --peak-tbps 2 --json m.json "$QWEN"
expect_rc m 0
check m.json \
	'all(o["peak_tflops"] == 500 for o in r["ranks"][0]["ops_perf"] if o["flops"] is not None)' \
	"--peak-tflops sets every row's peak" \
	'r["ranks"][0]["perf"]["peak_model"] == "manual" and r["ranks"][0]["perf"]["peak_tbps"] == 2' \
	"--peak-tbps sets the bandwidth"
va bad -q --peak-tflops -3 --json bad.json "$QWEN"
expect_rc bad 2
python3 -c "
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d['deviceProperties'][0]['name'] = 'Imaginary GPU 9000'
json.dump(d, open('unknown.json', 'w'))" "$QWEN"
va u -q --json u.json unknown.json
expect_rc u 0
check u.json \
	'r["ranks"][0]["perf"]["peak_model"] is None and r["ranks"][0]["perf"]["mfu"] is None' \
	"an unknown device has no MFU" \
	'all(o["peak_share"] is None and o["bound"] is None for o in r["ranks"][0]["ops_perf"])' \
	"an unknown device has no shares" \
	'any(o["tflops_median"] for o in r["ranks"][0]["ops_perf"])' "TFLOP/s do not need the peak"

# no shapes: no rows, no error
NOSHAPES=$PUBLIC/facebookresearch__param/et_replay__tests__inputs__resnet_kineto.json.gz
if gzip -dc "$NOSHAPES" | grep -q '"Input Dims"'; then die "$NOSHAPES has shapes"; fi
va n -q --json n.json "$NOSHAPES"
expect_rc n 0
check n.json 'r["ranks"][0]["ops_perf"] == [] and not r["ranks"][0]["perf"]["has_shapes"]' \
	"no rows without shapes" \
	'r["ranks"][0]["perf"]["mfu"] is None and r["ranks"][0]["perf"]["flops"] == 0' "no MFU"

# the summary: the MFU and the operators against the peak, or once how to get them
COLUMNS=200 va qs "$QWEN"	# the MFU line and its coverage on one line
expect_rc qs 0
python3 - qs.out q/report.json <<'PY' || die "the summary's operators against the peak are wrong"
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
rk = json.load(open(sys.argv[2]))["ranks"][0]
m = re.search(r"^operators against the peak  MFU ([0-9.]+)% of H100 SXM's bf16 989.5 TFLOP/s(;.*)?$",
              text, re.M)
if not m or abs(float(m.group(1)) - 100 * rk["perf"]["mfu"]) > 0.05:
    sys.exit("no MFU line matching report.json's %r" % rk["perf"]["mfu"])
rows = text[m.end():].split("\n")[2:7]
want = sorted((o for o in rk["ops_perf"] if o["flops"] is not None), key=lambda o: -o["total_ns"])[:5]
for line, o in zip(rows, want):
    f = line.split()
    if int(f[2]) != o["count"] or abs(float(f[3]) - o["tflops_median"]) > 0.05 or \
            not line.rstrip().split("  ")[-1].startswith(o["name"][:20]):
        sys.exit("row %r is not %s %s" % (line, o["name"], o["input_dims"]))
PY
va ns "$NOSHAPES"
expect_rc ns 0
[ "$(grep -c 'record_shapes=True' ns.out)" = 1 ] || die "the summary does not say once how to get shapes"
no_line qs.out 'record_shapes' "a trace with shapes"

# vcompare: MFU, the modelled TFLOP/s and each operator's TFLOP/s, higher is better
need_vcompare
python3 - q/report.json slower.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["ranks"][0]["perf"]
p["mfu"] /= 2
p["tflops"] /= 2
for o in r["ranks"][0]["ops_perf"]:
    if o["name"] == "aten::mm" and o["tflops_median"]:
        o["tflops_median"] /= 2
json.dump(r, open(sys.argv[2], "w"))
PY
vc cmp q/report.json slower.json
expect_rc cmp 1
expect_line cmp.out '^MFU +all +12\.4% +6\.18% .*REGRESSED$' "vcompare's MFU line"
expect_line cmp.out '^TFLOP/s +all .*REGRESSED$' "vcompare's TFLOP/s line"
expect_line cmp.out '^TFLOP/s of aten::mm \[\[8944, 1024\], \[1024, 2816\]\], median' \
	"vcompare's operator line"

# MFU per phase and per generation (testdata/gpu's pipeline: three generations
# in three steps, a denoising loop between a text encoder and a VAE decode)
va pl -q --json pl.json "$VT_ROOT/testdata/gpu/pipeline.trace.json.gz"
expect_rc pl 0
check pl.json 'abs(sum(r["ranks"][0]["perf"]["step_flops"]) - r["ranks"][0]["perf"]["flops"]) < 1' \
	"the steps' FLOPs add up to the window's" \
	'abs(sum(r["ranks"][0]["perf"]["generation_flops"]) - r["ranks"][0]["perf"]["flops"]) < 1' \
	"the generations' FLOPs add up to the window's" \
	'[p["path"] for p in r["ranks"][0]["perf"]["phases"]] == [p["path"] for p in r["ranks"][0]["phases"] if p["depth"] <= 1]' \
	"a figure per phase with spans" \
	'all(abs(p["mfu"] - p["flops"] / p["time_ns"] / 1e3 / 989.5) < 1e-12 for p in r["ranks"][0]["perf"]["phases"])' \
	"phase MFU = FLOPs / time / peak" \
	'max(r["ranks"][0]["perf"]["phases"], key=lambda p: p["flops"] if p["path"] != "ProfilerStep#*" else -1)["path"].endswith("inference_denoising")' \
	"the denoising loop holds the most FLOPs"

# the page: a roofline chart and the operators' figures, each read back from report.json
if command -v gnuplot >/dev/null; then
	python3 "$VT_ROOT/tests/html_check.py" q/report.html q/report.json --charts yes ||
		die "the page is wrong (lines above)"
	python3 - q/report.html <<'PY' || die "the page has no roofline"
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
i = s.find('<section id="roofline">')
sec = s[i:s.find("</section>", i)] if i >= 0 else ""
if "<svg" not in sec or "arithmetic intensity" not in sec or "ridge 295" not in sec:
    sys.exit("no roofline chart")
if '["ranks",0,"ops_perf",0,"tflops_median"]' not in sec or '["ranks",0,"perf","mfu"]' not in sec:
    sys.exit("no operator or MFU figures")
PY
fi
va nh -q --html nh.html "$NOSHAPES"
expect_rc nh 0
no_line nh.html 'id="roofline"' "a page without shapes"

# gentrace --shapes writes shapes that fit: every row has FLOPs, the oracle agrees,
# and no phase runs above the peak (a host ahead of its device)
[ -x "$VT_BUILD/gentrace" ] || die "$VT_BUILD/gentrace is not built"
mkdir gt
"$VT_BUILD/gentrace" --ranks 1 --steps 3 --shapes -o gt/run >/dev/null || die "gentrace failed"
va gtr -q --json gtr.json gt/run-rank0.trace.json.gz
expect_rc gtr 0
pycheck opsperf gt/run-rank0.trace.json.gz gtr.json || die "gentrace's rows disagree with the oracle"
check gtr.json 'all(o["flops"] is not None for o in r["ranks"][0]["ops_perf"])' \
	"every gentrace row has FLOPs" \
	'{o["family"] for o in r["ranks"][0]["ops_perf"]} >= {"gemm", "attention"}' \
	"GEMM and attention rows" \
	'all(0 < p["mfu"] <= 1 for p in r["ranks"][0]["perf"]["phases"])' "phase MFU within (0, 1]"

# A convolution whose kernels its children launch (cudnn_convolution the cuDNN
# kernel, add_ the bias: a modelled operator under it) gets its row, with both
# kernels' time; its FLOPs are TraceLens's: 2 x output elements x Cin/groups x
# kernel volume, plus one per output element for the bias
python3 - gt/run-rank0.trace.json.gz gtr.json <<'PY' || die "the convolution launched by its children"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]
r = json.load(open(sys.argv[2]))
rows = [o for o in r["ranks"][0]["ops_perf"] if o["family"] == "conv"]
convs = [e for e in ev if e.get("name") == "aten::convolution" and e.get("cat") == "cpu_op"]
kids = [e for e in ev if e.get("name") in ("aten::cudnn_convolution", "aten::add_")]
if not convs or len(kids) != 2 * len(convs):
    sys.exit("gentrace --shapes: %d convolutions, %d children" % (len(convs), len(kids)))
if [o["name"] for o in rows] != ["aten::convolution"] or rows[0]["count"] != len(convs):
    sys.exit("conv rows %r for %d calls" % ([(o["name"], o["count"]) for o in rows], len(convs)))
if any(o["name"] == "aten::add_" for o in r["ranks"][0]["ops_perf"]):
    sys.exit("the bias add_ under the convolution has a row of its own")
a = convs[0]["args"]
x, w = a["Input Dims"][0], a["Input Dims"][1]
stride, pad, dil = (json.loads(a["Concrete Inputs"][i]) for i in (3, 4, 5))
out = [(x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) // stride[i] + 1 for i in range(3)]
nout = x[0] * w[0] * out[0] * out[1] * out[2]
flops = 2 * nout * w[1] * w[2] * w[3] * w[4] + nout
if rows[0]["flops"] != flops:
    sys.exit("conv FLOPs %r, TraceLens's formula %r" % (rows[0]["flops"], flops))
PY
