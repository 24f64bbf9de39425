"Differentiable ops against torch: values, dtypes and gradients (elementwise, reductions, matmul, views, indexing)."
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st, HealthCheck

import minitorch as mt
from minitorch.backends import use_backend, available_backends
from minitorch.ops import sum_to_shape

BACKENDS = ['numpy'] + [n for n in ('numba',) if n in available_backends()]


@pytest.fixture(autouse=True)
def numpy_backend():
    with use_backend('numpy'):
        yield


def check(f, *arrays, dtype='float32', grad=True, atol=1e-5, rtol=1e-4):
    "Run `f(lib, *tensors)` in torch and minitorch; compare values, dtypes, shapes and input gradients."
    diff = grad and ('float' in dtype or 'complex' in dtype)
    ts = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=diff) for a in arrays]
    ms = [mt.tensor(a, dtype=getattr(mt, dtype), requires_grad=diff) for a in arrays]
    to, mo = f(torch, *ts), f(mt, *ms)
    if isinstance(to, tuple): to, mo = to[0], mo[0]
    assert mo.dtype.name == str(to.dtype).replace('torch.', '')
    assert tuple(mo.shape) == tuple(to.shape)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), atol=atol, rtol=rtol, equal_nan=True)
    if diff and to.requires_grad:
        w = torch.linspace(-1, 1, to.numel()).reshape(to.shape).to(to.dtype)
        (to * w).sum().backward()
        (mo * mt.tensor(w.numpy())).sum().backward()
        for t, m in zip(ts, ms):
            if t.grad is None: assert m.grad is None or not m.grad.numpy().any(); continue
            assert m.grad.dtype.name == str(t.grad.dtype).replace('torch.', '')
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=atol, rtol=rtol, equal_nan=True)


A = np.array([[0.5, -1.2, 2.0], [3.0, 0.25, -0.7]])
B = np.array([[1.5], [2.0]])
C = np.array([0.3, -0.4, 2.2])

UNARY = ['exp', 'log', 'sqrt', 'abs', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'neg', 'log1p', 'expm1', 'erf',
         'reciprocal', 'square', 'sign', 'floor', 'ceil', 'round', 'trunc', 'rsqrt', 'tan', 'log2', 'log10']
BINARY = ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'pow', 'remainder', 'fmod', 'atan2']


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('op', UNARY)
def test_unary(op, backend):
    with use_backend(backend):
        check(lambda L, x: getattr(L, op)(x), np.abs(A) + 0.1 if op in ('log', 'sqrt', 'rsqrt', 'log2', 'log10') else A)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('op', BINARY)
def test_binary_broadcast(op, backend):
    with use_backend(backend):
        x = np.abs(A) + 0.5 if op == 'pow' else A
        check(lambda L, a, b: getattr(L, op)(a, b), x, B)
        check(lambda L, a, b: getattr(L, op)(a, b), x, C)
        check(lambda L, a, b: getattr(L, op)(a.T, b), x.T.copy(), B)   # non-contiguous input


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes, shapes, st.sampled_from(['add', 'mul', 'sub', 'div']), st.sampled_from(['float32', 'float64']))
def test_broadcasting_backward_hypothesis(sa, sb, op, dtype):
    try: np.broadcast_shapes(sa, sb)
    except ValueError: return
    rng = np.random.default_rng(len(sa) * 7 + len(sb))
    a, b = rng.standard_normal(sa) + 2, rng.standard_normal(sb) + 2
    check(lambda L, x, y: getattr(L, op)(x, y), a, b, dtype=dtype)


@pytest.mark.task8_1
def test_sum_to_shape():
    g = mt.ones(2, 3, 4)
    assert sum_to_shape(g, (3, 1)).tolist() == [[8.], [8.], [8.]]
    assert sum_to_shape(g, (4,)).tolist() == [6.] * 4
    assert sum_to_shape(g, ()).item() == 24. and sum_to_shape(g, (2, 3, 4)) is g
    assert sum_to_shape(g, (1, 3, 1)).shape == (1, 3, 1)


