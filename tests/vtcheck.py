"""The python side of the CLI tests: one module for what they share.

As a program (lib.sh's pycheck): vanalyze's reports against the
independent reference in tests/oracle.py, and assertions on reports:

    vtcheck.py each FILE...                 vanalyze on each file vs the oracle
    vtcheck.py compare [--subset] REPORT FILE...
    vtcheck.py compare1 REPORT FILE [REPORT FILE]...
    vtcheck.py assert REPORT EXPR WHAT...   each python EXPR holds (r: the report)
    vtcheck.py get REPORT EXPR              print EXPR
    vtcheck.py same A B                     the JSON files hold equal values
    vtcheck.py collectives REPORT FILE...   tests/collectives_oracle.py's check,
    vtcheck.py idle TRACE REPORT            tests/oracle_idle.py's and
    vtcheck.py opsperf TRACE REPORT         tests/oracle_opsperf.py's, with their
                                            reading of each file cached()

As a module (tests put tests/ on sys.path): run_vanalyze() and same() for
the oracle checks written inside a test, cached() for the oracles' results.  VANALYZE, VT_ROOT and ORACLE are
set by tests/cli/lib.sh."""
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
import oracle  # noqa: E402  (tests/oracle.py, the independent reference)

VANALYZE = os.environ["VANALYZE"]
CACHE = os.environ.get("VT_ORACLE_CACHE")
SHARED = os.path.realpath(os.environ.get("VT_SHARED", "/nonexistent"))
FIELDS = ("rank", "source", "events.total", "events.by_ph", "events.by_cat", "span_ns")


def analyze(path, pos):
    """oracle.analyze with a cache (per test run) for the read-only shared traces."""
    real = os.path.realpath(path)
    key = None
    if CACHE and real.startswith(SHARED + os.sep):
        st = os.stat(real)
        okey = os.stat(os.environ["ORACLE"])
        key = os.path.join(CACHE, "%s.%d.%d.%d.json" % (
            real.replace(os.sep, "_"), st.st_size, st.st_mtime_ns, okey.st_mtime_ns))
        if os.path.exists(key):
            with open(key) as f:
                entry, origin = json.load(f)
            if origin == "position":
                entry["rank"] = pos
            return entry, origin
    entry, origin = oracle.analyze(path, pos)
    if key:
        fd, tmp = tempfile.mkstemp(dir=CACHE)
        with os.fdopen(fd, "w") as f:
            json.dump([entry, origin], f)
        os.replace(tmp, key)
    return entry, origin


_stamps = {}


def _code_stamp(fn):
    """The code that computes fn as it is now: every tests/*.py by name,
    size and time, and when fn is the running script's own (a test writes
    its own script), that script's text; so that a cached result never
    outlives an edit of the code that made it."""
    own = getattr(fn, "__module__", None) == "__main__"
    if own not in _stamps:
        tests = os.path.join(os.environ["VT_ROOT"], "tests")
        h = hashlib.sha1()
        for name in sorted(os.listdir(tests)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(tests, name))
                h.update(("%s %d %d\n" % (name, st.st_size, st.st_mtime_ns)).encode())
        main = getattr(sys.modules["__main__"], "__file__", None)
        if own and main and os.path.isfile(main):
            with open(main, "rb") as f:
                h.update(f.read())
        elif own:
            h.update(repr(fn.__code__.co_code).encode())
        _stamps[own] = h.hexdigest()
    return _stamps[own]


