#!/usr/bin/env bash
# Bad reports among good ones: each is one line on stderr naming the file,
# the rest is merged and written, and the exit status is 1 at the end.
#   truncated, not JSON, empty, a missing field  -> "FILE: byte N: ...; skipped"
#   "schema": "vtrace.report/2", also gzipped    -> wrong schema, skipped
#   other JSON in the directory (package.json,
#   traces, big ones sniffed, not read whole)    -> a note, not a failure
#   other JSON named as an argument              -> an error
#   the same rank and source twice               -> counted once, a note
#   the same rank from another source            -> both kept, with a warning
# Also: a symlink loop is not followed forever, dot files and non-JSON files
# are ignored, and a directory of good reports alone exits 0 without notes.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

mkdir -p good
for r in 0 1 2 3; do
	mkdir -p "good/rank_$r"
	va map$r -q --json "good/rank_$r/report.json" \
		"$TORCH_CPU/dev-4rank-straggler2-rank$r.trace.json.gz"
	expect_rc map$r 0
done
vg good --reports_dir good --json good.json
expect_rc good 0
no_line good.err '.' "stderr with only good reports"

cp -r good mixed
R=mixed/rank_0/report.json
mkdir -p mixed/bad mixed/node7/sub mixed/copy/rank_0 mixed/other
head -c 2000 "$R" >mixed/bad/truncated.json
printf 'this is { not json\n' >mixed/bad/garbage.json
: >mixed/bad/empty.json
sed 's|"schema": "vtrace.report/1"|"schema": "vtrace.report/2"|' "$R" >mixed/bad/schema2.json
python3 - "$R" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
del rep["ranks"][0]["span_ns"]
json.dump(rep, open("mixed/bad/nospan.json", "w"), indent=2)
rep = json.load(open(sys.argv[1]))
rep["ranks"][0]["source"] = "another-rank0.trace.json.gz"
json.dump(rep, open("mixed/other/rank0-elsewhere.json", "w"), indent=2)
json.dump({"name": "dashboard", "version": "1.0.0", "private": True},
          open("mixed/node7/package.json", "w"), indent=2)
json.dump({"schemaVersion": 1, "traceEvents": []}, open("mixed/node7/sub/trace.json", "w"))
PY
# gzip is read too; a big or gzipped file without "schema" at its start is
# passed over without being read whole (a trace left among the reports).
mkdir -p mixed/traces
gzip -c mixed/bad/schema2.json >mixed/bad/schema2-gz.json.gz
cp "$TORCH_CPU/dev-4rank-straggler2-rank0.trace.json.gz" mixed/traces/
python3 -c 'import json; json.dump({"traceEvents": [{"ph": "X", "name": "a" * 40, "ts": i, "dur": 1}
	for i in range(300000)]}, open("mixed/traces/big.json", "w"))'
[ "$(wc -c <mixed/traces/big.json)" -gt $((16 << 20)) ] || die "big.json is not over 16 MiB"
cp "$R" mixed/copy/rank_0/report.json
cp "$R" mixed/.hidden.json
echo 'not a report' >mixed/notes.txt
ln -s .. mixed/node7/sub/loop

vg mixed --reports_dir mixed --json mixed.json
expect_rc mixed 1
[ -s mixed.json ] || die "no report written although good reports were there"

# one line each, naming the file
for f in bad/truncated.json bad/garbage.json bad/empty.json bad/nospan.json; do
	expect_line mixed.err "^vaggregate: mixed/$(ere_quote "$f"): byte [0-9]+: .*; skipped$" "$f"
	[ "$(grep -c "$(basename "$f")" mixed.err)" -eq 1 ] || die "$f: not exactly one line"
done
expect_line mixed.err '^vaggregate: mixed/bad/nospan\.json: byte [0-9]+: "span_ns" is missing; skipped$' \
	"the missing field is named"
expect_line mixed.err '^vaggregate: mixed/bad/schema2\.json: report schema "vtrace\.report/2" is not vtrace\.report/1.*skipped$' \
	"wrong schema"
