#!/usr/bin/env bash
# bench/jcurve.sh BUILD_DIR: the reader's -j curve, for a machine with many
# cores (make bench runs on two; this is not part of it).
#
# vanalyze at each -j of $VT_JCURVE_J (default "1 2 4 8 16") on one
# real-shaped trace of $VT_BENCH_SIZE (default 1G; bench/run.sh's, cached
# in BUILD_DIR/bench/) and on $VT_JCURVE_FILES (default 16) real-shaped
# files of a share of that size each (at least one whole copy of the
# source, 54 MB of text, so 16 files are about 0.9 GB at any smaller size):
# best wall time of $VT_BENCH_RUNS (default 3), MB/s of text, the speed-up
# over -j 1 and the peak RSS.  Beside them the ceiling of one file, which
# one thread inflates: inflate-only with zlib and with ISA-L.  Every -j's
# report of the one file must be byte-identical to -j 1's.  Prints a table
# in Markdown for doc/performance.md.  MB is 1e6 bytes.
set -eu

BENCH=jcurve
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ]; then
	echo "usage: bench/jcurve.sh BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ -d "$1" ] || die "no build directory '$1'; run 'make bench' or 'make all inflate_only'"
BUILD=$(cd "$1" && pwd -P)
SIZE=${VT_BENCH_SIZE:-1G}
RUNS=${VT_BENCH_RUNS:-3}
JS=${VT_JCURVE_J:-1 2 4 8 16}
NFILES=${VT_JCURVE_FILES:-16}
SOURCE=${VT_BENCH_SOURCE:-${VT_SHARED:-$ROOT/../shared}/traces/public/facebookresearch__HolisticTraceAnalysis/tests__data__df_index_resolver__df_index_resolver.json.gz}
GEN=$ROOT/bench/gentraces.py

for tool in inflate_only vanalyze; do
	[ -x "$BUILD/$tool" ] || die "'$1/$tool' is missing; build it first"
done
[ -f "$SOURCE" ] || die "no trace to replicate at $SOURCE (set VT_BENCH_SOURCE)"
case $NFILES in '' | *[!0-9]* | 0) die "VT_JCURVE_FILES must be a positive number" ;; esac
for j in $JS; do
	case $j in '' | *[!0-9]* | 0) die "VT_JCURVE_J: '$j' is not a thread count" ;; esac
done

OUT=$BUILD/bench
mkdir -p "$OUT"
SHARE=$(python3 -c "import sys; sys.path.insert(0, '$ROOT/bench'); \
import gentraces; print(gentraces.parse_size('$SIZE') // $NFILES)")

# gen FILE SIZE [RANK]: a real-shaped trace, unless one newer than its makers is there.
gen() {
	fresh "$1" "$GEN" "$SOURCE" && return 0
	echo "jcurve: generating $(basename "$1")" >&2
	python3 "$GEN" real "$SOURCE" "$@" >/dev/null || die "gentraces.py real failed"
}

ONE=$OUT/real-$SIZE.json.gz
gen "$ONE" "$SIZE"
MANY=()
for ((r = 0; r < NFILES; r++)); do
	f=$OUT/real$NFILES-$SIZE-rank$r.json.gz
	MANY+=("$f")
	gen "$f" "$SHARE" "$r"
done

# text_of FILE...: the bytes of text they hold together.
text_of() {
	local total=0 f
	for f in "$@"; do
		# shellcheck disable=SC2046
		set -- $("$BUILD/inflate_only" "$f" --engine zlib)
		total=$((total + $1))
	done
	echo "$total"
}

# inflate ENGINE: one file's best inflate-only MB/s, or n/a (built without ISA-L).
inflate() {
	local engine=$1 b="" i line
	for ((i = 0; i < RUNS; i++)); do
		line=$("$BUILD/inflate_only" "$ONE" --engine "$engine" 2>/dev/null) ||
			{ echo n/a; return; }
		# shellcheck disable=SC2086
		set -- $line	# bytes out, seconds, MB/s
		b=$(awk -v a="$b" -v x="$3" 'BEGIN { print (a == "" || x > a) ? x : a }')
	done
	echo "$b"
}

ONE_BYTES=$(text_of "$ONE")
MANY_BYTES=$(text_of "${MANY[@]}")
echo "jcurve: inflate only (one thread)" >&2
ZLIB=$(inflate zlib)
ISAL=$(inflate isal)

rows=""
base1="" basem="" same=identical
for j in $JS; do
	echo "jcurve: vanalyze -j $j" >&2
	read -r s1 kb1 < <(analyze "$j" "$OUT/jcurve-one-j$j.json" "$ONE")
	read -r sm kbm < <(analyze "$j" "$OUT/jcurve-many-j$j.json" "${MANY[@]}")
	[ -n "$base1" ] || { base1=$s1; basem=$sm; first=$j; }
	cmp -s "$OUT/jcurve-one-j$first.json" "$OUT/jcurve-one-j$j.json" || same="DIFFERENT at -j $j"
	rows="$rows$(awk -v j="$j" -v s1="$s1" -v b1="$base1" -v n1="$ONE_BYTES" -v k1="$kb1" \
		-v sm="$sm" -v bm="$basem" -v nm="$MANY_BYTES" -v km="$kbm" 'BEGIN {
		printf "| %d | %.0f | %.2f× | %.0f MB | %.0f | %.2f× | %.0f MB |\n",
			j, n1 / s1 / 1e6, b1 / s1, k1 / 1024, nm / sm / 1e6, bm / sm, km / 1024 }')
"
done

printf '\n%s cores; one file: %s bytes of text; %s files: %s bytes; best of %s\n' \
	"$(nproc)" "$ONE_BYTES" "$NFILES" "$MANY_BYTES" "$RUNS"
printf 'one file inflate-only, one thread: zlib %s MB/s, ISA-L %s MB/s\n\n' "$ZLIB" "$ISAL"
echo "| -j | one file MB/s | speed-up | peak RSS | $NFILES files MB/s | speed-up | peak RSS |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
echo
echo "reports of the one file at every -j: $same"
[ "$same" = identical ]
