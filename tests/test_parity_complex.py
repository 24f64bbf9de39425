"Complex values and gradients against torch (issue 12): acosh's gradient branch, inf/NaN in complex matrix products."
import numpy as np
import pytest
import torch
import minitorch as mt


@pytest.mark.parametrize('dtype', ['complex64', 'complex128', 'float64'])
@pytest.mark.parametrize('op', ['acosh', 'arccosh', 'asinh', 'atanh', 'asin', 'acos', 'sqrt', 'rsqrt', 'log'])
def test_inverse_functions_grad(op, dtype):
    "PyTorch's complex acosh derivative is conj(rsqrt(z - 1) rsqrt(z + 1)) (the branch for Re z < 0), not rsqrt(z^2 - 1)."
    g = torch.Generator().manual_seed(0)
    z = torch.randn(64, generator=g, dtype=getattr(torch, dtype)) * 2
    w = torch.randn(64, generator=g, dtype=getattr(torch, dtype))
    zt = z.clone().requires_grad_()
    getattr(torch, op)(zt).backward(w)
    zm = mt.tensor(z.numpy()).requires_grad_()
    getattr(mt, op)(zm).backward(mt.tensor(w.numpy()))
    torch.testing.assert_close(torch.from_numpy(zm.grad.numpy()), zt.grad, equal_nan=True)


def _special(rng, shape):
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    for _ in range(int(rng.integers(1, 3))):
        x.reshape(-1)[rng.integers(0, x.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
    return x


def _layout(L, x, col):
    t = L.tensor(x)
    return t.T.contiguous().T if col else t


def _nan_inf(t):
    z = t.detach().numpy() if hasattr(t, 'detach') else t.numpy()
    return np.stack([np.isnan(z.real), np.isinf(z.real), np.isnan(z.imag), np.isinf(z.imag)])


@pytest.mark.parametrize('dtype', ['complex64', 'complex128'])
@pytest.mark.parametrize('seed', range(4))
def test_complex_mm_nan_inf_as_torch(dtype, seed):
    "Where inf and NaN land in a complex `mm`/`matmul` (its BLAS multiplies by alpha = 1 + 0i, layout- and size-"\
    "dependently), in `mv` (BLAS gemv), `bmm` and complex128 `dot` (plain sums of products). Not matched: complex64 "\
    "`dot` (MKL's cdotu makes NaN in a way not modelled here)."
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n, m, k = (int(v) for v in rng.integers(1, 8, 3))
        A, B = _special(rng, (n, k)), _special(rng, (k, m))
        ca, cb = bool(rng.integers(2)), bool(rng.integers(2))
        want, got = {}, {}
        for L, res in ((torch, want), (mt, got)):
            d = getattr(L, dtype)
            a, b = _layout(L, A, ca).to(d), _layout(L, B, cb).to(d)
            with np.errstate(all='ignore'):
                res['mm'] = _nan_inf(L.mm(a, b))
                res['mv'] = _nan_inf(L.mv(a, b[:, 0]))
                res['vm'] = _nan_inf(a[0] @ b)
                if dtype == 'complex128': res['dot'] = _nan_inf(L.dot(a[0], b[:, 0]))
                res['bmm'] = _nan_inf(L.bmm(a.unsqueeze(0), b.unsqueeze(0)))
        for key in want:
            assert np.array_equal(got[key], want[key]), (key, n, m, k, ca, cb)
