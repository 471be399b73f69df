#!/usr/bin/env bash
# Who holds whom back, against tests/collectives_oracle.py (an independent
# python3 reading of the same traces, decimal timestamps): every rank's
# comm wait, transfer, effective utilization and clock offset, the
# collectives table and the stragglers.  Each run also goes through map +
# vaggregate, which must give the same report.
#  - DLRM, 8 ranks: rank 7 is the straggler, and none of the ranks that
#    wait (0, 1, 3) is named; the summary and the HTML say so.
#  - torch-cpu dev-4rank-straggler2 (gloo on CPU threads): rank 2 only; the
#    clock offsets agree with the trace_start_us of the meta file.
#  - two ranks late at different collectives: both named, each with half
#    of its collectives reached last.
#  - a cut-off rank that is late: listed as incomplete, never named, and
#    the instances it lacks are warned about on the other ranks.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

dlrm=("$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz)
[ "${#dlrm[@]}" -eq 8 ] || die "expected 8 DLRM worker traces, found ${#dlrm[@]}"
map_reduce dlrm 0 "${dlrm[@]}"
pycheck collectives dlrm.json "${dlrm[@]}" || die "DLRM: vanalyze and the oracle differ"
check dlrm.json '[s["rank"] for s in r["stragglers"]] == [7]' "rank 7 is the straggler, alone" \
	'r["straggler_rule"] == "collectives"' "named by the collectives rule" \
	'not {0, 1, 3} & {s["rank"] for s in r["stragglers"]}' "no waiting rank is named" \
	'all(rk["gpu"]["comm_wait_ns"] > 0 for rk in r["ranks"] if rk["rank"] != 7)' \
	"the others wait" \
	'max(r["ranks"], key=lambda rk: rk["gpu"]["effective_utilization"])["rank"] == 7' \
	"rank 7 does the most useful GPU work" \
	'not [s for s in r["suggestions"] if s["id"] == "low-gpu-utilization" and s["rank"] in (0, 1, 3)]' \
	"no low-utilization suggestion names a waiting rank"
va dlrm-term --html dlrm.html "${dlrm[@]}"
expect_rc dlrm-term 0
expect_line dlrm-term.out '^  rank 7 holds the others back: it arrives last at 62% of its collectives' \
	"summary names rank 7"
expect_line dlrm-term.out '^  the other ranks wait for it: rank 1 waits most' "summary: the others wait"
no_line dlrm-term.out '^  rank [0-6] holds the others back' "summary names a waiting rank"
python3 "$VT_ROOT/tests/html_check.py" dlrm.html dlrm.json --charts yes || die "the DLRM page is wrong"
python3 - dlrm.html <<'PY' || die "the DLRM page does not say who waits for whom"
import html, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
sec = page[page.index('<section id="collectives">'):]
sec = sec[:sec.index("</section>")]
text = html.unescape(re.sub(r"<[^>]+>", "", sec))
if "Rank 7 is the rank the others wait for" not in text:
    sys.exit("no sentence naming rank 7: %r" % text[:300])
rows = re.findall(r'data-key=\'\["stragglers",(\d+),"rank"\]\' data-v="(\d+)"', page)
if [v for _, v in rows] != ["7"]:
    sys.exit("straggler rows %r" % rows)
tl = page[page.index('<section id="timeline">'):]
if "on one time axis" not in tl[:2000] or "end late is the one" in tl[:2000]:
    sys.exit("timeline caption")
PY
echo "pass: DLRM: rank 7 holds the others back"

cpu=("$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz)
map_reduce cpu 0 "${cpu[@]}"
pycheck collectives cpu.json "${cpu[@]}" || die "torch-cpu: vanalyze and the oracle differ"
check cpu.json '[s["rank"] for s in r["stragglers"]] == [2]' "rank 2, and only rank 2" \
	'[c["collective"] for c in r["collectives"]] == ["gloo:all_gather", "gloo:all_reduce"]' \
	"the gloo collectives are matched" \
	'r["stragglers"][0]["delays_most"]["collective"] == "gloo:all_reduce"' \
	"it delays the all-reduce most"
python3 - cpu.json "$TORCH_CPU/dev-4rank-straggler2-meta.json" <<'PY' || die "torch-cpu clock offsets"
import json, sys
r, meta = (json.load(open(p)) for p in sys.argv[1:3])
start = {m["rank"]: m["trace_start_us"] * 1000 for m in meta["ranks"]}
for rk in r["ranks"]:
    # each trace counts from its own profiler start: its clock reads start_0 - start_r off
    want = start[0] - start[rk["rank"]]
    if abs(rk["clock_offset_ns"] - want) > 1000000:
        sys.exit("rank %d: clock offset %d ns, meta says %d" % (rk["rank"], rk["clock_offset_ns"], want))
print("pass: clock offsets within 1 ms of the meta file's profiler starts")
PY
echo "pass: torch-cpu: rank 2 holds the others back"

mkdir late cut
python3 "$VT_ROOT/tests/late_ranks_trace.py" late --ranks 6 --late allreduce=1 --late allgather=4 ||
	die "late_ranks_trace.py failed"
late=(late/late-rank*.trace.json.gz)
map_reduce late 0 "${late[@]}"
pycheck collectives late.json "${late[@]}" || die "two late ranks: vanalyze and the oracle differ"
check late.json 'sorted(s["rank"] for s in r["stragglers"]) == [1, 4]' "ranks 1 and 4, no other" \
	'all(abs(s["last_share"] - 0.5) < 1e-12 for s in r["stragglers"])' \
	"each reaches half its collectives last" \
	'{s["rank"]: s["delays_most"]["collective"] for s in r["stragglers"]} == {1: "allreduce", 4: "allgather"}' \
	"each at its own collective" \
	'all(c["bytes"] and c["busbw_gbps"] > 0 for c in r["collectives"])' "bandwidths from message sizes"
echo "pass: two ranks late at different collectives"

python3 "$VT_ROOT/tests/late_ranks_trace.py" cut --ranks 6 --late allreduce=2 --cut 2 ||
	die "late_ranks_trace.py failed"
cut=(cut/late-rank*.trace.json.gz)
map_reduce cut 1 "${cut[@]}"
pycheck collectives cut.json "${cut[@]}" || die "cut-off rank: vanalyze and the oracle differ"
check cut.json 'r["incomplete_ranks"] == [2]' "rank 2 is listed as incomplete" \
	'2 not in [s["rank"] for s in r["stragglers"]]' "and never named" \
	'all(c["unmatched"] > 0 for c in r["collectives"])' "unmatched instances counted" \
	'all(any("no match on every rank" in w for w in rk["warnings"]) for rk in r["ranks"] if rk["rank"] != 2)' \
	"the other ranks warn about the instances rank 2 lacks"
echo "pass: a cut-off rank is never named"
