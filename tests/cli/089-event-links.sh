#!/usr/bin/env bash
# Each device record's launch (the runtime call joined by args.correlation,
# analyzer/launch.c, as vanalyze reads and collects the file) against
# tests/oracle_links.py's own join: the launch's ts and thread, the kernel's
# name, the device time each user counts, exactly (ns), as sorted lists.
#  1. a hand-made trace: a correlation with two calls on two threads (the
#     first in the file later in time), a copy, a set, a kernel without a
#     name, a name with a tab, a record without a launch, Kineto 2021's
#     capitalised cats, MTIA's copies and event records, a cuda_sync
#     record with a correlation (no call), string pids and tids;
#  2. values the records hold wide (launch.h's LAUNCH_WIDE): correlations
#     past 32 bits (one whose low bits are another's), negative ones, the
#     int64 extremes, durations from 2^31 ns on; calls out of correlation
#     order, a correlation's first call kept in order and its second set
#     aside; and the same events in reverse order (most calls out of order);
#  3. every shared public trace (those without correlations give no line on
#     either side) and testdata/gpu: in the plain build only, as 053 (the
#     sanitizers read the same traces through the same code in 047).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
LINKS=$VT_BUILD/tests/event_links
[ -x "$LINKS" ] || die "$LINKS is not built (make check-build)"

python3 - <<'PY' || die "could not write the hand-made trace"
import json
ev = [
    # correlation 1: two calls; the first in the file is the later one
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7,
     "ts": 20.5, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 8,
     "ts": 10.25, "dur": 2, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "gemm\tkernel", "pid": 0, "tid": "stream 7",
     "ts": 30, "dur": 4.001, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": "host", "tid": "main",
     "ts": 40, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": "stream 7",
     "ts": 45, "dur": 3, "args": {"correlation": 2}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset", "pid": 0, "tid": "stream 7",
     "ts": 46, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "pid": 0, "tid": "stream 7", "ts": 47, "dur": 2,
     "args": {"correlation": 2}},
    # no call with correlation 3; a cuda_sync record is not one
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 1, "tid": 7, "ts": 50,
     "dur": 1, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": "stream 7", "ts": 51,
     "dur": 1, "args": {"correlation": 3}},
    # the call after its kernel in the file still launches it
    {"ph": "X", "cat": "Kernel", "name": "k2021", "pid": 0, "tid": 7, "ts": 61, "dur": 0.5,
     "args": {"correlation": 4}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 9, "ts": 60,
     "dur": 1, "args": {"correlation": 4}},
    {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": 7, "ts": 62,
     "dur": 1, "args": {"correlation": 4}},
    {"ph": "X", "cat": "mtia_runtime", "name": "launch", "pid": 5, "tid": 5, "ts": 70,
     "dur": 1, "args": {"correlation": 5}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "mtia_kernel", "pid": 6, "tid": 1, "ts": 71,
     "dur": 2, "args": {"correlation": 5}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 6, "tid": 1, "ts": 74,
     "dur": 3, "args": {"correlation": 5}},
    {"ph": "X", "cat": "mtia_ccp_events", "name": "event_record", "pid": 6, "tid": 1, "ts": 78,
     "dur": 1, "args": {"correlation": 5}},
]
json.dump({"traceEvents": ev}, open("links.json", "w"))


def call(corr, tid, ts):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": tid,
            "ts": ts, "dur": 0.5, "args": {"correlation": corr}}


def kern(corr, name, ts, dur, cat="kernel"):
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": corr, "stream": 7}}


