#!/usr/bin/env bash
# Frames from regions' block_size, laid out as the README shows it: each
# denoise_step_i sweeps blocks block_k, each with block_size.  A block is
# one unit of output per generation however many steps revisit it, so the
# frames are what the program produced (counted here by the program
# itself), not that times the steps.  vt_frames() beside block_size is said
# once and not added.  Through the C API (.vtr and its export) and, outside
# sanitizer builds, the Python binding.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
unset VTRACE_DIR VTRACE_NAME VTRACE_RANK RANK VTRACE_REGIONS VTRACE_SAMPLE_MS VTRACE_LIVE

# The C program: GENS videos of STEPS steps over BLOCKS blocks of SIZE
# frames; with "both" it also calls vt_frames() once per video.  It prints
# the frames it produced per video, counted apart from the trace.
cat >prog.c <<'C'
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <vtrace.h>

enum { GENS = 3, STEPS = 5, BLOCKS = 3, SIZE = 4 };

static void spin(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < ns);
}

int main(int argc, char **argv)
{
	int both = argc > 2 && !strcmp(argv[2], "both");
	char name[32];

	if (vt_init(argv[1], "prog", 0))
		return 1;
	for (int g = 0; g < GENS; g++) {
		long frames = 0;

		vt_region_begin("generate");
		vt_region_begin("denoise");
		for (int s = 0; s < STEPS; s++) {
			snprintf(name, sizeof(name), "denoise_step_%d", s);
			vt_region_begin(name);
			for (int k = 0; k < BLOCKS; k++) {
				snprintf(name, sizeof(name), "block_%d", k);
				vt_region_begin(name);
				vt_region_arg("block_size", SIZE);
				spin(100000);
				vt_region_end();
				if (s == STEPS - 1)
					frames += SIZE;	/* the block is done after its last step */
			}
			vt_region_end();
		}
		vt_region_end();
		if (both)
			vt_frames(frames);
		vt_region_end();
		printf("%ld\n", frames);
	}
	vt_shutdown();
	return 0;
}
C
SAN=""
[ "$VT_SANITIZED" = 1 ] && SAN="-fsanitize=address,undefined"
cc $SAN -I"$VT_ROOT/collector" -o prog prog.c -L"$VT_BUILD" -lvtrace -Wl,-rpath,"$VT_BUILD" ||
	die "cannot build against libvtrace"

# The oracle: frames per video as the program counted them, each video's
# wall time from its generate region in the export, FPS from both.
cat >oracle.py <<'PY'
import gzip, json, sys
report, export, counted = sys.argv[1], sys.argv[2], sys.argv[3]
frames = [int(x) for x in open(counted).read().split()]
with open(export, encoding="utf-8") as f:
    ev = json.load(f)["traceEvents"]
gens = sorted((e for e in ev if e.get("ph") == "X" and e["name"] == "generate"),
              key=lambda e: e["ts"])
assert len(gens) == len(frames), "generate regions %d, videos %d" % (len(gens), len(frames))
tp = json.load(open(report))["ranks"][0]["throughput"]
got = [g["frames"] for g in tp["generations"]]
assert got == frames, "frames per generation %r, the program made %r" % (got, frames)
assert tp["frames"] == sum(frames), "frames %r, want %d" % (tp["frames"], sum(frames))
for g, e in zip(tp["generations"], gens):
    want = g["frames"] / (e["dur"] / 1e6)
    assert abs(g["fps"] - want) <= 1e-3 * want, "fps %r, want %r" % (g["fps"], want)
wall = (gens[-1]["ts"] + gens[-1]["dur"] - gens[0]["ts"]) / 1e6
want = sum(frames) / wall
assert abs(tp["fps"] - want) <= 1e-3 * want, "run fps %r, want %r" % (tp["fps"], want)
PY

# run_case NAME: vanalyze NAME's .vtr and its export, both against the oracle.
run_case() {
	local n=$1
	"$VT_BUILD/vtrace-export" "$n.d/prog-rank0.vtr" -o "$n.json" 2>"$n.export.err" ||
		die "$n: vtrace-export failed: $(cat "$n.export.err")"
	for src in "$n.d/prog-rank0.vtr" "$n.json"; do
		va "$n.va" -q --json "$n.report.json" "$src"
		expect_rc "$n.va" 0
		python3 oracle.py "$n.report.json" "$n.json" "$n.counted" ||
			die "$n: frames of $src are not the program's"
	done
}

./prog "$PWD/c.d" >c.counted 2>c.err || die "prog failed: $(cat c.err)"
run_case c
no_line c.va.err 'block_size' "block_size alone"

# vt_frames() and block_size both: the frames once, and said.
./prog "$PWD/both.d" both >both.counted 2>both.err || die "prog both failed: $(cat both.err)"
run_case both
va both.say both.d/prog-rank0.vtr
expect_rc both.say 0
expect_line both.say.err "vt_frames\(\) and by regions' block_size" "the double count said"
[ "$(grep -c block_size both.say.err)" = 1 ] || die "block_size said more than once"

# The Python binding with the README's layout.
if [ "$VT_SANITIZED" = 1 ] || ! command -v python3 >/dev/null; then
	exit 0	# ASan must be the first library in a process; python3 is not built with it
fi
cat >pipe.py <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
import vtrace
assert vtrace.init(dir=sys.argv[2], name="prog", rank=0)
for video in range(2):
    frames = 0
    with vtrace.region("generate"):
        with vtrace.region("denoise"):
            for i in range(4):
                with vtrace.region(f"denoise_step_{i}", timestep=1000 - 250 * i):
                    for k in range(3):
                        with vtrace.region(f"block_{k}", block_size=4):
                            time.sleep(0.0002)
                        frames += 4 if i == 3 else 0
    print(frames)
vtrace.shutdown()
PY
VTRACE_LIB=$VT_BUILD/libvtrace.so python3 pipe.py "$VT_ROOT/collector/python" "$PWD/py.d" \
	>py.counted 2>py.err || die "pipe.py failed: $(cat py.err)"
[ "$(tr '\n' ' ' <py.counted)" = "12 12 " ] || die "pipe.py counted $(cat py.counted)"
run_case py
exit 0
