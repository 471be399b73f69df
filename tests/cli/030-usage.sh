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
