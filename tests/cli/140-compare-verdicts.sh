#!/usr/bin/env bash
# vcompare's verdicts on runs whose difference is known: gentrace writes a
# BASE (2 ranks, 20 steps), the same pipeline with other noise (seed 2),
# and one whose denoising steps do 20 % more GPU work.  Same-but-noisy gives
# exit 0 and no regression; slower gives exit 1 naming span and step
# median; the reverse gives improvements and exit 0; thresholds move the
# line.  Every run-level row of the JSON output (value of the worst rank,
# delta, delta %, Mann-Whitney p of the pooled samples, verdict, with
# --min-share) is recomputed here from the two reports by an independent
# python3 oracle.
# Traces given directly give the same rows as their reports.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vcompare
G=$VT_BUILD/gentrace
mkdir base same slow t
common=(--ranks 2 --steps 20 --blocks 4)
"$G" "${common[@]}" --seed 1 -o base/run --truth t/1.json >/dev/null || die "gentrace"
"$G" "${common[@]}" --seed 2 -o same/run --truth t/2.json >/dev/null || die "gentrace"
"$G" "${common[@]}" --seed 3 --slow-phase denoise_step=1.2 -o slow/run --truth t/3.json \
	>/dev/null || die "gentrace"
for s in base same slow; do
	"$VANALYZE" -q --json $s.json $s || die "vanalyze $s"
done


vc same --json same.cmp base.json same.json
expect_rc same 0
vc slow --json slow.cmp --markdown slow.md base.json slow.json
expect_rc slow 1
vc rev --json rev.cmp slow.json base.json
expect_rc rev 0
vc loose --json loose.cmp --threshold 25% base.json slow.json
expect_rc loose 0
vc one --json one.cmp --threshold 25 --threshold steps.median_ns=10% base.json slow.json
expect_rc one 1
vc traces --json traces.cmp base slow
expect_rc traces 1
# one video against two: totals compared per video, no regression for twice the work
mkdir two
"$G" "${common[@]}" --seed 1 --generations 2 -o two/run --truth t/4.json >/dev/null || die "gentrace"
"$VANALYZE" -q --json two.json two || die "vanalyze two"
vc pervideo --json pervideo.cmp base.json two.json
expect_rc pervideo 0
check pervideo.cmp 'r["totals_per_step"] == {"per": "generation", "base": 1, "new": 2}' \
	"the totals compared per video" \
	'r["regressions"] == 0' "twice the videos is no regression"
expect_line pervideo.out '^totals compared per video: base profiled 1, new 2$' "the note"
# the table fits the width: 80 columns, long kernel names cut, no two alike
COLUMNS=80 vc narrow --all base.json slow.json
python3 - narrow.out <<'PY' || die "vcompare's table at 80 columns (lines above)"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
wide = [l for l in lines if len(l) > 80]
# the run's rows ("all"; each rank repeats them): one per kernel, each name its own
names = [l for i, l in enumerate(lines) if l.startswith("kernel ") and i + 1 < len(lines)
         and lines[i + 1].split()[:1] == ["all"]]
if wide:
    sys.exit("%d lines over 80 columns: %r" % (len(wide), wide[:2]))
if len(names) != len(set(names)) or not names:
    sys.exit("two kernels' rows read the same (or none): %r" % names)
print("ok: %d lines within 80 columns, %d kernel names apart" % (len(lines), len(names)))
PY
# a threshold is a percentage as users write it: 5 is 5 %, as 5% is
vc bare --json bare.cmp --threshold 5 base.json slow.json
expect_rc bare 1
pycheck same bare.cmp slow.cmp || die "--threshold 5 and the default 5% differ"
vc tiny --json tiny.cmp --threshold 0.05 base.json slow.json
check tiny.cmp 'abs(r["threshold"] - 0.0005) < 1e-12' "--threshold 0.05 is 0.05 %"
# 2 ranks with matched collectives: effective utilization stands for utilization
check slow.cmp '"gpu.effective_utilization" in {x["metric"] for x in r["rows"]}' \
	"no effective utilization row" \
	'"gpu.utilization" not in {x["metric"] for x in r["rows"]}' \
	"utilization compared beside effective utilization"

