# Shared helpers for tests/cli/NNN-*.sh; source it first.
#
# tests/run.sh runs each test from a fresh temporary directory (the current
# directory, removed afterwards) with VT_BUILD, VT_ROOT and VT_SHARED set to
# absolute paths.  Exit 0 passes, 77 skips (the last line printed says why),
# anything else fails.
#
# Bash helpers: die, skip, need_shared, need_vanalyze, vanalyze, va (run and
# capture), vg and vc (the same for vaggregate and vcompare), run_as,
# need_vaggregate, need_vcompare, expect_rc,
# expect_line, no_line, check, pycheck.  The python3 helper tests/vtcheck.py
# (pycheck SUBCOMMAND ...) compares reports with tests/oracle.py:
#   pycheck each FILE...               vanalyze on each file alone vs the oracle
#   pycheck compare [--subset] REPORT FILE...
#                                      REPORT's ranks vs the oracle over FILE...
#                                      (in the order given to vanalyze); with
#                                      --subset, report ranks whose source the
#                                      oracle does not know are ignored
#   pycheck compare1 REPORT FILE [REPORT FILE]...
#                                      each REPORT is of FILE alone, complete,
#                                      and agrees with the oracle
#   pycheck assert REPORT EXPR WHAT... fail unless each EXPR holds (r: the report)
#   pycheck get REPORT EXPR            print EXPR (strings bare, else JSON)
#   pycheck same A B                   the JSON files hold equal values

set -u

: "${VT_ROOT:?VT_ROOT is not set; run tests through tests/run.sh}"
: "${VT_BUILD:?VT_BUILD is not set; run tests through tests/run.sh}"
VT_SHARED=${VT_SHARED:-$VT_ROOT/../shared}
TRACES=$VT_SHARED/traces
PUBLIC=$TRACES/public
TORCH_CPU=$TRACES/torch-cpu
ORACLE=$VT_ROOT/tests/oracle.py
VANALYZE=${VANALYZE:-$VT_BUILD/vanalyze}
export VT_ROOT VT_BUILD VT_SHARED VANALYZE ORACLE

case $(basename "$VT_BUILD") in
*san*) VT_SANITIZED=1 ;;
*) VT_SANITIZED=0 ;;
esac

die() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

need_shared() {
	[ -d "$TRACES/public" ] && [ -d "$TRACES/torch-cpu" ] ||
		skip "no shared traces at $TRACES"
}

need_vanalyze() {
	[ -x "$VANALYZE" ] || die "$VANALYZE is not built"
}

vanalyze() {
	"$VANALYZE" "$@"
}

# run_as NAME CMD ARGS...: run CMD ARGS with stdout in NAME.out, stderr in
# NAME.err and the exit status in NAME.rc (and $rc).  Never fails itself.
run_as() {
	local name=$1
	shift
	"$@" >"$name.out" 2>"$name.err" </dev/null
	rc=$?
	echo "$rc" >"$name.rc"
	return 0
}

# va, vg, vc NAME ARGS...: run_as for vanalyze, vaggregate and vcompare.
VAGGREGATE=${VAGGREGATE:-$VT_BUILD/vaggregate}
VCOMPARE=${VCOMPARE:-$VT_BUILD/vcompare}
va() {
	local name=$1
	shift
	run_as "$name" "$VANALYZE" "$@"
}
vg() {
	local name=$1
	shift
	run_as "$name" "$VAGGREGATE" "$@"
}
vc() {
	local name=$1
	shift
	run_as "$name" "$VCOMPARE" "$@"
}

need_vaggregate() {
	[ -x "$VAGGREGATE" ] || die "$VAGGREGATE is not built"
}

need_vcompare() {
	[ -x "$VCOMPARE" ] || die "$VCOMPARE is not built"
}

# A sanitizer report exits 1 like an input failure, so look for it too.
no_sanitizer_report() {
	if grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1.err"; then
		tail -n 40 "$1.err" >&2
		die "$1: sanitizer report"
	fi
}

# expect_rc NAME CODE: the exit status of run NAME was CODE.
expect_rc() {
	local got
	got=$(cat "$1.rc")
	no_sanitizer_report "$1"
	if [ "$got" != "$2" ]; then
		echo "--- stderr of $1:" >&2
		tail -n 20 "$1.err" >&2
		die "$1: exit status $got, expected $2"
	fi
}

# expect_line FILE ERE [WHAT]: some line of FILE matches the extended regex.
expect_line() {
	if ! grep -qE -- "$2" "$1"; then
		echo "--- $1:" >&2
		tail -n 20 "$1" >&2
		die "${3:-$1}: no line matches /$2/"
	fi
}

# no_line FILE ERE [WHAT]: no line of FILE matches.
no_line() {
	if grep -qE -- "$2" "$1"; then
		grep -E -- "$2" "$1" | head -n 5 >&2
		die "${3:-$1}: unexpected line matching /$2/"
	fi
}

# Escape a string for use inside an extended regex.
ere_quote() {
	printf '%s' "$1" | sed 's/[][\.*^$(){}?+|/]/\\&/g'
}

pycheck() {
	python3 "$VT_ROOT/tests/vtcheck.py" "$@"
}

# check REPORT EXPR WHAT [EXPR WHAT]...: die unless each python EXPR holds
# for the report r (also there: os, json, and load(PATH) for another report).
# One python process for all pairs.
check() {
	pycheck assert "$@" || die "$1: check failed (lines above)"
}

# map_reduce NAME RC FILE...: vanalyze over all FILEs at once (NAME.json)
# and each FILE alone (NAME-map/) merged by vaggregate (NAME-agg.json), each
# run exiting RC; the two reports must be the same bytes apart from the tool
# name: the reduce needs nothing but the per-rank reports.
map_reduce() {
	local name=$1 want=$2 i=0 f
	shift 2
	va "$name" -q -j 2 --json "$name.json" "$@"
	expect_rc "$name" "$want"
	mkdir -p "$name-map"
	for f in "$@"; do
		va "$name-map$i" -q -j 1 --json "$name-map/$i.json" "$f"
		[ -s "$name-map/$i.json" ] || die "$name: no report of $f alone"
		i=$((i + 1))
	done
	vg "$name-agg" -q --full --reports_dir "$name-map" --json "$name-agg.json"
	expect_rc "$name-agg" 0
	grep -v '"name": "va' "$name.json" >"$name.body"
	grep -v '"name": "va' "$name-agg.json" >"$name-agg.body"
	cmp -s "$name.body" "$name-agg.body" || {
		diff -u "$name.body" "$name-agg.body" | head -n 30 >&2
		die "$name: vanalyze over all and map + vaggregate differ"
	}
}
