#!/usr/bin/env bash
# The phase table tells the truth about what it hides: the count line counts
# every phase it leaves out, at any depth, says "each under 1%" only when
# that holds, and otherwise names the largest; it fits 80 columns.  --all
# keeps the tree: each row is indented by its depth, under its parent (the
# torch-cpu blocks inside each denoising step, DLRM's waits four deep).
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze

DLRM=$(ls "$PUBLIC"/facebookresearch__param/*dlrm_kineto__worker*.json.gz 2>/dev/null)
[ -n "$DLRM" ] || die "no DLRM traces in $PUBLIC"
i=0
for set in cpu dlrm; do
	if [ $set = cpu ]; then files=$(ls "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz); else files=$DLRM; fi
	# shellcheck disable=SC2086
	NO_COLOR=1 COLUMNS=80 run_as "$set" "$VANALYZE" --json "$set.json" $files
	expect_rc "$set" 0
	# shellcheck disable=SC2086
	NO_COLOR=1 COLUMNS=80 run_as "$set-all" "$VANALYZE" --all $files
	expect_rc "$set-all" 0
	python3 - "$set.out" "$set-all.out" "$set.json" <<'PY' || die "$set: the phase table (lines above)"
import json, re, sys

def table(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("phases"))
    rows, tail = [], None
    for l in lines[i + 2:]:
        m = re.match(r"^  +(\S+%) +(\S+ \S+) +(\d+)  ( *)(\S.*)$", l)
        if not m:
            tail = l
            break
        rows.append((float(m.group(1)[:-1]), len(m.group(4)) // 2, m.group(5)))
    return rows, tail

def same(cut, name):
    """Whether a name as the table shows it (maybe cut with an ellipsis) is name."""
    if "\u2026" not in cut:
        return cut == name
    pre, post = cut.split("\u2026", 1)
    return name.startswith(pre) and name.endswith(post)

shown, line = table(sys.argv[1])
every, _ = table(sys.argv[2])
rep = json.load(open(sys.argv[3]))
paths = {p["path"] for rk in rep["ranks"] for p in rk["phases"]}
bad = []
# --all: every phase, each a child of the nearest row above it one level up
if len(every) != len(paths):
    bad.append("--all shows %d rows, the report has %d phase paths" % (len(every), len(paths)))
stack = []
for share, depth, name in every:
    del stack[depth:]
    if len(stack) != depth:
        bad.append("--all: %s at depth %d has no parent above it" % (name, depth))
        break
    up = "/".join(stack) + "/" if stack else ""
    full = [p[len(up):] for p in paths if p.startswith(up) and same(name, p[len(up):])]
    full = [f for f in full if "/" not in f] or full
    if not full:
        bad.append("--all: %s under %r is not a phase (its indent puts it there)" % (name, up))
        break
    stack.append(min(full, key=len))
# the count line: what --all adds, counted and described truthfully
hidden = [r for r in every if not any(r[0] == s[0] and r[1] == s[1] and
                                      (same(s[2], r[2]) or same(r[2], s[2])) for s in shown)]
hidden_n = len(every) - len(shown)
big = [r for r in hidden if r[0] >= 1.0]
if hidden_n:
    if not line or len(line) > 80:
        bad.append("count line %r: missing or wider than 80 columns" % line)
    elif not re.match(r"  %d more %s[ ,]" % (hidden_n, "phase" if hidden_n == 1 else "phases"),
                      line):
        bad.append("count line %r, %d hidden" % (line, hidden_n))
    elif big:
        top = max(hidden, key=lambda r: r[0])
        m = re.search(r"(\d+) over 1% of the span; the largest (.*) (\d+\.\d)%$", line)
        if not m or int(m.group(1)) != len(big) or abs(float(m.group(3)) - top[0]) > 0.06:
            bad.append("count line %r; hidden over 1%%: %r" % (line, big))
        elif not (same(m.group(2), top[2]) or same(top[2], m.group(2)) or "\u2026" in top[2]):
            bad.append("count line %r names not %s" % (line, top[2]))
    elif "each under 1%" not in line:
        bad.append("count line %r" % line)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
	i=$((i + 1))
done
# the blocks at a third of the span are named, and sit under the steps with --all
expect_line cpu.out 'the largest block_\* 33\.0%' "torch-cpu count line"
expect_line cpu-all.out '^ +[0-9.]+% +[0-9.]+ s +[0-9]+        block_\*$' "block_* three levels deep"
echo "pass: the phase table's hidden count and --all tree"
