#!/usr/bin/env bash
# Nothing raw to a terminal (it would act on it): kernel and phase
# names, file names, a report's schema and ranks[].source that would set a
# window title, clear the screen, reorder a line (U+202E, U+2066) or hide in
# it (U+FEFF, U+200B) reach stdout and stderr of vanalyze, vaggregate and
# vcompare, text and markdown, only as '?' (lib/util/tsafe.h); and
# vcompare --markdown leaves no @mention live.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# clean NAME...: every NAME.out and NAME.err is UTF-8 without a control (but
# newline), a bidi control or an invisible format character.
clean() {
	python3 - "$@" <<'PY' || die "raw input text on a terminal (lines above)"
import sys, unicodedata
bad = []
for name in sys.argv[1:]:
    for f in (name + ".out", name + ".err"):
        b = open(f, "rb").read()
        try:
            t = b.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append("%s: not UTF-8: %s" % (f, e))
            t = b.decode("utf-8", "replace")
        for i, c in enumerate(t):
            o = ord(c)
            if (c != "\n" and (o < 0x20 or 0x7f <= o < 0xa0)) or unicodedata.category(c) in ("Cf", "Zl", "Zp"):
                bad.append("%s: U+%04X at character %d: %r" % (f, o, i, t[max(0, i - 20):i + 20]))
                break
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

gen terminal t.json
gen terminal t2.json " v2"
# a file name that is itself hostile, holding a cut trace: the error names it
evil=$(printf 'evil\033[2J\302\233\342\200\256.json')
head -c 300 t.json >"$evil"

va summary --all --out out t.json
expect_rc summary 0
grep -q 'rlo ? evil' summary.out || die "the summary does not show the names replaced"
va summary2 --json t2.report t2.json
expect_rc summary2 0
va evilfile --json evil.report "$evil"
expect_rc evilfile 1
expect_line evilfile.err '^vanalyze: (warning: )?evil\?\[2J\?\?\.json: ' "the cut file is named, made safe"
# JSON on standard output: the same characters as \u escapes, read back exactly
va json --json - t.json
expect_rc json 0
python3 - json.out <<'PY' || die "the JSON report does not give the names back"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from hostile_inputs import TERMINAL
names = {k["name"] for k in json.load(open(sys.argv[1]))["ranks"][0]["kernels"]}
missing = set(TERMINAL) - names
if missing:
    sys.exit("kernel names not read back: %r" % sorted(missing))
PY
clean summary summary2 evilfile json
echo "pass: vanalyze: names and file names reach the terminal made safe"

gen termreport hostile.report out/report.json
mkdir -p dup && cp hostile.report dup/a.json && cp hostile.report dup/b.json
vg dup --reports_dir dup
expect_line dup.err "was read from '.*' already" "the duplicate rank is reported"
vg schema hostile.report.schema
expect_rc schema 1
expect_line schema.err 'schema "\?\]0;pwned\?\?\[2Jvtrace.report/1"' "the schema is quoted, made safe"
clean dup schema
echo "pass: vaggregate: a report's schema and sources reach the terminal made safe"

vc cmp out/report.json t2.report
vc md --markdown - out/report.json t2.report
vc cmpschema out/report.json hostile.report.schema
expect_rc cmpschema 2
clean cmp md cmpschema
grep -q 'rlo ? evil' cmp.out || die "vcompare does not show the names replaced"
grep -q '`@`octocat ping' md.out || die "vcompare --markdown does not show the @name in a code span"
python3 - md.out <<'PY' || die "vcompare --markdown leaves an @mention live (lines above)"
import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
# outside code spans, GitHub reads "@name" after a non-word character as a mention
live = re.findall(r"(?:^|\W)@[A-Za-z0-9]", re.sub(r"`[^`]*`", "", t))
if live:
    sys.exit("live mentions: %r" % live)
PY
echo "pass: vcompare: text and markdown made safe, no live @mention"
