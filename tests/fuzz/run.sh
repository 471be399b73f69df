#!/usr/bin/env bash
# Run every libFuzzer target for a while:
#
#   tests/fuzz/run.sh BUILD_FUZZ_DIR SECONDS
#
# Each BUILD_FUZZ_DIR/fuzz_* binary runs for SECONDS on a fresh corpus made
# of a few small real traces (decompressed from $VT_SHARED/traces, default
# ../shared/traces beside the repository, cut to 64 KiB each), some
# hand-made seeds and those in tests/fuzz/seeds/.  Inputs are capped at
# 64 KiB and memory at 2 GiB.  A crash, a leak, a timeout or undefined
# behaviour fails the run: the inputs are kept in BUILD_FUZZ_DIR/artifacts/
# and their paths printed.  VT_FUZZ_JOBS targets run at once (default 1).
# Exit status: 0 when every target ran clean, 1
# when one found something, 2 on a usage error.
set -u

if [ $# -ne 2 ] || ! [ "$2" -ge 1 ] 2>/dev/null; then
	echo "usage: tests/fuzz/run.sh BUILD_FUZZ_DIR SECONDS" >&2
	exit 2
fi
dir=${1%/}
secs=$2
traces=${VT_SHARED:-$(dirname "$0")/../../../shared}/traces
max_len=65536

targets=()
for t in "$dir"/fuzz_*; do
	[ -f "$t" ] && [ -x "$t" ] && targets+=("$t")
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no fuzz_* targets in $dir (make fuzz-build)" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vtfuzz.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
seeds=$work/seeds
mkdir -p "$seeds" "$dir/artifacts"

# Real traces: the smallest few of each set, decompressed and cut.
n=0
if [ -d "$traces" ]; then
	while IFS= read -r f; do
		case $f in
		*.gz) gzip -dc -- "$f" 2>/dev/null | head -c "$max_len" >"$seeds/real-$n.json" ;;
		*) head -c "$max_len" -- "$f" >"$seeds/real-$n.json" ;;
		esac
		n=$((n + 1))
	done < <(find "$traces" -type f \( -name '*.json.gz' -o -name '*.json' \) \
		-size -200k -printf '%s %p\n' 2>/dev/null | sort -n | head -n 12 | cut -d' ' -f2-)
fi
[ "$n" -eq 0 ] && echo "fuzz: note: no traces under $traces, hand-made seeds only"

# Hand-made seeds: each top-level form, every field evparse reads, escapes,
# odd numbers, and texts cut in the middle.
seed() { printf '%s' "$2" >"$seeds/$1"; }
seed kineto.json '{"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":3,"world_size":8},"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85029158912},{"id":1,"name":"x","totalGlobalMem":"1024"}],"baseTimeNanoseconds":1712195000000000000,"traceEvents":[{"ph":"X","cat":"kernel","name":"k},{\"x\":1}","pid":0,"tid":"stream 7","ts":1712195495541300.987,"dur":12.5,"args":{"correlation":12345,"External id":67,"stream":4294967295,"Device Id":-1}},{"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":"123.5","args":{"Total Allocated":1024,"Total Reserved":2048,"Bytes":-512}},{"ph":"s","id":42,"pid":1,"tid":2,"ts":5,"cat":"ac2g","name":"ac2g"}],"traceName":"t","displayTimeUnit":"ms"}'
seed array.json '[{"name":"a","ph":"X","ts":1,"dur":2},{"name":"b\u00e9\ud83d\ude00\n\"","ph":"B","ts":1e3},1,"x",[],null]'
seed nccl.json '{"traceEvents":[{"ph":"X","name":"ncclDevKernel_AllReduce","pid":0,"tid":7,"ts":1,"dur":3,"args":{"Collective name":"allreduce","In msg nelems":1048576,"Out msg nelems":1048576,"Group size":8,"stream":7,"device":0}}],"distributedInfo":{"rank":"5","world_size":16}}'
seed numbers.json '[{"ts":9223372036854775.807},{"ts":9223372036854775.808},{"ts":-9223372036854775.808},{"ts":123456789012345678901234567890},{"ts":1e-9,"dur":15E-1},{"ts":01,"dur":"1.5e3"},{"ts":1e400}]'
seed cut.json '{"traceEvents":[{"name":"a","ts":1},{"name":"b\u12'
seed deep.json '[{"args":{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{"b":[]}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}]'
seed bom.json $'\xef\xbb\xbf{"traceEvents":[]} trailing'
seed junk.json '{"traceEvents":[{"name":"a"},{"name":"b"} x {"name":"c"}]}'
# A report, for the report reader's target.
root=$(cd "$(dirname "$0")/../.." && pwd -P)
[ -f "$root/testdata/golden/demo-report.json" ] &&
	head -c "$max_len" "$root/testdata/golden/demo-report.json" >"$seeds/report.json"
# A collector raw file (collector/FORMAT.md): header, strings, events, end;
# and the same blocks alone, which fuzz_vtr_read puts after a header of its own.
python3 - "$seeds" <<'PY'
import struct, sys
def block(kind, arg, payload):
    return struct.pack("<IHHII", 0x4b4c4256, kind, 0, len(payload), arg) + payload
