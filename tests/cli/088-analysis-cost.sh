#!/usr/bin/env bash
# plain build only: the bytes kept are glibc malloc's (mallinfo2()), not a sanitizer's.
# What each analysis keeps (bench/cost.sh's bytes per event): with
# VT_BENCH_COST set, vanalyze says after the read, per analysis, the live
# heap its collector added; the report does not change.  On a trace of
# kernels launched by runtime calls, the calls are one table (calls.h) and
# the one join of kernels and calls is launch.c's: the kernel context keeps
# no copy of the kernels and calls (under a quarter of what the calls and
# the launches keep), and the graph replay none of the device records on a
# trace without a replay (under half of the launches).
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze

f=$VT_ROOT/testdata/gpu/launch.trace.json.gz
[ -f "$f" ] || die "no $f"
"$VANALYZE" -q -j 1 --json plain.json "$f" >/dev/null 2>&1 || die "vanalyze failed"
VT_BENCH_COST=1 "$VANALYZE" -q -j 1 --json cost.json "$f" >/dev/null 2>err.txt ||
	die "vanalyze with VT_BENCH_COST failed: $(tail -n 3 err.txt)"
cmp -s plain.json cost.json || die "VT_BENCH_COST changed the report"
line=$(sed -n 's/^vanalyze: cost: //p' err.txt)
[ -n "$line" ] || die "no cost line in: $(cat err.txt)"

python3 - "$line" cost.json <<'PY' || die "the bytes kept are not as expected: $line"
import json
import sys

v = sys.argv[1].split()
kept = {v[i]: int(v[i + 1]) for i in range(0, len(v) - 1, 2)}
names = "events gpu cpuops replay phases calls launches memory comm idle kctx".split()
missing = [n for n in names if n not in kept]
assert not missing, f"missing {missing}"
r = json.load(open(sys.argv[2]))
assert kept["events"] == r["ranks"][0]["events"]["total"], (kept["events"], "events")
assert kept["launches"] > 0 and kept["calls"] > 0, "the launches or the calls keep nothing"
join = kept["launches"] + kept["calls"]
assert 4 * kept["kctx"] < join, ("kctx", kept["kctx"], "calls and launches", join)
assert 2 * kept["replay"] < kept["launches"], ("replay", kept["replay"], "launches",
                                               kept["launches"])
PY
echo "ok: $line"
