#!/usr/bin/env python3
"""Write hostile inputs that once broke the programs, one per subcommand.

    hostile_inputs.py extreme PATH        times at the edge of what is kept, and past it
    hostile_inputs.py names PATH          empty, NUL-carrying, formula and C1-control names
    hostile_inputs.py deep PATH N         N nested annotation spans on one thread
    hostile_inputs.py big PATH MB [N]     N events (default 1) each with an MB-megabyte
                                          escaped string, gzipped when PATH ends in .gz
    hostile_inputs.py devices PATH N      [memory] events of N distinct device ids, 2 each
    hostile_inputs.py flood PATH N        N kernel names that share one string hash
    hostile_inputs.py schema PATH REPORT  REPORT with a NUL and more appended to its schema
    hostile_inputs.py terminal PATH [SUFFIX]  kernels and phases named to act on a terminal
                                          (TERMINAL), SUFFIX appended to each name
    hostile_inputs.py termreport PATH REPORT  REPORT with TERMINAL strings as its schema
                                          (PATH.schema) and ranks[].source (PATH)
    hostile_inputs.py annots PATH N       N distinct user_annotation names, each a phase
    hostile_inputs.py steps PATH N        N ProfilerStep#i spans, each launching a kernel
    hostile_inputs.py kernels PATH N      N distinct kernel names
    hostile_inputs.py tiny DIR N          N files of one kernel each, rank-i.json
    hostile_inputs.py rows PATH N         N distinct kernel and N distinct operator names,
                                          and a real kernel named "(other kernels)"
    hostile_inputs.py longname PATH MB    a kernel, an operator and a phase named with MB
                                          megabytes of '<', an "é" across byte 16,384
    hostile_inputs.py gens PATH N         N generations, each of one aten::mm call
    hostile_inputs.py gens-overlap PATH N  the same, each generation lasting to the end
    hostile_inputs.py hugeflops PATH      aten::mm calls of INT64_MAX and of plausible
                                          shapes on an H100, in one step
    hostile_inputs.py shapes PATH N       N aten::mm calls of N distinct shapes
    hostile_inputs.py hcclnames DIR N     two torch_npu ranks, DIR/rank-R.json, each with N
                                          HCCL operators of N distinct names
    hostile_inputs.py hcclphases DIR N    the same without a cat anywhere: every span is a
                                          phase
    hostile_inputs.py sameops PATH N      N CPU operators of one thread at one start, each
                                          longer than the one before
    hostile_inputs.py topkeys PATH N      N top-level members (run metadata), half before
                                          traceEvents and half after
    hostile_inputs.py idlenest PATH N [D] N gaps in device work, each launched from a thread
                                          under D (default N) nested host spans of mixed
                                          classes open across every gap
    hostile_inputs.py pystack PATH N D    N gaps launched under a D-deep Python stack
    hostile_inputs.py latelaunch PATH N   N gaps each launched after the last item, so that
                                          their host windows overlap, beside N spans of
                                          host work
    hostile_inputs.py idlemix PATH N SEED N device items launched from two threads under
                                          random host spans of every class, nested and
                                          overlapping, ends and starts shared, some
                                          launches after their item, some by time only

Only the standard library; every file is small to write and deterministic.
"""
import gzip
import json
import sys

LIMIT_US = "4611686018427387.903"      # 2^62 - 1 ns, the largest time kept (lib/sat.h)


def write(path, data):
    if path.endswith(".gz"):
        data = gzip.compress(data, 1)
    with open(path, "wb") as f:
        f.write(data)


def trace(events):
    return b'{"traceEvents":[\n' + b",\n".join(events) + b"\n]}\n"


def ev(**kw):
    return json.dumps(kw).encode()


