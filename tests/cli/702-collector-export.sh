#!/usr/bin/env bash
# vtrace-export: a C program's .vtr (collector_demo) as Chrome trace JSON,
# gzipped and plain, that python's json module reads with every odd region
# name intact or replaced (invalid UTF-8), times exact to the nanosecond; a
# file cut by SIGKILL exports what it holds with a warning and exit 1; bad input and
# bad usage give the documented exit codes.
. "$VT_ROOT/tests/cli/lib.sh"

command -v python3 >/dev/null || skip "no python3"
EXPORT=$VT_BUILD/vtrace-export
DEMO=$VT_BUILD/tests/collector_demo
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

VTRACE_RANK=2 "$DEMO" out demo 2>demo.err || die "collector_demo failed: $(cat demo.err)"
"$EXPORT" out/demo-rank2.vtr 2>default.err || die "export failed: $(cat default.err)"
[ -f out/demo-rank2.trace.json.gz ] || die "default output name is not FILE.trace.json.gz"
"$EXPORT" out/demo-rank2.vtr -o plain.json 2>plain.err || die "plain export failed"
# the one line is where it wrote (the default name is not obvious)
[ "$(cat default.err)" = "vtrace-export: wrote out/demo-rank2.trace.json.gz" ] &&
	[ "$(cat plain.err)" = "vtrace-export: wrote plain.json" ] ||
	die "more than where it wrote on a complete file: $(cat default.err plain.err)"
ls ./*.tmp* out/*.tmp* 2>/dev/null && die "temporary files left behind"

python3 - out/demo-rank2.trace.json.gz plain.json <<'PY' || die "exported JSON is wrong"
import collections, gzip, json, sys

docs = [json.load(gzip.open(sys.argv[1], "rt", encoding="utf-8")),
        json.load(open(sys.argv[2], encoding="utf-8"))]
assert docs[0] == docs[1], "gzip and plain output differ"
doc = docs[0]
ev = doc["traceEvents"]
x = collections.Counter(e["name"] for e in ev if e["ph"] == "X")
for n, c in {"generate": 1, "text_encode": 1, "denoise": 1, "vae_decode": 1,
             "denoise_step_0": 1, "denoise_step_3": 1, "block_0": 4, "block_2": 4}.items():
    assert x[n] == c, "%s: %d, want %d" % (n, x[n], c)
odd = ['quote" back\\slash', "tab\tnew\nline", "ctl\x01\x1f", "bad utf8 \ufffd\ufffd\ufffd",
       "utf8 \u00e9\u2713", "</script>"]
for n in odd:
    assert x[n] == 1, "odd name %r missing; have %r" % (n, sorted(x))
assert sum(e["args"]["value"] for e in ev if e["name"] == "vtrace.frames") == 16
assert sum(e["args"]["value"] for e in ev if e["name"] == "vtrace.blocks") == 12
assert [e["args"]["value"] for e in ev if e["name"] == "queue_depth"] == [4, 3, 2, 1]
assert any(e["ph"] == "i" and e["name"] == "done" and e["s"] == "t" for e in ev)
assert any(e["ph"] == "M" and e["name"] == "process_name" for e in ev)
assert doc["distributedInfo"]["rank"] == 2 and doc["vtrace"]["name"] == "demo"
assert doc["vtraceInput"]["complete"] is True and doc["vtraceInput"]["warnings"] == []
pids = {e["pid"] for e in ev}
assert len(pids) == 1 and isinstance(pids.pop(), int), "pid is one integer"
PY
# Timestamps are exact decimals: three digits after the point, never exponents.
grep -o '"ts": [^,}]*' plain.json | grep -vqE '^"ts": [0-9]+\.[0-9]{3}$' &&
	die "a timestamp is not microseconds with three decimals"

# A run killed after a flush: what was flushed, a warning, exit 1 as vanalyze
# exits on the same file (0 would let scripts take the export as whole).
{ "$DEMO" killed demo --kill; } 2>/dev/null
[ -f killed/demo-rank0.vtr ] || die "no file from the killed run"
"$EXPORT" killed/demo-rank0.vtr -o killed.json 2>killed.err
rc=$?
[ "$rc" -eq 1 ] || die "export of a cut file: exit $rc, expected 1"
[ -s killed.json ] || die "export of a cut file wrote nothing"
expect_line killed.err '^vtrace-export: warning: killed/demo-rank0.vtr: byte [0-9]+: no end record' \
	"warning for a killed run"
python3 - killed.json <<'PY' || die "export of the killed run is wrong"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
ev = doc["traceEvents"]
assert doc["vtraceInput"]["complete"] is False
assert any(e["ph"] == "X" and e["name"] == "vae_decode" for e in ev)
assert not any(e["name"] == "unfinished" for e in ev), "recorded after the last flush"
PY

# A whole file corrupted from its middle on (its blocks' headers too): what
# reads, a warning, exit 1 (as vanalyze).
python3 - out/demo-rank2.vtr corrupt.vtr <<'PY' || die "cannot corrupt a copy"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(len(b) // 2, len(b)):
    b[i] ^= 0x5a
open(sys.argv[2], "wb").write(b)
PY
"$EXPORT" corrupt.vtr -o corrupt.json 2>corrupt.err
rc=$?
[ "$rc" -eq 1 ] || die "export of a corrupt file: exit $rc, expected 1"
expect_line corrupt.err '^vtrace-export: warning: corrupt.vtr: byte [0-9]+: ' "warning for a corrupt file"
"$VT_BUILD/vanalyze" -q --json corrupt.report corrupt.vtr 2>/dev/null
[ $? -eq 1 ] || die "vanalyze and vtrace-export disagree on the corrupt file"

# Not a .vtr file: exit 1, a message naming it, no output left.
echo '{"traceEvents": []}' >not.vtr
"$EXPORT" not.vtr -o not.json 2>not.err
rc=$?
[ "$rc" -eq 1 ] || die "not a .vtr: exit $rc, expected 1"
expect_line not.err "^vtrace-export: not.vtr: byte 0: not a vtrace raw file" "bad input message"
[ -e not.json ] || compgen -G "not.json.tmp*" >/dev/null && die "output left behind for a bad input"
"$EXPORT" missing.vtr -o m.json 2>missing.err
[ $? -eq 1 ] || die "missing input: expected exit 1"
expect_line missing.err "^vtrace-export: missing.vtr: cannot open: No such file" "missing input"

# Usage.
"$EXPORT" >usage.out 2>usage.err
[ $? -eq 2 ] || die "no arguments: expected exit 2"
expect_line usage.err "try 'vtrace-export --help'" "usage hint"
"$EXPORT" --bogus x.vtr 2>/dev/null
[ $? -eq 2 ] || die "unknown option: expected exit 2"
"$EXPORT" --help >help.out 2>help.err || die "--help failed"
expect_line help.out '^usage: vtrace-export' "--help on stdout"
[ -s help.err ] && die "--help wrote to stderr"

# An unwritable output: exit 1 with the path.
"$EXPORT" out/demo-rank2.vtr -o nodir/x.json 2>nodir.err
[ $? -eq 1 ] || die "unwritable output: expected exit 1"
expect_line nodir.err "cannot write 'nodir/x.json'" "unwritable output message"
exit 0
