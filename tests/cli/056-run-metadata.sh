#!/usr/bin/env bash
# What was profiled travels with the trace (run_info.h): the top-level keys
# torch.profiler's add_metadata() and add_metadata_json() write become the
# rank's tags in report.json (inputs[].tags) and the run's (run.tags), with
# the device model, device count, world size, backend and date; the profiler's
# own keys are not tags.  The terminal's run line and the page's header name
# them; ranks that disagree are warned about; vcompare names the keys in which
# two runs differ, and --strict makes that an error.  Hostile metadata (huge,
# nested, control characters, too many keys) is bounded and escaped.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vcompare
need_vaggregate

GPU=$VT_ROOT/testdata/gpu
python3 - "$GPU/pipeline.trace.json.gz" <<'PY'
import gzip, json, sys
base = json.loads(gzip.open(sys.argv[1]).read())

def write(path, extra):
    d = dict(base)
    d.update(extra)
    with gzip.open(path, "wt") as f:
        json.dump(d, f)

# as add_metadata("model", "wan2.1") and add_metadata_json("cfg", '{"steps": 50, ...}') write them
meta = {"model": "wan2.1", "resolution": "480x832", "num_frames": 81,
        "cfg": {"steps": 50, "sampler": "unipc", "shift": [5.0, 3.0]}}
write("a-rank0.trace.json.gz", dict(meta, distributedInfo={"backend": "nccl", "rank": 0, "world_size": 2}))
write("a-rank1.trace.json.gz", dict(meta, distributedInfo={"backend": "nccl", "rank": 1, "world_size": 2}))
write("b-rank0.trace.json.gz", dict(meta, model="wan2.2", distributedInfo={"backend": "nccl", "rank": 0, "world_size": 2}))
write("b-rank1.trace.json.gz", dict(meta, model="wan2.1", distributedInfo={"backend": "nccl", "rank": 1, "world_size": 2}))
write("c-rank1.trace.json.gz", dict(meta, model="wan2.2", distributedInfo={"backend": "nccl", "rank": 1, "world_size": 2}))
hostile = {"k%03d" % i: "v%d" % i for i in range(100)}
hostile.update({"big": "x" * 1000000, "nested": {"a": [[[{"b": "\u00e9" * 200}]]]},
                "esc\u001b]0;title\u0007": "\u001b[2J\u202eevil\u0085", "name": "hostile \u001b[31m"})
write("h.trace.json.gz", hostile)
PY

COLUMNS=200 va a --json a.json --out aout a-rank0.trace.json.gz a-rank1.trace.json.gz
expect_rc a 0
python3 - a.json "$GPU/pipeline.trace.json.gz" <<'PY' || die "the run's metadata is wrong in report.json"
import gzip, json, sys
r = json.load(open(sys.argv[1]))
trace = json.loads(gzip.open(sys.argv[2]).read())
fails = []
want = {"model": "wan2.1", "resolution": "480x832", "num_frames": "81",
        "cfg": {"steps": 50, "sampler": "unipc", "shift": [5.0, 3.0]}}
for inp in r["inputs"]:
    tags = inp["tags"]
    if list(tags) != list(want):
        fails.append("tags of %s: %r" % (inp["path"], list(tags)))
    for k, v in want.items():
        got = tags.get(k)
        if isinstance(v, dict):	# a JSON value: its text, which parses back to it
            got = json.loads(got) if got else got
        if got != v:
            fails.append("%s: %r, want %r" % (k, got, v))
    if inp["device_name"] != trace["deviceProperties"][0]["name"]:
        fails.append("device_name %r" % inp["device_name"])
    if inp["devices_listed"] != len(trace["deviceProperties"]) or inp["backend"] != "nccl":
        fails.append("devices_listed %r backend %r" % (inp["devices_listed"], inp["backend"]))
run = r["run"]
if run["name"] != "a" or run["device"] != {"name": trace["deviceProperties"][0]["name"], "count": 2}:
    fails.append("run name/device %r %r" % (run["name"], run["device"]))
