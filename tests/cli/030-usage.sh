#!/usr/bin/env bash
# Command-line usage: exit 2 and a hint for usage errors, --help on stdout.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze

va noargs
expect_rc noargs 2
expect_line noargs.err '--help' "no arguments: hint mentioning --help"
echo "pass: no arguments"

va help --help
expect_rc help 0
expect_line help.out '(^|[^[:alnum:]-])-j([^[:alnum:]-]|$)' "--help: mentions -j"
expect_line help.out '--json' "--help: mentions --json"
[ -s help.err ] && die "--help writes to stderr"
echo "pass: --help"

printf '{"traceEvents":[{"ph":"X","ts":1,"dur":1}]}' >ok.json
for args in "--no-such-option ok.json" "-Z ok.json" "-j ok.json" "-j x ok.json" "--json" "ok.json --json"; do
	# shellcheck disable=SC2086
	va bad $args
	expect_rc bad 2
	expect_line bad.err '--help' "'$args': hint mentioning --help"
	[ -e report.json ] && die "'$args': wrote a report"
	echo "pass: usage error: $args"
done

# doc/findings.md's threshold table is the rule table of lib/stats/suggest.c, as --help prints it
python3 - "$VT_ROOT/doc/findings.md" help.out <<'PY' || die "doc/findings.md's threshold table differs from --help"
import re, sys

readme = open(sys.argv[1], encoding="utf-8").read()
table = readme.split("| name | default | rule | fires when |\n| --- | --- | --- | --- |\n")[1]
rows = []
for line in table.splitlines():
    if not line.startswith("|"):
        break
    rows.append(tuple(c.strip() for c in line.strip("|").split(" | ")))
rows = [(n.strip("`"), d, r, w) for n, d, r, w in rows]
# --help: "  NAME = DEFAULT (RULE)", then the meaning wrapped at 80 columns, plain text
rows = [(n, d, r, w.replace("`", "")) for n, d, r, w in rows]
help_rows = []
text = open(sys.argv[2], encoding="utf-8").read().split("Thresholds (--threshold NAME=V):\n")[1]
for line in text.splitlines():
    m = re.match(r"  (\S+) = (\S+) \((\S+)\)$", line)
    if m:
        help_rows.append(list(m.groups()) + [""])
    elif line.startswith("      ") and help_rows:
        help_rows[-1][3] = (help_rows[-1][3] + " " + line.strip()).strip()
    if len(line) > 80 or "`" in line:
        sys.exit("--help line over 80 columns or with markdown: %r" % line)
help_rows = [tuple(r) for r in help_rows]
if len(help_rows) < 15 or rows != help_rows:
    for a, b in zip(rows + [None] * len(help_rows), help_rows + [None] * len(rows)):
        if a != b:
            print("doc   %r\n--help %r" % (a, b))
    sys.exit(1)
PY
echo "pass: doc/findings.md's threshold table matches --help"
