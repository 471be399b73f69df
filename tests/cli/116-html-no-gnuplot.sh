#!/usr/bin/env bash
# Without gnuplot the page is still written, whole, with a visible note
# where each chart would be and one warning on stderr; a gnuplot that fails
# gets its stderr quoted in that warning.  An output that cannot be written
# is exit 1 with the path in the message.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
mkdir g
"$VT_BUILD/gentrace" --ranks 2 --steps 3 --blocks 2 -o g/run --truth truth.json >/dev/null ||
	die "gentrace failed"

# a PATH with nothing but what the test needs: no gnuplot
mkdir bin
for tool in python3; do ln -s "$(command -v $tool)" bin/; done
PATH=$PWD/bin va none --html none.html --json none.json g/
expect_rc none 0
python3 "$VT_ROOT/tests/html_check.py" none.html none.json --charts no ||
	die "the page without gnuplot is wrong (lines above)"
[ "$(grep -c . none.err)" = 1 ] || die "expected one line on stderr, got: $(cat none.err)"
expect_line none.err '^vanalyze: warning: gnuplot not found' "stderr without gnuplot"
expect_line none.html 'Chart not drawn: gnuplot not found' "the note on the page"

# a gnuplot that fails: its message is quoted
cat >bin/gnuplot <<'SH'
#!/bin/sh
echo '"plot.gp" line 7: something went wrong' >&2
exit 3
SH
chmod +x bin/gnuplot
PATH=$PWD/bin va bad --out out g/
expect_rc bad 0
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts no ||
	die "the page with a failing gnuplot is wrong (lines above)"
expect_line bad.err 'gnuplot failed \(exit status 3\): "\\?"plot.gp\\?" line 7: something went wrong' \
	"stderr with a failing gnuplot"
[ -s out/tables/kernels.csv ] || die "no CSV tables with a failing gnuplot"

va nodir --html no/such/dir/r.html g/
expect_rc nodir 1
expect_line nodir.err "^vanalyze: cannot write 'no/such/dir/r.html" "unwritable --html"
: >afile
va notdir --out afile g/
expect_rc notdir 1
expect_line notdir.err "afile" "--out onto a file"
echo "pass: no gnuplot, failing gnuplot, unwritable outputs"
