#!/usr/bin/env bash
# The torch-cpu 4-rank set: rank 2 sleeps 150 ms per denoising step, so the
# others wait for it in gloo all-reduce.  Each rank analysed on its own and
# merged by vaggregate names rank 2, and only rank 2, the straggler (the
# rank the others wait for at collectives), in the report and in the
# summary, and the suggestions say so; as vanalyze does on the four files at once.  A report of two ranks
# merges like two reports of one.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

for r in 0 1 2 3; do
	mkdir -p "node$((r / 2))/rank_$r"
	va map$r -q --json "node$((r / 2))/rank_$r/report.json" \
		"$TORCH_CPU/dev-4rank-straggler2-rank$r.trace.json.gz"
	expect_rc map$r 0
done
COLUMNS=400 vg agg --reports_dir node0 --reports_dir node1 --json agg.json
expect_rc agg 0
check agg.json '[(s["rank"], s["metric"]) for s in r["stragglers"]] == [(2, "comm.wait_imposed_ns")]' \
	"rank 2 is the only straggler, by the wait it imposes" \
	'[s["rank"] for s in r["suggestions"] if s["id"] == "straggler"] == [2]' \
	"a straggler suggestion for rank 2 only" \
	'[x["rank"] for x in r["ranks"]] == [0, 1, 2, 3]' "ranks 0..3 from two node directories"
expect_line agg.out '^  rank 2 holds the others back: it arrives last at [0-9]+% of its collectives and the other ranks wait [0-9.]+ s for it in all, most at gloo:all_reduce \([0-9.]+ s\)$' \
	"summary straggler line"
[ "$(grep -c '^  rank [0-9]* holds the others back' agg.out)" -eq 1 ] ||
	die "more than one straggler in the summary"

va all --json all.json "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc all 0
check agg.json 'r["stragglers"] == load("all.json")["stragglers"] and
	r["cross_rank"] == load("all.json")["cross_rank"]' "the same as vanalyze over the four files"
echo "pass: rank 2 is the straggler"

# A node report holding several ranks merges like per-rank reports: ranks
# 0 and 1 analysed together, 2 and 3 alone.
va node01 -q --json node01.json "$TORCH_CPU"/dev-4rank-straggler2-rank[01].trace.json.gz
expect_rc node01 0
vg mixed --json mixed.json node01.json node1/rank_2/report.json node1/rank_3/report.json
expect_rc mixed 0
expect_line mixed.out '^3 reports, 4 ranks$' "summary header"
check mixed.json 'r["ranks"] == load("agg.json")["ranks"] and r["stragglers"] == load("agg.json")["stragglers"]' \
	"a two-rank report and two one-rank reports give the same merge"
echo "pass: multi-rank reports"
