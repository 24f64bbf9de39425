"""Complex autograd (PyTorch's conjugate-Wirtinger convention), gradcheck, higher order, inference mode."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minitorch as mt
from minitorch import autograd
from minitorch.autograd import Function
from minitorch.complex_autograd import angle, gradcheck as cgradcheck


def _z(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _check(f, *vals, seed=0, tol=1e-9):
    "z.grad of a random real loss of f(*vals) equals torch's."
    rng = np.random.default_rng(seed)
    ms = [mt.tensor(v, requires_grad=True) for v in vals]
    ts = [torch.tensor(v, requires_grad=True) for v in vals]
    mo, to = f(mt, *ms), f(torch, *ts)
    w, v = rng.standard_normal(tuple(to.shape)), rng.standard_normal(tuple(to.shape))

    def loss(lib, o):
        W, V = lib.tensor(w), lib.tensor(v)
        return (o.real * W + o.imag * V).sum() if o.is_complex() else (o * W).sum()
    loss(mt, mo).backward()
    loss(torch, to).backward()
    for m, t in zip(ms, ts):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.resolve_conj().numpy(), rtol=tol, atol=tol)


OPS = {
    'mul': lambda m, a, b: a * b,
    'div': lambda m, a, b: a / b,
    'abs': lambda m, a, b: a.abs() * b,
    'angle': lambda m, a, b: (torch.angle(a) if m is torch else angle(a)) * b,
    'real': lambda m, a, b: a.real * b,
    'imag': lambda m, a, b: a.imag * b,
    'conj': lambda m, a, b: a.conj() * b,
    'exp': lambda m, a, b: a.exp() * b,
    'log': lambda m, a, b: a.log() * b,
    'sin': lambda m, a, b: a.sin() + b,
    'cos': lambda m, a, b: a.cos() * b,
    'matmul': lambda m, a, b: a @ b.mT,
    'sum': lambda m, a, b: (a * b).sum(-1),
    'pow_int': lambda m, a, b: a ** 3 * b,
    'pow_float': lambda m, a, b: a ** 2.5 + b,
    'pow_tensor': lambda m, a, b: a ** b,
    'views': lambda m, a, b: a.mT.reshape(-1)[1:] * b.flatten()[:-1],
    'expand_select': lambda m, a, b: a[0].unsqueeze(0).expand(3, a.shape[1]) * b[:1],
    'sgn': lambda m, a, b: a.sgn() * b,
    'sqrt_tanh': lambda m, a, b: a.sqrt() + b.tanh(),
}


@pytest.mark.parametrize("name", list(OPS))
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3), st.integers(2, 3), st.integers(0, 10_000))
def test_complex_grads_match_torch(name, n, k, seed):
    _check(OPS[name], _z((n, k), seed), _z((n, k), seed + 1), seed=seed)


def test_documented_values():
    z = mt.tensor([1 + 2j], requires_grad=True)
    (z.abs() ** 2).sum().backward()
    assert z.grad.tolist() == [2 + 4j]
    z = mt.tensor([1 + 2j], requires_grad=True)
    angle(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [-0.4 + 0.2j])
    z = mt.tensor([0j], requires_grad=True)
    angle(z).sum().backward()
    assert z.grad.tolist() == [0j]
    z = mt.tensor([0j], requires_grad=True)
    z.abs().sum().backward()
    assert z.grad.tolist() == [0j]


def test_angle_real_input():
    x = mt.tensor([-1., 2., 0.], requires_grad=True)
    y = angle(x)
    np.testing.assert_allclose(y.detach().numpy(), torch.angle(torch.tensor([-1., 2., 0.])).numpy())
    y.sum().backward()
    assert x.grad.tolist() == [0., 0., 0.]


def test_complex_python_scalar_mul():
    _check(lambda m, a, b: a * (1 + 2j) + b / (0.5 - 1j), _z((3,), 1), _z((3,), 2))


def test_real_leaf_feeding_complex_ops():
    x = mt.tensor([1., 2.], requires_grad=True)
    (x * (1 + 1j)).real.sum().backward()
    assert x.grad.tolist() == [1., 1.] and x.grad.dtype == mt.float32


def test_real_leaf_feeding_complex_scalar_imag():
    x = mt.tensor([1., 2.], requires_grad=True)
    (x * (1 + 1j)).imag.sum().backward()
    assert x.grad.tolist() == [1., 1.]


def test_real_leaf_through_complex_tensor():
    x = mt.tensor([1., 2.], dtype=mt.float64, requires_grad=True)
    c = mt.tensor([1 + 1j, 2 - 1j])
    tx = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    tc = torch.tensor([1 + 1j, 2 - 1j])
    ((x * c).exp().imag).sum().backward()
    ((tx * tc).exp().imag).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert x.grad.dtype == mt.float64


def test_backward_on_complex_scalar_raises():
    z = mt.tensor([1 + 2j], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar outputs"):
        (z * z).sum().backward()


class BadExp(Function):
    @staticmethod
    def forward(ctx, z):
        y = z.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y          # forgets the conjugate


Z = _z((3,), 7)


@pytest.mark.parametrize("f", [lambda z: z.exp() * z, lambda z: (z * z.conj()).log(), lambda z: z.abs() * angle(z),
                               lambda z: z.sin() @ z.cos(), lambda z: z.real * z.imag])
def test_complex_gradcheck_passes(f):
    assert cgradcheck(f, (mt.tensor(Z, requires_grad=True),))


def test_complex_gradcheck_catches_missing_conj():
    z = mt.tensor(Z, requires_grad=True)
    assert not cgradcheck(lambda z: BadExp.apply(z), (z,), raise_exception=False)
    with pytest.raises(RuntimeError, match="While considering the imaginary part of complex outputs only, "
                                           "Jacobian mismatch"):
        cgradcheck(lambda z: BadExp.apply(z), (z,))


def test_core_gradcheck_on_complex128():
    assert autograd.gradcheck(lambda z: z.exp() * z, (mt.tensor(Z, requires_grad=True),))


def test_core_gradcheck_catches_missing_conj():
    z = mt.tensor(Z, requires_grad=True)
    assert not autograd.gradcheck(lambda z: BadExp.apply(z), (z,), raise_exception=False)


def test_gradgradcheck_real_and_complex():
    x = mt.tensor([0.3, -1.2, 2.0], dtype=mt.float64, requires_grad=True)
    assert autograd.gradgradcheck(lambda x: (x.sin() * x.exp()).sum() * x, (x,))


# ---------------------------------------------------------------- higher order
def _pair(vals):
    return mt.tensor(vals, dtype=mt.float64, requires_grad=True), torch.tensor(vals, dtype=torch.float64,
                                                                               requires_grad=True)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=1, max_size=4))
def test_second_derivative(vals):
    x, tx = _pair(vals)
    f = lambda x: (x.sin() * x * x + x.exp() / (1 + x * x)).sum()
    g, = autograd.grad(f(x), x, create_graph=True)
    gg, = autograd.grad(g.sum(), x)
    tg, = torch.autograd.grad(f(tx), tx, create_graph=True)
    tgg, = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-10)


def test_backward_create_graph():
    x, tx = _pair([0.5, 1.5])
    (x.tanh() ** 3).sum().backward(create_graph=True)
    (tx.tanh() ** 3).sum().backward(create_graph=True)
    g2, = autograd.grad((x.grad ** 2).sum(), x)
    tg2, = torch.autograd.grad((tx.grad ** 2).sum(), tx)
    np.testing.assert_allclose(g2.numpy(), tg2.numpy(), rtol=1e-10)


def test_hessian_vector_product():
    vals, v = [0.1, -0.7, 1.3], [1., 2., -1.]
    x, tx = _pair(vals)
    W = np.arange(9.).reshape(3, 3) / 10
    f = lambda lib, x: (lib.tensor(W) @ x).tanh().sum() + (x ** 4).sum() + lib.softmax(x, 0)[0]
    g, = autograd.grad(f(mt, x), x, create_graph=True)
    hv, = autograd.grad((g * mt.tensor(v, dtype=mt.float64)).sum(), x)
    tg, = torch.autograd.grad(f(torch, tx), tx, create_graph=True)
    thv, = torch.autograd.grad((tg * torch.tensor(v, dtype=torch.float64)).sum(), tx)
    np.testing.assert_allclose(hv.numpy(), thv.numpy(), rtol=1e-10)


def test_gradient_penalty():
    rng = np.random.default_rng(0)
    xs, Ws = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    x, tx = _pair(xs.tolist())
    W, tW = _pair(Ws.tolist())
    def penalty(lib, x, W):
        d = (x @ W).relu().sum(1) + (x * x).sum(1).sqrt()
        g, = (autograd if lib is mt else torch.autograd).grad(d.sum(), x, create_graph=True)
        return ((g.pow(2).sum(1).sqrt() - 1) ** 2).mean()
    penalty(mt, x, W).backward()
    penalty(torch, tx, tW).backward()
    np.testing.assert_allclose(W.grad.numpy(), tW.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_complex_second_order():
    z = mt.tensor(Z, requires_grad=True)
    tz = torch.tensor(Z, requires_grad=True)
    g, = autograd.grad((z.exp() * z.conj()).abs().sum(), z, create_graph=True)
    tg, = torch.autograd.grad((tz.exp() * tz.conj()).abs().sum(), tz, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-10)
    g2, = autograd.grad(g.abs().sum(), z)
    tg2, = torch.autograd.grad(tg.abs().sum(), tz)
    np.testing.assert_allclose(g2.numpy(), tg2.numpy(), rtol=1e-9)


# ---------------------------------------------------------------- inference_mode vs no_grad
def test_inference_mode_vs_no_grad():
    w = mt.tensor([1., 2.], requires_grad=True)
    with mt.inference_mode():
        i = mt.ones(2)
        j = i * 2
        assert mt.is_inference_mode_enabled() and not mt.is_grad_enabled()
    with mt.no_grad():
        n = mt.ones(2) * 2
    assert i.is_inference() and j.is_inference() and not n.is_inference()
    assert not j.requires_grad and not n.requires_grad
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (w * i).sum()
    (w * n).sum().backward()                      # no_grad outputs are ordinary tensors
    assert w.grad.tolist() == [2., 2.]
    c = i.clone()
    assert not c.is_inference()
    (w * c).sum().backward()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        i.add_(1)
    with mt.inference_mode(False):
        assert not mt.ones(1).is_inference()


def test_inference_mode_decorator():
    @mt.inference_mode()
    def f(x):
        return x * 2
    assert f(mt.ones(2)).is_inference()
