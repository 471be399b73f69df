#!/usr/bin/env bash
# The profile-window finding judges the analysed window only: 100 ms of idle
# before the first step (no host activity there, init by position alone)
# never makes steady launch-bound steps "a start-up window"; the steps keep
# their steady advice (idle-launch first).  A whole-trace window made of
# start-up calls (cudaStreamCreate, cudnnCreate) is a start-up window that
# names its evidence.  A runtime call hundreds of times its name's median
# (a first launch that loads a module lazily) is init, even when it is the
# launching call itself and starts just after the gap does; the first call
# of an operator far longer than its later ones (cuDNN set-up inside the
# first conv1d) is init too; idle.top names each with its ratio.  All agree
# with tests/oracle_idle.py.
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
# outliers OUT: 300 launches of 4 us; launch 100 is a 200 ms call (lazy
# loading) that starts 20 us into its gap; then a first conv1d of 80 ms
# holding its launch at its end, and nine later ones of 100 us.
python3 - outl.json.gz <<'PY' || die "writing the outlier trace failed"
import gzip, json, sys
ev = []
def X(name, cat, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)
t, corr = 0.0, 1
def launch(t, dur):
    global corr
    X("cudaLaunchKernel", "cuda_runtime", t, dur, correlation=corr)
    X("k_%d" % (corr % 3), "kernel", t + dur + 2, 5.0, pid=0, tid=7, correlation=corr,
      device=0, stream=7)
    corr += 1
for i in range(300):
    if i == 100:
        t += 20
        launch(t, 200000.0)
        t += 200000.0
    else:
        launch(t, 4.0)
    t += 40.0
for i in range(10):
    dur = 80000.0 if i == 0 else 100.0
    X("aten::conv1d", "cpu_op", t, dur)
    launch(t + dur - 10, 4.0)
    t += dur + 50
json.dump({"schemaVersion": 1, "traceEvents": ev}, gzip.open(sys.argv[1], "wt"))
PY
va outl --json outl.json outl.json.gz
expect_rc outl 0
python3 "$VT_ROOT/tests/oracle_idle.py" outl.json.gz outl.json ||
	die "outliers: the idle attribution differs from the oracle"
check outl.json 'r["ranks"][0]["idle"]["by_cause"]["host_compute"] == 0' "outliers: no host compute" \
	'r["ranks"][0]["idle"]["by_cause"]["init"] >= 279e6' "outliers: init" \
	'r["ranks"][0]["idle"]["top"][0]["cause"] == "init"' "the slow launch: init" \
	'r["ranks"][0]["idle"]["top"][0]["host"] == "cudaLaunchKernel (50000x its median)"' \
	"the slow launch named with its ratio to the median" \
	'r["ranks"][0]["idle"]["top"][1]["cause"] == "init"' "the first conv1d: init" \
	'r["ranks"][0]["idle"]["top"][1]["host"] == "aten::conv1d (first call, 800x the mean of the later ones)"' \
	"the first conv1d named as the first call" \
	'r["suggestions"][0]["id"] == "profile-window"' "outliers: a start-up window"
echo "ok: the window alone decides the profile-window finding; outliers are start-up"
