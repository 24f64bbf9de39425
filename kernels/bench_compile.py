"""The graph compiler (chapters 25-26a): a compiled training step, minitorch vs PyTorch, on the CPU or a GPU, side by side.

Two fusible training steps (forward, backward, SGD): an MLP (Linear 64->128, GELU, LayerNorm, Linear 128->10,
cross-entropy, inside the compiled module) on a (32, 64) batch, and a softmax-attention block (q, k, v projections, softmax(q k^T / sqrt(d)) v,
residual, LayerNorm) on a (4, 32, 64) batch. Rows: minitorch eager; minitorch.compile with backend eager, aot_eager and
inductor (the default: fused numba kernels); torch eager and torch.compile (eager, aot_eager, inductor -- the last
needs a C compiler; if it fails here the row says so). Times are best-of-`repeat` means of `number` steps, eager and the backends timed in interleaved rounds; the
first call (capture + compile) is reported too, and the inductor compile time cold (empty kernel cache) and warm
(a second process, cache=True: numba loads machine code, compiles nothing).

With `--device cuda` (a machine with a GPU) everything runs on the GPU: minitorch's compiled steps are the numba.cuda
kernels of chapter 26a, torch's the same models on cuda; every step ends with a synchronize so the times are the GPU's.
Under numba's simulator (no GPU) cuda times mean nothing: `--smoke` runs tiny sizes once, to check the script works.

Usage: python kernels/bench_compile.py [--device cpu|cuda] [--repeat 5] [--number 50] [--smoke] [--json kernels/results/compile.json]
"""
import argparse, json, os, subprocess, sys, tempfile, time, timeit
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')   # numpy's BLAS on one thread too, as torch below
import torch
import minitorch


def per_call(fn, number: int, repeat: int) -> float:
    "Best-of-`repeat` mean time of one `fn()` call in milliseconds."
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def attention(lib, d=64):
    class Attn(lib.nn.Module):
        def __init__(self, d=d):
            super().__init__()
            self.q, self.k, self.v = lib.nn.Linear(d, d), lib.nn.Linear(d, d), lib.nn.Linear(d, d)
            self.ln, self.scale = lib.nn.LayerNorm(d), d ** -0.5
        def forward(self, x):
            a = lib.softmax(self.q(x) @ self.k(x).transpose(-2, -1) * self.scale, -1)
            return self.ln(a @ self.v(x) + x)
    return Attn()


def make(lib, model: str, device: str = 'cpu', small: bool = False):
    "The model with its loss as one Module (so the compiled graph holds the loss too), its optimizer, its inputs."
    B, D, H, T = (4, 8, 16, 4) if small else (32, 64, 128, 32)
    lib.manual_seed(0)
    nn = lib.nn
    class WithLoss(nn.Module):
        def __init__(self, net, ce):
            super().__init__(); self.net, self.ce = net, ce
        def forward(self, x, y):
            out = self.net(x)
            return nn.functional.cross_entropy(out, y) if self.ce else out.square().mean()
    if model == 'mlp':
        net = WithLoss(nn.Sequential(nn.Linear(D, H), nn.GELU(), nn.LayerNorm(H), nn.Linear(H, 10)), True)
        xy = lib.randn(B, D), lib.randint(0, 10, (B,))
    else:
        net, xy = WithLoss(attention(lib, D), False), (lib.randn(4, T, D), None)
    net = net.to(device)
    xy = tuple(t.to(device) if t is not None else None for t in xy)
    return net, lib.optim.SGD(net.parameters(), lr=0.01), xy


def sync(lib, device: str):
    "Wait for the GPU (a no-op on the CPU), so a step's time includes its kernels."
    return lib.cuda.synchronize if device == 'cuda' else (lambda: None)


def step_fn(model, opt, xy, wait=lambda: None):
    def step():
        opt.zero_grad()
        model(*xy).backward()
        opt.step()
        wait()
    return step


