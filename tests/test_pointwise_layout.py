"""Pointwise results take PyTorch's TensorIterator layout: row-major inputs give a row-major result, permuted or
sliced (dense or not) inputs give the result their dim order (dims sorted by the operands' strides, the first operand
that tells two dims apart deciding, broadcast and size-1 dims neutral). So strides, `is_contiguous()` and `view`
errors of results match torch: `(x.t() * 2).view(-1)` raises, `(x.t() * 2).t().view(-1)` does not."""
import os
import sys

import numpy as np
import pytest
import torch

import minitorch as mt

sys.path.insert(0, os.path.dirname(__file__))
import opinfo  # noqa: E402

_A = np.random.RandomState(0).uniform(0.1, 0.9, (2, 3, 4)).astype(np.float32)
_B = np.random.RandomState(1).uniform(0.1, 0.9, (5, 6)).astype(np.float32)

LAYOUTS = {   # name -> a function of the library building the operand
    'contiguous': lambda L: L.tensor(_A),
    'transposed': lambda L: L.tensor(_A[0]).t(),
    'permuted': lambda L: L.tensor(_A).permute(2, 0, 1),
    'permuted2': lambda L: L.tensor(_A).permute(1, 2, 0),
    'sliced': lambda L: L.tensor(_A).permute(2, 0, 1)[:, :, :2],
    'stepped': lambda L: L.tensor(_B)[::2, ::2],
    'expanded': lambda L: L.tensor(_A[:, :1, :]).expand(2, 3, 4),
    'zero_d': lambda L: L.tensor(_A[0, 0, 0]),
    'size1': lambda L: L.tensor(_A[0]).t().unsqueeze(1),
    'size1_sliced': lambda L: L.tensor(_A).permute(2, 0, 1)[:, :1, :],
    'empty': lambda L: L.tensor(_A).permute(2, 0, 1)[:, :, :0],
    'row': lambda L: L.tensor(_A[0, 0]),
    'column': lambda L: L.tensor(_A[0, :, :1]),
}

UNARY = {
    'exp': lambda L, x: x.exp(), 'neg': lambda L, x: -x, 'abs': lambda L, x: L.abs(x), 'sqrt': lambda L, x: x.sqrt(),
    'sigmoid': lambda L, x: x.sigmoid(), 'gt_scalar': lambda L, x: x > 0.5, 'add_scalar': lambda L, x: x + 1,
    'rsub_scalar': lambda L, x: 1 - x, 'mul_scalar': lambda L, x: 2 * x, 'pow_scalar': lambda L, x: x ** 2,
    'clamp': lambda L, x: x.clamp(0.2, 0.6), 'isnan': lambda L, x: x.isnan(), 'relu': lambda L, x: L.relu(x),
    'round': lambda L, x: L.round(x), 'logical_not': lambda L, x: L.logical_not(x), 'sin': lambda L, x: L.sin(x),
    'where_scalar': lambda L, x: L.where(x > 0.5, x, 0.),
}
BINARY = {
    'add': lambda L, x, y: x + y, 'mul': lambda L, x, y: L.mul(x, y), 'sub': lambda L, x, y: x - y,
    'div': lambda L, x, y: x / y, 'rsub': lambda L, x, y: L.rsub(x, y), 'gt': lambda L, x, y: x > y,
    'eq': lambda L, x, y: L.eq(x, y), 'maximum': lambda L, x, y: L.maximum(x, y), 'atan2': lambda L, x, y: L.atan2(x, y),
    'pow': lambda L, x, y: x ** y, 'logical_and': lambda L, x, y: L.logical_and(x, y),
    'hypot': lambda L, x, y: L.hypot(x, y), 'copysign': lambda L, x, y: L.copysign(x, y),
    'floor_divide': lambda L, x, y: x // y, 'xlogy': lambda L, x, y: L.xlogy(x, y),
}
TERNARY = {
    'where': lambda L, c, x, y: L.where(c > 0.5, x, y), 'lerp': lambda L, c, x, y: L.lerp(c, x, 0.3),
    'lerp_tensor': lambda L, c, x, y: L.lerp(c, x, y), 'addcmul': lambda L, c, x, y: L.addcmul(c, x, y),
    'addcdiv': lambda L, c, x, y: L.addcdiv(c, x, y), 'clamp_tensor': lambda L, c, x, y: L.clamp(c, min=x, max=y),
}


def _both(fn):
    "fn(lib) run with minitorch and torch: (minitorch result or exception class, torch result or exception class)."
    out = []
    for L in (mt, torch):
        try: out.append(fn(L))
        except Exception as e: out.append(type(e))
    return out


