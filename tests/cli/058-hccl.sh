#!/usr/bin/env bash
# Collectives on Ascend: waiting told from transfer inside HCCL
# collectives, matched across ranks, in the vendor's words.
#  1. the shared level0 rank: every figure against tests/hccl_oracle.py (an
#     independent reading of the hcom_* operators and their Notify Wait and
#     SDMA tasks), and against torch_npu's own step breakdown
#     (vendor-analysis/..step_trace_time.csv: Communication and Computing
#     within 1 %); transfer under 10 ms; the waiting is a finding of its own,
#     and no finding names NVIDIA's hardware or libraries.
#  2. tests/hccl_trace.py runs of 2 and 4 ranks on one host clock, one rank
#     planted late: the collectives matched, the late rank named, every
#     rank's wait and transfer as the oracle and the planted truth say, clock
#     offsets zero, map + vaggregate the same report.
#  3. the same run without HCCL's tasks: said in a warning, and the wait
#     comes from matching the ranks.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate
HOR=$VT_ROOT/tests/hccl_oracle.py
GEN=$VT_ROOT/tests/hccl_trace.py

# no NVIDIA word in any finding of report $1
no_nvidia() {
	check "$1" 'not [s for s in r["suggestions"] for w in ("NVLink", "InfiniBand", "NCCL", "CUDA", "GPU", "nvidia") if w in s["message"] + s["details"]]' \
		"no finding names NVIDIA's hardware or libraries"
}

level0=("$PUBLIC"/Ascend__msinsight/*level0*trace_view.json.gz)
csv=("$TRACES"/vendor-analysis/*level0*step_trace_time.csv)
[ -f "${level0[0]}" ] && [ -f "${csv[0]}" ] || die "the Ascend level0 trace or its step_trace_time.csv is missing"
va level0 --details --json level0.json "${level0[0]}"
expect_rc level0 0
python3 "$HOR" level0.json "${level0[0]}" || die "level0: vanalyze and hccl_oracle.py differ"
python3 - level0.json "${csv[0]}" <<'PY' || die "level0 against torch_npu's step breakdown"
import csv, json, sys
g = json.load(open(sys.argv[1]))["ranks"][0]["gpu"]
row = next(csv.DictReader(open(sys.argv[2])))
for key, col in (("comm_ns", "Communication"), ("compute_ns", "Computing")):
    want = float(row[col]) * 1000
    if abs(g[key] - want) > 0.01 * want:
        sys.exit("%s %d ns, torch_npu's %s %.0f ns" % (key, g[key], col, want))
print("pass: comm and compute within 1% of torch_npu's step_trace_time.csv")
PY
check level0.json 'r["ranks"][0]["gpu"]["comm_wait_source"] == "device_tasks"' "wait from HCCL's tasks" \
	'r["ranks"][0]["gpu"]["comm_transfer_ns"] < 10_000_000' "transfer under 10 ms" \
	'r["ranks"][0]["gpu"]["comm_wait_ns"] > 0.9 * r["ranks"][0]["gpu"]["comm_ns"]' "most of it waiting" \
	'r["ranks"][0]["gpu"]["effective_utilization"] < 0.2' "the NPU does little useful work" \
	'[s for s in r["suggestions"] if s["id"] == "comm-wait" and "HCCL" in s["message"]]' \
	"the waiting is a finding" \
	'not [s for s in r["suggestions"] if s["id"] == "comm-heavy-low-overlap" and s["impact_ns"] > 10e6]' \
	"the interconnect is not blamed for the waiting"
no_nvidia level0.json
no_line level0.out 'NVLink|InfiniBand|NCCL|CUDA' "the summary names NVIDIA's words"
va level0-page -q --html level0.html --json level0-page.json "${level0[0]}"
expect_rc level0-page 0
python3 "$VT_ROOT/tests/html_check.py" level0.html level0-page.json || die "the level0 page is wrong"
python3 - level0.html <<'PY' || die "the level0 page does not show the wait"
import html, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
sec = page[page.index('<section id="collectives">'):]
sec = sec[:sec.index("</section>")]
text = html.unescape(re.sub(r"<[^>]+>", " ", sec))
if "records its HCCL collectives' own tasks" not in text or \
        "comm_wait_ns" not in sec or "NCCL " in text:
    sys.exit("who waits for whom: %r" % text[:400])
PY
echo "pass: level0: waiting told from transfer"

python3 "$GEN" two --ranks 2 --late 1@2=15 || die "hccl_trace.py failed"
two=(two/hccl-rank*.trace.json.gz)
map_reduce two 0 "${two[@]}"
python3 "$HOR" two.json "${two[@]}" || die "two ranks: vanalyze and hccl_oracle.py differ"
check two.json '[s["rank"] for s in r["stragglers"]] == [1]' "the late rank is named, alone" \
	'r["stragglers"][0]["delays_most"]["collective"] == "hcom_allReduce__606_2_1"' "at the step it was late" \
	'len(r["collectives"]) == 4 and all(c["ranks"] == 2 and c["bytes"] == 16777216 for c in r["collectives"])' \
	"every collective matched, with its size from count and data_type" \
	'all(rk["clock_offset_ns"] == 0 for rk in r["ranks"])' "one host clock: zero offsets" \
	'all(abs(rk["gpu"]["comm_wait_ns"] - load("two/truth.json")["ranks"][str(rk["rank"])]["wait_us"] * 1000) < 1000 for rk in r["ranks"])' \
	"each rank's wait as planted" \
	'all(rk["gpu"]["comm_transfer_ns"] == load("two/truth.json")["ranks"][str(rk["rank"])]["transfer_us"] * 1000 for rk in r["ranks"])' \
	"each rank's transfer as planted" \
	'r["suggestions"][0]["id"] == "straggler" and r["suggestions"][0]["rank"] == 1' "the first finding names it" \
	'not [s for s in r["suggestions"] if s["id"] == "comm-wait"]' "matched ranks: the straggler finding speaks"
no_nvidia two.json
echo "pass: two ranks: rank 1 late"

python3 "$GEN" four --ranks 4 --steps 6 --late 3@1=10 --late 3@4=10 || die "hccl_trace.py failed"
four=(four/hccl-rank*.trace.json.gz)
map_reduce four 0 "${four[@]}"
python3 "$HOR" four.json "${four[@]}" || die "four ranks: vanalyze and hccl_oracle.py differ"
check four.json '[s["rank"] for s in r["stragglers"]] == [3]' "rank 3, and only rank 3" \
	'abs(r["stragglers"][0]["wait_imposed_ns"] - 3 * 2 * 10_000_000) < 1000' "3 ranks wait 10 ms twice"
no_nvidia four.json
echo "pass: four ranks: rank 3 late"

python3 "$GEN" bare --ranks 2 --late 1@2=15 --no-tasks || die "hccl_trace.py failed"
bare=(bare/hccl-rank*.trace.json.gz)
va bare -q --json bare.json "${bare[@]}"
expect_rc bare 0
expect_line bare.err 'HCCL collectives but not their device tasks' "the missing tasks are said"
check bare.json 'all(rk["gpu"]["comm_wait_source"] == "matched_ranks" for rk in r["ranks"])' \
	"the wait comes from matching" \
	'r["ranks"][0]["gpu"]["comm_wait_ns"] == 15_000_000 and r["ranks"][1]["gpu"]["comm_wait_ns"] == 0' \
	"rank 0 waits the 15 ms rank 1 is late" \
	'[s["rank"] for s in r["stragglers"]] == [1]' "rank 1 is named"
echo "pass: without HCCL's tasks, matching"
