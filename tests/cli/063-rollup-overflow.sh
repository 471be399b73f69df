#!/usr/bin/env bash
# Three ranks, each with one kernel, one operator and one phase of about
# 4.6e18 ns: inside the accepted time range (+-(2^62 - 1) ns, lib/util/sat.h),
# but summed over the ranks past INT64_MAX.  The roll-up
# (lib/stats/rollup.c) saturates; every output is checked for a negative
# number, and each sum over the ranks for the saturated total and the true
# mean python computes from the events: vanalyze's summary (with --ranks and
# --sort too), its page and CSVs, vaggregate's summary and page (a run of
# three reports), vcompare's table, markdown and JSON (on reports and on
# traces).  The sanitizer build runs this test too, where an overflow fails.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare

mkdir -p three
python3 - <<'PY' || die "cannot write the traces"
import json
BIG = 4600000000000000  # us: 4.6e18 ns
for r in range(3):
    ev = [
        {"ph": "X", "cat": "user_annotation", "name": "denoise", "pid": 0, "tid": 1, "ts": 0,
         "dur": BIG},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 0, "tid": 1, "ts": 1,
         "dur": BIG - 2, "args": {"correlation": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 0, "tid": 1,
         "ts": 2, "dur": 1, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": BIG,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
    ]
    t = {"distributedInfo": {"rank": r, "world_size": 3}, "traceEvents": ev}
    json.dump(t, open("three/rank%d.json" % r, "w"))
PY
TRACES3=(three/rank0.json three/rank1.json three/rank2.json)

# expect.py WHAT FILE: the summed rows of a terminal summary against python.
cat >expect.py <<'PY'
import re, sys
MAX = 2**63 - 1
K, P, O = 4600000000000000000, 4600000000000000000, 4599999999999998000  # ns, a rank

def sat(v):
    return min(v, MAX)

def fmt(ns):
    """metric_fmt() of a time of 100 s or more: whole seconds."""
    assert ns >= 99.95e9
    return "%.0f s" % (ns / 1e9)

text = open(sys.argv[2], encoding="utf-8").read()
bad = []
def row(table, name, cells):
    m = re.search(r"^%s \(summed over 3 ranks\)\n.*\n((?:  .*\n)*)" % table, text, re.M)
    lines = [l for l in (m.group(1).splitlines() if m else []) if l.endswith("  " + name)]
    if len(lines) != 1:
        bad.append("%s: no row %s in the %s table" % (sys.argv[1], name, table))
        return
    for c in cells:
        if c not in lines[0]:
            bad.append("%s: %s row %r lacks %r" % (sys.argv[1], table, lines[0], c))

# the kernel: total saturated, 3 instances, the mean of the true sum
row("kernels", "k", [fmt(sat(3 * K)) + "       3 " + fmt(3 * K // 3)])
row("phases", "denoise", [fmt(sat(3 * P)) + "       3"])
# CPU total and self, device and device self: each past INT64_MAX
row("operators", "aten::mm", ["      3 " + " ".join([fmt(sat(3 * O))] * 2 + [fmt(sat(3 * K))] * 2)])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# no_negative FILE...: no number in FILE has a minus sign (no time, count or share is negative)
no_negative() {
	local f
	for f in "$@"; do
		no_line "$f" '(^|[^[:alnum:]_.#-])-[0-9]' "$f: a negative number"
	done
}

va sum -j 2 --out out "${TRACES3[@]}"
expect_rc sum 0
python3 expect.py "vanalyze's summary" sum.out || die "vanalyze's summary (lines above)"
va ranks -j 2 --ranks --all --sort device "${TRACES3[@]}"
expect_rc ranks 0
python3 expect.py "vanalyze --ranks" ranks.out || die "vanalyze --ranks (lines above)"
for k in self count; do
	va "sort-$k" -j 2 --sort "$k" "${TRACES3[@]}"
	expect_rc "sort-$k" 0
done
no_negative sum.out ranks.out sort-self.out sort-count.out out/tables/*.csv
echo "pass: vanalyze's summary: sums over 3 ranks at INT64_MAX, the mean of the true sum, nothing negative"

# page.py PAGE: the page's sums over ranks (data-calc) against python; no number below 0.
cat >page.py <<'PY'
import html, json, re, sys
MAX = 2**63 - 1
K, O = 4600000000000000000, 4599999999999998000
want = {
    ("kernel", "k", "count"): 3, ("kernel", "k", "ranks"): 3,
    ("kernel", "k", "total_ns"): min(3 * K, MAX), ("kernel", "k", "avg_ns"): K,
    ("kernel", "k", "min_ns"): K, ("kernel", "k", "max_ns"): K, ("kernel", "k", "median_ns"): K,
    ("kernel", "k", "share"): 1,
    ("cpu_op", "aten::mm", "count"): 3,
    ("cpu_op", "aten::mm", "total_ns"): min(3 * O, MAX),
    ("cpu_op", "aten::mm", "self_ns"): min(3 * O, MAX),
    ("cpu_op", "aten::mm", "device_ns"): min(3 * K, MAX),
    ("cpu_op", "aten::mm", "self_device_ns"): min(3 * K, MAX),
}
page = open(sys.argv[1], encoding="utf-8").read()
got, bad = {}, []
for calc, v in re.findall(r"data-calc='([^']*)' data-v=\"([^\"]*)\"", page):
    got[tuple(json.loads(html.unescape(calc)))] = v
for key, w in want.items():
    v = got.get(key)
    # integers exactly (INT64_MAX is no double), the rest as doubles
    if v is None or (int(v) != w if re.fullmatch(r"\d+", v) else float(v) != w):
        bad.append("%s: %s is %s, python %s" % (sys.argv[1], key, v, w))
for v in re.findall(r'data-v="([^"]*)"', page):
    if v not in ("null", "") and float(v) < 0:
        bad.append("%s: data-v %s below 0" % (sys.argv[1], v))
shown = re.sub(r"<[^>]*>", " ", re.sub(r"<(style|script)[^>]*>.*?</\1>", "", page, flags=re.S))
bad += ["%s: shown %r" % (sys.argv[1], m) for m in re.findall(r"(?<![\w.#-])-\d[\d.]*\s*\w*", shown)]
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
python3 page.py out/report.html || die "vanalyze's page (lines above)"
python3 - out/tables <<'PY' || die "vanalyze's CSVs (lines above)"
import csv, os, sys
K = 4600000000000000000
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "kernels.csv"))))
bad = ["kernels.csv: rank %s total_ns %s, python %d" % (r["rank"], r["total_ns"], K)
       for r in rows if int(r["total_ns"]) != K]
if sorted(r["rank"] for r in rows) != ["0", "1", "2"]:
    bad.append("kernels.csv: ranks %r" % [r["rank"] for r in rows])
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "pass: vanalyze's page and CSVs: sums over 3 ranks at INT64_MAX, nothing negative"

# the reduce: three reports of one rank each, merged
for r in 0 1 2; do
	mkdir -p "map/$r"
	va "map$r" -q --json "map/$r/report.json" "three/rank$r.json"
	expect_rc "map$r" 0
done
vg agg --full --out agg --reports_dir map
expect_rc agg 0
vg aggc --reports_dir map
expect_rc aggc 0
python3 page.py agg/report.html || die "vaggregate's page (lines above)"
no_negative agg.out aggc.out agg/tables/*.csv
expect_line agg.out '^3 reports, 3 ranks' "vaggregate's summary"
echo "pass: vaggregate's summary and page of 3 reports: sums at INT64_MAX, nothing negative"

vc cmp --all --markdown cmp.md --json cmp.json map/0/report.json out/report.json
expect_rc cmp 0
vc cmp3 --all agg/report.json out/report.json
expect_rc cmp3 0
mkdir -p one && cp three/rank0.json one/
vc tr --all one three
expect_rc tr 0
no_negative cmp.out cmp.md cmp.json cmp3.out tr.out
check cmp.json 'all(x["verdict"] == "same" for x in r["rows"])' "every figure the same per rank" \
	'all(v is None or v >= 0 for x in r["rows"] for v in (x["base"], x["new"]))' "nothing negative"
echo "pass: vcompare's table, markdown and JSON on reports and traces: nothing negative"
