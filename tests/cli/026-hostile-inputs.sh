#!/usr/bin/env bash
# Hostile traces and raw files: each
# reproducer is generated here by tests/hostile_inputs.py and must run
# without undefined behaviour (this test runs in the sanitizer build too),
# in memory and time that do not blow up, and with its names shown safely.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_shared
gen() { python3 "$VT_ROOT/tests/hostile_inputs.py" "$@" || die "cannot write $2"; }

# measure NAME LIMIT_MB LIMIT_S CMD...: run CMD as run_as does, and fail when
# its peak RSS or wall time passes the limits (ASan's shadow memory included).
measure() {
	local name=$1 mb=$2 secs=$3
	shift 3
	python3 - "$name" "$mb" "$secs" "$@" <<'PY' || die "$name: over its limits (line above)"
import resource, subprocess, sys, time
name, mb, secs, cmd = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]
t = time.monotonic()
with open(name + ".out", "wb") as o, open(name + ".err", "wb") as e:
    rc = subprocess.call(cmd, stdout=o, stderr=e, stdin=subprocess.DEVNULL)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
open(name + ".rc", "w").write("%d\n" % rc)
print("%s: %.1f s, %.0f MB" % (name, wall, rss))
if rss > mb or wall > secs:
    sys.exit("%s: %.1f s (limit %g), peak RSS %.0f MB (limit %d)" % (name, wall, secs, rss, mb))
PY
}

# --- 2, 8, 10, 11: empty, NUL-carrying, formula and C1-control names --------
gen names names.json
va names --out out names.json
expect_rc names 0
python3 - out names.out <<'PY' || die "hostile names (lines above)"
import csv, json, os, sys
sys.path.insert(0, os.path.join(os.environ["VT_ROOT"], "tests"))
from hostile_inputs import NAMES
d, term = sys.argv[1], open(sys.argv[2], "rb").read()
r = json.load(open(d + "/report.json"))["ranks"][0]
bad = []
# 8: every name keeps its bytes, NUL and all: one row each, two events each
rows = {k["name"]: k["count"] for k in r["kernels"]}
if rows != {n: 2 for n in NAMES}:
    bad.append("kernel rows %r" % rows)
paths = sorted(p["path"] for p in r["phases"])
if paths != sorted(["", "ab\0x", '=HYPERLINK("x")']):
    bad.append("phase paths %r" % paths)
# 11: the terminal gets no ESC, no C1 control, no invalid UTF-8; NUL as \0
try:
    term.decode("utf-8")
except UnicodeDecodeError as e:
    bad.append("terminal output is not UTF-8: %s" % e)
for c in [b"\x1b"] + [bytes([0xc2, x]) for x in range(0x80, 0xa0)]:
    if c in term:
        bad.append("terminal output holds control %r" % c)
if b"ab\\0x" not in term or b"csi ?31m red ?0m" not in term:
    bad.append("terminal output does not show the names escaped")
# 10: CSV cells that a spreadsheet would run start with a quote; 8: NUL as U+2400
with open(d + "/tables/kernels.csv", newline="", encoding="utf-8") as f:
    cells = {row["name"] for row in csv.DictReader(f)}
for n in NAMES:
    shown = n.replace("\0", "\u2400").replace("\r", "\ufffd")
    shown = "".join("\ufffd" if 0x80 <= ord(c) < 0xa0 else c for c in shown)
    if n[:1] in ("=", "+", "-", "@", "\t", "\r"):
        shown = "'" + shown
    if shown not in cells:
        bad.append("CSV lacks %r (cells %r)" % (shown, sorted(cells)))
for c in cells:
    if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
        bad.append("CSV cell %r starts a formula" % c)
# 11, 8: the page shows no C1 control and NUL as U+2400
html = open(d + "/report.html", encoding="utf-8").read()
if any(0x80 <= ord(c) < 0xa0 for c in html) or "\0" in html:
    bad.append("C1 control or NUL in the page")
if "ab\u2400cd" not in html:
    bad.append("the page does not show ab\u2400cd")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
