#!/bin/sh
# Regenerate testdata/golden/ from the demo set, or (with --check) compare.
#
#   tests/golden.sh BUILD_DIR           rewrite the golden files
#   tests/golden.sh BUILD_DIR --check   diff -u against them; exit 1 on a change
#
# Golden files change only in a commit that says why (STYLE.md).  The one
# filter every golden output goes through: the version string.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
build=$1
mode=${2:-write}
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

filter() {
	sed -e 's/"version": "[^"]*"/"version": "VERSION"/'
}

# COLUMNS=80: the findings wrap to the width, which must not depend on the caller
NO_COLOR=1 COLUMNS=80 "$build/vanalyze" -j 2 --frames 81 --target-fps 16 --top 5 \
	--json "$tmp/report.json" testdata/demo > "$tmp/summary.txt"
filter < "$tmp/summary.txt" > "$tmp/demo-summary.txt"
filter < "$tmp/report.json" > "$tmp/demo-report.json"

status=0
for f in demo-summary.txt demo-report.json; do
	if [ "$mode" = --check ]; then
		diff -u "testdata/golden/$f" "$tmp/$f" || status=1
	else
		cp "$tmp/$f" "testdata/golden/$f"
	fi
done
exit $status
