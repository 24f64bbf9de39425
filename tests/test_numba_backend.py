"""The numba CPU backend against the numpy reference backend: every kernel op over dtypes and layouts."""
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch.dtypes as mdt
from minitorch.backends import NumpyBackend
from minitorch.numba_backend import (MAP_KERNEL_OPS, REDUCE_KERNEL_OPS, ZIP_KERNEL_OPS, NumbaBackend,
                                     supports)
from minitorch.tensor_data import TensorData

NB, REF = NumbaBackend(min_work={}), NumpyBackend()  # kernels at every size
DTYPES = [mdt.bool, mdt.int32, mdt.int64, mdt.float16, mdt.bfloat16, mdt.float32, mdt.float64,
          mdt.complex64, mdt.complex128]
REAL = {mdt.complex64: mdt.float32, mdt.complex128: mdt.float64}
BOOL_MAP = {"logical_not", "isnan", "isinf", "isfinite", "signbit"}
BOOL_ZIP = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
FEW = settings(max_examples=3, deadline=None)
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, np.inf, -np.inf, np.nan, 3.0, 1e-3])


def values(dt, n, rng, nonzero=False):
    "n random values of dtype `dt`, with special values mixed into floats."
    if dt is mdt.bool:
        x = rng.random(n) < 0.5
    elif dt is mdt.uint8:
        x = rng.integers(0, 40, n)
    elif not dt.is_floating_point and not dt.is_complex:
        x = rng.integers(-20, 20, n)
    else:
        x = rng.standard_normal(n) * 3
        mask = rng.random(n) < 0.25
        x[mask] = rng.choice(SPECIAL, mask.sum())
        if dt.is_complex:
            x = x + 1j * rng.standard_normal(n)
    if nonzero and not dt.is_floating_point and not dt.is_complex:
        x = np.where(x == 0, 1, x)
    return np.asarray(x).astype(dt.numpy_dtype)


@st.composite
def layouts(draw, ndim_max=3):
    "(shape of the view, a function base_array -> TensorData view of that shape, base shape)."
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=ndim_max)))
    kind = draw(st.sampled_from(["contiguous", "permuted", "sliced", "expanded"]))
    if kind == "contiguous" or not shape:
        return shape, shape, lambda td: td
    if kind == "permuted":
        perm = draw(st.permutations(range(len(shape))))
        base = tuple(shape[perm.index(k)] for k in range(len(shape)))
        return shape, base, lambda td: td.permute(*perm)
    if kind == "sliced":
        steps = [draw(st.integers(1, 3)) for _ in shape]
        starts = [draw(st.integers(0, 2)) for _ in shape]
        base = tuple(s * st_ + b for s, st_, b in zip(shape, steps, starts))
        key = tuple(slice(b, b + s * st_, st_) for s, st_, b in zip(shape, steps, starts))
        return shape, base, lambda td: td[key]
    ones = tuple(1 if draw(st.booleans()) else s for s in shape)
    return shape, ones, lambda td: td.expand(*shape)


def make(dt, base, view, rng, nonzero=False):
    n = int(np.prod(base, dtype=np.int64))
    return view(TensorData.from_numpy(values(dt, n, rng, nonzero).reshape(base)))


def assert_same(got: TensorData, want: TensorData, dt):
    assert got.shape == want.shape and got.storage.dtype == want.storage.dtype
    assert got.is_contiguous()
    g, w = got.to_numpy(), want.to_numpy()
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
        return
    g, w = g.astype(np.complex128 if g.dtype.kind == "c" else np.float64), w.astype(
        np.complex128 if w.dtype.kind == "c" else np.float64)
    rtol = {2: 1e-2 if want.storage.dtype == ml_dtypes.bfloat16 else 1e-3, 4: 2e-5, 8: 1e-11, 16: 1e-11}[
        want.storage.dtype.itemsize]
    if want.storage.dtype.kind == "c":
        rtol = 2e-5 if want.storage.dtype.itemsize == 8 else 1e-11
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True)


def map_out(op, dt):
    if op in BOOL_MAP:
        return mdt.bool
    if op in ("abs", "real") and dt.is_complex:
        return REAL[dt]
    return dt


def zip_out(op, dt):
    return mdt.bool if op in BOOL_ZIP else dt


# --- 9.1 map --------------------------------------------------------------------------------------

@pytest.mark.task9_1
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("op", MAP_KERNEL_OPS)
@FEW
@given(layout=layouts(), seed=st.integers(0, 2**32 - 1))
def test_map(op, dt, layout, seed):
    out_dt = map_out(op, dt)
    if not supports("map", op, dt.numpy_dtype, out_dt):
        pytest.skip(f"{op} on {dt} is not a kernel op (the reference runs it)")
    shape, base, view = layout
    a = make(dt, base, view, np.random.default_rng(seed))
    assert_same(NB.map(op, a, out_dt), ref_map(op, a, out_dt), out_dt)


