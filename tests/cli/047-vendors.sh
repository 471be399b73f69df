#!/usr/bin/env bash
# Every vendor's and PyTorch version's trace, against independent
# python3 computations:
#  1. one trace per recogniser: device.vendor and device.source; gpu figures
#     and memory rows as tests/oracle_analyses.py computes them (2021 memory
#     peaks by running sum of Bytes); ProfilerStep#N spans of any cat but
#     gpu_user_annotation (count and durations, computed here); and the
#     figures the issue names, as numbers: kernels, busy, HCCL and hccl:*
#     communication, host syncs.
#  2. a trace without device activity: the warning names what was found, and
#     the device figures are null.
#  3. negative durations: one warning with the count and the first byte
#     offset, and the events take no part in span or kernel time.
#  4. the bar: no public trace with device events reports 0 kernels; those
#     without any have the warning.
#  5. testdata/kernel-categories.tsv: every name occurs in the trace it cites.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

cat >vendors_check.py <<'PYEOF'
import decimal, glob, gzip, json, os, re, subprocess, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
import oracle  # noqa: E402  (reading: load, to_ns)
import oracle_analyses as oa  # noqa: E402
from vtcheck import cached, run_vanalyze, same, show  # noqa: E402

PUB = os.path.join(os.environ["VT_SHARED"], "traces", "public")
HTA = PUB + "/facebookresearch__HolisticTraceAnalysis/"
TL = PUB + "/AMD-AGI__TraceLens/"
fails = []


def fail(what):
    fails.append(what)
    print("FAIL " + what)


def one(pattern):
    found = glob.glob(os.path.join(PUB, pattern))
    if len(found) != 1:
        fail("%s matches %d files" % (pattern, len(found)))
        return None
    return found[0]


def profiler_steps(events):
    """ProfilerStep#N spans, ph X, any cat but gpu_user_annotation: durations by start."""
    spans = []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or ev.get("ph") != "X":
            continue
        name, cat = ev.get("name"), ev.get("cat")
        if not isinstance(name, str) or not re.fullmatch(r"ProfilerStep#[0-9]+", name):
            continue
        if cat == "gpu_user_annotation":
            continue
        ts, dur = oracle.to_ns(ev.get("ts")), oracle.to_ns(ev.get("dur"))
        if ts is not None and dur is not None and dur >= 0:
            spans.append((ts, i, dur))
    return [d for _, _, d in sorted(spans)]


# (file pattern, vendor, source, facts the issue states: key -> predicate)
CASES = [
    ("pytorch__kineto/at-be239c04__*", "nvidia", "kineto-2021",
     {"kernels": 8772, "steps": 6}),
    ("pytorch__kineto/at-02522842__*", "nvidia", "kineto-2021", {}),
    ("Ascend__msinsight/*level0*", "ascend", "torch_npu", {"steps": 1}),
    ("xiaobingling93-pixel__Ascend-mstt/*", "ascend", "torch_npu", {"steps": 1}),
    ("facebookresearch__HolisticTraceAnalysis/*mtia_trace_single_rank*", "mtia", "kineto-mtia", {}),
    ("facebookresearch__HolisticTraceAnalysis/*mtia_inference*", "mtia", "kineto-mtia", {}),
    ("AMD-AGI__TraceLens/*h100__Qwen*", "nvidia", "kineto", {}),
    ("AMD-AGI__TraceLens/*mi300__gaunernst*", "amd", "kineto", {}),
    ("AMD-AGI__TraceLens/*b200__eager*", "nvidia", "kineto", {}),
]

