#!/usr/bin/env python3
"""Write inputs with many of one thing that an analysis loops over.

    hostile_many.py unmatched DIR N [nccl|hccl]
                        two ranks (DIR/rank0.json, DIR/rank1.json) with N
                        collectives of distinct names, NCCL kernels or
                        torch_npu's hcom_* operators on the HCCL track:
                        rank 0 runs each twice, rank 1 once, so each name
                        leaves one instance unmatched on rank 0
    hostile_many.py threads PATH N
                        a collector file (.vtr, collector/FORMAT.md) of N
                        threads, one region each, in one block each
    hostile_many.py tagfiles DIR N
                        N one-rank traces DIR/r<i>.json, each with 32
                        metadata keys (tags) of its own
    hostile_many.py tagreport PATH REPORT N
                        REPORT (a report.json) with N tags on its first
                        input and on its run

Only the standard library; every file is deterministic.
"""
import json
import os
import struct
import sys


def unmatched(out, n, kind):
    os.makedirs(out, exist_ok=True)
    for r in range(2):
        t = 1000.0
        if kind == "hccl":
            hc = 3000 + r
            ev = [{"ph": "M", "name": "process_name", "pid": hc, "tid": 0,
                   "args": {"name": "HCCL"}},
                  {"ph": "M", "name": "thread_name", "pid": hc, "tid": 0,
                   "args": {"name": "Group 0 Communication"}}]
        else:
            ev = []
        for i in range(n):
            for _ in range(2 - r):
                if kind == "hccl":
                    ev.append({"ph": "X", "name": "hcom_allReduce__606_%d_1" % i, "pid": hc,
                               "tid": 0, "ts": t, "dur": 2,
                               "args": {"count": 1024, "data_type": "FP32"}})
                else:
                    ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_x%d" % i,
                               "pid": 0, "tid": 7, "ts": t, "dur": 2,
                               "args": {"stream": 7, "device": 0}})
                t += 5
        doc = ev if kind == "hccl" else {
            "distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2},
            "traceEvents": ev}
        with open(os.path.join(out, "rank%d.json" % r), "w") as f:
            json.dump(doc, f)


def vtr_block(kind, arg, payload):
    return struct.pack("<IHHII", 0x4b4c4256, kind, 0, len(payload), arg) + payload


def vtr_rec(ts, kind, sid=0, arg=0):
    return struct.pack("<qII", ts, kind | sid << 8, arg)


def threads(path, n):
    head = (b"\x89VTR\r\n\x1a\n" + struct.pack("<IIII", 1, 256, 0x01020304, 16) +
            struct.pack("<qqqqiI", 10**18, 1000, 0, 1, 42, 0)).ljust(256, b"\0")
    out = [head, vtr_block(1, 1, struct.pack("<I", 4) + b"work")]
    for i in range(n):
        # begin and end of string 1 on thread 1000 + i
        out.append(vtr_block(2, 1000 + i, vtr_rec(1000 + 10 * i, 1, 1) +
                             vtr_rec(1005 + 10 * i, 2)))
    out.append(vtr_block(3, 0, struct.pack("<qQQQ", 1000 + 10 * n, 0, 0, 0)))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def tagfiles(out, n):
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        doc = {"distributedInfo": {"rank": r, "world_size": n}}
        for j in range(32):
            doc["k%d_%d" % (r, j)] = "v%d" % j
        doc["traceEvents"] = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                               "ts": 1000 + r, "dur": 2, "args": {"stream": 7, "device": 0}}]
        with open(os.path.join(out, "r%d.json" % r), "w") as f:
            json.dump(doc, f)


def tagreport(path, report, n):
    with open(report) as f:
        r = json.load(f)
    # "model" makes each a key that tells experiments apart (vcompare's check)
    tags = {"model_%d" % i: "v%d" % i for i in range(n)}
    r["inputs"][0]["tags"] = tags
    r["run"]["tags"] = tags
    with open(path, "w") as f:
        json.dump(r, f)


def main(argv):
    if len(argv) >= 4 and argv[1] == "unmatched":
        unmatched(argv[2], int(argv[3]), argv[4] if len(argv) > 4 else "nccl")
    elif len(argv) == 4 and argv[1] == "threads":
        threads(argv[2], int(argv[3]))
    elif len(argv) == 4 and argv[1] == "tagfiles":
        tagfiles(argv[2], int(argv[3]))
    elif len(argv) == 5 and argv[1] == "tagreport":
        tagreport(argv[2], argv[3], int(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
