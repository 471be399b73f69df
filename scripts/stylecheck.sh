#!/usr/bin/env bash
# scripts/stylecheck.sh [FILE...]: the mechanical part of doc/style.md,
# checked over the C sources (every tracked *.c and *.h when no FILE is
# given): indentation by tabs (then at most 7 spaces to align a
# continuation), no trailing blanks, at most 100 columns with tabs at 8,
# and a final newline.  Prints FILE:LINE: what, one line each, and exits 1
# when anything is found.  The rest of the style (names, comments, layout
# of tables) is for review: no formatter keeps our aligned tables and
# comments (doc/style.md says why there is no .clang-format).
set -u
if [ $# -eq 0 ]; then
	cd "$(dirname "$0")/.." || exit 2
	# the tracked files; outside a git tree (a release tarball), the sources
	mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null)
	[ ${#files[@]} -gt 0 ] ||
		mapfile -t files < <(find analyzer aggregate compare render lib collector tests \
					  testdata bench -name '*.[ch]' 2>/dev/null | sort)
	[ ${#files[@]} -gt 0 ] || { echo "stylecheck: no C files found" >&2; exit 2; }
else
	files=("$@")
fi
LC_ALL=C awk '
function report(what) { printf "%s:%d: %s\n", FILENAME, FNR, what; bad++ }
function width(s,   i, c, w) {
	w = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\t")
			w += 8 - w % 8
		else if (c < "\200" || c >= "\300")	# count UTF-8 characters, not bytes
			w++
	}
	return w
}
{
	if ($0 ~ /[ \t]$/)
		report("trailing blank")
	if ($0 ~ /^\t*        /)	# 8 spaces (mawk has no {8})
		report("indented with spaces (tabs, then at most 7 spaces to align)")
	if ($0 ~ /^\t* +\t/)
		report("space before tab in the indentation")
	if (width($0) > 100)
		report("longer than 100 columns (" width($0) ")")
}
END { exit bad ? 1 : 0 }
' "${files[@]}"
rc=$?
for f in "${files[@]}"; do
	if [ -s "$f" ] && [ -n "$(tail -c 1 "$f")" ]; then
		echo "$f: no newline at the end"
		rc=1
	fi
done
exit $rc
