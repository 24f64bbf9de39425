"""Issue 12: `matrix_exp` replays PyTorch's `mexp` (Bader-Blanes-Casas Taylor polynomials of degree 1..18 picked
from the 1-norm with the float32 or float64 thresholds, scaling and squaring, a batch always at degree 18) in the
input's dtype, so float32 results carry PyTorch's truncation error, not a float64 one (seed 316488: a transposed
(3, 4, 4) float32 batch was 6e-5 off). Also the gradient (one more matrix_exp of a 2n x 2n block matrix), inf/NaN
inputs, the 16-bit path, and complex dot/vdot/mv/mm with inf and NaN (PyTorch's BLAS arithmetic)."""
import math
import os
import sys
import numpy as np
import pytest
import torch
import minitorch

DTYPES = [torch.float32, torch.complex64, torch.float64, torch.complex128]
# 1-norms on both sides of every threshold (float32: 1.2e-7, 6e-4, 0.051, 0.58, 1.46, 3.01; float64: 2e-16, 2.6e-8,
# 3.4e-4, 0.05, 0.3, 1.09), and large ones that need squarings
NORMS = [1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.45, 0.7, 1.0, 1.3, 2.0, 2.9, 3.5, 9.0, 40.0, 300.0]


def _mt(t):
    return minitorch.tensor(t.detach().numpy())


def _with_norms(norms, n, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(len(norms), n, n, dtype=dtype, generator=g)
    scale = torch.tensor(norms, dtype=torch.float64) / torch.linalg.matrix_norm(a.to(torch.complex128), 1)
    return (a * scale.to(a.real.dtype).reshape(-1, 1, 1)).to(dtype)


def _close(got, want, **kw):
    torch.testing.assert_close(torch.from_numpy(np.array(got.numpy())), want.detach(), equal_nan=True, **kw)


sys.path.insert(0, os.path.dirname(__file__))
import opinfo  # noqa: E402


@pytest.mark.parametrize('seed', [316488])
def test_matrix_exp_opinfo_seed_agrees(seed):
    # X = float32 transposed (3, 4, 4) | matrix_exp(X): was 6e-5 relative off (a float64 Taylor series)
    assert opinfo.run_program(opinfo.draw_program(seed, cuda_p=0.02)) == []   # (opinfo_report.py's draw)


def test_matrix_exp_transposed_float32_batch():
    g = torch.Generator().manual_seed(316488)
    for _ in range(20):
        x = (torch.randn(3, 4, 4, generator=g) * 1.5).mT          # transposed layout, norms around the T18 range
        _close(minitorch.linalg.matrix_exp(_mt(x).mT.contiguous().mT), torch.linalg.matrix_exp(x))
        _close(minitorch.matrix_exp(_mt(x)), torch.matrix_exp(x))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n', [2, 3, 4, 6])
def test_matrix_exp_one_matrix_each_degree(dtype, n):
    # one matrix: the degree comes from its norm (batches of one, so each takes its own degree)
    a = _with_norms(NORMS, n, dtype, seed=n)
    for i in range(len(NORMS)):
        _close(minitorch.linalg.matrix_exp(_mt(a[i])), torch.linalg.matrix_exp(a[i]))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n', [2, 4, 8])
def test_matrix_exp_batch_mixing_norms(dtype, n):
    # a batch: every matrix by degree 18 with its own number of squarings
    a = _with_norms(NORMS, n, dtype, seed=10 + n)
    _close(minitorch.linalg.matrix_exp(_mt(a)), torch.linalg.matrix_exp(a))
    b = a.reshape(3, 5, n, n)
    _close(minitorch.linalg.matrix_exp(_mt(b)), torch.linalg.matrix_exp(b))


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.complex64])
def test_matrix_exp_float32_bits_like_torch(dtype):
    # small matrices: PyTorch's own bmm loop, replayed in its dtype, gives its bits
    a = _with_norms(NORMS, 4, dtype, seed=7)
    want = torch.linalg.matrix_exp(a).numpy()
    assert np.array_equal(minitorch.linalg.matrix_exp(_mt(a)).numpy(), want, equal_nan=True)
    for i in range(len(NORMS)):
        assert np.array_equal(minitorch.linalg.matrix_exp(_mt(a[i])).numpy(), torch.linalg.matrix_exp(a[i]).numpy(),
                              equal_nan=True)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(1, 3, 3), (3, 3, 3), (4, 4)])
