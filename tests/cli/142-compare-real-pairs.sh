#!/usr/bin/env bash
# vcompare on real pairs, against python3 stdlib computations over the
# traces themselves.
#
# torch-cpu 2-rank (no ProfilerStep spans) against 4-rank (each video in a
# ProfilerStep#N): the phases of both are matched by path without the
# wrapper (tests/oracle_phases.py over each trace, the worst rank's total
# per video, one against two, and median), none is "only in base/new"; steps are not compared (the two
# count different spans) and a note says so; by default the table and the
# markdown hold the few rows that explain the change (the run's changed rows,
# confirmed before noise, times by the size of the change, 12 at most), a
# line counts the other changed rows and the "N metrics unchanged" line the
# rest; --all lists every row.
#
# HTA's trace_diff pair: memcpy/memset time (the union of gpu_memcpy and
# gpu_memset intervals) nearly triples and is flagged; every kernel on one
# side only is counted with its total time (sum of its durations), the top
# ten named in order and the rest summed, all as computed here.
#
# A phase found both inside and outside the wrapper in one rank is one
# phase: totals add up, instances pool (a small synthetic pair, the values
# computed here from the spans written).
#
# Utilization that rises only with communication time is "more waiting", not
# an improvement (synthetic one-rank pair); with compute it is "improved".
#
# --help has no printf escapes left in it.
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
need_vcompare
T=$TORCH_CPU
HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
CONTROL=$HTA/tests__data__trace_diff__control__control.json.gz
TEST=$HTA/tests__data__trace_diff__test__test.json.gz
mkdir two four
cp "$T"/dev-2rank-default-rank*.trace.json.gz two/
cp "$T"/dev-4rank-straggler2-rank*.trace.json.gz four/

# --help: no "%%", no backslash escapes
vc help --help
expect_rc help 0
no_line help.out '%%|\\[nt"]' "--help shows printf escapes"
expect_line help.out 'percent \(5 or 5%\)' "--help threshold text"

# 1. torch-cpu 2-rank against 4-rank
vc cpu --json cpu.cmp --markdown cpu.md two four
expect_rc cpu 1
vc cpuall --all --json cpuall.cmp two four
expect_rc cpuall 1
cmp -s cpu.cmp cpuall.cmp || die "--all changed the JSON (it always holds every row)"
python3 - "$VT_ROOT/tests" two four <<'PY' || die "torch-cpu pair (lines above)"
import glob, json, re, sys
sys.path.insert(0, sys.argv[1])
import oracle_phases
from vtcheck import cached, metric_label

WRAP = "ProfilerStep#*"

def phases(path):
    """path -> (total_ns, median_ns) without the wrapper, duplicates joined."""
    out, pool = {}, {}
    for ph in cached("phases", path, None, oracle_phases.analyze, path)["phases"]:
        p = ph["path"]
        if p == WRAP:
            continue
        if p.startswith(WRAP + "/"):
            p = p[len(WRAP) + 1:]
        assert p not in out, "a phase inside and outside the wrapper: %s" % p
        out[p] = (ph["total_ns"], ph["median_ns"])
    return out

def videos(path):
    """The videos a trace profiled: its inference_denoising spans (one per video)."""
    return sum(ph["count"] for ph in cached("phases", path, None, oracle_phases.analyze, path)["phases"]
               if ph["path"].split("/")[-1] == "inference_denoising")

def run(d):
    """The run's value: the worst (largest) rank's; totals per video where the
    sides profiled different numbers of videos (1 and 2 here)."""
    files = sorted(glob.glob(d + "/*.trace.json.gz"))
    per = [phases(f) for f in files]
    res = {}
    for m in per:
        for p, (t, med) in m.items():
            a, b = res.get(p, (t, med))
            res[p] = (max(a, t), max(b, med))
    return res, videos(files[0])

(base, vb), (new, vn) = run(sys.argv[2]), run(sys.argv[3])
bad = 0
if (vb, vn) != (1, 2):
    print("the oracle counts %d and %d videos" % (vb, vn)); bad += 1
base = {p: (t / vb, med) for p, (t, med) in base.items()}
new = {p: (t / vn, med) for p, (t, med) in new.items()}
if set(base) != set(new):
    print("the oracle's phases differ: %s" % sorted(set(base) ^ set(new))); bad += 1