def extreme(path):
    """Kernels, phases, steps, CPU ops, copies and memory at +-(2^62 - 1) ns."""
    lo, hi = "-" + LIMIT_US, LIMIT_US
    big = "2305843009213693.951"        # (2^62 - 1) / 2 ns
    evs = []
    # Spans whose sums and differences pass INT64_MAX when done naively.
    for i, (ts, dur) in enumerate([(lo, big), (lo, big), ("0", big), ("0", big), ("1", big)]):
        corr = 100 + i
        evs.append(b'{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%s,"dur":%s,'
                   b'"args":{"correlation":%d,"stream":7,"device":0}}' % (i % 2, ts.encode(),
                                                                          dur.encode(), corr))
        evs.append(b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,'
                   b'"ts":%s,"dur":1,"args":{"correlation":%d}}' % (ts.encode(), corr))
        evs.append(b'{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":8,'
                   b'"ts":%s,"dur":%s}' % (ts.encode(), dur.encode()))
        evs.append(b'{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%s,'
                   b'"dur":%s}' % (ts.encode(), dur.encode()))
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,'
                   b'"tid":1,"ts":%s,"dur":%s}' % (i, ts.encode(), dur.encode()))
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"block_%d","pid":1,"tid":1,'
                   b'"ts":%s,"dur":%s}' % (i, ts.encode(), dur.encode()))
        evs.append(b'{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,'
                   b'"tid":9,"ts":%s,"dur":%s,"args":{"stream":9}}' % (ts.encode(), dur.encode()))
    evs.append(b'{"ph":"X","cat":"user_annotation","name":"generate","pid":1,"tid":1,'
               b'"ts":%s,"dur":%s}' % (lo.encode(), LIMIT_US.encode()))
    evs.append(b'{"ph":"B","cat":"user_annotation","name":"open","pid":1,"tid":2,"ts":%s}'
               % lo.encode())
    evs.append(b'{"ph":"E","pid":1,"tid":2,"ts":%s}' % hi.encode())
    for ts in (lo, hi):
        evs.append(b'{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":%s,"s":"t",'
                   b'"args":{"Device Id":0,"Total Allocated":9223372036854775807,'
                   b'"Total Reserved":9223372036854775807,"Bytes":-9223372036854775808}}'
                   % ts.encode())
    # Past the limit: left out, counted, warned with the first one's offset.
    evs.append(b'{"ph":"X","cat":"kernel","name":"out1","pid":0,"tid":7,'
               b'"ts":9223372036854775.807,"dur":1}')
    evs.append(b'{"ph":"X","cat":"kernel","name":"out2","pid":0,"tid":7,"ts":%s,"dur":0.001}'
               % LIMIT_US.encode())
    evs.append(b'{"ph":"X","cat":"kernel","name":"out3","pid":0,"tid":7,'
               b'"ts":-9223372036854775.808,"dur":9223372036854775.807}')
    write(path, trace(evs))


NAMES = ["", "ab\u0000cd", "ab\u0000ef", "ab", "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)",
         "\tlead tab", "\rlead cr", "csi \u009b31m red \u009b0m", "c1 \u0085 nel"]


# What a terminal would act on or hide: an OSC window title and a
# clear screen, bidi overrides and isolates, invisible characters, C1 CSI, DEL,
# a line separator, and an @mention for vcompare --markdown.
TERMINAL = ["\u001b]0;pwned\u0007\u001b[2J", "rlo \u202e evil", "bom \ufeff x", "zw \u200b\u200d x",
            "lri \u2066 x \u2069", "alm \u061c x", "del \u007f x", "csi \u009b31m x", "ls \u2028 x",
            "tag \U000e0041 x", "@octocat ping"]


def terminal(path, suffix):
    evs = []
    for i, n in enumerate(TERMINAL):
        evs.append(ev(ph="X", cat="kernel", name=n + suffix, pid=0, tid=7, ts=10 * i, dur=5 + i,
                      args={"stream": 7}))
        evs.append(ev(ph="X", cat="user_annotation", name=n + suffix, pid=1, tid=1, ts=10 * i,
                      dur=8))
    # and a name that is not UTF-8 at all
    evs.append(b'{"ph":"X","cat":"kernel","name":"bad \xff\xfe\xc2 x%s","pid":0,"tid":7,'
               b'"ts":200,"dur":3,"args":{"stream":7}}' % suffix.encode())
    write(path, trace(evs))


