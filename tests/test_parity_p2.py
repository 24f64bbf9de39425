"""Parity with PyTorch for the arithmetic, comparison, logic/cast, more-ops and complex chapters (issue 12, helper P2)."""
import math

import numpy as np
import pytest
import torch

import minitorch as mt


def _both(fn):
    "fn(lib) for torch and minitorch; (result or exception) each."
    out = []
    for lib in (torch, mt):
        try: out.append(fn(lib))
        except Exception as e: out.append(e)   # noqa: BLE001
    return out


def _same(t, m, exact=False):
    assert not isinstance(t, Exception) and not isinstance(m, Exception), (t, m)
    assert str(t.dtype).replace('torch.', '') == m.dtype.name
    mn = torch.from_numpy(np.array(m.tolist(), dtype=str(t.dtype).replace('torch.', '').replace('bfloat16', 'float32')))
    mn = mn.to(t.dtype).reshape(t.shape)
    if exact: assert torch.equal(t, mn), (t, mn)
    else: torch.testing.assert_close(mn, t, equal_nan=True, rtol=1e-6, atol=0)


def _same_error(t, m):
    assert isinstance(t, Exception) and isinstance(m, Exception), (t, m)
    assert type(t) is type(m), (t, m)
    assert str(t).split('\n')[0] == str(m).split('\n')[0], (t, m)


@pytest.mark.parametrize('alpha', [0, 2, -1, True, False])
def test_add_bool_alpha_keeps_bool(alpha):
    t, m = _both(lambda L: L.add(L.tensor([False, True]), L.tensor(True), alpha=alpha))
    _same(t, m, exact=True)


@pytest.mark.parametrize('case', [
    lambda L: L.add(L.tensor([1., 2.]), 3, alpha=True),
    lambda L: L.sub(L.tensor([1, 2]), L.tensor(3), alpha=True),
    lambda L: L.add(L.tensor([1, 2], dtype=L.int8), L.tensor([3], dtype=L.int8), alpha=300),
    lambda L: L.add(L.tensor([1, 2], dtype=L.uint8), 3, alpha=-256),
])
def test_add_alpha_errors(case):
    _same_error(*_both(case))


@pytest.mark.parametrize('alpha', [-1, -255, 255])
def test_add_unsigned_alpha_wraps(alpha):
    t, m = _both(lambda L: L.add(L.tensor([1, 2], dtype=L.uint8), 3, alpha=alpha))
    _same(t, m, exact=True)


_SPECIAL = [0., -0., 1., -1., 2.5, -0.7, math.inf, -math.inf, math.nan, 1e30, 3.]
_CVALS = [complex(r, i) for r in _SPECIAL for i in _SPECIAL]


def _cclose(t, m):
    "Complex results agree part by part, NaN where torch has NaN and infinities of the same sign."
    mn = torch.from_numpy(np.array(m.tolist(), dtype=np.complex128)).reshape(t.shape)
    assert str(t.dtype).replace('torch.', '') == m.dtype.name
    for p, q in ((t.real.double(), mn.real), (t.imag.double(), mn.imag)):
        torch.testing.assert_close(q, p, equal_nan=True, rtol=1e-5 if t.dtype == torch.complex64 else 1e-12, atol=0)


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_complex_pow_special_values(dtype):
    "C's cpow with Annex G products: (inf+nan j) ** z is inf+nan j, 0 ** z with Re z < 0 is inf+nan j, ..."
    z = np.array([a for a in _CVALS for b in _CVALS]); w = np.array([b for a in _CVALS for b in _CVALS])
    t, m = _both(lambda L: L.pow(L.tensor(z.tolist(), dtype=getattr(L, dtype)), L.tensor(w.tolist(), dtype=getattr(L, dtype))))
    _cclose(t, m)


@pytest.mark.parametrize('s', [-4, 4, 1.5, 1.5 - 0.5j, 0, 1, 0.0, True, False, 1j])
def test_complex_pow_scalar_exponent(s):
    t, m = _both(lambda L: L.tensor(_CVALS, dtype=L.complex128) ** s)
    _cclose(t, m)


