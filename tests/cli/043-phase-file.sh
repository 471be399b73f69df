#!/usr/bin/env bash
# --phase-file reads the same NAME=GLOB rules as --phase (comments, blank
# lines and spaces around '=' allowed) and gives the identical report; a
# malformed line is a usage error naming the file and line.
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
DEMO=$VT_ROOT/testdata/demo/fastvideo-rank0.trace.json.gz
printf '# the phases of a video pipeline\n  denoise = *inference_denoising  \n\nvae=vae_decode_chunk_*\n' >rules.txt
va flags --json flags.json --phase 'denoise=*inference_denoising' --phase 'vae=vae_decode_chunk_*' "$DEMO"
va file --json file.json --phase-file rules.txt "$DEMO"
expect_rc flags 0
expect_rc file 0
cmp -s flags.json file.json || die "--phase-file and --phase give different reports"
check file.json '"denoise/ProfilerStep#*/denoise_step_*/block_*" in [p["path"] for p in r["ranks"][0]["phases"]]' \
	"renamed phase is the root of the steps"
check file.json '[p["count"] for p in r["ranks"][0]["phases"] if p["path"].endswith("/vae")] == [6]' \
	"six VAE chunks under the renamed phase"

printf 'denoise=*x*\nno equals sign here\n' >bad.txt
va bad --phase-file bad.txt "$DEMO"
expect_rc bad 2
grep -q "bad.txt: line 2: expected NAME=GLOB" bad.err || die "no line number in: $(cat bad.err)"
va missing --phase-file nonexistent.txt "$DEMO"
expect_rc missing 2
echo "pass: --phase-file"
