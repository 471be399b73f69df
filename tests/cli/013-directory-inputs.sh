#!/usr/bin/env bash
# What a directory stands for.  Other JSON beside the traces (gentrace's
# truth file, a CI artifact folder's report.json, a gzipped JSON object) is
# skipped with exactly one note per file and exit 0, and the ranks are those
# of the traces named explicitly; the same notes in the same order at -j 1
# and -j 2.  Named on the command line, the same files stay errors naming
# the file and the byte offset where the JSON ended (its text size, counted
# here by python).  A cut-off trace in a directory is not skipped (exit 1).
# A directory with no trace among its candidates is an error.  vtrace-export
# output beside its .vtr is skipped with a note: the rank is read once.
# (011 covers the torch-cpu folder with its *-meta.json files.)
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
GENTRACE=$VT_BUILD/gentrace
[ -x "$GENTRACE" ] || die "$GENTRACE is not built"

# notes NAME: the "skipped" lines of NAME.err
notes() {
	grep ', skipped$\|; skipped$' "$1.err" || true
}

# 1. gentrace's folder: two traces and the truth file
mkdir g
"$GENTRACE" --ranks 2 --steps 2 --blocks 2 -o g/run 2>gen.err || die "gentrace: $(cat gen.err)"
[ -f g/run-truth.json ] || die "gentrace wrote no truth file"
va gdir --json gdir.json g
expect_rc gdir 0
[ "$(notes gdir)" = "vanalyze: g/run-truth.json: not a trace (a JSON object without traceEvents), skipped" ] ||
	die "gentrace folder: notes are not exactly the truth file's: $(notes gdir)"
va glist --json glist.json g/run-rank0.trace.json.gz g/run-rank1.trace.json.gz
expect_rc glist 0
check gdir.json '[(x["rank"], x["source"], x["events"]["total"]) for x in r["ranks"]] ==
	[(x["rank"], x["source"], x["events"]["total"]) for x in load("glist.json")["ranks"]]' \
	"gentrace folder: ranks differ from the explicit list" \
	'[x["rank"] for x in r["ranks"]] == [0, 1]' "gentrace folder: ranks are not 0 and 1"
pycheck compare gdir.json g/run-rank0.trace.json.gz g/run-rank1.trace.json.gz ||
	die "gentrace folder: ranks differ from the oracle (lines above)"
echo "pass: gentrace folder, truth file skipped with one note"

# 2. a CI artifact folder: the traces, the report.json of an earlier run,
#    its tables, and a gzipped JSON object that is not a trace
mkdir ci
cp g/run-rank*.trace.json.gz ci/
"$VANALYZE" -q --out ci ci 2>/dev/null || die "vanalyze --out ci"
[ -f ci/report.json ] || die "no ci/report.json"
printf '{"job": "nightly", "status": "ok"}\n' | gzip -c >ci/job.json.gz
for j in 1 2; do
	va "ci$j" -j "$j" --json "ci$j.json" ci
	expect_rc "ci$j" 0
done
notes ci1 >ci1.notes
notes ci2 >ci2.notes
cmp -s ci1.notes ci2.notes || die "CI folder: notes differ between -j 1 and -j 2"
[ "$(wc -l <ci1.notes)" -eq 2 ] || die "CI folder: expected 2 notes, got: $(cat ci1.notes)"
expect_line ci1.notes '^vanalyze: ci/job\.json\.gz: not a trace .*skipped$' "note for job.json.gz"
expect_line ci1.notes '^vanalyze: ci/report\.json: not a trace .*skipped$' "note for report.json"
check ci1.json '[x["rank"] for x in r["ranks"]] == [0, 1]' "CI folder: ranks are not 0 and 1" \
	'[(x["rank"], x["events"]["total"]) for x in r["ranks"]] ==
	[(x["rank"], x["events"]["total"]) for x in load("glist.json")["ranks"]]' \
	"CI folder: ranks differ from the explicit list"
echo "pass: CI artifact folder, report.json and job.json.gz skipped with one note each"

# 3. named, the same files are errors with the byte offset where their text
#    ends (python's count of the decompressed text)
for f in g/run-truth.json ci/report.json ci/job.json.gz; do
	n=$(python3 -c 'import gzip, sys
p = sys.argv[1]
print(len((gzip.open if p.endswith(".gz") else open)(p, "rb").read()))' "$f")
	va named --json named.json "$f"
	expect_rc named 1
	case $f in
	*report.json) what="not a trace but a vtrace report: give it to vcompare or vaggregate" ;;
	*) what="not a trace: no traceEvents array" ;;
	esac
	expect_line named.err "^vanalyze: $(ere_quote "$f"): byte $n: $what$" "named $f"
	no_line named.err 'skipped' "named $f"
done
echo "pass: a named non-trace file is an error with its byte offset"

# 4. a directory with no trace at all; a cut-off trace is not skipped
mkdir none cut
cp g/run-truth.json none/
va none none
expect_rc none 1
expect_line none.err '^vanalyze: none: no trace among the 1 \*\.json, \*\.json\.gz or \*\.vtr files' \
	"empty of traces"
gzip -dc g/run-rank0.trace.json.gz | head -c 20000 >cut/run-rank0.trace.json
cp g/run-rank1.trace.json.gz cut/
va cut --json cut.json cut
expect_rc cut 1
no_line cut.err 'skipped' "a cut-off trace must not be skipped"
check cut.json '[x["rank"] for x in r["ranks"]] == [0, 1] and r["ranks"][0]["complete"] is False' \
	"cut-off trace: not read in part"
echo "pass: a directory without traces is an error; a cut-off trace is read in part"

# 5. vtrace-export beside its .vtr: the rank is read once, from the .vtr
DEMO=$VT_BUILD/tests/collector_demo
EXPORT=$VT_BUILD/vtrace-export
[ -x "$DEMO" ] && [ -x "$EXPORT" ] || die "collector_demo or vtrace-export is not built"
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE
VTRACE_RANK=2 "$DEMO" vtr demo 2>demo.err || die "collector_demo failed: $(cat demo.err)"
"$EXPORT" vtr/demo-rank2.vtr 2>export.err || die "export failed: $(cat export.err)"
[ -f vtr/demo-rank2.trace.json.gz ] || die "export wrote no vtr/demo-rank2.trace.json.gz"
va vtr --json vtr.json vtr
expect_rc vtr 0
[ "$(notes vtr)" = "vanalyze: vtr/demo-rank2.trace.json.gz: the export of vtr/demo-rank2.vtr, which is read instead; skipped" ] ||
	die "export beside its .vtr: notes are: $(notes vtr)"
no_line vtr.err 'claims rank' "one rank read twice"
check vtr.json 'len(r["ranks"]) == 1 and r["ranks"][0]["rank"] == 2' "not one rank 2" \
	'r["inputs"][0]["format"] == "vtr"' "the .vtr was not the one read"
# both named: the user asked for both, so both are read (and warned about)
va vtrboth --json vtrboth.json vtr/demo-rank2.vtr vtr/demo-rank2.trace.json.gz
expect_rc vtrboth 0
expect_line vtrboth.err 'another input also claims rank 2' "both named"
echo "pass: vtrace-export output beside its .vtr is skipped"
