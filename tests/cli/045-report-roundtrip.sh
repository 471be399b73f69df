#!/usr/bin/env bash
# report_read is the exact inverse of the writer: reports of real traces
# (the 8 DLRM ranks, the torch-cpu straggler set, every public trace alone)
# read back and written again give the same bytes; samples_ns hold what the
# contract says, checked here against the report's own dist fields.
. "$VT_ROOT/tests/cli/lib.sh"

need_shared
need_vanalyze
RT=$VT_BUILD/tests/test_report_read
[ -x "$RT" ] || die "$RT is missing (make check-build)"
T=$VT_SHARED/traces

va dlrm --json dlrm.json "$T"/public/facebookresearch__param/*dlrm_kineto*worker*.json.gz
va cpu --json cpu.json "$T"/torch-cpu/dev-4rank-straggler2-rank*.trace.json.gz
reports=(dlrm.json cpu.json)
n=0
while IFS= read -r -d '' f; do
	n=$((n + 1))
	"$VANALYZE" -q -j 1 --json "one$n.json" "$f" 2>/dev/null
	[ -s "one$n.json" ] && reports+=("one$n.json")
	[ "$VT_SANITIZED" = 1 ] && [ $n -ge 8 ] && break
done < <(find "$PUBLIC" -name '*.json.gz' -size -20M -print0 | sort -z)
[ ${#reports[@]} -ge 4 ] || die "too few reports to read back"
"$RT" "${reports[@]}" || die "a report read back differs"

python3 - "${reports[@]}" <<'PY' || die "samples_ns break the contract"
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))
    for rk in r["ranks"]:
        for row in rk.get("kernels", []) + rk.get("phases", []):
            s, n = row["samples_ns"], row["count"]
            assert s == sorted(s), (path, row["name"])
            assert len(s) == min(n, 64), (path, row["name"], len(s), n)
            if n:
                assert s[0] == row["min_ns"] and s[-1] == row["max_ns"], (path, row["name"])
            if n <= 64:
                assert sum(s) == row["total_ns"] or "path" in row, (path, row["name"])
PY
echo "${#reports[@]} reports read back byte for byte"
