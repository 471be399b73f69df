#!/usr/bin/env bash
# plain build only: the page's C runs under the sanitizers in 110-113; this drives a browser.
#
# A real browser reads the page: headless Chromium opens the report of the
# demo set from file://, logs no console message (a probe page shows that
# console messages would be seen), keeps every chart as <svg> in its DOM,
# screenshots it not blank in light mode and on a dark background in dark
# mode, with the charts dark too (under 3 % near-white pixels over the whole
# page; white chart panels made 16 %), and prints it to PDF.  The hostile-name page runs no script and
# makes no element from a name.  Without Chromium it skips (scripts/deps.sh
# test installs it).
. "$VT_ROOT/tests/cli/lib.sh"

need_vanalyze
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/deps.sh installs it)"

find_chromium() {
	command -v chromium || command -v chromium-browser || command -v google-chrome
}
CHROME=$(find_chromium) || skip "chromium is not installed (scripts/deps.sh test installs it)"

# chrome FILE ARGS...: open file://FILE headless, console messages in chrome.err
chrome() {
	local file=$1
	shift
	timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$PWD/profile" --enable-logging=stderr --log-level=0 \
		--hide-scrollbars "$@" "file://$file" 2>chrome.err
}

printf '<!DOCTYPE html><p>probe</p><script>console.error("vtrace-probe")</script>\n' >probe.html
chrome "$PWD/probe.html" --dump-dom >probe.dom || die "chromium failed on a probe page"
grep -q 'CONSOLE.*vtrace-probe' chrome.err ||
	die "chromium does not log console messages to stderr: the check below would be blind"

# The 8-rank DLRM page: what ran at the top (run, device and count, world size,
# date, vtrace's version), and at most 5 screens of 1400 x 900 before the
# details that follow the steps (kernels onwards, unfolded: the page measured
# by the browser up to that section, a copy with one script that writes the
# height and its header into the title).
if [ -d "$PUBLIC/facebookresearch__param" ]; then
	va dlrm --out dlrm "$PUBLIC"/facebookresearch__param/*dlrm_kineto*worker*
	expect_rc dlrm 0
	sed 's|</body>|<script>document.title = "H=" + document.getElementById("kernels").offsetTop + " " + document.querySelector("header").innerText.split(String.fromCharCode(10)).join(" ");</script></body>|' \
		dlrm/report.html >dlrm-h.html
	chrome "$PWD/dlrm-h.html" --window-size=1400,900 --dump-dom >dlrm.dom ||
		die "chromium failed on the DLRM page"
	title=$(grep -o '<title>[^<]*' dlrm.dom | head -1)
	h=$(printf '%s' "$title" | sed -n 's/^<title>H=\([0-9]*\) .*/\1/p')
	[ -n "$h" ] && [ "$h" -le 4500 ] || die "the DLRM page is ${h:-?} px before its details (5 screens: 4500): $title"
	for want in 'Tesla V100-SXM2-32GB' '8 x' 'world size 8 (nccl)' '2023-09-07' 'vanalyze 0.'; do
		case $title in
		*"$want"*) ;;
		*) die "the DLRM page's header lacks '$want': $title" ;;
		esac
	done
fi

va demo --out out "$VT_ROOT"/testdata/demo/
expect_rc demo 0
chrome "$PWD/out/report.html" --dump-dom >dom.html || die "chromium failed on the report"
if grep 'CONSOLE' chrome.err; then die "the report logs console messages"; fi
want=$(grep -o '<svg' out/report.html | wc -l)
got=$(grep -o '<svg' dom.html | wc -l)
[ "$want" -ge 5 ] && [ "$got" = "$want" ] || die "$got <svg> in the DOM, $want in the file"

chrome "$PWD/out/report.html" --window-size=1000,1400 --screenshot="$PWD/light.png" ||
	die "no light screenshot"
chrome "$PWD/out/report.html" --window-size=1000,1400 --screenshot="$PWD/dark.png" \
	--blink-settings=preferredColorScheme=0 || die "no dark screenshot"
# the whole page in dark mode: the charts follow it (no white panels)
chrome "$PWD/out/report.html" --window-size=1000,4000 --screenshot="$PWD/dark-all.png" \
	--blink-settings=preferredColorScheme=0 || die "no dark full-page screenshot"
chrome "$PWD/out/report.html" --print-to-pdf="$PWD/report.pdf" --no-pdf-header-footer ||
	die "no PDF"
python3 - light.png dark.png report.pdf dark-all.png <<'PY' || die "the screenshots are wrong (lines above)"
import struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s is not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6):
        sys.exit("%s: PNG of depth %d, colour type %d" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

def look(path):
    w, h, bpp, rows = pixels(path)
    colours = {rows[y][x * bpp:x * bpp + 3] for y in range(0, h, 7) for x in range(0, w, 5)}
    return len(colours), sum(rows[4][:3]) / 3

n, bg = look(sys.argv[1])
print("light: %d colours, background %.0f" % (n, bg))
if n < 20 or bg < 200:
    sys.exit("the light screenshot is blank or not light")
n, bg = look(sys.argv[2])
print("dark: %d colours, background %.0f" % (n, bg))
if n < 20 or bg > 60:
    sys.exit("the dark screenshot is blank or not dark")
w, h, bpp, rows = pixels(sys.argv[4])
grid = [rows[y][x * bpp:x * bpp + 3] for y in range(0, h, 7) for x in range(0, w, 5)]
white = sum(1 for px in grid if sum(px) > 690) / len(grid)
print("dark, whole page: %.1f%% near-white" % (100 * white))
if white > 0.03:
    sys.exit("the dark page has white panels (charts drawn for light mode only)")
pdf = open(sys.argv[3], "rb").read()
if not pdf.startswith(b"%PDF") or len(pdf) < 10000:
    sys.exit("the PDF is %d bytes" % len(pdf))
PY

python3 "$VT_ROOT/tests/hostile_trace.py" hostile-rank0.json || die "cannot write the hostile trace"
va h --html hostile.html hostile-rank0.json
expect_rc h 0
chrome "$PWD/hostile.html" --dump-dom >hostile.dom || die "chromium failed on the hostile page"
if grep 'CONSOLE' chrome.err; then die "the hostile page logs console messages"; fi
no_line hostile.dom '<script|<img|<b>|<i>' "the hostile page's DOM"
expect_line hostile.dom '&lt;script&gt;alert\(1\)&lt;/script&gt;' "the hostile name as text"
echo "pass: chromium reads the page"
