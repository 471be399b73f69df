#!/usr/bin/env bash
# The HTML report of the 8-rank DLRM set: it parses, every chart is an
# inline <svg>, every number shown equals report.json (tests/html_check.py
# reads data-key/data-v back and recomputes the derived figures), the page
# is under 2 MB, and it is byte-identical across runs and at -j 1 and -j 2.
# Rendering adds well under a second to vanalyze (timed in the plain build).
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
cmp -s j1.html out/report.html || die "-j 1 --html and -j 2 --out pages differ"
no_line j1.err 'warning' "vanalyze's stderr with gnuplot installed"
[ -z "$(ls -A tmp)" ] || die "gnuplot's directory was left behind: $(ls -A tmp)"

if [ "$VT_SANITIZED" = 0 ]; then
	# best of three each: the machine is shared, a single run can stall
	python3 - "$VANALYZE" "$@" <<'PY' || die "rendering is too slow"
import subprocess, sys, time
exe, files = sys.argv[1], sys.argv[2:]
def best(extra):
    t = []
    for _ in range(3):
        a = time.monotonic()
        subprocess.run([exe, "-q", "--json", "t.json"] + extra + files, check=True)
        t.append(time.monotonic() - a)
    return min(t)
base, html = best([]), best(["--html", "t.html"])
print("vanalyze %.3f s, with --html %.3f s: rendering adds %.3f s" % (base, html, html - base))
sys.exit(0 if html - base < 1.0 else 1)
PY
fi
echo "pass: DLRM 8 ranks, $(wc -c <out/report.html) bytes, $nsvg charts"
