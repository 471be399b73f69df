#!/usr/bin/env bash
# Findings on the shared traces, against independent python3
# computations (decimal timestamps):
#  1. at most one finding per rule per run, ordered by impact_ns (nulls last);
#  2. no diffusion wording on DLRM, TraceLens BERT, ResNet, sglang and vLLM;
#     the workload recorded with its reason;
#  3. idle-launch (was launch-bound) on nccl_data: gpu.kernel_median_ns is the median over every
#     kernel as computed here, and the finding quotes it;
#  4. graph-launched runs (sglang decode: kernels whose correlation is a
#     hipGraphLaunch's, counted here): no "use CUDA graphs" advice;
#  5. H100 Qwen's host syncs: counted, and a finding only where they idle the device;
#  6. the ROCm mi250 trace: the last step cut off, left out of the step
#     statistics, no slow-first-step;
#  7. the demo's top finding is rank 2 holding the others back; DLRM's is
#     rank 7, naming ranks 0-6 as waiting;
#  8. the bar: the DLRM and demo terminal summaries show at most 6 lines of
#     findings before the details;
#  9. vaggregate over per-rank DLRM reports gives the same findings as one
#     vanalyze over the traces;
# 10. an incomplete rank (the demo's rank 3 cut at 30000 compressed bytes)
#     gets one finding and appears in no other.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

cat >findings_check.py <<'PYEOF'
import decimal, glob, gzip, json, os, re, subprocess, sys

sys.dont_write_bytecode = True
PUB = os.path.join(os.environ["VT_SHARED"], "traces", "public")
VAN = os.environ["VANALYZE"]
VAG = os.path.join(os.path.dirname(VAN), "vaggregate")
DEMO = os.path.join(os.environ["VT_ROOT"], "testdata", "demo")
fails = []


def fail(what):
    fails.append(what)
    print("FAIL " + what)


def one(pattern):
    g = sorted(glob.glob(os.path.join(PUB, pattern)))
    if len(g) != 1:
        fail("%s: %d files" % (pattern, len(g)))
        return None
    return g[0]


