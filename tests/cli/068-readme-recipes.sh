#!/usr/bin/env bash
# plain build only: python3 loads libvtrace.so with ctypes, which a sanitizer build cannot.
# The README's two recording recipes, run as written, give the figures of
# the work they record: the torch.profiler one (its blocks are the video's
# chunks of frames, not transformer layers) and the collector one (block_size
# once per block and video).  The python blocks are taken from README.md
# itself; the names they leave to the reader (prompts, timesteps, the
# model) are defined here, and torch.profiler is replaced by a small
# recorder of record_function spans in Kineto's shape (torch is not
# installed where the tests run).  Frames and blocks are counted here from
# the program's own data, wall times from the recorded spans.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
command -v python3 >/dev/null || skip "no python3"
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

python3 - "$VT_ROOT/README.md" <<'PY' || die "README.md: the recipes are not where expected"
import re, sys
blocks = re.findall(r"^```python\n(.*?)^```", open(sys.argv[1], encoding="utf-8").read(),
                    re.S | re.M)
torch = [b for b in blocks if "torch.profiler" in b]
coll = [b for b in blocks if "import vtrace" in b]
assert len(torch) == 1 and len(coll) == 1, "python blocks: %d torch, %d vtrace" % (
    len(torch), len(coll))
open("torch_recipe.py", "w").write(torch[0])
open("vtrace_recipe.py", "w").write(coll[0])
PY

# A stand-in for torch.profiler: record_function spans, written by the
# trace handler as Kineto writes them (cat user_annotation, microseconds).
mkdir -p fake/torch
cat >fake/torch/__init__.py <<'PY'
from . import distributed, profiler
PY
cat >fake/torch/distributed.py <<'PY'
def is_initialized():
    return False
PY
cat >fake/torch/profiler.py <<'PY'
import enum, gzip, json, os, threading, time

_spans = []

class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1

class record_function:
    def __init__(self, name):
        self.name = name
    def __enter__(self):
        self.t0 = time.perf_counter_ns()
        return self
    def __exit__(self, *exc):
        t1 = time.perf_counter_ns()
        _spans.append({"ph": "X", "cat": "user_annotation", "name": self.name, "pid": os.getpid(),
                       "tid": threading.get_native_id(), "ts": self.t0 / 1e3,
                       "dur": (t1 - self.t0) / 1e3})

def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        path = os.path.join(dir_name, "%s.%d.pt.trace.json%s" % (
            worker_name, time.time_ns(), ".gz" if use_gzip else ""))
        doc = {"schemaVersion": 1, "traceEvents": list(_spans)}
        with (gzip.open if use_gzip else open)(path, "wt") as f:
            json.dump(doc, f)
    return handler

class profile:
    def __init__(self, activities=None, record_shapes=False, on_trace_ready=None, **kw):
        self.ready = on_trace_ready
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        if self.ready:
            self.ready(self)
PY

# run_recipe FILE: FILE run with the names it leaves to the reader: 2
# prompts, 3 timesteps, CHUNKS chunks of latents (the video's blocks) and
# 8 transformer layers under the names a pipeline gives them.
cat >run_recipe.py <<'PY'
import sys, time
sys.path[:0] = ["fake", sys.argv[2]]
chunks = int(sys.argv[3])

def transformer(x, cond, t):
    time.sleep(0.0003)
    return x

class Vae:
    def decode(self, latents):
        time.sleep(0.002)
        return latents

ns = {"prompts": ["a cat", "a dog"], "timesteps": [999, 500, 1], "latents": [0] * chunks,
      "transformer": transformer, "blocks": [transformer] * 8, "encode": lambda p: p,
      "vae": Vae()}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
if "vtrace" in ns:
    ns["vtrace"].shutdown()
PY

# The oracle: GENS generations, each CHUNKS blocks and FRAMES frames; a
# generation's wall time runs from its first root span to its last.
cat >oracle.py <<'PY'
import gzip, json, sys
report, trace, roots_per_gen, chunks, frames = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5])
op = gzip.open if trace.endswith(".gz") else open
with op(trace, "rt", encoding="utf-8") as f:
    ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
def inside(a, b):
    return a is not b and b["ts"] <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"]
roots = sorted((e for e in ev if not any(inside(e, o) for o in ev)), key=lambda e: e["ts"])
gens = [roots[i:i + roots_per_gen] for i in range(0, len(roots), roots_per_gen)]
tp = json.load(open(report))["ranks"][0]["throughput"]
assert len(tp["generations"]) == len(gens) == 2, "generations %d, want %d" % (
    len(tp["generations"]), len(gens))
for g, rs in zip(tp["generations"], gens):
    wall = (rs[-1]["ts"] + rs[-1]["dur"] - rs[0]["ts"]) / 1e6
    assert g["blocks"] == chunks, "blocks %r, the video has %d" % (g["blocks"], chunks)
    assert g["frames"] == frames, "frames %r, the video has %d" % (g["frames"], frames)
    for key, n in (("bps", chunks), ("fps", frames)):
        want = n / wall
        assert abs(g[key] - want) <= 1e-3 * want, "%s %r, want %r" % (key, g[key], want)
PY

# torch.profiler: 4 chunks; vanalyze --frames 81 as the README says.
python3 run_recipe.py torch_recipe.py "$VT_ROOT/collector/python" 4 >torch.out 2>torch.err ||
	die "the torch.profiler recipe does not run: $(tail -n 3 torch.err)"
set -- traces/rank0.*.pt.trace.json.gz
[ -f "$1" ] || die "the torch.profiler recipe wrote no traces/rank0.*.pt.trace.json.gz"
va torch --frames 81 --json torch.json traces/
expect_rc torch 0
python3 oracle.py torch.json "$1" 3 4 81 || die "the torch.profiler recipe's figures are wrong"

# The collector: 6 chunks of block_size 16, so 96 frames a video.
VTRACE_LIB=$VT_BUILD/libvtrace.so VTRACE_DIR=$PWD/vtr VTRACE_NAME=recipe \
	python3 run_recipe.py vtrace_recipe.py "$VT_ROOT/collector/python" 6 >vtrace.out 2>vtrace.err ||
	die "the collector recipe does not run: $(tail -n 3 vtrace.err)"
[ -s vtrace.err ] && die "the collector recipe wrote to stderr: $(cat vtrace.err)"
[ -f vtr/recipe-rank0.vtr ] || die "the collector recipe wrote no vtr/recipe-rank0.vtr"
"$VT_BUILD/vtrace-export" vtr/recipe-rank0.vtr -o recipe.json 2>export.err ||
	die "vtrace-export failed: $(cat export.err)"
va vtrace --json vtrace.json vtr/recipe-rank0.vtr
expect_rc vtrace 0
python3 oracle.py vtrace.json recipe.json 1 6 96 || die "the collector recipe's figures are wrong"
exit 0