c = json.load(open("cpu.cmp"))
rows = c["rows"]
run_rows = {r["metric"]: r for r in rows if r["rank"] is None}
for p in base:
    for i, key in enumerate(("total_ns", "median_ns")):
        r = run_rows.get("phase:%s.%s" % (p, key))
        if r is None:
            print("no row for phase %s.%s" % (p, key)); bad += 1
            continue
        if (r["base"], r["new"]) != (base[p][i], new[p][i]):
            print("phase %s.%s: vcompare %s %s, oracle %s %s" % (
                p, key, r["base"], r["new"], base[p][i], new[p][i])); bad += 1
ph_rows = [m for m in run_rows if m.startswith("phase:")]
if len(ph_rows) != 2 * len(base):
    print("%d phase rows, oracle %d phases" % (len(ph_rows), len(base))); bad += 1
only = [r["metric"] for r in rows if r["verdict"].startswith("only in")]
if only:
    print("rows on one side only: %s" % only[:5]); bad += 1
if any(r["metric"].startswith("steps.") for r in rows):
    print("steps compared though the sides count different spans"); bad += 1
if c["steps_not_compared"] != {"base": "denoise_step_*|*step_[0-9]*", "new": "ProfilerStep#*"}:
    print("steps_not_compared: %r" % c["steps_not_compared"]); bad += 1

# the table and the markdown: changed rows only, then the unchanged count
changed = [r for r in rows if r["verdict"] != "same"]
same = len(rows) - len(changed)
if c["unchanged"] != same or same == 0 or not changed:
    print("unchanged %s, rows same %d, changed %d" % (c["unchanged"], same, len(changed))); bad += 1

def table_rows(path):
    """(label, rank, verdict) of a terminal table; long names take a line of their own."""
    out, name = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        m = re.match(r"^(.*?) +(all|\d+) +[-+0-9\u2013].*\s(same|REGRESSED|improved|noise|more waiting|only in base|only in new)$", line)
        if m:
            out.append((m.group(1) or name, m.group(2), m.group(3)))
        name = line.strip() if line and not line.startswith(" ") else None
    return out

def key(r):
    return (metric_label(r["metric"]), "all" if r["rank"] is None else str(r["rank"]),
            "REGRESSED" if r["verdict"] == "regressed" else r["verdict"])

# without --all, the few rows that explain the change: the run's changed rows,
# confirmed before noise, span and throughput, then times by |delta|, then the
# rest, 12 at most
def is_time(k):
    return k.endswith("_ns") or k.startswith("idle.")

cand = [(i, r) for i, r in enumerate(rows) if r["verdict"] != "same" and r["rank"] is None]
def cls(k):
    return 0 if k == "span_ns" or k.startswith("throughput.") else 1 if is_time(k) else 2

cand.sort(key=lambda ir: (ir[1]["verdict"] == "noise", cls(ir[1]["metric"]),
                          -abs(ir[1]["delta"]) if cls(ir[1]["metric"]) == 1 else 0, ir[0]))
picked = [r for i, r in sorted(cand[:12], key=lambda ir: ir[0])]
got = table_rows("cpu.out")
if got != [key(r) for r in picked] or len(picked) != 12:
    print("table rows %r, want %r" % (got, [key(r) for r in picked])); bad += 1
gotall = table_rows("cpuall.out")
if gotall != [key(r) for r in rows]:
    print("--all table rows %d, want all %d" % (len(gotall), len(rows))); bad += 1
text = open("cpu.out", encoding="utf-8").read()
if "\n%d more changed rows, of the run and of each rank (--all lists them)\n" % (
        len(changed) - len(picked)) not in text:
    print("no line '%d more changed rows'" % (len(changed) - len(picked))); bad += 1
if "\n%d metrics unchanged (--all lists them)\n" % same not in text:
    print("no line '%d metrics unchanged'" % same); bad += 1
if "unchanged" in open("cpuall.out", encoding="utf-8").read():
    print("--all still says metrics are unchanged"); bad += 1
if "steps not compared: base counts 'denoise_step_*|*step_[0-9]*' spans as steps, new 'ProfilerStep#*'" not in text:
    print("no note on the steps"); bad += 1
md = [l for l in open("cpu.md", encoding="utf-8").read().split("\n") if l.startswith("| ")]
if len(md) - 1 != len(picked):
    print("markdown rows %d, want %d" % (len(md) - 1, len(picked))); bad += 1
print("torch-cpu: %d phases matched, %d rows changed, %d unchanged" % (len(base), len(changed), same))
sys.exit(1 if bad else 0)
PY
echo "pass: torch-cpu 2-rank against 4-rank"

