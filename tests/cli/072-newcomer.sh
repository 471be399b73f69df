#!/usr/bin/env bash
# plain build only: it builds a program against vtrace.h and runs the test runner.
#
# The small things a newcomer trips on:
#  1. vanalyze given a report.json says to give it to vcompare or vaggregate
#     (the file itself, and in a directory);
#  2. vcompare --markdown DIR DIR says --markdown took the first as its file;
#  3. vtrace-export says where it wrote (nothing with -o -);
#  4. the README's C snippet compiles against vtrace.h as it stands (NULL)
#     and records;
#  5. the README's sample outputs (vanalyze, vaggregate, vcompare) are the
#     programs' real output at 80 columns, [...] marking rows left out;
#  6. vtrace-slurm --dry-run needs no Slurm controller;
#  7. the test runner shows its progress ([2/3]) on each CLI test's line;
#  8. vaggregate's closing count covers every file a line called skipped;
#  9. vanalyze --out leaves no lock file in the folder;
# 10. vcompare of one video against two compares per video and says so.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vcompare
need_vaggregate
T=$TORCH_CPU
mkdir two-ranks four-ranks
cp "$T"/dev-2rank-default-rank*.trace.json.gz two-ranks/
cp "$T"/dev-4rank-straggler2-rank*.trace.json.gz four-ranks/

# 1. a report where a trace goes
"$VANALYZE" -q --json two.json two-ranks 2>/dev/null || die "vanalyze two-ranks"
va rep two.json
expect_rc rep 1
expect_line rep.err "^vanalyze: two\.json: .*not a trace but a vtrace report: give it to vcompare or vaggregate$" \
	"a report given to vanalyze"
mkdir repdir
cp two.json repdir/report.json
va repdir repdir
expect_rc repdir 1
expect_line repdir.err "^vanalyze: repdir/report\.json: not a trace but a vtrace report \(for vcompare or vaggregate\), skipped$" \
	"a report in a directory"

# 2. --markdown took the first input
mkdir o1 o2
"$VANALYZE" -q --out o1 two-ranks 2>/dev/null || die "vanalyze --out o1"
"$VANALYZE" -q --out o2 four-ranks 2>/dev/null || die "vanalyze --out o2"
vc md --markdown o1 o2
expect_rc md 2
expect_line md.err "^vcompare: wants two inputs, BASE and NEW: --markdown took 'o1' as the file it writes; give it a PATH \('-' for stdout\) before BASE and NEW$" \
	"--markdown DIR DIR"

# 9. no lock file left in an --out folder
[ -z "$(find o1 o2 -name '.*' -type f)" ] || die "a dot file left in --out: $(find o1 o2 -name '.*')"

# 3. vtrace-export says where it wrote
DEMO=$VT_BUILD/tests/collector_demo
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE
VTRACE_RANK=2 "$DEMO" rec demo 2>demo.err || die "collector_demo failed: $(cat demo.err)"
run_as export "$VT_BUILD/vtrace-export" rec/demo-rank2.vtr
expect_rc export 0
expect_line export.err '^vtrace-export: wrote rec/demo-rank2\.trace\.json\.gz$' "where the export went"
[ -s rec/demo-rank2.trace.json.gz ] || die "no export at the default name"
run_as exportout "$VT_BUILD/vtrace-export" rec/demo-rank2.vtr -o -
expect_rc exportout 0
[ ! -s exportout.err ] || die "stderr with -o -: $(cat exportout.err)"

# 4. the README's C snippet, as it stands, against the tree's vtrace.h
python3 - "$VT_ROOT/README.md" >snippet.c <<'PY' || die "no C snippet in the README"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"```c\n(#include <vtrace.h>[^\n]*\n)(.*?)```", text, re.S)
if not m:
    sys.exit(1)
print(m.group(1) + "int main(void)\n{\n" + m.group(2) + "\tvt_shutdown();\n\treturn 0;\n}")
PY
cc -std=c11 -Wall -Werror -I"$VT_ROOT/collector" -o snippet snippet.c -L"$VT_BUILD" -lvtrace \
	-Wl,-rpath,"$VT_BUILD" 2>cc.err || { cat snippet.c cc.err; die "the README's C snippet does not compile"; }
mkdir snip
VTRACE_DIR=snip RANK=0 ./snippet 2>snip.err || die "the snippet failed: $(cat snip.err)"
ls snip/wan-t2v-rank0*.vtr >/dev/null 2>&1 || die "the snippet recorded nothing"

# 5. the README's sample outputs are real
cp "$VT_ROOT/testdata/gpu/pipeline.trace.json.gz" pipeline-rank0.trace.json.gz
COLUMNS=80 "$VANALYZE" --frames 4 pipeline-rank0.trace.json.gz >readme-va.out 2>/dev/null ||
	die "the README's vanalyze command failed"
