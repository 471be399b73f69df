#!/usr/bin/env python3
"""Check a vtrace HTML report against its report.json (python3 stdlib only).

    html_check.py REPORT.html REPORT.json [--charts yes|no] [--max-bytes N]
                  [--text STRING]...

- The page parses with html.parser, every non-void element is closed in
  order, and there is no <script>, no on* attribute, no javascript: URL and
  no external resource (src/href to http:, //, or a file).
- Every <figure class="chart"> holds one <svg> (--charts yes) or a visible
  note (--charts no); with --charts yes there is no note at all.
- Every element with data-key names a value of report.json (a JSON array
  of keys and indices) and its data-v equals that value; every data-calc
  is recomputed here from report.json; and the text shown agrees with
  data-v (units parsed back, within the rounding of the display).
- Each --text STRING appears in the page's text content (after entity
  decoding), never as markup.
"""
import json
import math
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
SVG_VOID_OK = True   # inside <svg>, self-closing elements are reported as startendtag


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.problems = []
        self.values = []      # (attrs, text) of elements with data-v
        self.capture = []     # open data-v elements: [attrs, depth, text parts]
        self.figures = []     # [svg count, note count]
        self.text = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.check_attrs(tag, a)
        if tag == "script":
            self.problems.append("a <script> element")
        if tag == "figure" and "chart" in (a.get("class") or ""):
            self.figures.append([0, 0])
        if tag == "svg" and self.figures and self.open("figure"):
            self.figures[-1][0] += 1
        if tag == "p" and "nochart" in (a.get("class") or "") and self.figures and self.open("figure"):
            self.figures[-1][1] += 1
        if tag == "style":
            self.in_style = True
        if tag in VOID:
            return
        self.stack.append(tag)
        if "data-v" in a:
            self.capture.append([a, len(self.stack), []])

    def handle_startendtag(self, tag, attrs):
        self.check_attrs(tag, dict(attrs))
        if tag == "script":
            self.problems.append("a <script> element")

    def open(self, tag):
        return tag in self.stack

    def check_attrs(self, tag, a):
        for k, v in a.items():
            if k.startswith("on"):
                self.problems.append("event handler attribute %s on <%s>" % (k, tag))
            v = v or ""
            if k in ("src", "href", "xlink:href") and not v.startswith("#"):
                self.problems.append("external reference %s=%r on <%s>" % (k, v, tag))
            if "javascript:" in v.lower():
                self.problems.append("javascript: URL in %s on <%s>" % (k, tag))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("line %d: </%s> closes <%s>" % (
                self.getpos()[0], tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack and self.stack[-1] != tag:
                    self.stack.pop()
            else:
                return
        if self.capture and self.capture[-1][1] == len(self.stack):
            a, _, parts = self.capture.pop()
            self.values.append((a, "".join(parts)))
        self.stack.pop()
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        for c in self.capture:
            c[2].append(data)
        if not self.in_style and "svg" not in self.stack:
            self.text.append(data)


TEXT_MAX = 16384    # render/html.h HTML_TEXT_MAX: bytes of a name the page shows


def shown(name):
    """name as the page shows it: cut to TEXT_MAX UTF-8 bytes, on a code point, then U+2026."""
    b = name.encode("utf-8", "surrogatepass")
    if len(b) <= TEXT_MAX:
        return name
    n = TEXT_MAX
    while n > 0 and b[n] & 0xC0 == 0x80:
        n -= 1
    return b[:n].decode("utf-8", "replace") + "\u2026"


def walk(doc, key):
    node = doc
    for k in key:
        if isinstance(node, list) and isinstance(k, int) and 0 <= k < len(node):
            node = node[k]
        elif isinstance(node, dict) and isinstance(k, str) and k in node:
            node = node[k]
        elif isinstance(node, dict) and isinstance(k, str) and \
                [x for x in node if shown(x) == k and x != k]:
            node = node[[x for x in node if shown(x) == k][0]]
        else:
            raise KeyError("no %r in report.json" % (key,))
    return node


def calc(doc, spec):
    """Figures the page derives from report.json, computed independently."""
    kind = spec[0]
    ranks = doc["ranks"]
    if kind == "kernel":
        name, field = spec[1], spec[2]
        rows = [k for r in ranks for k in r.get("kernels", []) if shown(k["name"]) == name]
        count = sum(k["count"] for k in rows)
        total = sum(k["total_ns"] for k in rows)
        if field == "ranks":
            return sum(1 for r in ranks
                       if any(shown(k["name"]) == name for k in r.get("kernels", [])))
        if field == "count":
            return count
        if field == "total_ns":
            return total
        if field == "avg_ns":
            return total / count if count else None
        if field == "share":
            allk = sum(r["gpu"]["kernel_time_ns"] for r in ranks if "gpu" in r)
            return total / allk if allk else None
        if field == "min_ns":
            return min(k["min_ns"] for k in rows)
        if field == "max_ns":
            return max(k["max_ns"] for k in rows)
        if field == "stddev_ns":    # pooled: the ranks' counts, means and deviations
            if not count:
                return None
            # within the rows plus between their means (two passes: the sum of
            # squares less the squared mean cancels to noise on tight rows)
            mean = total / count
            m2 = sum(k["count"] * (k["stddev_ns"] ** 2 + (k["avg_ns"] - mean) ** 2)
                     for k in rows)
            return math.sqrt(max(m2 / count, 0.0))
        if field == "median_ns":    # one rank's, else over every instance where each rank kept all
            if len(rows) == 1:
                return rows[0]["median_ns"]
            if any(len(k["samples_ns"]) != k["count"] for k in rows):
                return None
            v = sorted(x for k in rows for x in k["samples_ns"])
            n = len(v)
            return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    if kind == "cpu_op":
        # operators of all ranks by name; device times null where every rank has null
        name, field = spec[1], spec[2]
        rows = [o for r in ranks for o in r.get("cpu_ops", []) if shown(o["name"]) == name]
        if field == "count":
            return sum(o["count"] for o in rows)
        vals = [o[field] for o in rows if o.get(field) is not None]
        return sum(vals) if vals else None
    if kind == "category":
        i, cat = spec[1], spec[2]
        return sum(k["total_ns"] for k in ranks[i].get("kernels", []) if k["category"] == cat)
    raise KeyError("unknown data-calc %r" % (spec,))


UNITS = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9, "B": 1, "KiB": 1024.0,
         "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4, "%": 0.01, "x": 1,
         "/s": 1}


def shown_ok(text, v):
    """The text shown is v rounded for display."""
    text = text.strip()
    if v is None:
        return text == "\u2013"
    m = re.fullmatch(r"(-?[0-9]+(?:\.([0-9]+))?)(?: (ns|\u00b5s|ms|s|B|KiB|MiB|GiB|TiB)|(x|/s|%))?",
                     text)
    if not m:
        return False
    decimals = len(m.group(2) or "")
    if decimals and len(m.group(1).lstrip("-").replace(".", "").lstrip("0")) != 3:
        return False  # three significant digits, whatever the unit
    unit = UNITS[m.group(3) or m.group(4)] if m.group(3) or m.group(4) else 1
    shown = float(m.group(1)) * unit
    slack = 0.5 * 10 ** -decimals * unit * 1.0000001 + 1e-9 * abs(v)
    return abs(shown - float(v)) <= slack


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    return float(a) == float(b) or math.isclose(float(a), float(b), rel_tol=1e-12)


def main(argv):
    html_path, json_path = argv[0], argv[1]
    charts, max_bytes, texts = None, None, []
    rest = argv[2:]
    while rest:
        opt, val, rest = rest[0], rest[1], rest[2:]
        if opt == "--charts":
            charts = val
        elif opt == "--max-bytes":
            max_bytes = int(val)
        elif opt == "--text":
            texts.append(val)
    raw = open(html_path, "rb").read()
    problems = []
    try:
        html = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        print("FAIL: %s is not UTF-8: %s" % (html_path, exc))
        return 1
    doc = json.load(open(json_path, encoding="utf-8"))
    if max_bytes is not None and len(raw) > max_bytes:
        problems.append("%d bytes, more than %d" % (len(raw), max_bytes))
    if not html.startswith("<!DOCTYPE html>"):
        problems.append("no <!DOCTYPE html> first")
    p = Page()
    p.feed(html)
    p.close()
    problems += p.problems
    if p.stack:
        problems.append("elements left open at the end: %s" % p.stack)
    nsvg = sum(f[0] for f in p.figures)
    nnote = sum(f[1] for f in p.figures)
    for i, (s, n) in enumerate(p.figures):
        if s + n != 1:
            problems.append("chart figure %d holds %d <svg> and %d notes" % (i, s, n))
    if charts == "yes" and (nnote or not nsvg):
        problems.append("expected charts: %d svg, %d notes" % (nsvg, nnote))
    if charts == "no" and (nsvg or not nnote):
        problems.append("expected notes instead of charts: %d svg, %d notes" % (nsvg, nnote))
    checked = 0
    for a, text in p.values:
        v = None if a["data-v"] == "null" else json.loads(a["data-v"])
        try:
            if "data-key" in a:
                want = walk(doc, json.loads(a["data-key"]))
                if isinstance(want, list):
                    want = len(want)
                what = a["data-key"]
            elif "data-calc" in a:
                want = calc(doc, json.loads(a["data-calc"]))
                what = a["data-calc"]
            else:
                problems.append("data-v=%s without data-key or data-calc" % a["data-v"])
                continue
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            problems.append("%s: %s" % (a.get("data-key") or a.get("data-calc"), exc))
            continue
        if isinstance(want, float) and math.isnan(want):
            want = None
        if not same(v, want):
            problems.append("%s: page has %r, report.json %r" % (what, v, want))
        if not shown_ok(text, v):
            problems.append("%s: shown as %r, value %r" % (what, text, v))
        checked += 1
    page_text = "".join(p.text)
    for t in texts:
        if t not in page_text:
            problems.append("text %r not shown on the page" % t)
    for msg in problems[:30]:
        print("FAIL: " + msg)
    print("%s: %d bytes, %d charts (%d svg, %d notes), %d values checked, %d problems" % (
        html_path, len(raw), len(p.figures), nsvg, nnote, checked, len(problems)))
    return 1 if problems or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