def _check(m, t):
    "Same error class, or same shape, dtype, values, is_contiguous and strides."
    if isinstance(t, type) or isinstance(m, type):
        if isinstance(m, type) and isinstance(t, type): return   # (error classes are other tests' business)
        raise AssertionError(f"minitorch {m!r}, torch {t!r}")
    assert tuple(m.shape) == tuple(t.shape)
    assert str(m.dtype).split('.')[-1] == str(t.dtype).split('.')[-1]
    c = t.dtype.is_complex
    torch.testing.assert_close(torch.from_numpy(np.array(m.detach().to(mt.complex128 if c else mt.float64).numpy())),
                               t.detach().to(torch.complex128 if c else torch.float64), equal_nan=True, rtol=2e-3, atol=1e-5)
    assert m.is_contiguous() == t.is_contiguous()
    if t.numel() > 0: assert m.stride() == t.stride(), (m.stride(), t.stride())


@pytest.mark.parametrize('layout', list(LAYOUTS))
@pytest.mark.parametrize('op', list(UNARY))
def test_unary_layout(op, layout):
    _check(*_both(lambda L: UNARY[op](L, LAYOUTS[layout](L))))


@pytest.mark.parametrize('ly', list(LAYOUTS))
@pytest.mark.parametrize('lx', list(LAYOUTS))
@pytest.mark.parametrize('op', ['add', 'mul', 'gt', 'rsub', 'maximum', 'pow'])
def test_binary_layout_pairs(op, lx, ly):
    _check(*_both(lambda L: BINARY[op](L, LAYOUTS[lx](L), LAYOUTS[ly](L))))


@pytest.mark.parametrize('lx,ly', [('transposed', 'contiguous'), ('contiguous', 'transposed'), ('permuted', 'row'),
                                   ('row', 'permuted'), ('sliced', 'permuted2'), ('expanded', 'permuted'),
                                   ('stepped', 'zero_d'), ('size1', 'column'), ('empty', 'permuted')])
@pytest.mark.parametrize('op', list(BINARY))
def test_binary_layout(op, lx, ly):
    _check(*_both(lambda L: BINARY[op](L, LAYOUTS[lx](L), LAYOUTS[ly](L))))


@pytest.mark.parametrize('layouts', [('permuted', 'contiguous', 'row'), ('contiguous', 'permuted', 'permuted2'),
                                     ('row', 'permuted2', 'permuted'), ('sliced', 'expanded', 'zero_d'),
                                     ('transposed', 'column', 'contiguous'), ('expanded', 'expanded', 'permuted')])
@pytest.mark.parametrize('op', list(TERNARY))
def test_ternary_layout(op, layouts):
    _check(*_both(lambda L: TERNARY[op](L, *(LAYOUTS[n](L) for n in layouts))))


@pytest.mark.parametrize('dtype', ['float64', 'float16', 'bfloat16', 'complex64', 'complex32', 'int64', 'bool'])
@pytest.mark.parametrize('layout', ['transposed', 'permuted', 'sliced', 'expanded'])
def test_dtypes_layout(dtype, layout):
    def f(L):
        x = LAYOUTS[layout](L).to(getattr(L, dtype))
        return x + x if dtype != 'bool' else x & x
    _check(*_both(f))
    _check(*_both(lambda L: LAYOUTS[layout](L).to(getattr(L, dtype)) == 0))


def test_examples_from_the_issue():
    x = mt.arange(6.).reshape(2, 3).t()
    for r in (x + 1, x * x, x.exp(), x > 1, mt.where(x > 1, x, 0.), -x):
        assert r.stride() == (1, 3) and not r.is_contiguous()   # as x's own strides
    p = mt.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
    assert (p + 1).stride() == (1, 12, 4) and (p + mt.ones(3)).stride() == (1, 12, 4)
    assert p[:, :, :2].exp().stride() == (1, 8, 4)


def test_view_errors_follow_the_layout():
    m, mt_ = mt.arange(6.).reshape(2, 3), torch.arange(6.).reshape(2, 3)
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride.*"
                                           r"Use \.reshape\(\.\.\.\) instead"):
        (m.t() * 2).view(-1)
    with pytest.raises(RuntimeError):
        (mt_.t() * 2).view(-1)
    assert (m.t() * 2).t().view(-1).tolist() == (mt_.t() * 2).t().view(-1).tolist()
    assert (m.t() > 2).t().view(-1).tolist() == (mt_.t() > 2).t().view(-1).tolist()
    with pytest.raises(RuntimeError, match='view size is not compatible'):
        m.t().exp().view(6)
    assert (m * 2).view(-1).tolist() == [0., 2., 4., 6., 8., 10.]   # row-major in, row-major out