# 8: a schema followed by more bytes is no schema
gen schema nulschema.json out/report.json
vg schema nulschema.json
expect_rc schema 1
expect_line schema.err 'report schema .*u0000x" is not vtrace.report/1' "a schema with a NUL and more is refused"
echo "pass: empty, NUL, formula and C1 names: JSON keeps them, terminal, HTML and CSV escape them"

# --- 5: 20,000 nested spans: linear memory, a depth limit and a warning -------
gen deep deep.json 20000
measure deep 400 60 "$VANALYZE" --json deep.report deep.json
expect_rc deep 0
check deep.report 'max(p["depth"] for p in r["ranks"][0]["phases"]) == 63' "phases stop at depth 63" \
	'len(r["ranks"][0]["phases"]) == 64' "one row per level kept" \
	'"19936 annotation spans nested more than 64 deep left out of the phases" in r["ranks"][0]["warnings"]' \
	"the left-out spans are warned about"
[ "$(stat -c %s deep.report)" -lt 200000 ] || die "deep.report is $(stat -c %s deep.report) bytes"
echo "pass: 20,000 nested spans: bounded memory and report, warned"

# --- correlations crafted to collide: 100,000 of them in what a fixed
# multiplicative hash makes one slot stay linear (quadratic probing took 16.7 s
# here when launches were hashed that way; they are sorted now) ---------------
gen collide collide.json.gz 100000
measure collide 400 10 "$VANALYZE" -q --json collide.report collide.json.gz
expect_rc collide 0
check collide.report '[(c["name"], c["device_ns"]) for c in r["ranks"][0]["cpu_ops"]] == [("outer", 100000 * 2000)]' \
	"every kernel placed at its launch inside the one operator"
echo "pass: 100,000 colliding correlations: linear time, every kernel placed"

# --- kernel names crafted to share one string hash whatever its seed, were it
# the multiply-xorshift hash strtab had (42 s with it); keyed, the hash parts
# them: 1.3 s here, 3.0 s under the sanitizers -------------------------------
gen flood flood.json 60000
# --full: every row, not the 500 of report.json's cap
measure flood 600 12 "$VANALYZE" -q --full --json flood.report flood.json
expect_rc flood 0
check flood.report 'len(r["ranks"][0]["kernels"]) == 60000' "one row per name" \
	'len({k["name"] for k in r["ranks"][0]["kernels"]}) == 60000' "the names kept apart" \
	'all(k["count"] == 1 for k in r["ranks"][0]["kernels"])' "each kernel counted once"
echo "pass: 60,000 names built to collide: linear time, every name its own row"

# --- [memory] events of 100,000 device ids: rows for the first 256 only (a
# row per id took 16.6 s here, a scan per event over all rows), the rest counted
# in a warning ---------------------------------------------------------------
gen devices devices.json.gz 100000
measure devices 400 10 "$VANALYZE" -q --json devices.report devices.json.gz
expect_rc devices 0
check devices.report '[m["device"] for m in r["ranks"][0]["memory"]] == list(range(256))' \
	"rows for the first 256 devices" \
	'[m["peak_allocated"] for m in r["ranks"][0]["memory"][:2]] == [100000, 100001]' \
	"each kept device has both its events" \
	'"199488 memory events of devices beyond the first 256 left out of the memory rows" in r["ranks"][0]["warnings"]' \
	"the left-out events are warned about"
echo "pass: 100,000 memory devices: bounded rows, time and memory, warned"

# --- 6: one 16 MB event over 256 chunks: linear time (rescanning it from its
# start for every chunk, as before, would parse about 2 GB) -----------------------
gen big big.json.gz 16
VTRACE_CHUNK_SIZE=65536 measure big1 600 20 "$VANALYZE" -j 1 --json big1.report big.json.gz
expect_rc big1 0
VTRACE_CHUNK_SIZE=65536 measure big2 600 20 "$VANALYZE" -j 2 --json big2.report big.json.gz
expect_rc big2 0
cmp -s big1.report big2.report || die "-j 1 and -j 2 differ on the big event"
check big1.report 'r["ranks"][0]["complete"] and [c["name"] for c in r["ranks"][0]["cpu_ops"]] == ["big0"]' \
	"the big event is read" \
	'r["ranks"][0]["kernels"][0]["name"] == "after"' "the event after it is read"