def _file_stamp(path):
    """A file by its content (sha1): the same trace written again by a
    deterministic generator in another directory, as each build's run of a
    test does, is the same entry."""
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cached(tag, path, key, fn, *args):
    """fn(*args), an oracle's result for the file at path, cached for the
    test run (VT_ORACLE_CACHE, one directory per tests/run.sh run, so the
    sanitizer build and the other tests reading the same file take the plain
    build's result instead of computing it again).  The key is tag, the
    file's name (the oracles read a rank from it; never its directory) and
    content, the code of fn and key: anything else fn reads
    (options, figures taken from the report under test), as a value repr()
    spells the same each time.  Without VT_ORACLE_CACHE, fn is called."""
    if not CACHE:
        return fn(*args)
    h = hashlib.sha1(repr((tag, os.path.basename(path), _file_stamp(path), _code_stamp(fn),
                           key)).encode("utf-8", "surrogateescape"))
    entry = os.path.join(CACHE, "%s.%s.pickle" % (tag, h.hexdigest()))
    try:
        with open(entry, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        pass
    result = fn(*args)
    fd, tmp = tempfile.mkstemp(dir=CACHE)
    with os.fdopen(fd, "wb") as f:
        pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, entry)
    return result


def oracle_ranks(paths):
    """Like oracle.oracle(): (sorted entries, failures, origins by entry)."""
    done, failures = [], []
    for pos, path in enumerate(paths):
        try:
            entry, origin = analyze(path, len(done))  # unreadable files hold no position
        except (OSError, oracle.NotATrace) as exc:
            failures.append((path, str(exc)))
            continue
        done.append((entry["rank"], pos, entry, origin))
    done.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in done], failures, [t[3] for t in done]


REL = 1e-9


