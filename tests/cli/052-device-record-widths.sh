#!/usr/bin/env bash
# The compact device records stay exact at their edges: kernels of 0 ns, of
# 2^31 - 1, 2^31 and 2^31 + 1 ns (the inline duration's limit) and of hours
# (the side table), in an order that is not time order; kernel correlations
# far apart and negative (the delta-coded list) with graph launches placed
# after their kernels, one of them correlating with nothing.  The kernel
# table (count, total, min, max, median), the kernel time, the median kernel
# and the graph-replay count equal a decimal reading of the trace made here,
# and -j 1 and -j 2 write the same report.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

python3 - <<'PY' || die "cannot write the trace"
import json, random
rng = random.Random(19)
durs = ["0", "2147483.647", "2147483.648", "2147483.649", "7200000000", "0.001",
        "4294967.296", "1.5", "3600000000.999", "2147483.648"]
corrs = [5, -7, 2**62, -(2**62), 9, 5 + 2**40, 0, 123456789012, -1, 77]
ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}}]
for i, (d, c) in enumerate(zip(durs * 3, corrs * 3)):
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % (i % 4), "pid": 0, "tid": 7,
               "ts": 1000 + rng.randrange(10**9), "dur": d, "args": {"correlation": c + i // 10}})
for c in (2**62, -7, 123456789012 + 2, 31337):
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 2,
               "ts": 500, "dur": 3, "args": {"correlation": c}})
text = json.dumps({"traceEvents": ev})
open("wide.json", "w").write(text.replace('"dur": "', '"dur": ').replace('", "args"', ', "args"'))
PY
va j1 -j 1 --json j1.json wide.json
expect_rc j1 0
va j2 -j 2 --json j2.json wide.json
expect_rc j2 0
cmp -s j1.json j2.json || die "-j 1 and -j 2 reports differ"

python3 - <<'PY' || die "the device records disagree with the decimal reading"
import json, re, sys
from decimal import Decimal
text = open("wide.json").read()
ev = json.loads(re.sub(r'"dur": ([0-9.]+)', r'"dur": "\1"', text))["traceEvents"]
kern = [e for e in ev if e.get("cat") == "kernel"]
graph = {e["args"]["correlation"] for e in ev if e.get("name") == "cudaGraphLaunch"}
ns = lambda s: int(Decimal(s) * 1000)
rk = json.load(open("j1.json"))["ranks"][0]
bad = []
durs = sorted(ns(e["dur"]) for e in kern)
n = len(durs)
want_med = durs[n // 2] if n % 2 else int((durs[n // 2 - 1] + durs[n // 2]) / 2)
for key, want in (("kernels", n), ("kernel_time_ns", sum(durs)),
                  ("kernel_median_ns", want_med),
                  ("graph_kernels", sum(e["args"]["correlation"] in graph for e in kern))):
    if rk["gpu"][key] != want:
        bad.append("gpu.%s: %r, want %r" % (key, rk["gpu"][key], want))
rows = {k["name"]: k for k in rk["kernels"]}
for name in sorted({e["name"] for e in kern}):
    v = sorted(ns(e["dur"]) for e in kern if e["name"] == name)
    k = rows.get(name, {})
    m = len(v)
    med = v[m // 2] if m % 2 else (v[m // 2 - 1] + v[m // 2]) / 2
    for key, want in (("count", m), ("total_ns", sum(v)), ("min_ns", v[0]),
                      ("max_ns", v[-1]), ("median_ns", med)):
        if k.get(key) != want:
            bad.append("%s.%s: %r, want %r" % (name, key, k.get(key), want))
if bad:
    sys.exit("\n".join(bad))
print("device records: %d kernels, %d graph-replay kernels, median %d ns, as read here"
      % (n, rk["gpu"]["graph_kernels"], want_med))
PY
echo "pass: device record widths"
