"Issue 12 parity fixes for reductions, matmul, statistics and the nn layers/losses/attention chapters (helper P3)."
import warnings

import numpy as np
import pytest
import torch
import minitorch as mt

warnings.filterwarnings('ignore', message='Casting complex values to real')


def mtt(t, requires_grad=False):
    "A minitorch copy of a torch tensor (same dtype)."
    return mt.tensor(t.detach().numpy(), dtype=getattr(mt, str(t.dtype).split('.')[-1]), requires_grad=requires_grad)


def np_(t): return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy())


def close(m, t, **kw):
    torch.testing.assert_close(torch.from_numpy(np.array(m.detach().numpy())), t.detach(), equal_nan=True,
                               check_dtype=True, **kw)


def grads(f, *ts, gseed=0):
    "Run f on torch leaves and on minitorch copies; backward a random cotangent; compare outputs and grads."
    tl = [t.detach().clone().requires_grad_(t.dtype.is_floating_point or t.dtype.is_complex) for t in ts]
    ml = [mtt(t, t.requires_grad) for t in tl]
    yt, ym = f(torch, *tl), f(mt, *ml)
    g = torch.randn(yt.shape, generator=torch.Generator().manual_seed(gseed), dtype=torch.float64).to(yt.dtype)
    yt.backward(g); ym.backward(mtt(g))
    close(ym, yt)
    for a, b in zip(ml, tl):
        if b.grad is not None: close(a.grad, b.grad)


def test_cumprod_dtype_grad_reads_uncast_input():
    "cumprod(complex, dtype=float64): PyTorch's backward uses the complex input, so the gradient has an imaginary part."
    x = torch.randn(4, 4, 2, dtype=torch.complex128, generator=torch.Generator().manual_seed(1))
    grads(lambda L, a: L.cumprod(a, -1, dtype=L.float64), x)
    x = torch.tensor([[1.5, 0.0, 2.0, 0.0], [3.0, 2.0, 0.0, 1.0]], dtype=torch.complex128) * (1 + 0.5j)
    grads(lambda L, a: L.cumprod(a, -1, dtype=L.float64), x)
    grads(lambda L, a: L.cumprod(a, 0, dtype=L.float32), torch.randn(5, 3, dtype=torch.float64))
