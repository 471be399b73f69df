#!/usr/bin/env bash
# Collector samples feed the analyses: with the tests' fake NVML (two GPUs at
# 40 % and 41 % utilization, 1 and 2 GiB used of 80 GiB), a .vtr without GPU
# events gets its utilization from the samples (mean 0.405) and one memory
# row per device with the sampled use and capacity, plus the process RSS.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
command -v python3 >/dev/null || skip "no python3"
case $VT_BUILD in *san*) skip "ctypes loads libvtrace.so, which ASan cannot preload here" ;; esac
FAKE=$VT_BUILD/tests/fake-nvml
[ -e "$FAKE/libnvidia-ml.so.1" ] || skip "fake NVML not built"
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

LD_LIBRARY_PATH=$FAKE VTRACE_DIR=$PWD/out VTRACE_SAMPLE_MS=20 \
	VTRACE_LIB=$VT_BUILD/libvtrace.so PYTHONPATH=$VT_ROOT/collector/python \
	python3 "$VT_ROOT/collector/python/example_pipeline.py" >ex.out 2>ex.err ||
	die "example pipeline failed: $(tail -3 ex.err)"
va s --json s.json out/*.vtr
expect_rc s 0
check s.json 'r["ranks"][0]["gpu"]["utilization_source"] == "samples"' "utilization from samples"
check s.json 'abs(r["ranks"][0]["gpu"]["utilization"] - 0.405) < 1e-12' "mean of 40 % and 41 %"
check s.json '[(m["device"], m["peak_reserved"], m["capacity"]) for m in r["ranks"][0]["memory"] if m["device"] >= 0] == [(0, 1 << 30, 80 << 30), (1, 2 << 30, 80 << 30)]' \
	"sampled memory in use and capacity per device"
check s.json '[m["peak_allocated"] > 1000000 for m in r["ranks"][0]["memory"] if m["device"] == -1] == [True]' \
	"process RSS as the CPU row"
echo "pass: collector samples"
