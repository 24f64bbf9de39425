"""nn.utils.parametrizations.spectral_norm / weight_norm and F.normalize against PyTorch, with the u/v buffers and
originals copied from torch: forward values, updated buffers, gradients, state-dict keys, errors."""
import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F

tP = torch.nn.utils.parametrizations
P = nn.utils.parametrizations


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol=1e-9):
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    return a.shape == tuple(b.shape) and np.allclose(a, b.detach().numpy(), atol=tol, rtol=tol)


def copy_state(ours, theirs):
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())


MAKERS = [
    (lambda lib, dt: lib.nn.Linear(5, 4, dtype=dt), (3, 5), {}),
    (lambda lib, dt: lib.nn.Conv2d(2, 3, 3, dtype=dt), (2, 2, 5, 5), {}),
    (lambda lib, dt: lib.nn.Conv2d(2, 3, 3, dtype=dt), (2, 2, 5, 5), dict(dim=1)),
    (lambda lib, dt: lib.nn.Linear(6, 3, dtype=dt), (2, 6), dict(n_power_iterations=3, eps=1e-6)),
]


@pytest.mark.parametrize('make,shape,kw', MAKERS)
@pytest.mark.parametrize('train', [True, False])
def test_spectral_norm_matches_torch(make, shape, kw, train):
    torch.manual_seed(0)
    tm = tP.spectral_norm(make(torch, torch.float64), **kw)
    om = P.spectral_norm(make(minitorch, minitorch.float64), **kw)
    copy_state(om, tm)
    tm.train(train)
    om.train(train)
    x = torch.randn(*shape, dtype=torch.float64)
    for _ in range(3):
        tout, out = tm(x), om(mt(x))
        assert close(out, tout)
        for b in ('_u', '_v'):
            assert close(getattr(om.parametrizations.weight[0], b), getattr(tm.parametrizations.weight[0], b))
    g = torch.randn_like(tout)
    tout.backward(g)
    out.backward(mt(g))
    assert close(om.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad)
    assert close(om.bias.grad, tm.bias.grad)


def test_spectral_norm_sigma_and_1d():
    minitorch.manual_seed(0)
    lin = P.spectral_norm(nn.Linear(8, 6))
    x = minitorch.randn(2, 8)
    for _ in range(30): lin(x)
    s = np.linalg.svd(lin.weight.detach().numpy(), compute_uv=False)
    assert abs(s[0] - 1) < 1e-4
    m = nn.Module()
    m.register_parameter('w', nn.Parameter(minitorch.tensor([3.0, 4.0])))
    P.spectral_norm(m, 'w')
    assert np.allclose(m.w.detach().numpy(), [0.6, 0.8])


def test_spectral_norm_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)"):
        P.spectral_norm(nn.Linear(2, 3), dim=2)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        P.spectral_norm(nn.Linear(2, 3), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        P.spectral_norm(nn.Linear(2, 3), 'nope')


@pytest.mark.parametrize('dim', [0, 1, -1, None])
@pytest.mark.parametrize('conv', [False, True])
def test_weight_norm_matches_torch(dim, conv):
    torch.manual_seed(1)
    make = (lambda lib, dt: lib.nn.Conv2d(2, 3, 3, dtype=dt)) if conv else (lambda lib, dt: lib.nn.Linear(4, 3, dtype=dt))
    tm = tP.weight_norm(make(torch, torch.float64), dim=dim)
    om = P.weight_norm(make(minitorch, minitorch.float64), dim=dim)
    om_fresh = P.weight_norm(make(minitorch, minitorch.float64), dim=dim)
    g0 = om_fresh.parametrizations.weight.original0
    assert tuple(g0.shape) == tuple(tm.parametrizations.weight.original0.shape)
    copy_state(om, tm)
    x = torch.randn(*((2, 2, 5, 5) if conv else (2, 4)), dtype=torch.float64)
    tout, out = tm(x), om(mt(x))
    assert close(out, tout) and close(om.weight, tm.weight)
    g = torch.randn_like(tout)
    tout.backward(g)
    out.backward(mt(g))
    for k in ('original0', 'original1'):
        assert close(getattr(om.parametrizations.weight, k).grad, getattr(tm.parametrizations.weight, k).grad), k


def test_weight_norm_reconstructs_and_removes():
    lin = nn.Linear(4, 3)
    w = lin.weight.detach().numpy().copy()
    P.weight_norm(lin)
    assert np.allclose(lin.weight.detach().numpy(), w, atol=1e-6)
    names = sorted(n for n, _ in lin.named_parameters())
    assert names == ['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        nn.utils.parametrize.remove_parametrizations(lin, 'weight', leave_parametrized=False)
    nn.utils.parametrize.remove_parametrizations(lin, 'weight')
    assert type(lin) is nn.Linear and np.allclose(lin.weight.detach().numpy(), w, atol=1e-6)
    assert lin.weight.requires_grad


@pytest.mark.parametrize('p,dim', [(2.0, 1), (1.0, 0), (3.0, -1)])
def test_normalize(p, dim):
    x = torch.randn(4, 3, dtype=torch.float64)
    tx, ox = x.clone().requires_grad_(), mt(x, requires_grad=True)
    t, o = tF_normalize(tx, p, dim), F.normalize(ox, p, dim)
    assert close(o, t)
    t.sum().backward()
    o.sum().backward()
    assert close(ox.grad, tx.grad, 1e-7)


def test_normalize_zero_row_gradient():
    x = torch.zeros(2, 3, dtype=torch.float64)
    x[1] = 1.0
    tx, ox = x.clone().requires_grad_(), mt(x, requires_grad=True)
    tF_normalize(tx, 2.0, 1).sum().backward()
    F.normalize(ox).sum().backward()
    assert close(ox.grad, tx.grad)


def tF_normalize(x, p, dim):
    return torch.nn.functional.normalize(x, p, dim)