def events(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        d = json.loads(f.read().decode("utf-8"), parse_float=decimal.Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d


def ns(v):
    return int(decimal.Decimal(str(v)) * 1000)   # sub-ns digits truncated


def analyse(paths, tag, env=None, rc=0):
    out = "rep-%s.json" % tag
    p = subprocess.run([VAN, "--no-progress", "--details", "--json", out] + paths, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, COLUMNS="80", **(env or {})))
    if p.returncode != rc:
        fail("%s: vanalyze exit %d" % (tag, p.returncode))
    with open(out) as f:
        return json.load(f), p.stdout.decode("utf-8")


def check_order(rep, tag):
    ids = [s["id"] for s in rep["suggestions"]]
    if len(ids) != len(set(ids)):
        fail("%s: a rule gives more than one finding: %s" % (tag, ids))
    imp = [s["impact_ns"] for s in rep["suggestions"]]
    known = [v for v in imp if v is not None]
    if imp[:len(known)] != known or known != sorted(known, reverse=True):
        fail("%s: findings not ordered by impact_ns: %s" % (tag, imp))
    for s in rep["suggestions"]:
        for k in ("metric", "value", "threshold", "message", "ranks", "ranks_text"):
            if k not in s:
                fail("%s: %s has no %s" % (tag, s["id"], k))
        if s["impact_ns"] is not None and not s.get("impact_basis"):
            fail("%s: %s has an impact without its basis" % (tag, s["id"]))


DIFFUSION = re.compile(r"denois|\bVAE\b|RoPE|modulation|video|latent|DiT", re.I)
runs = {
    "dlrm": sorted(glob.glob(PUB + "/facebookresearch__param/*dlrm_kineto__worker*")),
    "bert-h100": [one("AMD-AGI__TraceLens/*h100__gaunernst_bert*")],
    "bert-mi300": [one("AMD-AGI__TraceLens/*mi300__gaunernst_bert*")],
    "resnet": [one("facebookresearch__param/*resnet_kineto*")],
    "resnet50": [one("pytorch__kineto/*resnet50_num_workers_0*")],
    "resnet18": [one("AMD-AGI__TraceLens/*ddp_resnet18*")],
    "resnet-ckpt": [one("AMD-AGI__TraceLens/*resnet_act_checkpoint*")],
    "sglang-decode": [one("AMD-AGI__TraceLens/*sglang_Qwen3-8B_decode*")],
    "sglang-prefill": [one("AMD-AGI__TraceLens/*sglang_Qwen3-8B_prefilldecode*")],
    "vllm-capture": [one("AMD-AGI__TraceLens/*graph_capture_rank_0*")],
    "vllm-exec": [one("AMD-AGI__TraceLens/*vllm_decode_full__graph_execution*")],
}
want_kind = {"dlrm": "training", "resnet": "training", "resnet50": "training",
             "resnet18": "training", "resnet-ckpt": "training",
             "sglang-decode": "llm-serving", "sglang-prefill": "llm-serving",
             "vllm-capture": "llm-serving", "vllm-exec": "llm-serving"}
reps = {}
for tag, paths in runs.items():
    if len(paths) != (8 if tag == "dlrm" else 1) or None in paths:
        fail("%s: inputs missing" % tag)
        continue
    rep, term = analyse(paths, tag)
    reps[tag] = (rep, term)
    check_order(rep, tag)
    wl = rep.get("workload") or {}
    if wl.get("kind") == "diffusion" or not wl.get("reason"):
        fail("%s: workload %s" % (tag, wl))
    if tag in want_kind and wl.get("kind") != want_kind[tag]:
        fail("%s: workload %s, want %s" % (tag, wl.get("kind"), want_kind[tag]))
    for s in rep["suggestions"]:
        text = s["message"] + " " + (s.get("details") or "")
        if DIFFUSION.search(text) or s["id"] in ("vae-decode-dominant",
                                                 "text-encoding-dominant",
                                                 "many-denoising-steps"):
            fail("%s: diffusion advice: %s" % (tag, text[:200]))
print("checked %d runs for order and wording" % len(reps))

# 3. launch-bound on nccl_data: the true median kernel
path = one("facebookresearch__HolisticTraceAnalysis/*nccl_data*")
durs = sorted(ns(e["dur"]) for e in events(path)
              if isinstance(e, dict) and e.get("cat") == "kernel" and e.get("ph") == "X"
              and "dur" in e)
n = len(durs)
med = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) // 2
rep, _ = analyse([path], "nccl")
check_order(rep, "nccl")
g = rep["ranks"][0]["gpu"]
print("nccl_data: %d kernels, median %d ns (tool %s), idle share %.3f" %
      (n, med, g["kernel_median_ns"], g["idle_ns"] / g["active_span_ns"]))
if g["kernel_median_ns"] != med or g["kernels"] != n:
    fail("nccl_data: kernel median %s, want %d" % (g["kernel_median_ns"], med))
# the idle attribution replaces launch-bound: idle-launch at stake is the
# launch-caused idle time of the steady steps (053 checks that figure)
idle = rep["ranks"][0]["idle"]
lb = [s for s in rep["suggestions"] if s["id"] == "idle-launch"]
if [s for s in rep["suggestions"] if s["id"] in ("launch-bound", "low-gpu-utilization")]:
    fail("nccl_data: launch-bound or low-gpu-utilization beside the attribution")
if not lb or lb[0]["value"] != idle["by_cause"]["launch"] or \
        lb[0]["impact_ns"] != idle["by_cause"]["launch"] or \
        not idle["by_cause"]["launch"] > 0.05 * idle["window_ns"]:
    fail("nccl_data: idle-launch does not fire on the launch idle time: %s" % lb)

# 4. graph-launched: sglang decode
path = runs["sglang-decode"][0]
ev = events(path)
graph = {e["args"]["correlation"] for e in ev if isinstance(e, dict) and
         e.get("name") in ("hipGraphLaunch", "cudaGraphLaunch") and "correlation" in e.get("args", {})}
