#!/usr/bin/env bash
# vaggregate at scale: the compact merged report, different runs
# in one folder, the bounded terminal summary and the memory bound.
#
# 1. The 8 DLRM ranks, each analysed alone, merged compact and --full: the
#    run-level parts are equal, compact ranks keep their scalars only, and
#    cross_rank equals an independent python3 computation over the rank
#    reports (not over the merged ones).  vcompare reads the compact report;
#    merged again, it comes with a warning.
# 2. inputs[].start_unix_ns equals baseTimeNanoseconds + the first ts of
#    each trace, read with decimal; torch-cpu's legacy traces have none.
#    The DLRM ranks (started within milliseconds) are one run; with a
#    report of another real run (HTA's trace_diff control, 2022) in the
#    folder, one warning names a report of each, the earliest of each run.
# 3. 256 ranks replicated from DLRM with ranks removed: the missing ranks
#    come as ranges, capped; the summary does not grow with the ranks and
#    has one finding per rule, its rank groups cut short.
# 4. 1,024 replicated ranks (100 MB of reports): the compact reduce stays
#    under 48 MB of peak RSS; --full, which reads and writes every table as
#    the reduce did before (1.3 GB for 8,191 ranks), needs more than that.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate
need_vcompare

# --- 1. compact and --full --------------------------------------------------
mkdir -p reports
for f in "$PUBLIC"/facebookresearch__param/*dlrm*worker*.json.gz; do
	w=$(basename "$f" | sed 's/.*worker\([0-9]\).*/\1/')
	mkdir -p "reports/w$w"
	va "map$w" -q --json "reports/w$w/report.json" "$f"
	expect_rc "map$w" 0
done
vg compact -q --reports_dir reports --json compact.json
expect_rc compact 0
vg full -q --full --reports_dir reports --json full.json
expect_rc full 0
python3 - compact.json full.json reports <<'PY' || die "compact and --full disagree, or the oracle does (line above)"
import glob, json, math, statistics, sys
import os
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from vtcheck import rank_metric as value  # noqa: E402

c, f = (json.load(open(p)) for p in sys.argv[1:3])
if c.get("rank_tables") is not False or "rank_tables" in f:
    sys.exit("rank_tables: compact %r, full %r" % (c.get("rank_tables"), f.get("rank_tables")))
for key in ("inputs", "cross_rank", "stragglers", "straggler_rule", "incomplete_ranks",
            "collectives", "suggestions"):
    if c.get(key) != f.get(key):
        sys.exit("%s differs between compact and --full" % key)
if len(c["ranks"]) != 8 or [r["rank"] for r in c["ranks"]] != [r["rank"] for r in f["ranks"]]:
    sys.exit("ranks differ")
TABLES = {"kernels", "phases", "cpu_ops", "comm_instances"}
for rc, rf in zip(c["ranks"], f["ranks"]):
    if TABLES & set(rc) or not TABLES <= set(rf):
        sys.exit("rank %d: tables %s in compact, %s in full" % (rc["rank"], TABLES & set(rc),
                                                                TABLES & set(rf)))
    for k, v in rc.items():
        want = rf[k]
        if k == "steps":
            want = {x: y for x, y in want.items() if x != "durations_ns"}
        elif k == "throughput":
            want = {x: y for x, y in want.items() if x != "generations"}
        elif k == "memory":
            want = [{x: y for x, y in m.items() if x != "timeline"} for m in want]
        if v != want:
            sys.exit("rank %d: %s differs from --full" % (rc["rank"], k))

# the oracle: every cross_rank statistic again, from the map's own reports
ranks = sorted((json.load(open(p))["ranks"][0] for p in glob.glob(sys.argv[3] + "/*/report.json")),
               key=lambda r: r["rank"])



def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


# What collectives matching adds to a rank exists only once ranks meet (048 checks it).
MATCHED = ("gpu.comm_wait_ns", "gpu.comm_transfer_ns", "gpu.effective_utilization",
           "gpu.comm_sync_ns", "gpu.comm_idle_ns")
