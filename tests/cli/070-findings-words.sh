#!/usr/bin/env bash
# The findings as a reader meets them:
#  1. the summary's lead is wrapped, never cut: at 80 and 120 columns each
#     finding shown is its whole message (report.json), every line fits, the
#     lead takes at most 4 lines (fewer findings where they wrap), and the
#     count of the others is right;
#  2. a straggler's finding says who waits for whom, how long per step and
#     how often the rank is last (the per-step wait computed here from the
#     report's stragglers and steps), never a ratio to the median; a CPU
#     (gloo) run's straggler names the waiting ranks too; under the step
#     rule, the rank's median step and the median rank's in time, and the
#     stragglers' line names no key;
#  3. every message uses the vendor's words: an AMD trace (gentrace's with
#     HIP runtime names) advises PYTORCH_HIP_ALLOC_CONF and never names
#     CUDA; an NVIDIA one keeps PYTORCH_CUDA_ALLOC_CONF; the run-wide
#     straggler finding of a GPU run names the GPU.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
[ -x "$VT_BUILD/gentrace" ] || die "$VT_BUILD/gentrace is not built"

dlrm=("$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*)
[ "${#dlrm[@]}" = 8 ] || die "expected the 8 DLRM ranks, found ${#dlrm[@]}"
mkdir g
"$VT_BUILD/gentrace" --ranks 8 --steps 4 --blocks 3 --straggler 5=1.3 -o g/run >/dev/null ||
	die "gentrace failed"
rm -f g/run-truth.json

cat >lead.py <<'PYEOF'
import json, re, sys

out, rep, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(out, encoding="utf-8").read().split("\n")
msgs = [s["message"] for s in json.load(open(rep, encoding="utf-8"))["suggestions"]]
i = next(k for k, l in enumerate(lines) if l.startswith("findings ("))
lead, shown = [], []
for l in lines[i + 1:]:
    if re.match(r"  \(", l) or not l.startswith(" "):
        hint = l
        break
    lead.append(l)
    m = re.match(r"  [0-9]+\. +\S+ \S+ \([^)]*\) +(.*)", l)
    if m:
        shown.append(m.group(1))
    else:
        if not shown or not l.startswith("     ") or l.startswith("      "):
            sys.exit("%d: not a finding's next line: %r" % (width, l))
        shown[-1] += " " + l.strip()
bad = [l for l in lead if len(l) > width or l.endswith("\u2026")]
if bad:
    sys.exit("%d: lines cut or too long: %r" % (width, bad))
if not shown or (len(shown) > 1 and len(lead) > 4):
    sys.exit("%d: %d findings in %d lines" % (width, len(shown), len(lead)))
for k, s in enumerate(shown):
    if s != msgs[k]:
        sys.exit("%d: finding %d is %r, the report says %r" % (width, k + 1, s, msgs[k]))
more = len(msgs) - len(shown)
want = "  (%d more; --details shows every finding in full)" % more if more else \
    "  (--details shows the advice and the evidence)"
if hint != want:
    sys.exit("%d: %r, want %r" % (width, hint, want))
print("%d columns: %d findings whole in %d lines, %d more" % (width, len(shown), len(lead), more))
PYEOF

# 1. the lead at 80 and 120 columns
for w in 80 120; do
	COLUMNS=$w va dlrm-$w --json dlrm-$w.json "${dlrm[@]}"
	expect_rc dlrm-$w 0
	python3 lead.py dlrm-$w.out dlrm-$w.json $w || die "DLRM at $w columns (line above)"
	COLUMNS=$w va gen-$w --json gen-$w.json g
	expect_rc gen-$w 0
	python3 lead.py gen-$w.out gen-$w.json $w || die "gentrace at $w columns (line above)"
done

# 2. the straggler's words, its wait per step from the report
cat >straggler.py <<'PYEOF'
import json, math, re, sys

rep = json.load(open(sys.argv[1], encoding="utf-8"))
waiters = sys.argv[2]
st = rep["stragglers"][0]
rank = next(r for r in rep["ranks"] if r["rank"] == st["rank"])
f = next(s for s in rep["suggestions"] if s["id"] == "straggler")
m = f["message"]


def fmt(ns):
    """doc/figures.md: three significant digits, trailing zeros kept."""
    for unit, div in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3), ("ns", 1)):
        if abs(ns) >= div or unit == "ns":
            v = ns / div
            dec = max(0, 2 - math.floor(math.log10(abs(v)))) if v else 0
            return "%.*f %s" % (dec, v, unit)


