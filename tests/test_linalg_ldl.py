"linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch.linalg: pivots exactly, LD and solutions to rounding, errors."
import numpy as np
import pytest
import torch
import minitorch
import minitorch.linalg as mla

DT = [(torch.float64, minitorch.float64, 1e-10), (torch.float32, minitorch.float32, 1e-4),
      (torch.complex128, minitorch.complex128, 1e-10), (torch.complex64, minitorch.complex64, 1e-4)]

def _m(t): return minitorch.tensor(t.numpy())

def _sym(shape, seed, dtype, herm, zero_diag=False):
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(*shape, dtype=dtype, generator=g)
    a = a + (a.mH if herm else a.mT)
    if zero_diag: a = a - torch.diag_embed(torch.diagonal(a, dim1=-2, dim2=-1))   # forces 2x2 pivots
    return a

def _err(f):
    try: f()
    except Exception as e: return type(e), str(e)
    return None

@pytest.mark.parametrize('td,md,tol', DT)
@pytest.mark.parametrize('herm', [False, True])
@pytest.mark.parametrize('zero_diag', [False, True])
@pytest.mark.parametrize('n', [1, 2, 3, 7, 12])
def test_factor_matches_torch(td, md, tol, herm, zero_diag, n):
    for seed in range(4):
        a = _sym((2, n, n), seed + 10 * n, td, herm, zero_diag)
        if zero_diag and n == 1: continue
        ld, pv, info = torch.linalg.ldl_factor_ex(a, hermitian=herm)
        LD, piv, inf = mla.ldl_factor_ex(_m(a), hermitian=herm)
        assert piv.dtype == minitorch.int32 and LD.dtype == md and inf.shape == (2,)
        np.testing.assert_array_equal(piv.numpy(), pv.numpy())
        np.testing.assert_array_equal(inf.numpy(), info.numpy())
        torch.testing.assert_close(torch.from_numpy(LD.numpy()), ld, rtol=tol, atol=tol)

@pytest.mark.parametrize('td,md,tol', DT)
@pytest.mark.parametrize('herm', [False, True])
def test_solve_matches_torch_and_broadcasts(td, md, tol, herm):
    for n, zd in ((1, False), (4, False), (6, True), (9, True)):
        a = _sym((2, 1, n, n), n, td, herm, zd and n > 1)
        b = torch.randn(3, n, 2, dtype=td, generator=torch.Generator().manual_seed(n))
        ld, pv = torch.linalg.ldl_factor(a, hermitian=herm)
        X = mla.ldl_solve(_m(ld), _m(pv), _m(b), hermitian=herm)
        # torch 2.13 segfaults broadcasting LD (2, 1) against B (3,): its answer on the expanded inputs
        x = torch.linalg.ldl_solve(ld.expand(2, 3, n, n).contiguous(), pv.expand(2, 3, n).contiguous(),
                                   b.expand(2, 3, n, 2).contiguous(), hermitian=herm)
        assert X.shape == tuple(x.shape) and X.dtype == md
        torch.testing.assert_close(torch.from_numpy(X.numpy()), x, rtol=tol * 10, atol=tol * 10)
        X64 = mla.ldl_solve(_m(ld), _m(pv.long()), _m(b), hermitian=herm)
        torch.testing.assert_close(torch.from_numpy(X64.numpy()), x, rtol=tol * 10, atol=tol * 10)

def test_round_trip_solves_A():
    a = _sym((5, 5), 3, torch.float64, False, True)
    b = torch.randn(5, 3, dtype=torch.float64)
    LD, piv = mla.ldl_factor(_m(a))
    np.testing.assert_allclose(mla.ldl_solve(LD, piv, _m(b)).numpy(), torch.linalg.solve(a, b).numpy(), rtol=1e-9, atol=1e-9)

def test_singular_and_empty():
    for shape in [(3, 3), (2, 3, 3)]:
        z = torch.zeros(shape)
        assert _err(lambda: mla.ldl_factor(minitorch.zeros(*shape))) == _err(lambda: torch.linalg.ldl_factor(z))
        np.testing.assert_array_equal(mla.ldl_factor_ex(minitorch.zeros(*shape)).info.numpy(),
                                      torch.linalg.ldl_factor_ex(z).info.numpy())
    assert _err(lambda: mla.ldl_factor_ex(minitorch.zeros(2, 2, 2), check_errors=True)) == \
        _err(lambda: torch.linalg.ldl_factor_ex(torch.zeros(2, 2, 2), check_errors=True))
    for shape in [(0, 0), (2, 0, 0)]:
        LD, piv = mla.ldl_factor(minitorch.zeros(*shape))
        assert LD.shape == shape and piv.shape == shape[:-1]

@pytest.mark.parametrize('make', [
    lambda L: L.ldl_factor(L.zeros(3, 4)), lambda L: L.ldl_factor(L.zeros(3)),
    lambda L: L.ldl_factor(L.zeros(3, 3, dtype=L.int64)), lambda L: L.ldl_factor(L.zeros(3, 3, dtype=L.float16)),
    lambda L: L.ldl_solve(L.eye(3, dtype=L.float64), L.ones(3, dtype=L.int32), L.ones(3, 2)),
    lambda L: L.ldl_solve(L.eye(3), L.ones(3, dtype=L.int32), L.ones(3)),
    lambda L: L.ldl_solve(L.eye(3), L.ones(3, dtype=L.int32), L.ones(2, 2)),
    lambda L: L.ldl_solve(L.eye(3), L.ones(2, dtype=L.int32), L.ones(3, 2)),
    lambda L: L.ldl_solve(L.eye(3).expand(2, 3, 3), L.ones(3, dtype=L.int32), L.ones(3, 2)),
])
def test_errors_match_torch(make):
    class T:   # the same program against both libraries
        pass
    def ns(lib, la):
        o = T()
        for k in ('zeros', 'ones', 'eye', 'int64', 'int32', 'float16', 'float64'): setattr(o, k, getattr(lib, k))
        o.ldl_factor, o.ldl_solve = la.ldl_factor, la.ldl_solve
        return o
    em, et = _err(lambda: make(ns(minitorch, mla))), _err(lambda: make(ns(torch, torch.linalg)))
    assert et is not None and em == et

def test_no_gradient_like_torch():
    a = _sym((3, 3), 0, torch.float64, False)
    A = minitorch.tensor(a.numpy(), requires_grad=True)
    LD, piv = mla.ldl_factor(A)
    assert not LD.requires_grad

def test_cuda_input():
    a = _sym((4, 4), 1, torch.float64, False, True)
    LD, piv = mla.ldl_factor(minitorch.tensor(a.numpy(), device='cuda'))
    assert LD.device.type == 'cuda' and piv.device.type == 'cuda'
    np.testing.assert_array_equal(piv.cpu().numpy(), torch.linalg.ldl_factor(a).pivots.numpy())
