#!/usr/bin/env bash
# Outputs under attack.  Two vanalyze runs
# writing one --html path at once each leave a whole page (the last rename
# wins), never one spliced from both; a link planted at the old temporary
# name PATH.tmp, or at PATH itself, never gets its target written; and a
# standard output that cannot be written (/dev/full) is an exit status and
# a message, while a closed pipe stays quiet.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vaggregate
need_vcompare
need_shared
A=$TORCH_CPU/dev-2rank-default-rank0.trace.json.gz
B=$TORCH_CPU/dev-2rank-default-rank1.trace.json.gz

# --- 3: concurrent writers of one path ---------------------------------------
va refa --html a.html "$A"
expect_rc refa 0
va refb --html b.html "$B"
expect_rc refb 0
cmp -s a.html b.html && die "the two reference pages are the same"
for i in $(seq 1 25); do
	"$VANALYZE" -q --html same.html "$A" 2>/dev/null &
	"$VANALYZE" -q --html same.html "$B" 2>/dev/null &
	wait
	cmp -s same.html a.html || cmp -s same.html b.html ||
		die "round $i: two writers left a page that is neither run's ($(stat -c %s same.html) bytes)"
done
left=$(ls -A | grep -F '.tmp' || true)
[ -z "$left" ] || die "temporary files left behind: $left"
echo "pass: two writers of one path, 25 rounds: each time one whole page"

# --- concurrent writers of one --out directory ---------------------------------
# Each file was renamed into place whole, but six runs at once left
# report.json of one beside report.html of another.  A lock on the directory
# makes them take turns: the files always come from one run.
for i in $(seq 1 12); do
	for k in 1 2 3; do
		"$VANALYZE" -q --no-charts --out sameout "$A" 2>/dev/null &
		"$VANALYZE" -q --no-charts --out sameout "$B" 2>/dev/null &
	done
	wait
	python3 - sameout "$i" <<'PY' || die "concurrent --out (line above)"
import csv, json, os, sys
d, i = sys.argv[1], sys.argv[2]
src = os.path.basename(json.load(open(d + "/report.json"))["ranks"][0]["source"])
other = src.replace("rank0", "rankX").replace("rank1", "rank0").replace("rankX", "rank1")
html = open(d + "/report.html", encoding="utf-8").read()
ranks = open(d + "/tables/ranks.csv", encoding="utf-8").read()
if src not in html or other in html or src not in ranks or other in ranks:
    sys.exit("round %s: report.json of %s beside report.html or ranks.csv of another run" % (i, src))
PY
done
left=$(ls -A sameout sameout/tables | grep -F '.tmp' || true)
[ -z "$left" ] || die "temporary files left behind: $left"
echo "pass: six writers of one --out directory, 12 rounds: each time one run's files"

# --- 4: planted links ----------------------------------------------------------
echo precious >victim
ln -s victim out.json.tmp
echo precious >victim2
ln -s victim2 out.json
va link --json out.json "$A"
expect_rc link 0
[ "$(cat victim)" = precious ] || die "the target of a link at PATH.tmp was written"
[ "$(cat victim2)" = precious ] || die "the target of a link at PATH was written through"
[ -f out.json ] && [ ! -L out.json ] || die "PATH is not the new report"
check out.json 'r["schema"] == "vtrace.report/1"' "the report replaced the link"
echo "pass: links planted at PATH.tmp and PATH are never followed"

# --- output names of up to NAME_MAX bytes ------------------------------------
# The temporary beside PATH was PATH.tmp.XXXXXX, 11 bytes longer than PATH's
# last part: names of 245 to 255 bytes could not be written.
for n in 245 255; do
	long=$(head -c $((n - 5)) /dev/zero | tr '\0' x).json
	va "long$n" --json "$long" "$A"
	expect_rc "long$n" 0
	check "$long" 'r["schema"] == "vtrace.report/1"' "a report named with $n bytes"
	rm "$long"
done
left=$(ls -A | grep -E '^xxx.*\.tmp' || true)
[ -z "$left" ] || die "temporary files left behind: $left"
echo "pass: output names of 245 and 255 bytes"

# --- an output that is an input -------------------------------------------------
# 'vanalyze --json T T' replaced the trace with its report.  Whatever name the
# input goes by (itself, a hard link), it is refused, exit 1, left as it was.
cp "$A" T.json.gz
cp "$A" keep.json.gz
ln -f T.json.gz H.json.gz
for out in T.json.gz H.json.gz; do
	va "self-$out" --json "$out" T.json.gz
	expect_rc "self-$out" 1
	expect_line "self-$out.err" "^vanalyze: cannot write '$out': it is an input of this run$" "$out"
	cmp -s T.json.gz keep.json.gz || die "--json $out replaced the trace"
done
va selfref --json ref.json T.json.gz
cp ref.json keep.json
vc selfcmp --json ref.json ref.json ref.json
[ "$(cat selfcmp.rc)" != 0 ] || die "vcompare --json BASE BASE NEW: exit 0"
expect_line selfcmp.err "cannot write 'ref.json': it is an input of this run" "vcompare"
cmp -s ref.json keep.json || die "vcompare --json replaced its base report"
"$VT_BUILD/tests/collector_demo" vtrself demo 2>/dev/null || die "collector_demo"
cp vtrself/demo-rank0.vtr keep.vtr
run_as selfexp "$VT_BUILD/vtrace-export" vtrself/demo-rank0.vtr -o vtrself/demo-rank0.vtr
expect_rc selfexp 1
cmp -s vtrself/demo-rank0.vtr keep.vtr || die "vtrace-export -o IN replaced its input"
echo "pass: an output that is an input is refused (vanalyze, vcompare, vtrace-export)"

