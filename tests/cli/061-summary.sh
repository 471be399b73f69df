#!/usr/bin/env bash
# The terminal summary of any number of ranks (tests/summary_check.py says
# what is checked): the 8 DLRM ranks and an 8-rank gentrace run with a
# straggler, with and without --frames, at COLUMNS=80 and 100; every figure
# shown agrees with the oracles, every line fits, nothing is printed twice,
# 8 ranks fit a screen.  --ranks adds each rank's figures (still within the
# width), the CPU-only HTA trace shows its missing GPU figures as dashes,
# and a name longer than the line is cut in the middle.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
[ -x "$VT_BUILD/gentrace" ] || die "$VT_BUILD/gentrace is not built"

dlrm=("$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*)
[ "${#dlrm[@]}" = 8 ] || die "expected the 8 DLRM ranks, found ${#dlrm[@]}"
mkdir g
"$VT_BUILD/gentrace" --ranks 8 --steps 4 --blocks 3 --straggler 5=1.3 -o g/run >/dev/null ||
	die "gentrace failed"
rm -f g/run-truth.json
gen=(g/run-rank*.trace.json.gz)

summary() {	# NAME WIDTH ARGS...: vanalyze's summary at that width, checked
	local name=$1 width=$2
	shift 2
	COLUMNS=$width va "$name" "$@"
	expect_rc "$name" 0
	python3 "$VT_ROOT/tests/summary_check.py" "$name.out" "$width" "$@" ||
		{ cat "$name.out"; die "$name: the summary is wrong (line above)"; }
}
for w in 80 100; do
	summary "dlrm-$w" $w "${dlrm[@]}"
	summary "gen-$w" $w "${gen[@]}"
	summary "gen-frames-$w" $w --frames 21 "${gen[@]}"
done
# the rank warning goes to stderr once, never to the summary

no_line gen-frames-80.out 'warning' "the summary"
expect_line gen-frames-80.out '^rank +span +step +fps +bps ' "the rank table with --frames"
no_line gen-80.out '^rank .* fps ' "the rank table without --frames"
no_line dlrm-80.out '^rank .* (fps|bps) ' "the DLRM rank table (no frames, no blocks)"
expect_line dlrm-80.out '^findings \(training workload' "the top findings"
no_line dlrm-80.out '^findings in detail' "the default summary (one screen)"
expect_line dlrm-80.out '^  \([0-9]+ more; --details shows every finding in full\)$' "how to see the details"
COLUMNS=80 va dlrm-details --details "${dlrm[@]}"
expect_rc dlrm-details 0
expect_line dlrm-details.out '^findings in detail' "the findings in detail"
# 64 ranks fit a screen too: the rank table keeps the outliers
mkdir g64
"$VT_BUILD/gentrace" --ranks 64 --steps 3 --blocks 2 --straggler 5=1.3 -o g64/run >/dev/null ||
	die "gentrace failed"
rm -f g64/run-truth.json
COLUMNS=80 va g64 g64
expect_rc g64 0
[ "$(wc -l <g64.out)" -le 50 ] || die "64 ranks: $(wc -l <g64.out) lines"
expect_line g64.out '^  \(rows: .*longest span 5; .*61 more ranks: --all' "the outlier rows named"
COLUMNS=80 va g64all --all g64
[ "$(grep -c '^ *[0-9]\+ .* ok$' g64all.out)" -eq 64 ] || die "--all: not every rank's row"

# --ranks: each rank's block, still within the width, no CPU memory line
COLUMNS=80 va ranks --ranks --frames 21 "${gen[@]}"
expect_rc ranks 0
python3 - ranks.out 80 <<'PY' || die "--ranks output is wrong"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
width = int(sys.argv[2])
long = [l for l in lines if len(l) > width]
if long:
    sys.exit("lines over %d columns: %r" % (width, long[:3]))
blocks = [l for l in lines if l.startswith("rank ") and "trace.json.gz" in l]
if len(blocks) != 8:
    sys.exit("%d rank blocks" % len(blocks))
if any(l.startswith("  memory   cpu") for l in lines):
    sys.exit("the CPU's memory is shown")
if not any(l.startswith("cross-rank") for l in lines):
    sys.exit("no cross-rank lines")
PY

# no value is a dash: the CPU-only trace has no GPU utilization column at all,
# its operators no device time
cpu="$PUBLIC"/facebookresearch__HolisticTraceAnalysis/tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz
COLUMNS=80 va cpu "$cpu"
expect_rc cpu 0
no_line cpu.out '^rank .* util ' "the CPU-only rank table"
expect_line cpu.out '^ +4 +3\.96 µs +3\.96 µs +– +– +aten::empty$' "operators without device time"
# its status is ok: "no device activity" is what a CPU-only trace is, said once on stderr
expect_line cpu.out '^ +34 .* ok$' "the CPU-only rank's status"

# a long name is cut in the middle with an ellipsis, its start and end kept
python3 - long.json <<'PY' || die "cannot write the long-name trace"
import json, sys
name = "void very_long_templated_kernel<" + "float, " * 40 + "128>(int, float*)"
ev = [{"ph": "X", "cat": "kernel", "name": name, "ts": 10, "dur": 5, "pid": 0, "tid": 7,
       "args": {"correlation": 1}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "dur": 2,
       "pid": 1, "tid": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 4, "pid": 1, "tid": 1}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
COLUMNS=80 va long long.json
expect_rc long 0
# (launched inside aten::mm: gemm by its operator, doc/classification.md)
expect_line long.out '^ .*  gemm +very_long_templ[a-z]*…[a-z]*, 128>\(…\)$' "the cut kernel name"
expect_line long.out '^ +1 +4\.00 µs +4\.00 µs +5\.00 µs +5\.00 µs +aten::mm$' \
	"the operator with the device time it launched"
python3 "$VT_ROOT/tests/summary_check.py" long.out 80 long.json || die "long: wrong summary"
# phases by time: DLRM's backward (a quarter of the span) is shown, the small
# ones are counted (with the deeper ones over 1 %, the largest named), and
# --all lists every one
expect_line dlrm-80.out '^ .*    ## backward ##$' "DLRM's backward phase"
expect_line dlrm-80.out '^  [0-9]+ more phases \(--all\), [0-9]+ over 1% of the span; the largest .+ [0-9.]+%$' \
	"the phases left out"
COLUMNS=80 va dlrm-all --all "${dlrm[@]}"
expect_rc dlrm-all 0
no_line dlrm-all.out 'more phases' "--all"
[ "$(sed -n '/^phases/,/^kernels/p' dlrm-all.out | wc -l)" -gt "$(sed -n '/^phases/,/^kernels/p' dlrm-80.out | wc -l)" ] ||
	die "--all shows no more phases"

# names keep what tells them apart at 80 columns: the collective and its type,
# the operation inside ATen's templated kernels
COLUMNS=80 va dlrm-top --top 10 "${dlrm[@]}"
for want in 'ncclKernel_SendRecv…int8_t' 'ncclKernel_AllReduce…float' 'sqrt_kernel_cuda' \
	'addcdiv_cuda_kernel' 'addcmul_cuda_kernel' 'CUDAFunctorOnSelf_add<float>'; do
	sed -n '/^kernels/,/^operators/p' dlrm-top.out | grep -qF -- "$want" ||
		die "the DLRM kernel table lost '$want'"
done

# --sort orders the operator table as key_averages(sort_by=...) would
COLUMNS=100 va sorted --sort count "${dlrm[@]}"
expect_rc sorted 0
python3 - sorted.out <<'PY' || die "--sort count: the operators are not by calls"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("operators"))
calls = []
for l in lines[i + 2:]:
    m = re.match(r"^ +(\d+) ", l)
    if not m:
        break
    calls.append(int(m.group(1)))
if len(calls) < 3 or calls != sorted(calls, reverse=True):
    sys.exit("calls %r" % calls)
PY
va badsort --sort nosuch "${dlrm[@]}"
expect_rc badsort 2

# a CPU-only run with a straggler (gloo): no GPU or NVIDIA word anywhere in the summary
COLUMNS=100 va gloo --details "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc gloo 0
expect_line gloo.out '^stragglers' "the gloo run's straggler"
if grep -inE 'gpu|nvlink|nccl|cuda' gloo.out; then die "device words on a CPU-only run (lines above)"; fi

# sums over ranks saturate: three ranks each with one kernel of 4.6e18 ns (inside the
# accepted range) print no negative time
python3 - <<'PY' || die "cannot write the huge-kernel traces"
import json
for r in range(3):
    ev = [{"ph": "X", "cat": "kernel", "name": "huge", "ts": 0, "dur": 4600000000000000,
           "pid": 0, "tid": 7}]
    json.dump({"distributedInfo": {"rank": r, "world_size": 3}, "traceEvents": ev},
              open("huge-rank%d.json" % r, "w"))
PY
COLUMNS=80 va huge huge-rank0.json huge-rank1.json huge-rank2.json
expect_rc huge 0
no_line huge.out ' -[0-9]' "a negative figure in the summary of huge kernels"
echo "pass: terminal summary"
