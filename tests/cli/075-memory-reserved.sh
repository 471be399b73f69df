#!/usr/bin/env bash
# memory-near-capacity knows the allocator: its words tell reserved (what
# the caching allocator holds) from allocated (what tensors use), with both
# shares computed here from the [memory] events; a reservation made up
# front (an LLM engine's KV cache: early in the trace most of the peak is
# reserved while tensors use under half of it) is said to be deliberate,
# and a cache that grows with the work is not.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze

python3 - <<'PY' || die "cannot write the traces"
import json
GB = 1 << 30
CAP = 80 * GB
def trace(path, points):
    dev = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": CAP}]
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10 * i,
           "dur": 5, "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(1, 101)]
    for ts, alloc, res in points:
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                   "pid": 0, "tid": 1, "ts": ts, "args": {
                       "Device Type": 1, "Device Id": 0, "Addr": ts, "Bytes": 1,
                       "Total Allocated": alloc, "Total Reserved": res}})
    json.dump({"schemaVersion": 1, "deviceProperties": dev, "traceEvents": ev}, open(path, "w"))
# the engine: weights, then the KV cache reserved in one go at 2 % of the trace
up = [(0, 2 * GB, 4 * GB), (20, 16 * GB, 75 * GB)]
up += [(40 + 10 * i, (16 + i % 8) * GB, 75 * GB) for i in range(95)]
trace("upfront.json", up)
# training: reserved follows allocated as the batch grows
grow = [(10 * i, int(0.76 * i * GB), int(0.8 * i * GB) + GB) for i in range(1, 98)]
trace("grow.json", grow)
json.dump({"up": [max(a for _, a, _ in up) / CAP, max(r for _, _, r in up) / CAP],
           "grow": [max(a for _, a, _ in grow) / CAP, max(r for _, _, r in grow) / CAP]},
          open("want.json", "w"))
PY
for t in upfront grow; do
	va "$t" --details --json "$t.json.out" "$t.json"
	expect_rc "$t" 0
done
python3 - <<'PY' || die "the memory finding's words (lines above)"
import json, sys
want = json.load(open("want.json"))
bad = []
def pct(x):
    return "%.1f%%" % (100 * x)
for name, key, deliberate in (("upfront", "up", True), ("grow", "grow", False)):
    r = json.load(open(name + ".json.out"))
    s = [x for x in r["suggestions"] if x["id"] == "memory-near-capacity"]
    if len(s) != 1:
        bad.append("%s: %d memory findings" % (name, len(s)))
        continue
    text = s[0]["message"] + " " + s[0]["details"]
    alloc, res = want[key]
    if pct(res) not in s[0]["message"] or pct(alloc) not in s[0]["message"]:
        bad.append("%s: want reserved %s and allocated %s in %r" % (name, pct(res), pct(alloc), s[0]["message"]))
    if "allocat" not in text or "reserv" not in text:
        bad.append("%s: reserved and allocated not told apart: %r" % (name, text))
    if ("deliberate" in text) != deliberate:
        bad.append("%s: deliberate %s in %r" % (name, not deliberate, text))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
expect_line upfront.out 'reserved up front' "the summary says the reservation is up front"
echo "pass: memory findings that know the allocator"
