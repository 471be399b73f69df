#!/usr/bin/env bash
# Cross-rank statistics and stragglers.  The torch-cpu 4-rank set names rank
# 2, which the others wait for in gloo all-reduce (it arrives last), and
# only rank 2, by the collectives rule.  On the 8 DLRM ranks every per-rank scalar gets statistics,
# each recomputed here from the per-rank values of the same report
# (population stddev, mean of the middle two for an even count, first rank
# holding min and max).
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
T=$VT_SHARED/traces
va cpu --json cpu.json "$T"/torch-cpu/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc cpu 0
check cpu.json '[(s["rank"], s["metric"]) for s in r["stragglers"]] == [(2, "comm.wait_imposed_ns")]' \
	"torch-cpu: rank 2 is the straggler, by the wait it imposes" \
	'r["straggler_rule"] == "collectives"' "the collectives rule named it"

va dlrm --json dlrm.json "$T"/public/facebookresearch__param/*dlrm_kineto*worker*.json.gz
expect_rc dlrm 0
python3 - dlrm.json <<'PY' || die "cross_rank of the DLRM set is wrong"
import json, math, statistics, sys
import os
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from vtcheck import rank_metric as value  # noqa: E402
r = json.load(open(sys.argv[1]))
ranks, cr = r["ranks"], r["cross_rank"]

scalars = ["events.total", "span_ns"] + ["gpu." + k for k in ranks[0]["gpu"]
           if isinstance(ranks[0]["gpu"][k], (int, float)) and not isinstance(ranks[0]["gpu"][k], bool)]
scalars += ["steps.median_ns", "steps.avg_ns", "throughput.wall_ns", "throughput.bps"]
scalars += sorted({"phase:%s.total_ns" % p["path"] for rk in ranks for p in rk["phases"]})
# A metric null on every rank (bps without block spans) has no statistics.
scalars = [m for m in scalars if any(value(rk, m) is not None for rk in ranks)]
bad = [m for m in scalars if m not in cr]
if bad:
    sys.exit("metrics without cross-rank statistics: %s" % bad)
for metric, st in cr.items():
    vals = [(rk["rank"], value(rk, metric)) for rk in ranks]
    vals = [(k, float(v)) for k, v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
    xs = [v for _, v in vals]
    want = {"count": len(xs), "min": min(xs), "max": max(xs), "avg": statistics.fmean(xs),
            "median": statistics.median(xs), "stddev": statistics.pstdev(xs),
            "min_rank": next(k for k, v in vals if v == min(xs)),
            "max_rank": next(k for k, v in vals if v == max(xs))}
    for key, w in want.items():
        got = st[key]
        if abs(got - w) > 1e-9 * max(1.0, abs(w)):
            sys.exit("%s.%s: vanalyze %r, recomputed %r" % (metric, key, got, w))
print("pass: %d cross-rank metrics of 8 DLRM ranks recomputed" % len(cr))
PY
