"""Tensor data: index arithmetic, broadcasting and views, checked against numpy (values) and torch
(shape, strides, storage offset, error types)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch.tensor_data import (TensorData, broadcast_index, broadcast_shapes, contiguous_strides,
                                   index_to_position, normalize_dim, to_index, view_strides)

SETTINGS = settings(max_examples=40, deadline=None)
shapes = st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(1, 5), min_size=0, max_size=4).map(tuple)


def pair(shape):
    "The same row-major arange as a TensorData and a torch tensor."
    n = int(np.prod(shape, dtype=np.int64))
    return TensorData.from_numpy(np.arange(n).reshape(shape)), torch.arange(n).reshape(shape)


def check(td: TensorData, t: torch.Tensor):
    "Same shape, strides, offset as torch; same values as numpy reads them."
    assert td.shape == tuple(t.shape)
    assert td.strides == t.stride(), (td.strides, t.stride())
    if t.numel() > 0:
        assert td.offset == t.storage_offset()
    np.testing.assert_array_equal(td.to_numpy(), t.numpy())


def same_error(f_td, f_t):
    "Both raise the same exception type, or neither raises; returns the results."
    err_t = err_td = None
    try:
        r_t = f_t()
    except Exception as e:  # noqa: BLE001
        err_t = e
    try:
        r_td = f_td()
    except Exception as e:  # noqa: BLE001
        err_td = e
    assert type(err_t) is type(err_td), (err_t, err_td)
    return (None, None) if err_t is not None else (r_td, r_t)


@st.composite
def strided(draw, shape_strategy=shapes):
    "A random non-contiguous layout: permute and step-slice a fresh tensor; returns (td, torch)."
    td, t = pair(draw(shape_strategy))
    perm = draw(st.permutations(range(td.ndim)))
    td, t = td.permute(*perm), t.permute(tuple(perm))
    key = []
    for size in td.shape:
        start = draw(st.integers(0, max(size - 1, 0)))
        step = draw(st.integers(1, 3))
        key.append(slice(start, None, step))
    return td[tuple(key)], t[tuple(key)]


# --- 2.1 index arithmetic -------------------------------------------------------------------------

@pytest.mark.task2_1
@SETTINGS
@given(shapes)
def test_to_index_roundtrip(shape):
    strides = contiguous_strides(shape)
    index = np.zeros(len(shape), dtype=np.int64)
    expected = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    for o in range(expected.size):
        to_index(o, shape, index)
        assert index_to_position(index, strides) == o
        assert expected[tuple(index)] == o


@pytest.mark.task2_1
@SETTINGS
@given(strided())
def test_index_to_position_strided(pair_):
    td, t = pair_
    index = np.zeros(td.ndim, dtype=np.int64)
    flat = t.contiguous().reshape(-1).numpy()
    for o in range(td.numel):
        to_index(o, td.shape, index)
        assert td.storage[index_to_position(index, td.strides, td.offset)] == flat[o]


@pytest.mark.task2_1
def test_index_functions_jit():
    from numba import njit

    @njit
    def positions(shape, strides, offset):
        n = 1
        for s in shape:
            n *= s
        out = np.empty(n, dtype=np.int64)
        index = np.empty(len(shape), dtype=np.int64)
        for o in range(n):
            to_index(o, shape, index)
            out[o] = index_to_position(index, strides, offset)
        return out

    t = torch.arange(60).reshape(3, 4, 5).permute(2, 0, 1)[1:, ::2]
    got = positions(np.array(t.shape), np.array(t.stride()), t.storage_offset())
    np.testing.assert_array_equal(got, t.contiguous().reshape(-1).numpy())


def test_contiguous_strides():
    for shape in [(), (3,), (2, 0, 3), (1, 1), (4, 1, 5)]:
        assert contiguous_strides(shape) == torch.empty(shape).stride()


# --- 2.2 broadcasting -------------------------------------------------------------------------------

@st.composite
def broadcastable(draw):
    out = draw(shapes)
    result = []
    for _ in range(draw(st.integers(1, 3))):
        nd = draw(st.integers(0, len(out)))
        tail = out[len(out) - nd:]
        result.append(tuple(1 if draw(st.booleans()) else s for s in tail))
    return result


@pytest.mark.task2_2
@SETTINGS
@given(broadcastable())
def test_broadcast_shapes(shs):
    assert broadcast_shapes(*shs) == tuple(torch.broadcast_shapes(*shs))


@pytest.mark.task2_2
@SETTINGS
@given(shapes, shapes)
def test_broadcast_shapes_errors(a, b):
    r_td, r_t = same_error(lambda: broadcast_shapes(a, b), lambda: torch.broadcast_shapes(a, b))
    if r_t is not None:
        assert r_td == tuple(r_t)


@pytest.mark.task2_2
def test_broadcast_message():
    with pytest.raises(RuntimeError) as e:
        broadcast_shapes((2, 3), (4,))
    with pytest.raises(RuntimeError) as et:
        torch.zeros(2, 3) + torch.zeros(4)
    assert str(e.value) == str(et.value)


@pytest.mark.task2_2
@SETTINGS
@given(broadcastable())
def test_broadcast_index(shs):
    big = broadcast_shapes(*shs)
    small = shs[0]
    arr = np.arange(int(np.prod(small, dtype=np.int64))).reshape(small)
    expanded = np.broadcast_to(arr, big)
    big_index = np.zeros(len(big), dtype=np.int64)
    out = np.zeros(len(small), dtype=np.int64)
    for o in range(expanded.size):
        to_index(o, big, big_index)
        broadcast_index(big_index, big, small, out)
        assert arr[tuple(out)] == expanded[tuple(big_index)]


# --- 2.3 permute and transpose ---------------------------------------------------------------------

@pytest.mark.task2_3
@SETTINGS
@given(strided(), st.data())
def test_permute(pair_, data):
    td, t = pair_
    perm = data.draw(st.permutations(range(td.ndim)))
    perm = [p - td.ndim if data.draw(st.booleans()) else p for p in perm]
    check(td.permute(*perm), t.permute(tuple(perm)))
    check(td.permute(perm), t.permute(perm))
    assert td.permute(*perm).storage is td.storage


@pytest.mark.task2_3
def test_permute_errors():
    td, t = pair((2, 3))
    for dims in [(0, 0), (0,), (0, 2), (0, 1, 2), (-3, 0)]:
        same_error(lambda: td.permute(*dims), lambda: t.permute(*dims))
    with pytest.raises(RuntimeError, match="duplicate dims"):
        td.permute(1, 1)


@SETTINGS
@given(strided(), st.integers(-5, 4), st.integers(-5, 4))
def test_transpose(pair_, d0, d1):
    td, t = pair_
    r_td, r_t = same_error(lambda: td.transpose(d0, d1), lambda: t.transpose(d0, d1))
    if r_t is not None:
        check(r_td, r_t)


# --- 2.4 view and reshape -------------------------------------------------------------------------

def factorizations(n):
    "Some shapes with `n` elements (n > 0), plus a few with -1."
    out = [(n,), (1, n), (n, 1)]
    for a in range(2, n + 1):
        if n % a == 0:
            out += [(a, n // a), (n // a, a), (a, -1), (-1, a), (1, a, 1, n // a)]
            for b in range(2, n // a + 1):
                if (n // a) % b == 0:
                    out.append((a, b, n // a // b))
    return out


@pytest.mark.task2_4
@settings(max_examples=60, deadline=None)
@given(strided(nonempty_shapes), st.data())
def test_view_against_torch(pair_, data):
    td, t = pair_
    n = td.numel
    new_shape = data.draw(st.sampled_from(factorizations(n) + [(-1,), ()] if n == 1 else factorizations(n)))
    r_td, r_t = same_error(lambda: td.view(new_shape), lambda: t.view(new_shape))
    if r_t is not None:
        check(r_td, r_t)
        assert r_td.storage is td.storage
    assert (view_strides(td.shape, td.strides, r_td.shape if r_td else td.reshape(new_shape).shape) is None) \
        == (r_t is None)
    check(td.reshape(new_shape), t.reshape(new_shape).contiguous() if r_t is None else t.reshape(new_shape))


@pytest.mark.task2_4
def test_view_cases():
    # merge/split inside a chunk works across a permutation; spanning two chunks does not
    td, t = pair((2, 3, 4))
    for p, shape in [((1, 0, 2), (6, 4)), ((1, 0, 2), (3, 2, 2, 2)), ((0, 2, 1), (8, 3)), ((0, 2, 1), (2, 4, 3)),
                     ((2, 1, 0), (24,)), ((0, 1, 2), (4, 3, 2))]:
        r_td, r_t = same_error(lambda: td.permute(p).view(shape), lambda: t.permute(p).view(shape))
        if r_t is not None:
            check(r_td, r_t)
    # size-1 dims with odd strides and expanded (stride 0) dims
    e_td, e_t = pair((3, 1))
    e_td, e_t = e_td.expand(2, 3, 4), e_t.expand(2, 3, 4)
    for shape in [(6, 4), (2, 12), (2, 3, 2, 2), (24,)]:
        r_td, r_t = same_error(lambda: e_td.view(shape), lambda: e_t.view(shape))
        if r_t is not None:
            check(r_td, r_t)
    # 0-d and empty tensors
    z_td, z_t = pair(())
    for shape in [(1,), (1, 1), (-1,), ()]:
        check(z_td.view(shape), z_t.view(shape))
    em_td, em_t = pair((2, 0, 3))
    for shape in [(0,), (0, 5), (3, 0, 2), (-1,), (2, 0, 3)]:
        r_td, r_t = same_error(lambda: em_td.transpose(0, 2).view(shape), lambda: em_t.transpose(0, 2).view(shape))
        if r_t is not None:
            check(r_td, r_t)


@pytest.mark.task2_4
def test_view_messages():
    td, t = pair((2, 3))
    for shape in [(4,), (-1, -1), (-1, 4), (-2, 3)]:
        with pytest.raises(RuntimeError) as e:
            td.view(shape)
        with pytest.raises(RuntimeError) as et:
            t.view(shape)
        assert str(e.value) == str(et.value)
    with pytest.raises(RuntimeError) as e:
        td.transpose(0, 1).view(6)
    assert str(e.value) == ("view size is not compatible with input tensor's size and stride (at least one "
                            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    with pytest.raises(RuntimeError, match="ambiguous"):
        pair((0, 3))[0].view(-1, 0)


# --- other views ------------------------------------------------------------------------------------

@SETTINGS
@given(strided(), st.data())
def test_expand(pair_, data):
    td, t = pair_
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    sizes = lead + [data.draw(st.sampled_from([s, -1] if s != 1 else [1, 3, 0, -1])) for s in td.shape]
    r_td, r_t = same_error(lambda: td.expand(*sizes), lambda: t.expand(*sizes))
    if r_t is not None:
        check(r_td, r_t)
    bad = list(td.shape) + []
    for k, s in enumerate(td.shape):
        if s > 1:
            bad[k] = s + 1
            with pytest.raises(RuntimeError) as e:
                td.expand(bad)
            with pytest.raises(RuntimeError) as et:
                t.expand(bad)
            assert str(e.value) == str(et.value)
            break


def test_expand_message():
    td = TensorData.from_numpy(np.zeros((2, 3)))
    with pytest.raises(RuntimeError) as e:
        td.expand(2, 4)
    assert str(e.value) == ("The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                            "dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]")
    for sizes in [(3,), (-1, 2, 3)]:
        same_error(lambda: td.expand(*sizes), lambda: torch.zeros(2, 3).expand(*sizes))


@SETTINGS
@given(strided(), st.integers(-6, 5))
def test_squeeze_unsqueeze(pair_, dim):
    td, t = pair_
    for f in [lambda x: x.unsqueeze(dim), lambda x: x.squeeze(dim), lambda x: x.squeeze()]:
        r_td, r_t = same_error(lambda: f(td), lambda: f(t))
        if r_t is not None:
            check(r_td, r_t)
    if td.ndim >= 2:
        check(td.squeeze((0, -1)), t.squeeze((0, -1)))


@SETTINGS
@given(strided(), st.integers(-4, 3), st.integers(-4, 3))
def test_flatten(pair_, a, b):
    td, t = pair_
    r_td, r_t = same_error(lambda: td.flatten(a, b), lambda: t.flatten(a, b))
    if r_t is not None:
        assert r_td.shape == tuple(r_t.shape)
        np.testing.assert_array_equal(r_td.to_numpy(), r_t.numpy())
    check(td.flatten(), t.flatten() if t.ndim == 0 or t.flatten()._base is not None else t.flatten())


@SETTINGS
@given(strided(), st.integers(-4, 3), st.integers(-6, 6), st.integers(-1, 6))
def test_narrow_select(pair_, dim, start, length):
    td, t = pair_
    r_td, r_t = same_error(lambda: td.narrow(dim, start, length), lambda: t.narrow(dim, start, length))
    if r_t is not None:
        check(r_td, r_t)
    r_td, r_t = same_error(lambda: td.select(dim, start), lambda: t.select(dim, start))
    if r_t is not None:
        check(r_td, r_t)


@SETTINGS
@given(strided(), st.integers(-6, 6), st.integers(-4, 3), st.integers(-4, 3))
def test_diagonal(pair_, offset, d1, d2):
    td, t = pair_
    r_td, r_t = same_error(lambda: td.diagonal(offset, d1, d2), lambda: t.diagonal(offset, d1, d2))
    if r_t is not None:
        check(r_td, r_t)
        if r_t.numel() == 0:
            assert r_td.offset == r_t.storage_offset()


# --- basic indexing -----------------------------------------------------------------------------

@st.composite
def index_keys(draw, ndim):
    key = []
    n_consumed = draw(st.integers(0, ndim + 1))
    for _ in range(n_consumed):
        kind = draw(st.sampled_from(["int", "slice", "slice", "none"]))
        if kind == "int":
            key.append(draw(st.integers(-6, 6)))
        elif kind == "none":
            key.append(None)
        else:
            key.append(slice(draw(st.none() | st.integers(-7, 7)), draw(st.none() | st.integers(-7, 7)),
                             draw(st.none() | st.integers(1, 4))))
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), Ellipsis)
    return tuple(key) if len(key) != 1 or draw(st.booleans()) else key[0]


@settings(max_examples=100, deadline=None)
@given(strided(), st.data())
def test_getitem(pair_, data):
    td, t = pair_
    key = data.draw(index_keys(td.ndim))
    r_td, r_t = same_error(lambda: td[key], lambda: t[key])
    if r_t is not None:
        check(r_td, r_t)
        assert r_td.storage is td.storage


def test_getitem_messages():
    td3, t3 = pair((3,))
    td, t = pair((2, 3))
    for a, b, key in [(td3, t3, 5), (td, t, (0, 0, 0)), (td, t, (slice(None), -4)), (td, t, slice(None, None, -1)),
                      (td, t, slice(None, None, 0))]:
        with pytest.raises(Exception) as e:
            a[key]
        with pytest.raises(Exception) as et:
            b[key]
        assert type(e.value) is type(et.value) and str(e.value) == str(et.value)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        td3[5]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        td[0, 0, 0]


# --- TensorData basics ---------------------------------------------------------------------------

@SETTINGS
@given(strided())
def test_contiguous(pair_):
    td, t = pair_
    c = td.contiguous()
    assert c.is_contiguous() == True  # noqa: E712
    assert td.is_contiguous() == t.is_contiguous()
    assert c.shape == tuple(t.shape) and c.strides == contiguous_strides(c.shape) and c.offset == 0
    assert c.storage.size == c.numel
    np.testing.assert_array_equal(c.to_numpy(), t.numpy())
    assert c.contiguous() is c
    if td.strides == contiguous_strides(td.shape) and td.offset == 0 and td.storage.size == td.numel:
        assert c is td


def test_normalize_dim():
    assert normalize_dim(-1, 0) == 0 and normalize_dim(0, 0) == 0 and normalize_dim(-3, 3) == 0
    with pytest.raises(IndexError) as e:
        normalize_dim(2, 2)
    assert str(e.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    with pytest.raises(IndexError):
        normalize_dim(1, 0)


def test_to_numpy_zero_copy_and_dtypes():
    import ml_dtypes
    for dt in [np.bool_, np.int32, np.float16, ml_dtypes.bfloat16, np.complex64]:
        arr = (np.arange(12) % 3).astype(dt).reshape(3, 4)
        td = TensorData.from_numpy(arr).transpose(0, 1)[1:, ::2]
        np.testing.assert_array_equal(td.to_numpy(), arr.T[1:, ::2])
        assert np.shares_memory(td.to_numpy(), td.storage)
    z = TensorData(np.arange(5.0), (), (), 3)
    assert z.to_numpy().shape == () and z.to_numpy() == 3.0
