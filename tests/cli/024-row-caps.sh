#!/usr/bin/env bash
# Row tables capped per rank: beyond the 500 kernels and
# the 500 operators of a rank with the most time, report.json sums the rest
# in one last row marked "other": N (N rows folded); --full keeps every row.
# The other row's figures are checked against the --full report here; then
# vaggregate keeps the mark, and vcompare does not take the row for a
# kernel of its name (the trace also has a real kernel named "(other kernels)").
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
python3 "$VT_ROOT/tests/hostile_inputs.py" rows rows.json 2000 || die "cannot write rows.json"
mkdir -p reports/rank_0
va capped -q --json reports/rank_0/report.json rows.json
expect_rc capped 0
va full -q --full --json full.json rows.json
expect_rc full 0
python3 - reports/rank_0/report.json full.json <<'PY' || die "capped tables (line above)"
import json, math, sys
cap = json.load(open(sys.argv[1]))["ranks"][0]
full = json.load(open(sys.argv[2]))["ranks"][0]
for table, n in (("kernels", 2001), ("cpu_ops", 2000)):
    c, f = cap[table], full[table]
    if len(f) != n or any("other" in r for r in f):
        raise SystemExit("--full %s: %d rows (expected %d), other marks %d" %
                         (table, len(f), n, sum("other" in r for r in f)))
    if len(c) != 501 or [r["name"] for r in c[:500]] != [r["name"] for r in f[:500]]:
        raise SystemExit("%s: %d rows, or not the top 500 of --full" % (table, len(c)))
    if any("other" in r for r in c[:500]):
        raise SystemExit("%s: a kept row is marked other" % table)
    o, rest = c[500], f[500:]
    want = {"other": len(rest), "count": sum(r["count"] for r in rest),
            "total_ns": sum(r["total_ns"] for r in rest)}
    if table == "kernels":
        C, T = want["count"], want["total_ns"]
        m2 = sum(r["count"] * (r["stddev_ns"] ** 2 + (r["avg_ns"] - T / C) ** 2) for r in rest)
        want.update(min_ns=min(r["min_ns"] for r in rest), max_ns=max(r["max_ns"] for r in rest),
                    avg_ns=T / C, stddev_ns=math.sqrt(max(m2 / C, 0)),
                    median_ns=None, samples_ns=[])
    else:
        want["self_ns"] = sum(r["self_ns"] for r in rest)
    for k, v in want.items():
        got = o.get(k)
        ok = got == v if not isinstance(v, float) else abs(got - v) <= 1e-9 * abs(v)
        if not ok:
            raise SystemExit("%s other row: %s = %r, expected %r" % (table, k, got, v))
real = [r for r in cap["kernels"] if r["name"] == "(other kernels)" and "other" not in r]
if len(real) != 1 or real[0]["total_ns"] != 90000000:
    raise SystemExit("the real kernel named (other kernels): %r" % real)
print("capped: 501 rows each, the other rows sum the rest")
PY

# vaggregate --full keeps the rows and the mark
vg agg -q --full --reports_dir reports --json merged.json
expect_rc agg 0
check merged.json 'r["ranks"][0]["kernels"][500]["other"] == 1501' "the other row's mark survives" \
	'sum("other" in k for k in r["ranks"][0]["kernels"]) == 1' "one other row" \
	'r["ranks"][0]["cpu_ops"][500]["other"] == 1500' "the operators' other row"

# vcompare: the other row ten times longer is no kernel regressing
python3 - reports/rank_0/report.json <<'PY' || die "cannot write new.json"
import json, sys
r = json.load(open(sys.argv[1]))
r["ranks"][0]["kernels"][500]["total_ns"] *= 10
json.dump(r, open("new.json", "w"))
PY
vc cmp --all --json cmp.json reports/rank_0/report.json new.json
expect_rc cmp 0
python3 - <<'PY' || die "vcompare took the other row for a kernel (line above)"
import json
t = json.dumps(json.load(open("cmp.json")))
n = t.count("kernel:(other kernels)")
if n != 1:
    raise SystemExit("kernel:(other kernels) appears %d times in the comparison, expected 1 "
                     "(the real kernel)" % n)
PY
echo ok