def termreport(path, report):
    r = json.load(open(report))
    for i, rk in enumerate(r["ranks"]):
        rk["source"] = TERMINAL[i % len(TERMINAL)] + " rank.json"
    write(path, json.dumps(r).encode())
    r["schema"] = TERMINAL[0] + "vtrace.report/1"
    write(path + ".schema", json.dumps(r).encode())


def names(path):
    evs = []
    for i, n in enumerate(NAMES):
        for j in range(2):
            evs.append(ev(ph="X", cat="kernel", name=n, pid=0, tid=7, ts=10 * i + 3 * j, dur=1 + i,
                          args={"stream": 7}))
    for i, n in enumerate(["", "fastvideo.region::", "ab\u0000x", "=HYPERLINK(\"x\")"]):
        evs.append(ev(ph="X", cat="user_annotation", name=n, pid=1, tid=1, ts=1000 * i, dur=500))
    evs.append(ev(ph="X", name="fastvideo.region::", pid=1, tid=3, ts=0, dur=5))
    write(path, trace(evs))


def deep(path, n):
    parts = [b'{"traceEvents":[\n']
    for i in range(n):
        parts.append(b'{"ph":"X","cat":"user_annotation","name":"s%d","pid":1,"tid":1,'
                     b'"ts":%d,"dur":%d},\n' % (i, i, 2 * (n - i)))
    parts.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}\n]}\n')
    write(path, b"".join(parts))


