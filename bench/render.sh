#!/usr/bin/env bash
# bench/render.sh BUILD_DIR: the HTML report's bars, run by `make bench`.
#
# On the 8-rank DLRM set (../shared/traces, or $VT_SHARED/traces) and on a
# 1,024-rank gentrace run (cached in bench/out/render1k/), best of $RUNS
# each: vanalyze -q --json, and the same with --html.  Prints both times,
# what rendering adds, and the page's size, against the bars of the HTML
# issue: rendering adds under 1 s to the DLRM set, its page is under 2 MB,
# and the 1,024-rank page under 5 MB.  Exits 1 when a bar is not met.
#
# Environment: VT_BENCH_RUNS (default 5), VT_SHARED.
set -eu

die() {
	echo "bench/render: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: bench/render.sh BUILD_DIR" >&2
	exit 2
}
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
BUILD=$(cd "$1" && pwd -P) || die "no build directory '$1'"
RUNS=${VT_BENCH_RUNS:-5}
SHARED=${VT_SHARED:-$ROOT/../shared}
command -v gnuplot >/dev/null || die "gnuplot is not installed (make deps)"

OUT=$ROOT/bench/out/render1k
if [ ! -f "$OUT/done" ] || [ "$BUILD/gentrace" -nt "$OUT/done" ]; then
	rm -rf "$OUT"
	mkdir -p "$OUT/traces"
	"$BUILD/gentrace" --ranks 1024 --steps 3 --blocks 2 --straggler 700=1.3 --no-wait \
		-o "$OUT/traces/run" --truth "$OUT/truth.json" >/dev/null || die "gentrace failed"
	touch "$OUT/done"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME MAX_ADDED_S|- MAX_BYTES INPUT...
status=0
measure() {
	local name=$1 max_added=$2 max_bytes=$3
	shift 3
	python3 - "$BUILD/vanalyze" "$tmp" "$RUNS" "$name" "$max_added" "$max_bytes" "$@" <<'PY' || status=1
import os, subprocess, sys, time
exe, tmp, runs, name, max_added, max_bytes = sys.argv[1:7]
files = sys.argv[7:]
def best(extra):
    t = []
    for _ in range(int(runs)):
        a = time.monotonic()
        subprocess.run([exe, "-q", "--json", os.path.join(tmp, "r.json")] + extra + files,
                       check=True)
        t.append(time.monotonic() - a)
    return min(t)
page = os.path.join(tmp, "r.html")
base, html = best([]), best(["--html", page])
size = os.path.getsize(page)
ok = (max_added == "-" or html - base < float(max_added)) and size < int(max_bytes)
print("bench: %-10s vanalyze %.3f s, with --html %.3f s: rendering adds %.3f s%s; "
      "page %.2f MB (bar %.0f MB)  %s" % (
          name, base, html, html - base, "" if max_added == "-" else " (bar %s s)" % max_added,
          size / 1e6, int(max_bytes) / 1e6, "ok" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
}

dlrm=("$SHARED"/traces/public/facebookresearch__param/*dlrm_kineto*worker*.json.gz)
[ ${#dlrm[@]} -eq 8 ] && [ -f "${dlrm[0]}" ] || die "the 8 DLRM traces are missing under $SHARED"
measure "DLRM x8" 1 2000000 "${dlrm[@]}"
measure "1024 ranks" - 5000000 "$OUT/traces"
exit $status