# 2. HTA's trace_diff pair
vc hta --json hta.cmp --markdown hta.md "$CONTROL" "$TEST"
expect_rc hta 1
vc hta5 --top 5 --json hta5.cmp "$CONTROL" "$TEST"
expect_rc hta5 1
python3 - "$VT_ROOT/tests" "$CONTROL" "$TEST" <<'PY' || die "HTA pair (lines above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import oracle
from vtcheck import cached  # read()'s result per trace, computed once per test run

def fmt_ns(v):
    """metric_fmt() of a duration, as doc/figures.md defines it: three significant digits."""
    for scale, unit in ((1e9, " s"), (1e6, " ms"), (1e3, " \u00b5s")):
        if abs(v) >= scale * 0.9995:
            x = v / scale
            dec = 0 if abs(x) >= 99.95 else 1 if abs(x) >= 9.995 else 2
            return "%.*f%s" % (dec, x, unit)
    return "%.0f ns" % v

def read(path):
    """Kernel totals by name (sum of durations) and the memcpy/memset union."""
    _, events = oracle.load(path)
    kernels, mem = {}, []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        ts, dur = oracle.to_ns(e.get("ts")), oracle.to_ns(e.get("dur"))
        if ts is None or dur is None or dur < 0:
            continue
        if e.get("cat") == "kernel":
            kernels[e["name"]] = kernels.get(e["name"], 0) + dur
        elif e.get("cat") in ("gpu_memcpy", "gpu_memset"):
            mem.append((ts, ts + dur))
    union, end = 0, None
    for a, b in sorted(mem):
        if end is None or a > end:
            union += b - a
            end = b
        elif b > end:
            union += b - end
            end = b
    return kernels, union

kb, mb = cached("kernel-totals", sys.argv[2], None, read, sys.argv[2])
kn, mn = cached("kernel-totals", sys.argv[3], None, read, sys.argv[3])
c = json.load(open("hta.cmp"))
bad = 0
row = next((r for r in c["rows"] if r["metric"] == "gpu.memory_ns" and r["rank"] is None), None)
if row is None or (row["base"], row["new"]) != (mb, mn) or row["verdict"] != "regressed":
    print("gpu.memory_ns: %r, oracle %d -> %d (x%.2f), regressed" % (row, mb, mn, mn / mb)); bad += 1
print("memcpy/memset: %d -> %d ns (x%.2f)" % (mb, mn, mn / mb))

def side(only, other, key, top, out_text, label):
    global bad
    want = sorted(((t, n) for n, t in only.items() if n not in other), key=lambda x: (-x[0], x[1]))
    got = c[key]
    if got["count"] != len(want) or got["total_ns"] != sum(t for t, _ in want):
        print("%s: %d kernels, %s ns; oracle %d, %d ns" % (key, got["count"], got["total_ns"],
                                                          len(want), sum(t for t, _ in want))); bad += 1
    if [(k["total_ns"], k["name"]) for k in got["kernels"]] != want:
        print("%s: the kernels or their totals differ from the oracle" % key); bad += 1
    # markdown: the count and total, the top ones named, the rest summed
    lines = out_text.split("\n")
    head = "- %d kernels %s, %s in all:" % (len(want), label, fmt_ns(sum(t for t, _ in want)))
    if head not in lines:
        print("markdown lacks %r" % head); bad += 1
        return
    at = lines.index(head)
    for i, (t, n) in enumerate(want[:top]):
        l = lines[at + 1 + i]
        if not (l.startswith("  - ") and l.split()[1:3] == fmt_ns(t).split()):
            print("markdown line %r: want %s for the %d-th kernel" % (l, fmt_ns(t), i + 1)); bad += 1
    rest = want[top:]
    tail = "  - and %d more, %s in all" % (len(rest), fmt_ns(sum(t for t, _ in rest)))
    if rest and lines[at + 1 + top] != tail:
        print("markdown %r, want %r" % (lines[at + 1 + top], tail)); bad += 1
    print("%s: %d kernels, %.1f ms (oracle the same)" % (key, len(want), sum(t for t, _ in want) / 1e6))

md = open("hta.md", encoding="utf-8").read()
side(kn, kb, "kernels_added", 10, md, "added (only in new)")
side(kb, kn, "kernels_removed", 10, md, "removed (only in base)")
c5 = json.load(open("hta5.cmp"))
if c5["kernels_added"] != c["kernels_added"]:
    print("--top changed the JSON's added kernels"); bad += 1
