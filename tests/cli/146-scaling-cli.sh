#!/usr/bin/env bash
# vcompare --scaling's edges: a run given twice (N = M) has S = 1, E = 1 and
# no loss; runs of different workloads are a warning, and refused under
# --strict (exit 2); the mode is weak when the work grew with the ranks,
# strong otherwise, and --strong / --weak decide instead; usage errors; the
# markdown.
. "$VT_ROOT/tests/cli/lib.sh"

need_vcompare
G=$VT_BUILD/gentrace
D=$VT_ROOT/testdata/scaling
mkdir -p one four steps6 blocks16
"$G" --steps 4 --blocks 4 --ranks 1 -o one/g --truth one.json >/dev/null || die "gentrace"
"$G" --steps 4 --blocks 4 --ranks 4 -o four/g --truth four.json >/dev/null || die "gentrace"
"$G" --steps 6 --blocks 4 --ranks 4 -o steps6/g --truth s6.json >/dev/null || die "gentrace"
"$G" --steps 4 --blocks 16 --ranks 4 -o blocks16/g --truth b16.json >/dev/null || die "gentrace"

# N = M: the same run twice
vc same --scaling --json same.json "$D/r2" "$D/r2"
expect_rc same 0
expect_line same.out '^2 ranks gave 1\.00x \(100 %\): no loss$' "N = M sentence"
python3 - same.json <<'PY' || die "N = M is not S = 1, E = 1, no loss"
import json, sys
p = json.load(open(sys.argv[1]))["scaling"]["points"][0]
assert p["speedup"] == 1 and p["efficiency"] == 1 and p["loss"] == 0, p
assert p["karp_flatt"] is None, p["karp_flatt"]
assert all(x["rank_ns"] == 0 and x["share"] == 0 for x in p["loss_parts"].values()), p
assert not p["workload_differs"], p["workload_differs"]
PY

# different workloads: said, and refused under --strict
vc warn --scaling one steps6
expect_rc warn 0
expect_line warn.err "^vcompare: warning: steps6: not the workload of base: steps differ; comparing anyway" "warning"
vc strict --strict --scaling one four steps6
expect_rc strict 2
expect_line strict.err "^vcompare: steps6: not the workload of base: steps differ$" "--strict error"
[ -s strict.out ] && die "--strict printed a result"
vc strictok --strict --scaling one four
expect_rc strictok 0

# strong or weak, from the workload (blocks grew 4 times with 4 ranks) or as asked
vc strong --scaling --json strong.json one four
vc weak --scaling --json weak.json one blocks16
vc forced --scaling --strong --json forced.json one blocks16
vc forced2 --scaling --weak --json forced2.json one four
for r in strong weak forced forced2; do expect_rc $r 0; done
expect_line strong.out "strong scaling \(the same total work\)" "strong said"
expect_line weak.out "weak scaling \(the work grew with the ranks\)" "weak said"
expect_line forced.out "strong scaling \(as asked\)" "--strong said"
python3 - strong.json weak.json forced.json forced2.json <<'PY' || die "modes"
import json, sys
m = [json.load(open(f))["scaling"] for f in sys.argv[1:]]
assert [x["mode"] for x in m] == ["strong", "weak", "strong", "weak"], [x["mode"] for x in m]
assert [x["mode_forced"] for x in m] == [False, False, True, True]
# weak: E = T_base / T_new; strong: E = T_base / (N T_new)
w, s = m[1]["points"][0], m[2]["points"][0]
assert abs(w["efficiency"] - m[1]["base"]["time_ns"] / w["time_ns"]) < 1e-12
assert abs(s["efficiency"] - m[2]["base"]["time_ns"] / (4 * s["time_ns"])) < 1e-12
# under strong scaling 16 blocks against 4 are a different workload
assert s["workload_differs"] == ["blocks"], s["workload_differs"]
assert w["workload_differs"] == [], w["workload_differs"]
PY

# usage
vc u1 --weak one four
vc u2 --scaling --weak --strong one four
vc u3 --scaling one
for r in u1 u2 u3; do expect_rc $r 2; done
expect_line u1.err "--strong and --weak go with --scaling"
expect_line u2.err "--strong and --weak exclude each other"
expect_line u3.err "--scaling wants BASE and at least one NEW"

# the page: the curve, a speedup chart and a waterfall (gnuplot), a phase
# named by the trace escaped; --no-charts says where the charts would be
python3 - <<'PY' || die "cannot write the hostile traces"
import json
name = "fastvideo.region::profiler_region_<script>alert(1)</script>&\u001b[31m" + "x" * 5000
for n in (1, 2):
    for r in range(n):
        ev = [{"name": name, "ph": "X", "ts": 0, "dur": 1000, "tid": 1, "pid": "CPU functions"},
              {"name": "fastvideo.region::profiler_region_inference_denoising", "ph": "X",
               "ts": 1000, "dur": 4000 // n, "tid": 1, "pid": "CPU functions"}]
        import os
        os.makedirs("h%d" % n, exist_ok=True)
        json.dump(ev, open("h%d/h-rank%d.trace.json" % (n, r), "w"))
PY
vc page --scaling --html page.html h1 h2
expect_rc page 0
no_line page.html '<script>' "unescaped phase name"
expect_line page.html '&lt;script&gt;alert\(1\)&lt;/script&gt;&amp;' "escaped phase name"
if command -v gnuplot >/dev/null; then
	[ "$(grep -c '<svg' page.html)" = 2 ] || die "page: not two charts"
	expect_line page.html 'aria-label="waterfall of the loss"'
fi
# the terminal: no escape sequence from the trace, the name cut
vc hterm --scaling h1 h2
expect_rc hterm 0
LC_ALL=C grep -q $'\x1b' hterm.out && die "an escape sequence from the trace reached the terminal"
[ "$(wc -L <hterm.out)" -lt 400 ] || die "a line of $(wc -L <hterm.out) columns: the name is not cut"
expect_line hterm.out '^2 ranks gave .*xxx\.\.\. runs whole on every rank' "the name cut in the sentence"
vc nocharts --scaling --no-charts --html nocharts.html h1 h2
expect_rc nocharts 0
expect_line nocharts.html 'Chart not drawn: charts are off'
# without gnuplot: the page still goes out, says why, and one warning
(
	PATH=/nonexistent
	"$VT_BUILD/vcompare" -q --scaling --html nognu.html h1 h2 >nognu.out 2>nognu.err
	echo $? >nognu.rc
)
expect_rc nognu 0
expect_line nognu.html 'Chart not drawn: .*gnuplot' "the page's note without gnuplot"
expect_line nognu.err '^vcompare: warning: .*gnuplot' "the warning without gnuplot"
vc u4 --html page.html one four
expect_rc u4 2
expect_line u4.err "--html and --no-charts go with --scaling"

# markdown for CI, and the curve over several runs
vc md --scaling --markdown - "$D/r1" "$D/r2" "$D/r4"
expect_rc md 0
expect_line md.out '^## Scaling$'
expect_line md.out '^\| 4 \| [0-9.]+ s \| [0-9.]+x \| [0-9]+ % \| [0-9.]+ \| .*r4 \|$' "curve row"
expect_line md.out '^\| work not parallelised \| ' "parts table"
expect_line md.out '^- inference\\_post\\_denoising did not shrink' "finding"
exit 0
