#!/usr/bin/env bash
# Hostile inputs, fourth pass: outputs bounded in shapes and collectives.
# - 2,000 distinct aten::mm shapes: report.json keeps the 500 with the most
#   device time and sums the rest in one row marked "other": 1500 (checked
#   against --full, which keeps all 2,000); the FLOPs still count every
#   call; tables/ops_perf.csv has the 501 rows;
# - two torch_npu ranks with 2,000 and 8,000 distinct HCCL operator names:
#   each rank keeps 500 collectives and one row "other", the run 500
#   matched collectives; report.json and the page are as long at 8,000 as
#   at 2,000 (they were 25 MB and 24 MB at 32,000); --full keeps all;
#   vaggregate gives vanalyze's collectives from the per-rank reports,
#   capped or --full ones alike, and keeps all with --full;
# - the same without a cat anywhere, so that every HCCL operator is also a
#   phase: the cross-rank statistics keep the 500 phase paths with the most
#   time over the ranks and sum the rest in "phases_other.total_ns", marked
#   "other" (checked against the ranks' phase tables of --full, which keep
#   every phase; without it they are capped too, tests/cli/078); the page is as long at 12,000 names as at 6,000, where its
#   timeline reaches its cap (31 MB at 32,000 before); --full keeps every
#   path, in vanalyze and vaggregate, and vaggregate of --full per-rank
#   reports gives vanalyze's rows.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

gen shapes shapes.json 2000
va shapes -q --out shapes-out shapes.json
expect_rc shapes 0
va shapes-full -q --full --json shapes-full.json shapes.json
expect_rc shapes-full 0
python3 - shapes-out/report.json shapes-full.json shapes-out/tables/ops_perf.csv <<'PY' ||
import csv, json, sys
cap = json.load(open(sys.argv[1]))["ranks"][0]
full = json.load(open(sys.argv[2]))["ranks"][0]
c, f = cap["ops_perf"], full["ops_perf"]
if len(f) != 2000 or any("other" in r for r in f):
    sys.exit("--full: %d shapes (expected 2000), %d other marks" % (len(f), sum("other" in r for r in f)))
if len(c) != 501 or c[:500] != f[:500]:
    sys.exit("capped: %d rows, or not the top 500 of --full" % len(c))
o, rest = c[500], f[500:]
want = {"name": "(other shapes)", "other": 1500, "input_dims": "", "count": sum(r["count"] for r in rest),
        "total_ns": sum(r["total_ns"] for r in rest), "min_ns": min(r["min_ns"] for r in rest),
        "max_ns": max(r["max_ns"] for r in rest), "median_ns": None, "flops": None,
        "tflops_median": None}
for k, v in want.items():
    if o.get(k) != v:
        sys.exit("other row: %s = %r, expected %r" % (k, o.get(k), v))
if abs(o["avg_ns"] - want["total_ns"] / want["count"]) > 1e-9 * o["avg_ns"]:
    sys.exit("other row: avg_ns %r" % o["avg_ns"])
if cap["perf"]["flops"] != full["perf"]["flops"] or cap["perf"]["flops"] != sum(
        r["flops"] * r["count"] for r in f):
    sys.exit("FLOPs %r, --full %r" % (cap["perf"]["flops"], full["perf"]["flops"]))
rows = list(csv.reader(open(sys.argv[3])))
if len(rows) != 502 or rows[-1][1] != "(other shapes)":
    sys.exit("ops_perf.csv: %d lines, last %r" % (len(rows), rows[-1][:2]))
print("shapes: 500 kept, 1500 in the other row, every call's FLOPs counted")
PY
	die "shapes capped (line above)"

for n in 2000 8000; do
	gen hcclnames "hccl$n" "$n"
	va "hccl$n" -q --out "hccl$n-out" "hccl$n"
	expect_rc "hccl$n" 0
done
va hccl-full -q --full --json hccl-full.json hccl2000
expect_rc hccl-full 0
mkdir -p map full-map
for r in 0 1; do
	va "map$r" -q -j 1 --json "map/$r.json" "hccl2000/rank-$r.json"
	expect_rc "map$r" 0
	va "full-map$r" -q -j 1 --full --json "full-map/$r.json" "hccl2000/rank-$r.json"
	expect_rc "full-map$r" 0
done
vg agg -q --json agg.json map
expect_rc agg 0
vg agg-of-full -q --json agg-of-full.json full-map
expect_rc agg-of-full 0
vg agg-full -q --full --json agg-full.json full-map
expect_rc agg-full 0
python3 <<'PY' || die "collectives capped (line above)"
import json, os, sys
def load(p):
    return json.load(open(p))
r2, r8 = load("hccl2000-out/report.json"), load("hccl8000-out/report.json")
for n, r in ((2000, r2), (8000, r8)):
    if len(r["collectives"]) != 500:
        sys.exit("%d names: %d collectives, expected 500" % (n, len(r["collectives"])))
    for rk in r["ranks"]:
        s = rk["comm_instances"]
        if len(s) != 501 or s[-1].get("other") != n - 500 or s[-1]["durations_ns"] != [] \
                or any("other" in x for x in s[:500]):
            sys.exit("%d names, rank %d: %d series, last %r" % (n, rk["rank"], len(s), s[-1]))
    if len(r["cross_rank"]) > 100:
        sys.exit("%d names: %d cross-rank rows" % (n, len(r["cross_rank"])))