def run_vanalyze(i, path, args=()):
    """vanalyze --quiet --json out-I.json ARGS PATH: (the report's single
    rank or None, a list of problems, stderr as text)."""
    out = "out-%d.json" % i
    p = subprocess.run([os.environ["VANALYZE"], "--quiet", "--json", out] + list(args) + [path],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace")
    rank, problems = None, []
    if p.returncode != 0:
        problems.append("vanalyze exit status %d" % p.returncode)
    if any(s in err for s in ("Sanitizer", "runtime error:")):
        problems.append("sanitizer report")
    try:
        with open(out, "rb") as f:
            rep = json.loads(f.read().decode("utf-8"))
        ranks = rep.get("ranks")
        if isinstance(ranks, list) and len(ranks) == 1 and isinstance(ranks[0], dict):
            rank = ranks[0]
        else:
            problems.append("report does not hold exactly one rank")
    except (OSError, ValueError) as exc:
        problems.append("no readable report: %s" % exc)
    return rank, problems, err


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def same(a, b, rel=REL):
    """a (vanalyze) agrees with b (oracle): ints exact, floats to a relative
    rel (an int is accepted for a float), None only with None, anything
    else equal and of the same type."""
    if b is None:
        return a is None
    if isinstance(b, (bool, str)):
        return type(a) is type(b) and a == b
    if is_int(b):
        return is_int(a) and a == b
    if isinstance(b, float):
        if not (is_int(a) or isinstance(a, float)):
            return False
        return abs(a - b) <= rel * max(abs(a), abs(b))
    return a == b


def rank_metric(rk, metric):
    """One rank's value of a cross-rank metric (lib/model/metric.c's names),
    read from the rank itself: phase:PATH.total_ns sums the phases of that
    path, memory:DEV.KEY takes the largest row of that device, steps.* are
    None without steps, anything else is the dotted path (None if absent)."""
    if metric.startswith("phase:"):
        path = metric[len("phase:"):-len(".total_ns")]
        hits = [p["total_ns"] for p in rk.get("phases", []) if p["path"] == path]
        return sum(hits) if hits else None
    if metric.startswith("memory:"):
        dev, key = metric[len("memory:"):].split(".")
        hits = [m[key] for m in rk.get("memory", []) if m["device"] == int(dev)]
        return max(hits) if hits else None
    if metric.startswith("steps.") and not rk.get("steps", {}).get("count"):
        return None
    node = rk
    for part in metric.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


# The words a reader sees for a metric key in vcompare's and vaggregate's
# tables (doc/outputs.md): vanalyze's column heads for its scalars, the item
# and what of it for families, else the key's last part in words, after its
# group's name where the rank table does not imply it.
LABELS = {"span_ns": "span", "steps.median_ns": "step (median)", "throughput.fps": "fps",
          "throughput.bps": "bps", "gpu.utilization": "util", "gpu.step_utilization": "step.util",
          "gpu.effective_utilization": "eff.util", "gpu.comm_wait_ns": "comm wait",
          "gpu.memory_ns": "memcpy/memset time",
          "perf.mfu": "MFU", "perf.tflops": "TFLOP/s"}


def metric_label(k):
    if k in LABELS:
        return LABELS[k]
    for fam, word in (("phase:", "phase "), ("kernel:", "kernel "), ("op:", "operator "),
                      ("memory:", "memory of device "), ("tflops:", "TFLOP/s of ")):
        if k.startswith(fam):
            item, _, what = k[len(fam):].rpartition(".")
            tail = {"total_ns": ", total" if fam == "phase:" else "", "median_ns": ", median",
                    "median": ", median", "peak_allocated": ", peak allocated",
                    "peak_reserved": ", peak reserved"}[what]
            return word + item + tail
    group, _, rest = k.partition(".")
    rest = rest[:-3] if rest.endswith("_ns") else rest
    head = "step " if group == "steps" else "" if group in ("gpu", "throughput", "perf") \
        else group + " "
    return head + rest.replace("_", " ").replace(".", " ")


def field(d, dotted):
    for k in dotted.split("."):
        if not isinstance(d, dict) or k not in d:
            return "<missing>"
        d = d[k]
    return d


def show(v, limit=300):
    s = json.dumps(v, sort_keys=True, ensure_ascii=False)
    return s if len(s) < limit else s[:limit] + "..."


def dict_diff(a, b):
    if not isinstance(a, dict) or not isinstance(b, dict):
        return "vanalyze %s, oracle %s" % (show(a), show(b))
    keys = sorted(set(a) | set(b))
    parts = ["%s: %s vs %s" % (k, a.get(k, "-"), b.get(k, "-"))
             for k in keys if a.get(k) != b.get(k)]
    return "(vanalyze vs oracle) " + "; ".join(parts[:10])


def compare_ranks(rep, orc, label):
    """Mismatch lines between report ranks and oracle ranks, in order."""
    out = []
    if len(rep) != len(orc):
        out.append("%s: %d ranks in report, oracle has %d (report: %s; oracle: %s)" % (
            label, len(rep), len(orc),
            show([(r.get("rank"), r.get("source")) for r in rep]),
            show([(r["rank"], r["source"]) for r in orc])))
        return out
    pairs = list(zip(rep, orc))
    if [r.get("source") for r in rep] != [o["source"] for o in orc]:
        out.append("%s: order (rank, source) differs: report %s, oracle %s" % (
            label, show([(r.get("rank"), r.get("source")) for r in rep], 2000),
            show([(o["rank"], o["source"]) for o in orc], 2000)))
        # Compare each file with its own entry when the names allow it.
        by_source = {r.get("source"): r for r in rep}
        if len(by_source) == len(rep) and set(by_source) == set(o["source"] for o in orc):
            pairs = [(by_source[o["source"]], o) for o in orc]
    for r, o in pairs:
        name = o["source"]
        for f in FIELDS:
            a, b = field(r, f), field(o, f)
            if a != b or type(a) is not type(b):
                if f.startswith("events.by"):
                    out.append("%s: %s differs: %s" % (name, f, dict_diff(a, b)))
                else:
                    out.append("%s: %s: vanalyze %s, oracle %s" % (name, f, show(a), show(b)))
    return out


def load_report(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def check_complete_report(rep, path, entry, origin):
    """Shape checks for a report of one complete, good file."""
    out = []
    name = os.path.basename(path)
    if rep.get("schema") != "vtrace.report/1":
        out.append("%s: schema is %s" % (name, show(rep.get("schema"))))
    if field(rep, "tool.name") != "vanalyze":
        out.append("%s: tool.name is %s" % (name, show(field(rep, "tool.name"))))
    inputs = rep.get("inputs")
    if not isinstance(inputs, list) or len(inputs) != 1:
        out.append("%s: inputs is %s" % (name, show(inputs)))
    else:
        i = inputs[0]
        want = {"path": path, "rank": entry["rank"], "bytes": os.path.getsize(path),
                "complete": True}
        for k, v in want.items():
            if i.get(k) != v:
                out.append("%s: inputs[0].%s: %s, expected %s" % (name, k, show(i.get(k)), show(v)))
    ranks = rep.get("ranks")
    if isinstance(ranks, list) and len(ranks) == 1:
        r = ranks[0]
        if r.get("complete") is not True:
            out.append("%s: ranks[0].complete is %s" % (name, show(r.get("complete"))))
        w = r.get("warnings")
        if not isinstance(w, list):
            out.append("%s: ranks[0].warnings is %s" % (name, show(w)))
        elif origin == "position" and any("from its position" in x for x in w):
            out.append("%s: one trace without a rank is rank 0, yet warned about" % name)
    return out


def cmd_each(args):
    jobs = None
    if args[:1] == ["-j"]:
        jobs, args = args[1], args[2:]
    files = args
    tmp = tempfile.mkdtemp(prefix="each.", dir=".")

    def run(i):
        out = os.path.join(tmp, "%d.json" % i)
        argv = [VANALYZE, "--quiet", "--json", out]
        if jobs:
            argv[1:1] = ["-j", jobs]
        p = subprocess.run(argv + [files[i]], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr.decode("utf-8", "replace"), out

    bad = 0
    t_start = time.time()
    # vanalyze runs in a worker thread (one at a time) while this thread
    # computes the oracle for the same file: the two overlap on two cores.
    with ThreadPoolExecutor(max_workers=1) as pool:
        futs = [pool.submit(run, i) for i in range(len(files))]
        for i, path in enumerate(files):
            name = os.path.basename(path)
            entry, origin = analyze(path, 0)
            rc, err, out = futs[i].result()
            problems = []
            if rc != 0:
                problems.append("%s: vanalyze exit status %d" % (name, rc))
            if any(s in err for s in ("Sanitizer", "runtime error:")):
                problems.append("%s: sanitizer report" % name)
            if os.path.exists(out):
                try:
                    rep = load_report(out)
                except ValueError as exc:
                    problems.append("%s: report is not JSON: %s" % (name, exc))
                else:
                    problems += check_complete_report(rep, path, entry, origin)
                    problems += compare_ranks(rep.get("ranks", []), [entry], name)
            else:
                problems.append("%s: no report written" % name)
            if problems:
                bad += 1
                for p in problems:
                    print("mismatch " + p)
                for line in err.strip().splitlines()[-8:]:
                    print("    stderr: " + line)
    print("%d files, %d with mismatches, %.1fs" % (len(files), bad, time.time() - t_start))
    return 1 if bad else 0


def cmd_compare(args):
    subset = False
    if args[:1] == ["--subset"]:
        subset, args = True, args[1:]
    report, files = args[0], args[1:]
    rep = load_report(report)
    orc, failures, _ = oracle_ranks(files)
    for path, msg in failures:
        print("note: oracle: %s: %s (left out)" % (os.path.basename(path), msg))
    ranks = rep.get("ranks", [])
    if subset:
        known = set(o["source"] for o in orc)
        ranks = [r for r in ranks if r.get("source") in known]
    problems = compare_ranks(ranks, orc, report)
    for p in problems:
        print("mismatch " + p)
    print("%s: %d ranks compared, %d mismatches" % (report, len(orc), len(problems)))
    return 1 if problems else 0


def evaluate(expr, path):
    return eval("(" + expr + "\n)", env_for(path))


def cmd_compare1(args):
    """compare1 REPORT FILE [REPORT FILE]...: one complete file per report."""
    problems = []
    for k in range(0, len(args), 2):
        report, path = args[k], args[k + 1]
        entry, origin = analyze(path, 0)
        try:
            rep = load_report(report)
        except (OSError, ValueError) as exc:
            problems.append("%s: %s" % (report, exc))
            continue
        problems += check_complete_report(rep, path, entry, origin)
        problems += compare_ranks(rep.get("ranks", []), [entry], path)
    for p in problems:
        print("mismatch " + p)
    print("%d reports compared, %d mismatches" % (len(args) // 2, len(problems)))
    return 1 if problems else 0


def env_for(path):
    return {"r": load_report(path), "os": os, "json": json, "load": load_report}


def summary(path):
    try:
        rep = load_report(path)
    except (OSError, ValueError) as exc:
        return "cannot read: %s" % exc
    return show([{"rank": x.get("rank"), "source": x.get("source"),
                  "complete": x.get("complete"), "total": field(x, "events.total"),
                  "span_ns": x.get("span_ns"), "warnings": x.get("warnings")}
                 for x in rep.get("ranks", [])], 1500)


def cmd_assert(args):
    """assert REPORT EXPR WHAT [EXPR WHAT]...: all must hold."""
    path, pairs = args[0], args[1:]
    for k in range(0, len(pairs), 2):
        what = pairs[k + 1] if k + 1 < len(pairs) else pairs[k]
        try:
            ok = evaluate(pairs[k], path)
        except Exception as exc:
            ok, what = False, "%s (%s: %s)" % (what, type(exc).__name__, exc)
        if not ok:
            print("FAIL: %s: %s" % (path, what))
            print("    check: %s" % " ".join(pairs[k].split()))
            print("    report ranks: %s" % summary(path))
            return 1
    return 0


def cmd_get(args):
    v = evaluate(args[1], args[0])
    print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
    return 0


def cmd_same(args):
    a, b = load_report(args[0]), load_report(args[1])
    if a != b:
        print("FAIL: %s and %s differ" % (args[0], args[1]))
        return 1
    return 0


# The oracles' own checks, run as they are with their reading of each file
# cached (cached()): the sanitizer build's run of a test, and another test
# asking the same of the same file, read the result back.

def cmd_collectives(args):
    """collectives REPORT FILE...: tests/collectives_oracle.py REPORT FILE..."""
    import collectives_oracle
    rank_of = collectives_oracle.rank_of
    collectives_oracle.rank_of = lambda path: cached("collectives", path, None, rank_of, path)
    sys.argv = ["collectives_oracle.py"] + args
    collectives_oracle.main()  # exits


def cmd_idle(args):
    """idle TRACE REPORT: tests/oracle_idle.py TRACE REPORT, the analysis
    cached under the trace and the report's steps it reads."""
    import oracle_idle
    load, analyze = oracle_idle.load, oracle_idle.analyze
    oracle_idle.load = lambda path: path
    oracle_idle.analyze = lambda path, steps, start: cached(
        "idle", path, (steps, start), lambda: analyze(load(path), steps, start))
    return oracle_idle.main(["oracle_idle.py"] + args)


def cmd_opsperf(args):
    """opsperf TRACE REPORT: tests/oracle_opsperf.py TRACE REPORT."""
    import oracle_opsperf
    rows = oracle_opsperf.rows
    oracle_opsperf.rows = lambda path: cached("opsperf", path, None, rows, path)
    n, bad = oracle_opsperf.compare(args[0], args[1])
    print("%d rows, %d differences" % (n, len(bad)))
    return 1 if bad else 0


CMDS = {"each": cmd_each, "compare": cmd_compare, "compare1": cmd_compare1, "assert": cmd_assert,
        "get": cmd_get, "same": cmd_same, "collectives": cmd_collectives, "idle": cmd_idle,
        "opsperf": cmd_opsperf}

if __name__ == "__main__":
    sys.exit(CMDS[sys.argv[1]](sys.argv[2:]))
