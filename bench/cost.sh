#!/usr/bin/env bash
# bench/cost.sh BUILD_DIR [VANALYZE]: what each analysis costs, for `make bench`.
#
# On a small real-shaped trace (bench/gentraces.py, copies of the same
# source as run.sh's, VT_COST_SIZE of text, default 16M; cached in
# BUILD_DIR/bench/), one file at -j 1, per analysis:
#   - bytes per event kept: the live heap its collector added over the
#     read (vanalyze with VT_BENCH_COST set says it), over the trace's
#     events: what its records weigh at the end of the read;
#   - instructions per byte of text: callgrind, collecting only inside the
#     analysis's collect and finish functions (--toggle-collect), over the
#     bytes of text.  cpuops_finish() runs replay's matching: cpuops' row
#     is less replay's finish, which has its own row.
# Then the whole run's instructions per byte (reader included).  Needs
# valgrind; without it, the bytes only.  VANALYZE (default BUILD_DIR's)
# measures another build, such as an older one: one that says no bytes gets
# its instructions only.  doc/performance.md has the method.
set -eu

die() {
	echo "cost: $*" >&2
	exit 1
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/cost.sh BUILD_DIR [VANALYZE]" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ -d "$1" ] || die "no build directory '$1'"
BUILD=$(cd "$1" && pwd -P)
SIZE=${VT_COST_SIZE:-16M}
SOURCE=${VT_BENCH_SOURCE:-${VT_SHARED:-$ROOT/../shared}/traces/public/facebookresearch__HolisticTraceAnalysis/tests__data__df_index_resolver__df_index_resolver.json.gz}
GEN=$ROOT/bench/gentraces.py
VA=${2:-$BUILD/vanalyze}

[ -x "$VA" ] || die "'$VA' is missing; build it first"
[ -f "$SOURCE" ] || die "no trace to replicate at $SOURCE (set VT_BENCH_SOURCE)"
OUT=$BUILD/bench
mkdir -p "$OUT"
TRACE=$OUT/cost-$SIZE.json.gz
if [ ! -f "$TRACE" ] || [ "$GEN" -nt "$TRACE" ] || [ "$SOURCE" -nt "$TRACE" ]; then
	echo "cost: generating a $SIZE real-shaped trace" >&2
	python3 "$GEN" real "$SOURCE" "$TRACE" "$SIZE" 2>/dev/null || die "gentraces.py real failed"
fi
TEXT=$(gzip -dc "$TRACE" | wc -c | tr -d ' ')

# The analyses, each with its collect and finish functions.
ANALYSES="gpu cpuops replay phases calls launches memory comm idle kctx"
declare -A FUNCS=(
	[gpu]="gpu_collect gpu_finish"
	[cpuops]="cpuops_collect cpuops_finish cpuops_perf_steps"
	[replay]="replay_collect replay_windows replay_finish"
	[phases]="phases_collect phases_finish"
	[calls]="calls_collect"
	[launches]="launches_collect launches_link launches_place"
	[memory]="memory_collect memory_finish"
	[comm]="comm_collect comm_finish"
	[idle]="idle_collect idle_prepare idle_finish"
	[kctx]="kctx_collect kctx_finish"
)

# Bytes kept: "events N gpu B cpuops B ..." from vanalyze's cost line.
line=$(VT_BENCH_COST=1 "$VA" -q -j 1 --json "$OUT/cost-report.json" "$TRACE" 2>&1 >/dev/null |
	sed -n 's/.*: cost: //p')
declare -A KEPT
# shellcheck disable=SC2086
set -- $line
while [ $# -ge 2 ]; do
	KEPT[$1]=$2
	shift 2
done
EVENTS=${KEPT[events]:-0}

# instructions FUNC...: the instructions callgrind counts inside FUNC... (all when none).
instructions() {
	local args=() f
	for f in "$@"; do
		args+=("--toggle-collect=$f")
	done
	if [ $# -gt 0 ]; then
		args+=("--collect-atstart=no")
	fi
	valgrind --tool=callgrind --callgrind-out-file="$OUT/cost.callgrind" "${args[@]}" \
		"$VA" -q -j 1 --json "$OUT/cost-report.json" "$TRACE" >/dev/null 2>"$OUT/cost.err" ||
		die "valgrind failed: $(tail -n 3 "$OUT/cost.err")"
	awk '/^(totals|summary):/ { n = $2 } END { print n + 0 }' "$OUT/cost.callgrind"
}

declare -A INSNS
HAVE_VG=0
if command -v valgrind >/dev/null 2>&1; then
	HAVE_VG=1
	echo "cost: callgrind, one run per analysis (a minute or two)" >&2
	for a in $ANALYSES; do
		# shellcheck disable=SC2086
		INSNS[$a]=$(instructions ${FUNCS[$a]})
	done
	INSNS[replay_finish]=$(instructions replay_windows replay_finish)
	INSNS[cpuops]=$((INSNS[cpuops] - INSNS[replay_finish]))
	INSNS[all]=$(instructions)
fi

printf '\nper analysis, %s bytes of real-shaped text, %s events, one file at -j 1\n' \
	"$TEXT" "${KEPT[events]:-unknown}"
printf '%-10s %16s %14s\n' analysis "bytes/event kept" "instr/byte"
sum_b=0
sum_i=0
for a in $ANALYSES; do
	b=${KEPT[$a]:-0}
	sum_b=$((sum_b + b))
	if [ "$HAVE_VG" = 1 ]; then
		sum_i=$((sum_i + INSNS[$a]))
		ipb=$(awk -v i="${INSNS[$a]}" -v t="$TEXT" 'BEGIN { printf "%.2f", i / t }')
	else
		ipb=n/a
	fi
	printf '%-10s %16s %14s\n' "$a" "$(awk -v b="$b" -v e="$EVENTS" \
		'BEGIN { if (e) printf "%.2f", b / e; else printf "n/a" }')" "$ipb"
done
printf '%-10s %16s %14s\n' "analyses" "$(awk -v b="$sum_b" -v e="$EVENTS" \
	'BEGIN { if (e) printf "%.2f", b / e; else printf "n/a" }')" \
	"$([ "$HAVE_VG" = 1 ] && awk -v i="$sum_i" -v t="$TEXT" 'BEGIN { printf "%.2f", i / t }' ||
		echo n/a)"
if [ "$HAVE_VG" = 1 ]; then
	printf '%-10s %16s %14s\n' "whole run" "" "$(awk -v i="${INSNS[all]}" -v t="$TEXT" \
		'BEGIN { printf "%.2f", i / t }')"
fi