def rec(ts, kind, sid=0, arg=0):
    return struct.pack("<qII", ts, kind | sid << 8, arg)
head = (b"\x89VTR\r\n\x1a\n" + struct.pack("<IIII", 1, 256, 0x01020304, 16) +
        struct.pack("<qqqqiI", 10**18, 1000, 0, 1, 42, 0)).ljust(256, b"\0")
names = b"".join(struct.pack("<I", len(n)) + n for n in (b"step", b"\0x", b"frames"))
events = (rec(1000, 1, 1) + rec(1500, 1, 2) + rec(1600, 2) + rec(2000, 2) + rec(2100, 3, 1) +
          rec(2200, 4, 3) + rec(7, 8) + rec(2300, 6) + rec(2, 8) + rec(2400, 1, 1))
body = (block(1, 1, names) + block(2, 77, events) + block(2, 78, rec(5, 2)) +
        block(3, 0, struct.pack("<qQQQ", 3000, 12, 0, 0)))
open(sys.argv[1] + "/raw.vtr", "wb").write(head + body)
open(sys.argv[1] + "/blocks.bin", "wb").write(b"\0" + body)
PY
printf '{"traceEvents":[{"name":"gz","ts":1,"ph":"X","dur":1},{"name":"},{","ts":2}]}' |
	gzip -c >"$seeds/small.json.gz"
# Two members, the second with a file name in its header (gzin reads each
# trailer itself after igzip's deflate data).
printf '{"traceEvents":[{"name":"m1","ts":1,"ph":"X","dur":1},' >"$work/m1.json"
printf '{"name":"m2","ts":2,"ph":"X","dur":1}]}' >"$work/m2.json"
{ gzip -nc <"$work/m1.json"; gzip -c "$work/m2.json"; } >"$seeds/members.json.gz"
# Committed seeds of the newer surfaces: run metadata (tags), record_shapes'
# shape arguments (also as fuzz_perf_model's name and fields), HCCL operator
# names, a report with tags.
cp "$root"/tests/fuzz/seeds/* "$seeds"/ 2>/dev/null

# fuzz_one TARGET: run it, print its one-line result (and what it found),
# exit 1 when it found something.
fuzz_one() {
	local t=$1 name corpus log rc stats execs ub found
	name=$(basename "$t")
	corpus=$work/corpus-$name
	log=$work/$name.log
	mkdir -p "$corpus"
	cp "$seeds"/* "$corpus"/
	# Leftovers of an earlier run would be mistaken for this run's finds.
	rm -f "$dir/artifacts/$name-"*
	env -u VTRACE_CHUNK_SIZE -u VTRACE_INFLATE \
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:abort_on_error=0 \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
		"$t" -max_len="$max_len" -rss_limit_mb=2048 -timeout=60 \
		-max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$name-" "$corpus" >"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' "$log" | tail -n 1)
	# UBSan reports and carries on, so the run can look for more; then the
	# corpus is replayed with undefined behaviour fatal to save an input.
	ub=$(grep -E 'runtime error:' "$log" | sort -u)
	if [ -n "$ub" ]; then
		env -u VTRACE_CHUNK_SIZE -u VTRACE_INFLATE ASAN_OPTIONS=detect_leaks=0 \
			UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			"$t" -max_len="$max_len" -rss_limit_mb=2048 -timeout=60 -runs=0 \
			-artifact_prefix="$dir/artifacts/$name-ub-" "$corpus" >"$log.ub" 2>&1
	fi
	found=$(ls "$dir/artifacts/$name-"* 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ -n "$found" ] || [ -n "$ub" ]; then
		echo "fuzz: $name: FAILED (exit $rc) after ${execs:-?} runs, ${stats#*DONE   }"
		{
			echo "$ub"
			grep -E 'ERROR|SUMMARY|fuzz_[a-z_]+: |Test unit written' "$log"
		} | grep -v '^$' | head -n 20 | sed 's/^/    /'
		for f in $found; do
			echo "fuzz: $name: crash input: $f ($(wc -c <"$f") bytes)"
		done
		[ -z "$found" ] && tail -n 20 "$log" | sed 's/^/    /'
		return 1
	fi
	echo "fuzz: $name: ok, ${execs:-?} runs in ${secs}s, ${stats#*DONE   }"
}

# VT_FUZZ_JOBS targets at a time (default 1), each for SECONDS on a core of
# its own: the same fuzzing in less wall time.  Results print in order.
jobs=${VT_FUZZ_JOBS:-1}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
status=0
i=0
for t in "${targets[@]}"; do
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	(fuzz_one "$t" >"$work/result-$i" 2>&1; echo $? >"$work/rc-$i") &
	i=$((i + 1))
done
wait
for ((k = 0; k < i; k++)); do
	cat "$work/result-$k"
	[ "$(cat "$work/rc-$k" 2>/dev/null)" = 0 ] || status=1
done
exit $status
