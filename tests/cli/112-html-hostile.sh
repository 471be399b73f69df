#!/usr/bin/env bash
# Trace strings that are markup, quotes, commas, newlines, backslashes,
# gnuplot syntax and invalid UTF-8 come out as text: in the HTML (no element
# they could make, the names shown as written), in the CSV (RFC 4180
# quoting, read back exactly by python's csv module), and never inside a
# chart.  The temporary directory for gnuplot may have a quote in its name
# and is removed afterwards.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
python3 "$VT_ROOT/tests/hostile_trace.py" hostile-rank0.json || die "cannot write the hostile trace"

# gnuplot's directory goes under a TMPDIR with a quote and a space in its name
tmp="$PWD/it's tmp"
mkdir -p "$tmp"
TMPDIR=$tmp va h --out out hostile-rank0.json
expect_rc h 0
[ -z "$(ls -A "$tmp")" ] || die "files left in TMPDIR: $(ls -A "$tmp")"
[ ! -e pwned ] && [ ! -e out/pwned ] || die "a kernel name ran a command"
if command -v gnuplot >/dev/null; then charts=yes; else charts=no; fi
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts $charts \
	--text '<script>alert(1)</script>' --text 'say "hi", it'"'"'s & <b>bold</b>' \
	--text $'comma,sep\nnew line\tand\\back' --text '{}^_@&~ gnuplot $1 `touch pwned` "quoted"' \
	--text ']]></svg><img src=x onerror=alert(2)>' --text $'bad utf8 \uFFFD\uFFFD end' \
	--text '<i>phase</i> & "x"' || die "the hostile page is wrong (lines above)"
python3 - out <<'PY' || die "hostile names leak into markup, charts or CSV"
import csv, os, re, sys
d = sys.argv[1]
html = open(d + "/report.html", encoding="utf-8").read()
for bad in ("<script", "<img", "<b>", "<i>"):
    if bad in html:
        sys.exit("raw %r in the page" % bad)
# names reach a chart only as the text of its bar labels (the kernel chart)
for svg in re.findall(r"<svg.*?</svg>", html, re.S):
    for text in re.findall(r"<text>(.*?)</text>", svg, re.S):
        if "<" in text or "`" in text or "%" in text:
            sys.exit("a chart label with markup, a backquote or a %%: %r" % text)
    outside = re.sub(r"<text>.*?</text>", "", svg, flags=re.S)
    for word in ("alert", "pwned", "quoted", "bold", "utf8"):
        if word in outside:
            sys.exit("%r inside a chart, outside its labels" % word)
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from hostile_trace import SHOWN
want = set(SHOWN)
with open(d + "/tables/kernels.csv", newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))
got = {r[1] for r in rows[1:]}
if got != want:
    sys.exit("kernels.csv names: %r" % sorted(got))
if any(len(r) != len(rows[0]) for r in rows):
    sys.exit("kernels.csv rows of different lengths")
PY
echo "pass: hostile names stay text"
