#!/usr/bin/env bash
# bench/reduce.sh BUILD_DIR: the reduce-at-scale bar, run by `make bench`.
#
# Makes (once; cached in bench/out/reduce/, remade when vanalyze or the
# replicator is newer) two sets of real-size rank reports: vanalyze's
# report of each of the 8 DLRM ranks in ../shared (about 99 kB each),
# replicated by bench/replicate.py to ranks 0..8191 with their rank
# numbers changed, once without rank 4097 (8,191 reports) and once whole.
# Then runs `vaggregate --expect-ranks 8192 --json merged.json` over each
# $RUNS times and prints the best wall time, the largest peak RSS
# (/usr/bin/time) and the bytes written, against the bar: the gap set
# exits 1 naming rank 4097, the whole set exits 0, both under 4 s and
# 600 MB, writing under 100 MB.  Exits 1 when the bar is not met.
#
# Environment: VT_BENCH_RUNS (default 3), VT_SHARED (default ../shared).
set -eu

die() {
	echo "bench/reduce: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: bench/reduce.sh BUILD_DIR" >&2
	exit 2
}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ -d "$1" ] || die "no build directory '$1'; run 'make bench'"
BUILD=$(cd "$1" && pwd -P)
RUNS=${VT_BENCH_RUNS:-3}
SHARED=${VT_SHARED:-$ROOT/../shared}
N=8192 GAP=4097 BAR_S=4 BAR_MB=600 BAR_OUT_MB=100

for tool in vanalyze vaggregate; do
	[ -x "$BUILD/$tool" ] || die "'$1/$tool' is missing; build it first"
done
[ -x /usr/bin/time ] || die "/usr/bin/time is missing; install the Debian package 'time'"
command -v python3 >/dev/null || die "python3 is missing"
mapfile -t dlrm < <(find "$SHARED/traces/public/facebookresearch__param" -name '*dlrm*worker*' \
	2>/dev/null | sort)
[ ${#dlrm[@]} -eq 8 ] || die "the 8 DLRM traces are not in $SHARED/traces/public"

OUT=$ROOT/bench/out/reduce
STAMP=$OUT/sets.stamp
GEN=$ROOT/bench/replicate.py
mkdir -p "$OUT"
stale=0
[ -f "$STAMP" ] || stale=1
for dep in "$BUILD/vanalyze" "$GEN"; do
	[ $stale -eq 1 ] || [ ! "$dep" -nt "$STAMP" ] || stale=1
done
if [ $stale -eq 1 ]; then
	echo "bench/reduce: making 2 x $N rank reports in bench/out/reduce/ (cached)" >&2
	rm -rf "$OUT/tmpl" "$OUT/gap" "$OUT/whole" "$STAMP"
	mkdir -p "$OUT/tmpl"
	for f in "${dlrm[@]}"; do
		"$BUILD/vanalyze" -q --json "$OUT/tmpl/$(basename "$f" .json.gz).json" "$f" ||
			die "vanalyze on $f failed"
	done
	python3 "$GEN" "$OUT/gap" "$N" --skip "$GAP" "$OUT"/tmpl/*.json || die "replicate.py failed"
	python3 "$GEN" "$OUT/whole" "$N" "$OUT"/tmpl/*.json || die "replicate.py failed"
	touch "$STAMP"	# last: a half-made set is made again
fi

# set want_rc: best seconds, largest peak RSS (KiB), merged bytes, and the
# CPU seconds (user + system) of the fastest run, of $RUNS runs
measure() {
	local set=$1 want=$2 best="" rss=0 cpu="" rc secs kb u s
	for ((i = 0; i < RUNS; i++)); do
		rm -f "$OUT/merged.json"	# as on a first run
		rc=0
		/usr/bin/time -f '%e %M %U %S' -o "$OUT/time.out" "$BUILD/vaggregate" -q --no-progress \
			--expect-ranks "$N" --json "$OUT/merged.json" "$OUT/$set" \
			2>"$OUT/$set.err" || rc=$?
		[ $rc -eq "$want" ] || {
			tail -n 5 "$OUT/$set.err" >&2
			die "$set: vaggregate exited $rc, not $want"
		}
		read -r secs kb u s < <(tail -n 1 "$OUT/time.out")
		if [ -z "$best" ] || awk -v a="$best" -v b="$secs" 'BEGIN { exit !(b < a) }'; then
			best=$secs cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		fi
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	echo "$best $rss $(wc -c <"$OUT/merged.json" | tr -d ' ') $cpu"
}

read -r gap_s gap_kb gap_out gap_cpu < <(measure gap 1)
grep -q "^vaggregate: 1 of $N ranks missing (--expect-ranks $N): rank $GAP\$" "$OUT/gap.err" ||
	die "the gap set did not name rank $GAP: $(head -n 3 "$OUT/gap.err")"
read -r whole_s whole_kb whole_out whole_cpu < <(measure whole 0)
IN_MB=$(du -sm "$OUT/gap" | cut -f1)

awk -v n="$N" -v in_mb="$IN_MB" -v runs="$RUNS" -v cores="$(nproc)" \
	-v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v bar_s="$BAR_S" -v bar_mb="$BAR_MB" \
	-v bar_out="$BAR_OUT_MB" -v gs="$gap_s" -v gk="$gap_kb" -v go="$gap_out" \
	-v ws="$whole_s" -v wk="$whole_kb" -v wo="$whole_out" -v gc="$gap_cpu" -v wc="$whole_cpu" '
function row(name, s, kb, out, cpu,   ok) {
	ok = s < bar_s && kb * 1024 / 1e6 < bar_mb && out / 1e6 < bar_out
	printf "%-22s %6.2f s (%.2f s CPU)  %6.1f MB RSS  %5.1f MB written  %s\n", name, s, cpu,
		kb * 1024 / 1e6, out / 1e6, ok ? "met" : "NOT MET"
	return ok
}
BEGIN {
	printf "\nvaggregate at scale, %s cores, load %s; %d real-size DLRM rank reports " \
		"(%d MB on disk); best of %d\n", cores, load, n, in_mb, runs
	printf "bar: under %d s, %d MB peak RSS, %d MB written\n", bar_s, bar_mb, bar_out
	a = row(sprintf("%d reports (exit 1)", n - 1), gs, gk, go, gc)
	b = row(sprintf("%d reports (exit 0)", n), ws, wk, wo, wc)
	exit !(a && b)
}'
