#!/usr/bin/env python3
"""Write a small Kineto trace whose kernel and phase names are hostile.

    hostile_trace.py PATH

Names are markup, quotes, commas, newlines, tabs, backslashes, gnuplot
syntax and (one) invalid UTF-8; NAMES lists them as they must be shown,
with the invalid bytes as U+FFFD.  Each kernel appears three times.
"""
import json
import sys

NAMES = ['<script>alert(1)</script>', 'say "hi", it\'s & <b>bold</b>',
         'comma,sep\nnew line\tand\\back', '{}^_@&~ gnuplot $1 `touch pwned` "quoted"',
         ']]></svg><img src=x onerror=alert(2)>']
BAD_UTF8 = b'bad utf8 \xff\xfe end'
SHOWN = NAMES + ['bad utf8 \ufffd\ufffd end']
PHASE = '<i>phase</i> & "x"'


def js(n):
    return json.dumps(n).encode()


def trace():
    names = [js(n) for n in NAMES] + [b'"' + BAD_UTF8 + b'"']
    ev = [b'{"ph":"X","cat":"user_annotation","name":%s,"pid":1,"tid":1,"ts":1000,"dur":5000}'
          % js(PHASE),
          b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,'
          b'"ts":1000,"dur":2000}',
          b'{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,'
          b'"ts":3000,"dur":2000}']
    ts = 1000
    for i, n in enumerate(names * 3):
        ev.append(b'{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":7,"ts":%d,"dur":%d,'
                  b'"args":{"correlation":%d}}' % (n, ts, 10 + i, i))
        ts += 100
    ev.append(b'{"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,'
              b'"ts":1500,"s":"t","args":{"Device Id":0,"Total Allocated":1048576,'
              b'"Total Reserved":2097152}}')
    return (b'{"schemaVersion":1,"distributedInfo":{"rank":0},"traceEvents":[\n' +
            b',\n'.join(ev) + b'\n]}\n')


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        f.write(trace())
