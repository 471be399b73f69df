#!/usr/bin/env bash
# The HTML report of the torch-cpu 4-rank straggler set (CPU only, gloo):
# it parses, its charts are inline SVG, its numbers equal report.json, and
# the straggler table names rank 2.  A single-rank page works too.
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"

va cpu --out out "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc cpu 0
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts yes ||
	die "the torch-cpu page is wrong (lines above)"
python3 - out/report.html <<'PY' || die "the straggler table does not name rank 2"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<td data-key=\'\["stragglers",(\d+),"rank"\]\' data-v="(\d+)">', html)
if [r for _, r in rows] != ["2"]:
    sys.exit("straggler rows: %s" % rows)
PY

va one --html one.html --json one.json "$TORCH_CPU"/dev-1rank-mem-shapes-rank0.trace.json.gz
expect_rc one 0
python3 "$VT_ROOT/tests/html_check.py" one.html one.json --charts yes ||
	die "the one-rank page is wrong (lines above)"
expect_line one.html 'One rank: nothing to compare' "one-rank page"
echo "pass: torch-cpu pages"
