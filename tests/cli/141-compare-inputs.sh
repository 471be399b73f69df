#!/usr/bin/env bash
# vcompare's inputs and outputs: exit 2 (trouble) for usage errors, a
# missing file, a cut-off report (naming its byte offset), a report of
# another schema, and a trace read only in part; a directory written by
# 'vanalyze --out' stands for its report.json.  Kernel names from a hostile
# trace come out escaped: every markdown table row has exactly 8 cells and
# no raw markup, the JSON parses and gives the names back exactly.  Ranks
# present on one side only are listed, not compared (torch-cpu 2-rank
# against 4-rank).
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
need_vcompare
T=$VT_SHARED/traces/torch-cpu
two=("$T"/dev-2rank-default-rank*.trace.json.gz)
four=("$T"/dev-4rank-straggler2-rank*.trace.json.gz)
mkdir two four
cp "${two[@]}" two/
cp "${four[@]}" four/
"$VANALYZE" -q --out out2 two || die "vanalyze two"

# usage
vc noargs
expect_rc noargs 2
expect_line noargs.err "^try 'vcompare --help'$" "usage hint"
vc onearg out2/report.json
expect_rc onearg 2
vc badthr --threshold lots out2 out2
expect_rc badthr 2
vc badalpha --alpha 2 out2 out2
expect_rc badalpha 2
vc help --help
expect_rc help 0
expect_line help.out 'Mann-Whitney' "--help explains the test"

# a directory with report.json in it, against itself: nothing changes
vc self out2 out2/report.json
expect_rc self 0
no_line self.out 'REGRESSED\|improved' "a run against itself"

# trouble: missing, cut off, another schema, a trace that is not one
vc missing out2 nowhere.json
expect_rc missing 2
expect_line missing.err 'nowhere.json: cannot open' "missing file"
# cut between two members, so the text ends where the reader stops
cut=$(grep -b -o '"ranks":' out2/report.json | head -n 1 | cut -d: -f1)
head -c "$cut" out2/report.json >cut.json
vc cut cut.json out2
expect_rc cut 2
expect_line cut.err "^vcompare: cut.json: byte $cut: " "cut-off report with its offset"
sed 's/vtrace.report\/1/vtrace.report\/2/' out2/report.json >v2.json
vc schema v2.json out2
expect_rc schema 2
expect_line schema.err 'not a vtrace report .schema "vtrace.report/2"' "other schema"
echo '{"name": "x", "version": "1.0.0"}' >package.json
vc other package.json out2
expect_rc other 2
gzip -dc "${two[0]}" | head -c 200000 | gzip -c >part-rank0.trace.json.gz
vc part part-rank0.trace.json.gz out2
expect_rc part 2
expect_line part.err 'not read completely' "a side read in part"

# ranks on one side only
vc ranks --json ranks.json two four
expect_rc ranks 1
check ranks.json 'r["ranks_only_new"] == [2, 3] and r["ranks_only_base"] == []' \
	"ranks 2 and 3 only in new"
check ranks.json 'not [x for x in r["rows"] if x["rank"] in (2, 3)]' "no rows for them"

# hostile kernel names, escaped in markdown and JSON
python3 "$VT_ROOT/tests/hostile_trace.py" hostile-rank0.json || die "hostile trace"
vc hostile --all --markdown hostile.md --json hostile.cmp --top 100 --threshold 0 \
	hostile-rank0.json hostile-rank0.json
expect_rc hostile 0
# against a trace with one plain kernel, every hostile kernel is "added":
# named in list items, escaped the same way, and given back exactly in JSON
python3 - <<'PY' || die "plain trace"
import json
ev = [{"ph": "X", "cat": "kernel", "name": "plain", "ts": 1, "dur": 5, "pid": 0, "tid": 7},
      {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 0, "dur": 9, "pid": 1, "tid": 1}]
json.dump({"traceEvents": ev}, open("plain-rank0.json", "w"))
PY
vc added --markdown added.md --json added.cmp --top 100 plain-rank0.json hostile-rank0.json
python3 - "$VT_ROOT/tests" <<'PY' || die "hostile names are not escaped (lines above)"
import json, re, sys
sys.path.insert(0, sys.argv[1])
from hostile_trace import SHOWN
md = open("hostile.md", encoding="utf-8").read()
rows = [l for l in md.splitlines() if l.startswith("|")]
bad = 0
for l in rows:
    cells = re.split(r"(?<!\\)\|", l)[1:-1]       # pipes not escaped by a backslash
    if len(cells) != 8:
        print("row with %d cells: %r" % (len(cells), l)); bad += 1
    if re.search(r"<[a-zA-Z/!]", l):
        print("raw markup in: %r" % l); bad += 1
kernels = [l for l in rows if l.startswith("| kernel ")]
if len(kernels) < len(SHOWN):
    print("%d kernel rows for %d kernels" % (len(kernels), len(SHOWN))); bad += 1
got = {r["metric"] for r in json.load(open("hostile.cmp"))["rows"]}
for name in SHOWN:
    if "kernel:%s.total_ns" % name not in got:
        print("JSON lacks kernel %r" % name); bad += 1
md = open("added.md", encoding="utf-8").read()
lines = md.splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("- 6 kernels added (only in new), "))
items = []
for l in lines[at + 1:]:
    if not l.startswith("  - "):
        break
    items.append(l)
if len(items) != len(SHOWN):
    print("%d added kernels named in markdown, want %d" % (len(items), len(SHOWN))); bad += 1
for l in items:
    l = l.replace("`@`", "@")     # the code span that keeps an @mention from notifying
    if re.search(r"<[a-zA-Z/!]", l) or re.search(r"(?<!\\)[|*_`\[\]]", l):
        print("unescaped markup in: %r" % l); bad += 1
got = [k["name"] for k in json.load(open("added.cmp"))["kernels_added"]["kernels"]]
if sorted(got) != sorted(SHOWN):
    print("JSON kernels_added %r, want %r" % (got, SHOWN)); bad += 1
sys.exit(1 if bad else 0)
PY
echo "pass: inputs, trouble and escaping"

# Reports and traces told apart by their top-level keys, not by a
# "schema" somewhere in the first 64 KiB: a report rewritten with sorted keys
# (its schema far after its ranks) is a report, and a trace whose events
# carry a "schema" argument is a trace.
python3 - out2/report.json <<'PY' || die "cannot write the sorted report and the trace"
import json, sys
r = json.load(open(sys.argv[1]))
text = json.dumps(r, sort_keys=True, indent=8)
assert text.index('"schema"') > 65536, "the sorted report's schema is not past 64 KiB"
open("sorted.json", "w").write(text)
ev = [{"ph": "X", "cat": "kernel", "name": "k%d" % (i % 3), "pid": 0, "tid": 7, "ts": 10 * i,
       "dur": 5, "args": {"stream": 7, "schema": "vtrace.report/1"}} for i in range(30)]
json.dump({"traceEvents": ev}, open("argschema.json", "w"))
PY
vc sorted sorted.json out2/report.json
expect_rc sorted 0
expect_line sorted.out '^base sorted.json, new out2/report.json' "a report with sorted keys"
vc argschema argschema.json argschema.json
expect_rc argschema 0
no_line argschema.err 'report' "a trace with a schema argument is analysed"
echo "pass: reports and traces told apart by their top-level keys"