phases = 0
for metric, st in c["cross_rank"].items():
    vals = [(r["rank"], value(r, metric)) for r in (f["ranks"] if metric in MATCHED else ranks)]
    vals = [(k, float(v)) for k, v in vals if v is not None and not math.isnan(float(v))]
    xs = [v for _, v in vals]
    want = {"count": len(xs), "min": min(xs), "max": max(xs), "avg": statistics.fmean(xs),
            "median": statistics.median(xs), "stddev": statistics.pstdev(xs),
            "min_rank": next(k for k, v in vals if v == min(xs)),
            "max_rank": next(k for k, v in vals if v == max(xs))}
    for k, w in want.items():
        if not close(st[k], w):
            sys.exit("%s %s: merged %r, recomputed %r" % (metric, k, st[k], w))
    phases += metric.startswith("phase:")
if len(c["cross_rank"]) < 20 or phases < 10:
    sys.exit("only %d cross-rank metrics (%d phases)" % (len(c["cross_rank"]), phases))
print("pass: %d cross-rank metrics recomputed; compact %d bytes, --full %d" % (
    len(c["cross_rank"]), len(open(sys.argv[1]).read()), len(open(sys.argv[2]).read())))
PY
[ "$(wc -c <compact.json)" -lt "$(($(wc -c <full.json) / 4))" ] ||
	die "the compact report is not a quarter of the full one"
vc cmp --all compact.json compact.json
expect_rc cmp 0
expect_line cmp.out '^span +all ' "vcompare's rows of the compact report"
vg again -q --json again.json compact.json
expect_rc again 0
expect_line again.err "^vaggregate: warning: compact\.json: a compact merged report: its ranks come without their tables" \
	"a compact report merged again"
echo "pass: compact and --full agree with each other and with the oracle"

# --- 2. runs ----------------------------------------------------------------
CONTROL=$PUBLIC/facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz
mkdir -p runs/ctl
cp -r reports/w* runs/
va ctl -q --json runs/ctl/report.json "$CONTROL"
expect_rc ctl 0
va legacy -q --json legacy.json "$TORCH_CPU/dev-2rank-default-rank0.trace.json.gz"
expect_rc legacy 0
python3 - runs "$CONTROL" "$PUBLIC"/facebookresearch__param/*dlrm*worker*.json.gz >expected.txt <<'PY' ||
import glob, gzip, json, os, sys
from decimal import Decimal


def start(path):
    """baseTimeNanoseconds + the first ts (us, truncated to ns), or the ts alone."""
    d = json.load(gzip.open(path), parse_float=Decimal, parse_int=Decimal)
    ts = min(Decimal(e["ts"]) for e in d["traceEvents"] if e.get("ph") != "M" and "ts" in e)
    return int(d.get("baseTimeNanoseconds", 0)) + int(ts * 1000)


runs, control, dlrm = sys.argv[1], sys.argv[2], sys.argv[3:]
reports = {}
for p in glob.glob(runs + "/*/report.json"):
    r = json.load(open(p))
    reports[os.path.basename(r["inputs"][0]["path"])] = (p, r["inputs"][0]["start_unix_ns"])
for t in dlrm + [control]:
    p, got = reports[os.path.basename(t)]
    if got != start(t):
        sys.exit("%s: start_unix_ns %r, the trace says %d" % (p, got, start(t)))
first = min((reports[os.path.basename(t)] for t in dlrm), key=lambda x: x[1])[0]
spread = max(reports[os.path.basename(t)][1] for t in dlrm) - \
    min(reports[os.path.basename(t)][1] for t in dlrm)
if spread > 1e9:
    sys.exit("the DLRM ranks start %d ns apart" % spread)
print(reports[os.path.basename(control)][0])
print(first)
PY
	die "start_unix_ns disagrees with the traces (line above)"
