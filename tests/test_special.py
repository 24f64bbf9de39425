"minitorch.special against torch.special: values and gradients, including the edge values."
import math
import numpy as np
import pytest
import torch
import minitorch
import minitorch.special as ms
from minitorch.autograd import gradcheck, gradgradcheck

EDGE = [0., -0., 1., -1., -2.5, 0.5, 3., 7.5, 30., -30., 45., float('inf'), -float('inf'), float('nan')]
UNIT = [0., -0., 1., -1., 0.5, -0.999999, 0.3, 1e-10, 0.975, 2., float('nan')]
POS = [1e-300, 1e-10, 0.01, 0.5, 0.975, 0.9999, 1., 0., 2., -1., float('nan')]

UNARY = {   # name: (inputs, rtol for float64 values)
    'erf': (EDGE, 1e-12), 'erfc': (EDGE, 1e-12), 'erfcx': (EDGE, 1e-12), 'erfinv': (UNIT, 1e-12),
    'expit': (EDGE, 1e-12), 'gammaln': (EDGE, 1e-12), 'digamma': (EDGE, 1e-12), 'psi': (EDGE, 1e-12),
    'ndtri': (POS, 1e-12), 'log_ndtr': (EDGE + [-40., -1e3, 6.5, 40.], 1e-12), 'i0': (EDGE, 1e-12),
    'i0e': (EDGE, 1e-12), 'i1': (EDGE, 1e-12), 'i1e': (EDGE, 1e-12), 'entr': (EDGE, 1e-12),
    'sinc': (EDGE, 1e-12), 'expm1': (EDGE, 1e-12), 'exp2': (EDGE, 1e-12), 'log1p': (EDGE, 1e-12),
    'round': (EDGE + [2.5, -0.5], 0), 'ndtr': ([v for v in EDGE if v != -30.], 1e-12),
}


def close(m, t, rtol, atol=0.0):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("dtype", ['float32', 'float64'])
def test_unary_values(name, dtype):
    vals, rtol = UNARY[name]
    t = torch.tensor(vals, dtype=getattr(torch, dtype))
    m = getattr(ms, name)(minitorch.tensor(t.numpy()))
    r = getattr(torch.special, name)(t)
    assert m.dtype == getattr(minitorch, dtype)
    close(m, r, rtol if dtype == 'float64' else 2e-5, 0 if dtype == 'float64' else 1e-30)   # float32: ours is rounded from float64


@pytest.mark.parametrize("name", ['erfc', 'gammaln', 'digamma', 'i0', 'i1e', 'ndtr', 'log_ndtr', 'entr', 'erfinv'])
def test_integer_inputs_give_default_float(name):
    t = torch.tensor([0, 1, 2])
    m = getattr(ms, name)(minitorch.tensor([0, 1, 2]))
    r = getattr(torch.special, name)(t)
    assert m.dtype == minitorch.float32 and r.dtype == torch.float32
    close(m, r, 1e-6)


GRAD_EDGE = [0., -0., 1., -1., -2.5, 0.5, 3., 30., -30., float('inf'), -float('inf'), float('nan')]
GRAD = {'erfc': GRAD_EDGE, 'erfinv': UNIT, 'gammaln': GRAD_EDGE, 'ndtr': GRAD_EDGE, 'ndtri': POS,
        'log_ndtr': GRAD_EDGE, 'i0': GRAD_EDGE, 'i0e': GRAD_EDGE, 'i1': [v for v in GRAD_EDGE if v == v],
        'i1e': [v for v in GRAD_EDGE if v == v], 'entr': GRAD_EDGE, 'erfcx': [v for v in GRAD_EDGE if v != -30.],
        'digamma': [0., -0., 1., -2.5, 0.5, 3., 30., float('inf'), float('nan')], 'expit': GRAD_EDGE}


@pytest.mark.parametrize("name", list(GRAD))
def test_unary_gradients(name):
    t = torch.tensor(GRAD[name], dtype=torch.float64, requires_grad=True)
    getattr(torch.special, name)(t).sum().backward()
    m = minitorch.tensor(GRAD[name], dtype=minitorch.float64, requires_grad=True)
    getattr(ms, name)(m).sum().backward()
    close(m.grad, t.grad, 1e-7 if name == 'digamma' else 1e-11)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma(n):
    v = [1., 2., 0.5, 3., 30., -2.5, 800., 0., float('inf'), float('nan')]
    t = torch.tensor(v, dtype=torch.float64, requires_grad=True)
    m = minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True)
    close(ms.polygamma(n, m), torch.special.polygamma(n, t), 1e-8 if n == 1 else 1e-12)
    torch.special.polygamma(n, t).sum().backward(); ms.polygamma(n, m).sum().backward()
    close(m.grad, t.grad, 1e-8 if n == 2 else 1e-11)
    assert ms.polygamma(1, minitorch.tensor([1.], dtype=minitorch.float64)).item() == pytest.approx(math.pi ** 2 / 6, rel=1e-15)


