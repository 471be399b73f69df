#!/usr/bin/env bash
# What a reviewer reads from vcompare (and vaggregate): words, not keys.
#  1. the terminal's first line is the verdict with the end-to-end change in
#     one sentence, its figures those of the run's span row in the JSON
#     (formatted here, three significant digits);
#  2. the table and the markdown name metrics by vanalyze's labels (no
#     "phase:...total_ns" key); the JSON and --details keep the keys;
#  3. without --all, the few rows that explain the change (12 at most) and
#     a line counting the other changed rows; the markdown's verdict heading
#     comes first, then the end-to-end sentence;
#  4. a kernel's signature in a markdown cell is cut to 60 columns;
#  5. vaggregate's summary at 80 columns: every line fits, each metric row
#     names its metric in words (no key), no two rows read the same, and
#     each stands for exactly one key of the report's cross_rank.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vcompare
T=$TORCH_CPU
HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
mkdir two four
cp "$T"/dev-2rank-default-rank*.trace.json.gz two/
cp "$T"/dev-4rank-straggler2-rank*.trace.json.gz four/

COLUMNS=80 vc cpu --json cpu.cmp --markdown cpu.md two four
expect_rc cpu 1
python3 - <<'PY' || die "vcompare's words (lines above)"
import json, math, re, sys

c = json.load(open("cpu.cmp", encoding="utf-8"))
out = open("cpu.out", encoding="utf-8").read().split("\n")
md = open("cpu.md", encoding="utf-8").read().split("\n")


def fmt_ns(ns):
    """doc/figures.md: three significant digits, trailing zeros kept."""
    for unit, div in (("s", 1e9), ("ms", 1e6), ("\u00b5s", 1e3), ("ns", 1)):
        if abs(ns) >= div or unit == "ns":
            v = ns / div
            dec = max(0, 2 - math.floor(math.log10(abs(v)))) if v else 0
            return "%.*f %s" % (dec, v, unit)


span = next(r for r in c["rows"] if r["metric"] == "span_ns" and r["rank"] is None)
tps = c["totals_per_step"]      # one video against two: per video
per = "run" if not tps else "video" if tps["per"] == "generation" else "step"
e2e = "end to end %+.1f%%: %s \u2192 %s per %s" % (100 * span["delta_pct"], fmt_ns(span["base"]),
                                                 fmt_ns(span["new"]), per)
bad = []
if out[0] != "vcompare: REGRESSED, " + e2e:
    bad.append("first line %r, want %r" % (out[0], "vcompare: REGRESSED, " + e2e))
KEY = re.compile(r"(phase|op|kernel|memory|tflops):|\.(total|median)_ns|_ns\b|^(gpu|throughput|steps)\.")
rows = [l for l in out if re.search(r"\s(REGRESSED|improved|noise|same|more waiting)$", l)]
names = [l for l in out if l and not l.startswith(" ") and l not in rows]
keys = [l for l in rows + names if KEY.search(l.split("  ")[0])]
if keys:
    bad.append("keys in the table: %r" % keys[:3])
if not any(r["metric"].startswith("phase:") for r in c["rows"]):
    bad.append("the JSON lost its keys")
changed = [r for r in c["rows"] if r["verdict"] != "same"]
if not 0 < len(rows) <= 12 or len(rows) >= len(changed):
    bad.append("%d rows shown of %d changed" % (len(rows), len(changed)))
more = "%d more changed rows, of the run and of each rank (--all lists them)" % (
    len(changed) - len(rows))
if more not in out:
    bad.append("no line %r" % more)
if not md[0].startswith("### vcompare: :x: ") or md[2] != "**" + e2e[0].upper() + e2e[1:] + ".**":
    bad.append("markdown opens %r" % md[:3])
cells = [l.split(" | ")[0][2:] for l in md if l.startswith("| ") and not l.startswith("| metric ")]
if len(cells) != len(rows) or any(KEY.search(x.replace("\\", "")) for x in cells):
    bad.append("markdown metric cells %r" % cells[:4])
for b in bad:
    print(b)
print("%d rows of %d changed; %s" % (len(rows), len(changed), out[0]))
sys.exit(1 if bad else 0)
PY

# --details names the metrics by their keys, as the JSON
COLUMNS=80 vc keys --details two four
expect_rc keys 1
expect_line keys.out '^span_ns +all ' "--details: the span's key"
expect_line keys.out '^phase:inference_denoising\.total_ns$' "--details: a phase's key"

# 4. kernel signatures in markdown cells: cut to 60 columns, each still its own
vc hta --all --markdown hta.md "$HTA/tests__data__trace_diff__control__control.json.gz" \
	"$HTA/tests__data__trace_diff__test__test.json.gz"
expect_rc hta 1
python3 - <<'PY' || die "kernel cells in markdown (lines above)"
import html, re, sys

md = open("hta.md", encoding="utf-8").read().split("\n")
cells = [re.split(r"(?<!\\) \| ", l)[0][2:] for l in md if l.startswith("| kernel ")]
plain = [html.unescape(re.sub(r"\\(.)", r"\1", x)) for x in cells]
long = [x for x in plain if len(x) > 60]
if len(cells) < 5 or long or not any("\u2026" in x for x in plain):
    sys.exit("%d kernel cells, %d over 60 columns: %r" % (len(cells), len(long), long[:2]))
ranks = [l.split(" | ")[1] for l in md if l.startswith("| kernel ")]
if len(set(zip(cells, ranks))) != len(cells):
    sys.exit("two kernel rows read the same")
print("%d kernel cells within 60 columns" % len(cells))
PY

# 5. vaggregate at 80 columns
need_vaggregate
mkdir reps
i=0
for f in "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*; do
	"$VANALYZE" -q --json reps/r$i.json "$f" 2>/dev/null || die "vanalyze $f"
	i=$((i + 1))
done
COLUMNS=80 vg agg --json agg.json reps
expect_rc agg 0
python3 - "$VT_ROOT/tests" <<'PY' || die "vaggregate at 80 columns (lines above)"
import json, re, sys
sys.path.insert(0, sys.argv[1])
from vtcheck import metric_label

rep = json.load(open("agg.json", encoding="utf-8"))
lines = open("agg.out", encoding="utf-8").read().split("\n")
wide = [l for l in lines if len(l) > 80]
head = next(i for i, l in enumerate(lines) if l.split()[:2] == ["min", "rank"])
rows = []
for l in lines[head + 1:]:
    if not l.startswith("  ") or l.startswith("  ("):
        break
    rows.append(re.split(r"  +", l.strip())[-1])
KEY = re.compile(r"(phase|op|kernel|memory|tflops):|_ns\b|^(gpu|throughput|steps|idle)\.")
bad = ["lines over 80 columns: %r" % wide[:2]] if wide else []
bad += ["a key: %r" % r for r in rows if KEY.search(r)]
if len(rows) < 20 or len(set(rows)) != len(rows):
    bad.append("%d rows, %d distinct" % (len(rows), len(set(rows))))
for r in rows:
    # cut in the middle (maybe more than once): the one key whose words it fits
    pat = re.compile(".+".join(re.escape(p) for p in r.split("\u2026")), re.S)
    keys = [k for k in rep["cross_rank"] if pat.fullmatch(metric_label(k)) and
            (not k.startswith("phase:") or k.count("/") < 2)]   # deeper phases are not shown
    if len(keys) != 1:
        bad.append("%r stands for %d keys" % (r, len(keys)))
for b in bad:
    print(b)
print("vaggregate: %d metric rows in words within 80 columns" % len(rows))
sys.exit(1 if bad else 0)
PY
echo "ok"
