#!/usr/bin/env bash
# Many small files: what vanalyze keeps of each file
# until the report is built is its rank, not the working state of reading
# it.  3,000 files of 85 bytes took 210 MB before (70 KB a file; 100,000
# ran out of memory); now a few KB a file.  The figure for 100,000 files
# is bench/scale.sh's.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
N=3000
python3 "$VT_ROOT/tests/hostile_inputs.py" tiny dir $N || die "cannot write the files"
# 20 MB of the program and its libraries, then at most 10 KB a file;
# ASan's shadow and quarantine take about three times as much.  The
# quarantine (256 MB by default) keeps the pages of each freed block that
# was touched, so its share grows with the number of blocks it holds, not
# with what vanalyze keeps: a smaller input buffer (128 KiB, not 1 MiB)
# put eight times as many in it (170 MB then, over the bound).  Bounded at 16 MB
# it measures vanalyze again.
limit=$((20 + N * 10 / 1024))
if [ "$VT_SANITIZED" = 1 ]; then
	limit=$((3 * limit))
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
fi
python3 - "$VANALYZE" "$limit" "$N" <<'PY' || die "many files: over the memory bound (line above)"
import json, resource, subprocess, sys
exe, limit, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rc = subprocess.call([exe, "-q", "-j", "2", "--json", "r.json", "dir"],
                     stdout=subprocess.DEVNULL, stderr=open("many.err", "w"))
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%d files: peak RSS %.0f MB (bound %d MB)" % (n, rss, limit))
if rc != 0:
    sys.exit("exit status %d: %s" % (rc, open("many.err").read()[-400:]))
r = json.load(open("r.json"))
# each file is rank i with one kernel of 5 us at ts i us
ranks = sorted(k["rank"] for k in r["ranks"])
if ranks != list(range(n)):
    sys.exit("ranks are not 0..%d" % (n - 1))
for k in r["ranks"]:
    if not k["complete"] or k["gpu"]["kernel_time_ns"] != 5000 or k["source"] != "rank-%d.json" % k["rank"]:
        sys.exit("rank %d: %s" % (k["rank"], json.dumps(k)[:300]))
if rss > limit:
    sys.exit("%d files took %.0f MB, over %d MB" % (n, rss, limit))
PY
echo ok