@pytest.mark.parametrize('s', [0, 1, 2.5, 1j, False])
def test_complex_rpow_scalar_base(s):
    t, m = _both(lambda L: s ** L.tensor(_CVALS, dtype=L.complex64))
    _cclose(t, m)


def test_complex_ipow_and_grad():
    z = [complex(math.inf, math.nan), 1 + 1j, -2 + 0.5j]; w = [-1.2 - 1.2j, 0.5 + 2j, 3 + 0j]
    t, m = _both(lambda L: L.tensor(z).__ipow__(L.tensor(w)))
    _cclose(t, m)
    zt = torch.tensor(z[1:], requires_grad=True); wt = torch.tensor(w[1:], requires_grad=True)
    zm = mt.tensor(z[1:], requires_grad=True); wm = mt.tensor(w[1:], requires_grad=True)
    (zt ** wt).abs().sum().backward(); (zm ** wm).abs().sum().backward()
    _cclose(zt.grad, zm.grad); _cclose(wt.grad, wm.grad)


def _cten(L, shape, seed, special=True):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    if special:
        flat = z.reshape(-1)
        picks = rng.choice(flat.size, size=max(1, flat.size // 4), replace=False)
        sp = [complex(math.inf, 0), complex(0, -math.inf), complex(math.nan, 1), complex(-math.inf, math.inf)]
        for i, p in enumerate(picks): flat[p] = sp[i % len(sp)]
    return L.tensor(z.tolist(), dtype=L.complex64)


@pytest.mark.parametrize('beta,alpha', [(1, 1), (0, 1), (2, 1 - 1j), (0.5j, 3)])
@pytest.mark.parametrize('seed', range(4))
def test_addr_complex_special_values(beta, alpha, seed):
    "PyTorch's addr kernel: beta * input + alpha * vec1 * vec2, complex products by alpha and beta even when 1."
    t, m = _both(lambda L: L.addr(_cten(L, (4, 3), seed), _cten(L, (4,), seed + 10), _cten(L, (3,), seed + 20),
                                  beta=beta, alpha=alpha))
    _cclose(t, m)


@pytest.mark.parametrize('beta,alpha', [(1, 1), (0, 1), (2, 1 - 1j)])
@pytest.mark.parametrize('seed', range(4))
def test_baddbmm_complex_special_values(beta, alpha, seed):
    "PyTorch's small-baddbmm loop: the products summed one by one, then input * beta + alpha * sum."
    t, m = _both(lambda L: L.baddbmm(_cten(L, (1, 3, 4), seed), _cten(L, (2, 3, 2), seed + 10),
                                     _cten(L, (2, 2, 4), seed + 20), beta=beta, alpha=alpha))
    _cclose(t, m)


@pytest.mark.parametrize('op', ['addr', 'baddbmm'])
def test_addr_baddbmm_complex_grads(op):
    shapes = {'addr': ((4, 3), (4,), (3,)), 'baddbmm': ((1, 3, 4), (2, 3, 2), (2, 2, 4))}[op]
    res = []
    for L in (torch, mt):
        xs = [_cten(L, s, i, special=False).requires_grad_() for i, s in enumerate(shapes)]
        y = getattr(L, op)(*xs, beta=2 - 1j, alpha=0.5j)
        (y * y.conj()).real.sum().backward() if L is torch else (y * y.conj()).real.sum().backward()
        res.append([x.grad for x in xs])
        assert type(y.grad_fn).__name__ == f"{op.capitalize()}Backward0"
    for gt, gm in zip(*res): _cclose(gt, gm)


@pytest.mark.skipif(not (mt.cuda.is_available() or mt.cuda.is_simulator()), reason="no cuda device or simulator")
def test_polar_complex_view_as_real_on_cuda():
    "complex/polar/view_as_real/view_as_complex reinterpret the device buffer as they do numpy storage."
    a, b = [1., 2., math.inf], [0.5, 1., 0.]
    t = torch.polar(torch.tensor(a), torch.tensor(b))
    m = mt.polar(mt.tensor(a, device='cuda'), mt.tensor(b, device='cuda'))
    assert m.device.type == 'cuda'
    _cclose(t, m.cpu())
    z = mt.tensor([1j, 2 + 0.5j], device='cuda')
    r = mt.view_as_real(z)
    assert r.device.type == 'cuda' and r.cpu().tolist() == [[0., 1.], [2., 0.5]]
    assert mt.view_as_complex(mt.tensor([1., 2., 3.], device='cuda')[:2]).cpu().item() == 1 + 2j
    x = mt.tensor([1., 2.], device='cuda', requires_grad=True)
    mt.view_as_real(mt.complex(x, x * 2)).sum().backward()
    assert x.grad.cpu().tolist() == [3., 3.]


@pytest.mark.parametrize('dtype', ['int16', 'uint8', 'bool', 'float32'])
@pytest.mark.parametrize('call', [lambda L, x: L.round(x, decimals=0), lambda L, x: x.round(decimals=0),
                                  lambda L, x: x.clone().round_(decimals=0), lambda L, x: L.round(x), lambda L, x: x.round()])
def test_round_explicit_decimals_zero(dtype, call):
    "round(int_t) copies, but round(int_t, decimals=0) is PyTorch's float kernel, refused for integers."
    t, m = _both(lambda L: call(L, L.tensor([1, 0], dtype=getattr(L, dtype))))
    if isinstance(t, Exception): _same_error(t, m)
    else: _same(t, m, exact=True)


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64'])
def test_remainder_zero_keeps_dividend_sign(dtype):
    "PyTorch's remainder adjusts C's fmod: a zero result has the dividend's sign (numpy gives the divisor's)."
    x = [-3., 3., -6., 2., 6.]
    for f in (lambda L: 0 % L.tensor(x, dtype=getattr(L, dtype)), lambda L: L.tensor(x, dtype=getattr(L, dtype)) % -3,
              lambda L: L.tensor([-3, 3, 6]) % L.tensor(3.0, dtype=getattr(L, dtype)),
              lambda L: L.remainder(-6, L.tensor(x, dtype=getattr(L, dtype)))):
        t, m = _both(f)
        sign = lambda v: [math.copysign(1, a) for a in v.tolist()]
        assert sign(t) == sign(m), (t, m)
        # the sign matters downstream: 1 / (0 % x) is +inf or -inf
        _same(1 / t.double(), 1 / m.double(), exact=True)


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
def test_imag_backward_has_zero_real_part(dtype):
    "imag's gradient is 0 + g i: an infinite g gives (0, inf), not (nan, inf) as g * 1j would."
    res = []
    for L in (torch, mt):
        x = L.tensor([1 + 1j, 2 + 2j, 3j], dtype=getattr(L, dtype), requires_grad=True)
        x.imag.backward(L.tensor([math.inf, math.nan, -2.], dtype=x.real.dtype))
        res.append(x.grad)
    _cclose(*res)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_polar_grads_follow_pytorch(dtype):
    "polar's backward is PyTorch's polar_backward: Re(conj(g) sgn(z)) flips sign for a negative abs, 0 at abs = 0."
    res = []
    for L in (torch, mt):
        a = L.tensor([1., -2., 0., 3.], dtype=getattr(L, dtype), requires_grad=True)
        b = L.tensor([[0.5, 1., 2., -1.]] * 2, dtype=getattr(L, dtype), requires_grad=True)
        z = L.polar(a, b)
        (z * L.tensor([1 + 2j, -1 + 0.5j, 2j, 1.], dtype=z.dtype)).real.sum().backward()
        res.append((a.grad, b.grad))
    for t, m in zip(*res): _same(t, m)


@pytest.mark.parametrize('w', [0.3, 0.7, 'tensor'])
def test_lerp_complex_special_values(w):
    "PyTorch's lerp kernel uses plain complex + and - (not torch.add's `a + 1*b`) and a complex weight."
    def f(L):
        s = L.tensor([complex(math.inf, math.nan), complex(math.inf, 0), complex(math.nan, 1), 1 + 1j, complex(0, math.inf)],
                     dtype=L.complex64)
        e = L.tensor([1 + 2j] * 5, dtype=L.complex64)
        ww = L.tensor([0.2, 0.7j, 0.4 + 0.3j, 1., 0.5], dtype=L.complex64) if w == 'tensor' else w
        return [L.lerp(s, e, ww), L.lerp(e, s, ww), L.lerp(s[0], e[0], ww if w != 'tensor' else ww[1])]
    for t, m in zip(*_both(f)): _cclose(t, m)


@pytest.mark.skipif(not (mt.cuda.is_available() or mt.cuda.is_simulator()), reason="no cuda device or simulator")
def test_where_cuda_condition_with_cpu_scalars():
    "A 0-d cpu tensor joins a cuda op as in any PyTorch op: where(cuda cond, cpu 0-d, cpu 0-d), heaviside on cuda."
    c = [[True], [False]]
    m = mt.where(mt.tensor(c, device='cuda'), mt.tensor(1.), mt.tensor(0.))
    t = torch.where(torch.tensor(c), torch.tensor(1.), torch.tensor(0.))
    assert m.device.type == 'cuda' and m.cpu().tolist() == t.tolist()
    x, v = [[1., 0., -2.]], [[0.5, 0.5, 0.5]]
    m = mt.heaviside(mt.tensor(x, device='cuda'), mt.tensor(v, device='cuda'))
    assert m.cpu().tolist() == torch.heaviside(torch.tensor(x), torch.tensor(v)).tolist()
    with pytest.raises(RuntimeError, match="same device"):
        mt.where(mt.tensor([True, False]), mt.tensor([1., 2.], device='cuda'), 0.)


@pytest.mark.parametrize('case', [
    lambda L, x, y: L.add(y, x, alpha=2), lambda L, x, y: L.sub(y, x, alpha=2), lambda L, x, y: L.rsub(x, y, alpha=2),
    lambda L, x, y: L.add(y, x, alpha=1j), lambda L, x, y: L.rsub(x, 3 + 1j, alpha=2), lambda L, x, y: L.add(x, y, alpha=2),
    lambda L, x, y: L.add(x.real, y, alpha=-0.5)])
def test_add_alpha_complex_kernel_arithmetic(case):
    "a + alpha * b: one complex product by alpha, then a plain sum (the input's infinities stay NaN-free)."
    def f(L):
        x = L.tensor([complex(math.inf, 0), complex(0, math.inf), 1 + 1j])
        return case(L, x, L.tensor([1 + 2j] * 3))
    _cclose(*_both(f))


def test_add_alpha_complex_grads():
    res = []
    for L in (torch, mt):
        x = L.tensor([1 + 1j, 2 - 1j], requires_grad=True); y = L.tensor([0.5j], requires_grad=True)
        z = L.sub(x, y, alpha=2 - 1j)
        assert type(z.grad_fn).__name__ == 'SubBackward0'
        (z * L.tensor([1 - 1j, 2j])).real.sum().backward()
        res.append((x.grad, y.grad))
    for t, m in zip(*res): _cclose(t, m)


@pytest.mark.parametrize('case', [
    lambda L: L.rsub(L.tensor([-2147483647, 5, 1000000000], dtype=L.int32), 2.5, alpha=2),   # no int32 overflow in 2*x
    lambda L: L.sub(L.tensor([1.1, 2.3], dtype=L.float16), L.tensor(0.123456789, dtype=L.float64), alpha=2),  # b in half
    lambda L: L.add(L.tensor([100, 3], dtype=L.int8), L.tensor([1.5]), alpha=3)])
def test_add_alpha_product_in_result_dtype(case):
    "alpha * other is computed in the result dtype (the operands are cast first), as PyTorch's kernel."
    _same(*_both(case), exact=True)


@pytest.mark.parametrize('base', [0, 0j, 2., 'tensor'])
def test_pow_exponent_grad_at_zero_base_complex(base):
    "PyTorch zeroes the exponent's gradient where base == 0 and the exponent is real and >= 0, complex ones too."
    res = []
    for L in (torch, mt):
        x = L.tensor([1 + 0j, 2 + 1j, -1 + 0j, 0j], requires_grad=True)
        bb = L.tensor([0., 0., 1., 0.]) if base == 'tensor' else base
        ((bb ** x) * L.tensor([1 - 1j, 1, 1, 1])).real.sum().backward()
        res.append(x.grad)
    _cclose(*res)
