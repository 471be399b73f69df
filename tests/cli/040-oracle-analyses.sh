#!/usr/bin/env bash
# vanalyze's gpu, kernels, memory and cpu_ops agree with tests/oracle_analyses.py
# (the independent reference; its docstring is the contract) on real traces:
# the 8 DLRM ranks, HTA trace_diff control and test, df_index_resolver,
# nccl_parser_config, TraceLens h100/mi300 bert and mi300 resnet_act_checkpoint,
# the 7 torch-cpu traces and testdata/demo; and, one per vendor and version of
# analyzer/device.c: both Kineto 2021 samples, the three Ascend (torch_npu) traces (level0, the level1 pair),
# both MTIA traces, TraceLens h100 Qwen (host syncs), b200, mi210, sglang and
# torch_compile_triton, and the HTA CPU-only traces (null device figures); and a
# generated trace whose [memory] events come out of time order both ways
# memory.c takes: a few runs a device, merged (a run per thread, ties across
# runs, a running sum of Bytes), and more runs than it merges, sorted (a
# device in reverse order, one shuffled).  Each file is analysed alone
# (vanalyze --json out.json FILE).  Compared: every gpu field (ints exact,
# floats to a relative 1e-9, null must be null), every field of the top 10
# kernel rows, every memory row (its timeline too), and name, count, total_ns, self_ns and the
# device time launched (device_ns, self_device_ns: by correlation id) of the
# top 20 cpu_ops rows; the torch-cpu traces (no cat) have operators by name.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
TL=$PUBLIC/AMD-AGI__TraceLens
files=()
add() {
	local f
	for f in "$@"; do
		[ -f "$f" ] || die "missing trace: $f"
		files+=("$f")
	done
}
add "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*
add "$HTA"/tests__data__trace_diff__control__control.json.gz \
	"$HTA"/tests__data__trace_diff__test__test.json.gz \
	"$HTA"/tests__data__df_index_resolver__df_index_resolver.json.gz \
	"$HTA"/tests__data__nccl_parser_config__nccl_data.json.gz
add "$TL"/tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz \
	"$TL"/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz \
	"$TL"/tests__traces__mi300__resnet_act_checkpoint.json.gz
