"minitorch.linalg against torch.linalg: values (four dtypes, batched, non-contiguous), errors, gradients."
import math
import numpy as np
import pytest
import torch
import minitorch
import minitorch.linalg as mla
from minitorch.autograd import gradcheck, gradgradcheck

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]
TOL = {torch.float32: 1e-4, torch.complex64: 1e-4, torch.float64: 1e-10, torch.complex128: 1e-10}


def M(t, requires_grad=False):
    "torch → minitorch (keeps strides' values, not the layout)."
    return minitorch.tensor(t.detach().resolve_conj().resolve_neg().numpy(), requires_grad=requires_grad)


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if isinstance(a, minitorch.Tensor) else a
    b = b.detach().resolve_conj().resolve_neg().numpy() if isinstance(b, torch.Tensor) else b
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


def spd(*shape, dtype=torch.float64, seed=0):
    a = rand(*shape, dtype=dtype, seed=seed)
    return a @ a.mH + shape[-1] * torch.eye(shape[-1], dtype=dtype)


def noncontig(t):
    "A non-contiguous minitorch view with the same values as `t` (a transposed copy, transposed back)."
    m = minitorch.tensor(t.mT.contiguous().numpy()).mT
    assert not m.is_contiguous()
    return m


# ---------------------------------------------------------------- values
@pytest.mark.parametrize("dtype", DTYPES)
def test_det_slogdet_inv_values(dtype):
    a = rand(2, 3, 4, 4, dtype=dtype)
    A = noncontig(a)
    tol = TOL[dtype]
    close(mla.det(A), torch.linalg.det(a), tol * 10)
    s, l = mla.slogdet(A)
    st, lt = torch.linalg.slogdet(a)
    close(s, st, tol * 10); close(l, lt, tol * 10)
    assert l.dtype == M(lt).dtype and s.dtype == M(st).dtype
    close(mla.inv(A), torch.linalg.inv(a), tol * 10)
    X, info = mla.inv_ex(A)
    assert info.dtype == minitorch.int32 and info.tolist() == [[0] * 3] * 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_values(dtype):
    a, b = rand(5, 1, 3, 3, dtype=dtype), rand(2, 3, 4, dtype=dtype, seed=1)
    tol = TOL[dtype] * 10
    close(mla.solve(noncontig(a), M(b)), torch.linalg.solve(a, b), tol)          # broadcast (5,1) with (2,)
    close(mla.solve(M(a), M(b[0].mT), left=False), torch.linalg.solve(a, b[0].mT, left=False), tol)
    v = rand(3, dtype=dtype, seed=2)
    close(mla.solve(M(a), M(v)), torch.linalg.solve(a, v), tol)                 # 1-D B
    bv = rand(5, 1, 3, dtype=dtype, seed=3)                                      # B.shape == A.shape[:-1]
    close(mla.solve(M(a), M(bv)), torch.linalg.solve(a, bv), tol)
    r, info = mla.solve_ex(M(a), M(b))
    assert r.shape == tuple(torch.linalg.solve(a, b).shape)
    for upper in (True, False):
        for unit in (True, False):
            for left in (True, False):
                t = (a + 3 * torch.eye(3, dtype=dtype))
                bb = b if left else b.mT
                close(mla.solve_triangular(M(t), M(bb), upper=upper, left=left, unitriangular=unit),
                      torch.linalg.solve_triangular(t, bb, upper=upper, left=left, unitriangular=unit), tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_qr_values(dtype):
    a = spd(3, 4, 4, dtype=dtype)
    tol = TOL[dtype] * 10
    close(mla.cholesky(noncontig(a)), torch.linalg.cholesky(a), tol)
    close(mla.cholesky(M(a), upper=True), torch.linalg.cholesky(a, upper=True), tol)
    L, info = mla.cholesky_ex(M(a))
    assert info.tolist() == [0, 0, 0]
    for shape in [(2, 5, 3), (2, 3, 3), (2, 3, 5)]:
        x = rand(*shape, dtype=dtype)
        for mode in ('reduced', 'complete', 'r'):
            q, r = mla.qr(noncontig(x), mode)
            qt, rt = torch.linalg.qr(x, mode)
            close(r, rt, tol)
            if mode != 'r': close(q, qt, tol)
            else: assert q.numel() == 0
        g, t = mla.geqrf(noncontig(x))
        gt, tt = torch.geqrf(x)
        close(g, gt, tol); close(t, tt, tol)
        if shape[1] >= shape[2]:
            close(mla.householder_product(g, t), torch.linalg.householder_product(gt, tt), tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_values(dtype):
    a = rand(3, 5, 5, dtype=dtype)
    tol = TOL[dtype] * 10
    for uplo in ('L', 'U'):
        w, v = mla.eigh(noncontig(a), UPLO=uplo)
        wt, vt = torch.linalg.eigh(a, UPLO=uplo)
        close(w, wt, tol)
        assert w.dtype == M(wt).dtype
        # eigenvectors are defined up to a phase: compare |<v_i, v_t,i>| = 1 and the projection V diag(w) V^H
        close(np.abs((v.mH @ M(vt)).numpy()).max(-2), np.ones((3, 5)), tol)
        close(mla.eigvalsh(M(a), UPLO=uplo), wt, tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_large_uses_tridiagonal_ql(dtype):
    a = rand(2, 40, 40, dtype=dtype)
    tol = TOL[dtype] * 100
    w, v = mla.eigh(M(a))
    wt, vt = torch.linalg.eigh(a)
    close(w, wt, tol)
    close(np.abs((v.mH @ M(vt)).numpy()).max(-2), np.ones((2, 40)), tol)
    h = (a + a.mH) / 2
    close((v * w.unsqueeze(-2).to(v.dtype)) @ v.mH, torch.tril(a) + torch.tril(a, -1).mH - torch.diag_embed(torch.diagonal(a, 0, -2, -1).imag * 1j if dtype.is_complex else torch.zeros(2, 40, dtype=dtype)), tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 4, 4), (2, 3, 5), (2, 50, 40), (2, 30, 45)])
def test_svd_values(dtype, shape):
    a = rand(*shape, dtype=dtype)
    tol = TOL[dtype] * 10
    k = min(shape[1:])
    for full in (True, False):
        U, S, Vh = mla.svd(noncontig(a), full_matrices=full)
        Ut, St, Vht = torch.linalg.svd(a, full_matrices=full)
        assert U.shape == tuple(Ut.shape) and Vh.shape == tuple(Vht.shape) and S.dtype == M(St).dtype
        close(S, St, tol)
        close((U[..., :k] * S.unsqueeze(-2).to(U.dtype)) @ Vh[..., :k, :], a, tol)
        eye_u = np.broadcast_to(np.eye(U.shape[-1]), (2, U.shape[-1], U.shape[-1]))
        close((U.mH @ U).numpy(), eye_u, tol)
        eye_v = np.broadcast_to(np.eye(Vh.shape[-2]), (2, Vh.shape[-2], Vh.shape[-2]))
        close((Vh @ Vh.mH).numpy(), eye_v, tol)
    close(mla.svdvals(M(a)), torch.linalg.svdvals(a), tol)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_svd_rank_deficient_and_zero(dtype):
    low = rand(40, 5, dtype=dtype) @ rand(5, 30, dtype=dtype, seed=1)      # rank 5, n = 30 > 16
    for a in (low, torch.zeros(40, 30, dtype=dtype), torch.zeros(20, 20, dtype=dtype)):
        U, S, Vh = mla.svd(M(a))
        close(S, torch.linalg.svdvals(a), 1e-9)
        close(U.mH @ U, np.eye(U.shape[-1]), 1e-9); close(Vh @ Vh.mH, np.eye(Vh.shape[-1]), 1e-9)
        k = min(a.shape)
        close((U[:, :k] * S.to(U.dtype)) @ Vh[:k], a, 1e-9)
    assert mla.matrix_rank(M(low)).item() == 5


@pytest.mark.parametrize("dtype", DTYPES)
def test_lstsq_pinv_rank_values(dtype):
    a, b = rand(2, 6, 3, dtype=dtype), rand(2, 6, 2, dtype=dtype, seed=1)
    tol = TOL[dtype] * 100
    sol = mla.lstsq(M(a), M(b))
    st = torch.linalg.lstsq(a, b)
    close(sol.solution, st.solution, tol)
    assert sol.rank.tolist() == st.rank.tolist() and sol.residuals.numel() == 0
    for drv in ('gelsd', 'gelss', 'gels'):
        s1, s2 = mla.lstsq(M(a), M(b), driver=drv), torch.linalg.lstsq(a, b, driver=drv)
        for x, y in zip(s1, s2):
            assert tuple(x.shape) == tuple(y.shape)
            if x.numel(): close(x, y, tol)
    close(mla.pinv(M(a)), torch.linalg.pinv(a), tol)
    close(mla.pinv(M(a.mT)), torch.linalg.pinv(a.mT), tol)
    h = spd(2, 4, 4, dtype=dtype) - 5 * torch.eye(4, dtype=dtype)
    close(mla.pinv(M(h), hermitian=True), torch.linalg.pinv(h, hermitian=True), tol)
    low = a[..., :2] @ rand(2, 2, 3, dtype=dtype, seed=5)   # rank 2
    assert mla.matrix_rank(M(low)).tolist() == torch.linalg.matrix_rank(low).tolist() == [2, 2]
    assert mla.matrix_rank(M(low), atol=1.0, rtol=0.0).tolist() == torch.linalg.matrix_rank(low, atol=1.0, rtol=0.0).tolist()


@pytest.mark.parametrize("dtype", DTYPES)
def test_exp_power_norms_values(dtype):
    a = rand(2, 4, 4, dtype=dtype)
    tol = TOL[dtype] * 100
    close(mla.matrix_exp(noncontig(a)), torch.linalg.matrix_exp(a), tol)
    for n in (-3, -1, 0, 1, 2, 5):
        close(mla.matrix_power(M(a), n), torch.linalg.matrix_power(a, n), tol)
    for ord in ('fro', 'nuc', 1, -1, 2, -2, math.inf, -math.inf):
        close(mla.matrix_norm(M(a), ord), torch.linalg.matrix_norm(a, ord), tol)
        close(mla.matrix_norm(M(a), ord, dim=(0, 2), keepdim=True), torch.linalg.matrix_norm(a, ord, dim=(0, 2), keepdim=True), tol)
    for ord in (2, 1, 0, 3, math.inf, -math.inf, 0.5):
        close(mla.vector_norm(M(a), ord), torch.linalg.vector_norm(a, ord), tol)
        close(mla.vector_norm(M(a), ord, dim=(-1,), keepdim=True), torch.linalg.vector_norm(a, ord, dim=(-1,), keepdim=True), tol)
    close(mla.norm(M(a)), torch.linalg.norm(a), tol)
    close(mla.norm(M(a[0]), 'nuc'), torch.linalg.norm(a[0], 'nuc'), tol)
    close(mla.norm(M(a), dim=1), torch.linalg.norm(a, dim=1), tol)
    for p in (None, 2, -2, 1, math.inf, 'fro', 'nuc'):
        close(mla.cond(M(a), p), torch.linalg.cond(a, p), tol * 100)


def test_norm_examples_and_small_helpers():
    v = minitorch.tensor([3., -4.])
    assert [mla.vector_norm(v, o).item() for o in (2, 1, math.inf, 0, -math.inf)] == [5., 7., 4., 2., 3.]
    x, y = rand(4, 3, dtype=torch.complex128), rand(1, 3, dtype=torch.complex128, seed=1)
    close(mla.cross(M(x), M(y)), torch.linalg.cross(x, y))
    close(mla.vecdot(M(x), M(y)), torch.linalg.vecdot(x, y))
    ms = [rand(3, 4), rand(4, 5, seed=1), rand(5, seed=2)]
    close(mla.multi_dot([M(t) for t in ms]), torch.linalg.multi_dot(ms))
    close(mla.multi_dot([M(ms[2]), M(ms[1].mT)]), torch.linalg.multi_dot([ms[2], ms[1].mT]))
    close(mla.diagonal(M(x), offset=1), torch.linalg.diagonal(x, offset=1))
    assert _err(lambda: mla.cross(M(x), M(y[0]))) == _err(lambda: torch.linalg.cross(x, y[0]))
    z = rand(2, 4)
    close(mla.vander(M(z)), torch.linalg.vander(z))
    close(mla.vander(M(z), N=6), torch.linalg.vander(z, N=6))
    assert mla.det(minitorch.zeros(0, 0)).item() == 1.0
    close(mla.matrix_exp(math.pi * minitorch.tensor([[0., 1], [-1, 0]], dtype=minitorch.float64)), -np.eye(2))
    s, l = mla.slogdet(minitorch.tensor([[1., 2], [2, 4]]))
    assert s.item() == 0 and l.item() == -math.inf
    w = mla.eigvalsh(minitorch.tensor([[1., 100], [0, 1]]))
    assert w.tolist() == [1., 1.]
    close(mla.eigvalsh(minitorch.tensor([[1., 100], [0, 1]]), UPLO='U'), [-99., 101.], 1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_values(dtype):
    a, b = rand(2, 4, 4, dtype=dtype), rand(2, 4, 3, dtype=dtype, seed=1)
    tol = TOL[dtype] * 10
    for x, y in zip(mla.lu(noncontig(a)), torch.linalg.lu(a)): close(x, y, tol)
    for shape in [(2, 5, 3), (2, 3, 5)]:
        r = rand(*shape, dtype=dtype)
        for x, y in zip(mla.lu(M(r)), torch.linalg.lu(r)): close(x, y, tol)
    LU, piv = mla.lu_factor(M(a))
    LUt, pivt = torch.linalg.lu_factor(a)
    close(LU, LUt, tol); assert piv.tolist() == pivt.tolist() and piv.dtype == minitorch.int32
    for left in (True, False):
        for adjoint in (True, False):
            bb = b if left else b.mT
            close(mla.lu_solve(LU, piv, M(bb), left=left, adjoint=adjoint),
                  torch.linalg.lu_solve(LUt, pivt, bb, left=left, adjoint=adjoint), tol)


# ---------------------------------------------------------------- errors
def test_singular_and_not_pd_errors():
    sing = torch.tensor([[1., 2], [2, 4]])
    with pytest.raises(mla.LinAlgError, match=r"^linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.$"):
        mla.inv(M(sing))
    with pytest.raises(RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 2 is zero"):
        mla.inv(M(torch.stack([torch.eye(2), sing])))
    X, info = mla.inv_ex(M(torch.stack([torch.eye(2), sing])))
    assert info.tolist() == torch.linalg.inv_ex(torch.stack([torch.eye(2), sing])).info.tolist() == [0, 2]
    with pytest.raises(mla.LinAlgError, match="torch.linalg.solve: The solver failed because the input matrix is singular."):
        mla.solve(M(sing), minitorch.ones(2))
    assert mla.solve_ex(M(sing), minitorch.ones(2)).info.item() == 2
    npd = torch.tensor([[1., 2], [2, 1]])
    msg = ("linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
           "(the leading minor of order 2 is not positive-definite).")
    with pytest.raises(mla.LinAlgError) as e: mla.cholesky(M(npd))
    assert str(e.value) == msg
    with pytest.raises(mla.LinAlgError, match=r"linalg.cholesky: \(Batch element 1\): The factorization"):
        mla.cholesky(M(torch.stack([torch.eye(2), npd])))
    assert mla.cholesky_ex(M(torch.stack([torch.eye(2), npd]))).info.tolist() == [0, 2]
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero"):
        mla.lu_factor(M(sing))
    assert mla.lu_factor_ex(M(sing)).info.item() == 2
    assert issubclass(mla.LinAlgError, RuntimeError)


def _err(f):
    try: f()
    except Exception as e: return type(e).__name__ if type(e).__name__ != '_LinAlgError' else 'LinAlgError', str(e)
    return None


@pytest.mark.parametrize("name", ['inv', 'det', 'slogdet', 'cholesky', 'qr', 'svd', 'svdvals', 'eigh', 'eigvalsh', 'eig', 'eigvals',
                                  'matrix_exp', 'lu_factor', 'vector_norm', 'matrix_norm', 'pinv'])
@pytest.mark.parametrize("dtype", ['int64', 'float16', 'bfloat16'])
def test_dtype_errors(name, dtype):
    t = torch.eye(2).to(getattr(torch, dtype))
    m = minitorch.eye(2).to(getattr(minitorch, dtype))
    assert _err(lambda: getattr(mla, name)(m)) == _err(lambda: getattr(torch.linalg, name)(t))


@pytest.mark.parametrize("dtype", ['int64', 'float16', 'bfloat16'])
def test_dtype_errors_two_arguments(dtype):
    t = torch.eye(2).to(getattr(torch, dtype))
    m = minitorch.eye(2).to(getattr(minitorch, dtype))
    for f in (lambda L, a: L.solve(a, a), lambda L, a: L.solve_triangular(a, a, upper=True),
              lambda L, a: L.lstsq(a, a), lambda L, a: L.inv_ex(a), lambda L, a: L.cholesky_ex(a),
              lambda L, a: L.matrix_power(a, -1), lambda L, a: L.lu(a), lambda L, a: L.cond(a)):
        assert _err(lambda: f(mla, m)) == _err(lambda: f(torch.linalg, t))


def test_tensor_methods_tensorinv_tensorsolve_logdet():
    a = rand(2, 3, 3) + 3 * torch.eye(3, dtype=torch.float64)
    A = M(a)
    close(A.det(), a.det()); close(A.inverse(), a.inverse()); close(A.logdet(), a.logdet())
    close(mla.logdet(M(-a)), torch.logdet(-a))
    t4 = rand(4, 6, 8, 3)
    close(mla.tensorinv(M(t4), ind=2), torch.linalg.tensorinv(t4, ind=2))
    b = rand(4, 6, seed=1)
    close(mla.tensorsolve(M(t4), M(b)), torch.linalg.tensorsolve(t4, b))
    close(mla.matmul(M(a), M(a)), torch.linalg.matmul(a, a))


def test_shape_errors():
    for f in ('inv', 'det', 'cholesky'):
        assert _err(lambda: getattr(mla, f)(minitorch.ones(2, 3))) == _err(lambda: getattr(torch.linalg, f)(torch.ones(2, 3)))
    assert _err(lambda: mla.inv(minitorch.ones(3))) == _err(lambda: torch.linalg.inv(torch.ones(3)))
    assert _err(lambda: mla.solve(minitorch.eye(2), minitorch.ones(3))) == _err(lambda: torch.linalg.solve(torch.eye(2), torch.ones(3)))
    assert _err(lambda: mla.cross(minitorch.ones(2, 2), minitorch.ones(2, 2))) == _err(lambda: torch.linalg.cross(torch.ones(2, 2), torch.ones(2, 2)))


# ---------------------------------------------------------------- gradients against torch
def grads(f, *ts, seed=0):
    "Gradients of sum(Re(f(L, *x) * w)) for L = torch.linalg and minitorch.linalg, with the same random weights w."
    tx = [t.detach().clone().requires_grad_() for t in ts]
    out = f(torch.linalg, *tx)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    ws = [torch.randn(o.shape, dtype=o.dtype, generator=torch.Generator().manual_seed(seed + i)) for i, o in enumerate(outs)]
    torch.stack([(o * w).real.sum() for o, w in zip(outs, ws)]).sum().backward()
    mx = [M(t, requires_grad=True) for t in ts]
    mo = f(mla, *mx)
    mos = mo if isinstance(mo, (tuple, list)) else (mo,)
    loss = None
    for o, w in zip(mos, ws):
        term = (o * M(w)).real.sum() if o.dtype.is_complex else (o * M(w)).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return [t.grad for t in tx], [m.grad for m in mx]


CASES = {
    'inv': (lambda L, a: L.inv(a), 'gen'),
    'det': (lambda L, a: L.det(a), 'gen'),
    'slogdet': (lambda L, a: L.slogdet(a), 'gen'),
    'solve': (lambda L, a, b: L.solve(a, b), 'gen2'),
    'solve_left': (lambda L, a, b: L.solve(a, b.mT, left=False), 'gen2'),
    'solve_vec': (lambda L, a, b: L.solve(a, b[..., 0]), 'gen2'),
    'solve_1d_bcast': (lambda L, a, b: L.solve(a, b[0, :, 0]), 'gen2'),
    'solve_bcast': (lambda L, a, b: L.solve(a[:1], b), 'gen2'),
    'solve_triangular': (lambda L, a, b: L.solve_triangular(a, b, upper=True), 'gen2'),
    'solve_triangular_unit_right': (lambda L, a, b: L.solve_triangular(a, b.mT, upper=False, left=False, unitriangular=True), 'gen2'),
    'cholesky': (lambda L, a: L.cholesky(a @ a.mH + 3 * torch_or_mt_eye(L, a)), 'gen'),
    'qr_tall': (lambda L, a: L.qr(a[..., :3]), 'gen'),
    'qr_square': (lambda L, a: L.qr(a), 'gen'),
    'qr_wide': (lambda L, a: L.qr(a[..., :3, :]), 'gen'),
    'eigh_invariant': (lambda L, a: (lambda w, v: (w, v.abs() ** 2, v @ v.mH * 0 + (v * w.unsqueeze(-2)) @ v.mH))(*L.eigh(a + a.mH)), 'gen'),
    'eigvalsh': (lambda L, a: L.eigvalsh(a), 'gen'),
    'svd_invariant': (lambda L, a: (lambda u, s, vh: (s, u @ vh, u.abs() ** 2))(*L.svd(a, full_matrices=False)), 'gen'),
    'svd_tall': (lambda L, a: (lambda u, s, vh: (s, (u * s.unsqueeze(-2)) @ vh, u.abs()))(*L.svd(a[..., :2], full_matrices=False)), 'gen'),
    'svd_wide_full': (lambda L, a: (lambda u, s, vh: (s, u.abs(), vh[..., :2, :].abs()))(*L.svd(a[..., :2, :], full_matrices=True)), 'gen'),
    'svdvals': (lambda L, a: L.svdvals(a), 'gen'),
    'pinv_tall': (lambda L, a: L.pinv(a[..., :2]), 'gen'),
    'pinv_wide': (lambda L, a: L.pinv(a[..., :2, :]), 'gen'),
    'lstsq': (lambda L, a, b: L.lstsq(a[..., :2], b).solution, 'gen2'),
    'matrix_exp': (lambda L, a: L.matrix_exp(a), 'gen'),
    'matrix_power': (lambda L, a: L.matrix_power(a, -2), 'gen'),
    'norms': (lambda L, a: (L.matrix_norm(a), L.matrix_norm(a, 'nuc'), L.matrix_norm(a, 2), L.matrix_norm(a, -2),
                            L.vector_norm(a, 3), L.norm(a), L.cond(a)), 'gen'),
    'lu': (lambda L, a: L.lu(a)[1:], 'gen'),
    'lstsq_vector_b': (lambda L, a, b: L.lstsq(a[0, :, :2], b[0, :, 0]).solution, 'gen2'),
    'householder_product': (lambda L, a, b: L.householder_product(a, b[..., :3, 0]), 'gen2'),
    'lu_factor_solve': (lambda L, a, b: L.lu_solve(*L.lu_factor(a), b), 'gen2'),
    'multi_dot_cross_vecdot': (lambda L, a, b: (L.multi_dot([a[0], b[0]]), L.cross(a[..., :3], b[..., :3]), L.vecdot(a, a)), 'gen2'),
}


def torch_or_mt_eye(L, a):
    if L is torch.linalg: return torch.eye(a.shape[-1], dtype=a.dtype)
    return minitorch.eye(a.shape[-1], dtype=a.dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
@pytest.mark.parametrize("case", list(CASES))
def test_gradients_vs_torch(case, dtype):
    f, kind = CASES[case]
    a = rand(2, 4, 4, dtype=dtype) + 2 * torch.eye(4, dtype=dtype)
    args = (a,) if kind == 'gen' else (a, rand(2, 4, 3, dtype=dtype, seed=7))
    tg, mg = grads(f, *args)
    for t, m in zip(tg, mg):
        assert m is not None
        close(m, t, 1e-7)


def _sorted(w):
    w = w.detach().numpy() if isinstance(w, minitorch.Tensor) else w.detach().numpy()
    return np.array([sorted(r, key=lambda z: (round(z.real, 5), round(z.imag, 5))) for r in w.reshape(-1, w.shape[-1])])


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_values_and_gradients(dtype):
    a = rand(3, 6, 6, dtype=dtype)
    tol = TOL[dtype] * 100
    w, v = mla.eig(noncontig(a))
    wt = torch.linalg.eigvals(a)
    assert w.dtype == M(wt).dtype and v.dtype == w.dtype
    close(_sorted(w), _sorted(wt), tol)
    close(_sorted(mla.eigvals(M(a))), _sorted(wt), tol)
    close(M(a).to(w.dtype) @ v, v * w.unsqueeze(-2), tol)            # A V = V diag(w)
    close(mla.vector_norm(v, dim=-2), np.ones((3, 6)), tol)          # unit eigenvectors, as LAPACK
    if dtype in (torch.float64, torch.complex128):                    # order- and phase-invariant loss
        def f(L, x):
            w, v = L.eig(x)
            return (w * w).real.sum() + (v.abs() ** 2 * w.real.unsqueeze(-2)).sum() + w.abs().sum()
        t = a.clone().requires_grad_(); f(torch.linalg, t).backward()
        m = M(a, requires_grad=True); f(mla, m).backward()
        close(m.grad, t.grad, 1e-8)
        assert gradcheck(lambda x: (lambda w, v: (w * w, v.abs() ** 2))(*mla.eig(x)), (M(a[0], requires_grad=True),))
    ac = M(rand(4, 4, dtype=torch.complex128), requires_grad=True)
    with pytest.raises(RuntimeError, match="linalg_eig_backward: The eigenvectors in the complex case"):
        mla.eig(ac)[1].real.sum().backward()


def test_det_singular_gradient_is_zero():
    a = torch.tensor([[1., 2], [2, 4]], dtype=torch.float64, requires_grad=True)
    torch.linalg.det(a).backward()
    A = minitorch.tensor([[1., 2], [2, 4]], dtype=minitorch.float64, requires_grad=True)
    mla.det(A).backward()
    close(A.grad, a.grad)


def test_phase_dependent_loss_raises():
    a = rand(3, 3, dtype=torch.complex128)
    A = M(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="svd_backward: The singular vectors in the complex case"):
        mla.svd(A)[0].real.sum().backward()
    A = M(a + a.mH, requires_grad=True)
    with pytest.raises(RuntimeError, match="linalg_eigh_backward: The eigenvectors in the complex case"):
        mla.eigh(A)[1].real.sum().backward()


def test_repeated_eigenvalues_give_nonfinite_vector_gradients():
    A = minitorch.eye(3, dtype=minitorch.float64, requires_grad=True)
    w, v = mla.eigh(A)
    v.sum().backward()
    a = torch.eye(3, dtype=torch.float64, requires_grad=True)
    torch.linalg.eigh(a)[1].sum().backward()
    assert not torch.isfinite(a.grad).all() and not np.isfinite(A.grad.numpy()).all()
    A2 = minitorch.eye(3, dtype=minitorch.float64, requires_grad=True)
    mla.eigvalsh(A2).sum().backward()   # eigenvalues only: finite
    close(A2.grad, np.eye(3))


def test_qr_not_differentiable_modes():
    A = minitorch.randn(3, 2, dtype=minitorch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        mla.qr(A, mode='complete')[0].sum().backward()
    with pytest.raises(RuntimeError, match="mode='r'"):
        mla.qr(A, mode='r')[1].sum().backward()


# ---------------------------------------------------------------- gradcheck / gradgradcheck
@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.complex128])
def test_gradcheck(dtype):
    minitorch.manual_seed(0)
    a = (minitorch.randn(3, 3, dtype=dtype) + 3 * minitorch.eye(3, dtype=dtype)).requires_grad_()
    b = minitorch.randn(3, 2, dtype=dtype).requires_grad_()
    assert gradcheck(lambda x: mla.inv(x), (a,))
    assert gradcheck(lambda x, y: mla.solve(x, y), (a, b))
    assert gradcheck(lambda x: mla.det(x), (a,))
    assert gradcheck(lambda x: mla.cholesky(x @ x.mH), (a,))
    assert gradcheck(lambda x: mla.qr(x), (a,))
    assert gradcheck(lambda x: mla.svdvals(x), (a,))
    assert gradcheck(lambda x: mla.eigvalsh(x + x.mH), (a,))
    assert gradcheck(lambda x: (lambda w, v: (v * w.unsqueeze(-2).to(v.dtype)) @ v.mH)(*mla.eigh(x + x.mH)), (a,))
    assert gradcheck(lambda x: mla.matrix_exp(x), (a,))
    assert gradcheck(lambda x: mla.pinv(x[:, :2]), (a,))
    assert gradgradcheck(lambda x: mla.inv(x), (a,))
    assert gradgradcheck(lambda x: mla.det(x), (a,))
    assert gradgradcheck(lambda x, y: mla.solve(x, y), (a, b))


@pytest.mark.parametrize("dtype", [minitorch.float64, minitorch.complex128])
def test_gradgradcheck_factorizations(dtype):
    minitorch.manual_seed(1)
    a = (minitorch.randn(3, 3, dtype=dtype) + 3 * minitorch.eye(3, dtype=dtype)).requires_grad_()
    assert gradgradcheck(lambda x: mla.cholesky(x @ x.mH), (a,))
    assert gradgradcheck(lambda x: mla.qr(x), (a,))
    assert gradgradcheck(lambda x: mla.eigvalsh(x + x.mH), (a,))
    assert gradgradcheck(lambda x: mla.svdvals(x), (a,))
    assert gradgradcheck(lambda x: mla.matrix_exp(x), (a,))
    assert gradgradcheck(lambda x: mla.pinv(x[:, :2]), (a,))
    assert gradgradcheck(lambda x: mla.slogdet(x)[1], (a,))


@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_cholesky_solve_inverse(dtype):
    a = spd(2, 4, 4, dtype=dtype)
    L = torch.linalg.cholesky(a)
    b = rand(2, 4, 3, dtype=dtype)
    for upper in (False, True):
        f = L.mH if upper else L
        close(mla.cholesky_solve(M(b), M(f), upper), torch.cholesky_solve(b, f, upper))
        close(mla.cholesky_inverse(M(f[0]), upper), torch.cholesky_inverse(f[0], upper))
    t = f.detach().resolve_conj().clone().requires_grad_()
    tb = b.clone().requires_grad_()
    (torch.cholesky_solve(tb, t, True).abs() ** 2).sum().backward()
    m, mb = M(f, requires_grad=True), M(b, requires_grad=True)
    (mla.cholesky_solve(mb, m, True).abs() ** 2).sum().backward()
    close(mb.grad, tb.grad, 1e-9)


def test_cuda_inputs_stay_on_cuda():
    "The host kernels run on a copy of a cuda input; results and gradients go back to cuda (simulator without a GPU)."
    a = np.random.default_rng(0).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    A = minitorch.tensor(a, device='cuda', requires_grad=True)
    X = mla.solve(A, mla.inv(A)[..., :1])
    assert X.device.type == 'cuda'
    X.sum().backward()
    assert A.grad.device.type == 'cuda'
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.solve(t, torch.linalg.inv(t)[..., :1]).sum().backward()
    close(A.grad.cpu(), t.grad, 1e-12)


def test_unbatched_results_are_0d_like_torch():
    "Scalar results of one matrix are 0-d tensors (numpy's ascontiguousarray would make them 1-d)."
    import torch
    import minitorch as mt
    import minitorch.linalg as LA
    a = [[2.0, 1.0], [1.0, 3.0]]
    for name in ("det", "logdet", "matrix_rank", "cond", "matrix_norm"):
        mine, theirs = getattr(LA, name, None) or getattr(mt, name), getattr(torch.linalg, name, None) or getattr(torch, name)
        assert tuple(mine(mt.tensor(a)).shape) == tuple(theirs(torch.tensor(a)).shape), name
    s = LA.slogdet(mt.tensor(a))
    assert s.sign.shape == () and s.logabsdet.shape == ()


def test_solve_singular_names_the_batch_element():
    "torch names the first singular matrix of a batch: '(Batch element 2): ...'; an unbatched A has no prefix."
    a = np.random.default_rng(1).standard_normal((3, 3, 3)); a[2, 1] = a[2, 0]
    b = np.ones((3, 3, 1))
    for A, B in ((a, b), (a[2], b[2])):
        with pytest.raises(torch.linalg.LinAlgError) as te: torch.linalg.solve(torch.tensor(A), torch.tensor(B))
        with pytest.raises(minitorch.linalg.LinAlgError) as me: minitorch.linalg.solve(minitorch.tensor(A), minitorch.tensor(B))
        assert str(me.value) == str(te.value)
