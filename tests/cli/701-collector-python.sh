#!/usr/bin/env bash
# The Python binding end to end: the example pipeline writes a .vtr through
# ctypes, vtrace-export turns it into Chrome trace JSON, and python's json
# module finds the expected regions, nesting, frames and blocks.  Also: the
# decorator, configuration by environment alone, and a missing library.
. "$VT_ROOT/tests/cli/lib.sh"

# ASan must be the first library in a process; python3 is not built with it.
[ "$VT_SANITIZED" = 1 ] && skip "python3 loads libvtrace.so with ctypes: not under a sanitizer build"
command -v python3 >/dev/null || skip "no python3"
export VTRACE_LIB=$VT_BUILD/libvtrace.so
EXAMPLE=$VT_ROOT/collector/python/example_pipeline.py
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

python3 "$EXAMPLE" --dir out --name example --videos 2 --steps 3 --blocks 2 --frames 8 \
	--step-ms 1 >run.out 2>run.err || die "example_pipeline.py failed: $(cat run.err)"
[ -s run.err ] && die "the example wrote to stderr: $(cat run.err)"
expect_line run.out '^2 videos, 16 frames' "example output"
[ -f out/example-rank0.vtr ] || die "no out/example-rank0.vtr"

"$VT_BUILD/vtrace-export" out/example-rank0.vtr -o example.trace.json.gz 2>export.err ||
	die "vtrace-export failed: $(cat export.err)"
[ "$(cat export.err)" = "vtrace-export: wrote example.trace.json.gz" ] ||
	die "vtrace-export warned: $(cat export.err)"

python3 - example.trace.json.gz <<'PY' || die "exported trace does not hold the example"
import collections, gzip, json, sys

with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f:
    doc = json.load(f)
ev = doc["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
names = collections.Counter(e["name"] for e in x)
want = {"generate": 2, "text_encode": 2, "denoise": 2, "vae_decode": 2,
        "denoise_step_0": 2, "denoise_step_2": 2, "block_0": 6, "block_1": 6}
bad = {k: (names.get(k), v) for k, v in want.items() if names.get(k) != v}
assert not bad, "region counts (got, want): %r" % bad
assert len(x) == 2 * (1 + 1 + 1 + 1 + 3 * (1 + 2)), "region total %d" % len(x)
assert all(e["cat"] == "user_annotation" and e["dur"] >= 0 for e in x)
frames = sum(e["args"]["value"] for e in ev if e["name"] == "vtrace.frames")
blocks = sum(e["args"]["value"] for e in ev if e["name"] == "vtrace.blocks")
assert frames == 16 and blocks == 12, "frames %d blocks %d" % (frames, blocks)
# Every denoise step lies inside a denoise region, which lies inside generate.
def inside(a, b):
    return b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"] + 0.002
gens = [e for e in x if e["name"] == "generate"]
for e in x:
    if e["name"] != "generate":
        assert any(inside(e, g) for g in gens), "%s outside generate" % e["name"]
assert doc["distributedInfo"]["rank"] == 0
assert doc["vtraceInput"]["complete"] is True
PY

# vanalyze on the .vtr itself: phases, frames and FPS without --frames.
PENDING=""
if [ -x "$VANALYZE" ]; then
	va rep --json report.json out/example-rank0.vtr
	expect_rc rep 0
	check report.json 'r["inputs"][0]["complete"] is True and r["ranks"][0]["events"]["by_ph"]["X"] == 26' \
		"vanalyze reads every region of the example"
	cat >report_check.py <<'PY'
import json, re, sys
rank = json.load(open(sys.argv[1]))["ranks"][0]
phases = {}
for p in rank.get("phases") or []:
    # One entry per path, numbered names maybe folded: add up as name_*.
    name = re.sub(r"_(\d+|\*)$", "_*", p["name"])
    phases[name] = phases.get(name, 0) + p["count"]
tp = rank.get("throughput") or {}
pending = []
if not phases:
    pending.append("phases")
else:
    for name, n in (("generate", 2), ("text_encode", 2), ("denoise", 2), ("vae_decode", 2),
                    ("denoise_step_*", 6), ("block_*", 12)):
        assert phases.get(name) == n, "phase %s: %r times" % (name, phases.get(name))
# Two videos (generations) of 2 blocks each; every step sweeps the blocks,
# so the 12 block spans are 4 blocks, and they outrank the counters.
assert tp.get("blocks") in (None, 4), "blocks %r" % tp.get("blocks")
assert len(tp.get("generations") or [None, None]) == 2, "generations %r" % tp.get("generations")
if tp.get("frames") is None:
    pending.append("frames")
else:
    assert tp["frames"] == 16 and tp["fps"] > 0, "throughput %r" % tp
print(" ".join(pending))
PY
	PENDING=$(python3 report_check.py report.json) || die "vanalyze's phases or throughput are wrong"
else
	PENDING="vanalyze (not built)"
fi

# Environment only: no vt_init() call, rank from RANK, the decorator.
cat >envonly.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import vtrace

@vtrace.region("decorated")
def work(n):
    return n * 2

assert work(21) == 42 and work.__name__ == "work"
with vtrace.region("ctx") as r:
    assert r.name == "ctx"
vtrace.frames(3)
vtrace.blocks(2)
vtrace.instant("mark")
vtrace.counter("depth", 5)
assert vtrace.enabled() and vtrace.path().endswith("envrun-rank3.vtr")
PY
VTRACE_DIR=$PWD/envdir VTRACE_NAME=envrun RANK=3 python3 envonly.py "$VT_ROOT/collector/python" \
	2>env.err || die "environment-only run failed: $(cat env.err)"
[ -s env.err ] && die "environment-only run wrote to stderr: $(cat env.err)"
[ -f envdir/envrun-rank3.vtr ] || die "VTRACE_DIR/VTRACE_NAME/RANK did not name the file"
"$VT_BUILD/vtrace-export" envdir/envrun-rank3.vtr -o env.json 2>/dev/null || die "export failed"
python3 - env.json <<'PY' || die "environment-only trace is wrong"
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
names = sorted(e["name"] for e in ev if e["ph"] == "X")
assert names == ["ctx", "decorated"], names
assert any(e["name"] == "vtrace.frames" and e["args"]["value"] == 3 for e in ev)
assert any(e["ph"] == "i" and e["name"] == "mark" for e in ev)
PY

# No library: calls are no-ops, one line on stderr, the program runs on.
VTRACE_LIB=$PWD/missing.so python3 -c "
import sys; sys.path.insert(0, '$VT_ROOT/collector/python')
import vtrace
with vtrace.region('x'):
    vtrace.frames(1)
assert not vtrace.available and not vtrace.init('d') and vtrace.path() is None
print('ran')" >missing.out 2>missing.err || die "a missing library broke the program"
expect_line missing.out '^ran$' "program output without the library"
[ "$(wc -l <missing.err)" -eq 1 ] || die "expected one stderr line, got: $(cat missing.err)"
expect_line missing.err '^vtrace: libvtrace.so not found' "missing-library message"
[ -n "$PENDING" ] && skip "all else passed; vanalyze does not report from .vtr yet: $PENDING"
exit 0
