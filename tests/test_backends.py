"Backend interface: the numpy reference against torch, and every available backend against the reference."
import numpy as np
import pytest
import torch

from minitorch import dtypes as dt
from minitorch.backends import (NumpyBackend, get_backend, set_backend, use_backend, available_backends,
                                MAP_OPS, ZIP_OPS, REDUCE_OPS)
from minitorch.tensor_data import TensorData

B = NumpyBackend()
BACKENDS = ['numpy'] + [n for n in ('numba',) if n in available_backends()]


def td(a, d):
    return TensorData.from_numpy(np.asarray(a, dtype=d.numpy_dtype))


def test_tables_cover_arch_names():
    for op in ('neg', 'abs', 'exp', 'log', 'sqrt', 'rsqrt', 'sin', 'cos', 'tan', 'tanh', 'sigmoid', 'relu', 'log1p',
               'expm1', 'reciprocal', 'sign', 'floor', 'ceil', 'round', 'trunc', 'logical_not', 'bitwise_not',
               'isnan', 'isinf', 'erf', 'square'):
        assert op in MAP_OPS
    for op in ('add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'eq', 'ne', 'lt', 'le', 'gt', 'ge',
               'logical_and', 'logical_or', 'logical_xor', 'floor_divide', 'remainder', 'fmod', 'atan2',
               'bitwise_and', 'bitwise_or', 'bitwise_xor'):
        assert op in ZIP_OPS
    assert set(REDUCE_OPS) >= {'sum', 'prod', 'max', 'min', 'argmax', 'argmin', 'any', 'all'}


@pytest.mark.parametrize('op', ['exp', 'log', 'sqrt', 'sin', 'tanh', 'sigmoid', 'relu', 'erf', 'round', 'floor', 'abs'])
def test_map_matches_torch(op):
    x = np.array([[0.5, 1.5, 2.5], [-0.5, 3.0, 0.1]], dtype=np.float32)
    got = B.map(op, td(x, dt.float32), dt.float32).to_numpy()
    want = getattr(torch, op)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize('op', ['add', 'sub', 'mul', 'div', 'maximum', 'remainder', 'fmod', 'atan2', 'pow'])
def test_zip_matches_torch_noncontiguous(op):
    a = np.array([[1.5, -2.0, 3.0], [4.0, -0.5, 6.0]], dtype=np.float32)
    b = np.array([[2.0, 0.7], [-3.0, 1.5], [0.25, -2.5]], dtype=np.float32)
    bt = td(b, dt.float32).transpose(0, 1)           # a strided input
    got = B.zip(op, td(a, dt.float32), bt, dt.float32).to_numpy()
    want = getattr(torch, op)(torch.tensor(a), torch.tensor(b).T).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_integer_semantics():
    a, b = td([-7, 7, 5], dt.int64), td([2, 2, -3], dt.int64)
    assert B.zip('floor_divide', a, b, dt.int64).to_numpy().tolist() == [-4, 3, -2]
    assert B.zip('remainder', a, b, dt.int64).to_numpy().tolist() == [1, 1, -1]
    with pytest.raises(RuntimeError, match='ZeroDivisionError'):
        B.zip('floor_divide', a, td([1, 0, 1], dt.int64), dt.int64)
    with pytest.raises(RuntimeError, match='negative integer powers'):
        B.zip('pow', a, td([1, -1, 1], dt.int64), dt.int64)
    assert B.zip('add', td([250], dt.uint8), td([10], dt.uint8), dt.uint8).to_numpy().tolist() == [4]


def test_low_precision_computes_in_float32():
    r = B.zip('add', td([2048.], dt.float16), td([1.], dt.float16), dt.float16).to_numpy()
    assert r.dtype == np.float16 and r.tolist() == [2048.]
    ones = td(np.ones(10000), dt.bfloat16)
    s = B.reduce('sum', ones, 0, dt.bfloat16).to_numpy().astype(np.float32)
    assert s.tolist() == [torch.ones(10000, dtype=torch.bfloat16).sum().float().item()]


def test_reduce_and_matmul():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert B.reduce('sum', td(x, dt.float64), 1, dt.float64).to_numpy().shape == (3, 1)
    assert B.reduce('argmax', td(x, dt.float64), 0, dt.int64).to_numpy().tolist() == [[2, 2, 2, 2]]
    assert B.reduce('sum', td([True, True], dt.bool), 0, dt.int64).to_numpy().tolist() == [2]
    a = td(x.reshape(1, 3, 4), dt.float64)
    np.testing.assert_allclose(B.matmul(a, a.transpose(1, 2), dt.float64).to_numpy()[0], x @ x.T)


