#!/usr/bin/env bash
# What the page shows and how, on the demo set (4 ranks, with --frames and
# --title), the 8 DLRM ranks, the 2-rank torch-cpu run and a single rank:
# findings first; the phase chart stacks the top-level phases, so each bar
# is the rank's phase time and inference_post_denoising (25 % of the demo)
# is one of its series; per-rank phase tables folded in <details> beyond two
# ranks; long kernel names shortened in the cell with the whole name in
# title=, and the chart's bars labelled with shortened names instead of
# numbers; no per-rank chart and no series legend for one rank; no CPU line
# in the memory chart; the dark-mode stylesheet recolours the charts; null
# values stay null: DLRM (no blocks) has bps, blocks and block latency null
# in report.json, empty in ranks.csv and "–" on its BPS card; the CPU-only
# trace has its GPU busy, active span, idle and overlap null, empty and "–".
# Nothing is folded under a section heading and no fold is unlabelled; no
# per-rank bar reaches the chart's top border; the workload is context above
# the findings; the 4-rank CPU run's timeline is in seconds; no idle cause at
# zero on every rank has a row across ranks.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"

va demo -q --frames 81 --title 'Demo <run> & co' --out demo "$VT_ROOT"/testdata/demo/
expect_rc demo 0
va dlrm -q --out dlrm "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz
expect_rc dlrm 0
va two -q --out two "$TORCH_CPU"/dev-2rank-default-rank*.trace.json.gz
expect_rc two 0
va one -q --out one "$VT_ROOT"/testdata/demo/fastvideo-rank0.trace.json.gz
expect_rc one 0
cpu="$PUBLIC"/facebookresearch__HolisticTraceAnalysis/tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz
va cpu -q --out cpu "$cpu"
expect_rc cpu 0
va four -q --out four "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
expect_rc four 0
for d in demo dlrm two one cpu four; do
	python3 "$VT_ROOT/tests/html_check.py" "$d/report.html" "$d/report.json" --charts yes ||
		die "$d: the page disagrees with report.json"
done

python3 - "$VT_ROOT/tests" <<'PY' || die "the pages are laid out wrong (lines above)"
import csv, html, json, re, sys
sys.path.insert(0, sys.argv[1])
import oracle_phases
from vtcheck import cached  # per trace, computed once per test run

def page(d):
    return open(d + "/report.html", encoding="utf-8").read()

def section(h, sid):
    i = h.index('<section id="%s">' % sid)
    return h[i:h.index("</section>", i)]

bad = []
def want(ok, what):
    if not ok:
        bad.append(what)

demo = page("demo")
want("<title>Demo &lt;run&gt; &amp; co</title>" in demo and "<h1>Demo &lt;run&gt; &amp; co</h1>" in demo,
     "--title in <title> and <h1>, escaped")
want(demo.index('<section id="suggestions">') < demo.index('<section id="summary">'),
     "findings before the summary")
ph = section(demo, "phases")
legend = re.findall(r'<li><span class="sw"[^>]*></span>([^<]*)</li>', ph)
tops = []
for i in range(4):
    t = "%s/../testdata/demo/fastvideo-rank%d.trace.json.gz" % (sys.argv[1], i)
    rows = cached("phases", t, None, oracle_phases.analyze, t)["phases"]
    tops.append({p["path"]: p["total_ns"] for p in rows if p["depth"] == 0})
want(legend == list(tops[0]), "phase chart series %r, top-level phases %r" % (legend, list(tops[0])))
post = tops[0]["inference_post_denoising"] / sum(tops[0].values())
want(0.2 < post < 0.3, "inference_post_denoising is %.3f of rank 0's top-level time" % post)
want(ph.count("<details><summary><h3>Rank ") == 4, "demo: 4 folded per-rank tables")
dlrm = page("dlrm")
want(section(dlrm, "phases").count("<details><summary><h3>Rank ") == 8, "dlrm: 8 folded tables")
want("<details>" not in section(page("two"), "phases"), "two ranks: tables not folded")

# kernel names: the cell shows at most 96 columns, the whole name is in title=
rep = json.load(open("dlrm/report.json", encoding="utf-8"))
names = {k["name"] for rk in rep["ranks"] for k in rk["kernels"]}
cells = re.findall(r'<td class="name" title="([^"]*)">([^<]*)</td>', section(dlrm, "kernels"))
want(cells, "kernel cells with title=")
for full, shown in cells:
    full, shown = html.unescape(full), html.unescape(shown)
    want(full in names, "title=%r is not a kernel" % full)
    want(len(shown) <= 96 and (shown == full or "\u2026" in shown),
         "cell %r for %r" % (shown, full))
svg = section(dlrm, "kernels")
chart = svg[svg.index("<svg"):svg.index("</svg>")]
want("#1<" not in chart and "<text>ncclKernel_Send" in chart,
     "the kernel chart is labelled by names")