@pytest.mark.task8_1
def test_broadcast_gradients_summed_to_input_shape():
    check(lambda L, x, y, z: x * y + z, A.reshape(2, 3, 1)[:, :1], C.reshape(1, 1, 3), np.array(2.0))


def test_python_operators_and_scalars():
    check(lambda L, x: 2 - x, A); check(lambda L, x: 1 / x, A); check(lambda L, x: 2 ** x, A)
    check(lambda L, x: x ** 2, A); check(lambda L, x: (x.abs() + 1) ** 0.5, A); check(lambda L, x: -x + +x * 3, A)
    check(lambda L, x: x // 0.7, A, grad=False); check(lambda L, x: x % 0.7, A); check(lambda L, x: abs(x), A)


@pytest.mark.parametrize('f', [
    lambda L, x: (x * 3) // 2 + x % 3, lambda L, x: x / 2, lambda L, x: L.div(x, 2, rounding_mode='trunc'),
    lambda L, x: x + 2.5, lambda L, x: x * True, lambda L, x: x.sum(), lambda L, x: x.prod(),
    lambda L, x: x.cumsum(0), lambda L, x: x == 3, lambda L, x: x.float().mean(), lambda L, x: 2 ** x.abs(),
    lambda L, x: x ** 0.5, lambda L, x: x.abs().sqrt(), lambda L, x: x.clamp(0.5), lambda L, x: x.max(),
])
@pytest.mark.parametrize('dtype', ['int64', 'int32', 'uint8', 'int8'])
def test_integer_semantics(f, dtype):
    check(f, np.array([-7, 7, 3, 1]) if dtype != 'uint8' else np.array([250, 7, 3, 1]), dtype=dtype)


def test_integer_errors_like_torch():
    with pytest.raises(RuntimeError, match='ZeroDivisionError'): mt.tensor([5]) // 0
    with pytest.raises(RuntimeError, match='Integers to negative integer powers are not allowed'): mt.tensor([2]) ** -1
    with pytest.raises(RuntimeError, match=r'mean\(\): could not infer output dtype'): mt.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        mt.tensor([1, 2]).add_(1.5)
    with pytest.raises(RuntimeError, match='Subtraction, the `-` operator, with two bool tensors'):
        mt.tensor([True]) - mt.tensor([True])
    with pytest.raises(RuntimeError, match='The size of tensor a'): mt.ones(2, 3) + mt.ones(4)


@pytest.mark.parametrize('dtype', ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'bfloat16',
                                   'float32', 'float64', 'complex64'])
@pytest.mark.parametrize('other', [2, 2.5, True, 'i64_0d', 'f64_0d', 'f32_1d'])
def test_promotion(dtype, other):
    x_t = torch.ones(3, dtype=getattr(torch, dtype)); x_m = mt.ones(3, dtype=getattr(mt, dtype))
    o_t = {'i64_0d': torch.tensor(2), 'f64_0d': torch.tensor(2., dtype=torch.float64), 'f32_1d': torch.ones(3)}.get(other, other)
    o_m = {'i64_0d': mt.tensor(2), 'f64_0d': mt.tensor(2., dtype=mt.float64), 'f32_1d': mt.ones(3)}.get(other, other)
    for op in ('__add__', '__mul__', '__truediv__'):
        try: t = getattr(x_t, op)(o_t)
        except RuntimeError:
            with pytest.raises(RuntimeError): getattr(x_m, op)(o_m)
            continue
        m = getattr(x_m, op)(o_m)
        assert m.dtype.name == str(t.dtype).replace('torch.', ''), (op, dtype, other)
        np.testing.assert_allclose(m.to(mt.complex128).numpy(), t.to(torch.complex128).numpy(), rtol=1e-2)


def test_comparisons_and_logic():
    for f in (lambda L, x: x > 0, lambda L, x: x <= 0.5, lambda L, x: x == 3, lambda L, x: x != 3,
              lambda L, x: L.isnan(x / 0), lambda L, x: L.isinf(x / 0), lambda L, x: L.isfinite(x / 0),
              lambda L, x: (x > 0) & (x < 2), lambda L, x: (x > 0) | ~(x < 2), lambda L, x: (x > 0) ^ (x < 2),
              lambda L, x: L.logical_and(x, x > 1), lambda L, x: L.isclose(x, x + 1e-7)):
        check(f, A, grad=False)
    assert mt.allclose(mt.tensor([1., 2.]), mt.tensor([1., 2. + 1e-9])) and mt.equal(mt.ones(2), mt.ones(2))
    assert isinstance(mt.tensor([1.]) == 1, mt.Tensor)


