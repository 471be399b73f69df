#!/usr/bin/env bash
# A torch.compile'd model in steady state runs every call inside dynamo's
# per-call wrappers (eval_frame.py's compile_wrapper, "Torch-Compiled Region",
# CompiledFunction, Inductor's generated call): those say where the host is,
# not why the device waits.  A launch-bound compiled run (kernels launched one
# by one, short gaps) is launch overhead, its first finding idle-launch, not
# "a compilation window".  Compilation proper (convert_frame's _compile,
# compile_fx, Triton autotuning) inside the same wrapper stays compile.  Both
# agree with tests/oracle_idle.py.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

# gen OUT FIRST_COMPILE_MS: six steps of 200 kernels of 5 us, each launched
# 40 us after the last, all under the wrappers; with FIRST_COMPILE_MS > 0 the
# trace has no steps and opens with a first call that compiles that long.
gen() {
	python3 - "$1" "$2" <<'PY'
import gzip, json, sys
out, comp_ms = sys.argv[1], int(sys.argv[2])
ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
def X(name, cat, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)
t, corr = 1000.0, 1
for step in range(6):
    n = 200
    body = n * 40.0 + 20
    if comp_ms and step == 0:
        body += comp_ms * 1000.0
    if not comp_ms:
        X("ProfilerStep#%d" % step, "user_annotation", t, body + 10)
    X("torch/_dynamo/eval_frame.py(655): compile_wrapper", "python_function", t + 1, body)
    X("Torch-Compiled Region: 0/0", "user_annotation", t + 2, body - 2)
    X("CompiledFunction", "cpu_op", t + 3, body - 4)
    X("/tmp/torchinductor_u/ab/cab3.py(120): call", "python_function", t + 4, body - 6)
    k = t + 8
    if comp_ms and step == 0:
        X("torch/_dynamo/convert_frame.py(1002): _compile", "python_function", k, comp_ms * 600.0)
        X("torch/_inductor/compile_fx.py(700): compile_fx", "python_function", k + 10,
          comp_ms * 600.0 - 20)
        X("triton/runtime/autotuner.py(150): autotune", "python_function", k + comp_ms * 600.0,
          comp_ms * 400.0)
        k += comp_ms * 1000.0
    for i in range(n):
        X("cudaLaunchKernel", "cuda_runtime", k, 4.0, correlation=corr)
        X("triton_poi_fused_%d" % (i % 7), "kernel", k + 6, 5.0, pid=0, tid=7,
          correlation=corr, device=0, stream=7)
        corr += 1
        k += 40.0
    t += body + 50
json.dump({"schemaVersion": 1, "traceEvents": ev}, gzip.open(out, "wt"))
PY
}

gen steady.json.gz 0 || die "writing the steady trace failed"
va steady --json steady.json steady.json.gz
expect_rc steady 0
python3 "$VT_ROOT/tests/oracle_idle.py" steady.json.gz steady.json ||
	die "steady compiled run: the idle attribution differs from the oracle"
check steady.json 'r["ranks"][0]["idle"]["by_cause"]["compile"] == 0' "no compilation in steady state" \
	'r["ranks"][0]["idle"]["by_cause"]["launch"] > 0.9 * r["ranks"][0]["idle"]["idle_ns"]' \
	"steady compiled run: launch overhead" \
	'r["suggestions"][0]["id"] == "idle-launch"' "steady compiled run: idle-launch first" \
	'"profile-window" not in [s["id"] for s in r["suggestions"]]' "no compilation window"

gen first.json.gz 300 || die "writing the compiling trace failed"
va first --json first.json first.json.gz
expect_rc first 0
python3 "$VT_ROOT/tests/oracle_idle.py" first.json.gz first.json ||
	die "first compiling call: the idle attribution differs from the oracle"
check first.json 'r["ranks"][0]["idle"]["by_cause"]["compile"] >= 299e6' "compilation proper is compile" \
	'r["ranks"][0]["idle"]["top"][0]["cause"] == "compile"' "the longest gap: compile" \
	'"convert_frame" in r["ranks"][0]["idle"]["top"][0]["host"]' "named after dynamo's _compile" \
	'r["suggestions"][0]["id"] == "profile-window"' "a compilation window" \
	'"compilation window" in r["suggestions"][0]["message"]' "worded as compilation"
echo "ok: steady compiled run is launch overhead, its compilation is compile"