def test_copy_casts_like_torch():
    x = td([-2.7, 2.7, 0.0], dt.float32)
    assert B.copy(x, dt.int64).to_numpy().tolist() == [-2, 2, 0]
    assert B.copy(x, dt.bool).to_numpy().tolist() == [True, True, False]
    h = B.copy(td([1 + 3 * 2 ** -11], dt.float32), dt.float16).to_numpy()
    assert h.tolist() == [1.001953125]


def test_where():
    c = td([True, False], dt.bool)
    assert B.where(c, td([1., 2.], dt.float32), td([3., 4.], dt.float32), dt.float32).to_numpy().tolist() == [1., 4.]


def test_backend_selection():
    with use_backend('numpy'):
        assert get_backend('cpu').name == 'numpy'
    with pytest.raises(ValueError, match='unknown backend'):
        set_backend('no-such-backend')


@pytest.mark.parametrize('name', BACKENDS)
def test_backends_agree_with_reference(name):
    import minitorch as mt
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    with use_backend('numpy'):
        ref = ((mt.tensor(x) * 2 + 1).relu().sum(1), mt.tensor(x) @ mt.tensor(x).T)
    with use_backend(name):
        got = ((mt.tensor(x) * 2 + 1).relu().sum(1), mt.tensor(x) @ mt.tensor(x).T)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-5, atol=1e-5)


# ---- numpy's own errors never leak: index errors are reworded as PyTorch's, out-of-range gather/scatter indices
# ---- (which numpy would wrap around silently) are refused
import minitorch  # noqa: E402

INDEX_CASES = [
    lambda T: T.arange(6.).reshape(2, 3).gather(1, T.tensor([[5]])),
    lambda T: T.arange(6.).reshape(2, 3).gather(1, T.tensor([[-1]])),
    lambda T: T.zeros(3).scatter(0, T.tensor([5]), T.ones(1)),
    lambda T: T.zeros(3).scatter(0, T.tensor([-1]), T.ones(1)),
    lambda T: T.zeros(3).scatter_add(0, T.tensor([3]), T.ones(1)),
    lambda T: T.zeros(3).index_put_((T.tensor([5]),), T.ones(1)),
    lambda T: T.zeros(3).index_put_((T.tensor([5]),), T.ones(1), accumulate=True),
    lambda T: T.arange(6.).reshape(2, 3)[T.tensor([0, 1]), T.tensor([0, 1, 2])],
    lambda T: T.arange(24.).reshape(2, 3, 4)[T.tensor([[0], [1]]), :, T.tensor([0, 1, 2])],
    lambda T: T.arange(6.).reshape(2, 3)[T.tensor([0, 1]), T.tensor([2, 0])],
]


@pytest.mark.parametrize('case', INDEX_CASES)
@pytest.mark.parametrize('backend', BACKENDS)
def test_index_errors_are_torch_errors(case, backend):
    def run(T):
        try:
            r = case(T)
            return ('ok', r.tolist())
        except Exception as e:
            return (type(e).__name__, str(e).split('\n')[0])
    with use_backend(backend):
        assert run(minitorch) == run(torch)


def test_more_than_64_dims():
    # creation does not need a shaped numpy array (numpy stops at 64 dims; torch does not)
    for make in (lambda T: T.zeros([1] * 65), lambda T: T.ones([1] * 64 + [2], dtype=T.int32),
                 lambda T: T.full([1] * 70, 2.5), lambda T: T.tensor(eval('[' * 66 + '1' + ']' * 66))):
        t, m = make(torch), make(minitorch)
        assert tuple(m.shape) == tuple(t.shape) and m.dtype.name == str(t.dtype)[6:]
    # what the numpy backend cannot compute is a RuntimeError naming the limit, not numpy's ValueError
    x = minitorch.zeros([1] * 65)
    for op in (lambda: x + 1, lambda: x.tolist(), lambda: repr(x)):
        with pytest.raises(RuntimeError, match='at most 64 dimensions'):
            op()
    assert x.reshape(-1).tolist() == [0.0] and x.squeeze(0).ndim == 64