def big(path, mb, count):
    s = b"\\u0041" * (mb * 1024 * 1024 // 6)
    evs = [b'{"ph":"X","cat":"cpu_op","name":"big%d","pid":1,"tid":1,"ts":%d,"dur":1,'
           b'"args":{"text":"%s"}}' % (i, i, s) for i in range(count)]
    evs.append(b'{"ph":"X","cat":"kernel","name":"after","pid":0,"tid":7,"ts":1,"dur":2}')
    write(path, trace(evs))


def collide(path, n):
    """n kernels and their launches under one operator, with correlations that
    a fixed multiplicative hash (corr * golden ratio >> 32) puts in one slot."""
    g = 0x9e3779b97f4a7c15
    ginv = pow(g, -1, 1 << 64)
    evs = [ev(ph="X", cat="cpu_op", name="outer", pid=1, tid=1, ts=0, dur=10 * n + 10)]
    for k in range(1, n + 1):
        c = k * ginv % (1 << 64)
        c = c - (1 << 64) if c >= 1 << 63 else c
        evs.append(ev(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1,
                      ts=10 * k + 1, dur=1, args={"correlation": c}))
        evs.append(ev(ph="X", cat="kernel", name="k", pid=0, tid=7, ts=10 * k + 5, dur=2,
                      args={"correlation": c, "stream": 7, "device": 0}))
    write(path, trace(evs))


def devices(path, n):
    """Two [memory] events for each of n device ids, the ids in turn (a
    device's second event after all the first ones)."""
    evs = [ev(ph="X", cat="kernel", name="k", pid=0, tid=7, ts=0, dur=1,
              args={"device": 0, "stream": 7})]
    for k in range(2 * n):
        evs.append(ev(ph="i", s="t", cat="cpu_instant_event", name="[memory]", pid=1, tid=1,
                      ts=k, args={"Device Type": 1, "Device Id": k % n,
                                  "Total Allocated": k, "Total Reserved": 2 * k}))
    write(path, trace(evs))


M64 = (1 << 64) - 1


def fixed_hash(b):
    """strtab_hash before it was keyed: multiply and xorshift, 8 bytes a step."""
    h = (0x9E3779B97F4A7C15 ^ len(b)) & M64
    for i in range(0, len(b) - len(b) % 8, 8):
        h = ((h ^ int.from_bytes(b[i:i + 8], "little")) * 0xBF58476D1CE4E5B9) & M64
        h ^= h >> 29
    if len(b) % 8:
        h = ((h ^ int.from_bytes(b[len(b) - len(b) % 8:], "little")) * 0x94D049BB133111EB) & M64
    h ^= h >> 32
    h = (h * 0xD6E8FEB86659FD93) & M64
    h ^= h >> 32
    return h & 0xFFFFFFFF


def flood(path, n):
    """n kernel names of 16 * 17 bytes that a multiply-xorshift string hash
    maps to one value whatever its seed: in each pair of 8-byte words,
    flipping bit 63 of the first flips bits 63 and 34 of the state after
    it, which the same flips in the second word cancel.  Name i flips the
    pairs of the bits set in i.  The bytes are raw (not UTF-8), as a
    hostile file may have them."""
    names = []
    for i in range(n):
        b = bytearray(b"kernel_aaaaaaaaa" * 17)
        for j in range(17):
            if i >> j & 1:
                b[16 * j + 7] ^= 0x80
                b[16 * j + 15] ^= 0x80
                b[16 * j + 12] ^= 0x04
        names.append(bytes(b))
    assert len({fixed_hash(b) for b in names[:64] + names[-64:]}) == 1
    write(path, trace([b'{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":1,'
                       b'"args":{"device":0,"stream":7}}' % (b, 10 * i)
                       for i, b in enumerate(names)]))


def schema(path, report):
    with open(report, "rb") as f:
        text = f.read()
    old = b'"schema": "vtrace.report/1"'
    assert old in text, "no schema key in " + report
    write(path, text.replace(old, b'"schema": "vtrace.report/1\\u0000x"', 1))


def annots(path, n):
    """n distinct annotation names: half roots, half each nested in one."""
    evs = []
    for i in range(n):
        d = 1 if i % 2 else 10
        t = 10 * (i - i % 2)
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"a%d","pid":1,"tid":1,'
                   b'"ts":%d,"dur":%d}' % (i, t + (i % 2), d))
    evs.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}')
    write(path, trace(evs))


def steps(path, n):
    evs = []
    for i in range(n):
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,'
                   b'"tid":1,"ts":%d,"dur":8}' % (i, 10 * i))
        evs.append(b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,'
                   b'"tid":1,"ts":%d,"dur":1,"args":{"correlation":%d}}' % (10 * i + 1, i))
        evs.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":3,'
                   b'"args":{"correlation":%d,"stream":7,"device":0}}' % (10 * i + 2, i))
    write(path, trace(evs))


def kernels(path, n):
    write(path, trace([b'{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,'
                       b'"dur":%d,"args":{"stream":7,"device":0}}' % (i, 10 * i, 1 + i % 7)
                       for i in range(n)]))


def tiny(path, n):
    import os
    os.makedirs(path, exist_ok=True)
    for i in range(n):
        with open(os.path.join(path, "rank-%d.json" % i), "wb") as f:
            f.write(b'{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,'
                    b'"ts":%d,"dur":5}]}' % i)


def longname(path, mb):
    name = b"<" * 16383 + "\u00e9".encode() + b"<" * (mb * 1024 * 1024 - 16385)
    evs = [b'{"ph":"X","cat":"user_annotation","name":"%s","pid":1,"tid":1,"ts":0,"dur":100}'
           % name,
           b'{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,"ts":1,"dur":50}' % name,
           b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,'
           b'"dur":1,"args":{"correlation":1}}',
           b'{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":5,"dur":20,'
           b'"args":{"correlation":1,"stream":7,"device":0}}' % name]
    write(path, trace(evs))


