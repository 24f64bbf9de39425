"""Parity of the callables the differential tester covered last (issue 12): linalg at the top level, random
sampling, losses. Each test compares with torch 2.13 directly: values, dtypes, gradients, error classes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minitorch as mt
import minitorch.nn.functional as MF


def m(t, grad=False):
    return mt.tensor(t.detach().numpy().copy(), requires_grad=grad)


def close(a, b, **kw):
    torch.testing.assert_close(torch.from_numpy(np.asarray(a.detach().numpy())), b.detach(), **kw)


def same_error(fn_t, fn_m):
    with pytest.raises(Exception) as et: fn_t()
    with pytest.raises(Exception) as em: fn_m()
    assert type(em.value) is type(et.value), (em.value, et.value)
    assert str(em.value) == str(et.value)


def wellcond(n, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, n, generator=g, dtype=dtype) + 3 * n * torch.eye(n, dtype=dtype)


def test_slogdet_real_sign_requires_grad():
    a = wellcond(3)
    ta = a.clone().requires_grad_(); ma = m(a, True)
    st, lt = torch.linalg.slogdet(ta); sm, lm = mt.linalg.slogdet(ma)
    assert sm.requires_grad == st.requires_grad and lm.requires_grad == lt.requires_grad
    (st.sum() + lt.sum()).backward(); (sm.sum() + lm.sum()).backward()
    close(ma.grad, ta.grad)


@pytest.mark.parametrize('n', [0, 1, 2, -1])
def test_matrix_power_is_a_new_tensor_in_the_graph(n):
    a = wellcond(3)
    ta = a.clone().requires_grad_(); ma = m(a, True)
    rt, rm = torch.matrix_power(ta, n), mt.matrix_power(ma, n)
    assert rm.requires_grad == rt.requires_grad
    rm.detach().numpy()[...] += 1  # writing the result must not change the input
    close(ma, ta)
    rt.sum().backward(); rm.sum().backward()
    close(ma.grad, ta.grad)


@pytest.mark.parametrize('kw', [{}, {'unpack_data': False}, {'unpack_pivots': False},
                                {'unpack_data': False, 'unpack_pivots': False}])
def test_lu_unpack_flags(kw):
    lu, piv = torch.linalg.lu_factor(wellcond(4))
    lu.requires_grad_()
    rt = torch.lu_unpack(lu, piv, **kw)
    rm = mt.lu_unpack(m(lu, True), mt.tensor(piv.numpy()), **kw)
    for a, b in zip(rm, rt):
        assert tuple(a.shape) == tuple(b.shape) and a.requires_grad == b.requires_grad
        close(a, b)


def test_lu_unpack_empty():
    lu, piv = torch.linalg.lu_factor(torch.randn(0, 0))
    for a, b in zip(mt.lu_unpack(m(lu), mt.tensor(piv.numpy())), torch.lu_unpack(lu, piv)):
        assert tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize('dtype', ['int16', 'int64', 'bool'])
def test_geqrf_integer_error(dtype):
    x = torch.ones(3, 3, dtype=getattr(torch, dtype))
    same_error(lambda: torch.geqrf(x), lambda: mt.geqrf(m(x)))
    same_error(lambda: torch.geqrf(torch.ones(3)), lambda: mt.geqrf(mt.ones(3)))


def test_matrix_exp_half_checks_shape():
    x = torch.ones(2, 3, dtype=torch.float16)
    with pytest.raises(RuntimeError): torch.linalg.matrix_exp(x)
    with pytest.raises(RuntimeError, match='square'): mt.linalg.matrix_exp(mt.ones(2, 3, dtype=mt.float16))


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_solve_and_inverse_grads_as_torch(upper):
    g = torch.Generator().manual_seed(1)
    L = torch.randn(3, 3, generator=g, dtype=torch.float64) * 0.5 + 2 * torch.eye(3, dtype=torch.float64)
    B = torch.randn(3, 2, generator=g, dtype=torch.float64)
    tL, tB = L.clone().requires_grad_(), B.clone().requires_grad_()
    mL, mB = m(L, True), m(B, True)
    xt, xm = torch.cholesky_solve(tB, tL, upper), mt.cholesky_solve(mB, mL, upper)
    close(xm, xt)
    (xt ** 2).sum().backward(); (xm ** 2).sum().backward()
    close(mL.grad, tL.grad); close(mB.grad, tB.grad)       # the unread triangle gets torch's gradient too
    tL2, mL2 = L.clone().requires_grad_(), m(L, True)
    it, im = torch.cholesky_inverse(tL2, upper), mt.cholesky_inverse(mL2, upper)
    close(im, it)
    (it ** 2).sum().backward(); (im ** 2).sum().backward()
    close(mL2.grad, tL2.grad)


def test_poisson_0d_and_multinomial_no_rows():
    r = mt.poisson(mt.tensor(3.0))
    assert r.shape == () and r.dtype is mt.float32
    x = torch.ones(0, 4)
    assert tuple(mt.multinomial(m(x), 2, replacement=True).shape) == tuple(torch.multinomial(x, 2, True).shape)


@pytest.mark.parametrize('dtype', ['bool', 'uint8', 'int64', 'complex64'])
@pytest.mark.parametrize('p', [None, 0.3])
def test_bernoulli_dtypes(dtype, p):
    x = torch.zeros(3, dtype=getattr(torch, dtype))
    kw = {} if p is None else {'p': p}
    try:
        want = torch.bernoulli(x, **kw)
    except Exception:
        same_error(lambda: torch.bernoulli(x, **kw), lambda: mt.bernoulli(m(x), **kw))
        return
    got = mt.bernoulli(m(x), **kw)
    assert got.dtype.name == str(want.dtype).split('.')[-1] and tuple(got.shape) == tuple(want.shape)


def test_normal_complex_std_error():
    s = torch.ones(2, dtype=torch.complex64)
    same_error(lambda: torch.normal(torch.zeros(2), s), lambda: mt.normal(mt.zeros(2), m(s)))


def test_random_statistics():
    "Seed-independent properties: means and supports of large samples."
    mt.manual_seed(0)
    p = mt.full((20000,), 0.3)
    assert abs(float(mt.bernoulli(p).mean()) - 0.3) < 0.02
    assert abs(float(mt.poisson(mt.full((20000,), 4.0)).mean()) - 4.0) < 0.1
    n = mt.normal(mt.full((20000,), 2.0), 0.5)
    assert abs(float(n.mean()) - 2.0) < 0.02 and abs(float(n.std()) - 0.5) < 0.02
    s = mt.multinomial(mt.tensor([0.0, 1.0, 3.0]), 4000, replacement=True).numpy()
    assert (s != 0).all() and abs((s == 2).mean() - 0.75) < 0.03
    s = mt.multinomial(mt.tensor([1.0, 1.0, 1.0, 1.0]), 4).numpy()
    assert sorted(s.tolist()) == [0, 1, 2, 3]


@pytest.mark.parametrize('fn', ['rand', 'randn'])
@pytest.mark.parametrize('dtype', ['bool', 'int64'])
def test_rand_integer_dtype_error(fn, dtype):
    same_error(lambda: getattr(torch, fn)(2, 3, dtype=getattr(torch, dtype)),
               lambda: getattr(mt, fn)(2, 3, dtype=getattr(mt, dtype)))


@pytest.mark.parametrize('inp,tgt', [
    ([1., 2., 3.], 1), ([[1., 2., 3.], [0., 1., 2.]], 1), ([1., 2., 3.], 1.), (1., 0), (1., 0.),
    ([[1., 2., 3.], [0., 1., 2.]], 0.5), ([[1., 2., 3.], [0., 1., 2.]], [0., 1.])])
def test_cross_entropy_target_forms(inp, tgt):
    ti, tt = torch.tensor(inp), torch.tensor(tgt)
    try:
        want = TF.cross_entropy(ti, tt)
    except Exception:
        same_error(lambda: TF.cross_entropy(ti, tt), lambda: MF.cross_entropy(m(ti), m(tt)))
        return
    close(MF.cross_entropy(m(ti), m(tt)), want)


@pytest.mark.parametrize('dtype', ['int8', 'int64', 'bool'])
@pytest.mark.parametrize('reduction', ['mean', 'none'])
def test_margin_ranking_loss_integer_inputs(dtype, reduction):
    d = getattr(torch, dtype)
    a, b = torch.tensor([3, 1, 0]).to(d), torch.tensor([1, 1, 1]).to(d)
    y = torch.tensor([1, -1, -1]).to(d) if dtype != 'bool' else torch.tensor([True, False, True])
    try:
        want = TF.margin_ranking_loss(a, b, y, reduction=reduction)
    except Exception:
        same_error(lambda: TF.margin_ranking_loss(a, b, y, reduction=reduction),
                   lambda: MF.margin_ranking_loss(m(a), m(b), m(y), reduction=reduction))
        return
    got = MF.margin_ranking_loss(m(a), m(b), m(y), reduction=reduction)
    assert got.dtype.name == str(want.dtype).split('.')[-1]
    close(got, want)


@pytest.mark.parametrize('dtype', ['int8', 'complex64'])
@pytest.mark.parametrize('p', [None, 0.3])
def test_bernoulli_empty_any_dtype(dtype, p):
    "An empty input never reaches torch's kernel table: no dtype error."
    kw = {} if p is None else {'p': p}
    x = torch.zeros(0, 2, dtype=getattr(torch, dtype))
    got, want = mt.bernoulli(m(x), **kw), torch.bernoulli(x, **kw)
    assert tuple(got.shape) == tuple(want.shape) and got.dtype.name == str(want.dtype).split('.')[-1]
