"Issue 12 parity, nn functions part 2: pdist, embedding_bag, softshrink, interpolate, batch_norm, attention vs torch."
import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn.functional as F

nan, inf = float('nan'), float('inf')


def T(t: torch.Tensor, **kw):
    return minitorch.tensor(t.tolist(), dtype=getattr(minitorch, str(t.dtype).split('.')[-1]), **kw)


def N(t) -> torch.Tensor:
    return torch.tensor(np.asarray(t.detach().numpy() if hasattr(t, 'detach') else t.numpy()))


@pytest.mark.parametrize('p', [0, 0.5, 1, 2, 3, inf])
def test_pdist_nan_inf_follows_torch_kernel(p):
    rng = np.random.default_rng(1)
    vals = [0., 1., -2., nan, inf, -inf, 0.5]
    for _ in range(100):
        a = torch.tensor(rng.choice(vals, size=(3, int(rng.integers(1, 5)))))
        torch.testing.assert_close(N(F.pdist(T(a), p)), torch.pdist(a, p), equal_nan=True)


def test_pdist_p0_grad_zero():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    torch.pdist(x, 0).sum().backward()
    m = T(x.detach(), requires_grad=True)
    F.pdist(m, 0).sum().backward()
    torch.testing.assert_close(N(m.grad), x.grad)


@pytest.mark.parametrize('rows', [0, 1])
def test_pdist_empty_result_requires_grad(rows):
    x = torch.zeros(rows, 4, requires_grad=True)
    m = minitorch.zeros(rows, 4, requires_grad=True)
    y, ym = torch.pdist(x), F.pdist(m)
    assert ym.requires_grad == y.requires_grad and tuple(ym.shape) == tuple(y.shape)
