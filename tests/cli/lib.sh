# Shared helpers for tests/cli/NNN-*.sh; source it first.
#
# tests/run.sh runs each test from a fresh temporary directory (the current
# directory, removed afterwards) with VT_BUILD, VT_ROOT and VT_SHARED set to
# absolute paths.  Exit 0 passes, 77 skips (the last line printed says why),
# anything else fails.
#
# Bash helpers: die, skip, need_shared, need_vanalyze, vanalyze, va (run and
# capture), vg and vc (the same for vaggregate and vcompare), run_as,
# need_vaggregate, need_vcompare, expect_rc,
# expect_line, no_line, check, pycheck.  The python3 helper
# (pycheck SUBCOMMAND ...) compares reports with tests/oracle.py:
#   pycheck each FILE...               vanalyze on each file alone vs the oracle
#   pycheck compare [--subset] REPORT FILE...
#                                      REPORT's ranks vs the oracle over FILE...
#                                      (in the order given to vanalyze); with
#                                      --subset, report ranks whose source the
#                                      oracle does not know are ignored
#   pycheck compare1 REPORT FILE [REPORT FILE]...
#                                      each REPORT is of FILE alone, complete,
#                                      and agrees with the oracle
#   pycheck assert REPORT EXPR WHAT... fail unless each EXPR holds (r: the report)
#   pycheck get REPORT EXPR            print EXPR (strings bare, else JSON)
#   pycheck same A B                   the JSON files hold equal values

set -u

: "${VT_ROOT:?VT_ROOT is not set; run tests through tests/run.sh}"
: "${VT_BUILD:?VT_BUILD is not set; run tests through tests/run.sh}"
VT_SHARED=${VT_SHARED:-$VT_ROOT/../shared}
TRACES=$VT_SHARED/traces
PUBLIC=$TRACES/public
TORCH_CPU=$TRACES/torch-cpu
ORACLE=$VT_ROOT/tests/oracle.py
VANALYZE=${VANALYZE:-$VT_BUILD/vanalyze}
export VT_ROOT VT_BUILD VT_SHARED VANALYZE ORACLE

case $(basename "$VT_BUILD") in
*san*) VT_SANITIZED=1 ;;
*) VT_SANITIZED=0 ;;
esac

die() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

need_shared() {
	[ -d "$TRACES/public" ] && [ -d "$TRACES/torch-cpu" ] ||
		skip "no shared traces at $TRACES"
}

need_vanalyze() {
	[ -x "$VANALYZE" ] || die "$VANALYZE is not built"
}

vanalyze() {
	"$VANALYZE" "$@"
}

# run_as NAME CMD ARGS...: run CMD ARGS with stdout in NAME.out, stderr in
# NAME.err and the exit status in NAME.rc (and $rc).  Never fails itself.
run_as() {
	local name=$1
	shift
	"$@" >"$name.out" 2>"$name.err" </dev/null
	rc=$?
	echo "$rc" >"$name.rc"
	return 0
}

# va, vg, vc NAME ARGS...: run_as for vanalyze, vaggregate and vcompare.
VAGGREGATE=${VAGGREGATE:-$VT_BUILD/vaggregate}
VCOMPARE=${VCOMPARE:-$VT_BUILD/vcompare}
va() {
	local name=$1
	shift
	run_as "$name" "$VANALYZE" "$@"
}
vg() {
	local name=$1
	shift
	run_as "$name" "$VAGGREGATE" "$@"
}
vc() {
	local name=$1
	shift
	run_as "$name" "$VCOMPARE" "$@"
}

need_vaggregate() {
	[ -x "$VAGGREGATE" ] || die "$VAGGREGATE is not built"
}

need_vcompare() {
	[ -x "$VCOMPARE" ] || die "$VCOMPARE is not built"
}

# A sanitizer report exits 1 like an input failure, so look for it too.
no_sanitizer_report() {
	if grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$1.err"; then
		tail -n 40 "$1.err" >&2
		die "$1: sanitizer report"
	fi
}

