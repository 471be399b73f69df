#!/usr/bin/env bash
# -j 1, -j 2 and -j 3 give byte-identical reports (-j 3: one file's finishing
# steps on three threads, phases beside gpu and cpuops), also with 64 KiB chunks
# (VTRACE_CHUNK_SIZE) that cut every file into hundreds of chunks, on the
# largest public traces: mtia_rank_0 (87 MB text), df_index_resolver (54 MB),
# the single-line 15 MB sglang prefill/decode trace and ns_resolution
# (19-digit timestamps).  --json - writes the same bytes to stdout.
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze

HTA=$PUBLIC/facebookresearch__HolisticTraceAnalysis
mtia=$HTA/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz
dfir=$HTA/tests__data__df_index_resolver__df_index_resolver.json.gz
nsres=$(echo "$HTA"/tests__data__ns_resolution_trace__rank-0.*.pt.trace.json.gz)
sglang=$PUBLIC/AMD-AGI__TraceLens/tests__traces__inference__sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz
for f in "$mtia" "$dfir" "$nsres" "$sglang"; do
	[ -f "$f" ] || die "missing trace $f"
done

# runs SET FILE...: the report of FILE... in six settings, all identical.
runs() {
	local set=$1 ref="" j chunk name
	shift
	for chunk in default 65536; do
		for j in 1 2 3; do
			name=$set-j$j-$chunk
			if [ "$chunk" = default ]; then
				env -u VTRACE_CHUNK_SIZE "$VANALYZE" -j "$j" --merge-runs --json "$name.json" "$@" \
					>"$name.out" 2>"$name.err" </dev/null
			else
				VTRACE_CHUNK_SIZE=$chunk "$VANALYZE" -j "$j" --merge-runs --json "$name.json" "$@" \
					>"$name.out" 2>"$name.err" </dev/null
			fi
			echo $? >"$name.rc"
			expect_rc "$name" 0
			[ -s "$name.json" ] || die "$name: no report"
			if [ -z "$ref" ]; then
				ref=$name
			elif ! cmp -s "$ref.json" "$name.json"; then
				diff -u "$ref.json" "$name.json" | head -n 40
				die "$set: report at $name differs from $ref"
			fi
		done
	done
	echo "pass: $set: -j 1, 2 and 3, default and 64 KiB chunks"
}

runs all4 "$mtia" "$dfir" "$sglang" "$nsres"
runs mtia "$mtia"
runs sglang "$sglang"
runs nsres "$nsres"

# The four-file report agrees with the oracle too (010 checks each file alone).
pycheck compare all4-j2-65536.json "$mtia" "$dfir" "$sglang" "$nsres" ||
	die "ranks differ from the oracle (lines above)"

# --json - writes the report to stdout, byte for byte the same.
va stdout -j 2 --quiet --json - "$nsres"
expect_rc stdout 0
cmp -s stdout.out nsres-j2-default.json || {
	diff -u nsres-j2-default.json stdout.out | head -n 20
	die "--json - differs from --json FILE"
}
echo "pass: --json - equals --json FILE"
