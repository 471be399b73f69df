# shellcheck shell=bash
# bench/lib.sh: what the bench scripts share; sourced, not run.
#
# die MSG, fresh FILE DEP..., vanalyze_once and analyze.  The caller sets
# BENCH (its name in messages), and before calling the last two ROOT,
# BUILD (with vanalyze), OUT (scratch files) and RUNS.

die() {
	echo "$BENCH: $*" >&2
	exit 1
}

# fresh FILE DEP...: FILE exists and is newer than every DEP.
fresh() {
	local f=$1 d
	shift
	[ -f "$f" ] || return 1
	for d in "$@"; do
		[ "$d" -nt "$f" ] && return 1
	done
	return 0
}

# vanalyze_once J REPORT FILE...: prints "seconds peak-KiB", the seconds to
# the millisecond (bench/timed.py: GNU time's centiseconds are 1.5 % of a
# -j 2 run).  The report goes to a real file, not /dev/null: the writer
# renames PATH.tmp over PATH.
vanalyze_once() {
	local j=$1 report=$2 rc=0
	shift 2
	python3 "$ROOT/bench/timed.py" "$OUT/time.out" \
		"$BUILD/vanalyze" -j "$j" --json "$report" "$@" >/dev/null 2>"$OUT/vanalyze.err" ||
		rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 5 "$OUT/vanalyze.err" >&2
		die "vanalyze -j $j exited with status $rc"
	fi
	cat "$OUT/time.out"
}

# analyze J REPORT FILE...: best wall seconds of $RUNS and the largest peak RSS.
analyze() {
	local j=$1 report=$2 best="" rss=0 i secs kb
	shift 2
	for ((i = 0; i < RUNS; i++)); do
		read -r secs kb < <(vanalyze_once "$j" "$report" "$@")
		best=$(awk -v a="$best" -v b="$secs" 'BEGIN { print (a == "" || b < a) ? b : a }')
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	echo "$best $rss"
}
