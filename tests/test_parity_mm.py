"Parity with torch for matmul-like ops, linalg and complex arithmetic (issue 12)."
import itertools
import zlib

import numpy as np
import pytest
import torch

import minitorch

_DT = {torch.float16: minitorch.float16, torch.bfloat16: minitorch.bfloat16}


def _mt(t: torch.Tensor) -> minitorch.Tensor:
    "A minitorch copy of torch tensor `t` (16-bit types through float32, exact)."
    if t.dtype in _DT: return minitorch.tensor(t.float().numpy()).to(_DT[t.dtype])
    return minitorch.tensor(t.detach().numpy())


def _np(x) -> np.ndarray:
    return (x.float() if x.dtype in (minitorch.float16, minitorch.bfloat16, torch.float16, torch.bfloat16) else x).detach().numpy()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("scale", [1e-9, 1e-5, 1e-3, 0.1, 0.4, 1.0, 5.0])
@pytest.mark.parametrize("shape", [(2, 2), (3, 3), (1, 4, 4), (3, 3, 3)])
def test_matrix_exp_16bit_follows_torch(dtype, scale, shape):
    "torch computes 16-bit matrix_exp in the 16-bit type (overflow, inf and NaN included): same values and NaNs."
    g = torch.Generator().manual_seed(zlib.crc32(repr((dtype, scale, shape)).encode()))
    a = (torch.randn(shape, generator=g) * scale).to(dtype)
    want = torch.linalg.matrix_exp(a)
    got = minitorch.linalg.matrix_exp(_mt(a))
    assert got.dtype == _DT[dtype]
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-2, atol=1e-3, equal_nan=True)


def test_matrix_exp_16bit_trivial_sizes():
    for n in (0, 1):
        a = torch.randn(2, n, n).half()
        np.testing.assert_allclose(_np(minitorch.linalg.matrix_exp(_mt(a))), _np(torch.linalg.matrix_exp(a)), rtol=1e-3)


def _layout(t: torch.Tensor, transposed: bool) -> torch.Tensor:
    return t.mT.contiguous().mT if transposed else t.contiguous()


def _mt_like(t: torch.Tensor) -> minitorch.Tensor:
    "A minitorch tensor with `t`'s values and (for a transposed layout) its column-major strides."
    if t.dim() == 2 and t.stride(0) == 1 and t.size(0) > 1: return _mt(t.mT.contiguous()).mT
    return _mt(t.contiguous())


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("nkm", [(3, 2, 1), (3, 1, 2), (1, 3, 2), (2, 2, 2), (4, 4, 4)])
def test_mm_complex_grad_nan_placement(ta, tb, nkm):
    "mm's backward: a column-major operand gets (conj(other) @ grad^T)^T, as torch (NaN placement of inf products)."
    n, k, m = nkm
    g = torch.Generator().manual_seed(zlib.crc32(repr((ta, tb, nkm)).encode()))
    for trial in range(4):
        a = torch.randn(n, k, dtype=torch.complex64, generator=g)
        b = torch.randn(k, m, dtype=torch.complex64, generator=g)
        gr = torch.randn(n, m, dtype=torch.complex64, generator=g)
        gr.view(-1)[trial % gr.numel()] = complex(float('inf'), 0) if trial % 2 else complex(0, float('-inf'))
        a, b = _layout(a, ta), _layout(b, tb)
        at, bt = a.clone().mT.contiguous().mT if ta else a.clone(), b.clone().mT.contiguous().mT if tb else b.clone()
        at.requires_grad_(); bt.requires_grad_()
        torch.mm(at, bt).backward(gr)
        am, bm = _mt_like(a).requires_grad_(), _mt_like(b).requires_grad_()
        minitorch.mm(am, bm).backward(_mt(gr))
        for got, want in ((am.grad, at.grad), (bm.grad, bt.grad)):
            w, x = want.numpy(), got.numpy()
            np.testing.assert_array_equal(np.isnan(x.real), np.isnan(w.real))
            np.testing.assert_array_equal(np.isnan(x.imag), np.isnan(w.imag))
            np.testing.assert_allclose(np.nan_to_num(x), np.nan_to_num(w), rtol=1e-5, atol=1e-5)


def _conj_view(t: torch.Tensor, conj: bool, col: bool):
    "torch and minitorch tensors with `t`'s values, column-major or not, as lazy conj views or not."
    base = t.conj().resolve_conj() if conj else t
    tt = _layout(base, col)
    mt = _mt_like(tt)
    return (tt.conj(), mt.conj()) if conj else (tt, mt)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("nkm", [(2, 2, 2), (3, 2, 4), (2, 3, 1), (1, 3, 2), (3, 1, 2)])
