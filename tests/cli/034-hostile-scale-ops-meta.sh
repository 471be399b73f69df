#!/usr/bin/env bash
# Hostile inputs, fourth pass: CPU operators that share a thread and a
# start, and a trace top level of many small members, in linear time.
# - 4N operators at one start (each longer than the one before) must take
#   under 6 times as long as N (best of two runs each); ordering them longest
#   first by insertion took 0.7 s for 20,000 and 9.9 s for 80,000.  Each is
#   the parent of the next shorter one, 1 us longer: every name's self time
#   is 1 us a call.
# - 160,000 top-level members (3.5 MB, half before traceEvents and half
#   after) must read in under twice the time of 5.5 MB of kernel events; the
#   reader moved the rest of its chunk down for each member: 1.56 s against
#   0.21 s.  Every member is read: all but the 32 tags kept are counted.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# best EXE TRACE...: the least of two run times of each trace, one a line
best() {
	python3 - "$VANALYZE" "$@" <<'PY'
import subprocess, sys, time
exe = sys.argv[1]
for path in sys.argv[2:]:
    t = []
    for _ in range(2):
        a = time.monotonic()
        rc = subprocess.call([exe, "-q", "--json", path + ".out", path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.monotonic() - a)
        if rc != 0:
            sys.exit("%s: exit status %d" % (path, rc))
    print("%.4f" % min(t))
PY
}

n=20000
gen sameops ops-1.json $n
gen sameops ops-2.json $((4 * n))
t=$(best ops-1.json ops-2.json) || die "sameops: vanalyze failed"
python3 - $t <<'PY' || die "operators at one start: superlinear (line above)"
import sys
t1, t2 = map(float, sys.argv[1:])
print("sameops: N %.2f s, 4N %.2f s, ratio %.2f" % (t1, t2, t2 / t1))
if t2 > 6 * t1:
    sys.exit("four times N took %.1f times as long" % (t2 / t1))
PY
python3 - ops-1.json.out $n <<'PY' || die "operators at one start: wrong self times"
import json, sys
n = int(sys.argv[2])
ops = json.load(open(sys.argv[1]))["ranks"][0]["cpu_ops"]
want = {"op%d" % k: len(range(k, n, 7)) for k in range(7)}
got = {o["name"]: o["count"] for o in ops}
if got != want:
    sys.exit("counts %r, want %r" % (got, want))
for o in ops:
    if o["self_ns"] != 1000 * o["count"]:
        sys.exit("%s: self_ns %d for %d calls of 1 us" % (o["name"], o["self_ns"], o["count"]))
    if o["total_ns"] != sum(1000 * (i + 1) for i in range(int(o["name"][2:]), n, 7)):
        sys.exit("%s: total_ns %d" % (o["name"], o["total_ns"]))
PY

m=160000
gen topkeys keys.json $m
gen kernels kernels.json 50000
t=$(best keys.json kernels.json) || die "topkeys: vanalyze failed"
python3 - $t <<'PY' || die "top-level members read slowly (line above)"
import sys
tk, te = map(float, sys.argv[1:])
print("top level: 3.5 MB of members %.2f s, 5.5 MB of events %.2f s" % (tk, te))
if tk > 2 * te:
    sys.exit("the members took %.1f times as long as the events" % (tk / te))
PY
va keys --json keys.report keys.json
expect_rc keys 0
expect_line keys.err "$((m - 32)) metadata keys beyond the first 32 left out"
check keys.report 'r["run"]["tags"] == {"meta_%d" % i: str(i) for i in range(32)}' "the first 32 tags"
echo ok