def ref_map(op, a, out_dt):
    "The reference result (0-d inputs go through shape (1,): the reference's erf wants an array)."
    if a.ndim:
        return REF.map(op, a, out_dt)
    r = REF.map(op, a.unsqueeze(0), out_dt)
    return TensorData(r.storage, (), (), 0)


@pytest.mark.task9_1
@pytest.mark.parametrize("src", DTYPES, ids=str)
@pytest.mark.parametrize("dst", [mdt.bool, mdt.int32, mdt.int64, mdt.float16, mdt.bfloat16, mdt.float32,
                                 mdt.float64, mdt.complex64], ids=str)
def test_copy_casts(src, dst):
    rng = np.random.default_rng(0)
    a = TensorData.from_numpy(values(src, 24, rng).reshape(2, 3, 4)).permute(2, 0, 1)[1:, :, ::2]
    if src.is_floating_point and not dst.is_floating_point and not dst.is_complex and dst is not mdt.bool:
        a = TensorData.from_numpy(np.nan_to_num(a.to_numpy().astype(np.float32), posinf=7, neginf=-7)
                                  .astype(src.numpy_dtype))   # out-of-range float -> int is undefined
    assert_same(NB.copy(a, dst), REF.copy(a, dst), dst)


@pytest.mark.task9_1
def test_map_large_strided_and_low_precision():
    rng = np.random.default_rng(1)
    for dt in (mdt.float32, mdt.float16, mdt.bfloat16):
        a = TensorData.from_numpy(values(dt, 3 * 5000, rng).reshape(3, 5000)).transpose(0, 1)[::3]
        for op in ("exp", "neg", "sigmoid", "isnan"):
            assert_same(NB.map(op, a, map_out(op, dt)), REF.map(op, a, map_out(op, dt)), dt)


# --- 9.2 zip --------------------------------------------------------------------------------------

@pytest.mark.task9_2
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("op", ZIP_KERNEL_OPS)
@FEW
@given(la=layouts(), lb=st.data(), seed=st.integers(0, 2**32 - 1))
def test_zip(op, dt, la, lb, seed):
    out_dt = zip_out(op, dt)
    if not supports("zip", op, dt.numpy_dtype, out_dt):
        pytest.skip(f"{op} on {dt} is not a kernel op (the reference runs it)")
    shape, base, view = la
    rng = np.random.default_rng(seed)
    a = make(dt, base, view, rng)
    # b: same shape, its own layout (contiguous, transposed back, or broadcast)
    b_kind = lb.draw(st.sampled_from(["contiguous", "broadcast", "transposed"]))
    if b_kind == "broadcast" and shape:
        b = make(dt, (1,) * (len(shape) - 1) + shape[-1:], lambda td: td.expand(*shape), rng)
    elif b_kind == "transposed" and len(shape) >= 2:
        b = make(dt, shape[:-2] + (shape[-1], shape[-2]), lambda td: td.transpose(-1, -2), rng)
    else:
        b = make(dt, shape, lambda td: td, rng)
    assert_same(NB.zip(op, a, b, out_dt), REF.zip(op, a, b, out_dt), out_dt)


@pytest.mark.task9_2
def test_zip_large_mixed_layouts():
    rng = np.random.default_rng(2)
    a = TensorData.from_numpy(values(mdt.float32, 20000, rng).reshape(100, 200))
    b = TensorData.from_numpy(values(mdt.float32, 200, rng).reshape(1, 200)).expand(100, 200)
    c = TensorData.from_numpy(values(mdt.float32, 20000, rng).reshape(200, 100)).transpose(0, 1)
    for x, y in [(a, b), (a, c), (c, b), (a, a)]:
        for op in ("add", "mul", "maximum", "lt"):
            assert_same(NB.zip(op, x, y, zip_out(op, mdt.float32)), REF.zip(op, x, y, zip_out(op, mdt.float32)),
                        mdt.float32)


# --- 9.3 reduce -----------------------------------------------------------------------------------

def reduce_out(op, dt):
    if op in ("sum", "prod"):
        return mdt.int64 if not dt.is_floating_point and not dt.is_complex else dt
    if op in ("argmax", "argmin"):
        return mdt.int64
    return mdt.bool if op in ("any", "all") else dt