def rows(path, n):
    evs = [b'{"ph":"X","cat":"kernel","name":"(other kernels)","pid":0,"tid":7,"ts":0,'
           b'"dur":90000,"args":{"stream":7,"device":0}}']
    for i in range(n):
        t = 100000 + 100 * i
        evs.append(b'{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":%d,'
                   b'"args":{"stream":7,"device":0}}' % (i, t, 1 + (i * 7919) % 97))
        evs.append(b'{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":%d}'
                   % (i, t, 1 + (i * 104729) % 89))
    write(path, trace(evs))


def mm_call(evs, t, corr, dims, dur):
    """An aten::mm at t (us) launching a kernel of dur us."""
    evs.append(b'{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%d,"dur":4,'
               b'"args":{"Input Dims":%s,"Input type":["c10::BFloat16","c10::BFloat16"]}}'
               % (t, json.dumps(dims).encode()))
    evs.append(b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,'
               b'"ts":%d,"dur":1,"args":{"correlation":%d}}' % (t + 1, corr))
    evs.append(b'{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":%d,"dur":%d,'
               b'"args":{"correlation":%d,"stream":7,"device":0}}' % (t + 2, dur, corr))


def gens(path, n, overlap=False):
    """n roots "gen", each a generation (it holds a denoising step), each with one mm;
    overlap: each generation also has a root "post" (a thread of its own) that lasts to
    the end of the trace."""
    evs = []
    for i in range(n):
        t = 100 * i
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"gen","pid":1,"tid":1,'
                   b'"ts":%d,"dur":50}' % t)
        evs.append(b'{"ph":"X","cat":"user_annotation","name":"denoise_step_0","pid":1,'
                   b'"tid":1,"ts":%d,"dur":40}' % (t + 1))
        mm_call(evs, t + 2, i + 1, [[64, 64], [64, 64]], 20)
        if overlap:
            evs.append(b'{"ph":"X","cat":"user_annotation","name":"post","pid":1,"tid":%d,'
                       b'"ts":%d,"dur":%d}' % (2 + i, t + 60, 100 * n - t - 60))
    write(path, trace(evs))


def hugeflops(path):
    """One step: two mm of INT64_MAX dims (1.6e57 FLOPs each in 150 us), two of 2 x 4096^3
    FLOPs in 300 us (458 TFLOP/s, under the H100's bf16 989.5)."""
    big = 2 ** 63 - 1
    evs = [b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,'
           b'"ts":0,"dur":2000}']
    calls = [([[big, big], [big, big]], 150), ([[4096, 4096], [4096, 4096]], 300)] * 2
    for i, (dims, dur) in enumerate(calls):
        mm_call(evs, 10 + 400 * i, i + 1, dims, dur)
    top = (b'{"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],'
           b'"traceEvents":[\n')
    write(path, top + b",\n".join(evs) + b"\n]}\n")


def shapes(path, n):
    evs = []
    for i in range(n):
        mm_call(evs, 10 * i, i + 1, [[1 + i, 64], [64, 64]], 1 + i % 7)
    write(path, trace(evs))


def hcclnames(path, n, cat=True):
    import os
    os.makedirs(path, exist_ok=True)
    for r in range(2):
        py, hw, hc = 1000 + r, 2000 + r, 3000 + r
        evs = [ev(ph="M", name="process_name", pid=py, tid=0, args={"name": "Python"}),
               ev(ph="M", name="process_name", pid=hw, tid=0, args={"name": "Ascend Hardware"}),
               ev(ph="M", name="process_name", pid=hc, tid=0, args={"name": "HCCL"}),
               ev(ph="M", name="thread_name", pid=hc, tid=0,
                  args={"name": "Group 0 Communication"}),
               ev(ph="X", name="ProfilerStep#0", cat="cpu_op", pid=py, tid=py, ts=0,
                  dur=100 * n)][:5 if cat else 4]
        for i in range(n):
            t = 100 * i
            evs.append(b'{"ph":"X","name":"aclnnMm_MatMulCommon_MatMulV2","pid":%d,"tid":2,'
                       b'"ts":%d,"dur":40,"args":{"Task Type":"AI_CORE"}}' % (hw, t))
            evs.append(b'{"ph":"X","name":"hcom_allReduce__%d_0_1","pid":%d,"tid":0,"ts":%d,'
                       b'"dur":%d,"args":{"count":1024,"data_type":"FP32"}}'
                       % (i, hc, t + 50, 20 + (i * 7 + r * 13) % 29))
        write(os.path.join(path, "rank-%d.json" % r), trace(evs))
