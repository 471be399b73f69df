#!/usr/bin/env bash
# vanalyze's phases, steps and throughput agree with tests/oracle_phases.py
# (the independent reference; its docstring is the contract) on real traces:
# testdata/demo with --frames 81, the 7 torch-cpu traces with --frames 16, the
# 8 DLRM ranks, HTA trace_diff control, ns_resolution and
# with_gpu_user_annotation, every other public trace (each vendor: MTIA,
# Ascend, ROCm, Kineto 2021) and testdata/gpu with the defaults; plus runs with --target-fps 16
# and with --phase/--step/--block overrides.  Each run analyses one file alone
# (vanalyze --json out.json OPTIONS FILE).  Compared: every phase row and
# field, every steps and throughput field (ints exact, floats to a relative
# 1e-9, null must be null, lists element by element).  The oracle is also
# checked against testdata/demo-truth.json (what the generator knows), and
# both run on a few small hand-made traces of corner cases (written here).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
for f in "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker* \
	"$HTA"/tests__data__trace_diff__control__control.json.gz \
	"$HTA"/tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz \
	"$HTA"/at-9e27c16c__tests__data__with_gpu_user_annotation__step_based_trace_2543932.json.gz \
	"$TORCH_CPU"/*.trace.json.gz "$VT_ROOT"/testdata/demo/*.json.gz; do
	[ -f "$f" ] || die "missing trace: $f"
done

cat >phases_check.py <<'PYEOF'
import glob, hashlib, json, os, sys, tempfile, time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.environ["VT_ROOT"]
sys.path.insert(0, os.path.join(ROOT, "tests"))
import oracle  # noqa: E402
from vtcheck import run_vanalyze, same, show  # noqa: E402
import oracle_analyses  # noqa: E402
import oracle_phases  # noqa: E402  (the independent reference)

VANALYZE = os.environ["VANALYZE"]
CACHE = os.environ.get("VT_ORACLE_CACHE")
PUBLIC = os.path.join(os.environ["VT_SHARED"], "traces", "public")
TORCH_CPU = os.path.join(os.environ["VT_SHARED"], "traces", "torch-cpu")
HTA = os.path.join(PUBLIC, "facebookresearch__HolisticTraceAnalysis")
DEMO = sorted(glob.glob(os.path.join(ROOT, "testdata", "demo", "*.json.gz")))


def X(name, ts, dur, tid=1, cat="user_annotation", **kw):
    e = {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}
    if cat is not None:
        e["cat"] = cat
    e.update(kw)
    return e


def K(ts, dur, corr):
    return X("k", ts, dur, tid=7, cat="kernel", args={"correlation": corr})


def L(ts, corr, tid=1, cat="cuda_runtime"):
    return X("launch", ts, 1, tid=tid, cat=cat, args={"correlation": corr})