python3 - <<'PY' || die "vcompare disagrees with the oracle (lines above)"
import json, math, sys

def load(p):
    with open(p) as f:
        return json.load(f)

def mwu_p(a, b):
    """Two-sided Mann-Whitney U p: exact by counting when there are no ties
    and at most 40 values, else the normal approximation with tie and
    continuity corrections."""
    n1, n2 = len(a), len(b)
    vals = sorted(a + b)
    rank, i = {}, 0
    while i < len(vals):
        j = i
        while j < len(vals) and vals[j] == vals[i]:
            j += 1
        rank[vals[i]] = (i + 1 + j) / 2
        i = j
    u = sum(rank[x] for x in a) - n1 * (n1 + 1) / 2
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    tied = any(c > 1 for c in counts.values())
    if not tied and n1 + n2 <= 40:
        # f[i][j] = {U: arrangements}; the largest value comes from a or b
        from functools import lru_cache
        @lru_cache(None)
        def f(i, j):
            if i == 0 or j == 0:
                return {0: 1}
            out = {}
            for k, c in f(i - 1, j).items():
                out[k + j] = out.get(k + j, 0) + c
            for k, c in f(i, j - 1).items():
                out[k] = out.get(k, 0) + c
            return out
        dist = f(n1, n2)
        lo = min(u, n1 * n2 - u)
        p = 2 * sum(c for k, c in dist.items() if k <= lo) / math.comb(n1 + n2, n1)
        return min(p, 1.0)
    n = n1 + n2
    t = sum(c ** 3 - c for c in counts.values())
    var = n1 * n2 / 12 * ((n + 1) - t / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = max(0.0, abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))

