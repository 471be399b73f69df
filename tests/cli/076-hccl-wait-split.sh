#!/usr/bin/env bash
# HCCL's time inside collectives split as torch_npu splits it: transfer,
# synchronisation (waiting for a late peer) and idle inside the operator.
#  1. each level1 Ascend rank alone: gpu.comm_transfer_ns, comm_sync_ns,
#     comm_idle_ns and the wait less idle within 10 % of torch_npu's own
#     communication.json (Total Op Info: Transit, Synchronization, Idle,
#     Wait), read here as the oracle; comm_ns within 1 % of its Elapse;
#     each instance's transfer_ns, sync_ns and idle_ns against the
#     vendor's row of that operator (within 10 % or 1 us).
#  2. the comm-wait finding follows the part that dominates: idle, so it
#     says the collectives sat idle, and never that the rank waits for its
#     peers; analysed together (matched), the idle time is still a finding
#     of both ranks, at stake the idle time, not the straggler's.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

for r in 0 1; do
	tr=("$PUBLIC"/Ascend__msinsight/*level1__rank${r}_*trace_view.json.gz)
	cj=("$TRACES"/vendor-analysis/*level1__rank${r}_*communication.json)
	[ -f "${tr[0]}" ] && [ -f "${cj[0]}" ] || die "level1 rank $r: trace or communication.json missing"
	va r$r -q --json r$r.json "${tr[0]}"
	expect_rc r$r 0
	python3 - r$r.json "${cj[0]}" <<'PY' || die "rank $r: the split differs from torch_npu's"
import json, sys
g = json.load(open(sys.argv[1]))["ranks"][0]["gpu"]
v = next(iter(json.load(open(sys.argv[2])).values()))["collective"]["Total Op Info"]["Communication Time Info"]
ms = lambda k: v[k + " Time(ms)"] * 1e6
got = {"Elapse": g["comm_ns"], "Transit": g["comm_transfer_ns"],
       "Synchronization": g["comm_sync_ns"], "Idle": g["comm_idle_ns"],
       "Wait": g["comm_wait_ns"] - g["comm_idle_ns"]}
bad = []
for k, x in got.items():
    tol = 0.01 if k == "Elapse" else 0.10
    if not isinstance(x, int) or abs(x - ms(k)) > tol * ms(k):
        bad.append("%s: vtrace %r ns, torch_npu %.0f ns" % (k, x, ms(k)))
if g["comm_wait_source"] != "device_tasks":
    bad.append("wait source %r" % g["comm_wait_source"])
ops = next(iter(json.load(open(sys.argv[2])).values()))["collective"]
rows = {s["collective"]: s for s in json.load(open(sys.argv[1]))["ranks"][0]["comm_instances"]}
for name, op in ops.items():
    if name == "Total Op Info":
        continue
    t = op["Communication Time Info"]
    s = rows.get(name.split("@")[0])
    if not s or len(s["durations_ns"]) != 1:
        bad.append("%s: no single instance in the report" % name)
        continue
    for key, col in (("transfer_ns", "Transit"), ("sync_ns", "Synchronization"), ("idle_ns", "Idle")):
        want = t[col + " Time(ms)"] * 1e6
        x = (s.get(key) or [None])[0]
        if not isinstance(x, int) or abs(x - want) > max(0.1 * want, 1000):
            bad.append("%s %s: vtrace %r ns, torch_npu %.0f ns" % (name, key, x, want))
if bad:
    sys.exit("\n".join(bad))
print("pass: " + ", ".join("%s %.3f ms" % (k, x / 1e6) for k, x in got.items()))
PY
	check r$r.json '[s for s in r["suggestions"] if s["id"] == "comm-wait"]' "the idle time is a finding" \
		'all("idle" in s["message"] and "neither moving data nor waiting for a peer" in s["message"] for s in r["suggestions"] if s["id"] == "comm-wait")' \
		"its words follow the idle time, which dominates" \
		'not [s for s in r["suggestions"] if "collectives for its peers" in s["message"]]' \
		"it never says the rank waits for its peers inside the collectives" \
		'r["ranks"][0]["gpu"]["comm_sync_ns"] + r["ranks"][0]["gpu"]["comm_idle_ns"] <= r["ranks"][0]["gpu"]["comm_wait_ns"]' \
		"synchronisation and idle are parts of the wait"
done
pair=("$PUBLIC"/Ascend__msinsight/*level1__rank[01]_*trace_view.json.gz)
va pair -q --json pair.json "${pair[@]}"
expect_rc pair 0
check pair.json '[s["rank"] for s in r["suggestions"] if s["id"] == "comm-wait"] in ([0, 1], [None])' \
	"matched, the idle time is a finding of both ranks" \
	'all(s["impact_ns"] == max(k["gpu"]["comm_idle_ns"] for k in r["ranks"]) and "sit idle" in s["message"] for s in r["suggestions"] if s["id"] == "comm-wait")' \
	"at stake: the idle time"
echo "pass: HCCL's wait split as torch_npu's communication analysis"
