"""CUDA kernels and the cuda backend, against numpy/torch; on a GPU, or under the simulator where there is none."""
import math
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minitorch.cuda as mcuda

if not (mcuda.is_available() or mcuda.is_simulator()):
    pytest.skip("no CUDA device, and NUMBA_ENABLE_CUDASIM=0 turned the simulator off", allow_module_level=True)

from minitorch import dtypes as dt  # noqa: E402
from minitorch import cuda_backend as cb  # noqa: E402
from minitorch.tensor_data import TensorData  # noqa: E402

warnings.filterwarnings("ignore", category=RuntimeWarning)
rng = np.random.default_rng(0)


def dev(arr) -> TensorData:
    "A device TensorData holding a copy of the numpy array `arr`."
    return cb.data_to_device(TensorData.from_numpy(np.asarray(arr)))


def host(td: TensorData) -> np.ndarray:
    return cb.data_to_host(td).to_numpy()


def f32(x) -> np.ndarray:
    return np.asarray(x).astype(np.float32)


# ---------------------------------------------------------------- device module and launches

def test_device_queries():
    assert mcuda.is_available() or mcuda.is_simulator()
    assert (mcuda.device_count() >= 1) == mcuda.is_available()   # 0 without a GPU (simulator chosen for you)
    mcuda.synchronize()
    assert isinstance(mcuda.get_device_name(), str)


def test_bad_launch_configuration_is_a_clear_error():
    with pytest.raises(RuntimeError, match="exceeds the limit of 1024 threads per block"):
        cb.check_launch(1, (32, 64))
    with pytest.raises(RuntimeError, match="invalid configuration argument"):
        cb.check_launch(0, 32)
    with pytest.raises(RuntimeError, match="z-extent"):
        cb.check_launch(1, (1, 1, 128))
    k = cb.map_kernel("neg", "float32", "float32")
    with pytest.raises(RuntimeError, match="1024"):
        cb.launch(k, 1, 2048)


def test_storage_round_trip_and_numpy_refused():
    for a in [np.arange(5, dtype=np.float16), np.arange(5).astype(ml_dtypes.bfloat16), np.array([1 + 2j, 3j]),
              np.array([True, False])]:
        s = cb.to_device(a)
        assert s.dtype == a.dtype and s.size == a.size
        np.testing.assert_array_equal(cb.to_host(s), a)
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        dev(np.ones(3)).to_numpy()


# ---------------------------------------------------------------- 13.1 map (grid-stride)

@pytest.mark.task13_1
@pytest.mark.parametrize("op", ["neg", "exp", "log", "sqrt", "sigmoid", "relu", "tanh", "sin", "floor", "round",
                                "reciprocal", "abs", "erf", "expm1", "log1p", "sign"])