def test_mm_complex_conj_views_inf_placement(nkm, dtype):
    "torch's BLAS call takes a conj view as 'C' where it would be 'T' (which moves alpha's NaN); a plain product else."
    n, k, m = nkm
    inf = float('inf')
    for ca, cb, cola, colb, pos in itertools.product((0, 1), (0, 1), (0, 1), (0, 1), 'ab'):
        g = torch.Generator().manual_seed(7)
        a = torch.randn(n, k, dtype=dtype, generator=g)
        b = torch.randn(k, m, dtype=dtype, generator=g)
        (a if pos == 'a' else b)[0, 0] = complex(inf, 0)
        (at, am), (bt, bm) = _conj_view(a, ca, cola), _conj_view(b, cb, colb)
        assert minitorch.is_conj(am) == bool(ca)
        want, got = torch.mm(at, bt).numpy(), minitorch.mm(am, bm).numpy()
        ctx = (ca, cb, cola, colb, pos)
        np.testing.assert_array_equal(np.isnan(got.real), np.isnan(want.real), err_msg=str(ctx))
        np.testing.assert_array_equal(np.isnan(got.imag), np.isnan(want.imag), err_msg=str(ctx))
        np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=1e-5, atol=1e-5, err_msg=str(ctx))


def _has_cuda() -> bool:
    import minitorch.cuda as mcuda
    return mcuda.is_available() or mcuda.is_simulator()


@pytest.mark.skipif(not _has_cuda(), reason="no CUDA device and the simulator is off")
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_cuda_complex_products_follow_torch_cpu_arithmetic(dtype):
    "minitorch's cuda device gives torch's (cpu) NaN placement for complex products with inf: mm, tensordot, baddbmm."
    g = torch.Generator().manual_seed(3)
    inf = float('inf')
    for trial in range(6):
        x = torch.randn(1, 4, 3, dtype=dtype, generator=g)
        a = torch.randn(1, 4, 2, dtype=dtype, generator=g)
        b = torch.randn(1, 2, 3, dtype=dtype, generator=g)
        (a if trial % 2 else b).view(-1)[trial] = complex(-inf, 0) if trial % 3 else complex(0, inf)
        cu = lambda t: _mt(t).to('cuda')
        cases = [(torch.baddbmm(x, a, b), minitorch.baddbmm(cu(x), cu(a), cu(b))),
                 (torch.baddbmm(x, a, b, beta=0.5, alpha=2.0), minitorch.baddbmm(cu(x), cu(a), cu(b), beta=0.5, alpha=2.0)),
                 (torch.mm(a[0], b[0]), minitorch.mm(cu(a[0]), cu(b[0]))),
                 (torch.tensordot(a[0], b[0], dims=1), minitorch.tensordot(cu(a[0]), cu(b[0]), dims=1))]
        for want, got in cases:
            assert got.device.type == 'cuda'
            w, x_ = want.numpy(), got.cpu().numpy()
            np.testing.assert_array_equal(np.isnan(x_.real), np.isnan(w.real))
            np.testing.assert_array_equal(np.isnan(x_.imag), np.isnan(w.imag))
            np.testing.assert_allclose(np.nan_to_num(x_), np.nan_to_num(w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("nkm", [(2, 2, 3), (5, 2, 3), (3, 1, 2), (1, 3, 2), (2, 3, 1), (4, 4, 4), (2, 5, 5), (1, 1, 1),
                                 (2, 0, 3)])
def test_addmm_complex_beta_alpha_inf_placement(dtype, nkm):
    "complex addmm with an infinity: BLAS's alpha/beta arithmetic (NaN placement) as torch's, for any beta and alpha."
    n, k, m = nkm
    inf = float('inf')
    for where_inf, ta, tb, xshape, val, (beta, alpha) in itertools.product(
            'xab', (0, 1), (0, 1), ((n, m), (1, m), ()), (complex(inf, 0), complex(0, -inf), complex(-inf, 1)),
            ((0.5, 2), (1, 2), (0.5, 1), (1, 1), (0, 2))):
        g = torch.Generator().manual_seed(1)
        x = torch.randn(xshape, dtype=dtype, generator=g)
        a, b = torch.randn(n, k, dtype=dtype, generator=g), torch.randn(k, m, dtype=dtype, generator=g)
        t = {'x': x, 'a': a, 'b': b}[where_inf]
        if t.numel(): t.view(-1)[0] = val
        a, b = _layout(a, ta), _layout(b, tb)
        want = torch.addmm(x, a, b, beta=beta, alpha=alpha).numpy()
        got = minitorch.addmm(_mt(x), _mt_like(a), _mt_like(b), beta=beta, alpha=alpha).numpy()
        ctx = str((where_inf, ta, tb, xshape, val, beta, alpha))
        np.testing.assert_array_equal(np.isnan(got.real), np.isnan(want.real), err_msg=ctx)
        np.testing.assert_array_equal(np.isnan(got.imag), np.isnan(want.imag), err_msg=ctx)
        np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=1e-4, atol=1e-4, err_msg=ctx)