# expect_rc NAME CODE: the exit status of run NAME was CODE.
expect_rc() {
	local got
	got=$(cat "$1.rc")
	no_sanitizer_report "$1"
	if [ "$got" != "$2" ]; then
		echo "--- stderr of $1:" >&2
		tail -n 20 "$1.err" >&2
		die "$1: exit status $got, expected $2"
	fi
}

# expect_line FILE ERE [WHAT]: some line of FILE matches the extended regex.
expect_line() {
	if ! grep -qE -- "$2" "$1"; then
		echo "--- $1:" >&2
		tail -n 20 "$1" >&2
		die "${3:-$1}: no line matches /$2/"
	fi
}

# no_line FILE ERE [WHAT]: no line of FILE matches.
no_line() {
	if grep -qE -- "$2" "$1"; then
		grep -E -- "$2" "$1" | head -n 5 >&2
		die "${3:-$1}: unexpected line matching /$2/"
	fi
}

# Escape a string for use inside an extended regex.
ere_quote() {
	printf '%s' "$1" | sed 's/[][\.*^$(){}?+|/]/\\&/g'
}

VT_PY=$PWD/.vtcheck.py
pycheck() {
	python3 "$VT_PY" "$@"
}

# check REPORT EXPR WHAT [EXPR WHAT]...: die unless each python EXPR holds
# for the report r (also there: os, json, and load(PATH) for another report).
# One python process for all pairs.
check() {
	pycheck assert "$@" || die "$1: check failed (lines above)"
}

cat >"$VT_PY" <<'PYEOF'
import json, os, subprocess, sys, tempfile, time
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


def oracle_ranks(paths):
    """Like oracle.oracle(): (sorted entries, failures, origins by entry)."""
    done, failures = [], []
    for pos, path in enumerate(paths):
        try:
            entry, origin = analyze(path, pos)
        except (OSError, oracle.NotATrace) as exc:
            failures.append((path, str(exc)))
            continue
        done.append((entry["rank"], pos, entry, origin))
    done.sort(key=lambda t: (t[0], t[1]))
    return [t[2] for t in done], failures, [t[3] for t in done]


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
        elif origin == "position" and not w:
            out.append("%s: rank taken from the argument position but no warning" % name)
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


CMDS = {"each": cmd_each, "compare": cmd_compare, "compare1": cmd_compare1, "assert": cmd_assert,
        "get": cmd_get, "same": cmd_same}

if __name__ == "__main__":
    sys.exit(CMDS[sys.argv[1]](sys.argv[2:]))
PYEOF

# map_reduce NAME RC FILE...: vanalyze over all FILEs at once (NAME.json)
# and each FILE alone (NAME-map/) merged by vaggregate (NAME-agg.json), each
# run exiting RC; the two reports must be the same bytes apart from the tool
# name: the reduce needs nothing but the per-rank reports.
map_reduce() {
	local name=$1 want=$2 i=0 f
	shift 2
	va "$name" -q -j 2 --json "$name.json" "$@"
	expect_rc "$name" "$want"
	mkdir -p "$name-map"
	for f in "$@"; do
		va "$name-map$i" -q -j 1 --json "$name-map/$i.json" "$f"
		[ -s "$name-map/$i.json" ] || die "$name: no report of $f alone"
		i=$((i + 1))
	done
	vg "$name-agg" -q --reports_dir "$name-map" --json "$name-agg.json"
	expect_rc "$name-agg" 0
	grep -v '"name": "va' "$name.json" >"$name.body"
	grep -v '"name": "va' "$name-agg.json" >"$name-agg.body"
	cmp -s "$name.body" "$name-agg.body" || {
		diff -u "$name.body" "$name-agg.body" | head -n 30 >&2
		die "$name: vanalyze over all and map + vaggregate differ"
	}
}
