#!/usr/bin/env bash
# gentrace writes strict JSON, and its truth file says what an independent
# python3 reading of the traces finds: event counts by ph and cat, span_ns,
# kernel time per category, phases, steps, blocks, wall time, memory peaks.
# Timestamps go through decimal.Decimal, so 16-digit microseconds stay exact.
set -eu

: "${VT_BUILD:?VT_BUILD must name the build directory}"
: "${VT_ROOT:?VT_ROOT must name the repository root}"
gen=$VT_BUILD/gentrace
if [ ! -x "$gen" ]; then
	echo "skip: $gen not built"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "skip: python3 not installed"
	exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/vt050.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# Two ranks with everything switched on: a straggler, a slow phase, warm-up.
"$gen" --ranks 2 --steps 3 --blocks 2 --seed 7 --jitter 0.1 --straggler 1=1.3 \
	--slow-phase denoising=1.15 --warmup 2 -o "$dir/t"
# Same again, plain text, to compare with the gzipped bytes.
"$gen" --ranks 2 --steps 3 --blocks 2 --seed 7 --jitter 0.1 --straggler 1=1.3 \
	--slow-phase denoising=1.15 --warmup 2 --plain -o "$dir/p"
# --size: each rank at least that many bytes of text.
"$gen" --ranks 2 --size 300K --blocks 2 --seed 3 -o "$dir/s"
# --no-wait: ranks run independently, the straggler's steps are longer.
"$gen" --ranks 2 --steps 3 --blocks 2 --straggler 1=1.3 --no-wait -o "$dir/n"
# Several generations, in both loop orders.
"$gen" --ranks 2 --steps 3 --blocks 4 --generations 3 --loop steps-outer -o "$dir/so"
"$gen" --ranks 2 --steps 3 --blocks 4 --generations 3 --loop blocks-outer -o "$dir/bo"

python3 - "$dir" <<'EOF'
import gzip, json, os, sys
from decimal import Decimal

d = sys.argv[1]
fails = []

def check(cond, msg):
    if not cond:
        fails.append(msg)

def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in %r" % keys)
    return dict(pairs)

def bad_constant(name):
    raise ValueError("non-JSON constant " + name)

def load(path):
    raw = open(path, "rb").read()
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    obj = json.loads(text.decode("utf-8"), object_pairs_hook=no_dups,
                     parse_float=Decimal, parse_constant=bad_constant)
    return obj, len(text), len(raw)

def ns(v):
    x = Decimal(v) * 1000
    check(x == x.to_integral_value(), "time %s is not whole ns" % v)
    return int(x)

RULES = [
    ("comm", ["nccl", "rccl", "all_reduce", "allgather", "reduce_scatter", "sendrecv", "alltoall"]),
    ("attention", ["flash", "fmha", "attention", "sdpa"]),
    ("gemm", ["gemm", "gemv", "matmul", "cutlass", "cublas", "wgmma", "sm90_xmma"]),
    ("conv", ["conv"]),
    ("norm", ["layer_norm", "rms_norm", "group_norm"]),
    ("elementwise", ["elementwise", "catarraybatchedcopy"]),  # as analyzer/kcat.c
    ("reduce", ["reduce"]),
]

def category(name):
    low = name.lower()
    for cat, words in RULES:
        if any(w in low for w in words):
            return cat
    return "other"

def union(ivs):
    total, cs, ce = 0, None, None
    for s, e in sorted(ivs):
        if ce is None or s > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return total + (ce - cs if ce is not None else 0)

