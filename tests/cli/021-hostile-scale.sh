#!/usr/bin/env bash
# Hostile inputs, third pass: time linear in each
# dimension of a rank.  Each trace of tests/hostile_inputs.py is analysed at
# N and 4N (with --html, which draws the phases); four times N must take
# about four times as long, not sixteen.  A quadratic scan showed: 10,000
# and 40,000 distinct annotation names took 1.3 s and 15 s before.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# scaling KIND N: the time of 4N over that of N is under 6 (best of two runs each)
scaling() {
	local kind=$1 n=$2
	gen "$kind" "$kind-1.json" "$n"
	gen "$kind" "$kind-2.json" $((4 * n))
	python3 - "$VANALYZE" "$kind" <<'PY' || die "$kind: superlinear (line above)"
import subprocess, sys, time
exe, kind = sys.argv[1], sys.argv[2]
def best(path):
    t = []
    for _ in range(2):
        a = time.monotonic()
        rc = subprocess.call([exe, "-q", "--json", kind + ".json", "--html", kind + ".html", path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.monotonic() - a)
        if rc != 0:
            sys.exit("%s: exit status %d" % (path, rc))
    return min(t)
t1, t2 = best(kind + "-1.json"), best(kind + "-2.json")
print("%s: N %.2f s, 4N %.2f s, ratio %.2f" % (kind, t1, t2, t2 / t1))
if t2 > 6 * t1:
    sys.exit("%s: four times N took %.1f times as long" % (kind, t2 / t1))
PY
}

scaling annots 10000
scaling steps 25000
scaling kernels 25000
echo ok