expect_line mixed.err '^vaggregate: mixed/node7/package\.json: not a vtrace report \(schema missing\), skipped$' \
	"package.json note"
expect_line mixed.err '^vaggregate: mixed/node7/sub/trace\.json: not a vtrace report \(schema missing\), skipped$' \
	"trace JSON note"
# (the walk is sorted: copy/ comes before rank_0/)
expect_line mixed.err "^vaggregate: mixed/rank_0/report\.json: rank 0 \(dev-4rank-straggler2-rank0\.trace\.json\.gz\) was read from 'mixed/copy/rank_0/report\.json' already; counted once$" \
	"duplicate note"
expect_line mixed.err '^vaggregate: warning: mixed/other/rank0-elsewhere\.json: another input also claims rank 0; both are kept$' \
	"shared rank warning"
expect_line mixed.err '^vaggregate: warning: mixed/node7/sub/loop: a link back to a directory above it; not entered$' \
	"symlink loop"
expect_line mixed.err '^vaggregate: mixed/bad/schema2-gz\.json\.gz: report schema "vtrace\.report/2" is not' \
	"wrong schema, gzipped"
for f in traces/big.json traces/dev-4rank-straggler2-rank0.trace.json.gz; do
	expect_line mixed.err "^vaggregate: mixed/$(ere_quote "$f"): not a vtrace report \(no top-level \"schema\"\), skipped$" \
		"$f passed over"
done
expect_line mixed.err '^vaggregate: 6 of 16 files skipped' "the closing count"
no_line mixed.err 'hidden|notes\.txt' "dot files and non-JSON files are ignored"
[ "$(grep -c 'schema2\.json' mixed.err)" -eq 1 ] || die "schema2.json: not exactly one line"
expect_line mixed.out '^6 reports, 5 ranks, 1 duplicate ranks counted once, 6 files skipped, 4 other JSON files passed over$' \
	"summary header"

check mixed.json '[(x["rank"], x["source"]) for x in r["ranks"]] ==
	[(0, "another-rank0.trace.json.gz"), (0, "dev-4rank-straggler2-rank0.trace.json.gz"),
	 (1, "dev-4rank-straggler2-rank1.trace.json.gz"), (2, "dev-4rank-straggler2-rank2.trace.json.gz"),
	 (3, "dev-4rank-straggler2-rank3.trace.json.gz")]' "ranks: the good ones, sorted by rank then source" \
	'all("another input also claims rank 0; both are kept" in x["warnings"]
	     for x in r["ranks"] if x["rank"] == 0)' "both rank-0 entries carry the warning" \
	'[x for x in r["ranks"] if x["rank"] > 0] == load("good.json")["ranks"][1:]' \
	"ranks 1-3 exactly as read"
echo "pass: bad reports skipped one line each, the rest merged, exit 1"

# Other JSON named on the command line is a mistake: exit 1.
vg named --json named.json good/rank_1/report.json mixed/node7/package.json
expect_rc named 1
expect_line named.err '^vaggregate: mixed/node7/package\.json: not a vtrace report \(schema missing\), skipped$' \
	"named package.json"
check named.json 'len(r["ranks"]) == 1' "the good named report merged"
# A directory holding only other JSON: nothing to merge, exit 1.
vg none --reports_dir mixed/node7
expect_rc none 1
expect_line none.err 'no ranks to merge' "nothing merged"
# An empty directory: nothing to merge, exit 1.
mkdir empty
vg empty --reports_dir empty
expect_rc empty 1
expect_line empty.err '^vaggregate: empty: no \*\.json or \*\.json\.gz files below this directory$' \
	"empty directory"
expect_line empty.err '^vaggregate: no ranks to merge: no report files found; nothing written$' "nothing found"
# A missing directory and a missing file.
vg missing --reports_dir nonexistent missing.json
expect_rc missing 1
expect_line missing.err '^vaggregate: nonexistent: cannot open: No such file or directory$' "missing dir"
expect_line missing.err '^vaggregate: missing\.json: cannot open: No such file or directory; skipped$' \
	"missing file"
echo "pass: named other JSON, empty and missing inputs"
