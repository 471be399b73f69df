#!/usr/bin/env bash
# Generations, blocks, cadence and FPS as users see them, checked against
# python3-stdlib readings written here (timestamps through decimal):
# - the torch-cpu sets (legacy format, each denoise step sweeps every
#   block): per rank the generations the meta file says were profiled, each
#   with the meta's block count (not one per step), wall time = the
#   ProfilerStep# span or pre-denoising start to post-denoising end, within
#   1 ms of the meta's wall time, FPS = frames / that wall, first block and
#   cadence from the block completions (last span of each block name); the
#   VAE chunk phase, which only a record_function name makes a phase there,
#   is the union of the vae_decode_chunk_* spans, and the VAE rule fires on
#   dev-2rank-default; the terminal (--ranks) has a blocks line;
# - gentrace with 3 generations in both loop orders: generations, blocks,
#   first block and cadence equal its truth file;
# - a real trace without block spans (DLRM): blocks, bps, first block,
#   latency and cadence are null, in the run and in every generation, and
#   the terminal has no blocks line.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
[ -x "$VT_BUILD/gentrace" ] || die "$VT_BUILD/gentrace is not built"

for set in dev-1rank-mem-shapes dev-2rank-default dev-4rank-straggler2; do
	meta=$TORCH_CPU/$set-meta.json
	[ -f "$meta" ] || die "missing $meta"
	frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames_per_video"])' "$meta")
	va "$set" --ranks --frames "$frames" --json "$set.json" "$TORCH_CPU/$set"-rank*.trace.json.gz
	expect_rc "$set" 0
	expect_line "$set.out" '^  blocks   [0-9]+  [0-9.]+ blocks/s' "$set terminal"
done

for loop in steps-outer blocks-outer; do
	"$VT_BUILD/gentrace" --ranks 2 --steps 3 --blocks 4 --generations 3 --loop "$loop" \
		--frames 33 -o "g-$loop" >/dev/null || die "gentrace --loop $loop failed"
	va "g-$loop" --frames 33 --json "g-$loop.json" "g-$loop"-rank*.trace.json.gz
	expect_rc "g-$loop" 0
done

