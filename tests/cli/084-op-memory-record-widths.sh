#!/usr/bin/env bash
# The compact CPU operator and [memory] records stay exact at their edges.
# Operators of 2^31 - 1, 2^31 and 2^31 + 1 ns (the inline duration's limit),
# of hours and of 2^56 ns (the side table), one of a negative dur (dropped
# by the reader), nested in each other, with device work launched inside
# the long ones, and runs of spans starting together, longest first by the
# side table's durations (a short run sorted by insertion, a long one by
# radix).  [memory] samples with values no allocator makes (up to 2^61,
# not multiples of 512, Bytes of both signs), with and without Total
# Allocated on one device, Total Reserved changing now and then, given or
# not: on a device written by 3 threads (its runs merged), on one in
# reverse time order (sorted), on one with only Bytes, and on one with
# more samples than the timeline's groups.  cpu_ops (all rows, device time
# included) and memory (timelines included) equal
# tests/oracle_analyses.py's independent reading, and -j 1 and -j 2 write
# the same report.  Operators whose sums saturate get the rows file order
# gives, as python adds them here.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

python3 - <<'PY' || die "cannot write the trace"
import json, random
rng = random.Random(84)
ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]
corr = [0]


def op(name, ts, dur, tid=2, launch=None):
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid,
               "ts": ts, "dur": dur})
    if launch is not None:  # a kernel launched at launch (us), of the same length as the op
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": tid, "ts": launch, "dur": "1", "args": {"correlation": corr[0]}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                   "ts": launch, "dur": dur, "args": {"correlation": corr[0], "stream": 7}})


edge = ["2147483.647", "2147483.648", "2147483.649", "0.001", "3600000000", "4294967.296",
        "72057594037927.936", "2147483.648", "7.5", "0"]
# hours-long parents, each with children at the edge lengths, launching inside
op("outer", "1000", "7200000000", launch="1500")
op("outer", "1000", "7200000000.001")
for i, d in enumerate(edge):
    op("child%d" % (i % 4), str(2000 + 10**7 * i), d, launch=str(2001 + 10**7 * i))
op("neg", "3000", "-5")
# spans starting together: 3 (insertion), then 20 (radix), durations around 2^31 ns
for k, n in ((0, 3), (1, 20)):
    for j in range(n):
        op("tie%d" % k, str(8 * 10**9 + k * 10**10), edge[(j * 7 + k) % len(edge)],
           tid=3, launch=str(8 * 10**9 + k * 10**10 + j))
# a second thread in shuffled order
for j in rng.sample(range(40), 40):
    op("shuf", str(10**6 * j), rng.choice(edge), tid=4)


def mem(tid, ts, dev, **args):
    a = {"Device Type": 1, "Device Id": dev, "Addr": rng.randrange(1 << 40)}
    a.update(args)
    ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
               "pid": 1, "tid": tid, "ts": ts, "args": a})


def sample(total_share, reserved_every, res):
    a = {"Bytes": rng.choice([-1, 1]) * rng.randrange(1 << 56)}
    if rng.random() < total_share:
        a["Total Allocated"] = rng.randrange(1 << 61)
    if rng.random() < 0.1:
        res[0] = rng.randrange(1 << 61)
    if res[0] is not None and rng.random() < reserved_every:
        a["Total Reserved"] = res[0]
    return a


res = [None]
for tid in range(3):  # device 0: a run per thread, equal times across runs
    for ts in sorted(rng.randrange(0, 4000, 8) for _ in range(60)):
        mem(10 + tid, ts, 0, **sample(0.7, 0.9, res))
for ts in range(200, 0, -1):  # device 1: one run per sample
    mem(20, ts, 1, **sample(0.5, 0.8, res))
for ts in range(150):  # device 2: only Bytes, reserved sometimes
    a = sample(0, 0.5, res)
    mem(30, ts, 2, **a)
for tid in range(4):  # device 3: 1200 samples in 4 runs, merged in 256 groups
    for ts in range(300):
        mem(40 + tid, 3 * ts + tid, 3, **sample(0.9, 0.7, res))
open("wide.json", "w").write(json.dumps({"traceEvents": ev}).replace('"dur": "-5"', '"dur": -5'))
PY
va j1 -j 1 --json j1.json wide.json
expect_rc j1 0
va j2 -j 2 --json j2.json wide.json
expect_rc j2 0
cmp -s j1.json j2.json || die "-j 1 and -j 2 reports differ"
expect_line j1.err 'negative dur' "the negative dur is said"