for k, (pattern, vendor, source, facts) in enumerate(CASES):
    path = one(pattern)
    if not path:
        continue
    name = os.path.basename(path)[:60]
    rank, problems, err = run_vanalyze(k, path)
    for p in problems:
        fail("%s: %s" % (name, p))
    if rank is None:
        continue
    orc = cached("analyses", path, None, oa.analyze, path)  # 040's too
    dev = rank.get("device", {})
    if dev.get("vendor") != vendor or dev.get("source") != source:
        fail("%s: device %s, want %s/%s" % (name, show(dev), vendor, source))
    for f, b in orc["gpu"].items():
        if not same(rank["gpu"].get(f, "<missing>"), b):
            fail("%s: gpu.%s: vanalyze %s, oracle %s" % (name, f, show(rank["gpu"].get(f)), show(b)))
    if len(rank["memory"]) != len(orc["memory"]):
        fail("%s: %d memory rows, oracle %d" % (name, len(rank["memory"]), len(orc["memory"])))
    for r, o in zip(rank["memory"], orc["memory"]):
        for f, b in o.items():
            if not same(r.get(f, "<missing>"), b):
                fail("%s: memory device %s %s: vanalyze %s, oracle %s"
                     % (name, o["device"], f, show(r.get(f)), show(b)))
    steps = cached("profiler-steps", path, None, lambda p: profiler_steps(oracle.load(p)[1]), path)
    if rank["steps"]["durations_ns"] != steps:
        fail("%s: steps %s, oracle %s" % (name, show(rank["steps"]["durations_ns"]), show(steps)))
    if steps and rank["steps"]["pattern"] != "ProfilerStep#*":
        fail("%s: step pattern %s" % (name, rank["steps"]["pattern"]))
    if not (isinstance(rank["gpu"]["kernels"], int) and rank["gpu"]["kernels"] > 0):
        fail("%s: %s kernels" % (name, rank["gpu"]["kernels"]))
    if "kernels" in facts and rank["gpu"]["kernels"] != facts["kernels"]:
        fail("%s: %s kernels, the issue counts %d" % (name, rank["gpu"]["kernels"], facts["kernels"]))
    if "steps" in facts and len(steps) != facts["steps"]:
        fail("%s: %d steps, the issue counts %d" % (name, len(steps), facts["steps"]))
    if any("no GPU or NPU activity" in w for w in rank["warnings"]):
        fail("%s: warns of no device activity" % name)
    g = rank["gpu"]
    print("%s: %s/%s kernels %s busy %s comm %s (%s) host_sync %s x%s steps %d mem %s" % (
        name, dev.get("vendor"), dev.get("source"), g["kernels"], g["busy_ns"], g["comm_ns"],
        g["comm_source"], g["host_sync_ns"], g["host_sync_count"], len(steps),
        [(m["device"], m["peak_allocated"]) for m in rank["memory"]]))

# ---- the figures the issue measured, in the units it gave
def rank_of(k):
    with open("out-%d.json" % k) as f:
        return json.load(f)["ranks"][0]

r = rank_of(0)  # 2021 resnet50: Bytes-only memory, peaks are lower bounds
if not any(m.get("allocated_lower_bound") and m["peak_allocated"] > 0 for m in r["memory"]):
    fail("2021 resnet50: no memory peak from the running sum of Bytes")
r = rank_of(2)  # Ascend msinsight: about 86 ms of HCCL all-reduce in its one step
if not (80e6 < r["gpu"]["comm_ns"] < 90e6 and r["gpu"]["comm_source"] == "gpu"):
    fail("Ascend msinsight: HCCL comm %s ns, the issue measured about 86 ms" % r["gpu"]["comm_ns"])
r = rank_of(4)  # MTIA: 7.7 s of device time, 2.5 s of hccl all-to-all
if not (7.6e9 < r["gpu"]["busy_ns"] < 7.8e9 and 2.4e9 < r["gpu"]["comm_ns"] < 2.6e9):
    fail("MTIA: busy %s, comm %s; the issue measured 7.7 s and 2.5 s"
         % (r["gpu"]["busy_ns"], r["gpu"]["comm_ns"]))
r = rank_of(6)  # Qwen H100: cudaDeviceSynchronize and friends, counted and suggested
if not (r["gpu"]["host_sync_count"] > 0 and r["gpu"]["host_sync_ns"] > 0):
    fail("Qwen: no host syncs counted")
with open("out-6.json") as f:
    sugg = json.load(f)["suggestions"]
share = r["gpu"]["host_sync_ns"] / r["span_ns"]
print("Qwen host sync share of span: %.4f" % share)
idle = r["idle"]
if any(s["id"] == "host-sync" for s in sugg) or \
        any(s["id"] == "idle-sync" for s in sugg) != (idle["by_cause"]["sync"] > 0.05 * idle["window_ns"]):
    fail("Qwen: the sync finding does not follow the device idle time syncs caused: %s"
         % [s["id"] for s in sugg])

# ---- 2. no device activity: warning and nulls
path = HTA + "tests__data__rank_non_gpu__rank_non_gpu.json.gz"
rank, problems, err = run_vanalyze(100, path)
for p in problems:
    fail("rank_non_gpu: " + p)
