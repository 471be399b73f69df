#!/usr/bin/env bash
# bench/same_reports.sh OLD_VANALYZE NEW_VANALYZE [DIR...]
#
# A reader change must not change what vanalyze reports.  This runs both
# builds over every trace file under DIR (default: the shared traces), one
# file at a time, and compares report.json byte for byte: the old build at
# -j 1 against the new one at -j 1 and at -j 2, and the new one with every
# vector level of the scanner (VT_SIMD=scalar, sse2, avx2).  Prints one line
# per difference and a count; exits 1 if any report differs.
set -u

if [ $# -lt 2 ]; then
	echo "usage: bench/same_reports.sh OLD_VANALYZE NEW_VANALYZE [DIR...]" >&2
	exit 2
fi
OLD=$1
NEW=$2
shift 2
# A build directory in place of its vanalyze would run nothing, and two
# "no report" lines compare equal: 0 differences for no comparison.
for bin in "$OLD" "$NEW"; do
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		echo "same_reports: $bin is not a vanalyze binary (give BUILD/vanalyze)" >&2
		exit 2
	fi
done
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ $# -gt 0 ] || set -- "${VT_SHARED:-$ROOT/../shared}/traces"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run BIN OUT FILE J SIMD: the report of FILE, or the exit status in its place.
run() {
	local rc=0
	VT_SIMD=$5 "$1" -q -j "$4" --json "$2" "$3" >/dev/null 2>"$2.err" || rc=$?
	[ -f "$2" ] || echo "no report (exit status $rc)" >"$2"
}

n=0
bad=0
while IFS= read -r -d '' f; do
	n=$((n + 1))
	run "$OLD" "$TMP/old.json" "$f" 1 ""
	for v in "1 avx2" "2 avx2" "1 sse2" "1 scalar" "2 scalar"; do
		# shellcheck disable=SC2086
		set -- $v
		run "$NEW" "$TMP/new.json" "$f" "$1" "$2"
		if ! cmp -s "$TMP/old.json" "$TMP/new.json"; then
			echo "DIFFERENT: $f (new build, -j $1, VT_SIMD=$2)"
			bad=$((bad + 1))
		fi
		rm -f "$TMP/new.json"
	done
	rm -f "$TMP/old.json"
done < <(find "$@" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.vtr' \) \
	-print0 | sort -z)
echo "same_reports: $n files, $bad differences"
[ "$bad" -eq 0 ]
