"""Forward-mode AD (minitorch.forward_ad) against torch.autograd.forward_ad."""
import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw
from hypothesis import given, settings, strategies as st

import minitorch as mt
from minitorch import forward_ad as fw
from minitorch.autograd import Function


def _both(f_mt, f_t, xs, ts):
    "Tangent of f at primals xs along ts, in minitorch and in torch."
    with fw.dual_level():
        out = f_mt(*[fw.make_dual(mt.tensor(x), mt.tensor(t)) for x, t in zip(xs, ts)])
        p, tan = fw.unpack_dual(out)
        p, tan = p.detach().numpy().copy(), (None if tan is None else tan.numpy().copy())
    with tfw.dual_level():
        out = f_t(*[tfw.make_dual(torch.tensor(x), torch.tensor(t)) for x, t in zip(xs, ts)])
        tp, ttan = tfw.unpack_dual(out)
    np.testing.assert_allclose(p, tp.detach().numpy(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(tan, ttan.numpy(), rtol=1e-6, atol=1e-9)


def _data(shape, seed, positive=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return np.abs(x) + 0.5 if positive else x


UNARY = ['exp', 'sin', 'cos', 'tanh', 'sigmoid', 'neg', 'abs', 'relu', 'tan', 'sinh', 'cosh', 'atan', 'square',
         'reciprocal', 'erf', 'expm1', 'exp2', 'asinh']
POS = ['log', 'sqrt', 'rsqrt', 'log2', 'log10', 'log1p']


@pytest.mark.task19_1
@pytest.mark.parametrize("op", ['mul', 'div'])
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.integers(0, 10_000))
def test_binary_rules(op, shape, seed):
    a, b = _data(shape, seed), _data(shape, seed + 1, positive=True)
    ta, tb = _data(shape, seed + 2), _data(shape, seed + 3)
    _both(lambda x, y: getattr(mt, op)(x, y), lambda x, y: getattr(torch, op)(x, y), [a, b], [ta, tb])


@pytest.mark.task19_1
@pytest.mark.parametrize("op", ['exp', 'sin'])
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=0, max_size=2), st.integers(0, 10_000))
def test_graded_unary_rules(op, shape, seed):
    _both(lambda x: getattr(mt, op)(x), lambda x: getattr(torch, op)(x), [_data(shape, seed)],
          [_data(shape, seed + 1)])


@pytest.mark.task19_1
def test_example_x_sin_x():
    x, t = mt.tensor([1., 2., 3.]), mt.tensor([1., 0., .5])
    with fw.dual_level():
        d = fw.make_dual(x, t)
        tan = fw.unpack_dual((d * d.sin()).sum()).tangent
    assert abs(tan.item() - (-0.0327)) < 1e-4


@pytest.mark.parametrize("op", UNARY + POS)
def test_unary_rules(op):
    x = _data((2, 3), 3, positive=op in POS)
    _both(lambda a: getattr(mt, op)(a), lambda a: getattr(torch, op)(a), [x], [_data((2, 3), 4)])


@pytest.mark.parametrize("name,f", [
    ('add_bcast', lambda m, a, b: m.add(a, b[0])),
    ('sub', lambda m, a, b: a - b),
    ('pow', lambda m, a, b: m.abs(a) ** b),
    ('pow_scalar', lambda m, a, b: a ** 3),
    ('rpow', lambda m, a, b: 2 ** a),
    ('maximum', lambda m, a, b: m.maximum(a, b)),
    ('where', lambda m, a, b: m.where(a > 0, a, b)),
    ('clamp', lambda m, a, b: m.clamp(a, -0.5, 0.5)),
    ('sum', lambda m, a, b: (a * b).sum(1)),
    ('mean', lambda m, a, b: a.mean(0, keepdim=True)),
    ('softmax', lambda m, a, b: m.softmax(a, 1)),
    ('log_softmax', lambda m, a, b: m.log_softmax(a, 0)),
    ('amax', lambda m, a, b: m.amax(a, 1)),
    ('max_dim', lambda m, a, b: m.max(a, 1)[0]),
    ('prod', lambda m, a, b: m.prod(a, 1)),
    ('matmul', lambda m, a, b: a @ b.T),
    ('views', lambda m, a, b: a.T.reshape(-1)[1:4].unsqueeze(0).expand(2, 3) * b[0, 0]),
    ('cat', lambda m, a, b: m.cat([a, b], 1)),
    ('stack', lambda m, a, b: m.stack([a, b]).flip(0)),
    ('index', lambda m, a, b: a[m.tensor([1, 0, 1]) if m is mt else torch.tensor([1, 0, 1])]),
    ('cumsum', lambda m, a, b: a.cumsum(1)),
    ('to', lambda m, a, b: a.to(m.float32).to(m.float64)),
    ('atan2', lambda m, a, b: m.atan2(a, b)),
    ('gather', lambda m, a, b: a.gather(1, (mt if m is mt else torch).tensor([[0, 2], [1, 1]]))),
])
def test_more_rules(name, f):
    a, b = _data((2, 3), 7), _data((2, 3), 8)
    _both(lambda x, y: f(mt, x, y), lambda x, y: f(torch, x, y), [a, b], [_data((2, 3), 9), _data((2, 3), 10)])


