#!/usr/bin/env bash
# A gap whose next item was launched long before the device started it is
# the device's own wait, not host compute: the host queued the item 2 ms into
# a 150 ms gap, whatever it did next.  Named after what the device waited on
# where the trace shows it: a stream's event wait queued with the launch, a
# graph launch; else unnamed.  Host work up to a launch just before the item
# stays host compute.  Each agrees with tests/oracle_idle.py.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

# gen OUT VARIANT: four 150 ms gaps, each ended by a 1 ms kernel, and how
# that kernel was launched (event, graph, plain: 2 ms into the gap; host:
# after 149 ms of host work that launches nothing).
gen() {
	python3 - "$1" "$2" <<'PY'
import gzip, json, sys
out, how = sys.argv[1], sys.argv[2]
ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
def X(name, cat, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)
corr = 1
def kernel(at, launch_at, call="cudaLaunchKernel"):
    global corr
    X(call, "cuda_runtime", launch_at, 8.0, correlation=corr)
    X("gemm_%d" % corr, "kernel", at, 1000.0, pid=0, tid=7, correlation=corr, device=0,
      stream=7)
    corr += 1
kernel(1000.0, 990.0)
a = 2000.0
for i in range(4):
    b = a + 150000.0
    if how == "event":
        X("cudaStreamWaitEvent", "cuda_runtime", a + 1000.0, 3.0)
        kernel(b, a + 2000.0)
    elif how == "graph":
        kernel(b, a + 2000.0, "cudaGraphLaunch")
    elif how == "plain":
        kernel(b, a + 2000.0)
    else:
        X("preprocess", "cpu_op", a + 10.0, 149700.0)
        kernel(b, b - 100.0)
    X("aten::copy_", "cpu_op", a + 3000.0, 100000.0, tid=2)  # other host work meanwhile
    a = b + 1000.0
json.dump({"schemaVersion": 1, "traceEvents": ev}, gzip.open(out, "wt"))
PY
}

for v in event graph plain host; do
	gen $v.json.gz $v || die "writing the $v trace failed"
	va $v --json $v.json $v.json.gz
	expect_rc $v 0
	python3 "$VT_ROOT/tests/oracle_idle.py" $v.json.gz $v.json ||
		die "$v: the idle attribution differs from the oracle"
done
I='r["ranks"][0]["idle"]'
for v in event graph plain; do
	check $v.json "$I[\"by_cause\"][\"device_wait\"] >= 4 * 149e6" "$v: 4 gaps of device-side wait" \
		"$I[\"by_cause\"][\"host_compute\"] == 0" "$v: no host compute" \
		"$I[\"top\"][0][\"cause\"] == \"device_wait\"" "$v: the longest gap is device_wait" \
		'r["suggestions"][0]["id"] == "idle-device-wait"' "$v: idle-device-wait first" \
		'"device-side waiting" in r["suggestions"][0]["message"]' "$v: worded as device-side"
done
check event.json "$I[\"top\"][0][\"host\"] == \"cudaStreamWaitEvent\"" "event: named after the event wait"
check graph.json "$I[\"top\"][0][\"host\"] == \"cudaGraphLaunch\"" "graph: named after the graph launch"
check plain.json "$I[\"top\"][0][\"host\"] is None" "plain: unnamed"
check host.json "$I[\"by_cause\"][\"device_wait\"] == 0" "host: no device-side wait" \
	"$I[\"by_cause\"][\"host_compute\"] >= 4 * 149e6" "host: host compute" \
	"$I[\"top\"][0][\"host\"] == \"preprocess\"" "host: named after its host work"
echo "ok: work launched long before it ran is device-side waiting, named where the trace shows it"
