#!/usr/bin/env bash
# Hostile inputs, fourth pass: idle attribution (doc/idle.md) linear in gaps
# plus host spans, whatever the nesting.
# - N gaps launched under N nested host spans of every class, open across
#   all of them, against 4N under 4N: under 6 times as long (best of two
#   runs each).  Each gap looked at every open span: 0.71 s and 14.4 s.
# - N gaps under an N/10-deep Python stack, against 4N under 4N/10: 0.22 s
#   and 2.17 s before.
# - N gaps launched after the last item (host windows that overlap, each
#   over the spans of host work after its gap), against 4N: 1.03 s and
#   18.6 s before.
# - tests/oracle_idle.py (independent, from the doc) agrees on small ones,
#   and on random spans of every class, nested and overlapping, sharing
#   starts and ends, with launches after their item (host windows that
#   overlap) and items without a correlation.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# scaling NAME FILE1 FILE4: FILE4 (4N) takes under 6 times as long as FILE1 (N)
scaling() {
	python3 - "$VANALYZE" "$@" <<'PY' || die "$1: superlinear (line above)"
import subprocess, sys, time
exe, name, f1, f4 = sys.argv[1:]
def best(path):
    t = []
    for _ in range(2):
        a = time.monotonic()
        rc = subprocess.call([exe, "-q", "--json", path + ".out", path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.monotonic() - a)
        if rc != 0:
            sys.exit("%s: exit status %d" % (path, rc))
    return min(t)
t1, t2 = best(f1), best(f4)
print("%s: N %.2f s, 4N %.2f s, ratio %.2f" % (name, t1, t2, t2 / t1))
if t2 > 6 * t1:
    sys.exit("%s: four times N took %.1f times as long" % (name, t2 / t1))
PY
}

gen idlenest nest-1.json 4000
gen idlenest nest-4.json 16000
scaling "gaps x open spans" nest-1.json nest-4.json
gen pystack stack-1.json 10000 1000
gen pystack stack-4.json 40000 4000
scaling "gaps under a Python stack" stack-1.json stack-4.json
gen latelaunch late-1.json 4000
gen latelaunch late-4.json 16000
scaling "overlapping host windows" late-1.json late-4.json

# oracle FILE: the attribution of FILE agrees with tests/oracle_idle.py
oracle() {
	va "$1" -q --json "$1.report" "$1"
	expect_rc "$1" 0
	python3 "$VT_ROOT/tests/oracle_idle.py" "$1" "$1.report" >"$1.oracle" 2>&1 || {
		cat "$1.oracle"
		die "$1: idle attribution differs from the oracle"
	}
}

gen idlenest nest.json 300
oracle nest.json
check nest.json.report \
	'{(g["cause"], g["host"]) for g in r["ranks"][0]["idle"]["top"][2:]} == {("capture", "capture_graph 7")}' \
	"the first capture span covering a gap named"
gen pystack stack.json 300 100
oracle stack.json
gen latelaunch late.json 300
oracle late.json
for seed in 1 2 3 4 5 6 7 8; do
	gen idlemix "mix$seed.json" $((5 + 7 * seed)) "$seed"
	oracle "mix$seed.json"
done
echo ok
