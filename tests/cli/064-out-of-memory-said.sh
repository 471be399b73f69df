#!/usr/bin/env bash
# plain build only: tests/failmalloc.c cannot be preloaded over the sanitizers' allocator.
# Out of memory is an error wherever it happens: exit 1 and said as such.
# A rank whose reading ran out of memory lost its metadata (read after the
# events) and passed for a second run (exit 2, "these inputs come from 2
# different runs"); a .vtr whose analysis ran out read "reading stopped by
# the consumer"; a warning's text that could not be formatted became
# "out of memory" in a report that exited 0; vtrace-export exited 0 with an
# empty output.  Only the allocations of those paths are swept: those of
# reading the first of two ranks, of a .vtr's analysis and of an export
# (032 sweeps everything on larger inputs).
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
[ "$VT_SANITIZED" = 1 ] && skip "failmalloc cannot be preloaded over the sanitizers' allocator"
CC=${CC:-cc}
"$CC" -shared -fPIC -O1 -o failmalloc.so "$VT_ROOT/tests/failmalloc.c" -ldl ||
	die "cannot build tests/failmalloc.c"
FM=$PWD/failmalloc.so
EXPORT=$VT_BUILD/vtrace-export

# Two ranks of one run, whose metadata comes after traceEvents (where
# torch.profiler's add_metadata() puts it), a tag with an escape.
python3 - <<'PY' || die "cannot write the traces"
import json
for r in range(2):
    ev = [{"name": "aten::mm", "ph": "X", "cat": "cpu_op", "ts": 1000 + i * 10, "dur": 5,
           "pid": 1, "tid": 1, "args": {}} for i in range(20)]
    ev += [{"name": "sm90_gemm", "ph": "X", "cat": "kernel", "ts": 1002 + i * 10, "dur": 3,
            "pid": 0, "tid": 7, "args": {"device": 0, "stream": 7}} for i in range(20)]
    t = {"schemaVersion": 1, "traceEvents": ev,
         "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 80 << 30}],
         "distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2},
         "run_name": "exp-1", "model": "llama\u00e9", "baseTimeNanoseconds": 1700000000000000000}
    json.dump(t, open("m-rank%d.trace.json" % r, "w"))
PY

# sweep NAME FAILRC FIRST LAST OUTPUT CMD...: CMD with allocation N failing,
# N = FIRST..LAST.  Each run ends by itself with 0 or FAILRC; FAILRC when
# and only when it says "out of memory" (or ENOMEM's text), as an error,
# never as a warning, never "reading stopped by the consumer" nor another
# run; 0 with OUTPUT the same bytes as NAME.ref; no temporary left.
sweep() {
	local name=$1 failrc=$2 first=$3 last=$4 out=$5 n rc runs=0 failed=0 gomp=0
	shift 5
	for ((n = first; n <= last; n++)); do
		rm -f "$out"
		rc=0
		VT_FAIL_AT=$n LD_PRELOAD=$FM "$@" >"$name.stdout" 2>"$name.err" || rc=$?
		runs=$((runs + 1))
		if [ $rc != 0 ] && grep -qE '^libgomp: (Out of memory|Thread creation failed)' "$name.err"; then
			gomp=$((gomp + 1))
			continue
		fi
		if grep -qE 'different runs|stopped by the consumer|warning: .*out of memory' "$name.err"; then
			cat "$name.err" >&2
			die "$name: allocation $n failing: said as a warning, another run or a stop (above)"
		fi
		if [ $rc != 0 ] && [ $rc != "$failrc" ]; then
			tail -n 5 "$name.err" >&2
			die "$name: allocation $n failing: exit status $rc"
		fi
		if grep -qiE 'out of memory|cannot allocate memory' "$name.err"; then
			[ $rc = "$failrc" ] || die "$name: allocation $n: 'out of memory' said, yet exit $rc"
			failed=$((failed + 1))
		elif [ $rc != 0 ]; then
			tail -n 5 "$name.err" >&2
			die "$name: allocation $n: exit status $rc without 'out of memory'"
		else
			cmp -s "$name.ref" "$out" ||
				die "$name: allocation $n failed unsaid: exit 0, and $out differs" \
					"($(stat -c %s "$out" 2>/dev/null || echo no) bytes, not $(stat -c %s "$name.ref"))"
		fi
		left=$(ls -A | grep -F '.tmp.' || true)
		[ -z "$left" ] || die "$name: allocation $n: temporaries left: $left"
	done
	[ $failed -gt 0 ] || die "$name: no run out of memory in $runs (failmalloc not preloaded?)"
	echo "pass: $name: allocations $first-$last: $failed said out of memory," \
		"$((runs - failed - gomp)) whole, $gomp ended by libgomp"
}

# count NAME CMD...: the allocations of a clean run of CMD.
count() {
	local name=$1
	shift
	VT_FAIL_COUNT=$name.count LD_PRELOAD=$FM "$@" >/dev/null 2>"$name.count.err" ||
		die "$name: the clean run failed: $(tail -n 3 "$name.count.err")"
	total=$(cat "$name.count")
	[ "$total" -gt 10 ] 2>/dev/null || die "$name: failmalloc counted '$total' allocations"
}

# --- the metadata of a rank: never a second run ----------------------------------
va ref -q -j 1 --json ranks.ref m-rank0.trace.json m-rank1.trace.json
expect_rc ref 0
check ranks.ref 'len(r["ranks"]) == 2' "two ranks of one run"
# -j 1 reads the files in turn: the first file's allocations come first, as
# in a run of it alone.
count first "$VANALYZE" -q -j 1 --json first.json m-rank0.trace.json
sweep ranks 1 1 "$total" out.json "$VANALYZE" -q -j 1 --json out.json m-rank0.trace.json \
	m-rank1.trace.json

# --- a .vtr's analysis and the report's warnings ------------------------------------
"$VT_BUILD/tests/collector_demo" vtr demo >/dev/null 2>&1 || die "collector_demo"
# Two copies claim one rank: each rank keeps a warning, whose text is formatted.
VTR=vtr/demo-rank0.vtr
cp "$VTR" vtr/copy.vtr || die "cannot copy $VTR"
va vtrref -q -j 1 --json vtr.ref "$VTR" vtr/copy.vtr
expect_rc vtrref 0
check vtr.ref 'all(any("also claims rank" in w for w in k["warnings"]) for k in r["ranks"])' \
	"each rank of the .vtr keeps a warning"
count vtr "$VANALYZE" -q -j 1 --json vtr.json "$VTR" vtr/copy.vtr
sweep vtr 1 1 "$total" out.json "$VANALYZE" -q -j 1 --json out.json "$VTR" vtr/copy.vtr

# --- vtrace-export: never exit 0 with what it lost -------------------------------------
for ext in json json.gz; do
	run_as "expref-$ext" "$EXPORT" "$VTR" -o "export.ref.$ext"
	expect_rc "expref-$ext" 0
	mv "export.ref.$ext" "export-$ext.ref"
	count "export-$ext" "$EXPORT" "$VTR" -o "x.$ext"
	sweep "export-$ext" 1 1 "$total" "out.$ext" "$EXPORT" "$VTR" -o "out.$ext"
done
