"""minitorch.linalg's lu_factor / solve / cholesky on cuda tensors, which run the batched numba.cuda kernels of
nbs/21g_linalg_cuda, against torch's CPU linalg.
Under the CUDA simulator every thread is a Python thread, so the sizes are tiny (batch 3, n <= 5)."""
import numpy as np
import pytest
import torch
import minitorch as mt
import minitorch.cuda as mcuda
if not (mcuda.is_available() or mcuda.is_simulator()):
    pytest.skip("no CUDA device and the simulator is off", allow_module_level=True)
from minitorch import linalg as lc  # noqa: E402
from minitorch.linalg import LinAlgError  # noqa: E402

rng = np.random.default_rng(0)


def cu(x, dtype):
    return mt.tensor(np.asarray(x).tolist(), dtype=getattr(mt, dtype), device="cuda")


def host(t):
    return np.array(t.detach().to("cpu").tolist())  # (complex entries come back as Python complex)


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4, 4), (3, 5, 5), (2, 3, 5), (3, 4, 2), (1, 1)])
def test_lu_factor(dtype, shape):
    a = rng.standard_normal(shape)
    A = cu(a, dtype)
    LU, piv, info = lc.lu_factor_ex(A)
    assert LU.device.type == "cuda"
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(torch.tensor(a, dtype=getattr(torch, dtype)))
    np.testing.assert_allclose(host(LU), tLU.double().numpy(), **tol(dtype))
    np.testing.assert_array_equal(host(piv), tpiv.numpy())
    np.testing.assert_array_equal(host(info), tinfo.numpy())
    LU2, piv2 = lc.lu_factor(A)
    np.testing.assert_array_equal(host(piv2), tpiv.numpy())


