#!/usr/bin/env bash
# Times at the edge of what vtrace keeps (+-(2^62 - 1) ns, lib/sat.h) and
# past it.  Sums and differences that pass INT64_MAX
# saturate instead of overflowing (undefined behaviour: the sanitizer build
# runs this test too), events past the edge are left out, counted and
# warned about with the byte offset of the first, and what vanalyze prints
# is checked against python's exact integers.  The report, and one whose
# every number is +-INT64_MAX, then go through vaggregate, vcompare and the
# HTML and CSV renderers without undefined behaviour.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
python3 "$VT_ROOT/tests/hostile_inputs.py" extreme extreme.json || die "cannot write the trace"

va ext --json ext.report extreme.json
expect_rc ext 0
python3 - extreme.json ext.report <<'PY' || die "extreme times: report and python disagree (lines above)"
import decimal, json, sys
text = open(sys.argv[1], "rb").read()
r = json.load(open(sys.argv[2]))["ranks"][0]
LIMIT, MAX = 2**62 - 1, 2**63 - 1

def ns(v):
    return int(decimal.Decimal(v) * 1000)

kept, out = [], []
for line in text.split(b"\n"):
    line = line.rstrip(b",")
    if not line.startswith(b"{\"ph\""):
        continue
    ev = json.loads(line, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
    ts = ns(ev["ts"])
    dur = ns(ev["dur"]) if "dur" in ev else None
    if abs(ts) > LIMIT or (dur is not None and max(abs(dur), abs(ts + dur)) > LIMIT):
        out.append(text.index(line))
        continue
    kept.append((ev, ts, dur or 0))

bad = []
def want(what, got, expect):
    if got != expect:
        bad.append("%s: vanalyze %r, python %r" % (what, got, expect))

sat = lambda v: max(-MAX - 1, min(MAX, v))
want("events.total", r["events"]["total"], len(kept))
want("span_ns", r["span_ns"], max(t + d for _, t, d in kept) - min(t for _, t, _ in kept))
kern = [(e, t, d) for e, t, d in kept if e.get("cat") == "kernel"]
want("gpu.kernels", r["gpu"]["kernels"], len(kern))
want("gpu.kernel_time_ns", r["gpu"]["kernel_time_ns"], sat(sum(d for _, _, d in kern)))
names = sorted({e["name"] for e, _, _ in kern})
rows = {k["name"]: k for k in r["kernels"]}
want("kernel names", sorted(rows), names)
for n in names:
    ds = [d for e, _, d in kern if e["name"] == n]
    want("kernel %s count" % n, rows[n]["count"], len(ds))
    want("kernel %s total_ns" % n, rows[n]["total_ns"], sat(sum(ds)))
iv = sorted((t, t + d) for e, t, d in kept if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
busy, hi = 0, None
for lo, h in iv:
    if hi is None or lo > hi:
        busy, hi = busy + (h - lo), h
    elif h > hi:
        busy, hi = busy + (h - hi), h
want("gpu.busy_ns", r["gpu"]["busy_ns"], busy)
steps = [d for e, t, d in kept if str(e.get("name", "")).startswith("ProfilerStep#")]
want("steps.durations_ns", r["steps"]["durations_ns"], steps)
ops = [d for e, _, d in kept if e.get("cat") == "cpu_op"]
want("cpu_ops total_ns", r["cpu_ops"][0]["total_ns"], sat(sum(ops)))
w = "byte %d: %d events with ts, dur or ts + dur beyond +-2^62 ns left out" % (out[0], len(out))
want("left-out warning", [x for x in r["warnings"] if "beyond" in x][0].startswith(w), True)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
expect_line ext.err "warning: extreme.json: byte [0-9]+: 3 events with ts, dur or ts \+ dur beyond" \
	"the left-out events on stderr"
echo "pass: extreme times: report = python, 3 events left out and warned with their offset"

# Every number of the report at +-INT64_MAX, and read back by every reader.
python3 - ext.report max0.json max1.json <<'PY' || die "cannot write the maxed reports"
import json, sys
r = json.load(open(sys.argv[1]))
sign = [1]
def walk(x, key=None):
    if isinstance(x, dict):
        return {k: (v if k in ("rank", "count", "kernels", "blocks", "frames", "device")
                    else walk(v, k)) for k, v in x.items()}
    if isinstance(x, list):
        return [walk(v) for v in x]
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return x
    sign[0] = -sign[0]
    if isinstance(x, float):
        return 1e308 * sign[0]
    return 2**63 - 1 if sign[0] > 0 else -2**63
m = walk(r)
json.dump(m, open(sys.argv[2], "w"))
m["ranks"][0]["rank"] = 1
json.dump(m, open(sys.argv[3], "w"))
PY
va html --out out extreme.json
expect_rc html 0
vg agg --out agg max0.json max1.json ext.report
expect_rc agg 0
# ext.report and max0.json are rank 0 of one source: vaggregate keeps one of them
check agg/report.json 'sorted(k["rank"] for k in r["ranks"]) == [0, 1]' "vaggregate kept the maxed ranks"
for pair in "max0.json ext.report" "ext.report max0.json" "max0.json max1.json"; do
	# shellcheck disable=SC2086
	vc cmp $pair
	no_sanitizer_report cmp
	case $(cat cmp.rc) in 0 | 1) ;; *) die "vcompare $pair: exit $(cat cmp.rc)" ;; esac
done
echo "pass: reports at +-INT64_MAX through vaggregate, vcompare, HTML and CSV"