COLUMNS=80 "$VCOMPARE" two-ranks/ four-ranks/ >readme-vc.out 2>/dev/null
[ $? = 1 ] || die "the README's vcompare command: not exit 1"
mkdir traces
cp "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker* traces/
for f in traces/*.json.gz; do
	d=reports/$(basename "$f" .json.gz)
	mkdir -p "$d" && "$VANALYZE" -q --json "$d/report.json" "$f" 2>/dev/null || die "vanalyze $f"
done
COLUMNS=80 "$VAGGREGATE" --reports_dir reports >readme-vg.out 2>/dev/null ||
	die "the README's vaggregate command failed"
python3 - "$VT_ROOT/README.md" <<'PY' || die "the README's samples are not the programs' output (above)"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = 0
for cmd, out in (("$ vanalyze --frames 4 pipeline-rank0.trace.json.gz", "readme-va.out"),
                 ("$ vcompare two-ranks/ four-ranks/", "readme-vc.out"),
                 ("$ vaggregate --reports_dir reports", "readme-vg.out")):
    at = text.index(cmd + "\n")
    sample = text[at + len(cmd) + 1:text.index("```", at)].rstrip("\n").split("\n")
    real = open(out, encoding="utf-8").read().rstrip("\n").split("\n")
    # each stretch between [...] is a stretch of the real output, in order
    pos, seg = 0, []
    for line in sample + ["[...]"]:
        if line != "[...]":
            seg.append(line)
            continue
        hit = next((i for i in range(pos, len(real) - len(seg) + 1) if real[i:i + len(seg)] == seg),
                   None)
        if hit is None:
            print("%s: not in the output, in order: %r" % (cmd, seg[:3])); bad += 1
            break
        pos, seg = hit + len(seg), []
    if sample[0] != real[0] or sample[-1] != real[-1]:
        print("%s: the sample does not start and end as the output" % cmd); bad += 1
print("README samples: %d wrong" % bad)
sys.exit(1 if bad else 0)
PY

# 6. vtrace-slurm --dry-run with no controller: Slurm's commands fail here
mkdir fakebin
for c in sbatch sinfo scontrol; do
	printf '#!/bin/sh\necho "%s: error: no controller" >&2\nexit 1\n' "$c" >"fakebin/$c"
	chmod +x "fakebin/$c"
done
ln -s "$VANALYZE" fakebin/vanalyze
ln -s "$VAGGREGATE" fakebin/vaggregate
PATH=$PWD/fakebin:$PATH run_as slurm "$VT_ROOT/scripts/slurm/vtrace-slurm" --dry-run four-ranks slurmrun
expect_rc slurm 0
[ "$(grep -c '^sbatch --parsable' slurm.out)" = 2 ] || die "--dry-run: not the two sbatch lines"
expect_line slurm.out '--array=0-3%' "the map array over the 4 traces"
expect_line slurm.err 'no Slurm controller answered; MaxArraySize taken as 1001' "the note"

# 7. the test runner's progress, on a tree of three tests
mkdir -p mini/tests/cli mini/build/tests
cp "$VT_ROOT/tests/run.sh" mini/tests/
for n in 001-a 002-b 003-c; do
	printf '#!/usr/bin/env bash\nexit 0\n' >"mini/tests/cli/$n.sh"
done
VT_SHARED=$VT_SHARED bash mini/tests/run.sh build >runner.out 2>&1 || { cat runner.out; die "the mini run failed"; }
for k in 1 2 3; do
	expect_line runner.out "^\[$k/3\] ok   build/00$k-" "progress [$k/3]"
done

# 8. vaggregate counts every skipped file
mkdir sk
"$VANALYZE" -q --json sk/r0.json "$T/dev-2rank-default-rank0.trace.json.gz" 2>/dev/null
"$VANALYZE" -q --json sk/r1.json "$T/dev-2rank-default-rank1.trace.json.gz" 2>/dev/null
echo '{"a": 1}' >sk/other.json
echo 'xx' >sk/bad.json
echo '{"schema": "vtrace.report/2", "ranks": [' >sk/cut.json
cp "$T/dev-2rank-default-rank0.trace.json.gz" sk/t.json.gz
vg sk sk
expect_rc sk 1
n=$(grep -c 'skipped$' sk.err)
[ "$n" = 4 ] || die "$n lines say skipped, the setup made 4"
expect_line sk.err '^vaggregate: 2 of 6 files skipped and 2 other JSON files passed over \(lines above\); the other reports were merged$' \
	"the closing count"

# 10. one video against two: per video, said
vc vid --json vid.cmp two-ranks four-ranks
expect_rc vid 1
expect_line vid.out '^totals compared per video: base profiled 1, new 2$' "the counts differ"
check vid.cmp 'r["totals_per_step"] == {"per": "generation", "base": 1, "new": 2}' "per video" \
	'[x for x in r["rows"] if x["metric"] == "phase:inference_denoising.total_ns" and x["rank"] is None][0]["delta_pct"] < 1' \
	"inference_denoising's total per video, not +227 %"
echo "ok"
