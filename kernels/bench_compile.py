"""The graph compiler, part 1: what capture costs and what a compiled step costs, minitorch vs PyTorch (CPU).

Part 1 has no code generator yet (part 2, issue 20: numba kernels), so a compiled step is expected to be *slower*
than eager: the captured graph runs the same ops, plus the guard checks and, for `aot_eager`, one autograd.Function
around the whole region. The figures are the baseline part 2 must beat.

Rows, for a training step of an MLP (Linear 64->128, GELU or Tanh, LayerNorm, Linear 128->10, cross-entropy, SGD)
on a (32, 64) batch: eager step; compiled step with backend eager and aot_eager (warm); cold compile time (first
call: capture + backend); guard check time per call. PyTorch: eager step and torch.compile(backend="eager") /
"aot_eager" (inductor needs a C compiler and is not timed here).

Usage: python kernels/bench_compile.py [--repeat 5] [--number 50] [--json kernels/results/compile.json]
"""
import argparse
import json
import time
import timeit

import torch

import minitorch


def per_call(fn, number: int, repeat: int) -> float:
    "Best-of-`repeat` mean time of one `fn()` call in milliseconds."
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def make(lib, act: str):
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(64, 128), nn.Tanh() if act == 'tanh' else nn.GELU(), nn.LayerNorm(128), nn.Linear(128, 10))
    opt = lib.optim.SGD(net.parameters(), lr=0.01)
    x, y = lib.randn(32, 64), lib.randint(0, 10, (32,))
    return net, opt, x, y


def step_fn(lib, model, opt, x, y):
    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def rows(lib, compile_fn, reset, number, repeat, act):
    out = {}
    net, opt, x, y = make(lib, act)
    out['eager step (ms)'] = per_call(step_fn(lib, net, opt, x, y), number, repeat)
    for backend in ('eager', 'aot_eager'):
        reset()
        net, opt, x, y = make(lib, act)
        cnet = compile_fn(net, backend=backend)
        step = step_fn(lib, cnet, opt, x, y)
        t0 = time.perf_counter(); step(); out[f'{backend}: first call incl. capture (ms)'] = (time.perf_counter() - t0) * 1e3
        out[f'{backend}: compiled step (ms)'] = per_call(step, number, repeat)
    return out


def main():
    torch.set_num_threads(1)   # the machine is shared; one thread each, side by side
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--number', type=int, default=50)
    ap.add_argument('--json')
    a = ap.parse_args()
    res = {}
    for act in ('tanh', 'gelu'):
        res[f'minitorch/{act}'] = rows(minitorch, minitorch.compile, minitorch._dynamo.reset, a.number, a.repeat, act)
        res[f'torch/{act}'] = rows(torch, torch.compile, torch._dynamo.reset, a.number, a.repeat, act)
    # the guard check alone: a compiled identity-like function on one tensor
    f = minitorch.compile(lambda t: t + 1, backend='eager'); t = minitorch.ones(4)
    res['minitorch: compiled t + 1 (us)'] = per_call(lambda: f(t), 2000, a.repeat) * 1e3
    res['minitorch: eager t + 1 (us)'] = per_call(lambda: t + 1, 2000, a.repeat) * 1e3
    tf = torch.compile(lambda t: t + 1, backend='eager'); tt = torch.ones(4)
    res['torch: compiled t + 1 (us)'] = per_call(lambda: tf(tt), 2000, a.repeat) * 1e3
    res['torch: eager t + 1 (us)'] = per_call(lambda: tt + 1, 2000, a.repeat) * 1e3
    for k, v in res.items():
        if isinstance(v, dict):
            print(k); [print(f'    {n:40s} {t:9.3f}') for n, t in v.items()]
        else: print(f'{k:44s} {v:9.2f}')
    if a.json: json.dump(res, open(a.json, 'w'), indent=1)


if __name__ == '__main__':
    main()
