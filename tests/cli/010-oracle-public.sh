#!/usr/bin/env bash
# vanalyze on each real trace alone (57 public Kineto files, 7 torch-cpu legacy
# files) agrees exactly with tests/oracle.py on rank, source, events.total,
# events.by_ph, events.by_cat and span_ns, and reports the file as complete.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

files=()
while IFS= read -r f; do
	files+=("$f")
done < <(find "$PUBLIC" "$TORCH_CPU" -name '*.json.gz' -type f | LC_ALL=C sort)

[ "${#files[@]}" -ge 64 ] || die "expected 64 traces under $TRACES, found ${#files[@]}"

pycheck each "${files[@]}" || die "vanalyze and the oracle disagree (lines above)"
