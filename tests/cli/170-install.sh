#!/usr/bin/env bash
# plain build only: it installs the build as it is, and ASan adds nothing.
#
# make install into a temporary DESTDIR, and the result used from there:
# every file in its place; an installed program analyses the demo; the
# collector demo builds against the installed header and library through
# pkg-config (PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR into the DESTDIR,
# as packagers stage it) and records; `import vtrace` from the installed
# module directory loads the installed libvtrace.so and records a run that
# the installed vanalyze reads.  Then make uninstall leaves no file behind.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
command -v pkg-config >/dev/null || skip "pkg-config is not installed (scripts/deps.sh installs it)"

# make, as a user would run it here: not the jobs or variables of the make
# that runs the tests, but DEV=1 where the build has -Werror (CI's build).
# 'make install' builds what is out of date first: install only a build
# made with the flags such a make uses, so that nothing is rebuilt under
# the tests running beside this one.
dev=
grep -q -- -Werror "$VT_BUILD/flags.stamp" 2>/dev/null && dev=DEV=1
mk() {
	# shellcheck disable=SC2086
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR \
		make --no-print-directory -C "$VT_ROOT" $dev "$@"
}
mk -n BUILD="$PWD/probe" all >/dev/null 2>&1
cmp -s probe/flags.stamp "$VT_BUILD/flags.stamp" ||
	skip "$VT_BUILD was built with other flags than a plain make uses; not installing it"
# vtrace.pc names the PREFIX: after a 'make install PREFIX=...' it is made
# again for this one (a GEN, no compiler), which is no reason to skip
mk -q BUILD="$VT_BUILD" -o "$VT_BUILD/vtrace.pc" all ||
	skip "$VT_BUILD is older than its sources (changed during the run?); not installing it"

stage=$PWD/stage
prefix=/usr/local
P=$stage$prefix
run_as install mk install BUILD="$VT_BUILD" DESTDIR="$stage" PREFIX="$prefix"
[ "$rc" -eq 0 ] || { cat install.out install.err; die "make install failed"; }
grep -q '^  CC\|^  LINK\|^  AR' install.out && die "make install rebuilt something"
pydir=$(python3 "$VT_ROOT/scripts/pythondir.py" "$prefix")
for f in bin/vanalyze bin/vaggregate bin/vcompare bin/vtrace-export \
	lib/libvtrace.so lib/libvtrace.a include/vtrace.h lib/pkgconfig/vtrace.pc \
	share/man/man1/vanalyze.1 share/man/man1/vaggregate.1 share/man/man1/vcompare.1 \
	share/man/man1/vtrace-export.1 share/man/man3/libvtrace.3 \
	share/doc/vtrace/README.md share/doc/vtrace/doc/report.md; do
	[ -f "$P/$f" ] || die "make install did not install $prefix/$f"
done
[ -f "$stage$pydir/vtrace.py" ] || die "make install did not install $pydir/vtrace.py"
expect_line install.out "$pydir/vtrace.py" "make install says where the Python module went"
grep -q "^prefix=$prefix\$" "$P/lib/pkgconfig/vtrace.pc" || die "vtrace.pc does not name the prefix"
echo "pass: make install put every file in its place"

# an installed program
run_as va "$P/bin/vanalyze" -q --json demo.json "$VT_ROOT/testdata/demo"
expect_rc va 0
check demo.json 'len(r["ranks"]) == 4' "the installed vanalyze reads the demo"

# the collector demo, built against the installed header and library
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --cflags --libs vtrace) ||
	die "pkg-config does not find the installed vtrace.pc"
case $flags in
*"-I$P/include"*"-L$P/lib"* | *"-L$P/lib"*"-I$P/include"*) ;;
*) die "pkg-config flags do not point into the DESTDIR: $flags" ;;
esac
# shellcheck disable=SC2086
cc -o demo "$VT_ROOT/tests/collector/collector_demo.c" $flags 2>cc.err ||
	{ cat cc.err; die "the collector demo does not build against the installed vtrace.h"; }
mkdir -p rec
LD_LIBRARY_PATH=$P/lib ./demo rec cdemo 2>demo.err || { cat demo.err; die "the demo failed"; }
LD_LIBRARY_PATH=$P/lib ldd ./demo | grep -q "$P/lib/libvtrace.so" ||
	die "the demo is not linked with the installed libvtrace.so"
ls rec/cdemo-rank0*.vtr >/dev/null 2>&1 || die "the demo recorded nothing"
echo "pass: the collector demo builds with pkg-config against the installed files and records"

# the Python module from its installed place, with the installed library
env -u VTRACE_LIB PYTHONPATH="$stage$pydir" PYTHONDONTWRITEBYTECODE=1 python3 - "$stage" "$P/lib/libvtrace.so" <<'PY' ||
import os, sys
import vtrace
stage, lib = sys.argv[1], sys.argv[2]
assert vtrace.__file__.startswith(stage), "imported %s, not the installed module" % vtrace.__file__
assert vtrace.available, "vtrace could not load libvtrace.so"
maps = open("/proc/self/maps").read()
assert lib in maps, "the installed libvtrace.so is not the one loaded"
assert vtrace.init(dir="pyrec", name="inst", rank=0, tags={"model": "demo"})
with vtrace.region("denoising"):
    for i in range(3):
        with vtrace.region("denoise_step_%d" % i):
            pass
vtrace.frames(8)
vtrace.shutdown()
PY
	die "import vtrace from the installed place does not record with the installed library"
run_as vr "$P/bin/vanalyze" -q --json py.json pyrec
expect_rc vr 0
check py.json 'r["ranks"][0]["throughput"]["frames"] == 8' "the recording's frames" \
	'any(p["name"] == "denoise_step_*" for p in r["ranks"][0]["phases"])' "its steps" \
	'r["run"]["tags"].get("model") == "demo"' "its tags"
echo "pass: import vtrace from $pydir records with the installed libvtrace.so"

# make uninstall: nothing left
run_as uninstall mk uninstall BUILD="$VT_BUILD" DESTDIR="$stage" PREFIX="$prefix"
[ "$rc" -eq 0 ] || { cat uninstall.out uninstall.err; die "make uninstall failed"; }
left=$(find "$stage" ! -type d)
[ -z "$left" ] || die "make uninstall left: $left"
echo "pass: make uninstall removes everything make install put"