@pytest.mark.task9_3
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("op", REDUCE_KERNEL_OPS)
@FEW
@given(layout=layouts(), dim=st.integers(0, 2), seed=st.integers(0, 2**32 - 1))
def test_reduce(op, dt, layout, dim, seed):
    out_dt = reduce_out(op, dt)
    if not supports("reduce", op, dt.numpy_dtype, out_dt):
        pytest.skip(f"{op} on {dt} is not a kernel op")
    shape, base, view = layout
    if not shape:
        return
    dim = dim % len(shape)
    a = make(dt, base, view, np.random.default_rng(seed))
    if op == "prod" and dt.is_floating_point:
        a = TensorData.from_numpy(np.clip(a.to_numpy().astype(np.float32), -2, 2).astype(dt.numpy_dtype))
    if a.shape[dim] == 0 and op in ("max", "min", "argmax", "argmin"):
        with pytest.raises(IndexError):
            NB.reduce(op, a, dim, out_dt)
        return
    assert_same(NB.reduce(op, a, dim, out_dt), REF.reduce(op, a, dim, out_dt), out_dt)


@pytest.mark.task9_3
def test_reduce_low_precision_accumulates_in_fp32():
    ones = TensorData.from_numpy(np.ones((1, 10000), ml_dtypes.bfloat16))
    assert float(NB.reduce("sum", ones, 1, mdt.bfloat16).to_numpy()[0, 0]) == 9984.0   # torch: 9984
    ones16 = TensorData.from_numpy(np.ones((10000,), np.float16))
    assert float(NB.reduce("sum", ones16, 0, mdt.float16).to_numpy()[0]) == 10000.0
    big = TensorData.from_numpy(np.ones((100000,), np.float16))
    assert np.isinf(NB.reduce("sum", big, 0, mdt.float16).to_numpy()[0])


@pytest.mark.task9_3
def test_reduce_every_dim_large():
    rng = np.random.default_rng(3)
    a = TensorData.from_numpy(rng.standard_normal((30, 40, 50)).astype(np.float32)).permute(2, 0, 1)
    for dim in range(3):
        for op in ("sum", "max", "argmin"):
            assert_same(NB.reduce(op, a, dim, reduce_out(op, mdt.float32)),
                        REF.reduce(op, a, dim, reduce_out(op, mdt.float32)), mdt.float32)


