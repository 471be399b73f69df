#!/usr/bin/env bash
# Hostile inputs, fourth pass: each rank's phase table capped as its other
# tables are.  Two ranks of 32,000 distinct HCCL operator names and no cat
# anywhere (every span a phase) gave a 31 MB report.json with 32,000 phase
# rows a rank.
# - 2,000 names: each rank keeps the 500 phases with the most time and sums
#   the rest in one last row "(other phases)" marked "other": 1501, checked
#   against the trace's spans by python; tables/phases.csv has the 501 rows;
#   the cross-rank rows are made of every phase before the cap, as --full
#   makes them; --full keeps all 2,000;
# - vaggregate of --full per-rank reports caps the phases as vanalyze does
#   (and keeps all with --full); of capped reports, the ranks' other rows
#   join "phases_other.total_ns";
# - a report whose child phase has more time than its parent (vaggregate
#   reads what it is given): the parent is kept with it, the tree whole;
# - report.json and phases.csv as long at 32,000 names as at 8,000.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

gen hcclphases p2000 2000
va cap -q --out cap p2000
expect_rc cap 0
va full -q --full --json full.json p2000
expect_rc full 0
# the terminal counts the phases the other rows hold among those it hides
NO_COLOR=1 COLUMNS=80 run_as term "$VANALYZE" p2000
expect_rc term 0
expect_line term.out '^  2000 more phases' "the terminal's count of hidden phases"
no_line term.out 'other phases' "the terminal"
mkdir -p fmap cmap
for r in 0 1; do
	va "fmap$r" -q -j 1 --full --json "fmap/$r.json" "p2000/rank-$r.json"
	expect_rc "fmap$r" 0
	va "cmap$r" -q -j 1 --json "cmap/$r.json" "p2000/rank-$r.json"
	expect_rc "cmap$r" 0
done
vg agg -q --out agg fmap
expect_rc agg 0
vg agg-full -q --full --json agg-full.json fmap
expect_rc agg-full 0
vg agg-cap -q --out agg-cap cmap
expect_rc agg-cap 0
python3 - <<'PY' || die "phase tables capped (line above)"
import csv, json, math, re, sys

def load(p):
    return json.load(open(p))

cap, full = load("cap/report.json"), load("full.json")
for r in (0, 1):
    # the trace's spans, none with a cat: each a root phase, named with a
    # trailing "_N" as "_*" (the HCCL operators and the matmul on the device)
    names = {}
    for e in load("p2000/rank-%d.json" % r)["traceEvents"]:
        if e.get("ph") == "X" and "cat" not in e:
            names.setdefault(re.sub(r"([_#])[0-9]+$", r"\1*", e["name"]), []).append(e)
    assert len(names) == 2001, len(names)
    def union(n):
        t, end = 0, None
        for a, b in sorted((e["ts"], e["ts"] + e["dur"]) for e in names[n]):
            if end is None or a > end:
                t, end = t + b - a, b
            elif b > end:
                t, end = t + b - end, b
        return t
    # most time first, ties in the table's order (by start)
    order = sorted(names, key=lambda n: (-union(n), min(e["ts"] for e in names[n])))
    kept, rest = set(order[:500]), order[500:]
    rows = cap["ranks"][r]["phases"]
    if len(rows) != 501 or any("other" in x for x in rows[:500]):
        sys.exit("rank %d: %d phase rows, expected 500 and the other row" % (r, len(rows)))
    if {x["path"] for x in rows[:500]} != kept:
        sys.exit("rank %d: the phases kept are not the 500 with the most time" % r)
    frows = full["ranks"][r]["phases"]
    if len(frows) != 2001 or any("other" in x for x in frows):
        sys.exit("--full, rank %d: %d phase rows" % (r, len(frows)))
    if rows[:500] != [x for x in frows if x["path"] in kept]:
        sys.exit("rank %d: the rows kept are not --full's, in its order" % r)
    o = rows[500]
    durs = [e["dur"] * 1000 for n in rest for e in names[n]]
    want = {"name": "(other phases)", "depth": 0, "other": 1501, "count": len(durs),
            "total_ns": sum(durs), "min_ns": min(durs), "max_ns": max(durs),
            "median_ns": None, "samples_ns": [], "spans_ns": []}
    for k, v in want.items():
        if o.get(k) != v:
            sys.exit("rank %d, other row: %s = %r, expected %r" % (r, k, o.get(k), v))
    mean = sum(durs) / len(durs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in durs) / len(durs))
    if abs(o["avg_ns"] - mean) > 1e-9 * mean or abs(o["stddev_ns"] - sd) > 1e-6 * sd:
        sys.exit("rank %d, other row: avg %r sd %r, expected %r %r"
                 % (r, o["avg_ns"], o["stddev_ns"], mean, sd))
    span = cap["ranks"][r]["span_ns"]
    if abs(o["share"] - sum(durs) / span) > 1e-9:
        sys.exit("rank %d, other row: share %r" % (r, o["share"]))
