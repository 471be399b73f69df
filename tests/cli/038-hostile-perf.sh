#!/usr/bin/env bash
# Hostile inputs, fourth pass: the model FLOPs linear and plausible.
# - FLOPs per generation: N generations of one aten::mm each, and the same
#   with every generation lasting to the end of the trace, at N and 4N:
#   four times N must take about four times as long, not sixteen (best of
#   two runs; 5,000 and 20,000 generations took 0.15 s and 1.8 s before),
#   and each generation holds the FLOPs of the calls inside it;
# - shapes of 2^63 - 1 on an H100 (10^57 FLOPs in 150 us) are marked
#   implausible, said in a warning and left out of the FLOPs and the MFU,
#   which the two plausible calls alone give (they gave an MFU of 10^45),
#   and out of the summary's and the page's operators (a TFLOP/s of 50 digits);
# - --peak-tflops and --peak-tbps take a decimal in their range, nothing else
#   (0x10 was taken as 16, 4.9e-324 accepted).
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# scaling KIND N: the time of 4N over that of N is under 6; each generation's FLOPs
scaling() {
	local kind=$1 n=$2
	gen "$kind" "$kind-1.json" "$n"
	gen "$kind" "$kind-2.json" $((4 * n))
	python3 - "$VANALYZE" "$kind" "$n" <<'PY' || die "$kind: superlinear or wrong (line above)"
import json, subprocess, sys, time
exe, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def best(path, out):
    t = []
    for _ in range(2):
        a = time.monotonic()
        rc = subprocess.call([exe, "-q", "--json", out, path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.monotonic() - a)
        if rc != 0:
            sys.exit("%s: exit status %d" % (path, rc))
    return min(t)
t1, t2 = best(kind + "-1.json", kind + "-1.out"), best(kind + "-2.json", kind + "-2.out")
print("%s: N %.2f s, 4N %.2f s, ratio %.2f" % (kind, t1, t2, t2 / t1))
if t2 > 6 * t1:
    sys.exit("%s: four times N took %.1f times as long" % (kind, t2 / t1))
# one mm of 2 x 64^3 FLOPs a generation; overlapping, generation g holds those from g on
g = json.load(open(kind + "-1.out"))["ranks"][0]["perf"]["generation_flops"]
mm = 2 * 64 ** 3
want = [mm * (n - i) if kind == "gens-overlap" else mm for i in range(n)]
if g != want:
    bad = [i for i in range(min(len(g), n)) if g[i] != want[i]][:3]
    sys.exit("%s: %d generations, FLOPs differ at %r" % (kind, len(g), bad))
PY
}

scaling gens 5000
scaling gens-overlap 2500

gen hugeflops huge.json
va huge --json huge-r.json --html huge.html huge.json
expect_rc huge 0
no_line huge.out '[0-9]{16}' "the summary's operators"
no_line huge.html '1046183622564|1\.046e\+49' "the page's roofline"
expect_line huge.err "1 operator shape would do more FLOP/s than the device's peak" \
	"the warning of the implausible shape"
va huge-p -q --peak-tflops 500 --json huge-p.json huge.json
expect_rc huge-p 0
python3 - huge-r.json huge-p.json <<'PY' || die "implausible FLOPs (line above)"
import json, sys
for path, peak in ((sys.argv[1], 989.5), (sys.argv[2], 500)):
    r = json.load(open(path))["ranks"][0]
    p = r["perf"]
    rows = {o["input_dims"].split(",")[0]: o for o in r["ops_perf"]}
    bad, good = rows["[[9223372036854775807"], rows["[[4096"]
    if bad.get("implausible") is not True or "implausible" in good:
        sys.exit("%s: implausible marks %r, %r" % (path, bad.get("implausible"),
                                                   good.get("implausible")))
    flops = 2 * 2 * 4096 ** 3           # the two plausible calls
    mfu = flops / 2000000 / 1e3 / peak  # in the one step of 2 ms
    for k, got, want in (("flops", p["flops"], flops), ("step_flops", p["step_flops"], [flops]),
                         ("generation_flops", p["generation_flops"], [flops]),
                         ("phase flops", p["phases"][0]["flops"], flops)):
        if got != want:
            sys.exit("%s: %s %r, expected %r" % (path, k, got, want))
    if abs(p["mfu"] - mfu) > 1e-12 * mfu or abs(p["step_mfu"][0] - mfu) > 1e-12 * mfu:
        sys.exit("%s: mfu %r, expected %r" % (path, p["mfu"], mfu))
    if not 0 < p["families"]["gemm"]["roof_share"] <= 1:
        sys.exit("%s: gemm roof share %r" % (path, p["families"]["gemm"]["roof_share"]))
print("implausible shapes marked and left out of the MFU")
PY

# --peak-*: decimals in range
for v in 0x10 4.9e-324 1e3 inf nan -1 +5 ' 5' . 1.2.3 '' 0.001 100001; do
	va "bad-tflops" -q --peak-tflops "$v" --json x.json huge.json
	expect_rc bad-tflops 2
	expect_line bad-tflops.err "^vanalyze: --peak-tflops wants a decimal from 0.01 to 100000, not '$(ere_quote "$v")'$"
done
va bad-tbps -q --peak-tbps 1000.5 --json x.json huge.json
expect_rc bad-tbps 2
expect_line bad-tbps.err "^vanalyze: --peak-tbps wants a decimal from 0.01 to 1000, not '1000\.5'$"
for v in 0.01 16 989.5 100000; do
	va good -q --peak-tflops "$v" --peak-tbps 3.35 --json good.json huge.json
	expect_rc good 0
	check good.json "r['ranks'][0]['ops_perf'][0]['peak_tflops'] == $v" "--peak-tflops $v"
done
echo ok
