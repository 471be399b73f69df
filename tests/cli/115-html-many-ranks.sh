#!/usr/bin/env bash
# A 1,024-rank run: the page stays under 5 MB and readable: per-rank bars
# become lines over the ranks (a few dozen SVG paths per chart, not
# thousands of bars), long per-rank tables are cut to what a reader looks
# for, and the straggler (rank 700, computing 1.3 times slower) heads the
# slowest-steps table.  About 10 s under the sanitizers.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"
ranks=1024 slow=700
mkdir g
"$VT_BUILD/gentrace" --ranks $ranks --steps 3 --blocks 2 --straggler $slow=1.3 --no-wait \
	-o g/run --truth truth.json >/dev/null || die "gentrace failed"
va many --out out g/
expect_rc many 0
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts yes \
	--max-bytes 5000000 || die "the $ranks-rank page is wrong (lines above)"
python3 - out/report.html $ranks $slow <<'PY' || die "the $ranks-rank page is not readable"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
ranks, slow = int(sys.argv[2]), sys.argv[3]
charts = re.findall(r'aria-label="([^"]*)">(<svg.*?</svg>)', html, re.S)
if len(charts) < 6:
    sys.exit("only %d charts" % len(charts))
for label, svg in charts:
    paths = svg.count("<path")
    if paths > 400 or len(svg) > 1500000:
        sys.exit("%s: %d paths, %d bytes" % (label, paths, len(svg)))
i = html.index('<section id="steps">')
steps = html[i:html.index("</section>", i)]
rows = re.findall(r'\["ranks",\d+,"rank"\]\' data-v="(\d+)"', steps)
if len(rows) != 10 or rows[0] != slow:
    sys.exit("slowest-steps table: %s" % rows)
if html.count("<tr>") > 3 * ranks:
    sys.exit("%d table rows for %d ranks" % (html.count("<tr>"), ranks))
print("%d ranks: %d bytes, %d charts" % (ranks, len(html.encode()), len(charts)))
PY
echo "pass: many ranks"
