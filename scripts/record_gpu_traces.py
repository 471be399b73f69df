#!/usr/bin/env python3
"""Record small, real torch.profiler traces of a toy video pipeline on one GPU.

Each scenario plants one reason for the device to wait, so that vanalyze's
idle attribution can be tested on real CUDA traces (testdata/gpu/):

  startup     profiled from the first CUDA call: context, handles, cuDNN set-up
  dataloader  a DataLoader with num_workers=0 whose samples take ~40 ms of CPU
  hostprep    CPU video preprocessing (resize, normalise) before each step
  sync        a .item() per denoising step followed by host-side scheduling
  launch      hundreds of tiny kernels per step, launched one by one
  capture     CUDA graph capture of the denoiser, then a few replays
  pipeline    the whole pipeline in steady state (text encoder, denoising
              steps over blocks, eager and SDPA attention, VAE decode)
  compile     the first calls of a torch.compile'd block (Inductor, Triton)
  modules     the eager-attention DiT with Python frames and nn.Module
              names (with_stack, with_modules): what launched each kernel
  shapes      one call of each operator family the performance model knows
              (GEMMs, SDPA causal and GQA, convolutions, norms, element-wise),
              in bf16, fp16 and fp32, with_flops for Kineto's own count

Usage: record_gpu_traces.py OUTDIR [SCENARIO...]  (writes NAME.trace.json.gz
and NAME-meta.json per scenario; all of them without SCENARIO). Needs torch
with CUDA; shapes are recorded.
"""
import gzip, json, os, shutil, sys, time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "gpu-traces"
os.makedirs(OUT, exist_ok=True)
DEV = "cuda"
DTYPE = torch.bfloat16
# Large enough that a step's kernels keep the H100 busy (a block's GEMMs and
# attention run for hundreds of microseconds), so the planted waits stand out.
DIM, HEADS, TOKENS = 1024, 8, 4096
META = {}


def busy_cpu(ms):
    """Hold the CPU in Python for about ms milliseconds (no device work)."""
    end = time.perf_counter() + ms / 1e3
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


class EagerAttention(nn.Module):
    """Attention written out as bmm + softmax + bmm, as older video models do."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        q = q.reshape(b * h, n, d // h)
        k = k.reshape(b * h, n, d // h)
        v = v.reshape(b * h, n, d // h)
        a = torch.bmm(q, k.transpose(1, 2)) * (d // h) ** -0.5
        a = a.softmax(dim=-1)
        o = torch.bmm(a, v).reshape(b, h, n, d // h).transpose(1, 2).reshape(b, n, d)
        return self.proj(o)


class SdpaAttention(EagerAttention):
    """The same projections, attention through F.scaled_dot_product_attention."""

    def forward(self, x):
        b, n, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v)
        return self.proj(o.transpose(1, 2).reshape(b, n, d))


class DiTBlock(nn.Module):
    def __init__(self, dim, heads, eager):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = (EagerAttention if eager else SdpaAttention)(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class DiT(nn.Module):
    def __init__(self, dim=DIM, heads=HEADS, layers=2, eager=True):
        super().__init__()
        self.blocks = nn.ModuleList(DiTBlock(dim, heads, eager and i % 2 == 0) for i in range(layers))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


class VAEDecoder(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.conv1 = nn.Conv3d(c, 32, 3, padding=1)
        self.norm = nn.GroupNorm(8, 32)
        self.conv2 = nn.Conv3d(32, 3, 3, padding=1)

    def forward(self, z):
        return self.conv2(F.silu(self.norm(self.conv1(z))))




def make_models():
    enc = nn.Sequential(nn.Embedding(1000, DIM), DiTBlock(DIM, HEADS, False)).to(DEV, DTYPE)
    dit = DiT().to(DEV, DTYPE)
    vae = VAEDecoder().to(DEV, DTYPE)
    return enc, dit, vae


def denoise(dit, x, steps, blocks, between=None):
    for s in range(steps):
        with record_function(f"denoise_step_{s}"):
            for k in range(blocks):
                with record_function(f"block_{k}"):
                    x = x + 0.1 * dit(x)
            if between:
                between(s, x)
    return x


def generate(enc, dit, vae, tokens, steps=3, blocks=2, between=None):
    with record_function("fastvideo.region::profiler_region_inference_pre_denoising"):
        with record_function("text_encode"):
            cond = enc(tokens)
    with record_function("fastvideo.region::profiler_region_inference_denoising"):
        x = cond.mean(1, keepdim=True).expand(-1, TOKENS, -1).contiguous()
        x = denoise(dit, x, steps, blocks, between)
    with record_function("fastvideo.region::profiler_region_inference_post_denoising"):
        with record_function("vae_decode"):
            z = x[:, :, :16].transpose(1, 2).reshape(1, 16, 4, 32, 32)
            video = vae(z)
    return video


def save(prof, name, **meta):
    raw = os.path.join(OUT, name + ".trace.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    meta.update(torch=torch.__version__, device=torch.cuda.get_device_name(0), file=name + ".trace.json.gz")
    with open(os.path.join(OUT, name + "-meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(name, os.path.getsize(raw + ".gz"), "bytes", flush=True)


ACT = [ProfilerActivity.CPU, ProfilerActivity.CUDA]


def steady(name, body, steps=4, **meta):
    """Profile `body(i)` under a schedule: one wait, one warm-up, `steps` active."""

    def ready(p):
        save(p, name, profiled_steps=steps, **meta)

    sched = schedule(wait=1, warmup=1, active=steps, repeat=1)
    with profile(activities=ACT, schedule=sched, on_trace_ready=ready, record_shapes=True) as prof:
        for i in range(steps + 2):
            body(i)
            if i == steps + 1:  # let the last step's kernels reach the trace
                torch.cuda.synchronize()
            prof.step()


def scenario_startup():
    # Everything from the first CUDA call on: context creation, allocator,
    # cuBLAS/cuDNN handles and the first conv3d's algorithm search.
    with profile(activities=ACT, record_shapes=True) as prof:
        enc, dit, vae = make_models()
        tokens = torch.randint(0, 1000, (1, 16), device=DEV)
        with torch.no_grad():
            for _ in range(2):
                generate(enc, dit, vae, tokens)
        torch.cuda.synchronize()
    save(prof, "startup", planted="init", note="profiled from the first CUDA call; no schedule")
    return enc, dit, vae


class SlowVideos(torch.utils.data.Dataset):
    """Each sample 'decodes' a clip on the CPU: ~40 ms of Python and CPU ops."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        busy_cpu(30)
        clip = torch.rand(8, 3, 64, 64)
        return (clip * 2 - 1).mean(dim=(1, 2, 3))[:4].to(torch.long).abs() % 1000