def test_zeta_multigammaln_and_documented_values():
    close(ms.zeta(minitorch.tensor([2., 3, 1, 0.5, 2]), minitorch.tensor([1., 2, 1, 1, -1.5])),
          torch.special.zeta(torch.tensor([2., 3, 1, 0.5, 2]), torch.tensor([1., 2, 1, 1, -1.5])), 1e-6)
    q = minitorch.tensor([1.5, 2.], dtype=minitorch.float64, requires_grad=True)
    tq = torch.tensor([1.5, 2.], dtype=torch.float64, requires_grad=True)
    ms.zeta(3.0, q).sum().backward(); torch.special.zeta(3.0, tq).sum().backward()
    close(q.grad, tq.grad, 1e-12)
    a = torch.tensor([2.5, 3., 7.], dtype=torch.float64)
    close(ms.multigammaln(minitorch.tensor(a.numpy()), 3), torch.special.multigammaln(a, 3), 1e-12)
    assert ms.xlogy(minitorch.tensor(0.), minitorch.tensor(0.)).item() == 0
    assert math.isnan(ms.xlogy(minitorch.tensor(0.), minitorch.tensor(float('nan'))).item())
    assert ms.xlog1py(minitorch.tensor(0.), minitorch.tensor(-1.)).item() == 0
    assert ms.entr(minitorch.tensor([-1., 0.])).tolist() == [-math.inf, 0.0]
    assert ms.logit(minitorch.tensor([0.])).item() == -math.inf
    np.testing.assert_allclose(ms.logit(minitorch.tensor([0., 1.]), eps=1e-6).numpy(), [-13.8155, 13.8023], rtol=1e-5)
    assert ms.sinc(minitorch.tensor([0.])).item() == 1.0
    assert ms.gammaln(minitorch.tensor([.5])).item() == pytest.approx(0.5723649, rel=1e-6)
    assert ms.ndtri(minitorch.tensor([.975])).item() == pytest.approx(1.959964, rel=1e-6)
    assert ms.logsumexp(minitorch.tensor([1000., 1000.]), 0).item() == pytest.approx(1000.6931, rel=1e-6)


def test_binary_and_softmax_family():
    x = torch.tensor([0., 0., 1., 2., -1., 0.5], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([-1., float('nan'), 0.5, -0.5, 3., 0.], dtype=torch.float64, requires_grad=True)
    mx = minitorch.tensor(x.detach().numpy(), requires_grad=True)
    my = minitorch.tensor(y.detach().numpy(), requires_grad=True)
    close(ms.xlog1py(mx, my), torch.special.xlog1py(x, y), 1e-12)
    torch.special.xlog1py(x, y)[2:].sum().backward(); ms.xlog1py(mx, my)[2:].sum().backward()
    close(mx.grad, x.grad, 1e-12); close(my.grad, y.grad, 1e-12)
    z = torch.randn(3, 4, dtype=torch.float64)
    mz = minitorch.tensor(z.numpy())
    close(ms.softmax(mz, 1), torch.special.softmax(z, 1), 1e-12)
    close(ms.log_softmax(mz, 0), torch.special.log_softmax(z, 0), 1e-12)
    close(ms.logsumexp(mz, 1, keepdim=True), torch.special.logsumexp(z, 1, keepdim=True), 1e-12)
    close(ms.softmax(mz.float(), 1, dtype=minitorch.float64), torch.special.softmax(z.float(), 1, dtype=torch.float64), 1e-6)


def test_gradcheck_and_gradgradcheck():
    x = minitorch.tensor([0.3, 1.7, 2.5], dtype=minitorch.float64, requires_grad=True)
    p = minitorch.tensor([0.1, 0.5, 0.8], dtype=minitorch.float64, requires_grad=True)
    for f in (ms.gammaln, ms.digamma, ms.erfc, ms.erfcx, ms.i0, ms.i0e, ms.i1, ms.i1e, ms.log_ndtr, ms.ndtr, ms.entr):
        assert gradcheck(f, (x,))
    for f in (ms.erfinv, ms.ndtri, ms.logit):
        assert gradcheck(f, (p,))
    assert gradcheck(lambda t: ms.polygamma(2, t), (x,))
    for f in (ms.gammaln, ms.erfinv, ms.i1):
        assert gradgradcheck(f, (p,))


def test_half_inputs_round_back():
    t = torch.tensor([0.5, 1.5, 3.0])
    for name in ('gammaln', 'erfc', 'i0'):
        for d in ('float16', 'bfloat16'):
            m = getattr(ms, name)(minitorch.tensor(t.numpy()).to(getattr(minitorch, d)))
            r = getattr(torch.special, name)(t.to(getattr(torch, d)))
            assert m.dtype == getattr(minitorch, d)
            np.testing.assert_allclose(m.float().numpy(), r.float().numpy(), rtol=1e-2)


@pytest.mark.parametrize("name", ['erfc', 'erfinv', 'gammaln', 'digamma', 'ndtri', 'log_ndtr', 'i0', 'i0e', 'i1', 'i1e',
                                  'entr', 'erfcx', 'ndtr'])
def test_complex_inputs_refused_like_torch(name):
    def err(f):
        try: f()
        except Exception as e: return type(e).__name__, str(e)
    assert err(lambda: getattr(ms, name)(minitorch.tensor([1 + 1j]))) == err(lambda: getattr(torch.special, name)(torch.tensor([1 + 1j])))


def test_cuda_inputs_stay_on_cuda():
    x = minitorch.tensor([0.5, 1.5, 3.0], dtype=minitorch.float64, device='cuda', requires_grad=True)
    y = ms.gammaln(x)
    assert y.device.type == 'cuda'
    y.sum().backward()
    assert x.grad.device.type == 'cuda'
    np.testing.assert_allclose(x.grad.cpu().numpy(), torch.special.digamma(torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)).numpy(), rtol=1e-10)