# --- a link planted at DIR/tables ------------------------------------------------
# --out DIR wrote the CSV tables wherever a link at DIR/tables pointed.  Now
# the tables directory is opened without following links: refused, exit 1,
# nothing written behind the link.
mkdir -p planted victimdir
ln -s ../victimdir planted/tables
va tables --no-charts --out planted "$A"
expect_rc tables 1
expect_line tables.err "^vanalyze: cannot write to 'planted/tables': not a directory \(a link is not followed\)$" \
	"the link is named"
[ -z "$(ls -A victimdir)" ] || die "tables written through a link: $(ls victimdir)"
va tablesok --no-charts --out realout "$A"
expect_rc tablesok 0
[ -s realout/tables/kernels.csv ] || die "no tables in a plain --out directory"
echo "pass: a link at DIR/tables is not followed"

# --- 9: standard output errors --------------------------------------------------
va ref --json ref.report "$A"
for p in vanalyze vaggregate vcompare; do
	case $p in
	vanalyze) run_as full bash -c '"$1" "$2" >/dev/full' _ "$VANALYZE" "$A" ;;
	vaggregate) run_as full bash -c '"$1" ref.report >/dev/full' _ "$VAGGREGATE" ;;
	vcompare) run_as full bash -c '"$1" ref.report ref.report >/dev/full' _ "$VCOMPARE" ;;
	esac
	# vcompare follows diff(1): 2 is trouble, 1 would read as a regression
	expect_rc full "$([ $p = vcompare ] && echo 2 || echo 1)"
	expect_line full.err "^$p: cannot write to standard output" "$p > /dev/full"
	run_as pipe bash -c 'set -o pipefail; "$1" "$2" | head -c 1 >/dev/null' _ "$VANALYZE" "$A"
	no_line pipe.err 'cannot write' "a closed pipe is no error to report"
done
echo "pass: writing standard output to /dev/full exits 1 (vcompare 2) with a message"

# --- a kill leaves no temporary behind -----------------------------------------
# gnuplot's chart directory: a gnuplot that never ends holds vanalyze --html
# while the directory is full; the output's temporary: vtrace-export reading
# a FIFO that gives it a header and no more holds its PATH.tmp.XXXXXX open.
# Each is killed there by SIGTERM, SIGINT and SIGHUP: the program dies of the
# signal and leaves nothing.
mkdir -p fakebin
printf '#!/bin/sh\nexec sleep 60\n' >fakebin/gnuplot
chmod +x fakebin/gnuplot
"$VT_BUILD/tests/collector_demo" vtrout demo 2>/dev/null || die "collector_demo"
python3 - "$VANALYZE" "$A" "$VT_BUILD/vtrace-export" vtrout/demo-rank0.vtr <<'PY' || die "a kill left temporaries (lines above)"
import glob, os, signal, struct, subprocess, sys, time
vanalyze, trace, export, vtr = sys.argv[1:]
bad = []

def wait_for(pattern):
    for _ in range(400):
        if glob.glob(pattern):
            return True
        time.sleep(0.025)
    return False

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    name = signal.Signals(sig).name
    # the chart directory
    tmpd = os.path.abspath("tmp-" + name)
    os.makedirs(tmpd)
    env = dict(os.environ, TMPDIR=tmpd, PATH=os.path.abspath("fakebin") + ":" + os.environ["PATH"])
    p = subprocess.Popen([vanalyze, "-q", "--html", "k.html", trace], env=env,
                         stderr=subprocess.DEVNULL)
    if not wait_for(tmpd + "/vtrace-charts.*/plot.gp"):
        bad.append("%s: vanalyze never reached gnuplot" % name)
    p.send_signal(sig)
    rc = p.wait()
    if rc != -sig:
        bad.append("%s: vanalyze exit %d, not killed by the signal" % (name, rc))
    if os.listdir(tmpd):
        bad.append("%s: left in TMPDIR: %s" % (name, os.listdir(tmpd)))
    # the output's temporary
    fifo = "in-%s.vtr" % name
    os.mkfifo(fifo)
    p = subprocess.Popen([export, fifo, "-o", "x-%s.json" % name], stderr=subprocess.DEVNULL)
    data = open(vtr, "rb").read()
    with open(fifo, "wb", buffering=0) as f:
        # the header alone, and the FIFO held open: the second read waits
        f.write(data[:struct.unpack_from("<I", data, 12)[0]])
        if not wait_for("x-%s.json.tmp.*" % name):
            bad.append("%s: vtrace-export made no temporary" % name)
        time.sleep(0.1)
        p.send_signal(sig)
        rc = p.wait()
    if rc != -sig:
        bad.append("%s: vtrace-export exit %d, not killed by the signal" % (name, rc))
    left = glob.glob("x-%s.json*" % name)
    if left:
        bad.append("%s: left behind: %s" % (name, left))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "pass: SIGTERM, SIGINT and SIGHUP leave no temporary file or chart directory"