def scenario_dataloader(enc, dit, vae):
    it = iter(torch.utils.data.DataLoader(SlowVideos(), batch_size=1, num_workers=0))

    def body(i):
        tokens = next(it).to(DEV, non_blocking=False).repeat(1, 4)
        with torch.no_grad():
            generate(enc, dit, vae, tokens, steps=2)

    steady("dataloader", body, planted="data_loading", sample_cpu_ms=30)


def scenario_hostprep(enc, dit, vae):
    def body(i):
        with record_function("preprocess_video"):
            frames = torch.rand(16, 3, 128, 128)
            frames = F.interpolate(frames, size=(96, 96), mode="bilinear", align_corners=False)
            frames = (frames - frames.mean()) / frames.std()
            busy_cpu(20)
        tokens = (frames.flatten()[:16].abs() * 1000).long().clamp(0, 999).unsqueeze(0).to(DEV)
        with torch.no_grad():
            generate(enc, dit, vae, tokens, steps=2)

    steady("hostprep", body, planted="host_compute", python_ms=20)


def scenario_sync(enc, dit, vae):
    tokens = torch.randint(0, 1000, (1, 16), device=DEV)

    def between(s, x):
        # an adaptive scheduler reading the latent's norm on the host
        n = x.float().norm().item()
        busy_cpu(5 + (n > 0))

    def body(i):
        with torch.no_grad():
            generate(enc, dit, vae, tokens, steps=4, between=between)

    steady("sync", body, planted="sync", python_ms_after_item=6)


def scenario_launch():
    # A pipeline of tiny element-wise kernels: the device drains each one
    # faster than the host launches the next.
    x = torch.randn(64, 64, device=DEV)

    def body(i):
        y = x
        with record_function("denoise_step_0"):
            for _ in range(300):
                y = y * 1.0001 + 0.0001
        torch.cuda.synchronize()

    steady("launch", body, steps=3, planted="launch", kernels_per_step=600)


def scenario_capture(dit):
    x = torch.randn(1, TOKENS, DIM, device=DEV, dtype=DTYPE)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(2):
            dit(x)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    with profile(activities=ACT, record_shapes=True) as prof:
        g = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(g):
            y = dit(x)
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
    save(prof, "capture", planted="capture", replays=3)


def scenario_pipeline(enc, dit, vae):
    tokens = torch.randint(0, 1000, (1, 16), device=DEV)

    def body(i):
        with torch.no_grad():
            generate(enc, dit, vae, tokens, steps=4, blocks=2)

    steady("pipeline", body, steps=3, planted="none (steady state, device-bound)", frames=4)


def scenario_compile():
    blk = DiTBlock(DIM, HEADS, False).to(DEV, DTYPE)
    fn = torch.compile(blk)
    x = torch.randn(1, TOKENS, DIM, device=DEV, dtype=DTYPE)
    with profile(activities=ACT, record_shapes=True) as prof:
        with torch.no_grad():
            for _ in range(3):
                fn(x)
        torch.cuda.synchronize()
    save(prof, "compile", planted="compile")


