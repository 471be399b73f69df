#!/usr/bin/env bash
# A file-size limit (ulimit -f) is an output failure like a full disk: a
# write past it raised SIGXFSZ, which killed every program silently (exit
# 153) with its PATH.tmp.XXXXXX left behind.  Now each says "cannot write
# 'PATH': File too large", exits 1 (vcompare 2), leaves no temporary and
# the previous output as it was: vanalyze (--json, --out, standard output),
# vaggregate, vcompare and vtrace-export (plain and gzip).
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
DEMO=$VT_ROOT/testdata/demo
R0=$DEMO/fastvideo-rank0.trace.json.gz
R1=$DEMO/fastvideo-rank1.trace.json.gz

# limited NAME KB CMD...: run_as, with writes limited to KB KiB.  stderr
# goes through a pipe to a process without the limit, so that the messages
# themselves are never cut by it.
limited() {
	local name=$1 kb=$2
	shift 2
	(
		ulimit -f "$kb" || exit 99
		exec "$@"
	) 2>&1 >"$name.out" </dev/null | cat >"$name.err"
	rc=${PIPESTATUS[0]}
	echo "$rc" >"$name.rc"
}

# refused NAME CODE SHOWN: exit CODE, killed by no signal, one line saying
# SHOWN cannot be written for its size, and no temporary anywhere below.
refused() {
	[ "$(cat "$1.rc")" != 99 ] || die "$1: ulimit -f refused"
	expect_rc "$1" "$2"
	expect_line "$1.err" "^[a-z-]+: cannot write '$(ere_quote "$3")': File too large$" "$1"
	left=$(find . -name '*.tmp.*')
	[ -z "$left" ] || die "$1: temporaries left behind: $left"
}

# The previous outputs, each to be left as it was.
va prev -q -j 1 --no-charts --out prevdir --json prev.json "$R0"
expect_rc prev 0
va prev1 -q -j 1 --json prev1.json "$R1"
expect_rc prev1 0
mkdir reports && cp prev.json prev1.json reports/
cp -r prevdir keepdir
cp prev.json keep.json

limited json 4 "$VANALYZE" -q -j 1 --json prev.json "$R0"
refused json 1 prev.json
cmp -s prev.json keep.json || die "--json: the previous report was replaced"

limited out 4 "$VANALYZE" -q -j 1 --no-charts --out prevdir "$R0"
refused out 1 prevdir/report.json
diff -r prevdir keepdir >/dev/null || die "--out: the previous directory changed"

limited stdout 4 "$VANALYZE" -q -j 1 --json - "$R0"
refused stdout 1 "standard output"
echo "pass: vanalyze past a file-size limit: --json, --out and standard output refused, said"

limited agg 4 "$VAGGREGATE" -q --no-charts --out prevdir reports
refused agg 1 prevdir/report.json
diff -r prevdir keepdir >/dev/null || die "vaggregate --out: the previous directory changed"

limited cmp 4 "$VCOMPARE" -q --json prev.json reports/prev1.json reports/prev.json
refused cmp 2 prev.json
cmp -s prev.json keep.json || die "vcompare --json: the previous file was replaced"
echo "pass: vaggregate and vcompare past a file-size limit: refused, said"

"$VT_BUILD/tests/collector_demo" vtr demo >/dev/null 2>&1 || die "collector_demo"
for out in x.json x.json.gz; do
	# the gzip export of the small demo is under 1 KiB: no byte may be written
	kb=$([ $out = x.json ] && echo 1 || echo 0)
	limited "export-$out" "$kb" "$VT_BUILD/vtrace-export" vtr/demo-rank0.vtr -o "$out"
	refused "export-$out" 1 "$out"
	[ ! -e "$out" ] || die "vtrace-export -o $out: a cut output"
done
echo "pass: vtrace-export past a file-size limit: refused, said, nothing left"
