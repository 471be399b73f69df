#!/usr/bin/env bash
# Why the device waits (doc/idle.md): vanalyze's ranks[].idle and
# gpu.step_utilization agree exactly with tests/oracle_idle.py (written apart,
# from the doc alone) on the 8 real H100 traces of testdata/gpu (each with
# one planted cause, see scripts/record_gpu_traces.py) and on every shared
# public trace with device work; each planted cause is the largest of its
# trace and leads the findings; the shared traces' known shapes are found
# (resnet50 num_workers=0: DataLoader stalls; vLLM's capture: a capture
# window with no graph advice; Kineto 2021 autograd: a start-up window).
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

GPU=$VT_ROOT/testdata/gpu
checked=0
oracle() {	# FILE: analysed alone, then the oracle over the same file
	"$VANALYZE" -q --json r.json "$1" 2>/dev/null || die "vanalyze failed on $1"
	# tests/oracle_idle.py, its result cached for the test run (vtcheck.py)
	pycheck idle "$1" r.json >oracle.out 2>&1 || {
		cat oracle.out
		die "idle attribution differs from the oracle on $1"
	}
	checked=$((checked + 1))
}

# planted: FILE CAUSE FINDING: the cause holds the most idle time of the
# window and the finding comes first.
planted() {
	oracle "$GPU/$1.trace.json.gz"
	python3 - "$2" "$3" <<'PY' || die "$1: planted cause not found"
import json, sys
cause, finding = sys.argv[1], sys.argv[2]
r = json.load(open("r.json"))
rk = r["ranks"][0]
idle = rk["idle"]
whole = {k: v + idle["outside"]["by_cause"][k] for k, v in idle["by_cause"].items()}
top = max(whole, key=whole.get)
ids = [s["id"] for s in r["suggestions"]]
print("%s: %s %.1f ms of %.1f ms idle; findings %s" %
      (rk["source"], top, whole[top] / 1e6, (idle["idle_ns"] + idle["outside"]["idle_ns"]) / 1e6, ids))
if top != cause:
    sys.exit("largest cause %s, planted %s" % (top, cause))
if not ids or ids[0] != finding:
    sys.exit("first finding %s, want %s" % (ids[:1], finding))
# no steady-state graph advice on a start-up, capture or compilation window
if finding == "profile-window" and any(s["id"] == "idle-launch" or
                                       "graphs" in (s.get("details") or "") for s in r["suggestions"]):
    sys.exit("steady-state advice on a one-time window")
PY
}

# The start-up scenario profiles steady steps after 1.7 s of start-up: the
# start-up is reported apart (outside, slow-first-step) and never makes the
# steady steps a start-up window.
oracle "$GPU/startup.trace.json.gz"
check r.json 'r["ranks"][0]["idle"]["window"] == "steps"' "startup: steady steps window" \
	'r["ranks"][0]["idle"]["outside"]["by_cause"]["init"] > 1e9' "startup: init outside the steps" \
	'"profile-window" not in [s["id"] for s in r["suggestions"]]' "startup: steady steps keep their advice" \
	'"slow-first-step" in [s["id"] for s in r["suggestions"]]' "startup: the slow first step said"
planted dataloader data_loading idle-data-loading
planted hostprep host_compute idle-host-compute
planted sync sync idle-sync
planted launch launch idle-launch
planted compile compile profile-window
# The capture scenario: capture plus three replays.  Its capture shows as
# capture (the BeginCapture..EndCapture region), and no graph advice.
oracle "$GPU/capture.trace.json.gz"
check r.json 'r["ranks"][0]["idle"]["by_cause"]["capture"] > 3000000' "capture region" \
	'not [s for s in r["suggestions"] if s["id"] == "idle-launch"]' "no launch advice on a capture"
# The steady pipeline is device-bound: step utilization above 90 %.
oracle "$GPU/pipeline.trace.json.gz"
check r.json 'r["ranks"][0]["gpu"]["step_utilization"] > 0.9' "device-bound pipeline" \
	'r["ranks"][0]["idle"]["window"] == "steps"' "steady steps window"

need_shared
# Under the sanitizers 047-vendors already runs every public trace through
# this same `vanalyze -q --json`; their idle figures are the plain build's
# to check against the oracle.
for f in "$PUBLIC"/*/*.json.gz; do
	case $VT_SANITIZED:$f in
	1:* | *cpu_only* | *rank_non_gpu* | *rank_not_found* | *distributed_info_not_found* | \
	*cupti_profiler* | *tf_trace_viewer*) ;;	# no device work: idle is null
	*) oracle "$f" ;;
	esac
done
for f in "$TORCH_CPU"/*.trace.json.gz; do	# CPU only: no idle object
	"$VANALYZE" -q --json r.json "$f" 2>/dev/null
	check r.json 'r["ranks"][0]["idle"] is None' "$f: no idle on a CPU-only run" \
		'r["ranks"][0]["gpu"]["step_utilization"] is None' "$f: no step utilization"
done

"$VANALYZE" -q --json r.json "$PUBLIC"/pytorch__kineto/at-be239c04__*num_workers_0*.json.gz 2>/dev/null
check r.json 'r["ranks"][0]["idle"]["window"] == "steps"' "resnet50: steady steps" \
	'max(r["ranks"][0]["idle"]["by_cause"].items(), key=lambda kv: kv[1])[0] == "data_loading"' \
	"resnet50 num_workers=0: DataLoader stalls the largest cause" \
	'r["suggestions"][0]["id"] == "idle-data-loading"' "resnet50: data loading first"
"$VANALYZE" -q --json r.json "$PUBLIC"/AMD-AGI__TraceLens/*graph_capture_rank_0*.json.gz 2>/dev/null
check r.json 'r["suggestions"][0]["id"] == "profile-window"' "vLLM capture: profile-window first" \
	'"capture" in r["suggestions"][0]["message"]' "vLLM capture: a capture window" \
	'not [s for s in r["suggestions"] if "graphs" in (s.get("details") or "") and s["id"] != "profile-window"]' \
	"vLLM capture: no graph advice"
"$VANALYZE" -q --json r.json "$PUBLIC"/pytorch__kineto/at-02522842__*.json.gz 2>/dev/null
check r.json 'r["suggestions"][0]["id"] == "profile-window"' "Kineto 2021 autograd: a start-up window" \
	'not [s for s in r["suggestions"] if s["id"] == "idle-launch"]' "Kineto 2021 autograd: no launch advice"
echo "ok: $checked traces agree with the oracle"