def scenario_modules():
    dit = DiT(layers=2, eager=True).to(DEV, DTYPE)
    x = torch.randn(1, TOKENS // 4, DIM, device=DEV, dtype=DTYPE)
    with torch.no_grad():
        dit(x)
    torch.cuda.synchronize()
    def ready(p):
        save(p, "modules", profiled_steps=2,
             planted="none (eager bmm + softmax + bmm inside EagerAttention)")

    sched = schedule(wait=1, warmup=1, active=2, repeat=1)
    with profile(activities=ACT, schedule=sched, on_trace_ready=ready, record_shapes=True,
                 with_stack=True, with_modules=True) as prof:
        for i in range(4):
            with torch.no_grad(), record_function("denoise_step_%d" % i):
                dit(x)
            torch.cuda.synchronize()
            prof.step()


def scenario_shapes():
    def run(name, fn):
        try:
            with record_function(name):
                fn()
        except Exception as e:  # an operator this torch or GPU lacks
            print("shapes: %s skipped: %s" % (name, e), flush=True)

    def calls():
        for dt in (torch.bfloat16, torch.float16, torch.float32):
            t = str(dt).split(".")[1]
            a = torch.randn(4096, 1024, device=DEV, dtype=dt)
            w = torch.randn(1024, 2816, device=DEV, dtype=dt)
            bias = torch.randn(2816, device=DEV, dtype=dt)
            run("mm_" + t, lambda: torch.mm(a, w))
            run("addmm_" + t, lambda: torch.addmm(bias, a, w))
            run("linear_" + t, lambda: F.linear(a, w.t().contiguous(), bias))
            q = torch.randn(16, 512, 64, device=DEV, dtype=dt)
            k = torch.randn(16, 64, 512, device=DEV, dtype=dt)
            c = torch.randn(16, 512, 512, device=DEV, dtype=dt)
            run("bmm_" + t, lambda: torch.bmm(q, k))
            run("baddbmm_" + t, lambda: torch.baddbmm(c, q, k))
            run("matmul4d_" + t, lambda: torch.matmul(q.view(2, 8, 512, 64), k.view(2, 8, 64, 512)))
            x2 = torch.randn(8, 64, 64, 64, device=DEV, dtype=dt)
            w2 = torch.randn(128, 64, 3, 3, device=DEV, dtype=dt)
            run("conv2d_" + t, lambda: F.conv2d(x2, w2, padding=1))
            x3 = torch.randn(1, 16, 8, 64, 64, device=DEV, dtype=dt)
            w3 = torch.randn(32, 16, 3, 3, 3, device=DEV, dtype=dt)
            run("conv3d_" + t, lambda: F.conv3d(x3, w3, padding=1))
            if dt != torch.float32:
                qs = torch.randn(2, 16, 1024, 64, device=DEV, dtype=dt)
                ks = torch.randn(2, 4, 1024, 64, device=DEV, dtype=dt)
                run("sdpa_" + t, lambda: F.scaled_dot_product_attention(qs, qs, qs))
                run("sdpa_causal_" + t,
                    lambda: F.scaled_dot_product_attention(qs, qs, qs, is_causal=True))
                run("sdpa_gqa_" + t,
                    lambda: F.scaled_dot_product_attention(qs, ks, ks, enable_gqa=True))
            h = torch.randn(4096, 1024, device=DEV, dtype=dt)
            run("layer_norm_" + t, lambda: F.layer_norm(h, (1024,)))
            run("group_norm_" + t, lambda: F.group_norm(x2, 8))
            run("softmax_" + t, lambda: torch.softmax(h, dim=-1))
            run("gelu_" + t, lambda: F.gelu(h))
            run("add_" + t, lambda: h + h)
        if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability() >= (8, 9):
            a8 = torch.randn(4096, 1024, device=DEV).to(torch.float8_e4m3fn)
            b8 = torch.randn(2816, 1024, device=DEV).to(torch.float8_e4m3fn).t()
            one = torch.ones((), device=DEV)
            run("scaled_mm_fp8", lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one,
                                                          out_dtype=torch.bfloat16))
        torch.cuda.synchronize()

    calls()  # warm-up: cuBLAS handles and kernels chosen before the trace
    with profile(activities=ACT, record_shapes=True, with_flops=True) as prof:
        with torch.no_grad():
            calls()
    save(prof, "shapes", planted="none (one call per operator and dtype)")


SCENARIOS = ("startup", "dataloader", "hostprep", "sync", "launch", "capture", "pipeline",
             "compile", "modules", "shapes")


def main():
    torch.manual_seed(0)
    only = sys.argv[2:]
    for name in only:
        if name not in SCENARIOS:
            sys.exit("unknown scenario %r (one of %s)" % (name, ", ".join(SCENARIOS)))
    if only:
        for name in only:
            if name in ("modules", "shapes"):
                globals()["scenario_" + name]()
            else:
                sys.exit("%s: run it with the others (no SCENARIO)" % name)
        return
    enc, dit, vae = scenario_startup()
    scenario_dataloader(enc, dit, vae)
    scenario_hostprep(enc, dit, vae)
    scenario_sync(enc, dit, vae)
    scenario_launch()
    scenario_capture(dit)
    scenario_pipeline(enc, dit, vae)
    try:
        scenario_compile()
    except Exception as e:  # Inductor needs a host compiler; the rest stands
        print("compile scenario failed:", e, flush=True)
    scenario_modules()
    scenario_shapes()


if __name__ == "__main__":
    main()
