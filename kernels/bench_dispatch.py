"""Per-op overhead: the time one small op takes from Python, minitorch vs PyTorch (CPU), side by side in one run.

On tiny tensors the arithmetic is free: what is measured is the path an op takes from the `Tensor` method to its
kernel (argument checks, dtype promotion, the autograd node, the result tensor). The figures are the baseline for
the dispatcher chapter ("One door for every op"), whose target is at most 2x torch for each row.

Rows: `a * b` and `a + b` on 4-element float32 tensors, without and with `requires_grad`; a `Linear(64, 64)` forward
+ backward on a (32, 64) batch; `a * b` on 16x16 float32 (numpy's ufunc is printed as the floor).

Usage: python kernels/bench_dispatch.py [--repeat 7] [--number 2000] [--json out.json]
"""
import argparse
import json
import timeit

import numpy as np
import torch

import minitorch


def per_call(fn, number: int, repeat: int) -> float:
    "Best-of-`repeat` mean time of one `fn()` call in microseconds (`number` calls per sample)."
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def cases(lib):
    "name -> a zero-argument callable running the case with library `lib` (minitorch or torch)."
    a, b = lib.rand(4), lib.rand(4)
    ag, bg = lib.rand(4, requires_grad=True), lib.rand(4, requires_grad=True)
    m, n = lib.rand(16, 16), lib.rand(16, 16)
    lin, x = lib.nn.Linear(64, 64), lib.randn(32, 64)

    def linear_step():
        lin.zero_grad()
        lin(x).sum().backward()
    return {
        "a * b (4 floats)": lambda: a * b,
        "a + b (4 floats)": lambda: a + b,
        "a * b (4, requires_grad)": lambda: ag * bg,
        "a + b (4, requires_grad)": lambda: ag + bg,
        "a * b (16x16)": lambda: m * n,
        "Linear(64,64) fwd+bwd (32x64)": linear_step,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--number", type=int, default=2000)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    torch.set_num_threads(1)
    mine, theirs = cases(minitorch), cases(torch)
    u, v = np.random.rand(16, 16).astype(np.float32), np.random.rand(16, 16).astype(np.float32)
    floor = per_call(lambda: u * v, args.number, args.repeat)
    rows = []
    print(f"{'case':32} {'minitorch µs':>13} {'torch µs':>9} {'ratio':>6}")
    for name in mine:
        number = max(args.number // 20, 50) if "Linear" in name else args.number
        t_mine, t_torch = per_call(mine[name], number, args.repeat), per_call(theirs[name], number, args.repeat)
        rows.append({"case": name, "minitorch_us": t_mine, "torch_us": t_torch, "ratio": t_mine / t_torch})
        print(f"{name:32} {t_mine:13.2f} {t_torch:9.2f} {t_mine / t_torch:6.2f}")
    print(f"{'numpy u * v (16x16), the floor':32} {floor:13.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "numpy_16x16_mul_us": floor}, f, indent=2)


if __name__ == "__main__":
    main()
