#!/usr/bin/env bash
# The run's metadata and region arguments through the collector: tags from
# vtrace.init(tags=...), vtrace.tag() and VTRACE_TAGS, and region arguments
# (vtrace.region("denoise_step", step=i, timestep=t), block_size) go into the
# .vtr, out of vtrace-export as top-level keys and Chrome "args", and into
# vanalyze's report from the .vtr and from its export alike; a block's
# block_size counts as its frames, once per block and generation whatever
# the steps that revisit it, so FPS needs no --frames.
. "$VT_ROOT/tests/cli/lib.sh"

[ "$VT_SANITIZED" = 1 ] && skip "python3 loads libvtrace.so with ctypes: not under a sanitizer build"
need_vanalyze
export VTRACE_LIB=$VT_BUILD/libvtrace.so
export PYTHONPATH=$VT_ROOT/collector/python
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

VTRACE_TAGS="exp=ablation-3,commit=abc123,broken" python3 - <<'PY' >run.out 2>run.err ||
import time, vtrace
assert vtrace.init(dir="out", name="wan", tags={"model": "wan2.1", "resolution": "480x832"})
vtrace.tag("model", "wan2.1-t2v")       # a key given again: the new value
with vtrace.region("denoise"):
    for step, t in enumerate((999.0, 874.5, 0.25)):
        with vtrace.region("denoise_step", step=step, timestep=t):
            for k in range(2):
                with vtrace.region("block_%d" % k, block_index=k, block_size=4):
                    time.sleep(0.002)
vtrace.shutdown()
PY
	die "the recording failed: $(cat run.err)"
grep -q "VTRACE_TAGS: 'broken' is no key=value pair" run.err || die "the bad pair was not named: $(cat run.err)"
"$VT_BUILD/vtrace-export" out/wan-rank0.vtr -o wan.trace.json.gz 2>export.err ||
	die "vtrace-export failed: $(cat export.err)"
python3 - wan.trace.json.gz <<'PY' || die "the export lacks the metadata or the arguments"
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1], "rt", encoding="utf-8"))
want = {"name": "wan", "model": "wan2.1-t2v", "resolution": "480x832", "exp": "ablation-3",
        "commit": "abc123"}
bad = {k: doc.get(k) for k in want if doc.get(k) != want[k]}
assert not bad, "top-level tags: %r" % bad
x = [e for e in doc["traceEvents"] if e["ph"] == "X"]
steps = [e["args"] for e in x if e["name"] == "denoise_step"]
assert steps == [{"step": 0, "timestep": 999.0}, {"step": 1, "timestep": 874.5},
                 {"step": 2, "timestep": 0.25}], steps
blocks = [e["args"] for e in x if e["name"].startswith("block_")]
assert blocks == [{"block_index": k, "block_size": 4} for k in (0, 1)] * 3, blocks
assert "args" not in [e for e in x if e["name"] == "denoise"][0]
frames = [e for e in doc["traceEvents"] if e["name"] == "vtrace.block_frames"]
assert [e["args"]["value"] for e in frames] == [4] * 6, frames
print("ok: export with %d tags and the region arguments" % len(want))
PY
for f in out/wan-rank0.vtr wan.trace.json.gz; do
	va r --json r.json "$f"
	expect_rc r 0
	check r.json 'r["inputs"][0]["tags"]["model"] == "wan2.1-t2v" and r["inputs"][0]["tags"]["exp"] == "ablation-3"' \
		"$f: the tags" \
		'r["run"]["name"] == "wan" and r["run"]["tags"]["commit"] == "abc123"' "$f: the run" \
		'r["ranks"][0]["throughput"]["frames"] == 8' \
		"$f: 2 blocks of block_size 4, each in 3 steps, are 8 frames" \
		'r["ranks"][0]["throughput"]["fps"] > 0' "$f: FPS without --frames"
	cp r.json "$(basename "$f").report.json"
done
# the .vtr and its export say the same of the run
python3 - wan-rank0.vtr.report.json wan.trace.json.gz.report.json <<'PY' || die "the .vtr and its export differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["run"]["tags"] == b["run"]["tags"], (a["run"]["tags"], b["run"]["tags"])
assert a["ranks"][0]["throughput"]["frames"] == b["ranks"][0]["throughput"]["frames"]
PY
