#!/usr/bin/env bash
# Events not read make a rank incomplete: text after the
# top-level value (two traces in one file, plain or as two gzip members, or
# a corruption that closes traceEvents early) is warned about with its
# offset, the rank says "complete": false and vanalyze exits 1; white space
# after the end is nothing.  The events before are analysed as they were.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
zcat "$VT_ROOT/testdata/demo/fastvideo-rank0.trace.json.gz" >t.json || die "no demo trace"
python3 - <<'PY' || die "cannot write the inputs"
import gzip, re
t = open("t.json", "rb").read()
open("two.json", "wb").write(t + t)
open("two.json.gz", "wb").write(gzip.compress(t) + gzip.compress(t))
# close traceEvents after a third of the events: the rest follows as text
cut = [m.start() for m in re.finditer(rb"\}\s*,\s*\n\s*\{", t)]
i = cut[len(cut) // 3] + 1
open("early.json", "wb").write(t[:i] + b"]}" + t[i:])
open("early.at", "w").write("%d\n" % (i + 2))
open("ws.json", "wb").write(t + b"\n \t\r\n")
PY

# summary NAME: complete and events.total of the one rank of NAME.json
summary() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
print(r["complete"], r["events"]["total"])' "$1.json"
}

va whole -q --json whole.json t.json
expect_rc whole 0
read -r ok total < <(summary whole)
[ "$ok" = True ] || die "the whole trace is not complete"

for f in two.json two.json.gz ws.json; do
	name=${f//./-}
	va "$name" -q --json "$name.json" "$f"
	read -r ok n < <(summary "$name")
	[ "$n" = "$total" ] || die "$f: $n events, expected the first trace's $total"
	if [ "$f" = ws.json ]; then
		expect_rc "$name" 0
		[ "$ok" = True ] || die "$f: white space after the end made it incomplete"
		[ ! -s "$name.err" ] || die "$f: warned: $(cat "$name.err")"
		continue
	fi
	expect_rc "$name" 1
	[ "$ok" = False ] || die "$f: \"complete\" is $ok with a second trace not read"
	expect_line "$name.err" "^vanalyze: warning: $f: byte [0-9]+: text after the end of the trace not read"
done

va early-cut -q --json early-cut.json early.json
expect_rc early-cut 1
read -r ok n < <(summary early-cut)
[ "$ok" = False ] || die "early close: \"complete\" is $ok"
[ "$n" -gt 0 ] && [ "$n" -lt "$total" ] || die "early close: $n events of $total"
expect_line early-cut.err "^vanalyze: warning: early.json: byte $(cat early.at): text after the end of the trace not read"
echo ok