def test_map_float32_ops_match_torch(op):
    x = np.array([-3.5, -1.0, -0.5, 0.0, 0.5, 1.5, 2.5, 7.0, np.inf, -np.inf, np.nan], np.float32)
    got = host(cb.cuda_map(op, dev(x), dt.float32))
    tfn = {"neg": torch.neg, "reciprocal": torch.reciprocal}.get(op) or getattr(torch, op)
    np.testing.assert_allclose(got, tfn(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.task13_1
def test_map_grid_stride_covers_any_n_with_any_grid():
    x = rng.standard_normal(2000).astype(np.float32)
    a = dev(x)
    for blocks, threads in [(1, 1), (1, 32), (3, 16)]:
        out = cb.DeviceStorage(cb.cuda.device_array(2000, np.float32), np.float32)
        k = cb.map_kernel("neg", "float32", "float32")
        cb.launch(k, blocks, threads, out.data, cb._ints((1,)), 0, cb._ints(a.shape), a.storage.data,
                  cb._ints(a.strides), a.offset, 2000)
        np.testing.assert_array_equal(cb.to_host(out), -x)


@pytest.mark.task13_1
def test_map_strided_views_odd_sizes():
    x = rng.standard_normal((33, 17)).astype(np.float32)
    d = dev(x)
    np.testing.assert_allclose(host(cb.cuda_map("exp", d.transpose(0, 1), dt.float32)), np.exp(x.T), rtol=1e-6)
    v = d.narrow(0, 3, 20).narrow(1, 2, 9)          # offset and non-contiguous rows
    np.testing.assert_allclose(host(cb.cuda_map("square", v, dt.float32)), x[3:23, 2:11] ** 2, rtol=1e-6)
    e = dev(np.float32(2.0)).unsqueeze(0).expand(5)  # stride 0
    np.testing.assert_array_equal(host(cb.cuda_map("neg", e, dt.float32)), np.full(5, -2.0, np.float32))
    z = dev(np.float32(3.0))                         # 0-d
    assert host(cb.cuda_map("neg", z, dt.float32)).shape == ()


@pytest.mark.task13_1
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_map_16bit_words_compute_in_float32_round_once(name):
    d = getattr(dt, name)
    x = rng.standard_normal((9, 13)).astype(np.float32).astype(d.numpy_dtype)
    got = host(cb.cuda_map("exp", dev(x).transpose(0, 1), d))
    ref = torch.from_numpy(x.astype(np.float32)).to(getattr(torch, name)).T.exp().float().numpy()
    np.testing.assert_array_equal(f32(got), ref)


@pytest.mark.task13_1
def test_map_int_bool_complex():
    i = np.array([-3, 0, 5], np.int32)
    np.testing.assert_array_equal(host(cb.cuda_map("abs", dev(i), dt.int32)), np.abs(i))
    np.testing.assert_array_equal(host(cb.cuda_map("bitwise_not", dev(i), dt.int32)), ~i)
    b = np.array([True, False])
    np.testing.assert_array_equal(host(cb.cuda_map("logical_not", dev(b), dt.bool)), ~b)
    c = np.array([1 + 2j, -0.5j, 3], np.complex64)
    np.testing.assert_allclose(host(cb.cuda_map("exp", dev(c), dt.complex64)), np.exp(c), rtol=1e-5)
    np.testing.assert_allclose(host(cb.cuda_map("abs", dev(c), dt.float32)), np.abs(c), rtol=1e-6)
    np.testing.assert_array_equal(host(cb.cuda_map("conj", dev(c.astype(np.complex128)), dt.complex128)),
                                  np.conj(c.astype(np.complex128)))


@pytest.mark.task13_1
@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_map_any_permutation(shape, data):
    x = rng.standard_normal(shape).astype(np.float32)
    perm = data.draw(st.permutations(range(len(shape))))
    got = host(cb.cuda_map("neg", dev(x).permute(*perm), dt.float32))
    np.testing.assert_array_equal(got, -x.transpose(perm))


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "float16"), ("float32", "bfloat16"),
                                     ("float16", "bfloat16"), ("bfloat16", "float64"), ("int64", "float16"),
                                     ("complex64", "float32"), ("float64", "complex128"), ("float32", "bool"),
                                     ("bool", "float32"), ("int32", "uint8"), ("complex128", "bfloat16")])
def test_casts_match_torch(src, dst):
    x = np.array([-2.75, -1.0, 0.0, 0.3, 1.5, 100.6, 65519.0], np.float64)
    if src.startswith("complex"): x = x + 1j
    if src in ("bool",): x = x > 0.2
    if src.startswith("int") or src == "uint8": x = np.trunc(x)
    t = torch.tensor(x).to(getattr(torch, src))
    d = cb.data_to_device(TensorData.from_numpy(
        t.float().numpy().astype(ml_dtypes.bfloat16) if src == "bfloat16" else t.numpy()))
    got = host(cb.cuda_map("id", d, getattr(dt, dst)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = t.to(getattr(torch, dst))
    ref = ref.float().numpy() if dst == "bfloat16" else ref.numpy()
    np.testing.assert_array_equal(f32(got) if dst == "bfloat16" else got, ref)


# ---------------------------------------------------------------- zip, where

@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "fmod",
                                "floor_divide", "atan2", "lt", "eq", "ge"])
