#!/usr/bin/env bash
# One list of the calls that block the host (lib/model/sync_calls.c): the
# host-sync finding counts every runtime call of it found among a rank's
# CPU operators, as device.c and the idle attribution do, not a shorter
# list of its own.  A CPU operator span named cuCtxSynchronize (the
# driver's) for 300 of every 500 us holds the CPU for 60% of the trace; one
# named cudaMemcpyAsync (which does not block) for the same time is no sync.
# The share is computed here from the trace.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

# gen OUT NAME: four steps of aten::mm, NAME and aten::add (100, 300, 100 us).
gen() {
	python3 - "$1" "$2" <<'PY'
import json, sys
out, name = sys.argv[1], sys.argv[2]
ev, t = [], 0
for step in range(4):
    for n, d in (("aten::mm", 100), (name, 300), ("aten::add", 100)):
        ev.append({"ph": "X", "cat": "cpu_op", "name": n, "pid": 1, "tid": 1, "ts": t,
                   "dur": d})
        t += d
with open(out, "w") as f:
    json.dump({"traceEvents": ev}, f)
PY
}

gen sync.json cuCtxSynchronize
gen async.json cudaMemcpyAsync
for f in sync async; do
	va "$f" -q --json "$f-report.json" "$f.json"
	expect_rc "$f" 0
done
python3 - <<'PY' || die "host-sync does not count the list's calls (lines above)"
import json, sys

def sync_share(path, name):
    ev = json.load(open(path))["traceEvents"]
    span = max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)
    return sum(e["dur"] for e in ev if e["name"] == name) / span

def finding(path):
    s = [x for x in json.load(open(path))["suggestions"] if x["id"] == "host-sync"]
    return s[0] if s else None

bad = 0
f, want = finding("sync-report.json"), sync_share("sync.json", "cuCtxSynchronize")
if not f or abs(f["value"] - want) > 1e-9 or "cuCtxSynchronize" not in f["details"]:
    print("FAIL cuCtxSynchronize: want host-sync at %g, got %r" % (want, f))
    bad = 1
else:
    print("cuCtxSynchronize: host-sync at %g (computed %g)" % (f["value"], want))
if finding("async-report.json"):
    print("FAIL cudaMemcpyAsync: a host-sync finding for a call that does not block")
    bad = 1
sys.exit(bad)
PY
