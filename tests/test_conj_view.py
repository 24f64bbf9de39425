"""`conj()` as PyTorch's lazy view with the conjugate bit (issue 12), checked against torch."""
import numpy as np
import pytest
import torch

import minitorch as mt

Z = [[1 + 2j, 3 - 4j, -0.5 + 0j], [2j, -1 - 1j, 7 + 0.25j]]


def pair(dtype=np.complex128, requires_grad=False):
    a = np.array(Z, dtype=dtype)
    return (mt.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def close(m, t):
    t = t.detach().resolve_conj().resolve_neg()
    np.testing.assert_allclose(np.asarray(m.detach()), t.numpy(), rtol=1e-6, atol=1e-7)


def shares(m, base):
    return np.may_share_memory(m._data.storage, base._data.storage)


def test_values_and_ops():
    x, tx = pair()
    close(x.conj(), tx.conj())
    close(x.conj() * x, tx.conj() * tx)
    close(x.conj().sum(1), tx.conj().sum(1))
    close(x.conj() @ x.conj().mT, tx.conj() @ tx.conj().mT)
    close(x.conj().exp(), tx.conj().exp())
    close(x.conj() + mt.tensor([1j, 2, 3]), tx.conj() + torch.tensor([1j, 2, 3]))   # broadcast view of a conj view
    close(x.conj().t().reshape(-1), tx.conj().t().reshape(-1))
    close(x.conj().real, tx.conj().real)
    close(x.conj().imag, tx.conj().imag)
    assert x.conj().tolist() == tx.conj().tolist()
    assert repr(x.conj()) == repr(mt.tensor(tx.conj().resolve_conj().numpy()))


def test_real_and_complex32_conj_is_not_a_view_change():
    r = mt.tensor([1.0, 2.0])
    assert r.conj() is r and not r.conj().is_conj()
    h = mt.tensor([1 + 2j], dtype=mt.complex32)
    close(h.conj().to(mt.complex64), torch.tensor([1 + 2j], dtype=torch.complex32).conj().to(torch.complex64))


def test_bit_and_storage():
    x, tx = pair()
    y, ty = x.conj(), tx.conj()
    assert y.is_conj() == ty.is_conj() is True
    assert mt.is_conj(y) and not mt.is_conj(x)
    assert shares(y, x) and y.data_ptr() == x.data_ptr()
    assert not y.conj().is_conj() and shares(y.conj(), x)             # conj of conj: a plain view again
    for f in (lambda a: a[1:], lambda a: a.t(), lambda a: a.reshape(-1), lambda a: a.unsqueeze(0),
              lambda a: a.expand(2, 2, 3), lambda a: a[:, ::2]):
        assert f(y).is_conj() == f(ty).is_conj() and shares(f(y), x)
        close(f(y), f(ty))
    assert mt.resolve_conj(y).is_conj() == torch.resolve_conj(ty).is_conj()
    assert not shares(mt.resolve_conj(y), x) and not shares(mt.conj_physical(x), x)
    assert y.clone().is_conj() == ty.clone().is_conj()
    close(mt.conj_physical(y), torch.conj_physical(ty))


def test_write_through_both_ways():
    x, tx = pair()
    y, ty = x.conj(), tx.conj()
    y[0, 0] = 1 + 2j; ty[0, 0] = 1 + 2j               # the base stores the conjugate
    close(x, tx); close(y, ty)
    x[1, 2] = 5 - 6j; tx[1, 2] = 5 - 6j               # a write to the base shows conjugated in the view
    close(y, ty)
    y[1].mul_(2j); ty[1].mul_(2j)                     # in-place op on a view of the conj view
    close(x, tx); close(y, ty)
    y.add_(1 + 1j); ty.add_(1 + 1j)
    close(x, tx); close(y, ty)
    y.copy_(mt.tensor(np.array(Z) * 2)); ty.copy_(torch.tensor(np.array(Z) * 2))
    close(x, tx); close(y, ty)


def test_numpy_of_a_conj_view_gives_its_values():
    # PyTorch raises here ("Can't call numpy() on Tensor that has conjugate bit set"); minitorch's own code reads
    # tensors through numpy() (linalg), so a conj view gives its conjugated values as a copy
    x, tx = pair()
    np.testing.assert_array_equal(x.conj().numpy(), tx.conj().resolve_conj().numpy())
    np.testing.assert_array_equal(x.conj().resolve_conj().numpy(), tx.conj().resolve_conj().numpy())
    with pytest.raises(RuntimeError, match="view_as_real doesn't work on unresolved conjugated tensors"):
        mt.view_as_real(x.conj())


@pytest.mark.parametrize("f", [lambda a: (a.conj() * a.conj().exp()).abs().sum(),
                               lambda a: (a.conj()[:, 1:] * 3j).real.sum(),
                               lambda a: a.conj().conj().mul(2 - 1j).imag.sum()])
def test_grads(f):
    x, tx = pair(requires_grad=True)
    f(x).backward(); f(tx).backward()
    close(x.grad, tx.grad)


def test_large_conj_view_numba_paths():
    a = np.random.default_rng(0).standard_normal((300, 400)) + 1j * np.random.default_rng(1).standard_normal((300, 400))
    x, tx = mt.tensor(a), torch.tensor(a)
    close(x.conj() * x.conj(), tx.conj() * tx.conj())
    close(x.conj().exp(), tx.conj().exp())
    close(x.conj().sum(0), tx.conj().sum(0))
    close((x.conj() == x).any(1), (tx.conj() == tx).any(1))


# ---- 08db: kron views torch's product (laid out by TensorIterator), so it raises where torch does
def _layout(lib, shape, how):
    n = int(np.prod(shape))
    if how == 't' and len(shape) >= 2:
        return lib.tensor(np.arange(n, dtype=np.float32)).reshape(*shape[:-2], shape[-1], shape[-2]).transpose(-1, -2)
    if how == 's':
        return lib.tensor(np.arange(2 * n, dtype=np.float32)).reshape(*shape[:-1], 2 * shape[-1])[..., ::2]
    return lib.tensor(np.arange(n, dtype=np.float32)).reshape(*shape)


@pytest.mark.parametrize("sa,sb", [((3, 3), (2, 3)), ((2, 3), (1, 2)), ((3,), (2, 2)), ((2, 2, 2), (3,)),
                                   ((3, 1), (2, 2)), ((1, 3), (3, 1)), ((2, 2), (1,))])
@pytest.mark.parametrize("la,lb", [('c', 't'), ('t', 'c'), ('t', 't'), ('s', 't'), ('t', 's'), ('c', 'c')])
def test_kron_layouts(sa, sb, la, lb):
    A, B, a, b = _layout(torch, sa, la), _layout(torch, sb, lb), _layout(mt, sa, la), _layout(mt, sb, lb)
    try:
        r = torch.kron(A, B)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            mt.kron(a, b)
        return
    m = mt.kron(a, b)
    np.testing.assert_array_equal(np.asarray(m), r.numpy())
    assert m.stride() == r.stride()


# ---- 08db: cdist(p=1) backward is torch's `grad * sign(diff)` with NaN kept (and +0 at 0); empty 16-bit inputs
@pytest.mark.parametrize("a,b", [([[1., float('inf')]], [[2., float('inf')]]), ([[1., float('nan')]], [[2., 3.]]),
                                 ([[1., 2.], [3., 3.]], [[1., 3.], [0., 3.]]), ([[float('inf'), 2.]], [[1., 3.]])])
def test_cdist_p1_grad(a, b):
    x, y = torch.tensor(a, dtype=torch.float64, requires_grad=True), torch.tensor(b, dtype=torch.float64, requires_grad=True)
    X, Y = mt.tensor(a, dtype=mt.float64, requires_grad=True), mt.tensor(b, dtype=mt.float64, requires_grad=True)
    torch.cdist(x, y, p=1).sum().backward()
    mt.cdist(X, Y, p=1).sum().backward()
    assert str(X.grad.tolist()) == str(x.grad.tolist()) and str(Y.grad.tolist()) == str(y.grad.tolist())


def test_cdist_empty_half():
    for a, b in [((0, 1), (3, 1)), ((2, 0), (3, 0))]:
        r = torch.cdist(torch.zeros(a, dtype=torch.float16), torch.zeros(b, dtype=torch.float16), p=1)
        m = mt.cdist(mt.zeros(a, dtype=mt.float16), mt.zeros(b, dtype=mt.float16), p=1)
        assert tuple(m.shape) == tuple(r.shape) and m.dtype is mt.float16
    with pytest.raises(NotImplementedError):
        mt.cdist(mt.zeros((2, 1), dtype=mt.float16), mt.zeros((3, 1), dtype=mt.float16))


# ---- 08db: complex index_add multiplies by alpha = 1+0j exactly where torch's kernel does (1-D, middle dims)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4, 5), (3, 4), (4,)])
def test_index_add_complex_alpha_one(shape):
    inf = float('inf')
    for d in range(len(shape)):
        ss = list(shape); ss[d] = 2
        src = np.full(ss, complex(inf, 1.0)); src.reshape(-1)[::3] = complex(2.0, -inf)
        r = torch.zeros(shape, dtype=torch.complex128).index_add(d, torch.tensor([0, 1]), torch.tensor(src))
        m = mt.zeros(shape, dtype=mt.complex128).index_add(d, mt.tensor([0, 1]), mt.tensor(src))
        np.testing.assert_array_equal(np.asarray(m), r.numpy())
    x, tx = mt.zeros(shape, dtype=mt.complex128), torch.zeros(shape, dtype=torch.complex128)
    ss = list(shape); ss[-1] = 2
    s, ts = mt.tensor(np.ones(ss) * (1 + 2j), requires_grad=True), torch.tensor(np.ones(ss) * (1 + 2j), requires_grad=True)
    w = np.arange(int(np.prod(shape))).reshape(shape) * (1 - 1j)
    (x.index_add(-1, mt.tensor([1, 0]), s) * mt.tensor(w)).real.sum().backward()
    (tx.index_add(-1, torch.tensor([1, 0]), ts) * torch.tensor(w)).real.sum().backward()
    close(s.grad, ts.grad)
