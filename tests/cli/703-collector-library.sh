#!/usr/bin/env bash
# libvtrace as a library: the shared object exports vt_* and nothing else,
# needs neither OpenMP nor zlib, stays loaded (nodelete); a program builds
# against vtrace.h with the shared and with the static library; the
# pkg-config file parses.
. "$VT_ROOT/tests/cli/lib.sh"

SO=$VT_BUILD/libvtrace.so
A=$VT_BUILD/libvtrace.a
PC=$VT_BUILD/vtrace.pc
for f in "$SO" "$A" "$PC"; do
	[ -f "$f" ] || die "$f is not built"
done
command -v nm >/dev/null || skip "no nm"

# Sanitizer builds pull in runtime symbols; the export list is checked plainly.
if [ "$VT_SANITIZED" = 0 ]; then
	nm -D --defined-only "$SO" | awk '{ print $3 }' | grep -v '^vt_' >extra.txt
	[ -s extra.txt ] && die "libvtrace.so exports more than vt_*: $(head -5 extra.txt | tr '\n' ' ')"
fi
for sym in vt_init vt_shutdown vt_flush vt_enabled vt_path vt_region_begin vt_region_end \
	vt_instant vt_counter vt_frames vt_blocks; do
	nm -D --defined-only "$SO" | grep -q " T $sym\$" || die "libvtrace.so does not export $sym"
done
if command -v readelf >/dev/null; then
	readelf -d "$SO" >dyn.txt
	grep -E 'NEEDED.*(gomp|libz)' dyn.txt && die "libvtrace.so needs OpenMP or zlib"
	grep -q NODELETE dyn.txt || die "libvtrace.so is not marked nodelete"
fi

cat >prog.c <<'C'
#include <stdio.h>
#include <string.h>
#include "vtrace.h"

int main(int argc, char **argv)
{
	if (vt_init(argv[1], "prog", 0))
		return 1;
	vt_region_begin("main");
	vt_frames(1);
	vt_region_end();
	printf("%s\n", strrchr(vt_path(), '/') + 1);
	vt_shutdown();
	return 0;
}
C
SAN=""
[ "$VT_SANITIZED" = 1 ] && SAN="-fsanitize=address,undefined"
cc $SAN -I"$VT_ROOT/collector" -o prog_shared prog.c -L"$VT_BUILD" -lvtrace \
	-Wl,-rpath,"$VT_BUILD" || die "cannot link against libvtrace.so"
cc $SAN -I"$VT_ROOT/collector" -o prog_static prog.c "$A" -pthread -ldl ||
	die "cannot link against libvtrace.a"
for p in prog_shared prog_static; do
	./$p "$PWD/$p.d" >$p.out 2>$p.err || die "$p failed: $(cat $p.err)"
	expect_line $p.out '^prog-rank0.vtr$' "$p output"
	[ -s "$p.d/prog-rank0.vtr" ] || die "$p wrote no file"
done

if command -v pkg-config >/dev/null; then
	PKG_CONFIG_PATH=$VT_BUILD pkg-config --validate vtrace || die "vtrace.pc does not validate"
	PKG_CONFIG_PATH=$VT_BUILD pkg-config --libs vtrace | grep -q -- '-lvtrace' ||
		die "pkg-config --libs vtrace lacks -lvtrace"
fi
exit 0