python3 - "$VT_ROOT/tests" <<'PY' || die "the operator and memory records disagree with the oracle"
import json, sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1])
import oracle_analyses
orc = oracle_analyses.analyze("wide.json")
rk = json.load(open("j1.json"))["ranks"][0]
bad = []
fields = ("name", "count", "total_ns", "self_ns", "device_ns", "self_device_ns")
have = [{f: o[f] for f in fields} for o in rk["cpu_ops"]]
want = [{f: o[f] for f in fields} for o in orc["cpu_ops"]]
if have != want:
    bad.append("cpu_ops:\n  %r\nwant\n  %r" % (have, want))
if len(want) != 8 or not all(o["device_ns"] for o in want if o["name"] != "shuf"):
    bad.append("the trace lacks what it should test: %r" % want)
for r, o in zip(rk["memory"], orc["memory"]):
    for f in o:
        if r.get(f) != o[f]:
            bad.append("memory device %s %s: %r, want %r" % (o["device"], f, r.get(f), o[f]))
if len(rk["memory"]) != len(orc["memory"]) or len(orc["memory"]) != 4:
    bad.append("%d memory rows, want %d" % (len(rk["memory"]), len(orc["memory"])))
if bad:
    sys.exit("\n".join(bad))
print("cpu_ops: %d rows, memory: %d devices, %d timeline points, as the oracle reads them"
      % (len(have), len(rk["memory"]), sum(len(r["timeline"]) // 3 for r in rk["memory"])))
PY

# Operators whose sums pass INT64_MAX: the rows are added in file order,
# saturating (lib/sat.h), as python does here; the threads' order (a
# thread first seen first) is not file order, so a sum in sweep order
# would saturate elsewhere.
python3 - <<'PY' || die "cannot write the saturating trace"
import json
E = 4400000000000000  # us: 4.4e18 ns
ev = []
def op(name, tid, ts, dur):
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts,
               "dur": dur})
op("z", 5, 0, 1)
op("z", 2, 0, 1)
op("x", 2, 10, E)
op("x", 3, 10, E)
op("x", 4, 10, E)
op("x", 5, 1000, 10)
op("c", 5, 1001, E)
ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 5,
           "ts": 1002, "dur": 1, "args": {"correlation": 1}})
ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1003, "dur": 3,
           "args": {"correlation": 1, "stream": 7}})
json.dump({"traceEvents": ev}, open("sat.json", "w"))
PY
va sat -j 2 --json sat.report sat.json
expect_rc sat 0
python3 - <<'PY' || die "saturating operator sums are not those of file order"
import json, sys
MAX, MIN = 2**63 - 1, -2**63
sat = lambda v: max(MIN, min(MAX, v))
ev = json.load(open("sat.json"))["traceEvents"]
ops = [(i, e) for i, e in enumerate(ev) if e.get("cat") == "cpu_op"]
launch = {e["args"]["correlation"]: (e["tid"], e["ts"] * 1000) for e in ev
          if e.get("cat") == "cuda_runtime"}
kern = {e["args"]["correlation"]: e["dur"] * 1000 for e in ev if e.get("cat") == "kernel"}
dev = {i: sum(kern[c] for c, (tid, t) in launch.items()
              if tid == e["tid"] and e["ts"] * 1000 <= t < e["ts"] * 1000 + e["dur"] * 1000)
       for i, e in ops}
child, child_dev = {i: 0 for i, _ in ops}, {i: 0 for i, _ in ops}
for tid in {e["tid"] for _, e in ops}:
    stack = []
    for i, e in sorted(((i, e) for i, e in ops if e["tid"] == tid),
                       key=lambda x: (x[1]["ts"], -x[1]["dur"], x[0])):
        while stack and e["ts"] * 1000 >= ev[stack[-1]]["ts"] * 1000 + ev[stack[-1]]["dur"] * 1000:
            stack.pop()
        if stack:
            child[stack[-1]] = sat(child[stack[-1]] + e["dur"] * 1000)
            child_dev[stack[-1]] = sat(child_dev[stack[-1]] + dev[i])
        stack.append(i)
rows = {}
for i, e in ops:  # file order
    r = rows.setdefault(e["name"], [0, 0, 0, 0, 0])
    d = e["dur"] * 1000
    r[0] += 1
    r[1] = sat(r[1] + d)
    r[2] = sat(r[2] + sat(d - child[i]))
    r[3] = sat(r[3] + dev[i])
    r[4] = sat(r[4] + sat(dev[i] - child_dev[i]))
got = {o["name"]: [o["count"], o["total_ns"], o["self_ns"], o["device_ns"], o["self_device_ns"]]
       for o in json.load(open("sat.report"))["ranks"][0]["cpu_ops"]}
print("saturating rows: %r\nfile order:      %r" % (got, rows))
if got != rows or rows["x"][2] in (MAX, MIN):
    sys.exit(1)
PY
echo "pass: operator and memory record widths"
