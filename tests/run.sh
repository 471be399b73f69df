#!/usr/bin/env bash
# Run every test layer for each build directory given:
#
#   tests/run.sh BUILD_DIR...        (relative to the repository root)
#
# For each BUILD_DIR: the unit-test binaries BUILD_DIR/tests/test_* (exit 0
# passes), then tests/cli/NNN-*.sh in name order, two at a time, each from a
# fresh temporary directory with VT_BUILD, VT_ROOT and VT_SHARED set (exit 0
# passes, 77 skips and prints its reason as the last line).  Then one short
# fuzz run when tests/fuzz/run.sh and build-fuzz/ exist.  Results are printed
# in name order; the last line is "N passed, N failed[, N skipped]" and the
# exit status is 1 when anything failed.
#
# Environment: VT_SHARED (default: ../shared beside the repository),
# VT_TEST_TIMEOUT (seconds per test, default 900), CI.  Without the shared
# real traces, every test that reads them skips, and the run says so at its
# start and end, with the count; with CI=true such a skip is a failure, so a
# CI machine without ../shared cannot pass on the tests that remain.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd -P) || exit 2
cd "$ROOT" || exit 2

if [ -z "${VT_SHARED:-}" ]; then
	VT_SHARED=$ROOT/../shared
fi
if [ -d "$VT_SHARED" ]; then
	VT_SHARED=$(cd "$VT_SHARED" && pwd -P)
elif [ "${VT_SHARED#/}" = "$VT_SHARED" ]; then
	VT_SHARED=$PWD/$VT_SHARED
fi
export VT_SHARED VT_ROOT=$ROOT

if [ $# -eq 0 ]; then
	echo "usage: tests/run.sh BUILD_DIR..." >&2
	exit 2
fi

TIMEOUT=${VT_TEST_TIMEOUT:-900}
if command -v timeout >/dev/null 2>&1; then
	run_limited() { timeout -k 10 "$TIMEOUT" "$@"; }
else
	run_limited() { "$@"; }
fi

# Logs, per-test state and the oracle cache shared by all tests of this run
# and both builds (tests/vtcheck.py's cached(): the sanitizer build reads
# the plain build's oracle results back instead of computing them again).
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vtrun.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/oracle-cache"
export VT_ORACLE_CACHE=$WORK/oracle-cache

passed=0
failed=0
skipped=0

# Loud, at the start and again at the end: a run without the real traces
# checks much less than its "passed" count suggests.
have_shared=1
[ -d "$VT_SHARED/traces/public" ] && [ -d "$VT_SHARED/traces/torch-cpu" ] || have_shared=0
no_shared_banner() {
	[ "$have_shared" = 1 ] && return
	echo "**********************************************************************"
	echo "** no shared traces at $VT_SHARED/traces: the tests that read real"
	echo "** traces skip$( [ "${CI:-}" = true ] && echo ', and with CI=true each such skip fails')."
	echo "** They are the team's shared folder, kept beside the repository as"
	echo "** ../shared (or give its place in VT_SHARED); tests/README.md says"
	echo "** what it holds and where each trace comes from."
	echo "**********************************************************************"
}
no_shared_banner

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fs", b - a }'; }

# report LABEL RC LOG SECONDS [AT]: print one result line (after AT, the
# progress "[12/160] ") and count it.
report() {
	local label=$1 rc=$2 log=$3 secs=$4 at=${5:-} reason
	case $rc in
	0)
		echo "${at}ok   $label ($secs)"
		passed=$((passed + 1))
		;;
	77)
		reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		reason=${reason#skip: }
		reason=${reason:-no reason given}
		if [ "${CI:-}" = true ] && [ "$have_shared" = 0 ]; then
			echo "${at}FAIL $label: skipped with CI=true: $reason"
			failed=$((failed + 1))
			return
		fi
		echo "${at}skip $label: $reason"
		echo "$reason" >>"$WORK/skip-reasons"
		skipped=$((skipped + 1))
		;;
	*)
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			echo "${at}FAIL $label (timed out after ${TIMEOUT}s, exit $rc)"
		else
			echo "${at}FAIL $label (exit $rc, $secs)"
		fi
		tail -n 30 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
		;;
	esac
}

