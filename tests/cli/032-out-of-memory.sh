#!/usr/bin/env bash
# Out of memory at any allocation: never a crash, never a silent loss
# (libanalyze, which vcompare links, returns its errors instead of
# exiting).  tests/failmalloc.c, preloaded, fails the Nth malloc, calloc or
# realloc; for N over every allocation of a clean run (every few on the
# larger runs), each program must
#   - end by itself with its failure status (vanalyze and vaggregate 1,
#     vcompare 2, "trouble": never a verdict) or succeed, never on a signal;
#   - say "out of memory" (or ENOMEM's "Cannot allocate memory") whenever it
#     fails, and fail whenever it says so;
#   - when it succeeds, write exactly the outputs of the clean run.
# libgomp ends the process by itself when its own allocations fail
# ("libgomp: Out of memory", "Thread creation failed"): not ours to handle,
# counted and let pass.  Charts that cannot
# be drawn (gnuplot not started, its SVG not read) are a warning and a page
# without them, as when gnuplot is missing: the rest must be whole.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
# A sanitizer's allocator must come first in the process and cannot be
# preloaded over; the plain build runs this test.
[ "$VT_SANITIZED" = 1 ] && skip "failmalloc cannot be preloaded over the sanitizers' allocator"
CC=${CC:-cc}
"$CC" -shared -fPIC -O1 -o failmalloc.so "$VT_ROOT/tests/failmalloc.c" -ldl ||
	die "cannot build tests/failmalloc.c"
FM=$PWD/failmalloc.so
DEMO=$VT_ROOT/testdata/demo
RANK0=$DEMO/fastvideo-rank0.trace.json.gz

"$VANALYZE" -q -j 2 --json demo.json "$DEMO" || die "cannot analyse the demo"
mkdir reports && cp demo.json reports/ || die "cannot copy the report"

# sweep NAME STEP FAILRC OUTPUT CMD...: CMD run once clean, then with the
# Nth allocation failing for N = 1, 1 + STEP, ... up to the clean run's
# count.  OUTPUT (a file or directory CMD writes, removed before each run)
# and stdout must equal the clean run's when CMD succeeds.  The thousands
# of runs are most of this test's time: stderr is matched by bash itself,
# and rm runs only when there is something to remove (a fork each saved).
sweep() {
	local name=$1 step=$2 failrc=$3 out=$4 n rc total runs=0 failed=0 gomp=0 nocharts=0 err
	local re_gomp=$'(^|\n)libgomp: (Out of memory|Thread creation failed)'
	local re_charts=$'(^|\n)[a-z]+: warning: [^\n]*(gnuplot|chart)'
	local re_oom='out of memory|cannot allocate memory'	# matched lowercased
	shift 4
	rm -rf "$out"
	VT_FAIL_COUNT=$name.count LD_PRELOAD=$FM "$@" >"$name.ref.stdout" 2>"$name.ref.err" ||
		die "$name: the clean run failed: $(tail -n 3 "$name.ref.err")"
	[ -e "$out" ] || die "$name: the clean run wrote no $out"
	rm -rf "$name.ref" && mv "$out" "$name.ref"
	total=$(cat "$name.count")
	[ "$total" -gt 10 ] 2>/dev/null || die "$name: failmalloc counted '$total' allocations"
	for ((n = 1; n <= total; n += step)); do
		if [ -e "$out" ] || [ -L "$out" ]; then rm -rf "$out"; fi
		rc=0
		VT_FAIL_AT=$n LD_PRELOAD=$FM "$@" >"$name.stdout" 2>"$name.err" || rc=$?
		runs=$((runs + 1))
		IFS= read -r -d '' err <"$name.err" || :	# the whole file: no NUL ends it
		if [ $rc != 0 ] && [[ $err =~ $re_gomp ]]; then
			gomp=$((gomp + 1))
			continue
		fi
		if [ $rc != 0 ] && [ $rc != "$failrc" ]; then
			tail -n 5 "$name.err" >&2
			die "$name: allocation $n of $total failing: exit status $rc (a signal above 128)"
		fi
		if [ $rc = 0 ] && [[ $err =~ $re_charts ]]; then
			# the charts, not the page: "Chart not drawn" and why (116)
			diff -r -x report.html "$name.ref" "$out" >/dev/null &&
				cmp -s "$name.ref.stdout" "$name.stdout" ||
				die "$name: allocation $n of $total: the charts lost, and more differs"
			nocharts=$((nocharts + 1))
		elif [[ ${err,,} =~ $re_oom ]]; then
			[ $rc = "$failrc" ] ||
				die "$name: allocation $n of $total: 'out of memory' said, yet exit status $rc"
			failed=$((failed + 1))
		elif [ $rc != 0 ]; then
			tail -n 5 "$name.err" >&2
			die "$name: allocation $n of $total: exit status $rc without 'out of memory'"
		else
			diff -r "$name.ref" "$out" >/dev/null && cmp -s "$name.ref.stdout" "$name.stdout" ||
				die "$name: allocation $n of $total failed unsaid: the outputs differ"
		fi
	done
	[ $failed -gt 0 ] || die "$name: no run out of memory in $runs (failmalloc not preloaded?)"
	echo "pass: $name: $runs runs of $total allocations, $failed said out of memory," \
		"$((runs - failed - gomp - nocharts)) whole, $nocharts without charts (warned)," \
		"$gomp ended by libgomp"
}

sweep one-rank 1 1 one.json "$VANALYZE" -j 1 --json one.json "$RANK0"
sweep four-ranks 7 1 out "$VANALYZE" -q -j 2 --out out "$DEMO"
sweep aggregate 5 1 agg "$VAGGREGATE" -q --out agg --reports_dir reports
sweep compare 5 2 cmp.json "$VCOMPARE" -q --json cmp.json demo.json "$RANK0"
