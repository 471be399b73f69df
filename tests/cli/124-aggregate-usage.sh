#!/usr/bin/env bash
# vaggregate's command line: --help teaches and exits 0, -V, usage errors
# exit 2 with a hint, --threshold changes suggestions as in vanalyze, --json -
# writes the report alone on stdout, and --html / --out go through the
# report renderer (the --out report.json is the --json report).
. "$VT_ROOT/tests/cli/lib.sh"
need_shared
need_vanalyze
need_vaggregate

vg help --help
expect_rc help 0
for want in '--reports_dir DIR' '--json PATH' '--html PATH' '--out DIR' '--threshold NAME=V' \
	'Exit status' 'counted once' '^  utilization '; do
	expect_line help.out "$want" "--help mentions $want"
done
vg version -V
expect_rc version 0
expect_line version.out '^vaggregate [0-9]+\.[0-9]+\.[0-9]+$' "-V"

vg noargs
expect_rc noargs 2
expect_line noargs.err "^vaggregate: no reports given" "no input"
expect_line noargs.err "^try 'vaggregate --help'$" "hint"
vg badopt --frobnicate x
expect_rc badopt 2
expect_line badopt.err "unknown option '--frobnicate'" "unknown option"
vg noarg --reports_dir
expect_rc noarg 2
vg badthr --threshold nosuch=1 x.json
expect_rc badthr 2
vg badj -j 0 x.json
expect_rc badj 2

for r in 0 1 2 3; do
	mkdir -p "reports/rank_$r"
	va map$r -q --json "reports/rank_$r/report.json" \
		"$TORCH_CPU/dev-4rank-straggler2-rank$r.trace.json.gz"
	expect_rc map$r 0
done
vg base -q --reports_dir reports --json base.json
expect_rc base 0
[ ! -s base.out ] || die "-q printed a summary"
# These traces have 2 steps each: more than 0, fewer than the default 30.
vg thr -q --threshold steps=0 --reports_dir reports --json thr.json
expect_rc thr 0
check base.json 'not any(s["id"] == "many-denoising-steps" for s in r["suggestions"])' \
	"no many-steps suggestion by default" \
	'all(x["steps"]["count"] > 0 for x in r["ranks"])' "steps in every rank"
check thr.json 'any(s["id"] == "many-denoising-steps" for s in r["suggestions"])' \
	"--threshold steps=0 makes the rule fire"

vg stdout --reports_dir reports --json -
expect_rc stdout 0
pycheck same stdout.out base.json || die "--json - differs from --json FILE"

vg out -q --reports_dir reports --out outdir --html page.html --no-charts --title 'four ranks'
expect_rc out 0
for f in outdir/report.json outdir/report.html page.html; do
	[ -s "$f" ] || die "$f was not written"
done
cmp -s outdir/report.json base.json || die "--out DIR/report.json differs from --json"
expect_line page.html 'four ranks' "the title"
echo "pass: options, --threshold, --json -, --out and --html"

# The run's own outputs inside the reports directory are not read back.
for i in 1 2; do
	vg again$i -q --reports_dir reports --out reports/merged --json reports/all.json
	expect_rc again$i 0
	no_line again$i.err '.' "run $i: stderr"
done
cmp -s reports/all.json base.json || die "the second run read its own outputs"
echo "pass: outputs inside the reports directory are not inputs"