def test_zip_float_broadcast_stride0(op):
    x = rng.standard_normal((5, 6)).astype(np.float32) * 3
    y = rng.standard_normal((6,)).astype(np.float32) * 3
    y[0], x[0, 0], x[1, 1] = 0.0, np.nan, 0.0
    out = dt.bool if op in ("lt", "eq", "ge") else dt.float32
    got = host(cb.cuda_zip(op, dev(x), dev(y).unsqueeze(0).expand(5, 6), out))
    tx, ty = torch.from_numpy(x), torch.from_numpy(y).expand(5, 6)
    tfn = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
           "remainder": torch.remainder, "floor_divide": torch.floor_divide}.get(op) or getattr(torch, op)
    np.testing.assert_allclose(got, tfn(tx, ty).numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


def test_zip_int_bool_complex_16bit():
    a, b = np.array([7, -7, 3, 0], np.int64), np.array([2, 2, -2, 5], np.int64)
    for op, ref in [("floor_divide", a // b), ("remainder", a % b), ("fmod", np.fmod(a, b)), ("pow", a ** np.abs(b)),
                    ("bitwise_xor", a ^ b)]:
        got = host(cb.cuda_zip(op, dev(a), dev(np.abs(b) if op == "pow" else b), dt.int64))
        np.testing.assert_array_equal(got, ref)
    p, q = np.array([True, False, True]), np.array([True, True, False])
    np.testing.assert_array_equal(host(cb.cuda_zip("logical_xor", dev(p), dev(q), dt.bool)), p ^ q)
    c, e = np.array([1 + 2j, 3 - 1j], np.complex64), np.array([2j, 1 + 1j], np.complex64)
    np.testing.assert_allclose(host(cb.cuda_zip("div", dev(c), dev(e), dt.complex64)), c / e, rtol=1e-6)
    h, k = np.array([2048.0, 0.1], np.float16), np.array([1.0, 0.2], np.float16)
    np.testing.assert_array_equal(host(cb.cuda_zip("add", dev(h), dev(k), dt.float16)),
                                  (torch.from_numpy(h) + torch.from_numpy(k)).numpy())


def test_where():
    c = rng.random((4, 5)) > 0.5
    x, y = rng.standard_normal((4, 5)).astype(np.float16), rng.standard_normal((4, 5)).astype(np.float16)
    got = host(cb.cuda_where(dev(c), dev(x), dev(y).transpose(0, 1).transpose(0, 1), dt.float16))
    np.testing.assert_array_equal(got, np.where(c, x, y))


# ---------------------------------------------------------------- 13.2 reduce

@pytest.mark.task13_2
def test_reduce_sum_2000_uses_several_blocks_and_second_pass():
    x = rng.standard_normal(2000).astype(np.float32)
    assert -(-2000 // (cb.ROW_THREADS * 16)) > 1 or not cb.SIMULATOR   # more than one block per row
    for parts in (None, 1, 3, 7):
        got = host(cb.cuda_reduce("sum", dev(x), 0, dt.float32, parts=parts))
        np.testing.assert_allclose(got, x.sum(keepdims=True), rtol=1e-4, atol=1e-4)


@pytest.mark.task13_2
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_reduce_any_dim_of_strided_3d(dim):
    x = rng.standard_normal((2, 3, 9))
    d = dev(x.transpose(2, 0, 1).copy()).permute(1, 2, 0)     # non-contiguous view of shape (2, 3, 9)
    for method, ops in [("thread", ("sum", "prod", "max", "min")), ("block", ("sum", "min"))]:
        for op in ops:
            np.testing.assert_allclose(host(cb.cuda_reduce(op, d, dim, dt.float64, method=method)),
                                       getattr(np, op)(x, axis=dim, keepdims=True))
        for op in ("argmax", "argmin") if method == "thread" else ("argmax",):
            np.testing.assert_array_equal(host(cb.cuda_reduce(op, d, dim, dt.int64, method=method)),
                                          np.expand_dims(getattr(np, op)(x, axis=dim), dim))


@pytest.mark.task13_2
def test_reduce_16bit_accumulates_in_float32():
    x = np.full(2000, 0.1, np.float16)     # a float16 accumulator would stall at 256
    got = host(cb.cuda_reduce("sum", dev(x), 0, dt.float16))
    ref = torch.from_numpy(x).sum(0, keepdim=True).numpy()
    np.testing.assert_allclose(f32(got), f32(ref), rtol=2e-3)
    b = np.full(1000, 1.0, ml_dtypes.bfloat16)   # 1000 is a bfloat16; a bfloat16 accumulator stalls at 256
    assert f32(host(cb.cuda_reduce("sum", dev(b), 0, dt.bfloat16)))[0] == 1000.0


@pytest.mark.task13_2
def test_reduce_nan_ties_ints_bools_empty():
    x = np.array([[1.0, 3.0, 3.0, np.nan, 2.0, np.nan]], np.float32)
    assert np.isnan(host(cb.cuda_reduce("max", dev(x), 1, dt.float32))[0, 0])
    assert host(cb.cuda_reduce("argmax", dev(x), 1, dt.int64))[0, 0] == torch.from_numpy(x).argmax(1).item()
    t = np.array([[1.0, 3.0, 3.0, 0.0]], np.float32)
    assert host(cb.cuda_reduce("argmax", dev(t), 1, dt.int64))[0, 0] == 1
    i = rng.integers(-5, 5, (33, 2)).astype(np.int32)
    np.testing.assert_array_equal(host(cb.cuda_reduce("sum", dev(i), 0, dt.int64)), i.sum(0, keepdims=True, dtype=np.int64))
    b = rng.random((4, 33)) > 0.9
    np.testing.assert_array_equal(host(cb.cuda_reduce("any", dev(b), 1, dt.bool)), b.any(1, keepdims=True))
    np.testing.assert_array_equal(host(cb.cuda_reduce("all", dev(~b), 1, dt.bool)), (~b).all(1, keepdims=True))
    e = dev(np.zeros((3, 0), np.float32))
    np.testing.assert_array_equal(host(cb.cuda_reduce("sum", e, 1, dt.float32)), np.zeros((3, 1), np.float32))
    np.testing.assert_array_equal(host(cb.cuda_reduce("prod", e, 1, dt.float32)), np.ones((3, 1), np.float32))
    with pytest.raises(IndexError, match="non-zero size"):
        cb.cuda_reduce("max", e, 1, dt.float32)
    c = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(np.complex64)
    np.testing.assert_allclose(host(cb.cuda_reduce("sum", dev(c), 0, dt.complex64)), c.sum(keepdims=True), rtol=1e-5)


# ---------------------------------------------------------------- 13.3 matmul

@pytest.mark.task13_3
@pytest.mark.parametrize("n,k,m", [(32, 32, 32), (33, 17, 9), (1, 5, 1), (7, 1, 3)])
def test_matmul_sizes(n, k, m):
    a, b = rng.standard_normal((1, n, k)).astype(np.float32), rng.standard_normal((1, k, m)).astype(np.float32)
    np.testing.assert_allclose(host(cb.cuda_matmul(dev(a), dev(b), dt.float32)), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.task13_3
def test_matmul_batched_broadcast_and_transposed():
    a = rng.standard_normal((3, 9, 11)).astype(np.float32)
    w = rng.standard_normal((5, 11)).astype(np.float32)              # used as w.T: (11, 5), non-contiguous
    dw = dev(w).transpose(0, 1).unsqueeze(0).expand(3, 11, 5)      # batch stride 0
    np.testing.assert_allclose(host(cb.cuda_matmul(dev(a), dw, dt.float32)), a @ w.T, rtol=1e-4, atol=1e-4)
    at = dev(a.transpose(0, 2, 1).copy()).transpose(1, 2)           # a non-contiguous left operand
    np.testing.assert_allclose(host(cb.cuda_matmul(at, dw, dt.float32)), a @ w.T, rtol=1e-4, atol=1e-4)


@pytest.mark.task13_3
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_matmul_16bit_storage_float32_accumulation(name):
    d = getattr(dt, name)
    a = rng.standard_normal((1, 17, 24)).astype(np.float32).astype(d.numpy_dtype)
    b = rng.standard_normal((1, 24, 9)).astype(np.float32).astype(d.numpy_dtype)
    got = f32(host(cb.cuda_matmul(dev(a), dev(b), d)))
    ref = (f32(a) @ f32(b)).astype(d.numpy_dtype).astype(np.float32)    # exact products, one rounding
    np.testing.assert_allclose(got, ref, rtol=1e-2, atol=1e-2)


@pytest.mark.task13_3
def test_matmul_int_complex_empty_k():
    a, b = rng.integers(-3, 3, (2, 4, 5)), rng.integers(-3, 3, (2, 5, 3))
    np.testing.assert_array_equal(host(cb.cuda_matmul(dev(a), dev(b), dt.int64)), a @ b)
    c = (rng.standard_normal((1, 3, 4)) + 1j * rng.standard_normal((1, 3, 4))).astype(np.complex128)
    np.testing.assert_allclose(host(cb.cuda_matmul(dev(c), dev(c.transpose(0, 2, 1).copy()), dt.complex128)),
                               c @ c.transpose(0, 2, 1))
    z = host(cb.cuda_matmul(dev(np.zeros((1, 3, 0), np.float32)), dev(np.zeros((1, 0, 2), np.float32)), dt.float32))
    np.testing.assert_array_equal(z, np.zeros((1, 3, 2), np.float32))
    with pytest.raises(RuntimeError, match="Expected size"):
        cb.cuda_matmul(dev(a), dev(a), dt.int64)


def test_matmul_register_tiled():
    a = rng.standard_normal((2, 33, 17)).astype(np.float32)
    b = rng.standard_normal((17, 9)).astype(np.float32)
    db = dev(b.T.copy()).transpose(0, 1).unsqueeze(0).expand(2, 17, 9)
    np.testing.assert_allclose(host(cb.cuda_matmul_register(dev(a), db, dt.float32)), a @ b, rtol=1e-4, atol=1e-4)
    h = rng.standard_normal((1, 12, 7)).astype(np.float16)
    np.testing.assert_allclose(f32(host(cb.cuda_matmul_register(dev(h), dev(h.transpose(0, 2, 1).copy()), dt.float32))),
                               f32(h) @ f32(h).transpose(0, 2, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
def test_matmul_large_on_a_real_gpu():
    a, b = rng.standard_normal((1, 512, 384)).astype(np.float32), rng.standard_normal((1, 384, 640)).astype(np.float32)
    np.testing.assert_allclose(host(cb.cuda_matmul(dev(a), dev(b), dt.float32)), a @ b, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(host(cb.cuda_matmul_register(dev(a), dev(b), dt.float32)), a @ b, rtol=1e-3, atol=1e-3)
    x = rng.standard_normal(1 << 22).astype(np.float32)
    np.testing.assert_allclose(host(cb.cuda_reduce("sum", dev(x), 0, dt.float32)), x.sum(dtype=np.float64)[None],
                               rtol=1e-4)


# ---------------------------------------------------------------- softmax, gather, scatter

@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_and_log_softmax(dim):
    x = (rng.standard_normal((3, 20)) * 4).astype(np.float32)
    x[2, 3] = -np.inf
    d, t = dev(x), torch.from_numpy(x)
    np.testing.assert_allclose(host(cb.cuda_softmax(d, dim, dt.float32)), torch.softmax(t, dim).numpy(),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(host(cb.cuda_softmax(d.transpose(0, 1), 1 - dim, dt.float32, log=True)),
                               torch.log_softmax(t.T, 1 - dim).numpy(), rtol=1e-5, atol=1e-5)
    h = x.astype(np.float16)
    np.testing.assert_allclose(f32(host(cb.cuda_softmax(dev(h), dim, dt.float16))),
                               torch.softmax(torch.from_numpy(h).float(), dim).half().float().numpy(), atol=1e-3)


def test_gather_scatter_match_torch():
    a = rng.standard_normal((6, 5)).astype(np.float32)
    idx = rng.integers(-6, 6, (4, 5))
    ref = torch.gather(torch.from_numpy(a), 0, torch.from_numpy(idx % 6))
    np.testing.assert_array_equal(host(cb.cuda_gather(dev(a), 0, dev(idx))), ref.numpy())
    i1 = rng.integers(0, 6, (5, 3))          # along dim 1 of the transposed (5, 6) view
    np.testing.assert_array_equal(host(cb.cuda_gather(dev(a).transpose(0, 1), 1, dev(i1))),
                                  torch.gather(torch.from_numpy(a).T, 1, torch.from_numpy(i1)).numpy())
    with pytest.raises(RuntimeError, match="index out of range"):
        cb.cuda_gather(dev(a), 1, dev(np.array([[5]])))
    src = rng.standard_normal((4, 5)).astype(np.float32)
    ii = rng.integers(0, 6, (4, 5))
    z = dev(np.zeros((6, 5), np.float32))
    assert cb.cuda_scatter(z, 0, dev(ii), dev(src), "add")
    ref = torch.zeros(6, 5).scatter_add(0, torch.from_numpy(ii), torch.from_numpy(src))
    np.testing.assert_allclose(host(z), ref.numpy(), rtol=1e-6)
    perm = np.stack([rng.permutation(6)[:4] for _ in range(5)], 1)   # distinct targets: plain scatter is defined
    z = dev(np.zeros((6, 5), np.float32))
    cb.cuda_scatter(z, 0, dev(perm), dev(src))
    np.testing.assert_array_equal(host(z), torch.zeros(6, 5).scatter(0, torch.from_numpy(perm), torch.from_numpy(src)).numpy())


# ---------------------------------------------------------------- the backend

def test_backend_primitives_and_device_mixing():
    bk = cb.CudaBackend()
    assert bk.name == "cuda" and bk.device == "cuda"
    h = TensorData.from_numpy(rng.standard_normal((4, 6)).astype(np.float32))
    d = bk.from_host(h.transpose(0, 1))
    np.testing.assert_array_equal(bk.to_host(d).to_numpy(), h.to_numpy().T)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least "
                                           "two devices, cuda:0 and cpu!"):
        bk.zip("add", d, h.transpose(0, 1), dt.float32)
    np.testing.assert_allclose(bk.to_host(bk.copy(d, dt.float64)).to_numpy(), h.to_numpy().T.astype(np.float64))
    np.testing.assert_array_equal(bk.to_host(bk.scalar(2.5, dt.float16)).to_numpy(), np.float16(2.5))
    out = bk.from_host(TensorData.from_numpy(np.zeros((6, 4), np.float32)))
    bk.assign(out.narrow(0, 1, 2), d.narrow(0, 0, 2))
    np.testing.assert_array_equal(bk.to_host(out).to_numpy()[1:3], h.to_numpy().T[:2])
    vals, idx = bk.sort(d, 1, False)                      # through the host reference
    np.testing.assert_array_equal(bk.to_host(vals).to_numpy(), np.sort(h.to_numpy().T, 1))
    assert cb.is_cuda_data(idx)
    np.testing.assert_allclose(bk.to_host(bk.zip("hypot", d, d, dt.float32)).to_numpy(), np.hypot(h.to_numpy().T, h.to_numpy().T), rtol=1e-6)
    # a transcendental: libm (the kernel) and numpy's SIMD arccosh may differ by an ulp (they do on AVX-512 CPUs)
    np.testing.assert_array_max_ulp(bk.to_host(bk.map("acosh", bk.from_host(TensorData.from_numpy(np.array([1.0, 2.0]))), dt.float64)).to_numpy(),
                                    np.arccosh([1.0, 2.0]), maxulp=2)


def test_backend_takes_wrapped_numbers_and_refuses_other_host_data():
    bk = cb.CudaBackend()
    d = dev(np.arange(6, dtype=np.float32).reshape(2, 3))
    two = TensorData.from_numpy(np.array(2.0, np.float32))                  # 0-d host tensor, broadcast (stride 0)
    np.testing.assert_array_equal(host(bk.zip("mul", d, two.expand(2, 3), dt.float32)), 2 * host(d))
    np.testing.assert_array_equal(host(bk.where(dev(np.array([True, False, True])).expand(2, 3), d, two.expand(2, 3),
                                                dt.float32)), [[0, 2, 2], [3, 2, 5]])
    np.testing.assert_array_equal(host(bk.copy(two, dt.int64)), 2)
    with pytest.raises(RuntimeError, match="cuda:0 and cpu!"):            # a real host row is not a wrapped number
        bk.zip("add", d, TensorData.from_numpy(np.ones(3, np.float32)).expand(2, 3), dt.float32)
    with pytest.raises(RuntimeError, match="cuda:0 and cpu!"):
        bk.matmul(d.view(1, 2, 3), TensorData.from_numpy(np.ones((1, 3, 1), np.float32)), dt.float32)


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "trunc_divide"])
@pytest.mark.parametrize("name", ["int32", "int64"])
def test_integer_division_by_zero_raises_like_torch_cpu(op, name):
    a, b = np.array([7, -7, 5], name), np.array([2, 3, 0], name)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        cb.cuda_zip(op, dev(a), dev(b), getattr(dt, name))
    b[2] = -2
    t = {"floor_divide": lambda x, y: torch.div(x, y, rounding_mode="floor"), "remainder": torch.remainder,
         "fmod": torch.fmod, "trunc_divide": lambda x, y: torch.div(x, y, rounding_mode="trunc")}[op]
    np.testing.assert_array_equal(host(cb.cuda_zip(op, dev(a), dev(b), getattr(dt, name))),
                                  t(torch.from_numpy(a), torch.from_numpy(b)).numpy())


def test_float_division_family_matches_torch_bit_for_bit():
    x = np.array([3.0, -3.0, 0.0, -0.0, 5.5, -5.5, np.inf, np.nan, 1e-30, 7.0], np.float32)
    y = np.array([-np.inf, -np.inf, -np.inf, np.inf, 2.0, 0.0, 2.0, 1.0, 1e-30, -0.5], np.float32)
    for op, tf in [("floor_divide", torch.floor_divide), ("remainder", torch.remainder), ("fmod", torch.fmod),
                   ("trunc_divide", lambda a, b: torch.div(a, b, rounding_mode="trunc"))]:
        got = host(cb.cuda_zip(op, dev(x), dev(y), dt.float32))
        want = tf(torch.from_numpy(x), torch.from_numpy(y)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=op)
        num = ~np.isnan(want)                                               # a NaN's sign bit means nothing
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]), err_msg=op)


def test_float_special_values_match_torch_bit_for_bit():
    "Signed zeros, 1**nan, exact powers of two, and float64 results near overflow that math.exp would refuse."
    x = np.array([-0.0, 0.0, 2.0, 100.0, -3.0, 709.5, 710.0, -710.2, 711.0, np.inf, -np.inf, np.nan], np.float64)
    for op in ["exp", "exp2", "expm1", "sinh", "cosh", "relu", "sign"]:
        got = host(cb.cuda_map(op, dev(x), dt.float64))
        want = getattr(torch, op)(torch.from_numpy(x)).numpy()
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
        num = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]), err_msg=op)
    a = np.array([-0.0, -0.0, -0.0, 0.0, -np.inf, -np.inf, 1.0, 10.0, -10.0, 2.0, -2.0, 1e-200], np.float64)
    b = np.array([1.0, 3.0, -1.0, -2.0, -1.0, 3.0, np.nan, 308.0, 307.0, 1023.9, 0.5, 3.0], np.float64)
    for name in ["float64", "float32"]:
        got = host(cb.cuda_zip("pow", dev(a.astype(name)), dev(b.astype(name)), getattr(dt, name)))
        want = torch.pow(torch.from_numpy(a.astype(name)), torch.from_numpy(b.astype(name))).numpy()
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
        num = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]), err_msg=name)