# one rank: no per-rank chart, no series legend; every chart has data
one = page("one")
for label in ("phase breakdown per rank", "device time by category per rank",
              "peak GPU memory per rank"):
    want(('aria-label="%s"' % label) not in one, "one rank: a '%s' chart" % label)
    want(('aria-label="%s"' % label) in demo, "demo: no '%s' chart" % label)
want("rank 0, device -1" not in one and "device -1" not in section(demo, "memory").split("<table")[0],
     "the CPU in the memory chart")
want("prefers-color-scheme:dark){figure.chart" in demo and
     'figure.chart svg rect[fill="#ffffff"]' in demo, "the dark-mode chart colours")

# nulls: DLRM has no blocks, the CPU-only trace no GPU
for rk in rep["ranks"]:
    t = rk["throughput"]
    want(t["bps"] is None and t["blocks"] is None and t["block_latency"] is None,
         "dlrm rank %d: bps/blocks/block_latency %r" % (rk["rank"], (t["bps"], t["blocks"], t["block_latency"])))
rows = list(csv.DictReader(open("dlrm/tables/ranks.csv", newline="", encoding="utf-8")))
want(all(r["bps"] == "" and r["blocks"] == "" and r["fps"] == "" for r in rows), "dlrm ranks.csv bps/blocks")
# a card without a value says nothing: it is left out
want('blocks per second</div>' not in dlrm, "dlrm: a BPS card without a value")
cpu = json.load(open("cpu/report.json", encoding="utf-8"))["ranks"][0]["gpu"]
for f in ("busy_ns", "active_span_ns", "idle_ns", "comm_compute_overlap", "utilization"):
    want(cpu[f] is None, "cpu-only gpu.%s = %r" % (f, cpu[f]))
row = list(csv.DictReader(open("cpu/tables/ranks.csv", newline="", encoding="utf-8")))[0]
for f in ("busy_ns", "active_span_ns", "idle_ns", "comm_compute_overlap", "utilization"):
    want(row[f] == "", "cpu-only ranks.csv %s = %r" % (f, row[f]))
want('GPU busy, active span</div>' not in page("cpu"), "cpu-only: a utilization card")
want('span</div>' in page("cpu"), "cpu-only: no span card")

# what a reader scrolls through: nothing folded but tables, every fold labelled
for d in ("demo", "dlrm", "two", "one", "cpu", "four"):
    h = page(d)
    want("<summary><h2" not in h, "%s: a section folded under its <h2>" % d)
    for lab in re.findall(r"<summary>(.*?)</summary>", h, re.S):
        want(re.sub(r"<[^>]*>", "", lab).strip(), "%s: an empty disclosure label" % d)
    # the bars of each per-rank chart inside its border (gnuplot autoscales boxes by centre)
    for sid in ("memory", "categories", "phases"):
        if '<section id="%s">' % sid not in h:
            continue
        for svg in re.findall(r"<svg.*?</svg>", section(h, sid), re.S):
            border = re.findall(r"d='M[\d.]+,([\d.]+) L[\d.]+,[\d.]+ L[\d.]+,[\d.]+ "
                                r"L[\d.]+,[\d.]+ L[\d.]+,[\d.]+ Z", svg)
            if not border:
                continue
            top = min(float(y) for y in border)
            for pts in re.findall(r"<polygon fill = '[^']*' points = '([^']*)'", svg):
                ys = [float(q.split(",")[1]) for q in pts.split()]
                want(min(ys) > top + 0.01, "%s: a bar of the %s chart reaches the top "
                     "border at %.2f" % (d, sid, min(ys)))
    # the workload is context above the findings, not one of them
    want("workload: " not in section(h, "suggestions") if '<section id="suggestions">' in h else True,
         "%s: the workload's evidence reads as a finding" % d)
want('<p class="muted">The advice is worded for a diffusion workload' in section(demo, "suggestions"),
     "demo: the workload as context")
# a CPU run of five seconds: its timeline in seconds, not ms up to 6000
tl = section(page("four"), "timeline")
ticks = [t.strip() for t in re.findall(r'text-anchor="middle"[^>]*>\s*<text>([^<]*)<', tl)]
want(any(t.startswith("s on") or t.startswith("s since") for t in ticks) and
     max(float(t) for t in ticks if re.match(r"^[0-9.]+$", t)) < 60,
     "four: timeline axis %r" % ticks)
# no row of zeros on every rank among the idle causes across ranks
for d in ("demo", "dlrm"):
    cr = section(page(d), "cross-rank")
    for row in re.findall(r"<tr><td class=\"name\">idle by cause[^<]*</td>.*?</tr>", cr, re.S):
        vals = re.findall(r'data-v="([^"]*)"', row)
        want(any(v not in ("0", "0.0") for v in vals[1:5]), "%s: an all-zero idle row %r" % (d, row[:80]))
for b in bad:
    print("wrong: " + b)
sys.exit(1 if bad else 0)
PY
echo "pass: html layout"