dlrm=$(ls "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker0* | head -n 1)
[ -f "$dlrm" ] || die "missing the DLRM worker0 trace"
va noblocks --ranks --frames 4 --json noblocks.json "$dlrm"
expect_rc noblocks 0
no_line noblocks.out '^  blocks ' "terminal of a trace without blocks"
no_line noblocks.out 'blocks/s|bps' "terminal of a trace without blocks"

python3 - "$TORCH_CPU" "$dlrm" <<'PY' || die "generations disagree (lines above)"
import gzip, json, os, sys
from decimal import Decimal

tc, dlrm = sys.argv[1], sys.argv[2]
bad = []


def check(cond, msg):
    if not cond:
        bad.append(msg)


def ns(v):
    return int(Decimal(str(v)) * 1000)


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def quant(v):
    if not v:
        return None
    v = sorted(v)
    return {"median_ns": v[(len(v) - 1) // 2], "p90_ns": v[-(-9 * len(v) // 10) - 1],
            "max_ns": v[-1]}


def union(ivs):
    total, end = 0, None
    for a, b in sorted(ivs):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


# ---- torch-cpu: the meta files and the traces themselves
for set_ in ("dev-1rank-mem-shapes", "dev-2rank-default", "dev-4rank-straggler2"):
    meta = json.load(open(os.path.join(tc, set_ + "-meta.json")))
    rep = {r["rank"]: r for r in json.load(open(set_ + ".json"))["ranks"]}
    for m in meta["ranks"]:
        where = "%s rank %d" % (set_, m["rank"])
        with gzip.open(os.path.join(tc, m["trace_file"])) as f:
            ev = json.load(f, parse_float=Decimal)
        spans = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]) for e in ev]
        lo = min(s[0] for s in spans)
        pst = sorted(s for s in spans if s[2].startswith("ProfilerStep#"))
        if pst:
            gens = [(a, b) for a, b, _ in pst]
        else:
            pre = sorted(s for s in spans if s[2].endswith("inference_pre_denoising"))
            post = sorted(s for s in spans if s[2].endswith("inference_post_denoising"))
            gens = [(a[0], b[1]) for a, b in zip(pre, post)]
        its = [i for i in m["iterations"] if i["profiled"]]
        r = rep[m["rank"]]
        tp = r["throughput"]
        check(len(gens) == meta["videos_per_rank_profiled"] == len(its),
              "%s: %d generations in the trace, meta %d" % (where, len(gens),
                                                            meta["videos_per_rank_profiled"]))
        check(len(tp["generations"]) == len(gens), "%s: vanalyze %d generations, expected %d" % (
            where, len(tp["generations"]), len(gens)))
        firsts, all_gaps = [], []
        for k, ((a, b), it, g) in enumerate(zip(gens, its, tp["generations"])):
            w = "%s generation %d" % (where, k)
            done = {}
            for s0, s1, n in spans:
                if n.startswith("block_") and a <= s0 < b:
                    done[n] = max(done.get(n, s1), s1)
            comp = sorted(done.values())
            gaps = [y - x for x, y in zip(comp, comp[1:])]
            check(len(comp) == meta["num_blocks"], "%s: %d blocks in the trace, meta %d" % (
                w, len(comp), meta["num_blocks"]))
            check(g["blocks"] == meta["num_blocks"], "%s: vanalyze %s blocks, meta %d" % (
                w, g["blocks"], meta["num_blocks"]))
            check(g["start_ns"] == a - lo, "%s: start_ns %s != %d" % (w, g["start_ns"], a - lo))
            check(g["wall_ns"] == b - a, "%s: wall_ns %s != %d" % (w, g["wall_ns"], b - a))
            check(abs((b - a) - it["total_s"] * 1e9) <= 1e6,
                  "%s: wall %d ns, meta %.0f ns" % (w, b - a, it["total_s"] * 1e9))
            check(g["frames"] == meta["frames_per_video"] == it["frames"], w + ": frames")
            check(close(g["fps"], g["frames"] / ((b - a) / 1e9)),
                  "%s: fps %s != %d / %d ns" % (w, g["fps"], it["frames"], b - a))
            check(g["first_block_ns"] == comp[0] - a, w + ": first_block_ns")
            check(g["block_cadence"] == quant(gaps), "%s: cadence %s != %s" % (
                w, g["block_cadence"], quant(gaps)))
            firsts.append(comp[0] - a)
            all_gaps += gaps
        check(tp["blocks"] == meta["num_blocks"] * len(gens), where + ": run blocks")
        check(tp["frames"] == meta["frames_per_video"] * len(gens), where + ": run frames")
        wall = gens[-1][1] - gens[0][0]
        check(tp["wall_ns"] == wall, where + ": run wall_ns")
        check(close(tp["fps"], tp["frames"] / (wall / 1e9)), where + ": run fps")
        check(close(tp["bps"], tp["blocks"] / (wall / 1e9)), where + ": run bps")
        check(tp["first_block_ns"] == sorted(firsts)[(len(firsts) - 1) // 2], where + ": first")
        check(tp["block_cadence"] == quant(all_gaps), where + ": run cadence")
        vae = [(s0, s1) for s0, s1, n in spans if n.startswith("vae_decode_chunk_")]
        rows = [p for p in r["phases"] if p["name"] == "vae_decode_chunk_*"]
        check(len(rows) == 1 and rows[0]["total_ns"] == union(vae) and
              rows[0]["count"] == len(vae),
              "%s: vae_decode_chunk_* rows %s, union %d of %d spans" % (
                  where, [(p["path"], p["count"], p["total_ns"]) for p in rows], union(vae),
                  len(vae)))

# The VAE chunks take over half of each rank's span in dev-2rank-default:
# now that they are a phase, the VAE rule fires, with the largest share.
rep = json.load(open("dev-2rank-default.json"))
vae = [x for x in rep["suggestions"] if x["id"] == "vae-decode-dominant"]
shares = [p["share"] for r in rep["ranks"] for p in r["phases"]
          if p["name"] == "vae_decode_chunk_*"]
check(len(vae) == 1 and len(shares) == 2 and min(shares) > 0.5 and
      vae[0]["value"] == max(shares), "dev-2rank-default: vae-decode-dominant: %s, shares %s" % (
          vae, shares))

# ---- gentrace, both loop orders, against its truth file
for loop in ("steps-outer", "blocks-outer"):
    truth = json.load(open("g-%s-truth.json" % loop))
    rep = {r["source"]: r for r in json.load(open("g-%s.json" % loop))["ranks"]}
    for t in truth["ranks"]:
        where = "gentrace %s rank %d" % (loop, t["rank"])
        tp = rep[t["file"]]["throughput"]
        check(len(tp["generations"]) == len(t["generations"]) == 3, where + ": generations")
        for k, (g, tg) in enumerate(zip(tp["generations"], t["generations"])):
            for key in ("start_ns", "wall_ns", "frames", "blocks", "first_block_ns"):
                check(g[key] == tg[key], "%s generation %d: %s vanalyze %s, truth %s" % (
                    where, k, key, g[key], tg[key]))
            check(g["block_cadence"] == tg["cadence"], "%s generation %d: cadence" % (where, k))
        tt = t["throughput"]
        for key in ("frames", "blocks", "wall_ns", "first_block_ns"):
            check(tp[key] == tt[key], "%s: %s vanalyze %s, truth %s" % (where, key, tp[key],
                                                                        tt[key]))
        check(tp["block_cadence"] == tt["cadence"], where + ": cadence")
        check(tt["blocks"] == 3 * 4 and tt["block_spans"] == (36 if loop == "steps-outer" else 12),
              where + ": the truth's block counts")

# ---- a trace without block spans
r = json.load(open("noblocks.json"))["ranks"][0]
tp = r["throughput"]
for key in ("blocks", "bps", "first_block_ns", "block_latency", "block_cadence",
            "streaming_fps"):
    check(tp[key] is None, "no blocks: throughput.%s is %r, not null" % (key, tp[key]))
for g in tp["generations"]:
    for key in ("blocks", "bps", "first_block_ns", "block_cadence"):
        check(g[key] is None, "no blocks: generation %s is %r, not null" % (key, g[key]))
check(tp["frames"] == 4 * len(tp["generations"]), "no blocks: frames")

for line in bad:
    print("mismatch " + line)
print("%d mismatches" % len(bad))
sys.exit(1 if bad else 0)
PY