def verify(prefix, truth_path=None, files=None):
    truth = json.load(open(truth_path or os.path.join(d, prefix + "-truth.json")))
    for rt in truth["ranks"]:
        where = "%s rank %d" % (prefix, rt["rank"])
        obj, text_len, file_len = load(os.path.join(files or d, rt["file"]))
        check(text_len == rt["text_bytes"], where + ": text_bytes")
        check(file_len == rt["file_bytes"], where + ": file_bytes")
        check(obj["distributedInfo"]["rank"] == rt["rank"], where + ": distributedInfo.rank")
        check(obj["distributedInfo"]["world_size"] == truth["world_size"], where + ": world_size")
        evs = obj["traceEvents"]
        by_ph, by_cat, no_cat = {}, {}, 0
        lo, hi = None, None
        kcat = {}
        phases = {}
        steps = []
        blocks = 0
        block_spans = []  # (ts, end, name)
        regions = []      # (ts, end, name)
        wall_lo, wall_hi = None, None
        ivs = {"compute": [], "comm": [], "memory": []}
        peaks = {}
        launches, gpu_corr, flows = {}, [], {"s": set(), "f": set()}
        for e in evs:
            ph = e.get("ph")
            by_ph[ph] = by_ph.get(ph, 0) + 1
            if "cat" in e:
                by_cat[e["cat"]] = by_cat.get(e["cat"], 0) + 1
            else:
                no_cat += 1
            if ph == "M":
                continue
            ts = ns(e["ts"])
            end = ts + (ns(e["dur"]) if "dur" in e else 0)
            lo = ts if lo is None else min(lo, ts)
            hi = end if hi is None else max(hi, end)
            cat, name = e.get("cat"), e.get("name")
            if cat == "kernel":
                c = category(name)
                n, t = kcat.get(c, (0, 0))
                kcat[c] = (n + 1, t + end - ts)
                ivs["comm" if c == "comm" else "compute"].append((ts, end))
                gpu_corr.append(e["args"]["correlation"])
            elif cat in ("gpu_memcpy", "gpu_memset"):
                ivs["memory"].append((ts, end))
                gpu_corr.append(e["args"]["correlation"])
            elif cat == "cuda_runtime":
                launches[e["args"]["correlation"]] = ts
            elif cat in ("user_annotation", "gpu_user_annotation"):
                key = (name, cat)
                n, t = phases.get(key, (0, 0))
                phases[key] = (n + 1, t + end - ts)
                if cat == "user_annotation":
                    if name.startswith("ProfilerStep#"):
                        steps.append(end - ts)
                    if name.startswith("block_"):
                        blocks += 1
                        block_spans.append((ts, end, name))
                    if name.startswith("fastvideo.region::"):
                        regions.append((ts, end, name))
                        wall_lo = ts if wall_lo is None else min(wall_lo, ts)
                        wall_hi = end if wall_hi is None else max(wall_hi, end)
            elif cat == "ac2g":
                flows[ph].add(e["id"])
            elif name == "[memory]":
                a = e["args"]
                p = peaks.setdefault(a["Device Id"], [0, 0])
                p[0] = max(p[0], a["Total Allocated"])
                p[1] = max(p[1], a["Total Reserved"])
        ev = rt["events"]
        check(len(evs) == ev["total"], where + ": total %d != %d" % (len(evs), ev["total"]))
        check(by_ph == ev["by_ph"], where + ": by_ph %r != %r" % (by_ph, ev["by_ph"]))
        check(by_cat == ev["by_cat"], where + ": by_cat %r != %r" % (by_cat, ev["by_cat"]))
        check(no_cat == ev["no_cat"], where + ": no_cat")
        check(hi - lo == rt["span_ns"], where + ": span_ns %d != %d" % (hi - lo, rt["span_ns"]))
        check(lo == rt["first_ts_ns"] and hi == rt["last_end_ns"], where + ": span ends")
        g = rt["gpu"]
        want = {c: (v["count"], v["total_ns"]) for c, v in g["by_category"].items()}
        check(kcat == want, where + ": kernels by category %r != %r" % (kcat, want))
        check(sum(n for n, _ in kcat.values()) == g["kernels"], where + ": kernels")
        check(sum(t for _, t in kcat.values()) == g["kernel_time_ns"], where + ": kernel_time_ns")
        every = ivs["compute"] + ivs["comm"] + ivs["memory"]
        check(union(every) == g["busy_ns"], where + ": busy_ns")
        check(max(e for _, e in every) - min(s for s, _ in every) == g["active_span_ns"],
              where + ": active_span_ns")
        comm, comp = union(ivs["comm"]), union(ivs["compute"])
        check(comm == g["comm_ns"], where + ": comm_ns")
        check(comp == g["compute_ns"], where + ": compute_ns")
        check(union(ivs["memory"]) == g["memory_ns"], where + ": memory_ns")
        check(comm + comp - union(ivs["comm"] + ivs["compute"]) == g["comm_compute_overlap_ns"],
              where + ": comm_compute_overlap_ns")
        want = {(p["name"], p["cat"]): (p["count"], p["total_ns"]) for p in rt["phases"]}
        check(phases == want, where + ": phases differ")
        check(steps == rt["steps"]["durations_ns"], where + ": step durations")
        check(len(steps) == rt["steps"]["count"], where + ": step count")
        check(blocks == rt["throughput"]["block_spans"], where + ": block spans")
        # Generations: each starts with its pre-denoising region and ends
        # with its post-denoising one; a block completes when its last span
        # (of its name, in its generation) ends.
        starts = sorted(t for t, _, n in regions if n.endswith("pre_denoising"))
        def gen_of(t):
            return max(i for i, s0 in enumerate(starts) if s0 <= t)
        ext = {}
        for t0, t1, _ in regions:
            g = gen_of(t0)
            a, b = ext.get(g, (t0, t1))
            ext[g] = (min(a, t0), max(b, t1))
        done = {}
        for t0, t1, n in block_spans:
            k = (gen_of(t0), n)
            done[k] = max(done.get(k, t1), t1)
        gens = []
        for g in range(len(starts)):
            comp = sorted(v for (gg, _), v in done.items() if gg == g)
            gens.append({"start_ns": ext[g][0] - lo, "wall_ns": ext[g][1] - ext[g][0],
                         "blocks": len(comp),
                         "block_completions_ns": [c - ext[g][0] for c in comp]})
        want = [{k: x[k] for k in ("start_ns", "wall_ns", "blocks", "block_completions_ns")}
                for x in rt["generations"]]
        check(gens == want, where + ": generations %r != %r" % (gens, want))
        for x in rt["generations"]:
            c = x["block_completions_ns"]
            gaps = sorted(b - a for a, b in zip(c, c[1:]))
            want = ({"median_ns": gaps[(len(gaps) - 1) // 2],
                     "p90_ns": gaps[-(-9 * len(gaps) // 10) - 1], "max_ns": gaps[-1]}
                    if gaps else None)
            check(x["cadence"] == want, where + ": cadence")
            check(x["first_block_ns"] == (c[0] if c else None), where + ": first block")
        check(sum(x["blocks"] for x in rt["generations"]) == rt["throughput"]["blocks"],
              where + ": blocks")
        check(wall_hi - wall_lo == rt["throughput"]["wall_ns"], where + ": wall_ns")
        want = {m["device"]: [m["peak_allocated"], m["peak_reserved"]] for m in rt["memory"]}
        check(peaks == want, where + ": memory peaks %r != %r" % (peaks, want))
        # Every GPU event has its launch, launched before it, and both flow ends.
        check(all(c in launches for c in gpu_corr), where + ": GPU event without launch")
        check(flows["s"] == flows["f"] == set(gpu_corr), where + ": flows do not pair up")
    return truth

t = verify("t")
p = verify("p")
s = verify("s")
n = verify("n")
so = verify("so")
bo = verify("bo")
# The committed demo set agrees with its truth file too.
root = os.environ["VT_ROOT"]
demo = verify("demo", os.path.join(root, "testdata/demo-truth.json"),
              os.path.join(root, "testdata/demo"))
check(len(demo["ranks"]) == 4, "demo: want 4 ranks")

# gzip and --plain carry the same text; the truth differs only in file names and sizes.
def strip(tr):
    for r in tr["ranks"]:
        for k in ("file", "file_bytes"):
            r.pop(k)
    tr.pop("args")
    return tr
check(strip(t) == strip(p), "gzipped and plain runs differ")
check(open(os.path.join(d, "t-rank0.trace.json.gz"), "rb").read(2) == b"\x1f\x8b", "not gzip")

# The straggler computes slower and so spends the least time waiting in collectives.
r0, r1 = t["ranks"]
check(r1["gpu"]["kernel_time_ns"] > r0["gpu"]["kernel_time_ns"], "straggler not slower")
check(r1["gpu"]["comm_ns"] < 0.7 * r0["gpu"]["comm_ns"], "straggler's comm not lowest")

def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
n0, n1 = (median(r["steps"]["durations_ns"]) for r in n["ranks"])
check(n1 > 1.15 * n0, "--no-wait: straggler's steps not longer (%d vs %d)" % (n1, n0))
check(median(r1["steps"]["durations_ns"]) < 1.1 * median(r0["steps"]["durations_ns"]),
      "waiting ranks should keep step times together")

for r in s["ranks"]:
    check(r["text_bytes"] >= 300 * 1024, "--size: rank %d too small" % r["rank"])
check(s["ranks"][0]["steps"]["count"] == s["ranks"][1]["steps"]["count"], "--size: steps differ")

if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("ok: truth matches for", sum(len(x["ranks"]) for x in (t, p, s, n, so, bo, demo)), "files")
EOF

# The demo set is what the command in testdata/README.md makes.  Compare the
# JSON text, not the gzip bytes, which may differ between zlib versions.
mkdir "$dir/demo"
"$gen" --ranks 4 --steps 4 --blocks 3 --straggler 2=1.3 --shapes --level 9 -o "$dir/demo/fastvideo" \
	--truth "$dir/demo-truth.json"
for r in 0 1 2 3; do
	f=fastvideo-rank$r.trace.json.gz
	if ! cmp -s <(gzip -dc "$dir/demo/$f") <(gzip -dc "$VT_ROOT/testdata/demo/$f"); then
		echo "testdata/demo/$f is not what gentrace makes now;"
		echo "regenerate it with the command in testdata/README.md"
		exit 1
	fi
done
diff -u <(grep -v '"file_bytes"' "$VT_ROOT/testdata/demo-truth.json") \
	<(grep -v '"file_bytes"' "$dir/demo-truth.json") || {
	echo "testdata/demo-truth.json is out of date: see testdata/README.md"
	exit 1
}

# Same seed, same bytes: the generator is deterministic.
mkdir "$dir/again"
"$gen" --ranks 2 --steps 3 --blocks 2 --seed 7 --jitter 0.1 --straggler 1=1.3 \
	--slow-phase denoising=1.15 --warmup 2 --plain -o "$dir/again/p"
cmp "$dir/p-rank0.trace.json" "$dir/again/p-rank0.trace.json"
cmp "$dir/p-rank1.trace.json" "$dir/again/p-rank1.trace.json"
cmp "$dir/p-truth.json" "$dir/again/p-truth.json"

# Bad usage exits 2 with a hint.
rc=0
"$gen" --ranks 2 --straggler 5=1.2 -o "$dir/x" 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] || { echo "bad --straggler: exit $rc, want 2"; exit 1; }
grep -q "try 'gentrace --help'" "$dir/err" || { echo "no usage hint"; cat "$dir/err"; exit 1; }