sys.exit(1 if bad else 0)
PY
expect_line hta.out '^memcpy/memset time +all .*REGRESSED$' "memcpy/memset time flagged in the table"
expect_line hta5.out '^  and [0-9]+ more, .* in all$' "--top 5 names five"
[ "$(grep -c '^ *[0-9.]\+ [mµn]\?s  ' hta5.out)" -eq 10 ] || die "--top 5: not 5 added and 5 removed named"
vc hta0 --top 0 "$CONTROL" "$TEST"
expect_rc hta0 1
expect_line hta0.out '^27 kernels added \(only in new\), 308 ms in all$' "--top 0: the count and total"
no_line hta0.out '^  and [0-9]+ more|^ +[0-9.]+ [mµn]?s  [^ ]' "--top 0 names no kernel"
echo "pass: HTA trace_diff pair"

# 3. the same phase inside and outside the wrapper
python3 - <<'PY' || die "synthetic traces"
import json
def span(name, ts, dur):
    return {"ph": "X", "cat": "user_annotation", "name": name, "ts": ts, "dur": dur,
            "pid": 1, "tid": 1}
# A: denoise 10 and 20 us outside any step, 30 us inside ProfilerStep#1
a = [span("denoise", 0, 10), span("denoise", 20, 20), span("ProfilerStep#1", 100, 50),
     span("denoise", 105, 30)]
# B: three denoise spans of 12, 22 and 32 us, no wrapper
b = [span("denoise", 0, 12), span("denoise", 20, 22), span("denoise", 50, 32)]
json.dump({"traceEvents": a}, open("wrapped-rank0.json", "w"))
json.dump({"traceEvents": b}, open("bare-rank0.json", "w"))
PY
vc dup --all --json dup.cmp --min-share 0 --threshold 0 wrapped-rank0.json bare-rank0.json
check dup.cmp '{(x["metric"], x["base"], x["new"]) for x in r["rows"] if x["metric"].startswith("phase:")} ==
	{("phase:denoise.total_ns", 60000, 66000), ("phase:denoise.median_ns", 20000, 22000)}' \
	"the phase inside and outside the wrapper is not one phase (10+20+30 us, median 20 us)"
echo "pass: a phase inside and outside the wrapper is one phase"

# 4. utilization from waiting: one rank, kernels of 50 and 10 us over 100 us
#    (60 %); NEW fills the 40 us gap with a collective (busy +40 us, all of it
#    communication: "more waiting", no improvement) or with compute
#    ("improved")
python3 - <<'PY' || die "synthetic traces"
import json
def k(name, ts, dur):
    return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur, "pid": 0, "tid": 7}
base = [k("gemm_a", 0, 50), k("gemm_b", 90, 10)]
json.dump({"traceEvents": base}, open("util-base-rank0.json", "w"))
json.dump({"traceEvents": base + [k("ncclKernel_AllReduce_RING_LL_Sum_float", 50, 40)]},
          open("util-wait-rank0.json", "w"))
json.dump({"traceEvents": base + [k("gemm_c", 50, 40)]}, open("util-work-rank0.json", "w"))
PY
vc wait --json wait.cmp util-base-rank0.json util-wait-rank0.json
expect_rc wait 0
check wait.cmp '[(x["base"], x["new"], x["verdict"]) for x in r["rows"] if x["metric"] == "gpu.utilization"] ==
	[(0.6, 1.0, "more waiting")]' "utilization from waiting credited" \
	'r["improvements"] == 0' "an improvement counted" \
	'{x["metric"]: x["verdict"] for x in r["rows"] if x["metric"].startswith("idle.") and x["verdict"] != "same"} ==
	{"idle.idle_ns": "more waiting", "idle.by_cause.other": "more waiting"}' \
	"idle time filled by waiting credited (doc/idle.md: the 40 us gap has no runtime call)"
expect_line wait.out '^util +all .* more waiting$' "the table shows 'more waiting'"
vc work --json work.cmp util-base-rank0.json util-work-rank0.json
expect_rc work 0
check work.cmp '[(x["base"], x["new"], x["verdict"]) for x in r["rows"] if x["metric"] == "gpu.utilization"] ==
	[(0.6, 1.0, "improved")]' "utilization from work not credited" \
	'r["improvements"] == 3' "the improvement not counted (utilization, idle time, its cause)" \
	'{x["metric"]: x["verdict"] for x in r["rows"] if x["verdict"] == "improved"} ==
	{"gpu.utilization": "improved", "idle.idle_ns": "improved", "idle.by_cause.other": "improved"}' \
	"utilization and idle time from work not credited"
echo "pass: utilization that comes only from waiting is not an improvement"