echo "pass: a 16 MB event over 256 chunks is read in linear time"

# --- 7: pipes, FIFOs and /dev/stdin read as '-' is -----------------------------
T=$TORCH_CPU/dev-2rank-default-rank0.trace.json.gz
va file --json file.report "$T"
expect_rc file 0
run_as subst bash -c '"$VANALYZE" --json subst.report <(gzip -dc "$1")' _ "$T"
expect_rc subst 0
mkfifo fifo
(gzip -dc "$T" >fifo &)
va fifo --json fifo.report fifo
expect_rc fifo 0
run_as stdin bash -c 'gzip -dc "$1" | "$VANALYZE" --json stdin.report /dev/stdin' _ "$T"
expect_rc stdin 0
for f in subst fifo stdin; do
	check $f.report 'all(r["ranks"][0][k] == load("file.report")["ranks"][0][k]
		for k in r["ranks"][0] if k not in ("source", "warnings"))' "$f reads as the file does"
done
echo "pass: <(zcat), a FIFO and /dev/stdin read like the file"

# --- 12: a .vtr whose string id or block size the file cannot back --------------
python3 - <<'PY' || die "cannot write the .vtr files"
import struct
def block(kind, arg, payload, size=None):
    return struct.pack("<IHHII", 0x4b4c4256, kind, 0,
                       len(payload) if size is None else size, arg) + payload
head = (b"\x89VTR\r\n\x1a\n" + struct.pack("<IIII", 1, 256, 0x01020304, 16) +
        struct.pack("<qqqqiI", 0, 0, 0, 1, 1, 0)).ljust(256, b"\0")
name = struct.pack("<I", 4) + b"step"
ev = struct.pack("<qII", 10, 1 | 1 << 8, 0) + struct.pack("<qII", 20, 2, 0)
open("id.vtr", "wb").write(head + block(1, 1, name) + block(2, 1, ev) +
                           block(1, (1 << 24) - 2, name) + b"\0" * 1500)
open("size.vtr", "wb").write(head + block(1, 1, name) + block(2, 1, ev) +
                             block(2, 1, b"\0" * 1500, size=200 << 20))# frame counts that sum past INT64_MAX, a region whose end is past 2^62 ns
M = 2**63 - 1
vals = (struct.pack("<qII", 1, 6, 0) + struct.pack("<qII", M, 8, 0) +
        struct.pack("<qII", 2, 6, 0) + struct.pack("<qII", M, 8, 0) +
        struct.pack("<qII", -M, 1 | 1 << 8, 0) + struct.pack("<qII", M, 2, 0) +
        struct.pack("<qII", 10, 1 | 1 << 8, 0) + struct.pack("<qII", 20, 2, 0))
open("vals.vtr", "wb").write(head + block(1, 1, name) + block(2, 1, vals) +
                             block(3, 0, struct.pack("<qQQQ", 30, 8, 0, 0)))
PY
measure vtrid 150 60 "$VANALYZE" --json id.report id.vtr
expect_rc vtrid 1
expect_line vtrid.err 'bad string block' "a string id past the table is refused"
measure vtrsize 150 60 "$VANALYZE" --json size.report size.vtr
expect_rc vtrsize 1
expect_line vtrsize.err 'last block cut off: [0-9]+ of its 209715200 bytes' "a block past the file"
check id.report '[p["name"] for p in r["ranks"][0]["phases"]] == ["step"]' "what came before is kept"
va vals --json vals.report vals.vtr
expect_rc vals 0
expect_line vals.err "1 record with times beyond \+-2\^62 ns left out" "a region past 2^62 ns"
check vals.report 'r["ranks"][0]["throughput"]["frames"] == 2**63 - 1' "frame counts stop at INT64_MAX" \
	'[p["count"] for p in r["ranks"][0]["phases"]] == [1]' "the region in range is kept"
echo "pass: .vtr string ids and block sizes checked against the file before allocating"
