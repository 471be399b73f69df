#!/usr/bin/env bash
# No warning for the common case: one trace without a rank is rank 0
# without a word (several such traces are still warned about, numbered by
# their position among the inputs read: an unreadable file is no rank);
# several host-only traces say so in one line for the run (each rank keeps
# its own warning in report.json); a collector .vtr has no device activity
# by design and is not warned about; an input that cannot be read prints
# no summary of nothing.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vaggregate

GPU=$VT_ROOT/testdata/gpu
cp "$GPU/pipeline.trace.json.gz" one.trace.json.gz

# one trace, no rank in it or its name: rank 0, silently, status ok
COLUMNS=80 va one --json one.json one.trace.json.gz
expect_rc one 0
no_line one.err 'rank' "one trace without a rank"
expect_line one.out '^ +0 .* ok$' "the status of the one rank"
no_line one.out 'warnin' "the summary of one trace"
check one.json 'r["ranks"][0]["rank"] == 0 and not any("position" in w for w in r["ranks"][0]["warnings"])' \
	"rank 0 without a warning"

# two such traces and an unreadable one first: warned, ranks 0 and 1
cp one.trace.json.gz two.trace.json.gz
printf 'not a trace' >bad.json
va pos --json pos.json bad.json one.trace.json.gz two.trace.json.gz
expect_rc pos 1
[ "$(grep -c 'no rank in the file or its name' pos.err)" = 2 ] || die "two unranked traces: $(cat pos.err)"
expect_line pos.err 'one\.trace\.json\.gz: no rank in the file or its name; rank 0 from its position' \
	"the first trace read is rank 0"
check pos.json '[k["rank"] for k in r["ranks"]] == [0, 1]' "positions among the traces read"

# three host-only traces: one line for the run, each rank's warning kept
python3 - <<'PY'
import json
for r in range(3):
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
           "ts": 1000 + 10 * i, "dur": 5} for i in range(20)]
    json.dump({"traceEvents": ev, "distributedInfo": {"rank": r, "world_size": 3}},
              open("host-rank%d.json" % r, "w"))
PY
va host --json host.json host-rank0.json host-rank1.json host-rank2.json
expect_rc host 0
[ "$(grep -c 'no GPU or NPU activity' host.err)" = 1 ] || die "host-only traces: $(cat host.err)"
expect_line host.err '^vanalyze: warning: 3 of 3 inputs \(host-rank0\.json, \.\.\.\): no GPU or NPU activity recognised; figures are host-side only$' \
	"one line for the run"
check host.json 'all(any("no GPU or NPU activity" in w for w in k["warnings"]) for k in r["ranks"])' \
	"each rank's own warning in report.json"
va host1 host-rank1.json
expect_rc host1 0
expect_line host1.err 'host-rank1\.json: no GPU or NPU activity recognised in 20 events' \
	"one host-only trace: its own warning"

# a collector .vtr: no device by design, no warning
VTRACE_RANK=0 "$VT_BUILD/tests/collector_demo" vtr demo 2>demo.err || die "collector_demo failed: $(cat demo.err)"
va vtr vtr/demo-rank0.vtr
expect_rc vtr 0
no_line vtr.err 'no GPU or NPU' "a collector .vtr"

# an input that cannot be read: its error, no summary of nothing
va missing missing.json
expect_rc missing 1
expect_line missing.err "missing\.json: cannot open" "the missing input"
[ -s missing.out ] && die "a summary of nothing: $(cat missing.out)"
vg gmissing missing.json
no_line gmissing.out '^run ' "vaggregate's run line without ranks"
exit 0