if run["world_size"] != 2 or run["backend"] != "nccl" or run["differs"] != []:
    fails.append("run world_size/backend/differs %r" % run)
if run["start_unix_ns"] != min(i["start_unix_ns"] for i in r["inputs"]) or not run["date"].endswith("Z"):
    fails.append("run start %r %r" % (run["start_unix_ns"], run["date"]))
if run["tags"]["model"] != "wan2.1":
    fails.append("run tags %r" % run["tags"])
print("\n".join(fails) or "ok: tags, device, world size and date in report.json")
sys.exit(1 if fails else 0)
PY
line=$(grep '^run  ' a.out) || die "no run line in the summary: $(head -3 a.out)"
case $line in
*"a: 2 x "*"world size 2 (nccl)"*"model=wan2.1"*) ;;
*) die "run line: $line" ;;
esac
grep -q '<h1>a</h1>' aout/report.html || die "the page is not titled after the run"
grep -q '<dt>model</dt><dd>wan2.1</dd>' aout/report.html || die "the page's header lacks the tags"

# ranks that disagree on the model are two runs: refused, then merged on request,
# warned about and listed in run.differs
va bno --json bno.json b-rank0.trace.json.gz b-rank1.trace.json.gz
expect_rc bno 2
va b --json b.json --merge-runs b-rank0.trace.json.gz b-rank1.trace.json.gz
expect_rc b 0
grep -q 'ranks disagree on what was profiled: model' b.err || die "no warning of the ranks' difference: $(cat b.err)"
check b.json 'r["run"]["differs"] == ["model"]' "run.differs"
# ranks that disagree on many keys: all in run.differs, the warning one short line
python3 - "$GPU/pipeline.trace.json.gz" <<'PY'
import gzip, json, sys
base = json.loads(gzip.open(sys.argv[1]).read())
for rank in (0, 1):
    d = dict(base, distributedInfo={"backend": "nccl", "rank": rank, "world_size": 2})
    d.update({"key%02d" % i: "rank%d" % rank for i in range(20)})
    with gzip.open("d-rank%d.trace.json.gz" % rank, "wt") as f:
        json.dump(d, f)
PY
va d --json d.json --merge-runs d-rank0.trace.json.gz d-rank1.trace.json.gz
expect_rc d 0
check d.json 'len(r["run"]["differs"]) == 20' "run.differs keeps every key"
grep -q 'disagree on what was profiled: key00, [^(]*, key07 and 12 more (' d.err ||
	die "the warning does not stop at 8 keys: $(cat d.err)"

# vcompare names the keys that differ, and --strict refuses to compare
va b0 --json b0.json b-rank0.trace.json.gz
va a0 --json a0.json a-rank0.trace.json.gz
run_as cmp "$VCOMPARE" a0.json b0.json
grep -q 'differs: model (wan2.1 -> wan2.2)' cmp.out || die "vcompare does not name the difference: $(head -5 cmp.out)"
grep -q 'base and new differ in what was profiled: model' cmp.err || die "vcompare's warning: $(cat cmp.err)"
run_as strict "$VCOMPARE" --strict a0.json b0.json
expect_rc strict 2
run_as same "$VCOMPARE" --strict a.json a.json
expect_rc same 0
no_line same.err 'differ in what was profiled' "vcompare over one run"
run_as js "$VCOMPARE" --json cmp.json a.json b0.json
check cmp.json 'r["run_differs"] == {"devices": ["2", "1"], "model": ["wan2.1", "wan2.2"]}' \
	"vcompare's JSON run_differs (two devices against one, and the model)"

# vaggregate tells runs apart by what was profiled before time: same hour, other model
va c1 --json c1.json c-rank1.trace.json.gz
run_as agg "$VAGGREGATE" --json agg.json a0.json c1.json
grep -q 'these reports come from 2 different runs' agg.err || die "vaggregate merged two models silently: $(cat agg.err)"
run_as agg1 "$VAGGREGATE" --json agg1.json a.json
no_line agg1.err 'different runs' "vaggregate over one run"