def test_lu_factor_singular():
    a = rng.standard_normal((3, 4, 4))
    a[1, :, 2] = 0                       # zero column -> U[3,3] == 0 (1-based info 3)
    ta = torch.tensor(a)
    _, tpiv, tinfo = torch.linalg.lu_factor_ex(ta)
    _, piv, info = lc.lu_factor_ex(cu(a, "float64"))
    np.testing.assert_array_equal(host(info), tinfo.numpy())
    np.testing.assert_array_equal(host(piv), tpiv.numpy())
    with pytest.raises(RuntimeError) as te:
        torch.linalg.lu_factor(ta)
    with pytest.raises(RuntimeError) as me:
        lc.lu_factor(cu(a, "float64"))
    assert str(me.value) == str(te.value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bshape", [(3, 4, 2), (3, 4)])
def test_solve(dtype, bshape):
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal(bshape)
    X = lc.solve(cu(a, dtype), cu(b, dtype))
    assert X.device.type == "cuda"
    T = lambda x: torch.tensor(x, dtype=getattr(torch, dtype))
    t = torch.linalg.solve(T(a), T(b))
    assert tuple(X.shape) == tuple(t.shape)
    np.testing.assert_allclose(host(X), t.double().numpy(), **tol(dtype))


def test_solve_singular():
    a = rng.standard_normal((3, 3, 3))
    a[2, 1] = a[2, 0]
    b = rng.standard_normal((3, 3, 1))
    with pytest.raises(torch.linalg.LinAlgError) as te:
        torch.linalg.solve(torch.tensor(a), torch.tensor(b))
    with pytest.raises(LinAlgError) as me:
        lc.solve(cu(a, "float64"), cu(b, "float64"))
    assert str(me.value) == str(te.value)


def spd(b, n):
    m = rng.standard_normal((b, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 3, 5])
def test_cholesky(dtype, n):
    a = spd(3, n)
    a[..., 0, -1] += 7.0                 # only the lower triangle is read
    L = lc.cholesky(cu(a, dtype))
    assert L.device.type == "cuda"
    t = torch.linalg.cholesky(torch.tensor(a, dtype=getattr(torch, dtype)))
    np.testing.assert_allclose(host(L), t.double().numpy(), **tol(dtype))


def test_cholesky_not_pd():
    a = spd(3, 4)
    a[1, 2, 2] = -50.0                   # leading minor of order 3 fails
    ta = torch.tensor(a)
    tL, tinfo = torch.linalg.cholesky_ex(ta)
    L, info = lc.cholesky_ex(cu(a, "float64"))
    np.testing.assert_array_equal(host(info), tinfo.numpy())
    np.testing.assert_allclose(host(L)[[0, 2]], tL[[0, 2]].numpy(), rtol=1e-10)
    with pytest.raises(torch.linalg.LinAlgError) as te:
        torch.linalg.cholesky(ta)
    with pytest.raises(LinAlgError) as me:
        lc.cholesky(cu(a, "float64"))
    assert str(me.value) == str(te.value)
    assert issubclass(LinAlgError, RuntimeError)


def test_dtype_error():
    with pytest.raises(RuntimeError):
        lc.cholesky(mt.tensor([[1, 0], [0, 1]], device="cuda"))


def test_cuda_tensors_take_the_cuda_kernels():
    from minitorch.linalg_functions import _kernels_for, _HOST
    from minitorch.linalg_cuda import _lu_cuda, _lu_solve_cuda, _chol_cuda
    for dtype in ("float32", "float64", "complex64", "complex128"):
        k = _kernels_for(cu(np.eye(2), dtype))
        assert (k.lu, k.lu_solve, k.chol) == (_lu_cuda, _lu_solve_cuda, _chol_cuda)
    assert _kernels_for(mt.eye(2)) is _HOST


@pytest.fixture
def no_host_copies(monkeypatch):
    "Forbid every device->host copy, and every host->device copy but kernel metadata (chapter 13 passes shapes and"
    " strides as small int64 arrays), while the test computes."
    from minitorch.cuda_core import DeviceStorage
    from minitorch.linalg_cuda import cuda
    dev_array, real_to_device = type(cuda.device_array(1)), cuda.to_device
    moves = []

    def arm():
        def no(*a, **k):
            moves.append(a)
            raise AssertionError("a host copy in a device-resident batch")

        def to_device(x, *a, **k):
            x = np.asarray(x)
            if x.dtype == np.int64 and x.size <= 8: return real_to_device(x, *a, **k)   # shapes and strides
            return no(x)
        monkeypatch.setattr(DeviceStorage, "copy_to_host", no)
        monkeypatch.setattr(dev_array, "copy_to_host", no)
        monkeypatch.setattr(cuda, "to_device", to_device)
    yield arm
    monkeypatch.undo()
    assert moves == []


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_batches_stay_on_the_device(no_host_copies, dtype):
    "lu_factor_ex, solve_ex and cholesky_ex on cuda tensors copy nothing to or from the host (inputs strided too)."
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((3, 4, 2))
    A, B, S = cu(a, dtype).mT, cu(b, dtype), cu(spd(3, 4), dtype)   # A: a transposed (non-contiguous) view
    no_host_copies()
    LU, piv, info = lc.lu_factor_ex(A)
    X, sinfo = lc.solve_ex(A, B)
    L, cinfo = lc.cholesky_ex(S)
    Ai, iinfo = lc.inv_ex(A)
    D, (sg, la) = lc.det(A), lc.slogdet(A)
    for t in (LU, piv, info, X, sinfo, L, cinfo, Ai, iinfo, D, sg, la):
        assert t.device.type == "cuda" and type(t._data.storage).__name__ == "DeviceStorage"


def test_device_results_match_torch():
    a = rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)
    b = rng.standard_normal((3, 4, 2))
    X, info = lc.solve_ex(cu(a, "float64").mT, cu(b, "float64"))
    np.testing.assert_allclose(host(X), torch.linalg.solve(torch.tensor(a).mT, torch.tensor(b)).numpy(), rtol=1e-10)
    assert host(info).tolist() == [0, 0, 0]
    for dtype in ("float32", "complex128"):
        c = a + 1j * np.swapaxes(a, -1, -2) if dtype == "complex128" else a
        Ai = lc.inv(cu(c, dtype))
        assert Ai.device.type == "cuda" and Ai.dtype == getattr(mt, dtype)
        np.testing.assert_allclose(host(Ai), torch.linalg.inv(ctensor(c, dtype)).numpy(), rtol=1e-4, atol=1e-5)