# the first 500 names in order on both ranks: hcom_allReduce__0_0_1, __1000_, __1001_, ...
names = sorted("hcom_allReduce__%d_0_1" % i for i in range(2000))[:500]
if [c["collective"] for c in r2["collectives"]] != names:
    sys.exit("the collectives kept are not the first 500 names")
for f in ("report.json", "report.html"):
    a, b = os.path.getsize("hccl2000-out/" + f), os.path.getsize("hccl8000-out/" + f)
    print("%s: %d bytes at 2,000 names, %d at 8,000" % (f, a, b))
    if b > 1.1 * a:
        sys.exit("%s grows with the names: %d -> %d bytes" % (f, a, b))
full = load("hccl-full.json")
if len(full["collectives"]) != 2000 or any("other" in s for rk in full["ranks"]
                                           for s in rk["comm_instances"]):
    sys.exit("--full: %d collectives" % len(full["collectives"]))
for p in ("agg.json", "agg-of-full.json"):
    if load(p)["collectives"] != r2["collectives"]:
        sys.exit("%s: %d collectives, not vanalyze's" % (p, len(load(p)["collectives"])))
if load("agg-full.json")["collectives"] != full["collectives"]:
    sys.exit("vaggregate --full of --full reports: not vanalyze --full's collectives")
print("collectives: 500 a rank and one other row, vaggregate alike")
PY

for n in 6000 12000; do
	gen hcclphases "phases$n" "$n"
	va "phases$n" -q --json "phases$n.json" --html "phases$n.html" "phases$n"
	expect_rc "phases$n" 0
	va "phases$n-full" -q --full --json "phases$n-full.json" "phases$n"
	expect_rc "phases$n-full" 0
done
mkdir -p pmap
for r in 0 1; do
	va "pmap$r" -q -j 1 --full --json "pmap/$r.json" "phases6000/rank-$r.json"
	expect_rc "pmap$r" 0
done
vg pagg -q --json pagg.json pmap
expect_rc pagg 0
vg pagg-full -q --full --json pagg-full.json pmap
expect_rc pagg-full 0
python3 <<'PY' || die "cross-rank phase rows capped (line above)"
import json, os, sys
def load(p):
    return json.load(open(p))
for n in (6000, 12000):
    r = load("phases%d.json" % n)
    cr = r["cross_rank"]
    per_rank = [{p["path"]: p["total_ns"] for p in rk["phases"]}
                for rk in load("phases%d-full.json" % n)["ranks"]]
    paths = sorted(set(per_rank[0]) | set(per_rank[1]), key=lambda p: p.encode())
    if len(paths) <= n:
        sys.exit("%d names: only %d phase paths" % (n, len(paths)))
    order = sorted(range(len(paths)), key=lambda i: (-sum(t.get(paths[i], 0) for t in per_rank), i))
    kept = sorted(order[:500])
    got = [k[len("phase:"):-len(".total_ns")] for k in cr if k.startswith("phase:")]
    if got != [paths[i] for i in kept]:
        sys.exit("%d names: %d phase rows, not the 500 with the most time" % (n, len(got)))
    o = cr.get("phases_other.total_ns")
    rest = set(paths) - set(got)
    sums = [sum(v for p, v in t.items() if p in rest) for t in per_rank]
    if not o or o.get("other") != len(rest) or o["count"] != 2 or \
            (o["min"], o["max"]) != (min(sums), max(sums)):
        sys.exit("%d names: the other row %r, expected sums %r of %d paths" % (n, o, sums, len(rest)))
    if sum("other" in v for v in cr.values()) != 1:
        sys.exit("%d names: other marks on %d rows" % (n, sum("other" in v for v in cr.values())))
a, b = os.path.getsize("phases6000.html"), os.path.getsize("phases12000.html")
print("page: %d bytes at 6,000 phase names, %d at 12,000" % (a, b))
if b > 1.1 * a:
    sys.exit("the page grows with the phases: %d -> %d bytes" % (a, b))
full = load("phases6000-full.json")["cross_rank"]
if "phases_other.total_ns" in full or sum(k.startswith("phase:") for k in full) != len(set(
        p["path"] for rk in load("phases6000-full.json")["ranks"] for p in rk["phases"])):
    sys.exit("--full: the cross-rank rows do not keep every phase path")
if load("pagg.json")["cross_rank"] != load("phases6000.json")["cross_rank"]:
    sys.exit("vaggregate: not vanalyze's cross-rank rows")
# (of capped reports: its collectives and their figures are not --full's)
phase_rows = lambda cr: {k: v for k, v in cr.items() if k.startswith("phase")}
if phase_rows(load("pagg-full.json")["cross_rank"]) != phase_rows(full):
    sys.exit("vaggregate --full: not vanalyze --full's cross-rank phase rows")
print("cross-rank phase rows: 500 and one other row, vaggregate alike")
PY
echo ok
