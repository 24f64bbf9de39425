"""Mixed-precision benchmark: one training step in fp32 and under autocast, minitorch and PyTorch side by side (CPU).

For the digits MLP 64-256-256-10 (batch 256) and the digits CNN (batch 64), one step = forward under
`autocast("cpu", dtype)` (or none), cross-entropy, backward, Adam, with a GradScaler for fp16. Also the cost
of the scaler alone: `unscale_` (the fused check-and-unscale kernel) on the MLP's gradients.

Usage: python kernels/bench_amp.py [--repeat 5] [--threads 2] [--json kernels/results/amp.json]
"""
import argparse
import json
import time

import numpy as np
import torch

import minitorch
from minitorch.amp import GradScaler, autocast

from bench_training import digits_cnn, digits_mlp   # the same two models as the training benchmark


def timed(fn, repeat):
    "Best wall time of `fn()` over `repeat` runs after one warm-up run (the minimum: the machine is shared)."
    fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return float(np.min(ts))


def step_time(lib, make, x_np, y_np, dtype, repeat):
    "Best time of one step; dtype None = fp32, else autocast('cpu', dtype) (+ GradScaler for fp16)."
    lib.manual_seed(0)
    model = make(lib)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x, y = lib.tensor(x_np), lib.tensor(y_np)
    ac = torch.autocast if lib is torch else autocast
    scaler = (torch.amp.GradScaler("cpu") if lib is torch else GradScaler("cpu")) if dtype == "float16" else None

    def step():
        opt.zero_grad()
        with ac("cpu", dtype=getattr(lib, dtype or "float32"), enabled=dtype is not None):
            loss = lib.nn.functional.cross_entropy(model(x), y)
        if scaler is None:
            loss.backward(); opt.step()
        else:
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
    return timed(step, repeat)


def unscale_time(lib, repeat):
    "Best time of scale + unscale_ of the MLP's gradients (the fused kernel and its bookkeeping)."
    model = digits_mlp(lib)
    for p in model.parameters(): p.grad = lib.ones(p.shape)
    opt = lib.optim.SGD(model.parameters(), lr=0.0)
    s = (torch.amp.GradScaler if lib is torch else GradScaler)("cpu", init_scale=1.0)

    def run():
        s.scale(lib.ones(())); s.unscale_(opt); s.step(opt); s.update()
    return timed(run, repeat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    import numba; numba.set_num_threads(min(a.threads, numba.config.NUMBA_NUM_THREADS))
    rng = np.random.default_rng(0)
    cases = {"mlp": (digits_mlp, rng.standard_normal((256, 64)).astype(np.float32), rng.integers(0, 10, 256)),
             "cnn": (digits_cnn, rng.standard_normal((64, 1, 8, 8)).astype(np.float32), rng.integers(0, 10, 64))}
    res = {}
    print(f"{'model':5s} {'mode':9s} {'minitorch ms':>13s} {'torch ms':>9s} {'ratio':>6s}")
    for name, (make, x, y) in cases.items():
        for dtype in (None, "bfloat16", "float16"):
            m = step_time(minitorch, make, x, y, dtype, a.repeat) * 1e3
            t = step_time(torch, make, x, y, dtype, a.repeat) * 1e3
            res[f"{name}/{dtype or 'float32'}"] = {"minitorch_ms": m, "torch_ms": t}
            print(f"{name:5s} {dtype or 'float32':9s} {m:13.2f} {t:9.2f} {m / t:6.1f}")
    m, t = unscale_time(minitorch, a.repeat) * 1e3, unscale_time(torch, a.repeat) * 1e3
    res["scaler_step_overhead"] = {"minitorch_ms": m, "torch_ms": t}
    print(f"scaler bookkeeping + unscale_ (MLP grads): minitorch {m:.3f} ms, torch {t:.3f} ms")
    if a.json:
        import os
        res["load_average"] = os.getloadavg()[0]
        with open(a.json, "w") as f: json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