if rank:
    w = [w for w in rank["warnings"] if "no GPU or NPU activity recognised" in w]
    if len(w) != 1 or "cpu_op 2424" not in w[0] or "host-side only" not in w[0]:
        fail("rank_non_gpu: warnings %s" % show(rank["warnings"]))
    for f in ("kernels", "kernel_time_ns", "busy_ns", "active_span_ns", "idle_ns",
              "utilization", "compute_ns", "memory_ns"):
        if rank["gpu"][f] is not None:
            fail("rank_non_gpu: gpu.%s is %s, not null" % (f, show(rank["gpu"][f])))
    if rank["device"] != {"vendor": None, "source": None}:
        fail("rank_non_gpu: device %s" % show(rank["device"]))
    if "no GPU or NPU activity recognised" not in err:
        fail("rank_non_gpu: no warning on stderr")

# ---- 3. negative durations
lines = [b'{"traceEvents": [',
         b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":10},',
         b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":50,"dur":-20},',
         b'{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":90,"dur":40},',
         b'{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":300,"dur":-5.5}',
         b']}\n']
text = b"\n".join(lines)
with open("negative.json", "wb") as f:
    f.write(text)
first = text.index(lines[2])
rank, problems, err = run_vanalyze(101, "negative.json")
for p in problems:
    fail("negative: " + p)
if rank:
    want = "byte %d: 2 events with a negative dur" % first
    if not any(w.startswith(want) for w in rank["warnings"]):
        fail("negative: warnings %s, want one starting %r" % (show(rank["warnings"]), want))
    if rank["gpu"]["kernels"] != 1 or rank["gpu"]["kernel_time_ns"] != 10000:
        fail("negative: gpu %s" % show(rank["gpu"]))
    if rank["span_ns"] != 130000 - 90000:
        fail("negative: span %s, want 40000" % rank["span_ns"])

# ---- 4. the bar, over every public trace
def has_device_events(events):
    """Device work by the trace's own words: a kernel/copy cat of any spelling,
    MTIA's device cat, or an Ascend Hardware process."""
    hw = set()
    for ev in events:
        if isinstance(ev, dict) and ev.get("ph") == "M" and ev.get("name") == "process_name":
            a = ev.get("args")
            if isinstance(a, dict) and a.get("name") == "Ascend Hardware":
                hw.add(json.dumps(ev.get("pid"), default=str))
    for ev in events:
        if not isinstance(ev, dict) or ev.get("ph") == "M":
            continue
        cat = ev.get("cat")
        if isinstance(cat, str) and cat.lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy",
                                                  "memset", "mtia_ccp_events"):
            return True
        if "cat" not in ev and json.dumps(ev.get("pid"), default=str) in hw:
            return True
    return False

files = sorted(glob.glob(PUB + "/*/*.json.gz"))
n_dev = 0
for k, path in enumerate(files):
    name = os.path.basename(path)[:60]
    rank, problems, err = run_vanalyze(200 + k, path)
    for p in problems:
        fail("%s: %s" % (name, p))
    if rank is None:
        continue
    warned = any("no GPU or NPU activity recognised" in w for w in rank["warnings"])
    if cached("device-events", path, None, lambda p: has_device_events(oracle.load(p)[1]), path):
        n_dev += 1
        if not (isinstance(rank["gpu"]["kernels"], int) and rank["gpu"]["kernels"] > 0) or warned:
            fail("%s has device events; vanalyze: %s kernels%s" % (
                name, rank["gpu"]["kernels"], ", and warns" if warned else ""))
    elif not warned or rank["gpu"]["kernels"] is not None:
        fail("%s has no device events; vanalyze: %s kernels, warned %s" % (
            name, rank["gpu"]["kernels"], warned))
print("%d public traces, %d with device events" % (len(files), n_dev))

# ---- 5. the corpus cites real names
cited = {}
with open(os.path.join(os.environ["VT_ROOT"], "testdata", "kernel-categories.tsv")) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        want, src, kname = line.rstrip("\n").split("\t")
        cited.setdefault(src, set()).add(kname)
for src, names in sorted(cited.items()):
    seen = cached("names", os.path.join(PUB, src), None,
                  lambda p: {ev.get("name") for ev in oracle.load(p)[1] if isinstance(ev, dict)},
                  os.path.join(PUB, src))
    for n in sorted(names - seen):
        fail("corpus: %s is not a name in %s" % (n[:80], src))
print("corpus: %d names from %d traces" % (sum(len(v) for v in cited.values()), len(cited)))

sys.exit(1 if fails else 0)
PYEOF

python3 vendors_check.py || die "vendor checks failed (lines above)"
