#!/usr/bin/env python3
"""Waiting versus transfer inside HCCL collectives, computed independently.

Usage: hccl_oracle.py REPORT TRACE...   (TRACE in the report's rank order)

From each torch_npu trace alone (python3 stdlib, decimal timestamps): the
hcom_* operators on the HCCL process are the collectives; the tasks that
move data are the SDMA/RDMA tasks of the "Ascend Hardware" process and the
HCCL process's other tasks but its Notify waits and records and Write
Value.  A collective's transfer is the part of it those tasks cover (their
union); its wait, the rest.  Checked against REPORT, exactly in ns: each
rank's comm_ns, comm_wait_ns, comm_transfer_ns, comm_wait_source,
effective_utilization (compute, copies and tasks over the active span) and
every comm_instances row (durations, transfer_ns, bytes = count x size).
Where the HCCL process holds no tasks of its own (no planes: the tasks are
the device's streams, read as one), the split of the wait too: a
collective's synchronisation is the part of it before its first data task
that Notify Waits cover, its idle the part no task (data or Notify Wait)
covers: comm_sync_ns, comm_idle_ns and each row's sync_ns, idle_ns.  (With
planes, tests/cli/076 checks the split against torch_npu's own analysis.)
Exit 1 on any difference.
"""
import json, os, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (load, to_ns)

WAITS = ("Notify", "Write Value", "EVENT_RECORD", "EVENT_WAIT")
SIZES = {"FP32": 4, "FP16": 2, "BFP16": 2, "BF16": 2, "INT8": 1, "INT32": 4, "INT64": 8,
         "FP64": 8, "UINT8": 1}


def union(iv):
    out = []
    for lo, hi in sorted(i for i in iv if i[1] > i[0]):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def length(u):
    return sum(hi - lo for lo, hi in u)


def overlap(a, b):
    return sum(max(0, min(x[1], y[1]) - max(x[0], y[0])) for x in a for y in b)


def rank_figures(path):
    _, events = oracle.load(path)
    proc = {}
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "M" and e.get("name") == "process_name":
            proc[e.get("pid")] = e.get("args", {}).get("name")
    coll, tasks, work, device, waits = [], [], [], [], []
    planes = False
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat"):
            continue
        p, name = proc.get(e.get("pid")), e.get("name", "")
        ts, dur = oracle.to_ns(e.get("ts")), oracle.to_ns(e.get("dur"))
        if ts is None or dur is None or p not in ("HCCL", "Ascend Hardware"):
            continue
        iv = (ts, ts + dur)
        if p == "HCCL" and not name.startswith("hcom_"):
            planes = True
        if name in ("Notify Wait", "Notify_Wait"):
            waits.append(iv)
        if name.startswith(WAITS):
            continue
        device.append(iv)
        if p == "HCCL" and name.startswith("hcom_"):
            args = e.get("args", {})
            size = SIZES.get(args.get("data_type"), 0)
            count = args.get("count")
            coll.append((name, ts, dur, count * size if size and isinstance(count, int) else None))
        elif p == "HCCL" or name == "SDMA" or name.startswith("RDMA"):
            tasks.append(iv)
            work.append(iv)
        else:
            work.append(iv)     # kernels and copies
    cu, tu = union([(ts, ts + d) for _, ts, d, _ in coll]), union(tasks)
    span = max(hi for _, hi in device) - min(lo for lo, _ in device)
    out = {"comm_ns": length(union([(ts, ts + d) for _, ts, d, _ in coll] + tasks))}
    if cu and tu:
        out["comm_transfer_ns"] = overlap(cu, tu)
        out["comm_wait_ns"] = length(cu) - out["comm_transfer_ns"]
        out["comm_wait_source"] = "device_tasks"
        out["effective_utilization"] = length(union(work)) / span
    split = {}
    if cu and tu and not planes:
        def within(iv, lo, hi):
            return [(max(a, lo), min(b, hi)) for a, b in iv if lo <= a < hi]
        for name, ts, d, _ in coll:
            lo, hi = ts, ts + d
            data = within(tasks, lo, hi)
            first = min([a for a, _ in data], default=hi)
            sync = length(union(within(waits, lo, hi) and
                                [(a, min(b, first)) for a, b in within(waits, lo, hi)]))
            split[(name, ts)] = (sync, d - length(union(data + within(waits, lo, hi))))
        out["comm_sync_ns"] = sum(x for x, _ in split.values())
        out["comm_idle_ns"] = sum(y for _, y in split.values())
    inst = {}
    for name, ts, d, b in coll:
        inst.setdefault(name, []).append((ts, d, overlap([[ts, ts + d]], tu) if tu else None, b,
                                          split.get((name, ts))))
    out["instances"] = {k: sorted(v) for k, v in inst.items()}
    return out


def main():
    rep = json.load(open(sys.argv[1]))
    bad = 0
    for rk, path in zip(rep["ranks"], sys.argv[2:]):
        want, g = rank_figures(path), rk["gpu"]
        for key in ("comm_ns", "comm_transfer_ns", "comm_wait_ns", "comm_wait_source",
                    "comm_sync_ns", "comm_idle_ns"):
            if key in want and g.get(key) != want[key]:
                print("rank %s: %s %r, oracle %r" % (rk["rank"], key, g.get(key), want[key]))
                bad += 1
        if "effective_utilization" in want and \
                abs((g.get("effective_utilization") or -1) - want["effective_utilization"]) > 1e-12:
            print("rank %s: effective_utilization %r, oracle %r" %
                  (rk["rank"], g["effective_utilization"], want["effective_utilization"]))
            bad += 1
        got = {c["collective"]: c for c in rk["comm_instances"]}
        if sorted(got) != sorted(want["instances"]):
            print("rank %s: collectives %s, oracle %s" %
                  (rk["rank"], sorted(got), sorted(want["instances"])))
            bad += 1
            continue
        for name, rows in want["instances"].items():
            c = got[name]
            sp = [x[4] for x in rows]
            if c["durations_ns"] != [x[1] for x in rows] or \
                    c.get("transfer_ns") != ([x[2] for x in rows] if rows[0][2] is not None
                                             else None) or \
                    c.get("bytes") != ([x[3] for x in rows] if rows[0][3] else None) or \
                    (sp[0] is not None and (c.get("sync_ns") != [x[0] for x in sp] or
                                            c.get("idle_ns") != [x[1] for x in sp])):
                print("rank %s: %s: %r, oracle %r" % (rk["rank"], name, c, rows))
                bad += 1
    print("hccl_oracle: %d ranks, %d differences" % (len(rep["ranks"]), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