def test_complex_exp_and_division_special_values_match_torch():
    "C99 special values: no thread may raise (cmath would), and inf/nan land where PyTorch puts them."
    import itertools
    parts = [0.0, -0.0, 1.5, -2.0, 800.0, np.inf, -np.inf, np.nan]
    z = np.array([complex(a, b) for a, b in itertools.product(parts, parts)])
    for name in ["complex128", "complex64"]:
        x = z.astype(name)
        for op, tf in [("exp", torch.exp), ("sin", torch.sin), ("tanh", torch.tanh), ("sqrt", torch.sqrt)]:
            got = cb.CudaBackend().map(op, dev(x), getattr(dt, name))
            want = tf(torch.from_numpy(x))
            torch.testing.assert_close(torch.from_numpy(host(got)), want, equal_nan=True, msg=op)
        a, b = np.repeat(x, len(x)), np.tile(x, len(x))
        got = torch.from_numpy(host(cb.cuda_zip("div", dev(a), dev(b), getattr(dt, name))))
        torch.testing.assert_close(got, torch.from_numpy(a) / torch.from_numpy(b), equal_nan=True)


def test_rounding_keeps_the_sign_of_zero():
    x = np.array([-0.4, -0.5, -0.7, 0.3, -0.0, 2.5, -2.5, 1e20, np.nan], np.float32)
    for op in ["floor", "ceil", "trunc", "round"]:
        got = host(cb.cuda_map(op, dev(x), dt.float32))
        want = getattr(torch, op)(torch.from_numpy(x)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=op)
        num = ~np.isnan(want)                                               # a NaN's sign bit means nothing
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]), err_msg=op)