def test_matrix_exp_grad_like_torch(dtype, shape):
    g = torch.Generator().manual_seed(sum(shape))
    x = (torch.randn(*shape, dtype=dtype, generator=g) * 0.8).requires_grad_()
    w = torch.randn(*shape, dtype=dtype, generator=g)
    y = torch.linalg.matrix_exp(x)
    (gx,) = torch.autograd.grad(y, x, w)
    mx = _mt(x).requires_grad_()
    my = minitorch.linalg.matrix_exp(mx)
    my.backward(_mt(w))
    _close(my.detach(), y)
    _close(mx.grad, gx)


@pytest.mark.parametrize('dtype', [torch.float32, torch.complex64, torch.float64])
def test_matrix_exp_inf_nan_like_torch(dtype):
    g = torch.Generator().manual_seed(3)
    a = torch.randn(4, 3, 3, dtype=dtype, generator=g)
    a[1, 0, 1], a[2, 2, 2], a[3] = math.inf, math.nan, a[3] * 20   # an inf norm takes the largest finite squarings
    _close(minitorch.linalg.matrix_exp(_mt(a)), torch.linalg.matrix_exp(a))
    for v in (math.inf, -math.inf, math.nan):
        b = torch.randn(1, 3, 3, dtype=dtype, generator=g)
        b[0, 1, 0] = v
        _close(minitorch.linalg.matrix_exp(_mt(b)), torch.linalg.matrix_exp(b))


@pytest.mark.parametrize('dtype', DTYPES)
def test_matrix_exp_trivial_sizes(dtype):
    x = torch.randn(5, 1, 1, dtype=dtype) * 4
    _close(minitorch.linalg.matrix_exp(_mt(x)), torch.linalg.matrix_exp(x))
    e = torch.zeros(2, 0, 0, dtype=dtype)
    assert minitorch.linalg.matrix_exp(_mt(e)).shape == (2, 0, 0)


@pytest.mark.parametrize('dtype', [torch.float16, torch.bfloat16])
def test_matrix_exp_16bit_still_like_torch(dtype):
    for b, norms in ((1, [1e-4]), (1, [0.2]), (1, [0.9]), (1, [5.0]), (3, [0.01, 1.0, 20.0])):
        a = _with_norms(norms, 3, torch.float32, seed=b).to(dtype)
        want = torch.linalg.matrix_exp(a)
        got = minitorch.linalg.matrix_exp(minitorch.tensor(a.float().numpy()).to(getattr(minitorch, str(dtype)[6:])))
        assert np.array_equal(got.float().numpy(), want.float().numpy(), equal_nan=True), (dtype, norms)


# ---- complex dot / vdot with inf and NaN: MKL's cdotu/cdotc (complex64) adds x * 0 to some terms' imaginary part

_SPECIAL = np.array([0., 1.5, -2., math.inf, -math.inf, math.nan, 0.25, 3.], np.float32)


def _cvec(rng, n, stride, dtype):
    parts = [np.where(rng.random(n) < 0.25, rng.choice(_SPECIAL, n), rng.choice(_SPECIAL[[0, 1, 2, 6, 7]], n))
             for _ in range(2)]
    base = np.zeros(n * stride, dtype)
    base.real[::stride], base.imag[::stride] = parts
    return torch.from_numpy(base)[::stride], minitorch.tensor(base)[::stride]


def _same_c(got, want):
    g, w = complex(got.item()), complex(want.item())
    for u, v in ((g.real, w.real), (g.imag, w.imag)):
        assert (math.isnan(u) and math.isnan(v)) or u == v or abs(u - v) <= 1e-5 * max(abs(v), 1), (g, w)


@pytest.mark.parametrize('dtype', [np.complex64, np.complex128])
@pytest.mark.parametrize('strides', [(1, 1), (2, 1), (1, 3)])
@pytest.mark.parametrize('fn', ['dot', 'vdot', 'dot_conj_x', 'dot_conj_y', 'vdot_conj_x', 'matmul'])
def test_complex_dot_inf_nan_like_torch(dtype, strides, fn):
    rng = np.random.default_rng(hash((fn, strides, np.dtype(dtype).name)) % 2**32)
    calls = {'dot': lambda L, x, y: L.dot(x, y), 'vdot': lambda L, x, y: L.vdot(x, y),
             'dot_conj_x': lambda L, x, y: L.dot(x.conj(), y), 'dot_conj_y': lambda L, x, y: L.dot(x, y.conj()),
             'vdot_conj_x': lambda L, x, y: L.vdot(x.conj(), y), 'matmul': lambda L, x, y: L.matmul(x, y)}
    for n in list(range(1, 10)) * 12:
        tx, mx = _cvec(rng, n, strides[0], dtype)
        ty, my = _cvec(rng, n, strides[1], dtype)
        _same_c(calls[fn](minitorch, mx, my), calls[fn](torch, tx, ty))


