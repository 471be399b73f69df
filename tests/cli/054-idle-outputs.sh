#!/usr/bin/env bash
# Where users read the idle attribution: tables/idle.csv and idle_gaps.csv
# hold report.json's ranks[].idle figures exactly (window and outside, every
# cause, the longest gaps), and the page's "Why the device waits" section
# shows each rank's causes and the longest gaps with their host activity
# (every number read back against report.json by tests/html_check.py); the
# timeline outlines the gaps that are at least 1 % of its axis.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"

GPU=$VT_ROOT/testdata/gpu
# two ranks, one stalled by its DataLoader and one by CPU preprocessing
va out --out out "$GPU/dataloader.trace.json.gz" "$GPU/hostprep.trace.json.gz"
expect_rc out 0
python3 "$VT_ROOT/tests/html_check.py" out/report.html out/report.json --charts yes ||
	die "the page is wrong (lines above)"
python3 - out <<'PY' || die "idle tables or page disagree with report.json"
import csv, html, json, re, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
rows = list(csv.DictReader(open(d + "/tables/idle.csv", newline="")))
gaps = list(csv.DictReader(open(d + "/tables/idle_gaps.csv", newline="")))
page = open(d + "/report.html").read()
fails = []
want_rows = want_gaps = 0
for rk in r["ranks"]:
    idle = rk["idle"]
    for part, obj in (("window", idle), ("outside", idle["outside"])):
        got = [x for x in rows if int(x["rank"]) == rk["rank"] and x["part"] == part]
        want_rows += 1
        if len(got) != 1:
            fails.append("rank %d %s: %d rows" % (rk["rank"], part, len(got)))
            continue
        row = got[0]
        for k in ("window_ns", "busy_ns", "idle_ns", "gaps"):
            if int(row[k]) != obj[k]:
                fails.append("rank %d %s %s: %s != %s" % (rk["rank"], part, k, row[k], obj[k]))
        for c, v in obj["by_cause"].items():
            if int(row[c + "_ns"]) != v:
                fails.append("rank %d %s %s: %s != %s" % (rk["rank"], part, c, row[c + "_ns"], v))
        if row["window"] != idle["window"]:
            fails.append("rank %d: window %s" % (rk["rank"], row["window"]))
    mine = [g for g in gaps if int(g["rank"]) == rk["rank"]]
    want_gaps += len(idle["top"])
    for g, t in zip(mine, idle["top"]):
        got = (int(g["start_ns"]), int(g["dur_ns"]), g["cause"], bool(int(g["in_window"])),
               None if g["step"] == "" else int(g["step"]), g["host"] or None)
        want = (t["start_ns"], t["dur_ns"], t["cause"], t["window"], t["step"], t["host"])
        if got != want:
            fails.append("rank %d gap: %r != %r" % (rk["rank"], got, want))
if len(rows) != want_rows or len(gaps) != want_gaps:
    fails.append("%d idle rows, %d gap rows; want %d, %d" % (len(rows), len(gaps), want_rows, want_gaps))
sec = re.search(r'<section id="idle">(.*?)</section>', page, re.S)
if not sec:
    fails.append("no idle section")
else:
    body = html.unescape(sec.group(1))
    for want in ("data_loading", "host_compute", "Longest gaps",
                 "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "preprocess_video"):
        if want not in body:
            fails.append("idle section lacks %r" % want)
    # every rank's window causes carry their report.json keys
    for i, rk in enumerate(r["ranks"]):
        key = '["ranks",%d,"idle","by_cause","data_loading"]' % i
        if key not in body:
            fails.append("no data-key " + key)
if "GPU busy, steady steps" not in page or "GPU busy, active span" not in page:
    fails.append("the summary cards do not tell the two utilizations apart")
if 'href="#idle"' not in page:
    fails.append("no link to the idle section")
if "Outlined boxes are the longest gaps" not in page:
    fails.append("the timeline marks no gap")
print("\n".join(fails) or "ok: %d idle rows and %d gaps as in report.json" % (len(rows), len(gaps)))
sys.exit(1 if fails else 0)
PY
# A CPU-only run has no idle rows and says so on the page.
need_shared
va cpu --out cpu "$TORCH_CPU"/$(cd "$TORCH_CPU" && ls *.trace.json.gz | head -1)
expect_rc cpu 0
[ "$(wc -l <cpu/tables/idle.csv)" -eq 1 ] || die "a CPU-only run has idle rows"
grep -q 'No device work in these traces' cpu/report.html || die "the CPU-only page says nothing of idle"
