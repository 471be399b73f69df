#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: what `make bench` runs.
#
# Generates (once; cached in bench/out/, regenerated when gentrace is newer)
# a 1-rank synthetic trace of at least 1 GiB of JSON text, then measures on
# that one file, best of 3 runs each:
#   - inflate only (no parsing) with zlib and with ISA-L: the ceiling;
#   - vanalyze -j 1 and -j 2: MB/s of uncompressed text (bytes_out of
#     inflate_only / vanalyze wall seconds) and peak RSS (/usr/bin/time %M);
#   - the -j 2 figure as a fraction of zlib inflate-only.
# MB is 1e6 bytes throughout.  The reports of -j 1 and -j 2 are compared too:
# they must be byte-identical.
#
# Environment: VT_BENCH_SIZE (default 1G) sets the trace size, for a quick
# trial; VT_BENCH_RUNS (default 3) the runs per figure.
set -eu

die() {
	echo "bench: $*" >&2
	exit 1
}

if [ $# -ne 1 ]; then
	echo "usage: bench/run.sh BUILD_DIR" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ -d "$1" ] || die "no build directory '$1'; run 'make bench'"
BUILD=$(cd "$1" && pwd -P)
SIZE=${VT_BENCH_SIZE:-1G}
RUNS=${VT_BENCH_RUNS:-3}

for tool in gentrace inflate_only vanalyze; do
	[ -x "$BUILD/$tool" ] ||
		die "'$1/$tool' is missing; build it first ('make bench' builds everything)"
done
[ -x /usr/bin/time ] ||
	die "/usr/bin/time is missing; install the Debian package 'time' (or run 'make deps')"

OUT=$ROOT/bench/out
mkdir -p "$OUT"
TRACE=$OUT/bench-rank0.trace.json.gz
TRUTH=$OUT/bench-truth.json
STAMP=$OUT/bench.size

# The trace is cached: regenerate it when it is missing or half-written (the
# truth file is written last), made for another size, or older than gentrace.
if [ ! -f "$TRACE" ] || [ ! -f "$TRUTH" ] || [ "$BUILD/gentrace" -nt "$TRACE" ] ||
	[ "$(cat "$STAMP" 2>/dev/null)" != "$SIZE" ]; then
	rm -f "$TRACE" "$TRUTH" "$STAMP"
	echo "bench: generating a $SIZE trace into bench/out/ (cached for later runs)" >&2
	t0=$(date +%s.%N)
	"$BUILD/gentrace" --ranks 1 --size "$SIZE" -o "$OUT/bench" ||
		die "gentrace failed"
	t1=$(date +%s.%N)
	echo "$SIZE" >"$STAMP"
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "bench: generated in %.1f s\n", b - a }' >&2
fi
COMPRESSED=$(wc -c <"$TRACE" | tr -d ' ')

# inflate_only: "best-MB/s bytes_out" of $RUNS, or "n/a" without ISA-L.
inflate_best() {
	local engine=$1 best="" bytes="" line i
	for ((i = 0; i < RUNS; i++)); do
		if ! line=$("$BUILD/inflate_only" "$TRACE" --engine "$engine" \
			2>"$OUT/inflate.err"); then
			# Built without ISA-L is not an error; anything else is.
			if grep -q "without ISA-L" "$OUT/inflate.err"; then
				echo "n/a"
				return 0
			fi
			cat "$OUT/inflate.err" >&2
			die "inflate_only --engine $engine failed"
		fi
		# shellcheck disable=SC2086
		set -- $line
		bytes=$1
		best=$(awk -v a="$best" -v b="$3" 'BEGIN { print (a == "" || b > a) ? b : a }')
	done
	echo "$best $bytes"
}

echo "bench: inflate only, zlib" >&2
res=$(inflate_best zlib)
read -r ZLIB BYTES <<<"$res"
echo "bench: inflate only, isa-l" >&2
res=$(inflate_best isal)
read -r ISAL _ <<<"$res"

