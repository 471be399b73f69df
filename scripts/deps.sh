#!/bin/sh
# Install the Debian packages vtrace needs to build and test, and nothing else.
# Root installs directly, a sudoer through sudo; anyone else gets the exact
# apt-get line and exit status 2, so make stops before a confusing compile error.
set -eu

# package : file whose presence proves it is installed
need="
zlib1g-dev:/usr/include/zlib.h
libisal-dev:/usr/include/isa-l/igzip_lib.h
libcsv-dev:/usr/include/csv.h
gnuplot-nox:/usr/bin/gnuplot
pkg-config:/usr/bin/pkg-config
python3:/usr/bin/python3
clang:/usr/bin/clang
time:/usr/bin/time
"
# Extras for one part of the tests: --fuzz (libFuzzer), --slurm (a real
# single-node Slurm for the cluster recipe's test).
for extra in "$@"; do
	case $extra in
	--fuzz) need="$need libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a" ;;
	--slurm) need="$need slurm-wlm:/usr/sbin/slurmctld munge:/usr/sbin/munged" ;;
	*) echo "deps: unknown option '$extra'" >&2; exit 2 ;;
	esac
done

missing=""
for item in $need; do
	pkg=${item%%:*}
	file=${item#*:}
	[ -e "$file" ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "deps: missing Debian packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y$missing" >&2
	exit 2
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2 || true
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