add "$TORCH_CPU"/*.trace.json.gz
add "$VT_ROOT"/testdata/demo/*.json.gz
add "$PUBLIC"/pytorch__kineto/at-be239c04__*.json.gz "$PUBLIC"/pytorch__kineto/at-02522842__*.json.gz \
	"$PUBLIC"/Ascend__msinsight/*.json.gz "$PUBLIC"/xiaobingling93-pixel__Ascend-mstt/*.json.gz \
	"$HTA"/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz \
	"$HTA"/tests__data__mtia_inference_trace__mtia_inference_rank_0.json.gz \
	"$TL"/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
	"$TL"/tests__traces__b200__eager_trace.json.gz \
	"$TL"/tests__traces__mi210__gpu_only_trace__gpu_only_trace.json.gz \
	"$TL"/tests__traces__inference__sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz \
	"$TL"/tests__traces__torch_compile_triton__trace.json.gz \
	"$HTA"/tests__data__rank_non_gpu__rank_non_gpu.json.gz \
	"$HTA"/tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz
[ "${#files[@]}" -eq 41 ] || die "expected 41 traces, found ${#files[@]}"

# Device 0 gives Total Allocated, from 6 threads written one after another
# (a run each, on a coarse clock: equal times across runs); device 1 only
# Bytes, from 3 threads (the running sum depends on the order); device 2's
# events are in reverse time order (a run per event); device-less events
# (-1) shuffled.
python3 - memory_runs.json <<'PYEOF'
import json, random, sys
rng = random.Random(19)
ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5,
       "args": {"device": 0, "stream": 7, "correlation": 1}}]
def mem(tid, ts, dev, **args):
    a = {"Device Type": 1, "Addr": rng.randrange(1 << 40)}
    if dev is not None:
        a["Device Id"] = dev
    a.update(args)
    ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
               "pid": 0, "tid": tid, "ts": ts, "args": a})
for tid in range(6):
    for ts in sorted(rng.randrange(0, 4000, 4) for _ in range(700)):
        mem(tid, ts, 0, **{"Total Allocated": rng.randrange(1 << 34),
                           "Total Reserved": rng.randrange(1 << 35), "Bytes": 512})
for tid in range(3):
    for ts in sorted(rng.randrange(0, 3000) for _ in range(500)):
        mem(10 + tid, ts, 1, Bytes=rng.choice([-1, 1]) * rng.randrange(1, 1 << 20))
for ts in range(3000, 0, -1):
    mem(20, ts, 2, **{"Total Allocated": ts * 3, "Total Reserved": ts * 5})
shuffled = [rng.randrange(5000) for _ in range(2000)]
for ts in shuffled:
    mem(30, ts, None, **{"Total Allocated": rng.randrange(1 << 20)})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PYEOF
[ -s memory_runs.json ] || die "could not write memory_runs.json"
files+=("$PWD/memory_runs.json")

cat >analyses_check.py <<'PYEOF'
import os, sys, time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from vtcheck import cached, run_vanalyze, same, show  # noqa: E402
import oracle_analyses  # noqa: E402  (the independent reference)

KERNEL_ROWS = 10
CPU_OP_ROWS = 20
CPU_OP_FIELDS = ("name", "count", "total_ns", "self_ns", "device_ns", "self_device_ns")


def oracle_of(path):
    """oracle_analyses.analyze(path), cached per test run (047 reads it too)."""
    return cached("analyses", path, None, oracle_analyses.analyze, path)




def compare_rows(out, name, what, rep_rows, orc_rows, top, fields=None):
    if not isinstance(rep_rows, list):
        out.append((name, what, rep_rows, "<list>"))
        return
    # All rows when the oracle has no more than top (or top is None), else
    # the first top, which vanalyze must have.
    if top is None or len(orc_rows) <= top:
        want = len(orc_rows)
        if len(rep_rows) != want:
            out.append((name, what + " rows", len(rep_rows), want))
    else:
        want = top
        if len(rep_rows) < want:
            out.append((name, what + " rows", len(rep_rows), ">= %d" % want))
    for k in range(min(want, len(rep_rows))):
        r, o = rep_rows[k], orc_rows[k]
        if not isinstance(r, dict):
            out.append((name, "%s[%d]" % (what, k), r, o))
            continue
        if "name" in o:
            label = "%s[%d] %s" % (what, k, show(o["name"], 60))
        else:
            label = "%s[%d] device %s" % (what, k, o["device"])
        for f in fields or o.keys():
            a = r.get(f, "<missing>")
            if not same(a, o[f]):
                out.append((name, "%s.%s" % (label, f), a, o[f]))


def compare(name, rank, orc):
    out = []
    d = rank.get("device")
    if not isinstance(d, dict):
        out.append((name, "device", d, "<object>"))
    else:
        for f, b in orc["device"].items():
            if not same(d.get(f, "<missing>"), b):
                out.append((name, "device." + f, d.get(f, "<missing>"), b))
    g = rank.get("gpu")
    if not isinstance(g, dict):
        out.append((name, "gpu", g, "<object>"))
    else:
        for f, b in orc["gpu"].items():
            a = g.get(f, "<missing>")
            if not same(a, b):
                out.append((name, "gpu." + f, a, b))
    compare_rows(out, name, "kernels", rank.get("kernels", "<missing>"), orc["kernels"],
                 KERNEL_ROWS)
    compare_rows(out, name, "memory", rank.get("memory", "<missing>"), orc["memory"], None)
    compare_rows(out, name, "cpu_ops", rank.get("cpu_ops", "<missing>"), orc["cpu_ops"],
                 CPU_OP_ROWS, CPU_OP_FIELDS)
    return out


def main(files):
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = list(pool.map(lambda a: run_vanalyze(*a), enumerate(files)))
    bad = 0
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        orcs = pool.map(oracle_of, files)
        for path, (rank, problems, err), orc in zip(files, runs, orcs):
            name = os.path.basename(path)
            lines = ["%s: %s" % (name, p) for p in problems]
            if rank is not None:
                lines += ["%s: %s: vanalyze %s, oracle %s" % (n, f, show(a), show(b))
                          for n, f, a, b in compare(name, rank, orc)]
            if lines:
                bad += 1
                for line in lines:
                    print("mismatch " + line)
                for line in err.strip().splitlines()[-5:]:
                    print("    stderr: " + line)
    print("%d files, %d with mismatches, %.1fs" % (len(files), bad, time.time() - t0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
PYEOF

python3 analyses_check.py "${files[@]}"
rc=$?
[ "$rc" -eq 0 ] || die "vanalyze and tests/oracle_analyses.py disagree (lines above)"
