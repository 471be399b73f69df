#!/usr/bin/env bash
# vaggregate refuses silent gaps: on the 8 DLRM rank reports with ranks 2
# and 5 taken away it names both (from the world_size the traces record,
# or --expect-ranks), exits 1, and still writes what it merged; a report
# with no ranks is an error naming its file; a cut-off rank is named as
# incomplete; reports that disagree on the world size are named; a bad
# --expect-ranks is a usage error.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

i=0
for f in "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz; do
	mkdir -p "r/$i"
	"$VANALYZE" -q -j 1 --json "r/$i/report.json" "$f" || die "vanalyze $f"
	i=$((i + 1))
done
check r/0/report.json 'r["inputs"][0]["world_size"] == 8' "world_size recorded from distributedInfo"

vg whole --reports_dir r
expect_rc whole 0
no_line whole.err 'missing' "a whole run"

rm -r r/2 r/5
vg gap --reports_dir r --json gap.json
expect_rc gap 1
expect_line gap.err '^vaggregate: 2 of 8 ranks missing \(world_size 8\): ranks 2, 5$' "missing ranks"
check gap.json 'len(r["ranks"]) == 6' "what was read is still merged and written"

vg more --reports_dir r --expect-ranks 10 -q
expect_rc more 1
expect_line more.err '^vaggregate: 4 of 10 ranks missing \(--expect-ranks 10\): ranks 2, 5, 8-9$' \
	"--expect-ranks"
vg fewer --reports_dir r --expect-ranks 6 -q
expect_rc fewer 1
expect_line fewer.err 'ranks outside 0-5 \(--expect-ranks 6\): 6-7$' "ranks outside the run"

printf '{"schema": "vtrace.report/1", "tool": {"name": "vanalyze", "version": "0"}, "inputs": [], "ranks": []}\n' >r/empty.json
vg empty --reports_dir r --expect-ranks 8 -q
expect_rc empty 1
expect_line empty.err '^vaggregate: r/empty.json: the report holds no ranks' "a report without ranks"
rm r/empty.json

# rank 3's trace cut in the middle: its report says incomplete
python3 - "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker3*.json.gz <<'PY' || die "cutting a trace"
import gzip, sys
t = gzip.open(sys.argv[1]).read()
open("cut3.json", "wb").write(t[: len(t) // 2])
PY
mkdir -p r/3 r/2 r/5
"$VANALYZE" -q --json r/3/report.json cut3.json
check r/3/report.json 'r["ranks"][0]["rank"] == 3 and not r["ranks"][0]["complete"]' "a cut-off rank 3"
for k in 2 5; do
	"$VANALYZE" -q --json "r/$k/report.json" "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker"$k"_*.json.gz
done
vg cut --reports_dir r -q
expect_rc cut 0
expect_line cut.err '^vaggregate: warning: 1 incomplete rank \(cut-off traces; .*\): 3$' "incomplete rank"

# a report of another run, of 16 ranks
python3 - r/7/report.json <<'PY' || die "editing a report"
import json, sys
r = json.load(open(sys.argv[1]))
r["inputs"][0]["world_size"] = 16
r["inputs"][0]["rank"] = r["ranks"][0]["rank"] = 9
r["inputs"][0]["path"] = r["ranks"][0]["source"] = "other-run.trace.json.gz"
json.dump(r, open("other.json", "w"))
PY
mkdir r/other && mv other.json r/other/report.json
vg disagree --reports_dir r -q
expect_rc disagree 1
expect_line disagree.err 'the reports disagree on the world size: 8 in .* \(rank 0\), 16 in .other-run\.trace\.json\.gz. \(rank 9\)' \
	"disagreeing world sizes"

for bad in 0 -3 x 1e3; do
	vg "bad$bad" --reports_dir r --expect-ranks "$bad"
	expect_rc "bad$bad" 2
	expect_line "bad$bad.err" "^vaggregate: --expect-ranks wants a rank count from 1, not '$bad'" "usage"
done
echo "pass: missing, outside, empty, incomplete and disagreeing ranks named"

# A world size beyond any real job (more than 2^20 ranks) is warned about
# and ignored alike by vaggregate (a report claiming INT64_MAX, as vanalyze
# once wrote) and by vanalyze (the trace's distributedInfo); 2^20 is kept.
mkdir -p huge
python3 - r/0/report.json <<'PY' || die "editing a report"
import json, sys
r = json.load(open(sys.argv[1]))
r["inputs"][0]["world_size"] = 2**63 - 1
json.dump(r, open("huge/report.json", "w"))
PY
vg huge --reports_dir huge --json huge.json
expect_rc huge 0
expect_line huge.err "^vaggregate: warning: '.*worker0.*' \\(rank 0\\): world_size 9223372036854775807 is beyond any real job \\(more than 1048576 ranks\\): ignored$" \
	"vaggregate: a world size of INT64_MAX"
no_line huge.err 'missing' "vaggregate: INT64_MAX believed"
no_line huge.out 'world size' "vaggregate's run line"
check huge.json 'r["run"]["world_size"] is None and r["inputs"][0]["world_size"] is None' \
	"vaggregate: the world size unknown"
python3 - "$VT_ROOT/testdata/gpu/pipeline.trace.json.gz" <<'PY' || die "editing a trace"
import gzip, json, sys
d = json.loads(gzip.open(sys.argv[1]).read())
for name, world in (("w63", 2**63 - 1), ("w20p1", 2**20 + 1), ("w20", 2**20)):
    d["distributedInfo"] = {"rank": 0, "world_size": world, "backend": "nccl"}
    with gzip.open(name + ".trace.json.gz", "wt") as f:
        json.dump(d, f)
PY
for w in 63:9223372036854775807 20p1:1048577; do
	va "w${w%%:*}" --json "w${w%%:*}.json" "w${w%%:*}.trace.json.gz"
	expect_rc "w${w%%:*}" 0
	expect_line "w${w%%:*}.err" "distributedInfo\.world_size ${w#*:} is beyond any real job \(more than 1048576 ranks\): ignored" \
		"vanalyze: world size ${w#*:}"
	no_line "w${w%%:*}.out" 'world size' "vanalyze's run line, world size ${w#*:}"
	check "w${w%%:*}.json" 'r["run"]["world_size"] is None and r["inputs"][0]["world_size"] is None' \
		"vanalyze: world size ${w#*:} unknown"
	mkdir -p "agg${w%%:*}" && cp "w${w%%:*}.json" "agg${w%%:*}/"
	vg "g${w%%:*}" -q --reports_dir "agg${w%%:*}"
	expect_rc "g${w%%:*}" 0
done
va w20 --json w20.json w20.trace.json.gz
expect_rc w20 0
no_line w20.err 'world_size' "vanalyze: world size 2^20"
check w20.json 'r["run"]["world_size"] == 1048576' "a world size of 2^20 kept"
echo "pass: implausible world sizes ignored by vanalyze and vaggregate"
