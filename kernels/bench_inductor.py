"""Chapter 26: the inductor backend against minitorch eager and torch eager, on the CPU, in one run.

    .venv/bin/python kernels/bench_inductor.py
Two inference workloads: an MLP block (Linear -> GELU -> LayerNorm) and a softmax-attention block
(softmax(q @ k^T / sqrt(d)) @ v). Also the compile time of the MLP graph, cold (fresh cache dir) and warm (cached)."""
import os, subprocess, sys, tempfile, time
import numpy as np
import torch
import minitorch
from minitorch.compiler.inductor import compile_fn

def bench(fn, *args, reps=20):
    fn(*args)
    best = float('inf')
    for _ in range(reps):
        t = time.perf_counter(); fn(*args); best = min(best, time.perf_counter() - t)
    return best * 1e3

def mlp(mt, F, x, w1, b1, w2, b2, g, beta):
    h = F.gelu(x @ w1 + b1)
    return F.layer_norm(h @ w2 + b2, (w2.shape[1],), g, beta)

def attn(mt, q, k, v):
    s = (q @ k.transpose(-2, -1)) * (1.0 / q.shape[-1] ** 0.5)
    return mt.softmax(s, -1) @ v

def main(B=512, D=512, T=256):
    torch.set_num_threads(os.cpu_count())
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in [(B, D), (D, D), (D,), (D, D), (D,), (D,), (D,)]]
    qkv = [rng.standard_normal((8, T, 64)).astype(np.float32) for _ in range(3)]
    rows = []
    for name, f, a in [('mlp gelu+layernorm', mlp, arrs), ('softmax attention', attn, qkv)]:
        m_args = [minitorch.from_numpy(x) for x in a]
        t_args = [torch.from_numpy(x) for x in a]
        mf = (lambda *xs: f(minitorch, minitorch.nn.functional, *xs)) if f is mlp else (lambda *xs: f(minitorch, *xs))
        tf = (lambda *xs: f(torch, torch.nn.functional, *xs)) if f is mlp else (lambda *xs: f(torch, *xs))
        with minitorch.no_grad(): c = compile_fn(mf, m_args)
        np.testing.assert_allclose(c(*m_args).numpy(), tf(*t_args).numpy(), rtol=1e-3, atol=1e-3)
        with minitorch.no_grad(): eager = bench(mf, *m_args)
        comp = bench(c, *m_args)
        with torch.no_grad(): te = bench(tf, *t_args)
        rows.append((name, eager, comp, te, c.kernel_count, len([n for n in c.graph.nodes if n.op == 'call_function'])))
    # a training step: forward + backward of the MLP block as a module, through minitorch.compile (aot + kernels)
    def step(model, x):
        for p in model.parameters(): p.grad = None
        model(x).sum().backward()
    net = minitorch.nn.Sequential(minitorch.nn.Linear(D, D), minitorch.nn.GELU(), minitorch.nn.LayerNorm(D))
    tnet = torch.nn.Sequential(torch.nn.Linear(D, D), torch.nn.GELU(), torch.nn.LayerNorm(D))
    xm, xt = minitorch.from_numpy(arrs[0]), torch.from_numpy(arrs[0])
    cnet = minitorch.compile(net)
    rows.append(('mlp training step', bench(step, net, xm, reps=5), bench(step, cnet, xm, reps=5),
                 bench(step, tnet, xt, reps=5), -1, -1))
    print(f'{"workload":22s} {"minitorch eager":>16s} {"inductor":>10s} {"speedup":>8s} {"torch eager":>12s} {"kernels/ops":>12s}')
    for name, e, c, t, k, n in rows:
        print(f'{name:22s} {e:13.2f} ms {c:7.2f} ms {e / c:7.2f}x {t:9.2f} ms {k:>6d}/{n}' if k >= 0 else f'{name:22s} {e:13.2f} ms {c:7.2f} ms {e / c:7.2f}x {t:9.2f} ms')
    code = ('import time, numpy as np, minitorch; from minitorch.compiler.inductor import compile_fn\n'
            'F = minitorch.nn.functional; x = [minitorch.randn(*s) for s in [(4, 8), (8,), (8,)]]\n'
            't = time.perf_counter(); c = compile_fn(lambda x, w, b: F.layer_norm(F.gelu(x * w + b), (8,)), x); c(*x)\n'
            'print(time.perf_counter() - t)')
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, MINITORCH_INDUCTOR_CACHE=d)
        times = [float(subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    print(f'compile gelu+layernorm graph: cold {times[0]:.2f} s, warm (cached, new process) {times[1]:.2f} s')

if __name__ == '__main__': main()