def test_complex_abs_and_holomorphic():
    z = np.array([1 + 2j, -0.5 + 0.3j])
    t = np.array([0.3 - 1j, 2 + 0.5j])
    _both(lambda a: a.abs(), lambda a: a.abs(), [z], [t])
    _both(lambda a: (a * a).exp(), lambda a: (a * a).exp(), [z], [t])
    _both(lambda a: a.conj() * a, lambda a: a.conj() * a, [z], [t])


def test_errors():
    with pytest.raises(RuntimeError, match="no level exists"):
        fw.make_dual(mt.ones(2), mt.ones(2))
    with fw.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            with fw.dual_level():
                pass
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2\] while the given forward gradient is of "
                                               r"size \[3\]"):
            fw.make_dual(mt.ones(2), mt.ones(3))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but got"):
            fw.make_dual(mt.ones(2, dtype=mt.int64), mt.ones(2))
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fw.make_dual(mt.ones(2), mt.ones(2, dtype=mt.int64))


def test_unpack_plain_and_after_exit():
    with fw.dual_level():
        u = fw.unpack_dual(mt.ones(2))
        assert isinstance(u, fw.UnpackedDualTensor) and u.tangent is None and u.primal is not None
        d = fw.make_dual(mt.ones(2), mt.ones(2))
        assert fw.unpack_dual(d).tangent is not None
    assert fw.unpack_dual(d).tangent is None
    assert type(u).__name__ == 'UnpackedDualTensor' and u._fields == ('primal', 'tangent')


def test_inplace_and_views():
    with fw.dual_level():
        d = fw.make_dual(mt.ones(3), mt.ones(3))
        v = d[1:]
        d.mul_(2)
        assert fw.unpack_dual(d).tangent.tolist() == [2., 2., 2.]
        assert fw.unpack_dual(d[1:]).tangent.tolist() == [2., 2.]
        assert fw.unpack_dual(v).tangent.tolist() == [2., 2.]
        e = fw.make_dual(mt.zeros(3), mt.zeros(3))
        e[1:] = d[:2] * 3
        assert fw.unpack_dual(e).tangent.tolist() == [0., 6., 6.]


def test_custom_function_jvp():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("not used")

        @staticmethod
        def jvp(ctx, t):
            x, = ctx.saved_tensors
            return 3 * x * x * t

    with fw.dual_level():
        out = Cube.apply(fw.make_dual(mt.tensor([1., 2.]), mt.tensor([1., .5])))
        assert fw.unpack_dual(out).tangent.tolist() == [3., 6.]


def test_reverse_mode_still_works_through_duals():
    x = mt.tensor([1., 2.], requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, mt.tensor([1., 0.]))
        y = (d * d).sum()
        assert fw.unpack_dual(y).tangent.item() == 2.0
    y.backward()
    assert x.grad.tolist() == [2., 4.]


def test_no_level_no_overhead_semantics():
    # outside a level ops behave exactly as before
    assert (mt.tensor([1., 2.]).exp() - mt.tensor([1., 2.]).exp()).abs().sum().item() == 0
