#!/usr/bin/env bash
# CPU operators with the device time they launched: tables/cpu_ops.csv of the
# 8 DLRM ranks (kernels, copies and sets linked to their runtime call by
# correlation id) and of the 4 torch-cpu straggler ranks (no cat, no
# device: operators by name, device time empty) equals
# tests/oracle_analyses.py's independent reading row for row, full names
# included; on torch-cpu rank 0 aten::slow_conv3d takes 2.149373 s of the
# 5.293836 s span, as a decimal reading of the trace says; the HTML page
# shows the operators (html_check.py recomputes every figure).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

va dlrm -q --out dlrm "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz
expect_rc dlrm 0
va cpu -q --out cpu "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc cpu 0
for d in dlrm cpu; do
	python3 - "$d" "$VT_ROOT/tests" <<'PY' || die "$d: cpu_ops.csv disagrees with the oracle"
import csv, json, sys
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import oracle_analyses
from vtcheck import cached  # 040's results, computed once per test run
rep = json.load(open(d + "/report.json", encoding="utf-8"))
with open(d + "/tables/cpu_ops.csv", newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f, strict=True))
head = rows[0]
if head != ["rank", "name", "count", "total_ns", "self_ns", "device_ns", "self_device_ns"]:
    sys.exit("header %r" % head)
got = {}
for row in rows[1:]:
    got.setdefault(int(row[0]), []).append(row[1:])
bad, devices = 0, 0
for rk in rep["ranks"]:
    path = [i["path"] for i in rep["inputs"] if i["rank"] == rk["rank"]][0]
    orc = cached("analyses", path, None, oracle_analyses.analyze, path)
    want = [[o["name"]] + ["" if o[f] is None else str(o[f]) for f in
             ("count", "total_ns", "self_ns", "device_ns", "self_device_ns")]
            for o in orc["cpu_ops"]]
    have = got.get(rk["rank"], [])
    if sorted(have) != sorted(want):
        bad += 1
        print("rank %d: %d rows, oracle %d; first differences: %r" % (
            rk["rank"], len(have), len(want),
            [h for h in sorted(have) if h not in want][:3]))
    devices += sum(1 for w in want if w[4] not in ("", "0"))
print("%s: %d ranks, %d rows, %d with device time" % (d, len(rep["ranks"]), len(rows) - 1, devices))
if bad or (d == "dlrm") != (devices > 0):
    sys.exit(1)
PY
	python3 "$VT_ROOT/tests/html_check.py" "$d/report.html" "$d/report.json" ||
		die "$d: the page is wrong"
	expect_line "$d/report.html" '<section id="operators">' "$d: the operators section"
done
python3 - "$TORCH_CPU/dev-4rank-straggler2-rank0.trace.json.gz" cpu/tables/cpu_ops.csv <<'PY' ||
import csv, gzip, json, sys
from decimal import Decimal
ev = json.load(gzip.open(sys.argv[1]), parse_float=Decimal)
ns = lambda v: int(Decimal(str(v)) * 1000)
xs = [e for e in ev if e.get("ph") == "X"]
conv = sum(ns(e["dur"]) for e in xs if e["name"] == "aten::slow_conv3d")
span = max(ns(e["ts"]) + ns(e["dur"]) for e in xs) - min(ns(e["ts"]) for e in xs)
rows = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if r["rank"] == "0"]
row = [r for r in rows if r["name"] == "aten::slow_conv3d"][0]
print("aten::slow_conv3d: %s ns of %d (decimal reading: %d)" % (row["total_ns"], span, conv))
if int(row["total_ns"]) != conv or conv != 2149373000 or span != 5293836000 or row["device_ns"] != "":
    sys.exit(1)
PY
	die "aten::slow_conv3d is not 2.15 s of 5.29 s"
echo "pass: cpu operators"
