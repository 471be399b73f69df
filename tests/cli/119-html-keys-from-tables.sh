#!/usr/bin/env bash
# The page's data-keys and vcompare's JSON keys come from field tables
# (lib/model/field.h), so that a key is spelled once:
#
# - the HTML sections that show report figures (kernels, phases,
#   collectives, stragglers, roofline, operators, cross-rank cells, summary
#   cards, findings, inputs, steps, idle) spell no key of report_fields.c's
#   tables, neither as a string nor as a key inside a data-key's JSON path
#   ([\"ranks\",%zu,\"gpu\",...]); the words listed below are such
#   spellings that are not report keys there, each with why;
# - render/comparison.c names no JSON key by a literal: its keys are its
#   own tables' (vtrace.compare/2);
# - and the keys so made still name report.json's values: html_check.py
#   over a 4-rank run with a straggler (collectives, stragglers and their
#   delays_most, clock offsets, phases, operators).
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vcompare

python3 - "$VT_ROOT" <<'PY' || die "report keys spelled outside the field tables (lines above)"
import re, sys
root = sys.argv[1]
uncomment = lambda s: re.sub(r"/\*.*?\*/", "", s, flags=re.S)
fields = uncomment(open(root + "/lib/model/report_fields.c").read())
keys = set(re.findall(r'\b[A-Z]\("([a-z_0-9]+)"', fields))
keys |= set(re.findall(r'FIELD_TABLE(?:_LEAN)?\("([a-z_0-9]+)"', fields))
keys |= set(re.findall(r'\.(?:csv_)?key = "([a-z_0-9]+)"', fields))
for k in ("max_ns", "stddev_ns", "algbw_gbps", "peak_share", "self_device_ns", "stragglers"):
    if k not in keys:
        sys.exit("report_fields.c's keys not found (%d read): %s" % (len(keys), k))
# (file, word): spelled there, but not as a report key
allowed = {
    ("html_gpu.c", "other"): "a kernel category, a value of kernels[].category",
    ("html_gpu.c", "device"): "vendor_words' word for a device of no known kind",
    ("html_gpu.c", "ranks"): "data-calc's name for the roll-up's count of ranks (rollup.h)",
    ("html_gpu.c", "category"): "data-calc's name for a category's time on a rank",
    ("html_collectives.c", "collectives"): "a value of straggler_rule",
    ("html_collectives.c", "step"): "a value of straggler_rule, said in the text",
    ("html_ops.c", "device"): "a column's heading",
    ("html_sections.c", "device"): "vendor_words' word for a device of no known kind",
    ("html_sections.c", "ranks"): "a summary card's label",
    ("html_sections.c", "collectives"): "a value of straggler_rule",
}
lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
bad = 0
for f in ("html_gpu.c", "html_phases.c", "html_collectives.c", "html_roofline.c", "html_ops.c",
          "html_sections.c", "html_steps.c", "html_findings.c", "html_idle.c",
          "html_util.c"):
    src = uncomment(open(root + "/render/" + f).read())
    for n, line in enumerate(src.split("\n"), 1):
        if line.lstrip().startswith("#include"):
            continue
        for m in lit.finditer(line):
            s = m.group(1)
            for w in [s] + re.findall(r'[\[,]\\"([a-z_0-9]+)\\"', s):
                if w in keys and (f, w) not in allowed:
                    print("render/%s:%d: report key %r spelled, not from its field table"
                          % (f, n, w))
                    bad += 1
src = uncomment(open(root + "/render/comparison.c").read())
for n, line in enumerate(src.split("\n"), 1):
    if re.search(r'\bjsonw_key\([^,]*,\s*"', line) or re.search(r'\bnum\([^,]*,\s*"', line):
        print("render/comparison.c:%d: a JSON key by a literal: %s" % (n, line.strip()))
        bad += 1
sys.exit(1 if bad else 0)
PY

mkdir g
"$VT_BUILD/gentrace" --ranks 4 --steps 3 --blocks 2 --straggler 2=1.5 -o g/run \
	--truth truth.json >/dev/null || die "gentrace failed"
va four -q --no-charts --out out g/
expect_rc four 0
expect_line out/report.html 'data-key=.\["stragglers",0,"delays_most","wait_ns"\]' \
	"the page's straggler table"
expect_line out/report.html 'data-key=.\["collectives",0,"busbw_gbps"\]' \
	"the page's collectives table"
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts no ||
	die "the page's data-keys do not name report.json's values (lines above)"

# vcompare's JSON: its keys in its order, every row's keys, and the kernels' objects
vc cmp --json cmp.json out/report.json out/report.json
expect_rc cmp 0
python3 - cmp.json <<'PY' || die "vcompare's JSON has other keys (lines above)"
import json, sys
d = json.load(open(sys.argv[1]))
top = ["schema", "base", "new", "threshold", "alpha", "base_run", "new_run", "run_differs",
       "regressions", "run_regressions", "improvements", "rows", "unchanged",
       "steps_not_compared", "totals_per_step", "kernels_added", "kernels_removed",
       "ranks_only_base", "ranks_only_new"]
row = ["metric", "rank", "better", "base", "new", "delta", "delta_pct", "threshold", "p",
       "samples", "verdict"]
if list(d) != top:
    sys.exit("top keys %s" % list(d))
if d["schema"] != "vtrace.compare/2" or not d["rows"]:
    sys.exit("schema %r, %d rows" % (d["schema"], len(d["rows"])))
for r in d["rows"]:
    if list(r) != row or len(r["samples"]) != 2 or r["verdict"] != "same":
        sys.exit("row %s" % r)
for k in ("kernels_added", "kernels_removed"):
    if list(d[k]) != ["count", "total_ns", "kernels"] or d[k]["count"] != 0:
        sys.exit("%s %s" % (k, d[k]))
PY
echo "pass: data-keys and vcompare's keys from the field tables"
