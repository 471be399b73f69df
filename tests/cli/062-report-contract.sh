#!/usr/bin/env bash
# The report contract is in the repository (doc/report.md) and whole: every
# key that lib/model/report.c and the field tables of report_fields.c write
# is documented there.  Two checks:
#
# - the key paths of real reports: vanalyze over the demo set with every
#   throughput option, a trace with tags, and (with ../shared) the 8 DLRM
#   ranks (collectives, stragglers, memory), the torch-cpu straggler run
#   (legacy writer, CPU collectives), a Kineto 2021 trace (memory as running
#   sums), a ROCm graph-replay trace, the HTA NCCL trace (message sizes) and
#   an Ascend trace (HCCL's own tasks);
#   vaggregate's compact and full reports.  Each path (ranks[].gpu.busy_ns;
#   keys of maps as *) must be a row of doc/report.md;
# - every key name report.c passes to the JSON writer, and every key of a
#   field table, must appear in doc/report.md, for keys that no input here
#   makes.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vaggregate

DEMO=$VT_ROOT/testdata/demo
va demo --frames 81 --target-fps 16 --frames-per-block 7 --json demo.json "$DEMO"
expect_rc demo 0
python3 - "$DEMO/fastvideo-rank0.trace.json.gz" <<'PY' || die "cannot write the tagged trace"
import gzip, json, sys
d = json.loads(gzip.open(sys.argv[1]).read())
d["model"] = "wan2.1"
d["cfg"] = {"steps": 4}
with gzip.open("tagged-rank0.trace.json.gz", "wt") as f:
    json.dump(d, f)
PY
va tagged --json tagged.json tagged-rank0.trace.json.gz
expect_rc tagged 0
mkdir -p maps/0 maps/1
va map0 -q --json maps/0/report.json "$DEMO/fastvideo-rank0.trace.json.gz"
va map1 -q --json maps/1/report.json "$DEMO/fastvideo-rank1.trace.json.gz"
vg compact --json compact.json --reports_dir maps
vg full --full --json full.json --reports_dir maps
reports="demo.json tagged.json maps/0/report.json compact.json full.json"

if [ -d "$PUBLIC" ] && [ -d "$TORCH_CPU" ]; then
	H=$PUBLIC/facebookresearch__HolisticTraceAnalysis
	va dlrm -q --json dlrm.json "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*.json.gz
	va cpu -q --json cpu.json "$TORCH_CPU"/dev-4rank-straggler2-rank*.trace.json.gz
	va k2021 -q --json k2021.json \
		"$PUBLIC"/pytorch__kineto/at-be239c04__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
	va rocm -q --json rocm.json \
		"$PUBLIC"/AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz
	va nccl -q --json nccl.json "$H"/tests__data__nccl_parser_config__nccl_data.json.gz
	va npu -q --json npu.json \
		"$PUBLIC"/Ascend__msinsight/test__data__pytorch__text__level0__rank0_ascend_pt__ASCEND_PROFILER_OUTPUT__trace_view.json.gz
	reports="$reports dlrm.json cpu.json k2021.json rocm.json nccl.json npu.json"
else
	echo "note: no shared traces at $TRACES: the keys of the demo reports only"
fi

# Null means unknown, with no exception: a rank without steps has
# steps.count 0 and null statistics; memory events without Total Reserved
# (Kineto 2021 writes only Bytes) give peak_reserved null, not 0.  Both
# survive vaggregate's reading of the report.
python3 - <<'PY'
import json
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100 + 20 * i,
       "dur": 10} for i in range(10)]
ev += [{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
        "ts": 105 + 20 * i, "args": {"Device Id": 0, "Device Type": 1, "Addr": 4096 * i,
                                     "Bytes": 1024}} for i in range(4)]