def metrics(rk):
    """name -> (value, samples, lower_is_better) for one rank."""
    m = {"span_ns": (rk["span_ns"], [], True)}
    st = rk["steps"]
    if st["count"]:
        d = st["durations_ns"][1:] if st["warmup"] else st["durations_ns"]
        m["steps.median_ns"] = (st["median_ns"], d, True)
    for ph in rk["phases"]:
        # phases by path without the ProfilerStep#* wrapper, which steps.* stand for
        path = ph["path"]
        if path == "ProfilerStep#*":
            continue
        if path.startswith("ProfilerStep#*/"):
            path = path[len("ProfilerStep#*/"):]
        t, med = "phase:%s.total_ns" % path, "phase:%s.median_ns" % path
        if t in m:      # the same phase inside and outside the wrapper: one phase
            pool = m[t][1] + ph["samples_ns"]
            srt = sorted(pool)
            k = len(srt)
            mv = (srt[k // 2] if k % 2 else (srt[k // 2 - 1] + srt[k // 2]) / 2) if k else m[med][0]
            m[t] = (m[t][0] + ph["total_ns"], pool, True)
            m[med] = (mv, pool, True)
        else:
            m[t] = (ph["total_ns"], list(ph["samples_ns"]), True)
            m[med] = (ph["median_ns"], list(ph["samples_ns"]), True)
    t = rk["throughput"]
    if t["fps"] is not None:
        m["throughput.fps"] = (t["fps"], [], False)
    if t["blocks"]:
        m["throughput.bps"] = (t["bps"], [], False)
    if t["first_block_ns"] is not None:
        m["throughput.first_block_ns"] = (t["first_block_ns"], [], True)
    for k in ("utilization", "comm_compute_overlap", "effective_utilization"):
        if rk["gpu"].get(k) is not None:
            m["gpu." + k] = (rk["gpu"][k], [], False)
    if rk["gpu"].get("memory_ns") is not None:
        m["gpu.memory_ns"] = (rk["gpu"]["memory_ns"], [], True)
    if rk["gpu"].get("step_utilization") is not None:
        m["gpu.step_utilization"] = (rk["gpu"]["step_utilization"], [], False)
    if rk.get("idle"):     # doc/idle.md: the window's idle time and each cause's, in ns
        m["idle.idle_ns"] = (rk["idle"]["idle_ns"], [], True)
        for c, v in rk["idle"]["by_cause"].items():
            m["idle.by_cause." + c] = (v, [], True)
    for k in rk["kernels"]:
        m["kernel:%s.total_ns" % k["name"]] = (k["total_ns"], k["samples_ns"], True)
    for op in rk.get("cpu_ops") or []:     # CPU operators: inclusive time, no samples
        m["op:%s.total_ns" % op["name"]] = (op["total_ns"], [], True)
    for mem in rk["memory"]:
        for k in ("peak_allocated", "peak_reserved"):
            m["memory:%d.%s" % (mem["device"], k)] = (mem[k], [], True)
    pf = rk.get("perf") or {}     # doc/perf-model.md: higher is better
    for k in ("mfu", "tflops"):
        if pf.get("flops") and pf.get(k) is not None:
            m["perf." + k] = (pf[k], [], False)
    for o in rk.get("ops_perf") or []:
        if o["tflops_median"] is not None:
            m["tflops:%s %s.median" % (o["name"], o["input_dims"])] = (o["tflops_median"], [], False)
    return m

def run(rep):
    """The run: worst value over ranks, samples pooled in rank order."""
    out = {}
    for rk in rep["ranks"]:
        for k, (v, s, low) in metrics(rk).items():
            if k not in out:
                out[k] = (v, list(s), low)
            else:
                w, ps, _ = out[k]
                out[k] = ((max if low else min)(w, v), ps + list(s), low)
    return out

def steps_pattern(rep):
    return next((rk["steps"]["pattern"] for rk in rep["ranks"]
                 if rk["steps"].get("pattern") and rk["steps"]["durations_ns"]), "")

def gpu_sum(rep, key):
    return sum(rk["gpu"][key] or 0 for rk in rep["ranks"])

def expect(base, new, thr, rules, alpha=0.01, top=10):
    rb, rn = load(base), load(new)
    b, n = run(rb), run(rn)
    # like with like: steps only when both count the same spans; effective
    # utilization in place of utilization where both sides have it
    pb, pn = steps_pattern(rb), steps_pattern(rn)
    if pb and pn and pb != pn:
        for m in (b, n):
            for k in [k for k in m if k.startswith("steps.")]:
                del m[k]
    if "gpu.effective_utilization" in b and "gpu.effective_utilization" in n:
        b.pop("gpu.utilization", None)
        n.pop("gpu.utilization", None)
    def topk(m, family):
        ks = sorted((k for k in m if k.startswith(family)), key=lambda k: (-m[k][0], k))
        return set(ks[:top])
    keep = topk(b, "kernel:") | topk(n, "kernel:") | topk(b, "op:") | topk(n, "op:")
    rows = {}
    for k in set(b) & set(n):
        if (k.startswith("kernel:") or k.startswith("op:")) and k not in keep:
            continue
        (bv, bs, low), (nv, ns, _) = b[k], n[k]
        th = thr
        best = 0
        for name, v in rules:
            if (k == name or k.startswith(name + ".") or k.startswith(name + "/")
                    or (name.endswith(":") and k.startswith(name))) and len(name) >= best:
                best, th = len(name), v
        d = nv - bv
        pct = d / abs(bv) if bv else (0.0 if d == 0 else math.copysign(math.inf, d))
        worse = pct > th if low else pct < -th
        better = pct < -th if low else pct > th
        if (k.endswith("_ns") or k.startswith("idle.by_cause.")) and k != "span_ns" and \
                abs(d) < 0.005 * b["span_ns"][0]:
            worse = better = False      # --min-share: too small a part of the span
        p, verdict = None, "same"
        if worse or better:
            verdict = "regressed" if worse else "improved"
            if bs and ns and 2 / math.comb(len(bs) + len(ns), len(bs)) < alpha:
                p = mwu_p(bs, ns)
                if not p < alpha:
                    verdict = "noise"
        # busy-derived figures: a collective's waiting counts as busy
        if verdict == "improved" and (k in ("gpu.utilization", "gpu.step_utilization",
                                            "idle.idle_ns") or k.startswith("idle.by_cause.")):
            dcomm = gpu_sum(rn, "comm_ns") - gpu_sum(rb, "comm_ns")
            if dcomm > 0 and gpu_sum(rn, "busy_ns") - gpu_sum(rb, "busy_ns") <= dcomm:
                verdict = "more waiting"
        rows[k] = (bv, nv, d, pct, p, verdict)
    return rows

def check(cmp_path, base, new, thr=0.05, rules=()):
    got = {r["metric"]: r for r in load(cmp_path)["rows"] if r["rank"] is None}
    want = expect(base, new, thr, rules)
    bad = 0
    if set(got) != set(want):
        print("%s: metrics differ: only vcompare %s, only oracle %s" % (
            cmp_path, sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
        bad += 1
    for k in set(got) & set(want):
        g, (bv, nv, d, pct, p, verdict) = got[k], want[k]
        def close(x, y):
            return abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300)
        ok = (close(g["base"], bv) and close(g["new"], nv) and close(g["delta"], d)
              and (close(g["delta_pct"], pct) if math.isfinite(pct) else True)
              and g["verdict"] == verdict
              and ((p is None and g["p"] is None) or (p is not None and g["p"] is not None
                                                      and close(g["p"], p))))
        if not ok:
            print("%s: %s: vcompare %s, oracle %s" % (cmp_path, k, g,
                                                      (bv, nv, d, pct, p, verdict)))
            bad += 1
    return bad

bad = check("same.cmp", "base.json", "same.json")
bad += check("slow.cmp", "base.json", "slow.json")
bad += check("rev.cmp", "slow.json", "base.json")
bad += check("loose.cmp", "base.json", "slow.json", 0.25)
bad += check("one.cmp", "base.json", "slow.json", 0.25, [("steps.median_ns", 0.10)])

def verdicts(path, rank=None):
    return {r["metric"]: r["verdict"] for r in load(path)["rows"] if r["rank"] == rank}
v = verdicts("same.cmp")
if any(x == "regressed" for x in v.values()) or load("same.cmp")["regressions"]:
    print("same.cmp: a regression between two runs of the same pipeline"); bad += 1
v = verdicts("slow.cmp")
for k in ("span_ns", "steps.median_ns"):
    if v.get(k) != "regressed":
        print("slow.cmp: %s is %s, not regressed" % (k, v.get(k))); bad += 1
if verdicts("rev.cmp").get("steps.median_ns") != "improved":
    print("rev.cmp: steps.median_ns did not improve"); bad += 1
one = load("one.cmp")
regressed = {r["metric"] for r in one["rows"] if r["verdict"] == "regressed"}
if regressed != {"steps.median_ns"}:
    print("one.cmp: regressed %s, want only steps.median_ns" % sorted(regressed)); bad += 1
# one rule for the run and its ranks: no rank regresses (or improves) untested
# where the run's row, which pools every rank's samples, tested it as noise
for path in ("same.cmp", "slow.cmp", "rev.cmp", "loose.cmp", "one.cmp"):
    rows = load(path)["rows"]
    runs = {r["metric"]: r for r in rows if r["rank"] is None}
    for r in rows:
        run_row = runs.get(r["metric"], {})
        if r["rank"] is not None and r["verdict"] in ("regressed", "improved") and \
                r["p"] is None and run_row.get("verdict") == "noise" and run_row.get("p") is not None:
            print("%s: rank %s %s is %s, the run's row noise" % (path, r["rank"], r["metric"], r["verdict"]))
            bad += 1
a, b = load("slow.cmp"), load("traces.cmp")
for x in (a, b):
    x.pop("base"); x.pop("new")
if a != b:
    print("traces given directly compare differently from their reports"); bad += 1
sys.exit(1 if bad else 0)
PY
grep -q 'REGRESSED' slow.out || die "the table names no regression"
expect_line slow.md '^\| span \| all \|.*\*\*REGRESSED\*\* \|$' "markdown row of span_ns"
echo "pass: verdicts agree with the oracle"
