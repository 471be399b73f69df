#!/bin/sh
# The Debian packages vtrace needs, in one list, and their installation.
#
#   scripts/deps.sh [build|fuzz|test|bench]...   install what those need (default: build)
#   scripts/deps.sh --list                        print the whole list, install nothing
#
# 'test' needs what 'build' and 'fuzz' need, 'bench' what 'build' needs.
# Before anything is installed, the missing packages are printed with why
# each is needed.  Root installs directly, a sudoer through sudo; anyone else
# gets the exact apt-get line and exit status 2, so that make stops before a
# confusing compile error.  A package marked optional only enables a test
# (which skips without it): when it cannot be installed, that is said and the
# exit status stays 0.
set -eu

# One line per package: name, a file whose presence proves it is installed,
# what needs it (build, fuzz, test, bench; a trailing ? marks it optional),
# and why.
table='
zlib1g-dev          /usr/include/zlib.h                 build   gzip traces (zlib)
libisal-dev         /usr/include/isa-l/igzip_lib.h      build   inflating gzip at 3 times the speed of zlib (ISA-L)
libcsv-dev          /usr/include/csv.h                  build   the CSV tables (libcsv)
gnuplot-nox         /usr/bin/gnuplot                    build   the HTML page'"'"'s charts
pkg-config          /usr/bin/pkg-config                 build   compiler flags of zlib, and of vtrace.pc for the collector
python3             /usr/bin/python3                    test,bench  the independent oracles the tests compare every figure with
time                /usr/bin/time                       test,bench  peak memory in the tests and in make bench
clang               /usr/bin/clang                      fuzz    the libFuzzer targets (tests/fuzz)
libclang-rt-14-dev  /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a  fuzz  libFuzzer'"'"'s runtime
groff-base          /usr/bin/groff                      test?   rendering the manual pages (tests/cli/031)
chromium            /usr/bin/chromium                   test?   a real browser reads the HTML page (tests/cli/114; about 130 packages and 350 MB with what it depends on)
slurm-wlm           /usr/sbin/slurmctld                 test?   a real single-node Slurm for the cluster jobs of scripts/slurm (tests/cli/160)
munge               /usr/sbin/munged                    test?   Slurm'"'"'s authentication (tests/cli/160)
'

if [ "${1:-}" = --list ]; then
	echo "$table" | awk 'NF { why = $4; for (i = 5; i <= NF; i++) why = why " " $i;
		printf "%-19s %-7s %s\n", $1, $3, why }'
	exit 0
fi

wanted=""
for arg in "${@:-build}"; do
	case $arg in
	build | fuzz | bench) wanted="$wanted $arg" ;;
	test) wanted="$wanted build fuzz test" ;;
	*) echo "deps: unknown argument '$arg' (build, fuzz, test, bench or --list)" >&2; exit 2 ;;
	esac
done
[ -n "$wanted" ] || wanted=build
case " $wanted " in *" bench "*) wanted="$wanted build" ;; esac

# The missing packages, each with its reason: "pkg|optional|why" lines.
missing=$(echo "$table" | while read -r pkg file need why; do
	[ -n "$pkg" ] || continue
	opt=0
	case $need in *\?) opt=1; need=${need%\?} ;; esac
	for n in $(echo "$need" | tr ',' ' '); do
		case " $wanted " in *" $n "*)
			[ -e "$file" ] || echo "$pkg|$opt|$why"
			break ;;
		esac
	done
done)
[ -z "$missing" ] && exit 0

echo "deps: missing Debian packages, and why they are needed:" >&2
echo "$missing" | while IFS='|' read -r pkg opt why; do
	printf '  %-19s %s%s\n' "$pkg" "$( [ "$opt" = 1 ] && echo 'optional: ')" "$why" >&2
done
pkgs=$(echo "$missing" | cut -d'|' -f1 | paste -sd' ')
required=$(echo "$missing" | awk -F'|' '$2 == 0 { print $1 }')

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "deps: this user cannot install them; as root, run:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends $pkgs" >&2
	if [ -z "$required" ]; then
		echo "deps: the tests that need them will skip" >&2
		exit 0
	fi
	exit 2
fi
echo "deps: installing them: $sudo apt-get install -y --no-install-recommends $pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2 || true
# shellcheck disable=SC2086
if ! $sudo apt-get install -y -qq --no-install-recommends $pkgs >&2; then
	[ -z "$required" ] || exit 2
	echo "deps: the optional packages could not be installed; the tests that need them will skip" >&2
fi