@pytest.mark.parametrize('f', [
    lambda L, x: x.sum(), lambda L, x: x.sum(0), lambda L, x: x.sum(1, keepdim=True), lambda L, x: x.sum((0, 1)),
    lambda L, x: x.sum(dtype=L.float64), lambda L, x: x.mean(), lambda L, x: x.mean(-1), lambda L, x: x.var(),
    lambda L, x: x.std(1), lambda L, x: x.var(0, unbiased=False), lambda L, x: x.var(1, correction=0, keepdim=True),
    lambda L, x: x.max(), lambda L, x: x.max(1), lambda L, x: x.min(0, keepdim=True), lambda L, x: x.amax(1),
    lambda L, x: x.amin((0, 1)), lambda L, x: x.prod(), lambda L, x: x.prod(1), lambda L, x: x.logsumexp(1),
    lambda L, x: x.cumsum(1), lambda L, x: x.cumprod(1), lambda L, x: x.argmax(), lambda L, x: x.argmin(1),
    lambda L, x: (x > 0).any(), lambda L, x: (x > 0).all(1), lambda L, x: x.norm() if hasattr(x, 'norm') else x.sum(),
])
def test_reductions(f):
    check(f, A)
    check(f, A.T.copy())


def test_max_ties_share_gradient():
    check(lambda L, x: x.max(), np.array([1., 2., 2.]))
    check(lambda L, x: x.amax(1), np.array([[1., 2., 2.]]))
    check(lambda L, x: x.max(1).values, np.array([[1., 2., 2.]]))
    check(lambda L, x: L.maximum(x, L.tensor(2.)), np.array([1., 2., 3.]))
    check(lambda L, x: x.prod(), np.array([1., 0., 3.]))


@pytest.mark.task8_3
@pytest.mark.parametrize('dim', [0, 1, -1])
def test_softmax_log_softmax(dim):
    check(lambda L, x: x.softmax(dim), A)
    check(lambda L, x: x.log_softmax(dim), A)
    check(lambda L, x: L.softmax(x * 1000, dim), A)        # stable for large inputs
    check(lambda L, x: L.log_softmax(x, dim, dtype=L.float64), A)


@pytest.mark.task8_3
def test_softmax_gradcheck():
    x = mt.tensor(A, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.softmax(1), (x,))
    assert mt.autograd.gradcheck(lambda t: t.log_softmax(0), (x,))


@pytest.mark.task8_2
@pytest.mark.parametrize('sa,sb', [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)),
                                   ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
                                   ((4, 2, 3), (4, 3, 1))])
def test_matmul_shapes_and_grads(sa, sb):
    rng = np.random.default_rng(0)
    check(lambda L, a, b: a @ b, rng.standard_normal(sa), rng.standard_normal(sb))
    check(lambda L, a, b: L.matmul(a, b), rng.standard_normal(sa), rng.standard_normal(sb), dtype='float64')


@pytest.mark.task8_2
def test_mm_family_and_errors():
    rng = np.random.default_rng(1)
    a, b, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    check(lambda L, x, y: L.mm(x, y), a, b); check(lambda L, x, y: x.mT @ y.T.T, a.T.copy(), b)
    check(lambda L, x, y: L.mv(x, y), a, v); check(lambda L, x, y: L.dot(x, y), v, v)
    check(lambda L, x, y: L.outer(x, y), v, v)
    check(lambda L, x, y: L.bmm(x, y), rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3, 2)))
    x = mt.tensor(a, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda t: t @ t.T, (x,))
    with pytest.raises(RuntimeError, match=r'mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)'):
        mt.ones(2, 3) @ mt.ones(2, 3)
    with pytest.raises(RuntimeError, match='expected m1 and m2 to have the same dtype'):
        mt.ones(2, 2) @ mt.ones(2, 2, dtype=mt.float64)
    with pytest.raises(RuntimeError, match='inconsistent tensor size'):
        mt.ones(3) @ mt.ones(4)


