#!/usr/bin/env python3
"""A small video-generation-like loop instrumented with vtrace.

Each video: encode the prompt, denoise the latents for N steps over K
temporal blocks, decode them into frames.  The work is a little arithmetic
and a short sleep per stage (standard library only), enough for the trace
to show the shape of a real pipeline:

    generate
      text_encode
      denoise
        denoise_step_0
          block_0 ... block_{K-1}        (vtrace.blocks(1) after each)
        ...
      vae_decode                         (vtrace.frames(F) after it)

    python3 example_pipeline.py --dir traces --name example
    vtrace-export traces/example-rank0.vtr -o example.trace.json.gz
    vanalyze traces/example-rank0.vtr
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vtrace  # noqa: E402


def busy(ms, seed):
    """About ms milliseconds of work: some arithmetic, then sleep the rest."""
    end = time.perf_counter() + ms / 1000.0
    acc = seed
    for i in range(200):
        acc = math.sin(acc + i) * 0.5 + 0.5
    left = end - time.perf_counter()
    if left > 0:
        time.sleep(left)
    return acc


def text_encode(prompt, ms):
    with vtrace.region("text_encode"):
        return busy(ms, float(len(prompt)))


def denoise(cond, steps, blocks, ms):
    latents = [cond] * blocks
    with vtrace.region("denoise"):
        for s in range(steps):
            with vtrace.region("denoise_step_%d" % s):
                for b in range(blocks):
                    with vtrace.region("block_%d" % b):
                        latents[b] = busy(ms, latents[b] + s)
                    vtrace.blocks(1)
            vtrace.counter("denoise_step", s)
    return latents


@vtrace.region("vae_decode")
def vae_decode(latents, frames, ms):
    busy(ms, sum(latents))
    return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=None, help="where the .vtr file goes")
    ap.add_argument("--name", default="example", help="run name (file name prefix)")
    ap.add_argument("--rank", type=int, default=None)
    ap.add_argument("--videos", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--blocks", type=int, default=3)
    ap.add_argument("--frames", type=int, default=16, help="frames per video")
    ap.add_argument("--step-ms", type=float, default=2.0, help="work per block and step")
    args = ap.parse_args()

    vtrace.init(args.dir, args.name, args.rank)
    t0 = time.perf_counter()
    made = 0
    for v in range(args.videos):
        with vtrace.region("generate"):
            cond = text_encode("a cat surfing a wave, video %d" % v, 3 * args.step_ms)
            latents = denoise(cond, args.steps, args.blocks, args.step_ms)
            n = vae_decode(latents, args.frames, 4 * args.step_ms)
        vtrace.frames(n)
        made += n
    secs = time.perf_counter() - t0
    where = vtrace.path()
    vtrace.shutdown()
    print("%d videos, %d frames in %.3f s (%.1f fps); trace: %s"
          % (args.videos, made, secs, made / secs, where or "off"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