@pytest.mark.task9_3
def test_parallel_paths_match_the_reference():
    "Work of PARALLEL_MIN elements or more is split between threads: the chunks must tile the output exactly."
    from minitorch.numba_backend import CHUNK, PARALLEL_MIN
    rng = np.random.default_rng(5)
    n = PARALLEL_MIN + CHUNK // 3                       # not a multiple of CHUNK
    x = TensorData.from_numpy(rng.standard_normal((n // 7 + 1, 7)).astype(np.float32)).transpose(0, 1)
    y = TensorData.from_numpy(rng.standard_normal((1, x.shape[1])).astype(np.float32)).expand(*x.shape)
    assert_same(NB.map("exp", x, mdt.float32), REF.map("exp", x, mdt.float32), mdt.float32)      # generic
    assert_same(NB.map("neg", x, mdt.float32), REF.map("neg", x, mdt.float32), mdt.float32)      # specialised
    assert_same(NB.zip("atan2", x, y, mdt.float32), REF.zip("atan2", x, y, mdt.float32), mdt.float32)
    assert_same(NB.zip("add", x, y, mdt.float32), REF.zip("add", x, y, mdt.float32), mdt.float32)
    for dim in (0, 1):
        assert_same(NB.reduce("sum", x, dim, mdt.float32), REF.reduce("sum", x, dim, mdt.float32), mdt.float32)
        assert_same(NB.reduce("argmax", x, dim, mdt.int64), REF.reduce("argmax", x, dim, mdt.int64), mdt.int64)


@pytest.mark.task9_3
def test_long_float32_sum_is_accurate():
    "A 2^24-element float32 sum of ones: a single running sum stops at 2^24; the blocked sum is exact, strided too."
    ones = TensorData.from_numpy(np.ones(2**24 + 8, np.float32))
    assert float(NB.reduce("sum", ones, 0, mdt.float32).to_numpy()[0]) == 2**24 + 8
    strided = TensorData.from_numpy(np.ones((2**24 + 8, 2), np.float32))        # rows 2 apart in storage
    assert NB.reduce("sum", strided, 0, mdt.float32).to_numpy().tolist() == [[2**24 + 8] * 2]
    rng = np.random.default_rng(6)
    v = rng.random(10**6).astype(np.float32)
    got = float(NB.reduce("sum", TensorData.from_numpy(v), 0, mdt.float32).to_numpy()[0])
    assert abs(got - v.astype(np.float64).sum()) <= 1e-6 * v.sum()


# --- 9.4 matmul -----------------------------------------------------------------------------------

@pytest.mark.task9_4
@pytest.mark.parametrize("dt", [mdt.float32, mdt.float64], ids=str)
@settings(max_examples=12, deadline=None)
@given(batch=st.integers(1, 3), n=st.integers(0, 9), k=st.integers(0, 9), m=st.integers(0, 9),
       ta=st.booleans(), tb=st.booleans(), bcast=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_matmul(dt, batch, n, k, m, ta, tb, bcast, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, n, k)).astype(dt.numpy_dtype)
    y = rng.standard_normal((1 if bcast else batch, k, m)).astype(dt.numpy_dtype)
    a = TensorData.from_numpy(x.transpose(0, 2, 1).copy()).transpose(1, 2) if ta else TensorData.from_numpy(x)
    b = TensorData.from_numpy(y.transpose(0, 2, 1).copy()).transpose(1, 2) if tb else TensorData.from_numpy(y)
    if bcast:
        b = b.expand(batch, k, m)
    got = NB.matmul(a, b, dt)
    np.testing.assert_allclose(got.to_numpy(), np.matmul(x, np.broadcast_to(y, (batch, k, m))),
                               rtol=1e-4 if dt is mdt.float32 else 1e-12, atol=1e-4 if dt is mdt.float32 else 1e-12)


@pytest.mark.task9_4
@pytest.mark.parametrize("shape", [(1, 67, 300, 45), (2, 33, 129, 260), (1, 130, 5, 513)])
def test_matmul_crosses_tiles(shape):
    batch, n, k, m = shape
    rng = np.random.default_rng(4)
    x = rng.standard_normal((batch, n, k)).astype(np.float32)
    y = rng.standard_normal((batch, m, k)).astype(np.float32)
    b = TensorData.from_numpy(y).transpose(1, 2)   # a transposed B is packed first
    got = NB.matmul(TensorData.from_numpy(x), b, mdt.float32)
    np.testing.assert_allclose(got.to_numpy(), x @ y.transpose(0, 2, 1), rtol=1e-4, atol=1e-3)


def test_matmul_other_dtypes_defer():
    x = TensorData.from_numpy(np.arange(12, dtype=np.int64).reshape(1, 3, 4))
    y = TensorData.from_numpy(np.arange(8, dtype=np.int64).reshape(1, 4, 2))
    np.testing.assert_array_equal(NB.matmul(x, y, mdt.int64).to_numpy(), REF.matmul(x, y, mdt.int64).to_numpy())


# --- the op tables and the cache ------------------------------------------------------------------

def test_kernel_ops_are_in_the_reference_tables():
    from minitorch.backends import MAP_OPS, REDUCE_OPS, ZIP_OPS
    assert set(MAP_KERNEL_OPS) <= set(MAP_OPS)
    assert set(ZIP_KERNEL_OPS) <= set(ZIP_OPS)
    assert set(REDUCE_KERNEL_OPS) <= set(REDUCE_OPS)


def test_unsupported_ops_fall_back():
    a = TensorData.from_numpy(np.arange(-3, 3, dtype=np.int32))
    b = TensorData.from_numpy(np.array([2, 2, 2, -2, 2, 2], dtype=np.int32))
    for op in ("floor_divide", "remainder", "bitwise_left_shift"):
        np.testing.assert_array_equal(NB.zip(op, a, b, mdt.int32).to_numpy(), REF.zip(op, a, b, mdt.int32).to_numpy())
    with pytest.raises(RuntimeError):
        NB.zip("floor_divide", a, TensorData.from_numpy(np.zeros(6, np.int32)), mdt.int32)


def test_cache_hits_in_a_new_process():
    code = ("import numpy as np, minitorch.numba_backend as nb, minitorch.dtypes as d\n"
            "from minitorch.tensor_data import TensorData\n"
            "a = TensorData.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)).transpose(0, 1)\n"
            "nb.NumbaBackend(min_work={}).map('exp', a, d.float32)\n"
            "print(sum(nb.map_kernel.stats.cache_misses.values()), sum(nb.map_kernel.stats.cache_hits.values()))\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
            for _ in range(2)]
    misses, hits = map(int, runs[1].stdout.split())
    assert (misses, hits) == (0, 1), runs[1].stderr


def test_copy_and_id_map_never_alias_their_input():
    "clone()/contiguous() copies: writing to the copy must leave the original alone, on every path."
    import minitorch
    for backend in (NumbaBackend(), NB, REF):            # numpy fallback (small work), kernels, reference
        a = TensorData.from_numpy(np.arange(6, dtype=np.float32))
        for out in (backend.copy(a, mdt.float32), backend.map("id", a, mdt.float32)):
            assert not np.shares_memory(out.storage, a.storage)
    t = minitorch.ones(3)
    c = t.clone()
    c.add_(1)
    assert t.tolist() == [1.0, 1.0, 1.0] and c.tolist() == [2.0, 2.0, 2.0]
