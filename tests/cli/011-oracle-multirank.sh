#!/usr/bin/env bash
# Several traces in one run: ranks from distributedInfo, from file names and
# from argument positions; duplicates warned about and kept apart; directory
# arguments; everything sorted by rank (ties by argument position) and equal
# to tests/oracle.py over the same inputs.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

# 1. The 8 DLRM ranks (distributedInfo.rank 0..7), given in a shuffled order.
dlrm=()
for w in 5 2 7 0 3 6 1 4; do
	f=$(echo "$PUBLIC"/facebookresearch__param/*__worker${w}_step_12.*.pt.trace.json.gz)
	[ -f "$f" ] || die "DLRM worker $w trace missing"
	dlrm+=("$f")
done
va dlrm -j 2 --json dlrm.json "${dlrm[@]}"
expect_rc dlrm 0
pycheck compare dlrm.json "${dlrm[@]}" || die "ranks differ from the oracle (lines above)"
check dlrm.json '[x["rank"] for x in r["ranks"]] == list(range(8))' "ranks not 0..7"
check dlrm.json 'len(r["inputs"]) == 8 and all(i["complete"] is True for i in r["inputs"])' \
	"inputs not 8 complete entries"
printf '%s\n' "${dlrm[@]}" >dlrm.list
check dlrm.json 'sorted((i["path"], i["rank"], i["bytes"]) for i in r["inputs"]) ==
	sorted((p, int(p.split("__worker")[1][0]), os.path.getsize(p)) for p in open("dlrm.list").read().split())' \
	"inputs[] paths, ranks or bytes wrong"
echo "pass: 8 DLRM ranks"

# 2. A directory holding the three torch-cpu sets (7 traces): ranks come from
#    the file names (rank0 three times, rank1 twice), duplicates are kept
#    apart with a warning, ties sorted by position (directory entries in name
#    order).  Copies, so that nothing else is in the directory.
mkdir cpu7
cp "$TORCH_CPU"/*.trace.json.gz cpu7/
cpu7=()
while IFS= read -r f; do cpu7+=("$f"); done < <(ls -1 cpu7/* | LC_ALL=C sort)
[ "${#cpu7[@]}" -eq 7 ] || die "expected 7 torch-cpu traces, found ${#cpu7[@]}"
# three runs (the files' stems: the legacy writer records no start time),
# refused as such, then merged on request
va cpu7no --json cpu7no.json cpu7
expect_rc cpu7no 2
expect_line cpu7no.err 'these inputs come from 3 different runs.*run 1: .*pick one with --run N' \
	"the three runs named"
[ ! -e cpu7no.json ] || die "a report was written for inputs of several runs"
va cpu7one --json cpu7one.json --run 3 cpu7
expect_rc cpu7one 0
check cpu7one.json 'sorted(x["source"] for x in r["ranks"]) == ["dev-4rank-straggler2-rank%d.trace.json.gz" % i for i in range(4)]' \
	"--run 3: the 4-rank run alone"
va cpu7 --json cpu7.json --merge-runs cpu7
expect_rc cpu7 0
pycheck compare cpu7.json "${cpu7[@]}" || die "ranks differ from the oracle (lines above)"
check cpu7.json '[x["rank"] for x in r["ranks"]] == [0, 0, 0, 1, 1, 2, 3]' "ranks not 0,0,0,1,1,2,3"
check cpu7.json 'len(r["inputs"]) == 7' "inputs[] does not have 7 entries"
for dup in 0 1; do
	check cpu7.json 'any("rank" in w.lower() for x in r["ranks"] if x["rank"] == '$dup' for w in x["warnings"])' \
		"no warning about rank $dup claimed by several files"
done
echo "pass: torch-cpu traces as a directory"

# 3. The real torch-cpu directory also holds README.md (ignored: not *.json)
#    and three *-meta.json files: JSON objects without traceEvents, so each
#    is skipped with one note (exit 0), and the ranks are those of the 7
#    traces listed explicitly.  (013 covers other folders and named files.)
va realdir --json realdir.json --merge-runs "$TORCH_CPU"
expect_rc realdir 0
for m in "$TORCH_CPU"/*-meta.json; do
	n=$(grep -c "^vanalyze: $(ere_quote "$m"): not a trace .*, skipped$" realdir.err)
	[ "$n" = 1 ] || die "expected one note for $(basename "$m"), found $n"
done
no_line realdir.err 'README' "README.md must be ignored"
no_line realdir.err '^vanalyze: [^w].*meta.*byte' "a meta file read as a trace"
real=()
while IFS= read -r f; do real+=("$f"); done < <(ls -1 "$TORCH_CPU"/*.trace.json.gz | LC_ALL=C sort)
[ "${#real[@]}" -eq 7 ] || die "expected 7 torch-cpu traces, found ${#real[@]}"
pycheck compare realdir.json "${real[@]}" || die "ranks differ from the oracle (lines above)"
va reallist --json reallist.json --merge-runs "${real[@]}"
check realdir.json '[(x["rank"], x["source"]) for x in r["ranks"]] ==
	[(x["rank"], x["source"]) for x in json.load(open("reallist.json"))["ranks"]]' \
	"the directory's ranks differ from the explicit list's"
echo "pass: real torch-cpu directory (meta files skipped with a note)"

# 4. Ranks from file names and positions (small synthetic traces).  The
#    expected rank is in the comment; the oracle computes the same.
mkdir names
python3 - <<'PY'
import gzip, json
def trace(extra=None, ts=1):
    d = {"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": ts, "dur": 2}]}
    d.update(extra or {})
    return json.dumps(d).encode()
files = [
    ("plain.json", trace()),                                    # position 0
    ("myrank3.json", trace()),                                  # 'rank' after a letter: position 1
    ("Rank4.json", trace()),                                    # case-sensitive: position 2
    ("worker_9.json", trace()),                                 # only worker<N>: position 3
    ("x-rank-7_rank_12.json", trace()),                         # last token: 12
    ("node1_worker2.json.gz", gzip.compress(trace())),          # 2
    ("rank_5.json", trace({"distributedInfo": {"rank": 6}})),   # distributedInfo wins: 6
    ("di_rank-8.json", trace({"distributedInfo": {"backend": "nccl"}})),  # no rank inside: 8
    ("rank9x.json", trace()),                                   # 9
    ("3rank2.json", trace()),                                   # after a digit: 2
    ("strrank.json", trace({"distributedInfo": {"rank": "4"}})),  # string rank: position 10
    ("neg.json", trace({"distributedInfo": {"rank": -1}})),     # negative: position 11
    ("late.json", b'{"traceEvents":[{"ph":"X","ts":5,"dur":1}],"distributedInfo":{"world_size":2,"rank":1}}'),  # after traceEvents: 1
    ("rank-3.json", trace({"distributedInfo": {"rank": 0}})),   # distributedInfo 0 over name 3
]
with open("names/list", "w") as lst:
    for name, data in files:
        with open("names/" + name, "wb") as f:
            f.write(data)
        lst.write("names/" + name + "\n")
PY
names=()
while IFS= read -r f; do names+=("$f"); done <names/list
va names --json names.json --merge-runs "${names[@]}"
expect_rc names 0
pycheck compare names.json "${names[@]}" || die "ranks differ from the oracle (lines above)"
check names.json '[x["rank"] for x in r["ranks"]] == [0, 0, 1, 1, 2, 2, 2, 3, 6, 8, 9, 10, 11, 12]' \
	"ranks not as expected"
check names.json 'all(x["warnings"] for x in r["ranks"] if x["source"] in
	("plain.json", "myrank3.json", "Rank4.json", "worker_9.json", "strrank.json", "neg.json"))' \
	"a rank taken from the argument position has no warning"
echo "pass: ranks from names and positions"