def sameops(path, n):
    """n operators starting together: each in the file longer than the one
    before, so that ordering them longest first moves every one."""
    evs = [b'{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":100,"dur":%d}'
           % (i % 7, i + 1) for i in range(n)]
    evs.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":1}')
    write(path, trace(evs))


def topkeys(path, n):
    """n small run-metadata members around a short events array."""
    half = n // 2
    pre = b"".join(b'"meta_%d":%d,\n' % (i, i) for i in range(half))
    post = b"".join(b',\n"meta_%d":"v%d"' % (i, i) for i in range(half, n))
    evs = b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1}'
    write(path, b'{' + pre + b'"traceEvents":[\n' + evs + b'\n]' + post + b'}\n')


# Host span names of each class of doc/idle.md, and none (host work or a Python frame).
IDLE_NAMES = ["enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "aten::item",
              "cudaMalloc", "gloo:all_reduce", "torch_compile", "nn.Module: Layer",
              "cudaStreamCreate", "capture_graph"]


def gaps(n, d, launch_ts):
    """Device items 10 us apart after the spans' starts at 0..d-1, each
    launched on pid 1 tid 1; launch_ts(i, t) gives launch i's start."""
    evs = []
    for i in range(n):
        t = d + 10 * i + 5
        evs.append(b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,'
                   b'"ts":%d,"dur":1,"args":{"correlation":%d}}' % (launch_ts(i, t), i + 1))
        evs.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,'
                   b'"args":{"correlation":%d,"stream":7,"device":0}}' % (t, i + 1))
    return evs


def idlenest(path, n, d):
    """n gaps under d nested spans that all cover every gap: span j starts
    at j us and ends j us before the last.  The classes vary with j."""
    end = 2 * d + 10 * n + 20
    evs = [b'{"ph":"X","cat":"user_annotation","name":"%s %d","pid":1,"tid":1,"ts":%d,'
           b'"dur":%d}' % (IDLE_NAMES[j % len(IDLE_NAMES)].encode(), j, j, end - 2 * j)
           for j in range(d)]
    write(path, trace(evs + gaps(n, d, lambda i, t: t - 4)))


def pystack(path, n, d):
    """n gaps launched under a d-deep stack of Python frames."""
    end = 2 * d + 10 * n + 20
    evs = [b'{"ph":"X","cat":"python_function","name":"model.py(%d): forward","pid":1,'
           b'"tid":1,"ts":%d,"dur":%d}' % (j, j, end - 2 * j) for j in range(d)]
    write(path, trace(evs + gaps(n, d, lambda i, t: t - 4)))


def latelaunch(path, n):
    """n gaps whose launches (by correlation) all start after the last item:
    each host window reaches past every later gap, over the spans of host
    work that start in them."""
    evs = []
    for i in range(n):
        evs.append(b'{"ph":"X","cat":"cpu_op","name":"work %d","pid":1,"tid":1,"ts":%d,'
                   b'"dur":60}' % (i, 10 * i))
        evs.append(b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":2,'
                   b'"args":{"correlation":%d,"stream":7,"device":0}}' % (10 * i + 5, i + 1))
    evs += gaps_launched_at(n, 10 * n + 100)
    write(path, trace(evs))


def gaps_launched_at(n, ts):
    return [b'{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,'
            b'"ts":%d,"dur":1,"args":{"correlation":%d}}' % (ts, i + 1) for i in range(n)]