EDGE = {
    # warm-up step, blocks tied on ts, identical nested spans, a zero-length
    # span, a GPU mirror, non-phases, renaming corner cases
    "edge1": [X("fastvideo.region::profiler_region_gen", 0, 1000),
              X("denoise_step_0", 10, 400), X("denoise_step_1", 410, 100),
              X("denoise_step_2", 510, 120), X("block_0", 20, 50), X("block_1", 20, 50),
              X("block_0", 415, 30), X("x", 100, 10), X("x", 100, 10),
              X("gpu mirror", 0, 5000, cat="gpu_user_annotation"),
              X("ProfilerStep#9", 0, 1, cat="cpu_op"), X(5, 0, 3000),
              {"ph": "B", "name": "profiler_region_b", "ts": 1, "pid": 1, "tid": 1},
              X("zero", 500, 0), X("a#", 700, 10), X("b_12x", 700, 10), X("c__07", 700, 9),
              X("d_1_2", 730, 1), X("profiler_region_fastvideo.region::q_1", 740, 1),
              X("fastvideo.region::", 750, 1)],
    # gpu_ns: a correlation shared by a runtime and a driver call on another
    # thread (the first wins), launches at the span ends, kernels without launch
    "edge2": [X("fastvideo.region::profiler_region_gen", 0, 1000), X("p", 990, 20),
              L(30, 7), L(30, 7, tid=9, cat="cuda_driver"), L(999, 8), L(1000, 9),
              L(1010, 11), L(31, 13), K(40, 77, 7), K(50, 11, 7), K(1000, 5, 8),
              K(1001, 3, 9), K(1001, 3, 11), K(9, 2, 12), K(9, 2, True), K(9, 4, 13)],
    # legacy style: no cat, phase rules decide; numbers as strings, fractions
    "edge3": [X("ProfilerStep#0", 0, 100, cat=None), X("ProfilerStep#0", 100, 300, cat=None),
              X("fastvideo.region::profiler_region_inference_denoising", 10, 80, cat=None),
              X("train_step_3", 20, 5, cat=None), X("block_x", 30, 5, cat=None),
              X("aten::mm", 30, 5, cat=None), X("vae_decode_chunk_0", 40, 5, cat=None),
              X("block_y", 150.5, 0.25, cat=None), X("block_z", "160", "1", cat=None),
              X("block_w", 170, None, cat=None)],
    "edge4": [X("aten::mm", 5, 10, cat=None), X("aten::add", 100, 1, cat=None)],
    "edge5": [X("aten::mm", 5, 10, cat="cpu_op"), X("foo", 7, 1, tid=2), X("block_0", 50, 1),
              X("ProfilerStep#1", 40, 100)],
    # warm-up thresholds: exactly 1.5 x median (not warm-up), and just above
    "edge6": [X("denoise_step_0", 0, 150), X("denoise_step_1", 200, 90),
              X("denoise_step_2", 300, 110)],
    "edge7": [X("denoise_step_0", 0, 151), X("denoise_step_1", 200, 100)],
    # one path on several threads (union), sibling order by first start and path
    "edge8": [X("r", 0, 100, tid=1), X("r", 50, 100, tid=2), X("b_1", 10, 5, tid=1),
              X("a_1", 10, 5, tid=2), X("a_1", 60, 5, tid=2), X("r", 0, 100, tid=3),
              X("z", 0, 50, tid=3)],
    # no cat anywhere (the legacy writer): record_function names are phases,
    # operators, autograd nodes and bookkeeping are not; two generations of
    # flat pre/denoise/post roots, each step sweeping the blocks
    "edge9": [X(n, ts, d, cat=None) for n, ts, d in (
        ("pre", 0, 10), ("text_encoder", 1, 5), ("aten::mm", 2, 1), ("mylib::fused", 3, 1),
        ("den", 10, 100), ("denoise_step_0", 11, 40), ("block_0", 12, 10),
        ("block_1", 25, 20), ("denoise_step_1", 55, 50), ("block_0", 56, 20),
        ("block_1", 80, 22), ("MmBackward0", 60, 1), ("detach_", 61, 1), ("gloo:all_reduce", 62, 3),
        ("[memory]", 63, 0), ("Backward", 64, 1), ("post", 110, 30), ("vae_decode_chunk_0", 111, 9),
        ("pre", 150, 5), ("den", 155, 60), ("denoise_step_0", 156, 50), ("block_0", 157, 20),
        ("block_1", 180, 20), ("post", 215, 20), ("cpu work", 240, 3))] +
        [dict(X("volta_sgemm", 20, 5, cat=None), pid="CUDA functions")],
    # streaming: each block holds its steps, blocks at the root (no core),
    # one block counter-free, with a ProfilerStep# root that holds nothing
    "edge10": [X("block_0", 0, 30, cat=None), X("denoise_step_0", 1, 10, cat=None),
               X("denoise_step_1", 12, 10, cat=None), X("block_1", 30, 30, cat=None),
               X("denoise_step_0", 31, 10, cat=None), X("block_2", 60, 45, cat=None),
               X("ProfilerStep#1", 200, 10, cat=None)],
    # cores overlapping on two threads are one generation; a pre root on a
    # third thread; a later core on thread 1 starts a second generation
    "edge11": [X("gen", 0, 100, tid=1), X("block_0", 10, 20, tid=1), X("gen", 50, 100, tid=2),
               X("block_0", 60, 30, tid=2), X("block_1", 95, 5, tid=2), X("enc", 200, 5, tid=3),
               X("gen", 210, 50, tid=1), X("denoise_step_0", 211, 5, tid=1),
               X("zero", 260, 0, tid=1)],
}


def edge_files():
    out = []
    for name, events in EDGE.items():
        path = os.path.abspath("%s-rank0.json" % name)
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)
        out.append(path)
    return out


