#!/usr/bin/env bash
# scripts/stylecheck.sh, which make test runs over the tree, finds each
# planted fault and passes the lines at the limit: a tab counts to the next
# multiple of 8, a UTF-8 character one column.
. "$VT_ROOT/tests/cli/lib.sh"

CHECK=$VT_ROOT/scripts/stylecheck.sh
python3 - <<'PY' || die "cannot write the planted files"
ok = ("\t" + "x" * 92 + "\n"                 # 8 + 92 = 100 columns
      + "\t\t    aligned(a,\n"                # tabs, then up to 7 spaces
      + "/* " + "\u00b5" * 94 + " */\n")      # 100 characters, 194 bytes
open("ok.c", "w", encoding="utf-8").write(ok)
open("long.c", "w").write("\t" + "x" * 93 + "\n")
open("trailing.c", "w").write("int x; \n")
open("spaces.c", "w").write("        int x;\n")
open("spacetab.c", "w").write("  \tint x;\n")
open("nonewline.c", "w").write("int x;")
PY
"$CHECK" ok.c >ok.out 2>&1 || { cat ok.out; die "stylecheck refused lines at the limit"; }
for f in long trailing spaces spacetab nonewline; do
	rc=0
	"$CHECK" $f.c >$f.out 2>&1 || rc=$?
	[ $rc = 1 ] || die "$f.c: stylecheck exit status $rc, expected 1"
done
expect_line long.out '^long\.c:1: longer than 100 columns \(101\)$' "a line of 101 columns"
expect_line trailing.out '^trailing\.c:1: trailing blank$' "a trailing blank"
expect_line spaces.out '^spaces\.c:1: indented with spaces' "indentation by spaces"
expect_line spacetab.out '^spacetab\.c:1: space before tab' "a space before a tab"
expect_line nonewline.out '^nonewline\.c: no newline at the end$' "no final newline"
(cd "$VT_ROOT" && "$CHECK") >tree.out 2>&1 || { head -n 20 tree.out; die "the tree fails stylecheck"; }
echo "pass: stylecheck finds each planted fault, passes the limit, and the tree passes"
