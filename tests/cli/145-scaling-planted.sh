#!/usr/bin/env bash
# vcompare --scaling on planted runs: gentrace --split-denoising gives each
# of 4 ranks a quarter of the denoising compute while the text encoder and
# the VAE decode run whole on every rank (serial work), all-to-alls the
# compute waits for (exposed communication), and rank 3 computing 1.3 times
# slower (a late rank).  Against one rank of the same workload, the parts
# come back within 2 % of what the generator's truth says was planted, the
# late rank is rank 3, and the parts add up to 1 - E exactly.
. "$VT_ROOT/tests/cli/lib.sh"

need_vcompare
G=$VT_BUILD/gentrace
common=(--steps 4 --blocks 8 --jitter 0 --split-denoising)
mkdir -p base new
"$G" "${common[@]}" --ranks 1 -o base/g --truth base.json >/dev/null || die "gentrace base"
"$G" "${common[@]}" --ranks 4 --straggler 3=1.3 -o new/g --truth new.json >/dev/null ||
	die "gentrace new"

vc run --scaling --json scaling.json base new
expect_rc run 0
python3 - scaling.json base.json new.json <<'PY' || die "planted parts not found"
import json, sys
v = json.load(open(sys.argv[1]))["scaling"]
tb, tn = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
p = v["points"][0]
assert v["mode"] == "strong" and p["ranks"] == 4 and v["base"]["ranks"] == 1

def serial(truth):
    return sum(ph["total_ns"] for r in truth["ranks"] for ph in r["phases"]
               if ph["cat"] == "user_annotation" and
               ph["name"].endswith(("_pre_denoising", "_post_denoising")))

def walls(truth):
    return [r["throughput"]["wall_ns"] for r in truth["ranks"]]

w = walls(tn)
planted = {
    "exposed_comm": sum(r["gpu"]["comm_ns"] - r["gpu"]["comm_compute_overlap_ns"] -
                        r["planted_wait_ns"] for r in tn["ranks"]),
    "late_ranks": sum(r["planted_wait_ns"] for r in tn["ranks"]) + sum(max(w) - x for x in w),
    "not_parallelised": serial(tn) - serial(tb),
}
bad = []
for k, want in planted.items():
    got = p["loss_parts"][k]["rank_ns"]
    if not want > 0 or abs(got - want) > 0.02 * want:
        bad.append("%s: %.0f rank-ns, planted %.0f" % (k, got, want))
if p["late_rank"] != 3:
    bad.append("late rank %r, planted 3" % p["late_rank"])
s = sum(x["share"] for x in p["loss_parts"].values())
if abs(s - p["loss"]) > 1e-12:
    bad.append("shares add up to %r, 1 - E is %r" % (s, p["loss"]))
r = sum(x["rank_ns"] for x in p["loss_parts"].values())
if r != p["rank_time_ns"] - v["base"]["time_ns"]:
    bad.append("parts add up to %r, not N T - M T_base = %r" %
               (r, p["rank_time_ns"] - v["base"]["time_ns"]))
want_e = v["base"]["time_ns"] / (4 * max(w))
if abs(p["efficiency"] - want_e) > 1e-12:
    bad.append("efficiency %r, planted %r" % (p["efficiency"], want_e))
ph = {x["path"]: x for x in p["phases"]}
if not ph["inference_post_denoising"]["not_shrunk"] or ph["inference_denoising"]["not_shrunk"]:
    bad.append("phases that did not shrink: %r" % [x for x in ph if ph[x]["not_shrunk"]])
if bad:
    sys.exit("\n".join(bad))
PY
exit 0
