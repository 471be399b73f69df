#!/usr/bin/env bash
# vanalyze reads collector files directly: a complete .vtr from the C demo
# pipeline gives a complete rank with its regions as user annotations (and,
# where the report has them, phases and frame-based throughput); a .vtr
# cut short by SIGKILL is read up to its last flush and marked incomplete,
# and so is one with bytes after its end record.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
command -v python3 >/dev/null || skip "no python3"
DEMO=$VT_BUILD/tests/collector_demo
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

VTRACE_RANK=1 "$DEMO" out demo 2>demo.err || die "collector_demo failed: $(cat demo.err)"
va full --json full.json out/demo-rank1.vtr
if [ "$(cat full.rc)" != 0 ] && grep -q "not a trace" full.err; then
	skip "vanalyze does not read .vtr files yet: $(head -1 full.err)"
fi
expect_rc full 0
# 26 regions and 26 counter events (12 blocks, 4 queue depths, 1 frames) and 1 instant.
check full.json 'r["ranks"][0]["rank"] == 1 and r["inputs"][0]["complete"] is True' \
	"rank 1 from the .vtr header, complete"
check full.json 'r["ranks"][0]["events"]["by_ph"].get("X") == 26' "26 regions as X events"
check full.json 'r["ranks"][0]["events"]["by_cat"].get("user_annotation") == 26' \
	"regions are user annotations"
# Phases and frame-based throughput, where vanalyze reports them already.
python3 - full.json <<'PY' >pending.txt || die "phases or throughput of the .vtr are wrong"
import json, re, sys
rank = json.load(open(sys.argv[1]))["ranks"][0]
phases = {}
for p in rank.get("phases") or []:
    # One entry per path, numbered names maybe folded: add up as name_*.
    name = re.sub(r"_(\d+|\*)$", "_*", p["name"])
    phases[name] = phases.get(name, 0) + p["count"]
tp = rank.get("throughput") or {}
if not phases:
    print("phases")
else:
    for name, n in (("generate", 1), ("text_encode", 1), ("denoise", 1), ("vae_decode", 1),
                    ("denoise_step_*", 4), ("block_*", 12)):
        assert phases.get(name) == n, "phase %s: %r times" % (name, phases.get(name))
# Every step sweeps the 3 blocks: block spans count each block once per
# generation, and they take precedence over the demo's per-span counter.
assert tp.get("blocks") in (None, 3), "blocks %r" % tp.get("blocks")
if tp.get("frames") is None:
    print("frames")
else:
    assert tp["frames"] == 16 and tp["fps"] > 0, "throughput %r" % tp
PY

# Without block spans (--block matches none), the block counter events are
# the completions: 12 blocks, a cadence, no latency (counters have no start).
va counters --json counters.json --block nomatch out/demo-rank1.vtr
expect_rc counters 0
check counters.json 'r["ranks"][0]["throughput"]["blocks"] == 12' "12 blocks from the counters" \
	'r["ranks"][0]["throughput"]["block_latency"] is None' "no latency from counters" \
	'r["ranks"][0]["throughput"]["block_cadence"]["max_ns"] > 0' "a cadence from counters"

{ "$DEMO" killed demo --kill; } 2>/dev/null
va cut --json cut.json killed/demo-rank0.vtr
expect_rc cut 1
expect_line cut.err "demo-rank0.vtr: .*no end record" "warning for the killed run"
check cut.json 'r["inputs"][0]["complete"] is False and r["ranks"][0]["complete"] is False' \
	"the killed run is marked incomplete"
check cut.json 'r["ranks"][0]["events"]["by_ph"].get("X") == 26' \
	"everything up to the last flush is read"
# Two files in one: the second's records are not read, so not complete.
cat out/demo-rank1.vtr out/demo-rank1.vtr >two.vtr
va two --json two.json two.vtr
expect_rc two 1
expect_line two.err "two.vtr: .*bytes after the end record not read" "warning for the second file"
check two.json 'r["ranks"][0]["complete"] is False' "two files in one are incomplete"
[ -s pending.txt ] && skip "vanalyze reads .vtr files; not reported from them yet: $(tr '\n' ' ' <pending.txt)"
exit 0