def test_complex64_dot_odd_tail_nan():
    # [inf + 0.5j] . [1.5 + 0.75j]: naive arithmetic gives inf + inf j, MKL's single-term path inf + nan j
    x = torch.tensor([1 + 1j, 2 - 1j, math.inf + 0.5j], dtype=torch.complex64)
    y = torch.tensor([1 + 1j, 1 + 0j, 1.5 + 0.75j], dtype=torch.complex64)
    for f in (torch.dot, torch.vdot):
        for a, b in ((x, y), (y, x), (x[2:], y[2:])):
            _same_c(getattr(minitorch, f.__name__)(_mt(a), _mt(b)), f(a, b))


# ---- complex mv with inf and NaN: gemv's alpha lands on the vector for a column-major matrix (any row count),
# and mv's gradients are PyTorch's formulas (an outer product of plain products; mv of the conjugate transpose)

def _cmat(rng, shape, p=0.2):
    n = int(np.prod(shape))
    z = np.empty(n, np.complex64)
    for part in ('real', 'imag'):
        setattr(z, part, np.where(rng.random(n) < p, rng.choice(_SPECIAL, n), rng.choice(_SPECIAL[[0, 1, 2, 6, 7]], n)))
    return z.reshape(shape)


def _nan_pattern(a):
    a = np.asarray(a)
    return [np.isnan(a.real), np.sign(np.where(np.isinf(a.real), a.real, 0)),
            np.isnan(a.imag), np.sign(np.where(np.isinf(a.imag), a.imag, 0))]


def _same_pattern(got, want):
    for u, v in zip(_nan_pattern(got), _nan_pattern(want)):
        assert np.array_equal(u, v), (got, want)


@pytest.mark.parametrize('layout', ['contiguous', 'transposed', 'row_of_column', 'conj_transposed'])
def test_complex_mv_inf_nan_like_torch(layout):
    rng = np.random.default_rng(['contiguous', 'transposed', 'row_of_column', 'conj_transposed'].index(layout))
    for _ in range(150):
        n, k = (1, int(rng.integers(1, 5))) if layout == 'row_of_column' else tuple(rng.integers(1, 5, 2))
        a, v = _cmat(rng, (n, k)), _cmat(rng, (k,))
        if layout == 'contiguous':
            ta, ma = torch.from_numpy(a), minitorch.tensor(a)
        elif layout == 'conj_transposed':
            ta, ma = torch.from_numpy(a.T.conj().copy()).t().conj(), minitorch.tensor(a.T.conj().copy()).mT.conj()
        else:   # a column-major matrix; one row of it: strides (1, 1)
            ta, ma = torch.from_numpy(a.T.copy()).t(), minitorch.tensor(a.T.copy()).mT
        _same_pattern(minitorch.mv(ma, minitorch.tensor(v)).numpy(), torch.mv(ta, torch.from_numpy(v)).numpy())


def test_complex_mv_grad_inf_nan_like_torch():
    rng = np.random.default_rng(5)
    for _ in range(300):
        n, m = rng.integers(1, 5, 2)
        a, v, g = _cmat(rng, (n, m)), _cmat(rng, (m,)), _cmat(rng, (n,), 0.1)
        ta, tv = torch.from_numpy(a).requires_grad_(), torch.from_numpy(v).requires_grad_()
        torch.mv(ta, tv).backward(torch.from_numpy(g))
        ma, mv_ = minitorch.tensor(a).requires_grad_(), minitorch.tensor(v).requires_grad_()
        minitorch.mv(ma, mv_).backward(minitorch.tensor(g))
        _same_pattern(ma.grad.numpy(), ta.grad.numpy())
        _same_pattern(mv_.grad.numpy(), tv.grad.numpy())
        finite = np.isfinite(ta.grad.numpy())
        np.testing.assert_allclose(ma.grad.numpy()[finite], ta.grad.numpy()[finite], rtol=1e-6)