if sys.argv[2] == "step rule":
    # no collectives matched: the rank's median step against the median rank's, in time
    want = "Rank %d is slower than the others: its median step is %s where the median " \
        "rank's is %s, and the others wait for it" % (st["rank"], fmt(st["value"]), fmt(st["median"]))
    line = "  rank %d: step (median) %s against the median %s (%+.0f%%)" % (
        st["rank"], fmt(st["value"]), fmt(st["median"]), 100 * st["excess"])
    if want not in m or line not in open(sys.argv[3], encoding="utf-8").read().split("\n"):
        sys.exit("%r or %r missing (%r)" % (want, line, m))
    print("step rule: %s" % m)
    sys.exit(0)
if "median" in m or re.search(r"[0-9]% longer", m):
    sys.exit("a ratio to the median: %r" % m)
per = st["wait_imposed_ns"] / len(rank["steps"]["durations_ns"])
want = ["Rank %d holds the others back" % st["rank"],
        "last at %.3g%% of its collectives" % (100 * st["last_share"]),
        "%s wait for it %s in all, %s per step" % (waiters, fmt(st["wait_imposed_ns"]), fmt(per))]
for w in want:
    if w not in m:
        sys.exit("%r is not in %r" % (w, m))
print("straggler: %s" % m)
PYEOF
python3 straggler.py gen-80.json "ranks 0–4, 6, 7" || die "gentrace's straggler (line above)"
COLUMNS=80 va gloo --details --json gloo.json "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc gloo 0
python3 straggler.py gloo.json "ranks 0, 1, 3" || die "the gloo run's straggler (line above)"
no_line gloo.out 'longer than the median' "the gloo run's findings"
# the step rule (no collectives: gentrace's ranks without them): the step in time
mkdir nw nc
"$VT_BUILD/gentrace" --ranks 8 --steps 4 --blocks 2 --straggler 5=1.5 --no-wait -o nw/run >/dev/null ||
	die "gentrace failed"
python3 - <<'PY' || die "cannot drop the collectives"
import glob, gzip, json, os
for f in sorted(glob.glob("nw/run-rank*.trace.json.gz")):
    d = json.load(gzip.open(f))
    d["traceEvents"] = [e for e in d["traceEvents"] if not any(
        k in str(e.get("name", "")).lower() for k in ("all_to_all", "nccl", "all_reduce", "c10d"))]
    json.dump(d, gzip.open("nc/" + os.path.basename(f), "wt"))
PY
COLUMNS=100 va steprule --json steprule.json nc
expect_rc steprule 0
[ "$(pycheck get steprule.json 'r["straggler_rule"]')" = steps ] || die "not the step rule"
python3 straggler.py steprule.json "step rule" steprule.out || die "the step rule's straggler (line above)"

# 3. the vendor's words: the same planted allocator stall on NVIDIA and AMD
mkdir n
"$VT_BUILD/gentrace" --steps 6 --blocks 3 --plant memory@3=20 -o n/run >/dev/null ||
	die "gentrace failed"
zcat n/run-rank0.trace.json.gz | sed 's/"cuda\([A-Z]\)/"hip\1/g' | gzip -1 >amd.json.gz
COLUMNS=100 va nv --details --json nv.json n/run-rank0.trace.json.gz
expect_rc nv 0
COLUMNS=100 va amd --details --json amd.json amd.json.gz
expect_rc amd 0
[ "$(pycheck get amd.json 'r["ranks"][0]["device"]["vendor"]')" = amd ] || die "amd.json.gz is not AMD's"
expect_line nv.out 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True' "NVIDIA's allocator advice"
expect_line amd.out 'PYTORCH_HIP_ALLOC_CONF=expandable_segments:True' "AMD's allocator advice"
sed -n '/^findings in detail/,$p' amd.out >amd-findings.txt
no_line amd-findings.txt 'CUDA|Hopper|NCCL|NVLink' "AMD's findings"
# the straggler rule is run-wide: its advice still knows the run's device
pycheck get gen-80.json '[s["details"] for s in r["suggestions"] if s["id"] == "straggler"][0]' >gen-d.txt
expect_line gen-d.txt 'busy-looking GPU time are that waiting' "the GPU run's straggler advice"
echo "ok"
