#!/usr/bin/env bash
# The HTML report of the 8-rank DLRM set: it parses, every chart is an
# inline <svg>, every number shown equals report.json (tests/html_check.py
# reads data-key/data-v back and recomputes the derived figures), the page
# is under 2 MB, and it is byte-identical across runs and at -j 1 and -j 2.
# What rendering costs is measured by bench/render.sh (make bench).
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"
set -- "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz
[ $# -eq 8 ] || die "expected 8 DLRM traces, found $#"

va out -j 2 --out out --json plain.json "$@"
expect_rc out 0
[ -s out/report.html ] && [ -s out/report.json ] || die "--out wrote no report.html or report.json"
pycheck same out/report.json plain.json || die "--out's report.json differs from --json's"
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts yes \
	--max-bytes 2000000 || die "the DLRM page is wrong (lines above)"
nsvg=$(grep -c '<svg' out/report.html)
[ "$nsvg" -ge 5 ] || die "expected at least 5 charts, found $nsvg"

mkdir tmp
TMPDIR=$PWD/tmp va j1 -j 1 --html j1.html "$@"
expect_rc j1 0
# a page alone names the tables as --out's, one in --out as beside it
sed "s|--out's tables/|tables/|g" j1.html >j1-out.html
cmp -s j1-out.html out/report.html || die "-j 1 --html and -j 2 --out pages differ"
no_line j1.html '(>|; )tables/' "a page written alone points at tables/ beside it"
expect_line out/report.html '>tables/' "the --out page points at its tables"
no_line j1.err 'warning' "vanalyze's stderr with gnuplot installed"
[ -z "$(ls -A tmp)" ] || die "gnuplot's directory was left behind: $(ls -A tmp)"

echo "pass: DLRM 8 ranks, $(wc -c <out/report.html) bytes, $nsvg charts"