# vanalyze -j N: best wall seconds of $RUNS and the largest peak RSS (KiB).
# The report goes to a real file, not /dev/null: the writer renames
# PATH.tmp over PATH, which must never happen to /dev/null.
analyze() {
	local j=$1 best="" rss=0 i secs kb rc
	for ((i = 0; i < RUNS; i++)); do
		rc=0
		/usr/bin/time -f '%e %M' -o "$OUT/time.out" \
			"$BUILD/vanalyze" -j "$j" --json "$OUT/report-j$j.json" "$TRACE" \
			>/dev/null 2>"$OUT/vanalyze-j$j.err" || rc=$?
		if [ "$rc" -ne 0 ]; then
			tail -n 5 "$OUT/vanalyze-j$j.err" >&2
			die "vanalyze -j $j exited with status $rc"
		fi
		# GNU time puts a "Command exited..." line first on failure: take the last.
		read -r secs kb < <(tail -n 1 "$OUT/time.out")
		best=$(awk -v a="$best" -v b="$secs" 'BEGIN { print (a == "" || b < a) ? b : a }')
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	echo "$best $rss"
}

echo "bench: vanalyze -j 1" >&2
res=$(analyze 1)
read -r J1_S J1_KB <<<"$res"
echo "bench: vanalyze -j 2" >&2
res=$(analyze 2)
read -r J2_S J2_KB <<<"$res"

# The VM's speed drifts by 20 % from minute to minute, which the "best of"
# figures above, taken minutes apart, carry into their ratio.  Back-to-back
# pairs of inflate-only and vanalyze -j 2 see the same machine: the median
# of their ratios is the figure to hold against the bar.
echo "bench: paired inflate-only zlib and vanalyze -j 2" >&2
PAIRS=""
for ((i = 0; i < RUNS; i++)); do
	# shellcheck disable=SC2046
	set -- $("$BUILD/inflate_only" "$TRACE" --engine zlib 2>/dev/null)
	t_inflate=$2
	/usr/bin/time -f '%e' -o "$OUT/time.out" "$BUILD/vanalyze" -j 2 \
		--json "$OUT/report-pair.json" "$TRACE" >/dev/null 2>&1 || die "vanalyze -j 2 failed"
	t_analyze=$(tail -n 1 "$OUT/time.out")
	PAIRS="$PAIRS $(awk -v a="$t_inflate" -v b="$t_analyze" 'BEGIN { printf "%.2f", a / b }')"
done
PAIRED=$(printf '%s\n' $PAIRS | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')

if cmp -s "$OUT/report-j1.json" "$OUT/report-j2.json"; then
	SAME="identical"
else
	SAME="DIFFERENT (they must be identical)"
fi

cpu=$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
[ -n "$cpu" ] || cpu=$(uname -m)

awk -v date="$(date -u '+%Y-%m-%d %H:%M:%S UTC')" -v cores="$(nproc)" -v cpu="$cpu" \
	-v trace="bench/out/$(basename "$TRACE")" -v bytes="$BYTES" -v gz="$COMPRESSED" \
	-v zlib="$ZLIB" -v isal="$ISAL" -v j1s="$J1_S" -v j1kb="$J1_KB" \
	-v j2s="$J2_S" -v j2kb="$J2_KB" -v same="$SAME" -v runs="$RUNS" \
	-v pairs="$PAIRS" -v paired="$PAIRED" '
function mbs(s) { return s > 0 ? bytes / 1e6 / s : 0 }
function rss(kb) { return sprintf("%8.1f MB %5.1f %%", kb * 1024 / 1e6, kb * 1024 * 100 / bytes) }
BEGIN {
	printf "vtrace bench, %s\n", date
	printf "machine: %d cores, %s\n", cores, cpu
	printf "input:   %s: %d bytes of JSON text, %d gzipped (%.1fx)\n\n", trace, bytes, gz,
		bytes / gz
	printf "%-34s %9s   %s\n", "best of " runs, "MB/s", "peak RSS (% of text)"
	printf "%-34s %9.1f\n", "inflate only, zlib", zlib
	if (isal == "n/a")
		printf "%-34s %9s\n", "inflate only, isa-l", "n/a"
	else
		printf "%-34s %9.1f\n", "inflate only, isa-l", isal
	printf "%-34s %9.1f   %s\n", "vanalyze -j 1", mbs(j1s), rss(j1kb)
	printf "%-34s %9.1f   %s\n", "vanalyze -j 2", mbs(j2s), rss(j2kb)
	printf "%-34s %9.2f\n", "vanalyze -j 2 / inflate-only zlib", mbs(j2s) / zlib
	printf "%-34s %9.2f   (pairs:%s)\n", "  the same, back-to-back pairs", paired, pairs
	printf "\nreports of -j 1 and -j 2: %s\n", same
}'
[ "$SAME" = identical ]
