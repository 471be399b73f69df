#!/usr/bin/env bash
# Hostile inputs, fourth pass: collectives that leave instances unmatched.
# Two ranks run N collectives of distinct names, rank 0 each twice, rank 1
# once (tests/hostile_many.py unmatched), NCCL kernels and HCCL operators
# alike: each name is warned about once, on rank 0.  Adding those warnings
# to the rank one at a time (a scan for a duplicate and a copy of the
# array, in the report's arena, each) was square in time and memory: 5,000
# and 20,000 names took 0.33 s / 119 MB and 3.9 s / 1.62 GB.  vanalyze,
# vaggregate (of the ranks' own reports, and of its own report again) and
# vcompare must take about four times the time and memory at 4N, not 16.
# --full: past 500 series a rank the rest are one row, which would hide the
# warnings' cost.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
ratio() { python3 "$VT_ROOT/tests/scale_ratio.py" --rss "$@" || die "$1: superlinear (line above)"; }

N=2000
for kind in nccl hccl; do
	for s in 1 4; do
		d=$kind-$s
		python3 "$VT_ROOT/tests/hostile_many.py" unmatched "$d" $((N * (s == 1 ? 1 : 4))) "$kind" ||
			die "cannot write $d"
		mkdir -p "$d-map"
		for r in 0 1; do
			va "$d-map$r" -q --full --json "$d-map/rank$r.json" "$d/rank$r.json"
			expect_rc "$d-map$r" 0
		done
	done

	# what the warnings say: each name once, on the rank that has the extra
	va "$kind" -q --full --json "$kind.json" "$kind-1/rank0.json" "$kind-1/rank1.json"
	expect_rc "$kind" 0
	check "$kind.json" \
		"[k['rank'] for k in r['ranks']] == [0, 1]" "ranks 0 and 1" \
		"len(r['collectives']) == $N" "$N collectives" \
		"all(c['instances'] == 1 and c['unmatched'] == 1 for c in r['collectives'])" \
		"each matched once, one left over" \
		"sorted(w for w in r['ranks'][0]['warnings'] if 'have no match' in w) == sorted(set(w for w in r['ranks'][0]['warnings'] if 'have no match' in w))" \
		"no warning twice" \
		"sum('1 of its 2 instances have no match' in w for w in r['ranks'][0]['warnings']) == $N" \
		"one warning per name on rank 0" \
		"not any('have no match' in w for w in r['ranks'][1]['warnings'])" "none on rank 1"
	# a report matched again keeps its warnings once
	vg "$kind-agg" -q --full --json "$kind-agg.json" "$kind-1-map"
	expect_rc "$kind-agg" 0
	vg "$kind-again" -q --full --json "$kind-again.json" "$kind-agg.json"
	expect_rc "$kind-again" 0
	check "$kind-again.json" \
		"r['ranks'][0]['warnings'] == load('$kind-agg.json')['ranks'][0]['warnings']" \
		"the same warnings after a second matching" \
		"sum('have no match' in w for w in r['ranks'][0]['warnings']) == $N" "$N warnings"

	ratio "vanalyze $kind" "$VANALYZE -q --full --json o.json $kind-1/rank0.json $kind-1/rank1.json" \
		"$VANALYZE -q --full --json o.json $kind-4/rank0.json $kind-4/rank1.json"
	ratio "vaggregate $kind" "$VAGGREGATE -q --full --json o.json $kind-1-map" \
		"$VAGGREGATE -q --full --json o.json $kind-4-map"
	ratio "vcompare $kind" "$VCOMPARE -q --full $kind-1 $kind-1" "$VCOMPARE -q --full $kind-4 $kind-4"
done
echo ok