check legacy.json 'r["inputs"][0]["start_unix_ns"] is None' "a legacy trace has no wall-clock start"
mapfile -t want <expected.txt
vg one -q --reports_dir reports
expect_rc one 0
no_line one.err 'different runs' "ranks of one run"
vg two -q --reports_dir runs
expect_rc two 0
expect_line two.err "^vaggregate: warning: these reports come from 2 different runs \(other metadata: [^)]*; or traces more than 60 s apart that never overlap\): 1 rank from 2022-[^;]* \('$(ere_quote "${want[0]}")', rank 3\); 8 ranks from 2023-09-07 [^;]* \('$(ere_quote "${want[1]}")', rank [0-7]\)$" \
	"the warning naming both runs"
echo "pass: start times equal the traces'; one run quiet, two runs named"

# --- 3. a bounded summary over 256 ranks -------------------------------------
python3 "$VT_ROOT/bench/replicate.py" many 256 reports/w*/report.json ||
	die "replicate.py failed"
gone=(10 11 12 13 14 15 16 17 18 19 20 100)
for ((r = 133; r < 256; r += 8)); do gone+=("$r"); done
for r in "${gone[@]}"; do rm -r "many/$(printf %06d "$r")"; done
vg many --no-progress --details --expect-ranks 256 --json many.json many
expect_rc many 1
python3 - many.out many.json "${gone[@]}" >many.want <<'PY' || die "the bounded summary (line above)"
import json, re, sys

lines = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
gone = sorted(int(x) for x in sys.argv[3:])
ranges = []
for r in gone:
    if ranges and ranges[-1][1] == r - 1:
        ranges[-1][1] = r
    else:
        ranges.append([r, r])
text = ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in ranges[:12])
if len(ranges) > 12:
    text += ", ... and %d more ranges (%d ranks)" % (len(ranges) - 12,
                                                     sum(b - a + 1 for a, b in ranges[12:]))
print("%d of 256 ranks missing (--expect-ranks 256): ranks %s" % (len(gone), text))
# Bounded: the cross-rank table and the findings do not grow with the
# ranks (about 90 lines here, as for 8 ranks); one line per rank would be 228.
if len(lines) >= 120:
    sys.exit("%d summary lines for %d ranks" % (len(lines), len(rep["ranks"])))
ids = [s["id"] for s in rep["suggestions"]]
if len(ids) != len(set(ids)):
    sys.exit("more than one finding per rule: %s" % ids)
grouped = [l for l in lines if re.search(r" and \d+ more", l)]
if not grouped:
    sys.exit("no rank group cut short in the findings")
PY
expect_line many.err "^vaggregate: $(ere_quote "$(cat many.want)")$" "the missing ranks as ranges"
echo "pass: $(wc -l <many.out) summary lines for $(grep -c '"rank": ' many.json) rank entries"

# --- 4. the memory bound -----------------------------------------------------
python3 "$VT_ROOT/bench/replicate.py" big 1024 reports/w*/report.json || die "replicate.py failed"
# Under a sanitizer the figure is mostly ASan's quarantine and shadow (399 MB
# on main at the time, a few hundred KB either way from run to run): its
# limit only catches a reduce that holds many times what it should.
if [ "$VT_SANITIZED" = 1 ]; then limit=460800; else limit=49152; fi
for mode in compact full; do
	flag=()
	[ $mode = full ] && flag=(--full)
	/usr/bin/time -f %M -o "big-$mode.rss" "$VAGGREGATE" -q --no-progress "${flag[@]}" \
		--expect-ranks 1024 --json "big-$mode.json" big >"big-$mode.out" 2>"big-$mode.err"
	echo $? >"big-$mode.rc"
	expect_rc "big-$mode" 0
done
rss=$(tail -n 1 big-compact.rss) full=$(tail -n 1 big-full.rss)
[ "$rss" -lt "$limit" ] || die "compact reduce of 1024 ranks: peak RSS $rss KB, limit $limit KB"
# Under a sanitizer every freed block waits in quarantine: only the limit holds there.
[ "$VT_SANITIZED" = 1 ] || [ "$full" -gt "$limit" ] ||
	die "--full took $full KB, under the limit $limit KB: the bound tells nothing"
echo "pass: 1024 ranks in $((rss / 1024)) MB (limit $((limit / 1024)) MB; --full $((full / 1024)) MB)"
