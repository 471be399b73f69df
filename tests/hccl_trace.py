#!/usr/bin/env python3
"""Write torch_npu-shaped traces of an N-rank run with HCCL all-reduces.

The shape is that of torch_npu's ASCEND_PROFILER_OUTPUT/trace_view.json
(the shared level0 sample): a bare JSON array; events without cat, told
apart by their process ("Python", "Ascend Hardware", "HCCL"); each
hcom_allReduce__<g>_<k>_1 operator on the HCCL track with args count and
data_type, and inside it, on the hardware's HCCL stream, a Notify Wait
while the peers have not arrived, then SDMA copies, then a last short
Notify Wait.  All ranks share one host clock, as on one machine.

Each step: COMPUTE_US of matrix multiplies on stream 2, then the
collective.  --late R@K=MS makes rank R reach step K's collective MS
milliseconds late (its host was slow), so every other rank waits MS there.
--no-tasks leaves out the HCCL tasks, as a trace without them has.

Usage: hccl_trace.py OUTDIR [--ranks N] [--steps S] [--late R@K=MS] [--no-tasks]
Writes OUTDIR/hccl-rank<R>.trace.json.gz and OUTDIR/truth.json (what each
rank waits and transfers, the late rank).
"""
import argparse, gzip, json, os

COMPUTE_US = 2000.0     # a step's compute before its collective
TRANSFER_US = 600.0     # the SDMA copies of one all-reduce (two copies of 300)
TAIL_US = 20.0          # the last Notify Wait after the copies
COUNT = 4 * 1024 * 1024  # elements, FP32: 16 MiB
BASE_US = 1736405443000000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--late", action="append", default=[])
    ap.add_argument("--no-tasks", action="store_true")
    o = ap.parse_args()
    late = {}
    for spec in o.late:
        rk, rest = spec.split("@")
        k, ms = rest.split("=")
        late[(int(rk), int(k))] = float(ms) * 1000
    os.makedirs(o.out, exist_ok=True)
    truth = {"ranks": {}, "late": sorted({r for r, _ in late})}
    # the collective of step k starts when its last rank arrives
    step0 = BASE_US + 1000.0
    arrive, done = {}, {}
    t = step0
    for k in range(o.steps):
        for r in range(o.ranks):
            arrive[(r, k)] = t + COMPUTE_US + late.get((r, k), 0.0)
        last = max(arrive[(r, k)] for r in range(o.ranks))
        done[k] = last + TRANSFER_US + TAIL_US
        t = done[k] + 100.0
    for r in range(o.ranks):
        py, hw, hc = 1000 + r, 2000 + r, 3000 + r
        ev = [
            {"ph": "M", "name": "process_name", "pid": py, "tid": 0, "args": {"name": "Python"}},
            {"ph": "M", "name": "process_name", "pid": hw, "tid": 0,
             "args": {"name": "Ascend Hardware"}},
            {"ph": "M", "name": "process_name", "pid": hc, "tid": 0, "args": {"name": "HCCL"}},
            {"ph": "M", "name": "thread_name", "pid": hc, "tid": 0,
             "args": {"name": "Group 0 Communication"}},
        ]
        wait = transfer = 0.0
        t = step0
        for k in range(o.steps):
            a, last = arrive[(r, k)], max(arrive[(q, k)] for q in range(o.ranks))
            ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "cat": "cpu_op", "pid": py,
                       "tid": py, "ts": "%.3f" % t, "dur": "%.3f" % (done[k] - t)})
            # compute: four matrix multiplies filling COMPUTE_US, from the step start
            for j in range(4):
                ev.append({"ph": "X", "name": "aclnnMm_MatMulCommon_MatMulV2", "pid": hw,
                           "tid": 2, "ts": "%.3f" % (t + j * COMPUTE_US / 4),
                           "dur": "%.3f" % (COMPUTE_US / 4), "args": {"Task Type": "AI_CORE"}})
            ev.append({"ph": "X", "name": "hcom_allReduce__606_%d_1" % k, "pid": hc, "tid": 0,
                       "ts": "%.3f" % a, "dur": "%.3f" % (done[k] - a),
                       "args": {"count": COUNT, "data_type": "FP32", "alg_type": "MESH-RING"}})
            if not o.no_tasks:
                tasks = [("Notify Wait", a, last - a),
                         ("SDMA", last, TRANSFER_US / 2),
                         ("SDMA", last + TRANSFER_US / 2, TRANSFER_US / 2),
                         ("Write Value", last + TRANSFER_US, 0.5),
                         ("Notify Wait", last + TRANSFER_US, TAIL_US)]
                for name, ts, dur in tasks:
                    ev.append({"ph": "X", "name": name, "pid": hw, "tid": 4, "ts": "%.3f" % ts,
                               "dur": "%.3f" % dur, "args": {"Task Type": name}})
            wait += done[k] - a - TRANSFER_US
            transfer += TRANSFER_US
            t = done[k] + 100.0
        truth["ranks"][str(r)] = {"wait_us": wait, "transfer_us": transfer,
                                  "bytes": COUNT * 4}
        with gzip.open(os.path.join(o.out, "hccl-rank%d.trace.json.gz" % r), "wt") as f:
            json.dump(ev, f)
    with open(os.path.join(o.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