json.dump({"traceEvents": ev, "schemaVersion": 1}, open("nosteps-rank0.json", "w"))
PY
va nosteps -q --json nosteps.json nosteps-rank0.json
expect_rc nosteps 0
mkdir -p nsmap && cp nosteps.json nsmap/report.json
vg nsagg -q --json nsagg.json --reports_dir nsmap
expect_rc nsagg 0
for f in nosteps.json nsagg.json; do
	check $f 'r["ranks"][0]["steps"]["count"] == 0' "$f: no steps, count 0" \
		'all(r["ranks"][0]["steps"][k] is None for k in ("avg_ns", "median_ns", "min_ns", "max_ns", "stddev_ns"))' \
		"$f: the statistics of no steps null" \
		'[(m["device"], m["peak_allocated"], m["peak_reserved"]) for m in r["ranks"][0]["memory"]] == [(0, 4096, None)]' \
		"$f: peak_reserved without Total Reserved null"
done
if grep -qi 'exception' "$VT_ROOT/doc/report.md"; then die "doc/report.md still lists an exception to null"; fi
reports="$reports nosteps.json"

# shellcheck disable=SC2086
python3 - "$VT_ROOT/doc/report.md" "$VT_ROOT/lib/model/report.c" \
	"$VT_ROOT/lib/model/report_fields.c" "$VT_ROOT/lib/model/report.h" $reports <<'PY' ||
import json, re, sys

doc_path, writer, tables, header = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
reports = sys.argv[5:]
doc = open(doc_path, encoding="utf-8").read()

# Objects whose keys are data (tags, event phases and cats, metric names, the
# causes of doc/idle.md, the operator families of perf): their keys are written as "*".
MAPS = {"run.tags", "inputs[].tags", "ranks[].events.by_ph", "ranks[].events.by_cat",
        "cross_rank", "ranks[].idle.by_cause", "ranks[].idle.outside.by_cause",
        "ranks[].perf.families"}

def walk(v, path, out):
    if isinstance(v, dict):
        for k, x in v.items():
            p = (path + "." if path else "") + ("*" if path in MAPS else k)
            out.add(p)
            walk(x, p, out)
    elif isinstance(v, list):
        for x in v:
            walk(x, path + "[]", out)

seen = set()
for r in reports:
    walk(json.load(open(r, encoding="utf-8")), "", seen)

# the rows of doc/report.md's tables: | `path` | type | meaning |
rows = set(re.findall(r"^\| `([^`]+)` \|", doc, re.M))
bad = 0
missing = sorted(seen - rows)
if missing:
    print("doc/report.md has no row for these keys of real reports:")
    for p in missing:
        print("  " + p)
    bad = 1
else:
    print("pass: all %d key paths of %d reports are rows of doc/report.md" % (len(seen), len(reports)))

# every key name the writer passes to jsonw: jsonw_key(w, "x"), i64(w, "x"), ...
src = open(writer, encoding="utf-8").read()
names = set(re.findall(r"\b(?:jsonw_key|i64|num|i64_or_null|str_or_null|quantiles_json|counts|tags_json)"
                       r"\(\s*&?w,\s*\"(\w+)\"", src))
# ... and every key of the field tables: { K("name", FT_STR, ...) }
src = open(tables, encoding="utf-8").read()
names |= set(re.findall(r"\b[A-Z]+\(\s*\"(\w+)\",\s*FT_", src))
# ... and the keys outside every table, spelled once in report.h
names |= set(re.findall(r"^#define REPORT_KEY_\w+\s+\"(\w+)\"", open(header).read(), re.M))
documented = {p.rsplit(".", 1)[-1].replace("[]", "") for p in rows}
undocumented = sorted(n for n in names if n not in documented)
if len(names) < 50 or undocumented:
    print("report.c and report_fields.c write keys doc/report.md does not name: %s"
          % " ".join(undocumented or ["(too few keys found: %d)" % len(names)]))
    bad = 1
else:
    print("pass: all %d key names in report.c and report_fields.c are in doc/report.md"
          % len(names))
sys.exit(bad)
PY
	die "doc/report.md is not the whole report contract"