def ctensor(x, dtype):
    return torch.tensor(x, dtype=getattr(torch, dtype))


def crand(shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_lu_factor_and_solve(dtype):
    a = crand((3, 4, 4))
    b = crand((3, 4, 2))
    A, B = cu(a, dtype), cu(b, dtype)
    LU, piv, info = lc.lu_factor_ex(A)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(ctensor(a, dtype))
    assert LU.dtype == getattr(mt, dtype) and LU.device.type == "cuda"
    t = dict(rtol=1e-4, atol=1e-5) if dtype == "complex64" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(LU), tLU.numpy(), **t)
    np.testing.assert_array_equal(host(piv), tpiv.numpy())
    np.testing.assert_array_equal(host(info), tinfo.numpy())
    X = lc.solve(A, B)
    np.testing.assert_allclose(host(X), torch.linalg.solve(ctensor(a, dtype), ctensor(b, dtype)).numpy(), **t)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_cholesky(dtype):
    m = crand((2, 3, 3))
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + 3 * np.eye(3)
    L, info = lc.cholesky_ex(cu(a, dtype))
    tL, tinfo = torch.linalg.cholesky_ex(ctensor(a, dtype))
    t = dict(rtol=1e-4, atol=1e-5) if dtype == "complex64" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(L), tL.numpy(), **t)
    np.testing.assert_array_equal(host(info), tinfo.numpy())


def test_complex_solve_gradient_on_cuda():
    a, b = crand((2, 3, 3)) + 3 * np.eye(3), crand((2, 3, 2))
    A = cu(a, "complex128").requires_grad_()
    (lc.solve(A, cu(b, "complex128")).abs() ** 2).sum().backward()
    tA = torch.tensor(a, requires_grad=True)
    (torch.linalg.solve(tA, torch.tensor(b)).abs() ** 2).sum().backward()
    np.testing.assert_allclose(host(A.grad), tA.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_solve_gradient_on_cuda():
    a, b = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), rng.standard_normal((2, 3, 2))
    A = cu(a, "float64").requires_grad_()
    lc.solve(A, cu(b, "float64")).sum().backward()
    tA = torch.tensor(a, requires_grad=True)
    torch.linalg.solve(tA, torch.tensor(b)).sum().backward()
    np.testing.assert_allclose(host(A.grad), tA.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_det_and_slogdet_on_the_device(dtype):
    a = crand((4, 3, 3)) if dtype.startswith("complex") else rng.standard_normal((4, 3, 3))
    a[2, :, 1] = 0                                   # a singular element: det 0, sign 0, log|det| -inf
    A, T = cu(a, dtype), ctensor(a, dtype)
    t = dict(rtol=1e-4, atol=1e-5) if dtype in ("float32", "complex64") else dict(rtol=1e-10, atol=1e-12)
    D = lc.det(A)
    assert D.device.type == "cuda" and D.dtype == getattr(mt, dtype)
    np.testing.assert_allclose(host(D), torch.linalg.det(T).numpy(), **t)
    (sg, la), (tsg, tla) = lc.slogdet(A), torch.linalg.slogdet(T)
    assert la.dtype == getattr(mt, {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype))
    np.testing.assert_allclose(host(sg), tsg.numpy(), **t)
    np.testing.assert_allclose(host(la), tla.numpy(), **t)
    empty = lc.det(mt.zeros(2, 0, 0, dtype=getattr(mt, dtype), device="cuda"))
    assert host(empty).tolist() == torch.linalg.det(torch.zeros(2, 0, 0, dtype=getattr(torch, dtype))).tolist()


def test_det_gradient_on_cuda():
    a = rng.standard_normal((2, 3, 3))
    A = cu(a, "float64").requires_grad_()
    (lc.det(A).sum() + lc.slogdet(A)[1].sum()).backward()
    tA = torch.tensor(a, requires_grad=True)
    (torch.linalg.det(tA).sum() + torch.linalg.slogdet(tA)[1].sum()).backward()
    np.testing.assert_allclose(host(A.grad), tA.grad.numpy(), rtol=1e-9)
