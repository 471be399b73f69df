#!/usr/bin/env bash
# The CSV tables of --out on the 8 DLRM ranks: one header row, CRLF line
# ends, RFC 4180 quoting, and every row equal to report.json (raw integers
# for ns and bytes, floats as report.json writes them, empty for null).
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
va out --out out "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz
expect_rc out 0
python3 - out <<'PY' || die "the CSV tables disagree with report.json (lines above)"
import csv, json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json", encoding="utf-8"))
bad = []

def table(name):
    raw = open("%s/tables/%s" % (d, name), "rb").read()
    lines = raw.split(b"\r\n")
    if lines[-1] != b"" or any(b"\n" in l for l in lines[:1]):
        bad.append("%s: lines do not end in CRLF" % name)
    with open("%s/tables/%s" % (d, name), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, strict=True))
    head = rows[0]
    for i, row in enumerate(rows[1:]):
        if len(row) != len(head):
            bad.append("%s row %d: %d fields, header has %d" % (name, i, len(row), len(head)))
    return head, [dict(zip(head, row)) for row in rows[1:]]

def num(s):
    if s == "":
        return None
    return int(s) if s.lstrip("-").isdigit() else float(s)

def eq(name, what, got, want):
    if isinstance(want, bool):
        want = int(want)
    g = num(got) if not isinstance(want, str) else got
    if g != want:
        bad.append("%s %s: csv %r, report.json %r" % (name, what, got, want))

DIST = ["count", "total_ns", "avg_ns", "median_ns", "min_ns", "max_ns", "stddev_ns"]
head, rows = table("kernels.csv")
want = [(rk["rank"], k) for rk in r["ranks"] for k in rk["kernels"]]
if len(rows) != len(want):
    bad.append("kernels.csv: %d rows, report.json %d kernels" % (len(rows), len(want)))
for row, (rank, k) in zip(rows, want):
    eq("kernels.csv", "rank", row["rank"], rank)
    for f in ["name", "category", "category_source"] + DIST + ["share"]:
        eq("kernels.csv", f, row[f], k[f])

head, rows = table("phases.csv")
want = [(rk["rank"], p) for rk in r["ranks"] for p in rk["phases"]]
if len(rows) != len(want):
    bad.append("phases.csv: %d rows, report.json %d phases" % (len(rows), len(want)))
for row, (rank, p) in zip(rows, want):
    eq("phases.csv", "rank", row["rank"], rank)
    for f in ["path", "name", "depth"] + DIST + ["share", "gpu_ns"]:
        eq("phases.csv", f, row[f], p[f])

head, rows = table("steps.csv")
want = [(rk["rank"], i, v, i == 0 and rk["steps"]["warmup"])
        for rk in r["ranks"] for i, v in enumerate(rk["steps"]["durations_ns"])]
if [(num(x["rank"]), num(x["step"]), num(x["duration_ns"]), num(x["warmup"])) for x in rows] != \
        [(a, b, c, int(w)) for a, b, c, w in want]:
    bad.append("steps.csv differs from durations_ns")

head, rows = table("ranks.csv")
if len(rows) != len(r["ranks"]):
    bad.append("ranks.csv: %d rows" % len(rows))
for row, rk in zip(rows, r["ranks"]):
    for f in ("rank", "source", "span_ns"):
        eq("ranks.csv", f, row[f], rk[f])
    eq("ranks.csv", "complete", row["complete"], rk["complete"])
    eq("ranks.csv", "events", row["events"], rk["events"]["total"])
    for f, v in rk["gpu"].items():
        if f in row:
            eq("ranks.csv", f, row[f], v)
    eq("ranks.csv", "steps", row["steps"], rk["steps"]["count"])
    eq("ranks.csv", "step_median_ns", row["step_median_ns"],
       rk["steps"]["median_ns"] if rk["steps"]["count"] else None)
    for f in ("wall_ns", "frames", "blocks", "fps", "bps"):
        eq("ranks.csv", f, row[f], rk["throughput"][f])
    gpus = [m for m in rk["memory"] if m["device"] >= 0]
    eq("ranks.csv", "gpu_peak_allocated", row["gpu_peak_allocated"],
       max(m["peak_allocated"] for m in gpus) if gpus else None)
    eq("ranks.csv", "clock_offset_ns", row["clock_offset_ns"], rk["clock_offset_ns"])
if not all(f in head for f in ("comm_wait_ns", "comm_transfer_ns", "effective_utilization")):
    bad.append("ranks.csv lacks the wait columns")

head, rows = table("collectives.csv")
if len(rows) != len(r["collectives"]) or not rows:
    bad.append("collectives.csv: %d rows, report.json %d" % (len(rows), len(r["collectives"])))
for row, c in zip(rows, r["collectives"]):
    for f, v in c.items():
        eq("collectives.csv", f, row[f], v)

head, rows = table("cross_rank.csv")
if [x["metric"] for x in rows] != list(r["cross_rank"]):
    bad.append("cross_rank.csv metrics differ")
for row in rows:
    for f, v in r["cross_rank"][row["metric"]].items():
        eq("cross_rank.csv", row["metric"] + "." + f, row[f], v)

head, rows = table("suggestions.csv")
if len(rows) != len(r["suggestions"]):
    bad.append("suggestions.csv: %d rows" % len(rows))
for row, s in zip(rows, r["suggestions"]):
    for f, v in s.items():
        if f == "ranks":        # a list: ranks_text says it in the CSV
            continue
        eq("suggestions.csv", f, row[f], v)

for b in bad[:20]:
    print("mismatch " + b)
print("%d mismatches" % len(bad))
sys.exit(1 if bad else 0)
PY
echo "pass: CSV tables equal report.json"
