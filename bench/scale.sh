#!/usr/bin/env bash
# bench/scale.sh BUILD_DIR: hostile dimensions of a rank, run by
# `make bench`.
#
# For each dimension that a hostile trace can blow up (distinct annotation
# names, ProfilerStep spans, distinct kernel names, tiny files in one
# directory), tests/hostile_inputs.py writes inputs at N and 2N (cached in
# bench/out/scale/); `vanalyze -q --json --html` runs over each (over the
# tiny files, plain `vanalyze -q DIR`: the issue's memory bar, without the
# outputs, which are buffered whole) and the best wall time of $RUNS and the
# peak RSS (/usr/bin/time) are printed with the ratio 2N/N.  The bar: each
# ratio under 2.6 (time doubles, not quadruples) and `vanalyze DIR` over
# 100,000 tiny files under 500 MB.
# Exits 1 when a bar is not met.
#
# Environment: VT_BENCH_RUNS (default 3).
set -eu

die() {
	echo "bench/scale: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: bench/scale.sh BUILD_DIR" >&2
	exit 2
}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
[ -d "$1" ] || die "no build directory '$1'; run 'make bench'"
BUILD=$(cd "$1" && pwd -P)
RUNS=${VT_BENCH_RUNS:-3}
[ -x "$BUILD/vanalyze" ] || die "'$1/vanalyze' is missing; build it first"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing; install the Debian package 'time'"
OUT=$ROOT/bench/out/scale
GEN=$ROOT/tests/hostile_inputs.py
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# input KIND N: the cached input's path (a file, or a directory for tiny)
input() {
	local p=$OUT/$1-$2
	[ "$1" = tiny ] || p=$p.json
	if [ ! -e "$p" ] || [ "$GEN" -nt "$p" ]; then
		rm -rf "$p"
		python3 "$GEN" "$1" "$p" "$2" || die "cannot write $p"
	fi
	echo "$p"
}

status=0
# scale KIND N [MAX_MB]: N and 2N against the ratio bar, and with MAX_MB,
# plain vanalyze against that bar for 2N
scale() {
	local kind=$1 n=$2 max_mb=${3:-0}
	python3 - "$BUILD/vanalyze" "$tmp" "$RUNS" "$kind" "$n" "$max_mb" \
		"$(input "$kind" "$n")" "$(input "$kind" $((2 * n)))" <<'PY' || status=1
import os, re, subprocess, sys, time
exe, tmp, runs, kind, n, max_mb, a, b = sys.argv[1:9]
def run(path):
    best, rss = None, 0
    for _ in range(int(runs)):
        t = time.monotonic()
        outs = [] if int(max_mb) else ["--json", os.path.join(tmp, "r.json"),
                                       "--html", os.path.join(tmp, "r.html")]
        p = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "-q"] + outs + [path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        t = time.monotonic() - t
        best = t if best is None or t < best else best
        rss = max(rss, int(p.stderr.strip().splitlines()[-1]) // 1024)
    return best, rss
(t1, m1), (t2, m2) = run(a), run(b)
ratio = t2 / t1
ok = ratio < 2.6 and (int(max_mb) == 0 or m2 < int(max_mb))
print("%-8s N=%-7d %6.2f s %5d MB   2N %6.2f s %5d MB   ratio %.2f%s  %s" %
      (kind, int(n), t1, m1, t2, m2, ratio,
       "" if int(max_mb) == 0 else "  (bar %s MB)" % max_mb, "ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
}

echo "bench/scale: vanalyze -q --json --html (tiny: vanalyze -q), best of $RUNS;" \
	"bar: ratio 2N/N under 2.6"
scale annots 100000
scale steps 250000
scale kernels 250000
scale tiny 50000 500
exit $status