rows = list(csv.reader(open("cap/tables/phases.csv")))
if len(rows) != 1 + 2 * 501 or rows[501][1] != "(other phases)" or rows[-1][1] != "(other phases)":
    sys.exit("phases.csv: %d lines" % len(rows))
# the cross-rank rows are made of every phase: as --full's sums give them
fcr = full["cross_rank"]
if cap["cross_rank"]["phases_other.total_ns"]["other"] != 1501 or \
        sum(k.startswith("phase:") for k in cap["cross_rank"]) != 500 or \
        any(cap["cross_rank"][k] != fcr[k] for k in cap["cross_rank"] if k.startswith("phase:")):
    sys.exit("cross-rank phase rows: not made of every phase")
# (vaggregate's report.json keeps the ranks' scalars alone: its tables are in the CSV)
if load("agg/report.json")["cross_rank"] != cap["cross_rank"] or \
        open("agg/tables/phases.csv").read() != open("cap/tables/phases.csv").read():
    sys.exit("vaggregate of --full reports: its phases are not vanalyze's")
if [len(rk["phases"]) for rk in load("agg-full.json")["ranks"]] != [2001, 2001]:
    sys.exit("vaggregate --full: the phases are not kept")
ac = load("agg-cap/report.json")
if open("agg-cap/tables/phases.csv").read() != open("cap/tables/phases.csv").read():
    sys.exit("vaggregate of capped reports: the phase tables changed")
o = ac["cross_rank"].get("phases_other.total_ns")
sums = sorted(sum(x["total_ns"] for x in rk["phases"][500:]) +
              sum(x["total_ns"] for x in rk["phases"][:500]
                  if "phase:%s.total_ns" % x["path"] not in ac["cross_rank"])
              for rk in cap["ranks"])
if not o or (o["min"], o["max"]) != tuple(sums) or o["other"] < 1501 or \
        any("(other phases)" in k for k in ac["cross_rank"]):
    sys.exit("vaggregate of capped reports: the other row %r, expected sums %r" % (o, sums))
print("phases: 500 a rank and one other row, --full and vaggregate alike")
PY

mkdir -p tree
python3 - <<'PY' || die "cannot write tree/0.json"
import json
# a child longer than its parent: 600 roots of 10 us, then P (1 us) holding C (1 ms)
r = json.load(open("fmap/0.json"))
rk = r["ranks"][0]
row = dict(rk["phases"][0], samples_ns=[], spans_ns=[])
rows = []
for i in range(600):
    rows.append(dict(row, name="r%d" % i, path="r%d" % i, depth=0, count=1, total_ns=10000))
rows.append(dict(row, name="P", path="P", depth=0, count=1, total_ns=1000))
rows.append(dict(row, name="C", path="P/C", depth=1, count=1, total_ns=1000000))
for x in rows:
    x.update(avg_ns=x["total_ns"], median_ns=x["total_ns"], min_ns=x["total_ns"],
             max_ns=x["total_ns"], stddev_ns=0)
rk["phases"] = rows
json.dump(r, open("tree/0.json", "w"))
PY
vg tree -q --out tree-out tree/0.json
expect_rc tree 0
python3 - <<'PY' || die "a child longer than its parent (line above)"
import csv, sys
rows = list(csv.reader(open("tree-out/tables/phases.csv")))[1:]
want = ["r%d" % i for i in range(498)] + ["P", "P/C", "(other phases)"]
if [x[1] for x in rows] != want:
    sys.exit("kept %d rows: %r ... %r, expected 498 roots, P, P/C and the other row"
             % (len(rows), [x[1] for x in rows[:2]], [x[1] for x in rows[-3:]]))
if (rows[-1][4], rows[-1][5]) != ("102", str(102 * 10000)):
    sys.exit("the other row: count %s, total %s; expected the 102 roots left" % tuple(rows[-1][4:6]))
PY

# bounded: as long at 32,000 names as at 8,000
for n in 8000 32000; do
	gen hcclphases "p$n" "$n"
	va "p$n" -q --out "p$n-out" "p$n"
	expect_rc "p$n" 0
done
python3 - <<'PY' || die "outputs grow with the phase names (line above)"
import os, sys
for f in ("report.json", "tables/phases.csv"):
    a, b = (os.path.getsize("p%d-out/%s" % (n, f)) for n in (8000, 32000))
    print("%s: %d bytes at 8,000 names, %d at 32,000" % (f, a, b))
    if b > 1.1 * a or b > 4000000:
        sys.exit("%s grows with the phase names: %d -> %d bytes" % (f, a, b))
PY
echo ok