def idlemix(path, n, seed):
    """Random spans and gaps that meet every branch and tie of the idle
    rules (doc/idle.md), small enough for tests/oracle_idle.py."""
    import random
    rnd = random.Random(seed)
    names = IDLE_NAMES + ["cudaDeviceSynchronize", "work", "other work"]
    evs = []
    span = 40 * n + 1000
    for tid in (1, 2):
        for j in range(3 * n):
            ts = rnd.choice([rnd.randrange(span), 40 * rnd.randrange(n), 10 * rnd.randrange(n)])
            dur = rnd.choice([0, 1, 5, 30, 49, 50, 60, 200, 2000, span, rnd.randrange(1200)])
            if rnd.random() < 0.1:          # one end shared with another span
                dur = max(0, 40 * rnd.randrange(n) + 20 - ts)
            name = rnd.choice(names)
            cat = "cuda_runtime" if name.startswith("cuda") else "cpu_op"
            if name not in ("aten::item", "cudaDeviceSynchronize") and rnd.random() < 0.7:
                name += " %d.%d" % (tid, j)     # which span of its class the rules name
            evs.append(ev(ph="X", cat=cat, name=name, pid=1, tid=tid, ts=ts, dur=dur))
    t = 50
    for i in range(n):
        t += rnd.choice([1, 3, 10, 40, 900, 1500, 4000])
        dur = rnd.choice([1, 2, 10, 30])
        tid = rnd.choice((1, 2))
        corr = 1000 + i
        launch = t - rnd.choice([1, 2, 20, 400]) if rnd.random() < 0.7 else t + rnd.randrange(3000)
        if rnd.random() < 0.9:
            evs.append(ev(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=tid,
                          ts=launch, dur=1, args={"correlation": corr}))
        args = {"stream": 7, "device": 0}
        if rnd.random() < 0.9:
            args["correlation"] = corr
        evs.append(ev(ph="X", cat="kernel", name="k", pid=0, tid=7, ts=t, dur=dur, args=args))
        t += dur
    rnd.shuffle(evs)
    write(path, trace(evs))


def main(argv):
    cmd, path = argv[1], argv[2]
    if cmd == "extreme":
        extreme(path)
    elif cmd == "names":
        names(path)
    elif cmd == "deep":
        deep(path, int(argv[3]))
    elif cmd == "big":
        big(path, int(argv[3]), int(argv[4]) if len(argv) > 4 else 1)
    elif cmd == "collide":
        collide(path, int(argv[3]))
    elif cmd == "devices":
        devices(path, int(argv[3]))
    elif cmd == "flood":
        flood(path, int(argv[3]))
    elif cmd in ("annots", "steps", "kernels", "tiny", "longname", "rows", "sameops",
                 "topkeys", "latelaunch"):
        globals()[cmd](path, int(argv[3]))
    elif cmd in ("gens", "shapes", "hcclnames"):
        globals()[cmd](path, int(argv[3]))
    elif cmd == "hcclphases":
        hcclnames(path, int(argv[3]), False)
    elif cmd == "gens-overlap":
        gens(path, int(argv[3]), True)
    elif cmd == "hugeflops":
        hugeflops(path)
    elif cmd == "idlenest":
        idlenest(path, int(argv[3]), int(argv[4]) if len(argv) > 4 else int(argv[3]))
    elif cmd == "idlemix":
        idlemix(path, int(argv[3]), int(argv[4]))
    elif cmd == "pystack":
        pystack(path, int(argv[3]), int(argv[4]))
    elif cmd == "schema":
        schema(path, argv[3])
    elif cmd == "terminal":
        terminal(path, argv[3] if len(argv) > 3 else "")
    elif cmd == "termreport":
        termreport(path, argv[3])
    else:
        sys.exit("unknown subcommand " + cmd)


if __name__ == "__main__":
    main(sys.argv)
