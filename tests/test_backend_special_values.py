"Backend kernels at special values (NaN/inf parts, underflow, overflowing quotients, 16-bit rounding) against torch."
import math

import numpy as np
import pytest
import torch

import minitorch as mt
from minitorch.backends import NumpyBackend, available_backends

inf, nan = math.inf, math.nan


def _backends():
    out = [NumpyBackend()]
    if 'numba' in available_backends():
        from minitorch.numba_backend import NumbaBackend
        out.append(NumbaBackend(min_work={}))   # kernels even for tiny tensors
    return out


BACKENDS = _backends()
IDS = [type(b).__name__ for b in BACKENDS]
TD = {mt.float16: torch.float16, mt.bfloat16: torch.bfloat16, mt.float32: torch.float32, mt.float64: torch.float64,
      mt.complex64: torch.complex64, mt.complex128: torch.complex128}


def _pair(vals, d):
    return mt.tensor(vals, dtype=d), torch.tensor(vals, dtype=TD[d])


def _np(data, d):
    "numpy values of backend output `data` (16-bit floats as float32, exactly)."
    t = mt.zeros(1, dtype=d)
    t._data = data
    return t.float().numpy() if d in (mt.float16, mt.bfloat16) else t.numpy()


def _map(b, op, vals, d):
    return torch.tensor(_np(b.map(op, mt.tensor(vals, dtype=d)._data, d), d)).to(TD[d])


def _zip(b, op, av, bv, d):
    x, y = mt.tensor(av, dtype=d), mt.tensor(bv, dtype=d)
    return torch.tensor(_np(b.zip(op, x._data, y._data, d), d)).to(TD[d])


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.float32, mt.float64, mt.bfloat16, mt.float16])
def test_sigmoid_underflows_like_torch(b, d):
    vals = [-100., -88., -20., -1., 0., 1., 20., 100., -inf, inf]
    torch.testing.assert_close(_map(b, 'sigmoid', vals, d), torch.sigmoid(torch.tensor(vals, dtype=TD[d])),
                               equal_nan=True)
    if d is not mt.float64: assert _map(b, 'sigmoid', [-100.], d).item() == 0.0


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.complex64, mt.complex128])
def test_complex_sigmoid_kernel(b, d):
    vals = [1 + 2j, -3 + 0.5j, 0j, 10 - 10j]
    torch.testing.assert_close(_map(b, 'sigmoid', vals, d), torch.sigmoid(torch.tensor(vals, dtype=TD[d])))


def test_sigmoid_frontend():
    assert mt.sigmoid(mt.tensor([-100.])).item() == torch.sigmoid(torch.tensor([-100.])).item() == 0.0


@pytest.mark.parametrize('d', [mt.float32, mt.float64])
def test_erf_zero_dim(d):
    r = NumpyBackend().map('erf', mt.tensor(0.5, dtype=d)._data, d)
    assert isinstance(r.storage, np.ndarray)
    assert mt.tensor(0.5, dtype=d).erf().item() == pytest.approx(math.erf(0.5), rel=1e-6)


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.bfloat16, mt.float16])
def test_erf_16bit_like_torch(b, d):
    g = np.random.default_rng(0)
    vals = [1.2e-38, 1e-10, 1e-5, 1e-3, -1e-3, 0., -0.] + list(g.standard_normal(2000) * 2) + [3., 5., -5.]
    if d is mt.float16: vals = [v for v in vals if v == 0 or abs(v) > 1e-7]
    got = _map(b, 'erf', vals, d)
    want = torch.erf(torch.tensor(vals, dtype=TD[d]))
    assert got[0].item() == want[0].item()
    close = (got.float() - want.float()).abs() <= torch.finfo(TD[d]).eps * want.float().abs()
    assert close.float().mean() > 0.99   # the float32 polynomial without fma: at most one 16-bit ulp, rarely
    torch.testing.assert_close(got, want, atol=torch.finfo(TD[d]).eps, rtol=0)


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.complex64, mt.complex128])
@pytest.mark.parametrize('op', ['add', 'sub'])
def test_complex_add_sub_nan_inf_parts(b, d, op):
    other = [complex(nan, 1.5), complex(inf, 0), complex(0, inf), complex(inf, inf), complex(1.5, nan), 2 - 3j]
    a = [1 + 1j] * len(other)
    tf = torch.add if op == 'add' else torch.sub
    want = tf(torch.tensor(a, dtype=TD[d]), torch.tensor(other, dtype=TD[d]))
    torch.testing.assert_close(_zip(b, op, a, other, d), want, equal_nan=True)


def test_complex_add_frontend():
    x = mt.tensor([1 + 1j]) + mt.tensor([complex(nan, 1.5)])
    assert math.isnan(x.real.item()) and math.isnan(x.imag.item())


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.complex64, mt.complex128])
def test_complex_reciprocal_of_zero(b, d):
    vals = [0j, complex(0, -0.0), 2j, 3 + 4j]
    torch.testing.assert_close(_map(b, 'reciprocal', vals, d), torch.tensor(vals, dtype=TD[d]).reciprocal(),
                               equal_nan=True)
    r = _map(b, 'reciprocal', [0j], d)
    assert r.real.item() == inf and math.isnan(r.imag.item())


@pytest.mark.parametrize('d', [mt.complex64, mt.complex128])
def test_complex_exp_of_inf(d):
    vals = [complex(inf, 0)]
    torch.testing.assert_close(_map(NumpyBackend(), 'exp', vals, d), torch.tensor(vals, dtype=TD[d]).exp())


@pytest.mark.xfail(strict=True, reason="torch gives NaN only on its vectorised path (2 x SIMD width contiguous "
                   "elements), the exact fmod on the scalar tail: no size-independent rule to copy")
@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('op', ['remainder', 'fmod'])
@pytest.mark.parametrize('d', [mt.float32, mt.float64])
def test_remainder_fmod_overflowing_quotient(b, op, d):
    # torch's vectorised kernel (the path every tensor of 16+ elements takes): NaN where a/b overflows
    big, tiny = (8.98e307, 2.2e-308) if d is mt.float64 else (3e38, 1e-38)
    av = [big] * 16 + [7.5, -7.5, 1e300 if d is mt.float64 else 1e30]
    bv = [tiny] * 16 + [2., 2., 1e-5]
    tf = getattr(torch, op)
    want = tf(torch.tensor(av, dtype=TD[d]), torch.tensor(bv, dtype=TD[d]))
    got = _zip(b, op, av, bv, d)
    assert torch.isnan(want[:16]).all()
    torch.testing.assert_close(got, want, equal_nan=True)


@pytest.mark.parametrize('b', BACKENDS, ids=IDS)
@pytest.mark.parametrize('d', [mt.float16, mt.bfloat16])
def test_floor_divide_16bit_rounds_each_step(b, d):
    g = np.random.default_rng(1)
    a = (g.standard_normal(20000) * 100).tolist() + [1., -1., 0., -0., 5.]
    c = (g.standard_normal(20000)).tolist() + [0., 0., 3., 3., -0.]
    ta, tb = torch.tensor(a, dtype=TD[d]), torch.tensor(c, dtype=TD[d])
    want = torch.floor_divide(ta, tb)
    got = _zip(b, 'floor_divide', a, c, d)
    torch.testing.assert_close(got, want, atol=0, rtol=0, equal_nan=True)
    # frontend too
    got2 = torch.tensor(mt.floor_divide(mt.tensor(a, dtype=d), mt.tensor(c, dtype=d)).float().numpy()).to(TD[d])
    torch.testing.assert_close(got2, want, atol=0, rtol=0, equal_nan=True)