def test_row_major_inputs_stay_row_major():
    a, b = mt.rand(4, 3), mt.rand(3)
    for r in (a + b, a * b, a.exp(), a > b, mt.where(a > 0.5, a, b), a + 1, mt.lerp(a, b, 0.5)):
        assert r.stride() == (3, 1)


def test_grads_are_unchanged():
    for L in (mt, torch):
        x = L.tensor(_A).permute(2, 0, 1).requires_grad_()
        y = L.tensor(_A[0, :, 0]).requires_grad_()
        r = (x * y).exp() + L.where(x > 0.5, x, y) * 2
        r.sum().backward()
        if L is mt: mr, mgx, mgy = r, x.grad, y.grad
        else: tr, tgx, tgy = r, x.grad, y.grad
    assert mr.stride() == tr.stride() and mr.grad_fn.name() == tr.grad_fn.name()
    for m, t in ((mr, tr), (mgx, tgx), (mgy, tgy)):
        torch.testing.assert_close(torch.tensor(m.detach().tolist()), t.detach())


def test_inplace_and_out_keep_their_tensor():
    x = mt.arange(6.).reshape(2, 3).t()
    y = x.add_(1)
    assert y is x and x.stride() == (1, 3)
    out = mt.empty(3, 2)
    mt.add(mt.arange(6.).reshape(2, 3).t(), 1, out=out)
    assert out.stride() == (2, 1) and out.tolist() == [[1., 4.], [2., 5.], [3., 6.]]


@pytest.mark.parametrize('seed', [301552, 116527, 100965])
def test_opinfo_seeds_agree(seed):
    # pointwise results of transposed/permuted inputs were row-major, so a later `view_as`/`kron` did not raise
    assert opinfo.run_program(opinfo.draw_program(seed, cuda_p=0.02)) == []


def test_power_of_a_number_is_row_major():
    # PyTorch's pow(Scalar, Tensor) (and float_power's) allocates a row-major result; pow(Tensor, Scalar) does not
    for f in (lambda L, x: 2 ** x, lambda L, x: L.pow(2, x), lambda L, x: L.float_power(2, x),
              lambda L, x: x ** 2, lambda L, x: L.pow(x, 2), lambda L, x: L.xlogy(2, x), lambda L, x: L.remainder(2, x)):
        _check(*_both(lambda L: f(L, L.arange(1., 7.).reshape(2, 3).t())))


@pytest.mark.parametrize('op', ['softmax', 'log_softmax', 'Tensor.softmax', 'logsigmoid', 'rrelu', 'rrelu_inplace'])
def test_row_major_composites(op):
    # PyTorch allocates these results row-major; ours are built of pointwise ops, whose results follow the input
    def f(L):
        x, F = L.tensor(_A).permute(2, 0, 1), L.nn.functional
        if op == 'softmax': return F.softmax(x, 1)
        if op == 'log_softmax': return L.log_softmax(x, 0)
        if op == 'Tensor.softmax': return x.softmax(-1)
        if op == 'logsigmoid': return F.logsigmoid(x)
        if op == 'rrelu': return F.rrelu(x, training=False)
        y = x.clone()
        r = F.rrelu(y, training=False, inplace=True)
        assert r is y
        return r
    _check(*_both(f))
    _check(*_both(lambda L: f(L).view(-1) if f(L).is_contiguous() else f(L).reshape(-1)))


@pytest.mark.parametrize('seed', [300483])
def test_rrelu_seed_agrees(seed):
    # rrelu(training=False) of a transposed input is row-major in PyTorch (a later `view` works)
    assert opinfo.run_program(opinfo.draw_program(seed, cuda_p=0.02)) == []


def test_permuted_operands_are_read_in_memory_order():
    "A transposed pair runs the kernel on views in memory order (no copy after): values and strides as torch's."
    import numpy as np
    g = np.random.default_rng(0)
    a, b = g.standard_normal((64, 48)).astype(np.float32), g.standard_normal((64, 48)).astype(np.float32)
    x, y, tx, ty = mt.tensor(a).t(), mt.tensor(b).t(), torch.tensor(a).t(), torch.tensor(b).t()
    for got, want in ((x + y, tx + ty), (x * y, tx * ty), (x.exp(), tx.exp()), (x.to(mt.float64).sin(), tx.double().sin())):
        assert got.stride() == want.stride()
        torch.testing.assert_close(torch.tensor(got.tolist(), dtype=want.dtype), want)
