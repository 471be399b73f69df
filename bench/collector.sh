#!/bin/sh
# The collector's bar: ns per region begin+end pair on 1 and 2 threads,
# linked statically and loaded as the shared library, against two bare
# clock_gettime() calls on as many threads (the floor), and no allocation
# in steady state.  Files go to a temporary directory, removed afterwards.
#
#   bench/collector.sh BUILD_DIR [PAIRS_PER_THREAD]
set -eu

BUILD=${1:?usage: bench/collector.sh BUILD_DIR [PAIRS_PER_THREAD]}
PAIRS=${2:-1000000}
BIN=$BUILD/tests/collector_bench
SO=$BUILD/libvtrace.so
for f in "$BIN" "$SO"; do
	if [ ! -e "$f" ]; then
		echo "bench/collector.sh: $f is not built (make BUILD=$BUILD all)" >&2
		exit 2
	fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/vtbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE \
	VTRACE_BUFFER_KB VTRACE_FLUSH_MS

echo "== collector: region begin+end pair (bar: under 100 ns, no allocation)"
"$BIN" "$TMP" "$SO" "$PAIRS"
