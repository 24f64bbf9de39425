"""The graph compiler (chapters 25-26): a compiled training step, minitorch vs PyTorch on the CPU, side by side.

Two fusible training steps (forward, backward, SGD): an MLP (Linear 64->128, GELU, LayerNorm, Linear 128->10,
cross-entropy, inside the compiled module) on a (32, 64) batch, and a softmax-attention block (q, k, v projections, softmax(q k^T / sqrt(d)) v,
residual, LayerNorm) on a (4, 32, 64) batch. Rows: minitorch eager; minitorch.compile with backend eager, aot_eager and
inductor (the default: fused numba kernels); torch eager and torch.compile (eager, aot_eager, inductor -- the last
needs a C compiler; if it fails here the row says so). Times are best-of-`repeat` means of `number` steps; the
first call (capture + compile) is reported too, and the inductor compile time cold (empty kernel cache) and warm
(a second process, cache=True: numba loads machine code, compiles nothing).

Usage: python kernels/bench_compile.py [--repeat 5] [--number 50] [--json kernels/results/compile.json]
"""
import argparse, json, os, subprocess, sys, tempfile, time, timeit
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')   # numpy's BLAS on one thread too, as torch below
import torch
import minitorch


def per_call(fn, number: int, repeat: int) -> float:
    "Best-of-`repeat` mean time of one `fn()` call in milliseconds."
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def attention(lib):
    class Attn(lib.nn.Module):
        def __init__(self, d=64):
            super().__init__()
            self.q, self.k, self.v = lib.nn.Linear(d, d), lib.nn.Linear(d, d), lib.nn.Linear(d, d)
            self.ln, self.scale = lib.nn.LayerNorm(d), d ** -0.5
        def forward(self, x):
            a = lib.softmax(self.q(x) @ self.k(x).transpose(-2, -1) * self.scale, -1)
            return self.ln(a @ self.v(x) + x)
    return Attn()


def make(lib, model: str):
    "The model with its loss as one Module (so the compiled graph holds the loss too), its optimizer, its inputs."
    lib.manual_seed(0)
    nn = lib.nn
    class WithLoss(nn.Module):
        def __init__(self, net, ce):
            super().__init__(); self.net, self.ce = net, ce
        def forward(self, x, y):
            out = self.net(x)
            return nn.functional.cross_entropy(out, y) if self.ce else out.square().mean()
    if model == 'mlp':
        net = WithLoss(nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.LayerNorm(128), nn.Linear(128, 10)), True)
        xy = lib.randn(32, 64), lib.randint(0, 10, (32,))
    else:
        net, xy = WithLoss(attention(lib), False), (lib.randn(4, 32, 64), None)
    return net, lib.optim.SGD(net.parameters(), lr=0.01), xy


def step_fn(model, opt, xy):
    def step():
        opt.zero_grad()
        model(*xy).backward()
        opt.step()
    return step


def rows(lib, compile_fn, reset, number, repeat, model, backends):
    out = {}
    net, opt, xy = make(lib, model)
    out['eager step (ms)'] = per_call(step_fn(net, opt, xy), number, repeat)
    for backend in backends:
        reset()
        net, opt, xy = make(lib, model)
        try:
            step = step_fn(compile_fn(net, backend=backend), opt, xy)
            t0 = time.perf_counter(); step(); out[f'{backend}: first call incl. compile (ms)'] = (time.perf_counter() - t0) * 1e3
            out[f'{backend}: compiled step (ms)'] = per_call(step, number, repeat)
            out[f'{backend}: speedup vs eager'] = out['eager step (ms)'] / out[f'{backend}: compiled step (ms)']
        except Exception as e:
            out[f'{backend}: could not run'] = f'{type(e).__name__}: {str(e).splitlines()[0][:100]}'
    return out


COMPILE = '''import time, minitorch, sys
sys.path.insert(0, 'kernels'); from bench_compile import make, step_fn
t = time.perf_counter(); net, opt, xy = make(minitorch, '{model}')
step_fn(minitorch.compile(net), opt, xy)(); print(time.perf_counter() - t)'''


def compile_times(model: str) -> dict:
    "First-step time of a fresh process with an empty kernel cache (cold) and again with it filled (warm)."
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, MINITORCH_INDUCTOR_CACHE=d)
        t = [float(subprocess.run([sys.executable, '-c', COMPILE.format(model=model)], env=env, capture_output=True,
                                  text=True, check=True).stdout) for _ in range(2)]
    return {'cold (s)': t[0], 'warm (s)': t[1]}


def main():
    torch.set_num_threads(1)   # the machine is shared; one thread each, side by side
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--number', type=int, default=50)
    ap.add_argument('--json')
    a = ap.parse_args()
    res = {}
    for model in ('mlp', 'attention'):
        res[f'minitorch/{model}'] = rows(minitorch, minitorch.compile, minitorch._dynamo.reset, a.number, a.repeat, model,
                                         ('eager', 'aot_eager', 'inductor'))
        res[f'torch/{model}'] = rows(torch, torch.compile, torch._dynamo.reset, a.number, a.repeat, model,
                                     ('eager', 'aot_eager', 'inductor'))
        res[f'minitorch/{model} inductor compile'] = compile_times(model)
    for k, v in res.items():
        print(k)
        for n, t in v.items(): print(f'    {n:44s} {t:9.3f}' if isinstance(t, float) else f'    {n:44s} {t}')
    if a.json: json.dump(res, open(a.json, 'w'), indent=1)


if __name__ == '__main__':
    main()
