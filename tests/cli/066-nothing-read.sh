#!/usr/bin/env bash
# A run that reads nothing leaves the last good report alone.  With every
# input unreadable (not a trace, missing, an empty directory), vanalyze
# wrote an empty 0-rank report over the good one (--json, --html, --out)
# and printed an empty summary, and vaggregate did the same with "the
# other reports were merged" when none was.  Now each exits 1, says that
# nothing was written, and writes nothing, standard output included.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
R0=$VT_ROOT/testdata/demo/fastvideo-rank0.trace.json.gz

va good -q -j 1 --no-charts --out good --json good.json --html good.html "$R0"
expect_rc good 0
mkdir reports && cp good.json reports/
cp -r good keep && cp good.json keep.json && cp good.html keep.html
echo '{"traceEvents": [' >cut.json
printf 'not a trace\n' >bad.json
mkdir empty

# same WHAT: the good outputs are as they were, and nothing else appeared.
same() {
	diff -r good keep >/dev/null || die "$1: the good --out directory changed"
	cmp -s good.json keep.json || die "$1: the good --json report was replaced"
	cmp -s good.html keep.html || die "$1: the good --html page was replaced"
	left=$(find . -name '*.tmp.*')
	[ -z "$left" ] || die "$1: temporaries left: $left"
}

for set in "bad.json missing.json" "empty" "bad.json empty"; do
	# shellcheck disable=SC2086 # the inputs, split on purpose
	va "va" -j 1 --no-charts --out good --json good.json --html good.html $set
	expect_rc va 1
	expect_line va.err '^vanalyze: no input could be read: no report written$' "vanalyze $set"
	[ ! -s va.out ] || die "vanalyze $set: a summary of nothing: $(head -n 3 va.out)"
	same "vanalyze $set"
done
# a truncated trace is read in part: its rank is reported, as before
va cut -q -j 1 --json cut.report cut.json
expect_rc cut 1
check cut.report 'len(r["ranks"]) == 1' "the rank of a cut trace is kept"
echo "pass: vanalyze with no readable input writes nothing, says so, exits 1"

vg vg --no-charts --out good --json good.json --html good.html bad.json missing.json
expect_rc vg 1
expect_line vg.err '^vaggregate: no ranks to merge: .*; nothing written$' "vaggregate"
no_line vg.err 'the other reports were merged' "vaggregate with nothing merged"
[ ! -s vg.out ] || die "vaggregate: a summary of nothing: $(head -n 3 vg.out)"
same vaggregate
vg vgdir -q --no-charts --out good --reports_dir empty
expect_rc vgdir 1
same "vaggregate --reports_dir empty"
vg vgok -q --no-charts --expect-ranks 1 --out aggout --reports_dir reports
expect_rc vgok 0
check aggout/report.json 'len(r["ranks"]) == 1' "a report read is merged as before"
echo "pass: vaggregate with no readable report writes nothing, says so, exits 1"
