#!/usr/bin/env bash
# The profile-window finding judges the analysed window only: 100 ms of idle
# before the first step (no host activity there, init by position alone)
# never makes steady launch-bound steps "a start-up window"; the steps keep
# their steady advice (idle-launch first).  A whole-trace window made of
# start-up calls (cudaStreamCreate, cudnnCreate) is a start-up window that
# names its evidence.  Both agree with tests/oracle_idle.py.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

# gen OUT LEAD_MS STEPS INIT_MS
gen() {
	python3 - "$@" <<'PY'
import gzip, json, sys
out, lead_ms, steps, init_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
def X(name, cat, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)
X("aten::empty", "cpu_op", 0.0, 10.0)
t, corr = lead_ms * 1000.0, 1
if init_ms:
    X("cudaStreamCreateWithPriority", "cuda_runtime", t, init_ms * 600.0)
    X("cudnnCreate", "cuda_runtime", t + init_ms * 600.0, init_ms * 400.0)
    t += init_ms * 1000.0
for step in range(steps):
    n = 200
    body = n * 40.0 + 20
    if steps > 1:
        X("ProfilerStep#%d" % (50 + step), "user_annotation", t, body + 10)
    k = t + 5
    for i in range(n):
        X("aten::add", "cpu_op", k - 1, 6.0)
        X("cudaLaunchKernel", "cuda_runtime", k, 4.0, correlation=corr)
        X("elementwise_kernel_%d" % (i % 5), "kernel", k + 6, 5.0, pid=0, tid=7,
          correlation=corr, device=0, stream=7)
        corr += 1
        k += 40.0
    t += body + 50
json.dump({"schemaVersion": 1, "traceEvents": ev}, gzip.open(out, "wt"))
PY
}

gen lead.json.gz 100 5 0 || die "writing the trace failed"
va lead --json lead.json lead.json.gz
expect_rc lead 0
python3 "$VT_ROOT/tests/oracle_idle.py" lead.json.gz lead.json ||
	die "lead-in: the idle attribution differs from the oracle"
check lead.json 'r["ranks"][0]["idle"]["window"] == "steps"' "steady steps window" \
	'r["ranks"][0]["idle"]["outside"]["by_cause"]["init"] > 99e6' "the lead-in reported apart" \
	'"profile-window" not in [s["id"] for s in r["suggestions"]]' "no start-up window from the lead-in" \
	'r["suggestions"][0]["id"] == "idle-launch"' "steady steps keep their advice"

gen init.json.gz 1 1 200 || die "writing the start-up trace failed"
va init --json init.json init.json.gz
expect_rc init 0
python3 "$VT_ROOT/tests/oracle_idle.py" init.json.gz init.json ||
	die "start-up: the idle attribution differs from the oracle"
check init.json 'r["suggestions"][0]["id"] == "profile-window"' "start-up calls: a start-up window" \
	'"start-up window" in r["suggestions"][0]["message"]' "worded as start-up" \
	'"cudaStreamCreate" in r["suggestions"][0]["message"]' "names its evidence"
echo "ok: the window alone decides the profile-window finding"
