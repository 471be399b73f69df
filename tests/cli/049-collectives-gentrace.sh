#!/usr/bin/env bash
# gentrace runs of 8 and 64 ranks with one straggler (--straggler K=1.3),
# once as generated and once with another rank's clock 10 s late
# (--clock-shift), as on a host with an unsynchronised clock.  Both name
# rank K and no other, with the same waits, the same wait imposed and the
# same collectives table: matching uses durations and order, never absolute
# times.  The clock offsets move by exactly the shift and come back within
# a step of it.  Everything agrees with tests/collectives_oracle.py, and
# map + vaggregate gives the same report.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vaggregate
GENTRACE=$VT_BUILD/gentrace
[ -x "$GENTRACE" ] || die "$GENTRACE is not built"

# run RANKS STEPS BLOCKS K SHIFTED
run() {
	local n=$1 steps=$2 blocks=$3 k=$4 s=$5 name
	for name in plain shift; do
		mkdir -p "g$n-$name"
		if [ "$name" = shift ]; then
			"$GENTRACE" --ranks "$n" --steps "$steps" --blocks "$blocks" --straggler "$k=1.3" \
				--clock-shift "$s=10" -o "g$n-$name/run" || die "gentrace failed"
		else
			"$GENTRACE" --ranks "$n" --steps "$steps" --blocks "$blocks" --straggler "$k=1.3" \
				-o "g$n-$name/run" || die "gentrace failed"
		fi
		map_reduce "g$n-$name" 0 "g$n-$name"/run-rank*.trace.json.gz
		pycheck collectives "g$n-$name.json" "g$n-$name"/run-rank*.trace.json.gz ||
			die "$n ranks ($name): vanalyze and the oracle differ"
	done
	python3 - "g$n-plain.json" "g$n-shift.json" "$k" "$s" <<'PY' || die "$n ranks: the clock shift changed the answer"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
k, s = int(sys.argv[3]), int(sys.argv[4])
for r in (a, b):
    if [x["rank"] for x in r["stragglers"]] != [k] or r["straggler_rule"] != "collectives":
        sys.exit("stragglers %r (rule %r), expected rank %d only" % (
            [x["rank"] for x in r["stragglers"]], r["straggler_rule"], k))
if a["stragglers"] != b["stragglers"] or a["collectives"] != b["collectives"]:
    sys.exit("stragglers or the collectives table changed with the shift")
for x, y in zip(a["ranks"], b["ranks"]):
    if x["gpu"]["comm_wait_ns"] != y["gpu"]["comm_wait_ns"]:
        sys.exit("rank %d: comm wait changed with the shift" % x["rank"])
    shift = 10 * 10**9 if x["rank"] == s else 0
    if y["clock_offset_ns"] - x["clock_offset_ns"] != shift:
        sys.exit("rank %d: offset %d, unshifted %d: not moved by exactly %d" % (
            x["rank"], y["clock_offset_ns"], x["clock_offset_ns"], shift))
    step = x["steps"]["median_ns"]
    if abs(y["clock_offset_ns"] - shift) >= step:
        sys.exit("rank %d: offset %d ns, true shift %d: not within a step (%d ns)" % (
            x["rank"], y["clock_offset_ns"], shift, step))
print("pass: %d ranks: rank %d only, unchanged by a 10 s clock shift of rank %d" % (
    len(a["ranks"]), k, s))
PY
}

run 8 3 8 5 2
run 64 2 4 37 11