W = 2**40
wide = [
    call(1, 9, 99), kern(1, "one", 300, 1),
    call(W + 1, 7, 100), kern(W + 1, "wide_a", 301, 2500000),
    # its low 32 bits are 1's
    call(2**32 + 1, 8, 101), kern(2**32 + 1, "low_bits", 302, 4294967.301),
    call(-7, 7, 110), kern(-7, "Memcpy DtoD", 303, 3, cat="gpu_memcpy"),
    # no call: low bits 1 again
    kern(-2**32 + 1, "orphan", 304, 1),
    # a second call of W + 50, earlier in time but later in the file
    call(W + 50, 7, 120), call(W + 60, 7, 121), call(W + 50, 8, 119),
    kern(W + 50, "tie", 305, 2),
    kern(W + 60, "edge_in", 306, 2147483.647), kern(W + 60, "edge_wide", 307, 2147483.648),
    call(2**63 - 1, 7, 130), kern(2**63 - 1, "max", 308, 1),
    call(-2**63, 8, 131), kern(-2**63, "min", 309, 1),
]
json.dump({"traceEvents": wide}, open("wide.json", "w"))
json.dump({"traceEvents": wide[::-1]}, open("reversed.json", "w"))
PY

traces=("$PWD/links.json" "$PWD/wide.json" "$PWD/reversed.json")
if [ "$VT_SANITIZED" = 0 ]; then
	traces+=("$PUBLIC"/*/*.json.gz "$VT_ROOT"/testdata/gpu/*.trace.json.gz)
fi
python3 - "$LINKS" "${traces[@]}" <<'PY' || die "event_links and oracle_links.py differ"
import os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
import oracle_links
import vtcheck

prog, paths = sys.argv[1], sys.argv[2:]
# the hand-made trace's lines, worked out by hand
HAND = sorted([
    "20500\t1\t7\tgemm\\tkernel\t4001\t4001",
    "40000\thost\tmain\t-\t3000\t0",
    "40000\thost\tmain\t-\t1000\t0",
    "40000\thost\tmain\t-\t2000\t2000",
    "60000\t1\t9\tk2021\t500\t500",
    "60000\t1\t9\t-\t1000\t0",
    "70000\t5\t5\tmtia_kernel\t2000\t2000",
    "70000\t5\t5\t-\t3000\t0",
])
WIDE = sorted([
    "99000\t1\t9\tone\t1000\t1000",
    "100000\t1\t7\twide_a\t2500000000\t2500000000",
    "101000\t1\t8\tlow_bits\t4294967301\t4294967301",
    "110000\t1\t7\t-\t3000\t0",
    "120000\t1\t7\ttie\t2000\t2000",
    "121000\t1\t7\tedge_in\t2147483647\t2147483647",
    "121000\t1\t7\tedge_wide\t2147483648\t2147483648",
    "130000\t1\t7\tmax\t1000\t1000",
    "131000\t1\t8\tmin\t1000\t1000",
])


def run(path):
    p = subprocess.run([prog, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("%s: event_links exit %d: %s" % (path, p.returncode,
                                                   p.stderr.decode(errors="replace")))
    return sorted(p.stdout.decode("utf-8", "surrogateescape").splitlines())


with ThreadPoolExecutor(max_workers=2) as pool:
    got = list(pool.map(run, paths))
bad, total, kernels, other = 0, 0, 0, 0
for path, mine in zip(paths, got):
    want = sorted(vtcheck.cached("links", path, None, oracle_links.links, path))
    if path.endswith("links.json") and want != HAND:
        print("oracle_links.py on the hand-made trace:\n  " + "\n  ".join(want))
        bad += 1
    if path.endswith("wide.json") and want != WIDE:
        print("oracle_links.py on the wide values:\n  " + "\n  ".join(want))
        bad += 1
    if mine != want:
        bad += 1
        a, b = set(mine), set(want)
        print("%s: %d lines, the oracle %d" % (path, len(mine), len(want)))
        for line in sorted(a - b)[:5]:
            print("  only event_links: " + line)
        for line in sorted(b - a)[:5]:
            print("  only the oracle:  " + line)
    total += len(want)
    kernels += sum(1 for line in want if line.split("\t")[3] != "-")
    other += sum(1 for line in want if line.split("\t")[3] == "-")
print("%d traces, %d links (%d kernels, %d other), %d differ" % (len(paths), total, kernels,
                                                                 other, bad))
# a sweep of the shared traces (past the 3 hand-made ones) that found
# nothing to compare would prove nothing
if len(paths) > 3 and (kernels < 50000 or other < 5000):
    sys.exit("too few links in the shared traces: is the join or the oracle empty?")
sys.exit(1 if bad else 0)
PY