def test_backend_is_registered_for_cuda():
    backends = pytest.importorskip("minitorch.backends")
    assert isinstance(backends.get_backend("cuda"), cb.CudaBackend)


# ---------------------------------------------------------------- end to end: Tensor on device='cuda'

def _mt():
    mt = pytest.importorskip("minitorch")
    if not hasattr(mt, "tensor") or not hasattr(mt, "autograd"):
        pytest.skip("the Tensor is not exported yet")
    return mt


E2E = [
    ("unary", lambda m, x, y: (x.exp() + x.sin() * x.sigmoid()).relu()),
    ("binary broadcast", lambda m, x, y: x * y[0] - y[:1] / (x.abs() + 1)),
    ("comparison where", lambda m, x, y: m.where(x > 0, x, y[0] * 2)),
    ("reductions", lambda m, x, y: x.sum(0) + x.amax(1).sum() + x.mean()),
    ("argmax", lambda m, x, y: x.argmax(1)),
    ("matmul", lambda m, x, y: x @ y.T),
    ("softmax", lambda m, x, y: x.softmax(-1) + x.log_softmax(0)),
    ("views", lambda m, x, y: x.T.contiguous().reshape(-1)[::6] + x.permute(1, 0)[2]),
    ("cast half", lambda m, x, y: (x.half() * 3).float()),
    ("cast bfloat16", lambda m, x, y: (x.bfloat16() + 1).sum(1).float()),
]