def test_gammainc_gammaincc():
    a = torch.tensor([0.5, 1., 2.5, 10., 30., 0.1, 3., 0., 1., float('nan')], dtype=torch.float64)
    x = torch.tensor([0.2, 1., 7., 9.5, 25., 0.01, 0., 1., float('inf'), 1.], dtype=torch.float64)
    for f in ('gammainc', 'gammaincc'):
        close(getattr(ms, f)(minitorch.tensor(a.numpy()), minitorch.tensor(x.numpy())), getattr(torch.special, f)(a, x), 1e-8)
    tx = x[:6].clone().requires_grad_()
    mx = minitorch.tensor(x[:6].numpy(), requires_grad=True)
    for f in ('gammainc', 'gammaincc'):
        tx.grad = None; mx.grad = None
        getattr(torch.special, f)(a[:6], tx).sum().backward()
        getattr(ms, f)(minitorch.tensor(a[:6].numpy()), mx).sum().backward()
        close(mx.grad, tx.grad, 1e-8)
    with pytest.raises(NotImplementedError):
        ms.gammainc(minitorch.tensor([1.], requires_grad=True), minitorch.tensor([1.])).sum().backward()


POLYS = ['chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w',
         'hermite_polynomial_h', 'hermite_polynomial_he', 'laguerre_polynomial_l', 'legendre_polynomial_p']


@pytest.mark.parametrize("name", POLYS)
def test_orthogonal_polynomials(name):
    x = torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, 3.], dtype=torch.float64)
    for n in (-1, 0, 1, 2, 5, 12, 20):
        close(getattr(ms, name)(minitorch.tensor(x.numpy()), n), getattr(torch.special, name)(x, n), 1e-9, 1e-12)
    nt = torch.tensor([0., 2.5, 3., 7.], dtype=torch.float64)          # tensor degrees, truncated
    close(getattr(ms, name)(minitorch.tensor(x[:4].numpy()), minitorch.tensor(nt.numpy())), getattr(torch.special, name)(x[:4], nt), 1e-10, 1e-12)
    assert getattr(ms, name)(minitorch.tensor([1, 2]), 3).dtype == minitorch.float32
    assert not getattr(ms, name)(minitorch.tensor([0.5], requires_grad=True), 3).requires_grad


@pytest.mark.parametrize('k', 'tuvw')
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_shifted_chebyshev(k, dtype):
    "T*/U*/V*/W* at 2x - 1; PyTorch switches to cos(n acos) for n > 6 inside (0, 1): agree to rounding."
    name = f'shifted_chebyshev_polynomial_{k}'
    # (no NaN: for n >= 2 torch returns an uninitialized variable there, 0 or 5e-324 or anything)
    x = torch.cat([torch.tensor([0., 1., 0.5, -0.25, 1.25]), torch.rand(40, generator=torch.Generator().manual_seed(1))]).to(getattr(torch, dtype))
    for n in [0, 1, 2, 3, 6, 7, 15, 30, -1]:
        m = getattr(ms, name)(minitorch.tensor(x.numpy()), n)
        t = getattr(torch.special, name)(x, n)
        assert m.dtype == getattr(minitorch, dtype)
        scale = max(1.0, float(t.abs().nan_to_num().max()))
        tol = (1e-4 if dtype == 'float32' else 1e-11) * scale
        torch.testing.assert_close(torch.from_numpy(m.numpy()), t, rtol=tol, atol=tol, equal_nan=True)
    nt = torch.tensor([0., 2., 5.])
    torch.testing.assert_close(torch.from_numpy(getattr(ms, name)(minitorch.tensor([0.3, 0.3, 0.3]), minitorch.tensor(nt.numpy())).numpy()),
                               getattr(torch.special, name)(torch.tensor([0.3, 0.3, 0.3]), nt))
    assert getattr(ms, name)(minitorch.tensor([0, 1]), 3).dtype == getattr(minitorch, str(getattr(torch.special, name)(torch.tensor([0, 1]), 3).dtype)[6:])
