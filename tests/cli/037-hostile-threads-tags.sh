#!/usr/bin/env bash
# Hostile inputs, fourth pass: many threads in a collector file, many tags
# over many ranks (tests/hostile_many.py).  A scan of every known thread
# for each block was square in the threads (100,000 took 6.0 s, 25,000
# 0.52 s, in vanalyze and vtrace-export); the run's tags were gathered and
# checked for disagreement by scans square in ranks times tags (2,000
# files of 32 tags each took 24 s, 500 took 1.5 s), and vaggregate kept
# every tag a report gives a rank (one report with 80,000 tags took 30 s).
# Each must take about four times as long at 4N, not sixteen; the tags of
# the run are still each rank's, in order, and a report's rank keeps 32,
# as vanalyze keeps of a trace, saying how many it left out.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
EXPORT=$VT_BUILD/vtrace-export
[ -x "$EXPORT" ] || die "$EXPORT is not built"
gen() { python3 "$VT_ROOT/tests/hostile_many.py" "$@" || die "cannot write $2"; }
ratio() { python3 "$VT_ROOT/tests/scale_ratio.py" "$@" || die "$1: superlinear (line above)"; }
ratio_mem() { python3 "$VT_ROOT/tests/scale_ratio.py" --rss "$@" || die "$1: superlinear (line above)"; }

# threads: each one region, every event out, once
N=25000
gen threads t-1.vtr $N
gen threads t-4.vtr $((4 * N))
va threads -q --json threads.json t-1.vtr
expect_rc threads 0
check threads.json "r['ranks'][0]['events']['total'] == $N" "$N events"
run_as export "$EXPORT" -o t-1.json t-1.vtr
expect_rc export 0
python3 - t-1.json $N <<'PY' || die "vtrace-export: threads (line above)"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
tids = sorted(int(e["tid"]) for e in ev)
if tids != list(range(1000, 1000 + int(sys.argv[2]))):
    sys.exit("%d regions, not one on each thread" % len(tids))
PY
ratio_mem "vanalyze threads" "$VANALYZE -q --json o.json t-1.vtr" "$VANALYZE -q --json o.json t-4.vtr"
ratio_mem "vtrace-export threads" "$EXPORT -o o.json t-1.vtr" "$EXPORT -o o.json t-4.vtr"

# tags: N files of 32 keys of their own; every key differs (the others lack it)
N=250
gen tagfiles f-1 $N
gen tagfiles f-4 $((4 * N))
for s in 1 4; do
	va "tags-$s" -q --full --json "tags-$s.json" "f-$s"
	expect_rc "tags-$s" 0
done
check tags-1.json \
	"list(r['run']['tags']) == ['k%d_%d' % (i, j) for i in range($N) for j in range(32)]" \
	"the run's tags, each rank's in order" \
	"r['run']['differs'] == list(r['run']['tags'])" "each differs" \
	"all(v == 'v%d' % (i % 32) for i, v in enumerate(r['run']['tags'].values()))" "their values"
ratio "vanalyze tags" "$VANALYZE -q --json o.json f-1" "$VANALYZE -q --json o.json f-4"
ratio "vaggregate tags" "$VAGGREGATE -q --json o.json tags-1.json" \
	"$VAGGREGATE -q --json o.json tags-4.json"

# one report of one rank with N tags: 32 kept
N=20000
gen tagfiles f-0 1
va one -q --json one.json f-0/r0.json
expect_rc one 0
gen tagreport many-1.json one.json $N
gen tagreport many-4.json one.json $((4 * N))
vg many -q --json many.json many-1.json
expect_rc many 0
check many.json \
	"list(r['inputs'][0]['tags']) == ['model_%d' % i for i in range(32)]" "the first 32 tags" \
	"'%d metadata keys beyond the first 32 left out' % ($N - 32) in r['ranks'][0]['warnings']" \
	"a warning of the rest" \
	"list(r['run']['tags']) == ['model_%d' % i for i in range(32)]" "the run's 32"
ratio "vaggregate report tags" "$VAGGREGATE -q --json o.json many-1.json" \
	"$VAGGREGATE -q --json o.json many-4.json"
# vcompare takes the run as the report says: each defining tag looked up on the other side
vc same -q many-1.json many-1.json
expect_rc same 0
ratio "vcompare report tags" "$VCOMPARE -q many-1.json many-1.json" \
	"$VCOMPARE -q many-4.json many-4.json"
echo ok