@pytest.mark.parametrize("name,fn", E2E, ids=[e[0] for e in E2E])
def test_tensor_ops_match_on_cpu_and_cuda(name, fn):
    mt = _mt()
    xs, ys = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((3, 6)).astype(np.float32)
    cpu = fn(mt, mt.tensor(xs), mt.tensor(ys))
    gpu = fn(mt, mt.tensor(xs, device="cuda"), mt.tensor(ys).cuda())
    assert gpu.device.type == "cuda" and gpu.dtype == cpu.dtype and tuple(gpu.shape) == tuple(cpu.shape)
    np.testing.assert_allclose(gpu.cpu().numpy().astype(np.float64), cpu.numpy().astype(np.float64),
                               rtol=1e-5, atol=1e-5)


def test_tensor_backward_on_cuda_matches_torch():
    mt = _mt()
    xs, ws = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    x = mt.tensor(xs, device="cuda", requires_grad=True)
    w = mt.tensor(ws).to("cuda").requires_grad_()
    loss = (x @ w).tanh().log_softmax(1).sum()
    loss.backward()
    tx, tw = torch.tensor(xs, requires_grad=True), torch.tensor(ws, requires_grad=True)
    (tx @ tw).tanh().log_softmax(1).sum().backward()
    assert x.grad.device.type == "cuda"
    np.testing.assert_allclose(loss.item(), ((torch.tensor(xs) @ torch.tensor(ws)).tanh().log_softmax(1).sum()).item(),
                               rtol=1e-5)
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.grad.cpu().numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_tensor_device_moves_and_mixing_error():
    mt = _mt()
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    g = x.to("cuda")
    assert g.is_cuda and g.cuda() is g and g.cpu().device.type == "cpu"
    assert g.sum().item() == 10.0 and g.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices"):
        g + x
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        g.numpy()


def test_is_available_answers_like_torch_without_a_gpu():
    "A simulator chosen for you runs cuda tensors, but is_available() is False, as torch's on a CPU-only machine."
    import os
    if os.environ.get("MINITORCH_CUDASIM_AUTO") != "1":
        pytest.skip("a GPU is here, or NUMBA_ENABLE_CUDASIM was set by the user")
    assert not mcuda.is_available() and mcuda.device_count() == 0
    import minitorch as mt
    assert (mt.ones(3, device="cuda") * 2).cpu().tolist() == [2.0, 2.0, 2.0]
    mcuda.manual_seed(0); mcuda.manual_seed_all(0)
