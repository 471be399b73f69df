#!/usr/bin/env bash
# A figure that report.json has as null is an empty CSV cell in every
# table, idle.csv too: a report read back without some idle figures (one
# written before they existed, or edited) gave INT64_MIN there.  steps.csv
# and idle.csv hold report.json's figures, row for row.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vaggregate

va rep -q --json rep.json "$VT_ROOT/testdata/gpu/launch.trace.json.gz"
expect_rc rep 0
python3 - <<'PY' || die "cannot edit the report"
import json
r = json.load(open("rep.json"))
idle = r["ranks"][0]["idle"]
del idle["outside"]
idle["busy_ns"] = None
idle["by_cause"]["sync"] = None
json.dump(r, open("edited.json", "w"))
PY
for rep in rep edited; do
	vg "agg-$rep" -q --no-charts --out "out-$rep" "$rep.json"
	expect_rc "agg-$rep" 0
done
python3 - <<'PY' || die "steps.csv or idle.csv disagree with report.json (lines above)"
import csv, json
fails = []
for name in ("rep", "edited"):
    r = json.load(open(name + ".json"))
    rk = r["ranks"][0]
    idle = rk["idle"]
    rows = list(csv.DictReader(open("out-%s/tables/idle.csv" % name, newline="")))
    if [x["part"] for x in rows] != ["window", "outside"]:
        fails.append("%s: idle.csv parts %s" % (name, [x["part"] for x in rows]))
        continue
    for row, obj in zip(rows, (idle, idle.get("outside", {}))):
        want = {k: obj.get(k) for k in ("window_ns", "busy_ns", "idle_ns", "gaps")}
        want.update({c + "_ns": v for c, v in obj.get("by_cause", {}).items()})
        for c in [k for k in row if k.endswith("_ns") or k == "gaps"]:
            w = want.get(c)
            cell = "" if w is None else str(w)
            if row[c] != cell:
                fails.append("%s: idle.csv %s %s: '%s', want '%s'" %
                             (name, row["part"], c, row[c], cell))
        if row["window"] != idle["window"] or row["rank"] != str(rk["rank"]):
            fails.append("%s: idle.csv %s: rank or window" % (name, row["part"]))
    steps = list(csv.DictReader(open("out-%s/tables/steps.csv" % name, newline="")))
    durs = rk["steps"].get("durations_ns", [])
    want = [[str(rk["rank"]), str(k), str(d), str(int(k == 0 and rk["steps"]["warmup"]))]
            for k, d in enumerate(durs)]
    got = [[x["rank"], x["step"], x["duration_ns"], x["warmup"]] for x in steps]
    if got != want:
        fails.append("%s: steps.csv %s, want %s" % (name, got[:3], want[:3]))
for f in fails:
    print(f)
raise SystemExit(1 if fails else 0)
PY