# run_one LABEL DIR CMD...: run CMD in DIR, output to $WORK/LABEL.log, exit
# status to .rc and time to .time (written last: their presence means done).
run_one() {
	local label=$1 dir=$2 key
	shift 2
	key=$WORK/$(echo "$label" | tr '/' '_')
	local t0 t1 rc
	t0=$(now)
	(cd "$dir" && run_limited "$@") </dev/null >"$key.log" 2>&1
	rc=$?
	t1=$(now)
	elapsed "$t0" "$t1" >"$key.time"
	echo "$rc" >"$key.rc.tmp" && mv "$key.rc.tmp" "$key.rc"
}

result_of() {
	local key
	key=$WORK/$(echo "$1" | tr '/' '_')
	report "$1" "$(cat "$key.rc")" "$key.log" "$(cat "$key.time")" "${2:-}"
}

is_done() {
	[ -e "$WORK/$(echo "$1" | tr '/' '_').rc" ]
}

# A CLI test: fresh working directory, removed afterwards.
run_cli() {
	local label=$1 script=$2 build_abs=$3 tmp
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vtcli.XXXXXX")
	VT_BUILD=$build_abs run_one "$label" "$tmp" bash "$script"
	rm -rf "$tmp"
}

run_build() {
	local build=$1 build_abs t name label sanitized=0
	build_abs=$(cd "$build" && pwd -P)
	case $(basename "$build") in *san*) sanitized=1 ;; esac

	for t in "$build"/tests/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		label=$build/$(basename "$t")
		run_one "$label" "$ROOT" "$build_abs/tests/$(basename "$t")"
		result_of "$label"
	done

	# A test whose header says "# plain build only" gains nothing from the
	# sanitizers (it checks documents, installs, or drives another program)
	# and runs in the plain build alone.
	local scripts=() labels=() plain_only=0
	for t in tests/cli/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ "$name" = lib ] && continue
		if [ "$sanitized" = 1 ] && head -n 3 "$t" | grep -q '^# plain build only'; then
			plain_only=$((plain_only + 1))
			continue
		fi
		scripts+=("$ROOT/$t")
		labels+=("$build/$name")
	done
	[ "$plain_only" -gt 0 ] && echo "note: $build: $plain_only CLI tests run in the plain build only"

	# Two at a time, results in name order.
	local n=${#scripts[@]} next_start=0 next_print=0 running i
	while [ "$next_print" -lt "$n" ]; do
		running=0
		for ((i = next_print; i < next_start; i++)); do
			is_done "${labels[i]}" || running=$((running + 1))
		done
		while [ "$running" -lt 2 ] && [ "$next_start" -lt "$n" ]; do
			run_cli "${labels[next_start]}" "${scripts[next_start]}" "$build_abs" &
			next_start=$((next_start + 1))
			running=$((running + 1))
		done
		while [ "$next_print" -lt "$next_start" ] && is_done "${labels[next_print]}"; do
			# the CLI tests take minutes: each line says how far the run is
			result_of "${labels[next_print]}" "[$((next_print + 1))/$n] "
			next_print=$((next_print + 1))
		done
		[ "$next_print" -lt "$n" ] && sleep 0.1
	done
	wait
}

for build in "$@"; do
	build=${build%/}
	if [ ! -d "$build" ]; then
		echo "note: $build: no such directory, skipped"
		continue
	fi
	case $(basename "$build") in
	*san*)
		(
			export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
			export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
			run_build "$build"
			echo "$passed $failed $skipped" >"$WORK/counts"
		)
		read -r passed failed skipped <"$WORK/counts"
		;;
	*)
		run_build "$build"
		;;
	esac
done

if [ -x tests/fuzz/run.sh ] && [ -d build-fuzz ]; then
	# the tests are done: every core fuzzes, each target still for 10 s
	VT_FUZZ_JOBS=$(nproc 2>/dev/null || echo 1) run_one fuzz-short "$ROOT" tests/fuzz/run.sh build-fuzz 10
	result_of fuzz-short
fi

if [ "$skipped" -gt 0 ]; then
	echo "skipped, by reason:"
	sort "$WORK/skip-reasons" | uniq -c | sort -rn | sed 's/^ */  /'
fi
no_shared_banner
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
