"""scatter_reduce (nbs/08ca_indexing) against torch 2.13: values for every reduction with and without include_self,
PyTorch's gradients (ties for amax/amin, zeros for prod), errors, and the deterministic-mode alert on cuda."""
import numpy as np
import pytest
import torch

import minitorch
import minitorch.cuda as mcuda

CUDA = mcuda.is_available() or mcuda.is_simulator()
REDUCES = ['sum', 'prod', 'mean', 'amax', 'amin']
rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _off():
    yield
    minitorch.use_deterministic_algorithms(False); torch.use_deterministic_algorithms(False)


def both(x, **k):
    return minitorch.tensor(x, **{a: getattr(minitorch, b) if a == 'dtype' else b for a, b in k.items()}), \
        torch.tensor(x, **{a: getattr(torch, b) if a == 'dtype' else b for a, b in k.items()})


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('include_self', [True, False])
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64'])
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_values(reduce, include_self, dtype, dim):
    x = rng.integers(-5, 6, (3, 4)).astype(dtype)
    src = rng.integers(-5, 6, (4, 5)).astype(dtype)        # larger than index: only index's extent is read
    idx = rng.integers(0, x.shape[dim], (2, 3))
    (mx, tx), (ms, ts), (mi, ti) = both(x.tolist(), dtype=dtype), both(src.tolist(), dtype=dtype), both(idx.tolist())
    m = mx.scatter_reduce(dim, mi, ms, reduce, include_self=include_self)
    t = tx.scatter_reduce(dim, ti, ts, reduce, include_self=include_self)
    assert m.dtype == getattr(minitorch, dtype)
    torch.testing.assert_close(torch.tensor(m.tolist(), dtype=t.dtype), t)
    mx.scatter_reduce_(dim, mi, ms, reduce, include_self=include_self)
    assert mx.tolist() == m.tolist()


def test_int32_index_and_0d():
    m = minitorch.zeros(3).scatter_reduce(0, minitorch.tensor([0, 0], dtype=minitorch.int32),
                                          minitorch.tensor([1., 2.]), 'sum')
    t = torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0], dtype=torch.int32), torch.tensor([1., 2.]), 'sum')
    assert m.tolist() == t.tolist()
    m = minitorch.tensor(2.).scatter_reduce(0, minitorch.tensor(0), minitorch.tensor(5.), 'amax')
    t = torch.tensor(2.).scatter_reduce(0, torch.tensor(0), torch.tensor(5.), 'amax')
    assert m.shape == t.shape and m.item() == t.item()


def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None


@pytest.mark.parametrize('case', [
    lambda L: L.zeros(3).scatter_reduce(0, L.tensor([0, 0]), L.tensor([1., 2.]), 'add'),
    lambda L: L.zeros(3).scatter_reduce(0, L.tensor([0, 0]), L.tensor([1., 2.], dtype=L.float64), 'sum'),
    lambda L: L.zeros(3).scatter_reduce(0, L.tensor([0, 5]), L.tensor([1., 2.]), 'sum'),
    lambda L: L.zeros(3).scatter_reduce(0, L.tensor([0., 1.]), L.tensor([1., 2.]), 'sum'),
    lambda L: L.zeros(3).scatter_add(0, L.tensor([0, 0], dtype=L.int16), L.tensor([1., 2.])),
    lambda L: L.zeros(3).scatter_add(0, L.tensor([0, 0], dtype=L.int32), L.tensor([1., 2.])),
    lambda L: L.zeros(3).gather(0, L.tensor([0, 2], dtype=L.int32)),
])
def test_errors_and_index_dtypes(case):
    t = _err(lambda: case(torch))
    assert _err(lambda: case(minitorch)) == t
    if t is None: assert case(minitorch).tolist() == case(torch).tolist()


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('include_self', [True, False])
def test_gradients(reduce, include_self):
    x = np.array([[1., 2., 0., 4.], [3., 3., 5., 0.]])
    src = np.array([[3., 0., 2., 0.], [3., 0., 5., 1.]])   # ties with self (amax/amin), one zero, a double zero
    idx = [[0, 1, 2, 1], [0, 1, 2, 3]]
    w = np.arange(8.).reshape(2, 4) + 1
    grads = []
    for L in (minitorch, torch):
        a = L.tensor(x.tolist(), dtype=L.float64, requires_grad=True)
        s = L.tensor(src.tolist(), dtype=L.float64, requires_grad=True)
        y = a.scatter_reduce(1, L.tensor(idx), s, reduce, include_self=include_self)
        (y * L.tensor(w.tolist(), dtype=L.float64)).sum().backward()
        grads.append((type(y.grad_fn).__name__, a.grad.tolist(), s.grad.tolist(), y.tolist()))
    (mn, ma, ms, my), (tn, ta, ts, ty) = grads
    assert mn == tn and my == ty
    np.testing.assert_allclose(ma, ta, rtol=1e-12)
    np.testing.assert_allclose(ms, ts, rtol=1e-12)


@pytest.mark.parametrize('reduce', REDUCES)
def test_deterministic_alerts(reduce):
    "cpu: never; cuda: prod/amax/amin alert 'scatter_reduce_cuda', sum/mean take the sorted road (silent)."
    torch.use_deterministic_algorithms(True)
    torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0]), torch.ones(2), reduce)   # torch cpu: no alert
    minitorch.use_deterministic_algorithms(True)
    minitorch.zeros(3).scatter_reduce(0, minitorch.tensor([0, 0]), minitorch.ones(2), reduce)
    if not CUDA: return
    f = lambda: minitorch.zeros(3, device='cuda').scatter_reduce(0, minitorch.tensor([0, 0], device='cuda'),
                                                                minitorch.ones(2, device='cuda'), reduce)
    if reduce in ('sum', 'mean'):
        assert f().device.type == 'cuda'
    else:
        with pytest.raises(RuntimeError, match='^scatter_reduce_cuda does not have a deterministic implementation'):
            f()
        minitorch.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match='scatter_reduce_cuda'):
            r = f()
        assert r.cpu().tolist() == torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0]), torch.ones(2), reduce).tolist()
