#!/usr/bin/env python3
"""Small Kineto traces of N ranks where chosen ranks arrive late at chosen
collectives, for the collectives tests (python3 stdlib only).

    late_ranks_trace.py OUTDIR [--ranks N] [--steps S] [--late COLL=RANK]...
                        [--cut RANK]

Each step every rank runs a GEMM, then an all_reduce, a GEMM and an
all_gather (NCCL kernels launched by record_param_comms ops that carry
"Collective name", "Process Group Name", dtype and message sizes).  A rank
named by --late COLL=RANK computes 4 ms longer before COLL, so the others
wait for it there.  Each rank's clock has its own offset (rank r reads
r * 3.7 s late), so only durations and order can match instances.  --cut
RANK writes that rank's file cut off in the middle (an incomplete trace).
Writes OUTDIR/late-rank{R}.trace.json.gz.
"""
import gzip
import json
import random
import sys

COLLS = {"allreduce": ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                       1 << 20, 1 << 20),
         "allgather": ("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                       1 << 18, None)}


def main():
    args = sys.argv[1:]
    out, n, steps, late, cut = args[0], 6, 12, {}, None
    i = 1
    while i < len(args):
        if args[i] == "--ranks":
            n = int(args[i + 1])
        elif args[i] == "--steps":
            steps = int(args[i + 1])
        elif args[i] == "--late":
            coll, rank = args[i + 1].split("=")
            late.setdefault(coll, set()).add(int(rank))
        elif args[i] == "--cut":
            cut = int(args[i + 1])
        else:
            sys.exit("unknown option %s" % args[i])
        i += 2
    rng = random.Random(12)
    events = [[] for _ in range(n)]
    clock = [0] * n                     # ns on a common time base
    ext = [1000] * n
    for step in range(steps):
        for coll in ("allreduce", "allgather"):
            kname, in_el, out_el = COLLS[coll]
            out_el = out_el if out_el is not None else in_el * n
            arrive = []
            for r in range(n):
                gemm = 2_000_000 + rng.randrange(-150_000, 150_000)
                if r in late.get(coll, ()):
                    gemm += 4_000_000
                events[r].append(("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n",
                                  clock[r], gemm, None))
                arrive.append(clock[r] + gemm + 5_000)
            transfer = 300_000 + rng.randrange(0, 20_000)
            end = max(arrive) + transfer
            for r in range(n):
                ext[r] += 1
                events[r].append(("cpu_op", "record_param_comms", arrive[r] - 20_000, 15_000,
                                  {"External id": ext[r], "Collective name": coll,
                                   "Process Group Name": "0", "Process Group Ranks": str(list(range(n))),
                                   "dtype": "Float", "In msg nelems": in_el,
                                   "Out msg nelems": out_el, "Group size": n}))
                events[r].append(("kernel", kname, arrive[r], end - arrive[r],
                                  {"External id": ext[r]}))
                clock[r] = end + 10_000
    for r in range(n):
        shift = r * 3_700_000_000
        lines = []
        for cat, name, ts, dur, a in events[r]:
            # times as JSON numbers with three decimals: exact microseconds
            t = "%d.%03d" % divmod(1_700_000_000_000_000 + ts + shift, 1000)
            d = "%d.%03d" % divmod(dur, 1000)
            pid = 1 if cat == "cpu_op" else 0
            lines.append('  {"ph": "X", "cat": %s, "name": %s, "pid": %d, "tid": %d, '
                         '"ts": %s, "dur": %s%s}' % (
                             json.dumps(cat), json.dumps(name), pid, 1 if pid else 7, t, d,
                             ', "args": ' + json.dumps(a) if a else ""))
        text = ('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, '
                '"world_size": %d},\n "traceEvents": [\n%s\n]}\n' % (r, n, ",\n".join(lines)))
        if r == cut:
            text = text[:len(text) * 6 // 10]
        with gzip.open("%s/late-rank%d.trace.json.gz" % (out, r), "wt") as f:
            f.write(text)


if __name__ == "__main__":
    main()
