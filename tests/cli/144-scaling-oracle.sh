#!/usr/bin/env bash
# vcompare --scaling over real torch traces of one sequence-parallel pipeline
# on 1, 2 and 4 ranks, with and without a late rank (testdata/scaling/),
# against tests/scaling_oracle.py, which computes doc/scaling.md's figures
# from the same traces without vtrace.  Every figure and every part of the
# loss agrees; the parts add up to 1 - E; the late rank of each straggler
# run is the rank the recorder slowed down; a report directory and the
# traces give the same figures.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vcompare
D=$VT_ROOT/testdata/scaling
runs=("$D/r1" "$D/r2" "$D/r4" "$D/r2-straggler" "$D/r4-straggler")

vc traces --scaling --json traces.json "${runs[@]}"
expect_rc traces 0
python3 "$VT_ROOT/tests/scaling_oracle.py" "${runs[@]}" >oracle.json || die "scaling oracle"

# the 4-rank run as a report directory (vanalyze --out), the rest as traces
"$VANALYZE" -q --out r4rep "$D/r4" 2>/dev/null || die "vanalyze r4"
vc rep --scaling --json rep.json "$D/r1" r4rep
expect_rc rep 0

python3 - traces.json oracle.json rep.json <<'PY' || die "vcompare --scaling disagrees with the oracle"
import json, math, sys
v = json.load(open(sys.argv[1]))
assert v["schema"] == "vtrace.scaling/1", v["schema"]
v = v["scaling"]
o = json.load(open(sys.argv[2]))
rep = json.load(open(sys.argv[3]))["scaling"]
assert v["mode"] == "strong" and o["mode"] == "strong"
assert v["base"]["ranks"] == 1 and abs(v["base"]["time_ns"] - o["base"]["time_ns"]) < 1
bad = []
def near(what, a, b, scale):
    if a is None or b is None:
        if a is not b:
            bad.append("%s: %r vs %r" % (what, a, b))
    elif abs(a - b) > 1e-6 * scale:
        bad.append("%s: vtrace %r, oracle %r" % (what, a, b))
for pv, po in zip(v["points"], o["points"]):
    tag = pv["input"].rsplit("/", 1)[-1]
    total = po["rank_time_ns"]
    assert pv["ranks"] == po["ranks"], tag
    near(tag + " time", pv["time_ns"], po["time_ns"], po["time_ns"])
    for k in ("speedup", "efficiency", "karp_flatt", "loss"):
        near(tag + " " + k, pv[k], po[k], 1)
    for k, part in po["loss_parts"].items():
        near(tag + " " + k, pv["loss_parts"][k]["rank_ns"], part["rank_ns"], total)
        near(tag + " share " + k, pv["loss_parts"][k]["share"], part["share"], 1)
    s = sum(p["share"] for p in pv["loss_parts"].values())
    if abs(s - pv["loss"]) > 1e-12:
        bad.append("%s: shares add up to %r, 1 - E is %r" % (tag, s, pv["loss"]))
    r = sum(p["rank_ns"] for p in pv["loss_parts"].values())
    if abs(r - (pv["rank_time_ns"] - v["base"]["time_ns"] * 1)) > 1e-6 * total:
        bad.append("%s: parts add up to %r rank-ns" % (tag, r))
    phases = {p["path"]: p for p in pv["phases"]}
    for path, ph in po["phases"].items():
        got = phases.get(path)
        if not got:
            bad.append("%s: phase %s missing" % (tag, path))
            continue
        near(tag + " " + path + " base", got["base_ns"], ph["base_ns"], ph["base_ns"])
        near(tag + " " + path + " new", got["new_ns"], ph["new_ns"], ph["base_ns"])
        if got["not_shrunk"] != ph["not_shrunk"]:
            bad.append("%s: %s not_shrunk %r" % (tag, path, got["not_shrunk"]))
    if pv["ranks"] == 4 and not any(p["not_shrunk"] for p in pv["phases"]):
        bad.append(tag + ": the VAE decode, run whole on every rank, shrank")
late = {p["input"].rsplit("/", 1)[-1]: p["late_rank"] for p in v["points"]}
if late["r2-straggler"] != 1 or late["r4-straggler"] != 3:
    bad.append("late ranks %r" % late)
# the same run as a report directory
a, b = rep["points"][0], v["points"][1]
for k in ("time_ns", "speedup", "efficiency", "loss"):
    near("report dir " + k, a[k], b[k], b["time_ns"] if k == "time_ns" else 1)
for k in a["loss_parts"]:
    near("report dir " + k, a["loss_parts"][k]["rank_ns"], b["loss_parts"][k]["rank_ns"],
         b["rank_time_ns"])
if bad:
    sys.exit("\n".join(bad))
PY

# the terminal: the curve and the largest losses in words
vc term --scaling "$D/r1" "$D/r4-straggler"
expect_rc term 0
expect_line term.out '^4 ranks gave [0-9.]+x \([0-9]+ %\): inference_post_denoising runs whole on every rank \([0-9]+ % of the loss\), rank 3 late' "terminal sentence"
expect_line term.out 'did not shrink' "phase table"
expect_line term.out 'split or pipeline it across ranks' "finding with its fix"
exit 0
