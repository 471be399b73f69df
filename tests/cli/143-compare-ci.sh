#!/usr/bin/env bash
# plain build only: vanalyze and vcompare run under the sanitizers in 140-142.
#
# The CI snippets of doc/ci.md, taken from that page itself and run as the CI
# systems run them: the GitHub Actions step under `bash -e -o pipefail`
# (GitHub's default shell), the GitLab script lines in one `bash -e` shell
# (as the runner does).  With a failing gate (the pipeline's denoising 20 %
# slower than the baseline) each publishes vcompare's markdown (the step
# summary file, the job log) and then fails the job with exit 1; with a
# passing gate it publishes and exits 0.  `python generate.py` is a stand-in
# that copies prepared gentrace traces; vanalyze and vcompare are the built
# ones.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
need_vcompare
G=$VT_BUILD/gentrace
common=(--ranks 2 --steps 20 --blocks 4)
mkdir -p prep/base prep/slow prep/same bin baseline
"$G" "${common[@]}" --seed 1 -o prep/base/run >/dev/null || die "gentrace"
"$G" "${common[@]}" --seed 2 -o prep/same/run >/dev/null || die "gentrace"
"$G" "${common[@]}" --seed 3 --slow-phase denoise_step=1.2 -o prep/slow/run >/dev/null ||
	die "gentrace"
rm -f prep/*/run-truth.json
"$VANALYZE" -q --json baseline/report.json prep/base || die "vanalyze baseline"

# the snippets, from doc/ci.md
python3 - "$VT_ROOT/doc/ci.md" <<'PY' || die "cannot extract the CI snippets from doc/ci.md"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
def block_after(title):
    at = text.index(title)
    m = re.search(r"```yaml\n(.*?)```", text[at:], re.S)
    return m.group(1).split("\n")
gh = block_after("GitHub Actions:")
i = next(i for i, l in enumerate(gh) if l.strip() == "run: |")
ind = len(gh[i + 1]) - len(gh[i + 1].lstrip())
body = []
for l in gh[i + 1:]:
    if l.strip() and len(l) - len(l.lstrip()) < ind:
        break
    body.append(l[ind:])
open("github.sh", "w").write("\n".join(body) + "\n")
gl = block_after("GitLab CI:")
i = next(i for i, l in enumerate(gl) if l.strip() == "script:")
lines = []
for l in gl[i + 1:]:
    if not l.strip().startswith("- "):
        break
    lines.append(l.strip()[2:])
open("gitlab.sh", "w").write("\n".join(lines) + "\n")
for name, s in (("github.sh", body), ("gitlab.sh", lines)):
    if not any("vcompare" in l for l in s):
        sys.exit("%s: no vcompare in the snippet" % name)
PY

# python generate.py --profile-dir traces/: the traces of $PIPELINE
cat >bin/python <<'SH'
#!/usr/bin/env bash
[ "$1" = generate.py ] && [ "$2" = --profile-dir ] || { echo "unexpected: $*" >&2; exit 3; }
mkdir -p "$3" && cp "$PIPELINE"/*.trace.json.gz "$3"
SH
chmod +x bin/python
ln -s "$VANALYZE" bin/vanalyze
ln -s "$VCOMPARE" bin/vcompare

# job NAME SNIPPET PIPELINE: run the snippet in a fresh job directory
job() {
	local name=$1 snippet=$2 pipeline=$3
	rm -rf "job-$name"
	mkdir "job-$name"
	cp -r baseline "job-$name/"
	(
		cd "job-$name" || exit 3
		export PATH="$PWD/../bin:$PATH" PIPELINE="$PWD/../prep/$pipeline"
		export GITHUB_STEP_SUMMARY=$PWD/summary.md
		if [ "$snippet" = github ]; then
			bash --noprofile --norc -e -o pipefail ../github.sh
		else
			bash --noprofile --norc -e ../gitlab.sh
		fi
	) >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}

job ghfail github slow
expect_rc ghfail 1
[ -s job-ghfail/summary.md ] || die "GitHub: no step summary published on a failing gate"
expect_line job-ghfail/summary.md '^### vcompare: :x: [1-9][0-9]* regressions?' "GitHub: summary of the regression"
expect_line job-ghfail/summary.md '^\| span \| all \| .*\*\*REGRESSED\*\*' "GitHub: the span row"
job ghpass github same
expect_rc ghpass 0
expect_line job-ghpass/summary.md '^### vcompare: :white_check_mark: 0 regressions' "GitHub: summary on a passing gate"
echo "pass: GitHub Actions snippet publishes the summary, then fails on a regression"

job glfail gitlab slow
expect_rc glfail 1
expect_line glfail.out '^### vcompare: :x: [1-9][0-9]* regressions?' "GitLab: markdown in the job log"
[ -s job-glfail/compare.json ] || die "GitLab: no compare.json artifact"
job glpass gitlab same
expect_rc glpass 0
expect_line glpass.out '^### vcompare: :white_check_mark: 0 regressions' "GitLab: markdown on a passing gate"
echo "pass: GitLab snippet prints the comparison, then fails on a regression"

# the old GitHub step (status=$? after vcompare) would not have published:
# check that the test can tell
sed 's/^status=0.*$//; s/ || status=\$?$/\nstatus=$?/' github.sh >old.sh
grep -q '^status=\$?$' old.sh || die "could not rebuild the old snippet"
cp old.sh github.sh
job ghold github slow
expect_rc ghold 1
[ -s job-ghold/summary.md ] && die "the old snippet published a summary: the test cannot tell"
echo "pass: the old snippet is caught (no summary published)"
