#!/usr/bin/env bash
# vaggregate is the reduce of a map/reduce: vanalyze over the 8 DLRM rank
# files at once, and vanalyze on each file alone (the map, run here with
# xargs -P 2 as the recipe of doc/cluster.md does) followed by vaggregate, give the same
# report apart from the tool name: inputs, ranks, cross_rank, stragglers and
# suggestions equal, and the JSON bytes equal once the tool line is dropped.
# The same holds for report files given as arguments, in any order, and at
# -j 1 and -j 2.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

dlrm=("$PUBLIC"/facebookresearch__param/*dlrm*worker*.json.gz)
[ "${#dlrm[@]}" -eq 8 ] || die "expected 8 DLRM worker traces, found ${#dlrm[@]}"

# The map step as doc/cluster.md has it: a manifest, then one vanalyze per
# trace, two at a time, each report in reports/NNNNNN/ (vanalyze from
# $VANALYZE, not $PATH).
mkdir bin traces
ln -s "$VANALYZE" bin/vanalyze
cp "${dlrm[@]}" traces/
"$VT_ROOT/scripts/slurm/vtrace-manifest" traces >manifest.txt || die "vtrace-manifest failed"
nl -v0 -nrz -w6 manifest.txt | tr '\t' '\n' | PATH=$PWD/bin:$PATH xargs -d '\n' -n 2 -P 2 sh -c \
	'mkdir -p "reports/$1" && exec vanalyze -q -j 1 --json "reports/$1/report.json" -- "$2"' sh ||
	die "the map step failed"
[ "$(find reports -name report.json | wc -l)" -eq 8 ] || die "the map step did not write 8 reports"

mapfile -t copies <manifest.txt
va all -j 2 --json all.json "${copies[@]}"
expect_rc all 0
vg agg -j 2 --full --reports_dir reports --json agg.json
expect_rc agg 0
no_line agg.err '.' "vaggregate's stderr"

python3 - all.json agg.json <<'PY' || die "vanalyze at once and map + vaggregate differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if b["tool"]["name"] != "vaggregate" or a["tool"]["name"] != "vanalyze":
    sys.exit("tool names: %r, %r" % (a["tool"]["name"], b["tool"]["name"]))
for key in ("schema", "inputs", "ranks", "cross_rank", "stragglers", "suggestions"):
    if a.get(key) != b.get(key):
        sys.exit("%s differs" % key)
if set(a) != set(b):
    sys.exit("top-level keys differ: %s / %s" % (sorted(a), sorted(b)))
if len(a["cross_rank"]) < 20 or not a["stragglers"]:
    sys.exit("expected many cross-rank metrics and some stragglers on the DLRM set")
print("pass: %d ranks, %d cross-rank metrics, %d stragglers identical" % (
    len(a["ranks"]), len(a["cross_rank"]), len(a["stragglers"])))
PY
grep -v '"name": "va' all.json >all.body
grep -v '"name": "va' agg.json >agg.body
cmp -s all.body agg.body || die "the JSON texts differ beyond the tool name"
echo "pass: map with xargs -P 2, reduce with vaggregate"

# Report files as arguments, shuffled: the same bytes.  And -j 1.
mapfile -t files < <(find reports -name report.json | sort -r)
vg args -j 1 --full --json args.json "${files[@]}"
expect_rc args 0
cmp -s agg.json args.json || die "report files as arguments (-j 1) differ from --reports_dir (-j 2)"
echo "pass: files as arguments, -j 1 = -j 2"

# The summary names what was read.
expect_line agg.out '^8 reports, 8 ranks$' "summary header"
expect_line agg.out '^stragglers' "summary stragglers"
echo "pass: summary"
