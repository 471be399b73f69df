#!/usr/bin/env bash
# Bad and unusual inputs: exit status, the stderr line (shape
# "vanalyze: FILE: byte N: MESSAGE", "vanalyze: warning: FILE: byte N: MESSAGE"
# for partial reads, "compressed byte N" for gzip problems), what the report
# still says, and the JSON corners that the real traces never use (BOM, CRLF,
# escapes, exponents, numbers as strings, multi-member gzip).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
PARAM=$PUBLIC/facebookresearch__param
export NCCL=$HTA/tests__data__nccl_parser_config__nccl_data.json.gz
export DLRM0=$(echo "$PARAM"/*__worker0_step_12.*.pt.trace.json.gz)
export DLRM1=$(echo "$PARAM"/*__worker1_step_12.*.pt.trace.json.gz)
export DLRM2=$(echo "$PARAM"/*__worker2_step_12.*.pt.trace.json.gz)
export SMALL=$HTA/tests__data__trace_file_list__inference_rank_1.json.gz
export CPU0=$TORCH_CPU/dev-2rank-default-rank0.trace.json.gz
for f in "$NCCL" "$DLRM0" "$DLRM1" "$DLRM2" "$SMALL" "$CPU0"; do
	[ -f "$f" ] || die "missing trace $f"
done

# Every input, plus expect.json with the numbers the checks need.
python3 - <<'PY' || die "cannot generate the inputs"
import gzip, json, os, random, zlib

def text_of(path):
    with open(path, "rb") as f:
        return gzip.decompress(f.read())

def event_spans(text):
    """(start, end) offsets of the complete elements of the events array."""
    s = text.decode("ascii")
    dec = json.JSONDecoder()
    i = 0
    while s[i] in " \t\r\n":
        i += 1
    if s[i] == "[":
        i += 1
    else:
        i = s.index("[", s.index('"traceEvents"')) + 1
    spans = []
    try:
        while True:
            while s[i] in " \t\r\n,":
                i += 1
            if s[i] == "]":
                break
            _, j = dec.raw_decode(s, i)
            spans.append((i, j))
            i = j
    except (ValueError, IndexError):
        pass
    return spans

def put(name, data):
    with open(name, "wb") as f:
        f.write(data)

expect = {}

# Not a trace.
put("empty.json", b"")
put("hello.json", b"hello\n")
put("hello.json.gz", gzip.compress(b"hello\n"))
rnd = bytearray(random.Random(20240601).randbytes(4096))
rnd[0] = 0x80                      # neither gzip magic nor JSON
put("random.json", bytes(rnd))

# A gzip file cut at half its compressed size.
raw = open(os.environ["NCCL"], "rb").read()
half = raw[: len(raw) // 2]
put("trunc.json.gz", half)
prefix = zlib.decompressobj(wbits=31).decompress(half)
expect["trunc_full"] = len(event_spans(text_of(os.environ["NCCL"])))
expect["trunc_prefix"] = len(event_spans(prefix))

# A gzip file with corrupt deflate data in the middle.
bad = bytearray(raw)
for k in range(len(bad) // 2, len(bad) // 2 + 64):
    bad[k] ^= 0x5A
put("corrupt.json.gz", bytes(bad))

# Plain JSON cut inside an event, and cut between two events: Kineto layout
# (multi-line) and the legacy bare array (one line).
for tag, src, k in (("kineto", os.environ["DLRM0"], 2000), ("array", os.environ["CPU0"], 5000)):
    t = text_of(src)
    sp = event_spans(t)
    assert len(sp) > k
    a, b = sp[k]
    put("cut-%s.json" % tag, t[: (a + b) // 2])          # inside event k
    expect["cut-%s" % tag] = k
    put("gap-%s.json" % tag, t[: sp[k - 1][1] + 1])      # just after "}," of event k-1
    expect["gap-%s" % tag] = k

# An event whose name is a 100 MB string, between small events.
head = b'{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1},{"ph":"X","name":"b","ts":2,"dur":1},\n{"ph":"X","cat":"cpu_op","name":"'
tail = b'","ts":3,"dur":1},{"ph":"X","name":"c","ts":4,"dur":1}]}\n'
with open("big.json", "wb") as f:
    f.write(head)
    block = b"x" * (1 << 20)
    for _ in range(100):
        f.write(block)
    f.write(tail)
with open("big.json", "rb") as f, gzip.open("big.json.gz", "wb", compresslevel=1) as g:
    while True:
        b = f.read(1 << 20)
        if not b:
            break
        g.write(b)

# Nesting 100000 deep inside args: arrays, and objects.
n = 100000
put("deep.json", b'{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1},{"ph":"X","name":"deep","ts":2,"dur":1,"args":{"a":'
    + b"[" * n + b"]" * n + b'}},{"ph":"X","name":"c","ts":3,"dur":1}]}')
put("deepobj.json", b'{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1},{"ph":"X","name":"deep","ts":2,"dur":1,"args":'
    + b'{"k":' * n + b"1" + b"}" * n + b'},{"ph":"X","name":"c","ts":3,"dur":1}]}')

# A NaN timestamp in the second event: the warning's offset lies inside it.
t = (b'{"traceEvents":[\n{"ph":"X","name":"a","ts":1,"dur":1},\n'
     b'{"ph":"X","name":"b","ts":NaN,"dur":1},\n{"ph":"X","name":"c","ts":3,"dur":1}]}\n')
put("nan.json", t)
s = t.index(b'{"ph":"X","name":"b"')
expect["nan_range"] = [s, t.index(b"}", s) + 1]

# Good inputs with corners: unknown ph, BOM, CRLF, escapes, exponents,
# numbers as strings, fractions of a nanosecond, empty array, non-objects.
put("unknown-ph.json", b'{"traceEvents":[{"ph":"Q","cat":"odd","name":"q","ts":10,"dur":5},'
    b'{"ph":"X","cat":"cpu_op","name":"x","ts":12,"dur":30},{"ph":"Q","name":"q2","ts":50}]}')
put("bom.json", b"\xef\xbb\xbf" + text_of(os.environ["SMALL"]))
put("bom.json.gz", gzip.compress(b"\xef\xbb\xbf" + text_of(os.environ["SMALL"])))
crlf = text_of(os.environ["DLRM2"])
assert b"\r" not in crlf and crlf.count(b"\n") > 1000
put("crlf.json", crlf.replace(b"\n", b"\r\n"))
put("escapes.json", (
    '{"traceEvents":[\n'
    '{"ph":"X","cat":"ker\\u006eel","name":"caf\\u00e9 \\u4e2d\\u6587 \\ud83d\\ude00 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t","ts":1,"dur":2},\n'
    '{"ph":"\\u0058","cat":"\\ud83d\\ude00","name":"\\u0000nul","ts":3,"dur":4},\n'
    '{"ph":"X","cat":"gpu_\u00b5s \u4e2d","name":"raw UTF-8 \u00e9\U0001F600","ts":5,"dur":1},\n'
    '{"ph":"i","cat":"kernel","name":"\\uD83D\\uDE00 upper-case hex","ts":7,"s":"t"}\n'
    ']}\n').encode("utf-8"))
put("exponent.json", b'{"traceEvents":[\n'
    b'{"ph":"X","cat":"e","name":"min","ts":1.712195495541300987e15,"dur":0},\n'
    b'{"ph":"X","cat":"e","name":"max","ts":171219549554130.1e1,"dur":1.5e3},\n'
    b'{"ph":"X","cat":"e","name":"mid","ts":17121954955413019E-1,"dur":2500e-3},\n'
    b'{"ph":"X","cat":"e","name":"plus","ts":1.7121954955413015E+15,"dur":2.5E1}\n'
    b']}\n')
put("string-ts.json", b'{"traceEvents":[\n'
    b'{"ph":"X","cat":"s","name":"a","ts":"1500.5","dur":"2"},\n'
    b'{"ph":"X","cat":"s","name":"b","ts":"1712.25","dur":"1e1"},\n'
    b'{"ph":"X","cat":"s","name":"c","ts":1600,"dur":"x"},\n'
    b'{"ph":"X","cat":"s","name":"d","ts":"abc","dur":99999999},\n'
    b'{"ph":"X","cat":"s","name":"e","ts":null,"dur":99999999},\n'
    b'{"ph":"X","cat":"s","name":"f","ts":true,"dur":99999999},\n'
    b'{"ph":"X","cat":"s","name":"g","dur":99999999},\n'
    b'{"ph":"M","name":"process_name","ts":"1","args":{"name":"p"}}\n'
    b']}\n')
put("fraction.json", b'{"traceEvents":[\n'
    b'{"ph":"X","name":"a","ts":1.0009,"dur":0.0009},\n'
    b'{"ph":"X","name":"b","ts":5.9999,"dur":1.00001},\n'
    b'{"ph":"X","name":"c","ts":-1.5009,"dur":0}\n'
    b']}\n')
# Times beyond +-2^62 ns (lib/sat.h): those events are left out.
put("huge-ts.json", b'{"traceEvents":[{"ph":"X","ts":10,"dur":5},{"ph":"X","ts":20,"dur":1e20},'
    b'{"ph":"X","ts":"1e20","dur":1},{"ph":"X","ts":-1e17,"dur":0},{"ph":"X","ts":30,"dur":2}]}')
put("empty-events.json", b'{"schemaVersion":1,"traceEvents":[]}')
put("nonobject.json", b'{"traceEvents":[{"ph":"X","ts":1,"dur":1},1,"s",null,[{"ph":"X"}],{"ph":"X","ts":3,"dur":1}]}')

# Multi-member gzip: the text split inside an event, each half its own member;
# and three members with an empty one in the middle.
t = text_of(os.environ["DLRM1"])
mid = len(t) // 2
os.makedirs("single")
os.makedirs("multi")
os.makedirs("multi3")
name = "dlrm-rank1.json.gz"
put("single/" + name, gzip.compress(t))
put("multi/" + name, gzip.compress(t[:mid]) + gzip.compress(t[mid:]))
put("multi3/" + name, gzip.compress(t[:mid]) + gzip.compress(b"") + gzip.compress(t[mid:]))

with open("expect.sh", "w") as f:
    for k, v in expect.items():
        f.write("exp_%s=%s\n" % (k.replace("-", "_"), v if isinstance(v, int) else "'%s %s'" % tuple(v)))
PY


. ./expect.sh
complete_false='r["ranks"][0]["complete"] is False and r["inputs"][0]["complete"] is False'
total='r["ranks"][0]["events"]["total"]'

# --- errors: not a trace ------------------------------------------------------
va missing --json missing.report nonexistent.json
expect_rc missing 1
expect_line missing.err '^vanalyze: .*nonexistent\.json.*cannot open|^vanalyze: .*cannot open.*nonexistent\.json'
echo "pass: missing file"

va empty --json empty.report empty.json
expect_rc empty 1
expect_line empty.err '^vanalyze: empty\.json: (byte [0-9]+: )?.*empty input'
echo "pass: empty file"

for f in hello.json hello.json.gz random.json; do
	va "$f" --json "$f.report" "$f"
	expect_rc "$f" 1
	expect_line "$f.err" "^vanalyze: $(ere_quote "$f"): byte [0-9]+: .*not a trace"
	echo "pass: $f is not a trace"
done

# --- partial reads: warning, exit 1, the good part reported -------------------
# settings NAME FILE: run FILE at -j 1 and -j 2, default and 64 KiB chunks;
# reports NAME-j1-default.report ... NAME-j2-65536.report, exit status 1.
settings() {
	local name=$1 file=$2 chunk j
	for chunk in default 65536; do
		for j in 1 2; do
			if [ "$chunk" = default ]; then
				va "$name-j$j-$chunk" -j "$j" --json "$name-j$j-$chunk.report" "$file"
			else
				VTRACE_CHUNK_SIZE=$chunk va "$name-j$j-$chunk" -j "$j" --json "$name-j$j-$chunk.report" "$file"
			fi
			expect_rc "$name-j$j-$chunk" 1
		done
	done
}
others() {
	echo "[load(p) for p in ('$1-j2-default.report', '$1-j1-65536.report', '$1-j2-65536.report')]"
}

settings trunc trunc.json.gz
expect_line trunc-j1-default.err '^vanalyze: warning: trunc\.json\.gz: compressed byte [0-9]+: .*truncated gzip stream'
# Nothing inflated before the cut is lost (slack: a little may be held back
# by the inflate engine at the very end), and every setting agrees.
check trunc-j1-default.report \
	"$complete_false" "truncated gzip: complete is not false" \
	"0 < $total < $exp_trunc_full" "truncated gzip: total not in (0, $exp_trunc_full)" \
	"0.98 * $exp_trunc_prefix <= $total <= $exp_trunc_prefix" \
	"truncated gzip: $exp_trunc_prefix complete events inflate before the cut" \
	"all(x['ranks'] == r['ranks'] for x in $(others trunc))" \
	"truncated gzip: ranks differ between -j 1/2 and chunk sizes"
echo "pass: truncated gzip ($exp_trunc_prefix of $exp_trunc_full events before the cut)"

va corrupt --json corrupt.report corrupt.json.gz
expect_rc corrupt 1
expect_line corrupt.err '^vanalyze: warning: corrupt\.json\.gz: compressed byte [0-9]+: '
check corrupt.report \
	"$complete_false" "corrupt gzip: complete is not false" \
	"$total > 0" "corrupt gzip: no events before the damage"
echo "pass: corrupt gzip"

for f in cut-kineto cut-array gap-kineto gap-array; do
	v=exp_${f/-/_}
	want=${!v}
	settings "$f" "$f.json"
	for j in 1 2; do
		for chunk in default 65536; do
			expect_line "$f-j$j-$chunk.err" "^vanalyze: warning: $f\\.json: byte [0-9]+: .*ends inside"
		done
	done
	check "$f-j1-default.report" \
		"$complete_false" "$f: complete is not false" \
		"$total == $want" "$f: expected the $want complete events before the cut" \
		"all(x['ranks'] == r['ranks'] for x in $(others "$f"))" \
		"$f: ranks differ between -j 1/2 and chunk sizes"
	echo "pass: $f: $want events before the cut"
done

if [ "$VT_SANITIZED" = 1 ]; then rss_limit=1048576; else rss_limit=409600; fi
for f in big.json big.json.gz; do
	/usr/bin/time -f %M -o "$f.rss" "$VANALYZE" --json "$f.report" "$f" >"$f.out" 2>"$f.err" </dev/null
	echo $? >"$f.rc"
	expect_rc "$f" 1
	expect_line "$f.err" "^vanalyze: warning: $(ere_quote "$f"): byte [0-9]+: .*larger than"
	check "$f.report" \
		"$complete_false" "$f: complete is not false" \
		"$total >= 2" "$f: the events before the big one are lost"
	rss=$(tail -n 1 "$f.rss")
	[ "$rss" -lt "$rss_limit" ] || die "$f: peak RSS $rss KB, limit $rss_limit KB"
	echo "pass: $f: 100 MB name (peak RSS $((rss / 1024)) MB)"
done

for f in deep deepobj; do
	va "$f" --json "$f.report" "$f.json"
	expect_rc "$f" 1
	expect_line "$f.err" "^vanalyze: warning: $f\\.json: byte [0-9]+: .*nesting"
	check "$f.report" \
		"$complete_false" "$f: complete is not false" \
		"$total >= 1" "$f: the event before is lost"
	echo "pass: $f: 100000 levels"
done

va nan --json nan.report nan.json
expect_rc nan 1
expect_line nan.err '^vanalyze: warning: nan\.json: byte [0-9]+: '
off=$(sed -nE 's/^vanalyze: warning: nan\.json: byte ([0-9]+): .*/\1/p' nan.err | head -n 1)
set -- $exp_nan_range
check nan.report \
	"$complete_false" "NaN: complete is not false" \
	"$total == 1" "NaN: the event before it is not counted (or a later one is)" \
	"$1 <= $off <= $2" "NaN: byte $off is not inside the bad event (bytes $1 to $2)"
echo "pass: NaN timestamp (byte $off)"

# --- good inputs ---------------------------------------------------------------
good=(unknown-ph.json bom.json bom.json.gz crlf.json escapes.json exponent.json
	string-ts.json fraction.json huge-ts.json empty-events.json nonobject.json
	single/dlrm-rank1.json.gz multi/dlrm-rank1.json.gz multi3/dlrm-rank1.json.gz)
pairs=()
for f in "${good[@]}"; do
	va "$f" --json "$f.report" "$f"
	expect_rc "$f" 0
	pairs+=("$f.report" "$f")
done
pycheck compare1 "${pairs[@]}" || die "good inputs differ from the oracle (lines above)"
check unknown-ph.json.report 'r["ranks"][0]["events"]["by_ph"] == {"Q": 2, "X": 1}' "unknown ph not counted"
check escapes.json.report 'r["ranks"][0]["events"]["by_cat"] == {"kernel": 2, "gpu_\u00b5s \u4e2d": 1, "\U0001F600": 1}' \
	"escaped cat values not decoded"
check exponent.json.report 'r["ranks"][0]["span_ns"] == 1500013' "exponent timestamps not exact"
check string-ts.json.report 'r["ranks"][0]["span_ns"] == 221750' "string timestamps"
check fraction.json.report 'r["ranks"][0]["span_ns"] == 8499' "fractions of a ns not truncated toward zero"
check huge-ts.json.report 'r["ranks"][0]["span_ns"] == 22000 and r["ranks"][0]["events"]["total"] == 2' \
	"events with times beyond 2^62 ns must be left out" \
	'any("3 events with ts, dur or ts + dur beyond" in w and w.startswith("byte 43:") for w in r["ranks"][0]["warnings"])' \
	"left-out events are warned about with the offset of the first"
check empty-events.json.report 'r["ranks"][0]["events"]["total"] == 0 and r["ranks"][0]["span_ns"] == 0' \
	"empty traceEvents"
check single/dlrm-rank1.json.gz.report \
	'r["ranks"] == load("multi/dlrm-rank1.json.gz.report")["ranks"]' "two gzip members differ from one" \
	'r["ranks"] == load("multi3/dlrm-rank1.json.gz.report")["ranks"]' "three gzip members differ from one"
echo "pass: ${#good[@]} good inputs with unusual corners, multi-member gzip"

# --- a good file and a missing one ---------------------------------------------
cp "$SMALL" good.json.gz
va mix --json mix.report good.json.gz nonexistent.json
expect_rc mix 1
expect_line mix.err '^vanalyze: .*nonexistent\.json.*cannot open|^vanalyze: .*cannot open.*nonexistent\.json'
[ -s mix.report ] || die "no report when one of two inputs is missing"
pycheck compare --subset mix.report good.json.gz nonexistent.json || die "good input beside a missing one"
check mix.report 'any(x["source"] == "good.json.gz" and x["complete"] is True for x in r["ranks"])' \
	"the good input is not in the report"
echo "pass: good file beside a missing one"
