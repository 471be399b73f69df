#!/usr/bin/env bash
# Small planted traces whose report once depended on the chunk size or the
# threads (tests/fuzz/fuzz_analyze found each): read at -j 1 and -j 2, in
# 64-byte chunks and in one, the four reports and their warnings are the
# same bytes, and what they say agrees with python3 over the same text.
#  - shapes: an operator without a cat but with shape args, before the
#    first event with a cat.  Once the trace has cats, operators are the
#    cpu_op events only, so no operator had shapes; a first chunk holding
#    only that event took it for one.
#  - annot: a span without a cat named as a user annotation, then one of
#    the same name with cat user_annotation.  A trace with cats keeps
#    only the second as a phase; where both were in one chunk, the name's
#    first sighting marked the second "by name" too, and it was dropped.
#  - stop: a syntax error with text after it.  bytes_text is the text read,
#    up to the error, not what the threads had inflated past it.
#  - cut: the same gzipped and cut off far past the error: the read stops
#    at the error and says the cut too, which a read in one chunk met and
#    one in 64-byte chunks did not (tests/cli/020 has the corrupt stream
#    whose garbage text is such an error).
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

python3 - <<'PY' || die "cannot write the planted traces"
import gzip

ev = lambda name, cat, ts, args: (
    '{"ph":"X",%s"name":"%s","pid":1,"tid":1,"ts":%d,"dur":2,"args":{%s}}'
    % ('"cat":"%s",' % cat if cat else "", name, ts, args))
shapes = ('{"traceEvents":[' + ev("aten::mm", None, 1,
          '"Input Dims":[[2,2],[2,2]],"Input type":["float","float"]') + ",\n" +
          ev("aten::add", "cpu_op", 10, '"External id":2') + ",\n" +
          '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":11,"dur":1,'
          '"args":{"correlation":3}}]}')
open("shapes.json", "w").write(shapes)
annot = ('{"traceEvents":[' + ev("text_encoder", None, 1, "") + ",\n" +
         ev("text_encoder", "user_annotation", 10, '"External id":1') + ",\n" +
         ev("aten::add", "cpu_op", 11, '"External id":2') + ",\n" +
         '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":12,"dur":1,'
         '"args":{"correlation":3}}]}')
open("annot.json", "w").write(annot)
stop = ('{"traceEvents":[' + ev("aten::add", "cpu_op", 1, '"External id":1') + " x " +
        ",\n".join(ev("aten::mul", "cpu_op", 10 + i, '"External id":%d' % i)
                   for i in range(4000)) + "]}")
open("stop.json", "w").write(stop)
z = gzip.compress(stop.encode(), mtime=0)
open("cut.json.gz", "wb").write(z[:len(z) // 2])
PY

for t in shapes annot stop cut; do
	f=$t.json
	[ "$t" = cut ] && f=cut.json.gz
	ref=""
	for chunk in 64 default; do
		for j in 1 2; do
			name=$t-j$j-$chunk
			if [ "$chunk" = default ]; then
				env -u VTRACE_CHUNK_SIZE "$VANALYZE" -q -j "$j" --json "$name.json" "$f" \
					>"$name.out" 2>"$name.err" </dev/null
			else
				VTRACE_CHUNK_SIZE=$chunk "$VANALYZE" -q -j "$j" --json "$name.json" "$f" \
					>"$name.out" 2>"$name.err" </dev/null
			fi
			echo $? >"$name.rc"
			case $t in stop | cut) want=1 ;; *) want=0 ;; esac
			expect_rc "$name" "$want"
			if [ -z "$ref" ]; then
				ref=$name
			elif ! cmp -s "$ref.json" "$name.json" || ! cmp -s "$ref.err" "$name.err"; then
				diff -u "$ref.json" "$name.json" | head -n 20
				diff -u "$ref.err" "$name.err" | head -n 10
				die "$t: the report or the warnings at $name differ from $ref"
			fi
		done
	done
	echo "pass: $t: -j 1 and 2, 64-byte chunks and one, the same report and warnings"
done

# What they say, from python3 over the same text.
python3 - <<'PY' || die "the planted traces' reports disagree with python3 (lines above)"
import json
ok = True
def check(cond, what):
    global ok
    print(("pass: " if cond else "FAIL: ") + what)
    ok &= cond
shapes = json.load(open("shapes.json"))["traceEvents"]
ops = [e for e in shapes if e.get("cat") == "cpu_op"]
want = any("Input Dims" in e.get("args", {}) for e in ops)
got = json.load(open("shapes-j2-64.json"))["ranks"][0]["perf"]["has_shapes"]
check(got == want, "shapes: has_shapes %s, python3 %s" % (got, want))
annot = json.load(open("annot.json"))["traceEvents"]
want = {}
for e in annot:
    if e.get("cat") == "user_annotation":
        want[e["name"]] = want.get(e["name"], 0) + 1
got = {p["name"]: p["count"]
       for p in json.load(open("annot-j1-default.json"))["ranks"][0]["phases"]}
check(got == want, "annot: phases and counts %s, python3 %s" % (got, want))
stop = open("stop.json").read()
at = stop.index(" x ") + 1
for t in ("stop", "cut"):
    got = json.load(open(t + "-j2-64.json"))["inputs"][0]["bytes_text"]
    check(got == at, "%s: bytes_text %d, the error's offset %d" % (t, got, at))
    said = [l for l in open(t + "-j2-64.err") if "byte " in l or "truncated" in l]
    want = 2 if t == "cut" else 1
    check(len(said) == want and ("byte %d:" % at) in said[0] and
          (t != "cut" or "compressed byte" in said[1] and "truncated" in said[1]),
          "%s: the reader says the error%s: %s" % (t, ", then the cut" if t == "cut" else "",
                                                     " | ".join(l.strip() for l in said)))
raise SystemExit(0 if ok else 1)
PY
