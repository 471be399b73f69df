#!/usr/bin/env bash
# vaggregate's terminal summary against an independent python3 computation:
# for every metric row, min / max / avg / median / stddev (population) and
# the ranks holding min and max, recomputed from the merged report's ranks
# (not from its cross_rank), to the digits printed (three significant ones,
# each value with its unit).  Rows are "MIN rMIN MAX rMAX AVG MEDIAN STDDEV
# METRIC".  The stragglers listed
# are the report's.  Inputs: the 8 DLRM ranks, each analysed alone.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

i=0
for f in "$PUBLIC"/facebookresearch__param/*dlrm*worker*.json.gz; do
	va map$i -q -j 2 --json "rep$i.json" "$f"
	expect_rc map$i 0
	i=$((i + 1))
done
[ $i -eq 8 ] || die "expected 8 DLRM traces, found $i"

vg agg --full --details --json agg.json rep*.json
expect_rc agg 0
python3 - agg.json agg.out <<'PY' || die "the summary disagrees with the recomputation"
import json, math, re, statistics, sys
import os
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from vtcheck import metric_label, rank_metric as value  # noqa: E402

rep = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
ranks = rep["ranks"]
SCALE = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9, "B": 1, "KiB": 1024.0,
         "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4, "%": 0.01, "x": 1, "/s": 1,
         "": 1}
# a value as printed: digits, then a unit after a space (ns, MiB) or none (%, x, /s)
VAL = r"(-?[0-9]+(?:\.[0-9]+)?(?: (?:ns|\u00b5s|ms|s|B|KiB|MiB|GiB|TiB)|%|x|/s)?)"


def parse(text):
    """The value and the half-unit of its last digit, from the text printed."""
    m = re.fullmatch(r"(-?[0-9]+(?:\.([0-9]+))?) ?(.*)", text)
    num, dec, unit = m.group(1), m.group(2) or "", m.group(3)
    if dec and len(num.lstrip("-").replace(".", "").lstrip("0")) != 3:
        sys.exit("not three significant digits: %r" % text)
    return float(num) * SCALE[unit], 0.5 * 10 ** -len(dec) * SCALE[unit]



if lines[0] != "%d reports, %d ranks" % (8, len(ranks)):
    sys.exit("header line: %r" % lines[0])
# then what was profiled: the run's device and world size (run_info.h)
run = rep["run"]
if not lines[1].startswith("run  ") or run["device"]["name"] not in lines[1]:
    sys.exit("run line: %r (report: %r)" % (lines[1], run))
del lines[1]
row = re.compile(r"^\s+" + VAL + r" r(\d+)\s+" + VAL + r" r(\d+)\s+" + VAL + r"\s+" + VAL +
                 r"\s+" + VAL + r"  (\S.*)$")
rows = 0
for line in lines[2:]:
    if not line.startswith("  ") or line.startswith("  ("):
        break
    m = row.match(line)
    if not m:
        sys.exit("unparsable row: %r" % line)
    lo, lo_r, hi, hi_r, avg, med, sd, label = m.groups()
    # the metric's words (vtcheck.metric_label), cut in the middle where long:
    # the one key they stand for
    pat = re.compile(".+".join(re.escape(p) for p in label.split("\u2026")), re.S)
    full = [k for k in rep["cross_rank"] if pat.fullmatch(metric_label(k)) and
            (not k.startswith("phase:") or k.count("/") < 2)]   # deeper phases are not shown
    if len(full) != 1:
        sys.exit("%r stands for %d keys" % (label, len(full)))
    metric = full[0]
    vals = [(rk["rank"], value(rk, metric)) for rk in ranks]
    vals = [(k, float(v)) for k, v in vals if v is not None and not (isinstance(v, float) and math.isnan(v))]
    xs = [v for _, v in vals]
    if not xs:
        sys.exit("%s: no rank has this metric (%r)" % (metric, line))
    want = {"min": min(xs), "max": max(xs), "avg": statistics.fmean(xs),
            "median": statistics.median(xs), "stddev": statistics.pstdev(xs)}
    got = dict(zip(("min", "max", "avg", "median", "stddev"),
                   (parse(v) for v in (lo, hi, avg, med, sd))))
    for key in want:
        shown, half = got[key]
        if abs(shown - want[key]) > half * 1.0000001 + 1e-9 * abs(want[key]):
            sys.exit("%s %s: summary %r, recomputed %r (%r)" % (metric, key, shown, want[key], line))
    if int(lo_r) != next(k for k, v in vals if v == want["min"]) or \
       int(hi_r) != next(k for k, v in vals if v == want["max"]):
        sys.exit("%s: ranks holding min/max wrong: %r" % (metric, line))
    rows += 1
if rows < 15:
    sys.exit("only %d metric rows" % rows)
strag = [l for l in lines if l.startswith("  rank ") and
         ("against the median" in l or "holds the others back" in l)]
want = ["  rank %d holds the others back:" % s["rank"] if "wait_imposed_ns" in s else
        "  rank %d: %s" % (s["rank"], metric_label(s["metric"])) for s in rep["stragglers"]]
if len(strag) != len(want) or any(not l.startswith(w + " ") for l, w in zip(strag, want)):
    sys.exit("stragglers: %r, report %r" % (strag, want))
sugg = [l for l in lines if re.match(r"^  [0-9]+\. \[(high|medium|low)\] ", l)]
if len(sugg) != len(rep["suggestions"]):
    sys.exit("%d suggestion lines, report has %d" % (len(sugg), len(rep["suggestions"])))
print("pass: %d metric rows, %d stragglers, %d suggestions" % (rows, len(strag), len(sugg)))
PY