def test_where_clamp_and_casts():
    check(lambda L, x, y: L.where(x > 0, x, y), A, B)
    check(lambda L, x: L.where(x > 0, x, 0.0), A)
    check(lambda L, x: x.clamp(-1, 1), A); check(lambda L, x: x.clamp(min=0.25), A)
    check(lambda L, x, y: x.clamp(min=y), A, B); check(lambda L, x: x.clip(max=0.5), A)
    check(lambda L, x: x.double() * 2, A); check(lambda L, x: x.to(L.float64).exp(), A)
    check(lambda L, x: x.half().float(), A); check(lambda L, x: x.clone() * 2, A)
    check(lambda L, x: x.T.contiguous(), A)


# ---------------------------------------------------------------- einsum
_EINSUM_CASES = [
    ('i,i', [(3,), (3,)]), ('i,j', [(3,), (4,)]), ('ij,jk->ik', [(2, 3), (3, 4)]),
    ('bij,bjk->bik', [(2, 2, 3), (2, 3, 4)]), ('ii->i', [(3, 3)]), ('ii', [(3, 3)]), ('iij->ji', [(3, 3, 2)]),
    ('...ij,...jk', [(2, 1, 2, 3), (5, 3, 4)]), ('ij,ij,ij->i', [(2, 3), (2, 3), (2, 3)]), ('i,i->', [(1,), (4,)]),
    ('ba', [(2, 3)]), ('...', [(2, 3)]), ('bn,anm,bm->ba', [(2, 3), (4, 3, 5), (2, 5)]), ('ij->', [(2, 3)]),
    ('', [()]), ('ijk,ikl->j', [(2, 3, 4), (2, 4, 5)]), ('Ab,ba', [(2, 3), (3, 2)]), ('i...->...', [(3, 2, 2)]),
    ('i j , j k -> i k', [(2, 3), (3, 2)]),
]

@pytest.mark.parametrize("eq,shapes", _EINSUM_CASES)
def test_einsum_matches_torch(eq, shapes):
    from minitorch.reductions import einsum
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s) for s in shapes]
    ms = [mt.tensor(a, requires_grad=True) for a in arrs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    r, t = einsum(eq, *ms), torch.einsum(eq, *ts)
    assert r.shape == tuple(t.shape)
    np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), atol=1e-10)
    g = rng.standard_normal(tuple(t.shape))
    r.backward(mt.tensor(g)); t.backward(torch.tensor(g))
    for m, tt in zip(ms, ts): np.testing.assert_allclose(m.grad.numpy(), tt.grad.numpy(), atol=1e-10)


def test_einsum_list_operands_and_complex():
    from minitorch.reductions import einsum
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, 2]]); b = np.array([1 - 1j, 2 + 0.5j])
    r = einsum('ij,j->i', [mt.tensor(a), mt.tensor(b)])
    np.testing.assert_allclose(r.numpy(), torch.einsum('ij,j->i', torch.tensor(a), torch.tensor(b)).numpy())


@pytest.mark.parametrize("eq,shapes,msg", [
    ('ij,jk', [(2, 3)], "fewer operands"), ('i', [(2,), (2,)], "more operands"),
    ('i?', [(2, 3)], "invalid subscript"), ('ij->k', [(2, 3)], "output subscript k does not appear"),
    ('ijk', [(2, 3)], "does not match the number of dimensions"), ('ij->ii', [(2, 3)], "more than once"),
    ('ij,jk->ik', [(2, 3), (4, 5)], "does not broadcast"),
])
def test_einsum_errors(eq, shapes, msg):
    from minitorch.reductions import einsum
    arrs = [np.zeros(s) for s in shapes]
    with pytest.raises(RuntimeError, match=msg): einsum(eq, *[mt.tensor(a) for a in arrs])
    with pytest.raises(RuntimeError, match=msg): torch.einsum(eq, *[torch.tensor(a) for a in arrs])