gk = sum(1 for e in ev if isinstance(e, dict) and e.get("cat") == "kernel" and
         e.get("args", {}).get("correlation") in graph)
kern = sum(1 for e in ev if isinstance(e, dict) and e.get("cat") == "kernel")
rep = reps["sglang-decode"][0]
g = rep["ranks"][0]["gpu"]
print("sglang decode: %d of %d kernels from graph launches (tool %s of %s)" %
      (gk, kern, g["graph_kernels"], g["kernels"]))
if g["graph_kernels"] != gk or g["graph_launches"] != len(graph):
    fail("sglang decode: graph kernels %s/%s, want %d/%d" %
         (g["graph_kernels"], g["graph_launches"], gk, len(graph)))
for tag in ("sglang-decode", "vllm-exec"):
    for s in reps[tag][0]["suggestions"]:
        text = s["message"] + " " + (s.get("details") or "")
        if re.search(r"Capture .* CUDA graphs|CUDA graphs or torch.compile", text):
            fail("%s: CUDA-graph advice on a graph-launched run: %s" % (tag, text[:160]))

# 5. host-sync on H100 Qwen: the runtime's synchronising calls, summed here
path = one("AMD-AGI__TraceLens/*h100__Qwen_Qwen1.5*")
ev = events(path)
sync = sum(ns(e["dur"]) for e in ev if isinstance(e, dict) and e.get("ph") == "X" and
           e.get("cat") in ("cuda_runtime", "cuda_driver") and "Synchronize" in e.get("name", ""))
rep, _ = analyse([path], "qwen")
check_order(rep, "qwen")
r = rep["ranks"][0]
hs = [s for s in rep["suggestions"] if s["id"] in ("host-sync", "idle-sync")]
idle = r["idle"]
print("H100 Qwen: synchronising calls %d ns (tool %s), %s of the span; device idle for "
      "them %d of %d ns" % (sync, r["gpu"]["host_sync_ns"], sync / r["span_ns"],
                            idle["by_cause"]["sync"], idle["window_ns"]))
if r["gpu"]["host_sync_ns"] != sync:
    fail("qwen: host_sync_ns %s, want %d" % (r["gpu"]["host_sync_ns"], sync))
# a sync costs wall time only where the device then runs dry: the finding
# follows the idle time the syncs caused, not the time the CPU spent in them
want = idle["by_cause"]["sync"] > 0.05 * idle["window_ns"]
if [s["id"] for s in hs] != (["idle-sync"] if want else []):
    fail("qwen: sync findings %s, want idle-sync %s" % ([s["id"] for s in hs], want))

# 6. mi250: the last step is cut off
path = one("facebookresearch__HolisticTraceAnalysis/*mi250*")
steps = sorted((ns(e["ts"]), ns(e["dur"])) for e in events(path) if isinstance(e, dict) and
               e.get("ph") == "X" and e.get("cat") == "user_annotation" and
               str(e.get("name", "")).startswith("ProfilerStep#"))
rep, _ = analyse([path], "mi250")
check_order(rep, "mi250")
st = rep["ranks"][0]["steps"]
print("mi250: steps %s, cut_off %s, count %s" % ([d for _, d in steps], st["cut_off"], st["count"]))
if st["durations_ns"] != [d for _, d in steps] or st["cut_off"] != 1 or st["count"] != 1 or \
        st["median_ns"] != steps[0][1]:
    fail("mi250: steps %s" % st)
if any(s["id"] == "slow-first-step" for s in rep["suggestions"]):
    fail("mi250: slow-first-step fires")
if not any("cut off by the end of the trace" in w for w in rep["ranks"][0]["warnings"]):
    fail("mi250: no warning about the cut-off step")