def runs():
    """(options, file) pairs: vanalyze OPTIONS FILE against the oracle."""
    out = [(["--frames", "81"], f) for f in DEMO]
    for f in edge_files():
        out += [(["--frames", "3", "--target-fps", "2.5", "--frames-per-block", "1"], f),
                (["--phase", "vae=vae_*", "--phase", "V2=*vae*", "--step", "train_*",
                  "--step", "ProfilerStep#0", "--block", "*_[yz]"], f)]
    tc = sorted(glob.glob(os.path.join(TORCH_CPU, "*.trace.json.gz")))
    out += [(["--frames", "16"], f) for f in tc]
    plain = sorted(glob.glob(os.path.join(PUBLIC, "facebookresearch__param",
                                          "*dlrm_kineto*worker*")))
    plain += [os.path.join(HTA, n) for n in (
        "tests__data__trace_diff__control__control.json.gz",
        "tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "at-9e27c16c__tests__data__with_gpu_user_annotation__step_based_trace_2543932.json.gz")]
    out += [([], f) for f in plain]
    # every other shared trace and testdata/gpu with the defaults: each
    # vendor's launches and kernels (MTIA, Ascend's unknown, ROCm, 2021)
    others = sorted(glob.glob(os.path.join(PUBLIC, "*", "*.json*")) +
                    glob.glob(os.path.join(ROOT, "testdata", "gpu", "*.trace.json.gz")))
    out += [([], f) for f in others if f not in plain]
    two = os.path.join(TORCH_CPU, "dev-2rank-default-rank0.trace.json.gz")
    strag = os.path.join(TORCH_CPU, "dev-4rank-straggler2-rank2.trace.json.gz")
    over = ["--phase", "denoise=*denoising*", "--phase", "vae=vae_decode_chunk_*",
            "--step", "denoise_step_[13]", "--step", "block_2",
            "--block", "vae_decode_chunk_*"]
    out += [
        (["--frames", "81", "--target-fps", "16"], DEMO[0]),
        (["--frames", "16", "--target-fps", "16"], two),
        (["--target-fps", "16"], strag),                      # no frames: null factor
        (["--frames", "16"] + over, two),                     # no cat, no ProfilerStep
        (["--frames", "81"] + over, DEMO[1]),                 # user_annotation, ProfilerStep
        (["--phase", "fwd=## forward*", "--step", "## forward ##", "--block", "nccl:*"],
         plain[0]),
        (["--frames", "21", "--frames-per-block", "7", "--target-fps", "16"], strag),
        (["--frames", "81", "--frames-per-block", "27", "--target-fps", "16"], DEMO[2]),
        (["--frames-per-block", "4"], two),                    # no frames, no target
    ]
    return out


def oracle_key(path, args):
    st = os.stat(path)
    code = [os.stat(m.__file__).st_mtime_ns for m in (oracle, oracle_analyses, oracle_phases)]
    h = hashlib.sha1(json.dumps([os.path.realpath(path), st.st_size, st.st_mtime_ns, code,
                                 args]).encode("utf-8", "surrogateescape"))
    return os.path.join(CACHE, "phases.%s.json" % h.hexdigest())


def oracle_file(path, arg_lists):
    """The oracle for one file under several option lists (parsed once),
    cached per test run (tests/run.sh)."""
    results, events = [], None
    for args in arg_lists:
        key = oracle_key(path, args) if CACHE else None
        if key and os.path.exists(key):
            with open(key) as f:
                results.append(json.load(f))
            continue
        if events is None:
            events = oracle.load(path)
        opts, _ = oracle_phases.parse_args(args)
        res = oracle_phases.analyze_events(events[0], events[1], opts)
        if key:
            fd, tmp = tempfile.mkstemp(dir=CACHE)
            with os.fdopen(fd, "w") as f:
                json.dump(res, f)
            os.replace(tmp, key)
        results.append(res)
    return results




def compare(out, where, a, b):
    """Every key of the oracle's b, recursively; lists element by element."""
    if isinstance(b, dict):
        if not isinstance(a, dict):
            out.append((where, a, "<object>"))
            return
        for k, v in b.items():
            compare(out, "%s.%s" % (where, k), a.get(k, "<missing>"), v)
    elif isinstance(b, list):
        if not isinstance(a, list):
            out.append((where, a, "<list>"))
            return
        if len(a) != len(b):
            out.append((where + " length", len(a), len(b)))
        for k in range(min(len(a), len(b))):
            if isinstance(b[k], dict) and "path" in b[k]:
                label = "%s[%d %s]" % (where, k, show(b[k]["path"], 80))
            else:
                label = "%s[%d]" % (where, k)
            compare(out, label, a[k], b[k])
    elif not same(a, b):
        out.append((where, a, b))


def truth_check(results):
    """The oracle (demo, --frames 81) against testdata/demo-truth.json."""
    with open(os.path.join(ROOT, "testdata", "demo-truth.json")) as f:
        truth = json.load(f)
    by_file = {os.path.basename(p): r for p, r in results.items()}
    bad = []
    opts = oracle_phases.default_options()
    for t in truth["ranks"]:
        o = by_file.get(t["file"])
        if o is None:
            bad.append("%s: no oracle result" % t["file"])
            continue
        want, got = {}, {}
        for p in t["phases"]:
            if p["cat"] == "user_annotation":
                n = oracle_phases.phase_name(p["name"], opts)
                c, s = want.get(n, (0, 0))
                want[n] = (c + p["count"], s + p["total_ns"])
        for row in o["phases"]:
            c, s = got.get(row["name"], (0, 0))
            got[row["name"]] = (c + row["count"], s + row["total_ns"])
        if want != got:
            bad.append("%s: phases (count, total_ns) by name: truth %s, oracle %s" % (
                t["file"], show(want, 400), show(got, 400)))
        for k in ("pattern", "durations_ns"):
            if o["steps"][k] != t["steps"][k]:
                bad.append("%s: steps.%s: truth %s, oracle %s" % (
                    t["file"], k, show(t["steps"][k]), show(o["steps"][k])))
        # Every demo kernel is launched inside one of the three top regions.
        roots_gpu = sum(r["gpu_ns"] for r in o["phases"] if r["depth"] == 0)
        if roots_gpu != t["gpu"]["kernel_time_ns"]:
            bad.append("%s: gpu_ns of the top phases %d, truth kernel_time_ns %d" % (
                t["file"], roots_gpu, t["gpu"]["kernel_time_ns"]))
        for k in ("frames", "blocks", "wall_ns"):
            if o["throughput"][k] != t["throughput"][k]:
                bad.append("%s: throughput.%s: truth %s, oracle %s" % (
                    t["file"], k, t["throughput"][k], o["throughput"][k]))
    return bad


def main():
    t0 = time.time()
    todo = runs()
    per_file = {}
    for args, path in todo:
        per_file.setdefault(path, []).append(args)
    files = sorted(per_file, key=lambda p: -os.path.getsize(p))  # big ones first
    workers = os.cpu_count() or 2
    with ProcessPoolExecutor(max_workers=workers) as procs:
        futs = {p: procs.submit(oracle_file, p, per_file[p]) for p in files}
        with ThreadPoolExecutor(max_workers=workers) as threads:
            reps = list(threads.map(lambda a: run_vanalyze(a[0], a[1][1], a[1][0]),
                                    enumerate(todo)))
        orc = {p: dict(zip(map(json.dumps, per_file[p]), futs[p].result())) for p in files}
    bad = 0
    for (args, path), (rank, problems, err) in zip(todo, reps):
        name = "%s %s" % (" ".join(args), os.path.basename(path))
        o = orc[path][json.dumps(args)]
        lines = ["%s: %s" % (name, p) for p in problems]
        if rank is not None:
            out = []
            for key in ("phases", "steps", "throughput"):
                compare(out, key, rank.get(key, "<missing>"), o[key])
            lines += ["%s: %s: vanalyze %s, oracle %s" % (name, w, show(a), show(b))
                      for w, a, b in out[:30]]
            if len(out) > 30:
                lines.append("%s: ... %d more" % (name, len(out) - 30))
        if lines:
            bad += 1
            for line in lines:
                print("mismatch " + line)
            for line in err.strip().splitlines()[-5:]:
                print("    stderr: " + line)
    truth = truth_check({p: orc[p][json.dumps(["--frames", "81"])] for p in DEMO})
    for line in truth:
        print("oracle vs generator truth: " + line)
    print("%d runs over %d files, %d with mismatches, %.1fs" % (
        len(todo), len(files), bad, time.time() - t0))
    return 1 if bad or truth else 0


if __name__ == "__main__":
    sys.exit(main())
PYEOF

python3 phases_check.py
rc=$?
[ "$rc" -eq 0 ] || die "vanalyze and tests/oracle_phases.py disagree (lines above)"