def rows(lib, compile_fn, reset, number, repeat, model, backends, device='cpu', small=False):
    """Eager and each backend's step, timed interleaved: every round times each of them once (`number` steps), and
    each keeps its best round, so a busy spell on a shared machine hits all of them alike."""
    out, wait, steps = {}, sync(lib, device), {}
    net, opt, xy = make(lib, model, device, small)
    try: steps['eager step (ms)'] = step_fn(net, opt, xy, wait); steps['eager step (ms)']()
    except Exception as e: out['eager: could not run'] = f'{type(e).__name__}: {str(e).splitlines()[0][:100]}'
    for backend in backends:
        reset()
        net, opt, xy = make(lib, model, device, small)
        try:
            step = step_fn(compile_fn(net, backend=backend), opt, xy, wait)
            t0 = time.perf_counter(); step(); out[f'{backend}: first call incl. compile (ms)'] = (time.perf_counter() - t0) * 1e3
            step(); steps[f'{backend}: compiled step (ms)'] = step
        except Exception as e:
            out[f'{backend}: could not run'] = f'{type(e).__name__}: {str(e).splitlines()[0][:100]}'
    best = {k: float('inf') for k in steps}
    for _ in range(repeat):
        for k, fn in steps.items(): best[k] = min(best[k], timeit.timeit(fn, number=number) / number * 1e3)
    out.update(best)
    eager = out.get('eager step (ms)', float('nan'))
    for backend in backends:
        if f'{backend}: compiled step (ms)' in out:
            out[f'{backend}: speedup vs eager'] = eager / out[f'{backend}: compiled step (ms)']
    return out


COMPILE = '''import time, minitorch, sys
sys.path.insert(0, 'kernels'); from bench_compile import make, step_fn, sync
t = time.perf_counter(); net, opt, xy = make(minitorch, '{model}', '{device}', {small})
step_fn(minitorch.compile(net), opt, xy, sync(minitorch, '{device}'))(); print(time.perf_counter() - t)'''


def compile_times(model: str, device: str = 'cpu', small: bool = False) -> dict:
    "First-step time of a fresh process with an empty kernel cache (cold) and again with it filled (warm)."
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, MINITORCH_INDUCTOR_CACHE=d)
        runs = [subprocess.run([sys.executable, '-c', COMPILE.format(model=model, device=device, small=small)], env=env,
                               capture_output=True, text=True) for _ in range(2)]
    if any(r.returncode for r in runs):
        return {'could not run': (runs[0].stderr or runs[1].stderr).strip().splitlines()[-1][:100]}
    return {'cold (s)': float(runs[0].stdout), 'warm (s)': float(runs[1].stdout)}


def main():
    torch.set_num_threads(1)   # the machine is shared; one thread each, side by side
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--number', type=int, default=50)
    ap.add_argument('--json')
    ap.add_argument('--device', default='cpu', choices=('cpu', 'cuda'))
    ap.add_argument('--smoke', action='store_true', help='tiny sizes, one call: check the script runs (e.g. under the simulator)')
    a = ap.parse_args()
    dev, small = a.device, a.smoke
    if a.smoke: a.number = a.repeat = 1
    if dev == 'cuda' and minitorch.cuda.is_simulator() and not a.smoke:
        sys.exit('no GPU here: numba.cuda runs under its simulator, whose times mean nothing (use --smoke to check the script)')
    torch_ok = dev == 'cpu' or torch.cuda.is_available()
    res = {}
    for model in ('mlp', 'attention'):
        res[f'minitorch/{model}'] = rows(minitorch, minitorch.compile, minitorch._dynamo.reset, a.number, a.repeat, model,
                                         ('eager', 'aot_eager', 'inductor'), dev, small)
        if torch_ok:
            res[f'torch/{model}'] = rows(torch, torch.compile, torch._dynamo.reset, a.number, a.repeat, model,
                                         ('eager', 'aot_eager', 'inductor'), dev, small)
        res[f'minitorch/{model} inductor compile'] = compile_times(model, dev, small)
    for k, v in res.items():
        print(k)
        for n, t in v.items(): print(f'    {n:44s} {t:9.3f}' if isinstance(t, float) else f'    {n:44s} {t}')
    side_by_side(res, dev)
    if a.json: json.dump(res, open(a.json, 'w'), indent=1)


def side_by_side(res: dict, device: str) -> None:
    "One table: eager and inductor step times (ms) and the speedup, minitorch next to torch."
    cell = lambda d, k: f'{d[k]:9.3f}' if isinstance(d.get(k), float) else f'{"-":>9s}'
    print(f'\n{device}: training step (ms)   {"mt eager":>9s} {"mt ind.":>9s} {"mt x":>9s} {"th eager":>9s} {"th ind.":>9s} {"th x":>9s}')
    for model in ('mlp', 'attention'):
        m, t = res.get(f'minitorch/{model}', {}), res.get(f'torch/{model}', {})
        print(f'{model:28s}' + ' '.join(cell(d, k) for d in (m, t) for k in ('eager step (ms)', 'inductor: compiled step (ms)',
                                                                               'inductor: speedup vs eager')))


if __name__ == '__main__':
    main()
