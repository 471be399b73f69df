#!/usr/bin/env bash
# Outputs under attack (issue 18, items 3, 4 and 9).  Two vanalyze runs
# writing one --html path at once each leave a whole page (the last rename
# wins), never one spliced from both; a link planted at the old temporary
# name PATH.tmp, or at PATH itself, never gets its target written; and a
# standard output that cannot be written (/dev/full) is an exit status and
# a message, while a closed pipe stays quiet.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
need_shared
A=$TORCH_CPU/dev-2rank-default-rank0.trace.json.gz
B=$TORCH_CPU/dev-2rank-default-rank1.trace.json.gz

# --- 3: concurrent writers of one path ---------------------------------------
va refa --html a.html "$A"
expect_rc refa 0
va refb --html b.html "$B"
expect_rc refb 0
cmp -s a.html b.html && die "the two reference pages are the same"
for i in $(seq 1 25); do
	"$VANALYZE" -q --html same.html "$A" 2>/dev/null &
	"$VANALYZE" -q --html same.html "$B" 2>/dev/null &
	wait
	cmp -s same.html a.html || cmp -s same.html b.html ||
		die "round $i: two writers left a page that is neither run's ($(stat -c %s same.html) bytes)"
done
left=$(ls -A | grep -F '.tmp' || true)
[ -z "$left" ] || die "temporary files left behind: $left"
echo "pass: two writers of one path, 25 rounds: each time one whole page"

# --- 4: planted links ----------------------------------------------------------
echo precious >victim
ln -s victim out.json.tmp
echo precious >victim2
ln -s victim2 out.json
va link --json out.json "$A"
expect_rc link 0
[ "$(cat victim)" = precious ] || die "the target of a link at PATH.tmp was written"
[ "$(cat victim2)" = precious ] || die "the target of a link at PATH was written through"
[ -f out.json ] && [ ! -L out.json ] || die "PATH is not the new report"
check out.json 'r["schema"] == "vtrace.report/1"' "the report replaced the link"
echo "pass: links planted at PATH.tmp and PATH are never followed"

# --- 9: standard output errors --------------------------------------------------
va ref --json ref.report "$A"
for p in vanalyze vaggregate vcompare; do
	case $p in
	vanalyze) run_as full bash -c '"$1" "$2" >/dev/full' _ "$VANALYZE" "$A" ;;
	vaggregate) run_as full bash -c '"$1" ref.report >/dev/full' _ "$VAGGREGATE" ;;
	vcompare) run_as full bash -c '"$1" ref.report ref.report >/dev/full' _ "$VCOMPARE" ;;
	esac
	# vcompare follows diff(1): 2 is trouble, 1 would read as a regression
	expect_rc full "$([ $p = vcompare ] && echo 2 || echo 1)"
	expect_line full.err "^$p: cannot write to standard output" "$p > /dev/full"
	run_as pipe bash -c 'set -o pipefail; "$1" "$2" | head -c 1 >/dev/null' _ "$VANALYZE" "$A"
	no_line pipe.err 'cannot write' "a closed pipe is no error to report"
done
echo "pass: writing standard output to /dev/full exits 1 (vcompare 2) with a message"