# 7. the top findings; 8. the bar
demo, dterm = analyse(sorted(glob.glob(DEMO + "/*.trace.json.gz")), "demo")
check_order(demo, "demo")
top = demo["suggestions"][0]
if top["id"] != "straggler" or top["ranks"] != [2] or "Rank 2 holds the others back" not in top["message"]:
    fail("demo: top finding %s" % top)
if demo["workload"]["kind"] != "diffusion":
    fail("demo: workload %s" % demo["workload"])
dlrm, lterm = reps["dlrm"]
top = dlrm["suggestions"][0]
if top["id"] != "straggler" or top["ranks"] != [7] or "ranks 0\u20136 wait" not in top["message"]:
    fail("dlrm: top finding %s" % top["message"])
# the wait share of the waiting ranks, from their figures (the headline says
# who waits for whom; the share is in the details)
w = [r for r in dlrm["ranks"] if r["rank"] != 7]
share = sum(r["gpu"]["comm_wait_ns"] for r in w) / sum(r["gpu"]["comm_ns"] for r in w)
if "%.1f%%" % (100 * share) not in top["details"]:
    fail("dlrm: wait share %.3f not in %s" % (share, top["details"]))
if top["impact_ns"] != max(r["gpu"]["comm_wait_ns"] for r in w):
    fail("dlrm: impact %s" % top["impact_ns"])
for tag, term in (("demo", dterm), ("dlrm", lterm)):
    lines = term.splitlines()
    a = [i for i, l in enumerate(lines) if l.startswith("findings (")]
    b = [i for i, l in enumerate(lines) if l.startswith("findings in detail")]
    if not a or not b or b[0] - a[0] > 6:
        fail("%s: %s lines of findings before the details" % (tag, b[0] - a[0] if a and b else "?"))
    else:
        print("%s: %d lines of findings before the details" % (tag, b[0] - a[0]))
    if any(len(l) > 80 for l in lines[a[0]:]):
        fail("%s: a findings line wider than 80 columns" % tag)

# 9. vaggregate merges per-rank reports into the same findings
os.makedirs("dlrm-reports", exist_ok=True)
for i, p in enumerate(runs["dlrm"]):
    subprocess.run([VAN, "-q", "--no-progress", "--json", "dlrm-reports/r%d.json" % i, p],
                   check=True, stderr=subprocess.DEVNULL)
subprocess.run([VAG, "-q", "--no-progress", "--json", "agg.json", "--reports_dir", "dlrm-reports"],
               check=True)
with open("agg.json") as f:
    agg = json.load(f)
key = lambda rep: [(s["id"], s["ranks"], s["impact_ns"], s["message"]) for s in rep["suggestions"]]
if key(agg) != key(dlrm) or agg.get("workload") != dlrm.get("workload"):
    fail("vaggregate findings differ:\n%s\n%s" % (key(agg), key(dlrm)))

# 10. an incomplete rank
os.makedirs("inc", exist_ok=True)
for i in range(4):
    with open(os.path.join(DEMO, "fastvideo-rank%d.trace.json.gz" % i), "rb") as f:
        data = f.read()
    with open("inc/fastvideo-rank%d.trace.json.gz" % i, "wb") as f:
        f.write(data[:30000] if i == 3 else data)
inc, _ = analyse(sorted(glob.glob("inc/*.gz")), "incomplete", rc=1)
check_order(inc, "incomplete")
if [r["complete"] for r in inc["ranks"]] != [True, True, True, False]:
    fail("incomplete: rank 3 should be the incomplete one")
mine = [s for s in inc["suggestions"] if 3 in s["ranks"]]
if [s["id"] for s in mine] != ["incomplete-ranks"]:
    fail("incomplete: rank 3 in %s" % [s["id"] for s in mine])
if any(s["worst_rank"] == 3 or "rank 3 " in s["message"].lower() + " "
       for s in inc["suggestions"] if s["id"] != "incomplete-ranks"):
    fail("incomplete: rank 3 named by another finding")
sys.exit(1 if fails else 0)
PYEOF

python3 findings_check.py || die "findings checks failed (lines above)"
