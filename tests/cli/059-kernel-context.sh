#!/usr/bin/env bash
# Kernel categories from what launched them (analyzer/kctx.c) agree with
# tests/oracle_kctx.py (the independent reference; its docstring is the
# definition) on every public trace, testdata/gpu and hand-made traces of
# the cases: eager attention (bmm + softmax + bmm) inside an attention
# module, SDPA, projections outside it, a convolution run by a GEMM kernel,
# a kernel without launch, a collective inside an operator, a name whose
# time splits between categories, crossing spans.  Compared: every kernel
# row's category and category_source.  The name categories the oracle
# needs are tests/oracle_analyses.py's (its own copy of the name rules).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

cat >kctx_check.py <<'PYEOF'
import glob, json, os, sys
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
ROOT = os.environ["VT_ROOT"]
sys.path.insert(0, os.path.join(ROOT, "tests"))
import oracle  # noqa: E402
import oracle_analyses  # noqa: E402  (the name categories, its own table)
import oracle_kctx  # noqa: E402
from vtcheck import cached, run_vanalyze  # noqa: E402

PUBLIC = os.path.join(os.environ["VT_SHARED"], "traces", "public")


def X(name, ts, dur, cat, tid=1, corr=None, pid=1):
    e = {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "cat": cat}
    if corr is not None:
        e["args"] = {"correlation": corr}
    return e


def launch(ts, corr, tid=1):
    return X("cudaLaunchKernel", ts, 1, "cuda_runtime", tid=tid, corr=corr)


def kern(name, ts, dur, corr):
    return X(name, ts, dur, "kernel", tid=7, corr=corr, pid=0)


EDGE = {
    # eager attention in a module; projections outside; SDPA; conv by sgemm
    "ctx1": [X("nn.Module: Attention_0", 0, 100, "python_function"),
             X("aten::bmm", 10, 10, "cpu_op"), launch(12, 1),
             X("aten::softmax", 25, 10, "cpu_op"), X("aten::_softmax", 26, 8, "cpu_op"),
             launch(27, 2),
             X("aten::bmm", 40, 10, "cpu_op"), launch(42, 3),
             X("aten::linear", 200, 20, "cpu_op"), X("aten::addmm", 201, 18, "cpu_op"),
             launch(205, 4),
             X("aten::scaled_dot_product_attention", 300, 20, "cpu_op"),
             X("aten::_scaled_dot_product_efficient_attention", 301, 18, "cpu_op"),
             launch(305, 5),
             X("aten::conv2d", 400, 20, "cpu_op"), launch(405, 6),
             X("aten::softmax", 500, 20, "cpu_op"), launch(505, 7),
             kern("ampere_bf16_s16816gemm_bf16_128x64", 1000, 50, 1),
             kern("cunn_SoftMaxForward", 1050, 20, 2),
             kern("ampere_bf16_s16816gemm_bf16_128x64", 1070, 50, 3),
             kern("ampere_bf16_s16816gemm_bf16_128x64", 1120, 30, 4),
             kern("fmha_cutlassF_bf16", 1150, 40, 5),
             kern("volta_sgemm_128x64_nn", 1190, 40, 6),
             kern("cunn_SoftMaxForward", 1230, 5, 7),
             kern("no_launch_kernel", 1240, 5, 99)],
    # a collective inside an operator; a name split 60/40; crossing spans;
    # the launch at a span's end is outside it; a block on another thread
    "ctx2": [X("aten::mm", 0, 10, "cpu_op"), launch(2, 1),
             X("aten::layer_norm", 20, 10, "cpu_op"), launch(22, 2), launch(24, 3),
             launch(40, 4),
             X("aten::mm", 50, 10, "cpu_op"), X("aten::conv2d", 55, 10, "cpu_op"),
             launch(58, 5), launch(62, 6), launch(60, 7),
             X("self_attn", 0, 1000, "user_annotation", tid=2),
             kern("ncclDevKernel_AllReduce", 100, 10, 1),
             kern("vectorized_elementwise_kernel", 110, 6, 2),
             kern("vectorized_elementwise_kernel", 116, 3, 3),
             kern("vectorized_elementwise_kernel", 119, 3, 4),
             kern("k5", 122, 3, 5), kern("k6", 125, 3, 6), kern("k7", 128, 3, 7)],
}


def edge_files():
    out = []
    for name, events in EDGE.items():
        path = os.path.abspath("%s-rank0.json" % name)
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
        out.append(path)
    return out


def check(i, path):
    rank, problems, err = run_vanalyze(i, path)
    if problems or rank is None:
        return path, ["vanalyze: %s %s" % (problems, err.strip()[:300])], 0
    rows = rank.get("kernels") or []
    if not rows:
        return path, [], 0
    # cached for the test run under the rows' names and times, all it reads of them
    want = cached("kctx", path, [(r["name"], r["total_ns"]) for r in rows],
                  lambda: oracle_kctx.rows(oracle.load(path)[1], rows, oracle_analyses.category))
    bad = []
    for r in rows:
        got = (r["category"], r.get("category_source"))
        if got != want[r["name"]]:
            bad.append("%s: vanalyze %s, oracle %s" % (r["name"][:80], got, want[r["name"]]))
    return path, bad, sum(1 for r in rows if r.get("category_source") != "name")


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "testdata", "gpu", "*.trace.json.gz")))
    # Under the sanitizers 047-vendors already runs every public trace through
    # this same `vanalyze --quiet --json`; their categories are the plain
    # build's to check against the oracle.
    if os.environ.get("VT_SANITIZED") != "1":
        files = sorted(glob.glob(os.path.join(PUBLIC, "*", "*.json*"))) + files
    files += edge_files()
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda a: check(*a), enumerate(files)))
    fails = ctx = 0
    for path, bad, n_ctx in results:
        ctx += n_ctx
        for b in bad[:10]:
            print("mismatch  %s: %s" % (os.path.basename(path), b))
        fails += bool(bad)
    print("%d traces, %d rows from their launches, %d with mismatches" % (len(files), ctx, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
PYEOF
VT_SANITIZED=$VT_SANITIZED python3 kctx_check.py ||
	die "vanalyze and tests/oracle_kctx.py disagree (lines above)"

# The hand-made cases, as the definition says (not only as the oracle does).
va ctx1 -q --json ctx1.json ctx1-rank0.json
check ctx1.json \
	'{k["name"]: (k["category"], k["category_source"]) for k in r["ranks"][0]["kernels"]} == {
	  "ampere_bf16_s16816gemm_bf16_128x64": ("attention", "module"),
	  "cunn_SoftMaxForward": ("attention", "module"),
	  "fmha_cutlassF_bf16": ("attention", "op"),
	  "volta_sgemm_128x64_nn": ("conv", "op"),
	  "no_launch_kernel": ("other", "name")}' \
	"eager attention in a module, SDPA, a convolution by sgemm, no launch"
va ctx2 -q --json ctx2.json ctx2-rank0.json
check ctx2.json \
	'{k["name"]: (k["category"], k["category_source"]) for k in r["ranks"][0]["kernels"]} == {
	  "ncclDevKernel_AllReduce": ("comm", "name"),
	  "vectorized_elementwise_kernel": ("norm", "op"),
	  "k5": ("gemm", "op"), "k6": ("conv", "op"), "k7": ("conv", "op")}' \
	"a collective, a 9:3 split, crossing spans"
echo "pass: kernel categories from their launches"