# hostile metadata: bounded, escaped everywhere, the rest counted
va h --json h.json --out hout h.trace.json.gz
expect_rc h 0
grep -q 'metadata keys beyond the first 32 left out' h.json || die "the dropped keys are not counted"
python3 - h.json hout <<'PY' || die "hostile metadata not bounded or not escaped"
import json, sys
r = json.load(open(sys.argv[1]))
tags = r["inputs"][0]["tags"]
fails = []
if len(tags) != 32:
    fails.append("%d tags kept" % len(tags))
for k, v in tags.items():
    if len(k.encode()) > 63 or len(v.encode()) > 255:
        fails.append("%r not cut: %d/%d bytes" % (k[:20], len(k.encode()), len(v.encode())))
    if any(ord(c) < 0x20 for c in k):
        fails.append("control character in key %r" % k)
page = open(sys.argv[2] + "/report.html", encoding="utf-8").read()
if "\x1b" in page or "<dd>\u001b" in page:
    fails.append("ESC on the page")
print("\n".join(fails) or "ok: hostile metadata bounded and escaped")
sys.exit(1 if fails else 0)
PY
if grep -q $'\x1b' h.out h.err; then die "ESC reached the terminal"; fi
if grep -q $'\xc2\x85' h.out; then die "a C1 control reached the terminal"; fi

# A pretty-printed top-level object (HTA-style "metadata") is one compact
# piece of the run line, never its raw line breaks; the user and host stay
# out of the summary and the page unless --details asks; report.json keeps all.
python3 - "$GPU/pipeline.trace.json.gz" <<'PY'
import gzip, json, sys
d = json.loads(gzip.open(sys.argv[1]).read())
d.update({"metadata": {"num_errors": 0, "tool": "hta", "ranks": [0, 1]}, "model": "wan2.1",
          "username": "alice.doe", "host_name": "node-17.example"})
with gzip.open("p.trace.json.gz", "wt") as f:
    json.dump(d, f, indent=4)
PY
for cols in 80 200; do
	COLUMNS=$cols va p$cols --json p.json --html p.html p.trace.json.gz
	expect_rc p$cols 0
	[ "$(grep -c '^run  ' p$cols.out)" = 1 ] || die "p$cols: not one run line"
	expect_line p$cols.out '^run  .*; metadata=\{"num_errors":0,' "p$cols: the object, compact"
	grep -A1 '^run  ' p$cols.out | tail -n 1 | grep -q '^rank ' ||
		die "p$cols: the run line goes on: $(grep -A1 '^run  ' p$cols.out)"
	no_line p$cols.out 'alice|node-17|username|host_name' "p$cols: the user or host on the summary"
done
no_line p200.out '^run  .*\?' "p200: a control character on the run line"
if grep -Eq 'alice|node-17' p.html; then die "the page names the user or the host"; fi
grep -q '2 naming a user or a host: in report.json' p.html || die "the page does not say where they went"
check p.json 'r["inputs"][0]["tags"]["username"] == "alice.doe"' "the user in report.json" \
	'json.loads(r["inputs"][0]["tags"]["metadata"]) == {"num_errors": 0, "tool": "hta", "ranks": [0, 1]}' \
	"the object whole in report.json"
COLUMNS=200 va pd --details p.trace.json.gz
expect_rc pd 0
expect_line pd.out '^run  .*username=alice\.doe host_name=node-17\.example' "--details shows the user and host"

# the shared MTIA trace: its add_metadata() keys are tags, its logs and profiler keys are not
need_shared
va m --json m.json "$PUBLIC"/facebookresearch__HolisticTraceAnalysis/*mtia_inference_rank_0*.json.gz
check m.json '"tw_job" in r["inputs"][0]["tags"] and "username" in r["inputs"][0]["tags"]' "MTIA tags" \
	'not set(r["inputs"][0]["tags"]) & {"INFO", "ERROR", "schemaVersion", "deviceProperties", "traceName"}' \
	"no profiler keys among the tags"
no_line m.out 'username=' "the MTIA trace's user on the summary"
