#!/usr/bin/env bash
# plain build only: the pages and --help are the same in every build.
#
# The manual pages (doc/man): each renders without a warning under
# `groff -man -ww`, each program's page names every option its --help
# lists, and libvtrace(3) names every function and environment variable
# of collector/vtrace.h.
. "$VT_ROOT/tests/cli/lib.sh"
need_vanalyze
need_vaggregate
need_vcompare
command -v groff >/dev/null || skip "groff is not installed (scripts/deps.sh test installs groff-base)"

MAN=$VT_ROOT/doc/man
for page in "$MAN"/*.[13]; do
	name=$(basename "$page")
	groff -man -ww -Tutf8 "$page" >"$name.utf8" 2>"$name.warn" || die "$name: groff failed"
	[ -s "$name.warn" ] && { cat "$name.warn"; die "$name: groff -ww warns"; }
	# plain text, for the checks below: no overstrike, no hyphenation breaks
	groff -man -Tascii -P-cbou "$page" >"$name.txt" 2>/dev/null || die "$name: groff -Tascii failed"
	echo "pass: $name renders without warnings"
done

for prog in vanalyze vaggregate vcompare vtrace-export; do
	[ -f "$MAN/$prog.1" ] || die "no manual page doc/man/$prog.1"
	"$VT_BUILD/$prog" --help >"$prog.help" 2>&1 || die "$prog --help failed"
done

python3 - "$VT_ROOT/collector/vtrace.h" <<'PY' || die "a manual page misses what it documents"
import re, sys

def words(path):
    return open(path, encoding="utf-8").read()

def has(text, token):
    return re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text) is not None

bad = 0
for prog in ("vanalyze", "vaggregate", "vcompare", "vtrace-export"):
    page = words(prog + ".1.txt")
    opts = sorted(set(re.findall(r"(?<![\w'-])(--?[A-Za-z][\w-]*)", words(prog + ".help"))))
    missing = [o for o in opts if not has(page, o)]
    if missing:
        print("%s(1) misses options of its --help: %s" % (prog, " ".join(missing)))
        bad = 1
    else:
        print("pass: %s(1) names all %d options of --help" % (prog, len(opts)))

header = words(sys.argv[1])
page = words("libvtrace.3.txt")
api = re.findall(r"VT_API [^;]*?\b(vt_\w+)\(", header)
env = sorted(set(re.findall(r"\b(VTRACE_[A-Z_]+)\b", header)) - {"VTRACE_H"})
missing = [n for n in api + env if not has(page, n)]
if len(api) < 10 or missing:
    print("libvtrace(3) misses: %s" % " ".join(missing or ["(no functions found in vtrace.h)"]))
    bad = 1
else:
    print("pass: libvtrace(3) names all %d functions and %d variables of vtrace.h" % (len(api), len(env)))
sys.exit(bad)
PY
