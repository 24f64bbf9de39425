"""minitorch.func against torch.func: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minitorch as mt
from minitorch import func as mf
import minitorch.nn as mnn

shapes = st.lists(st.integers(1, 3), min_size=1, max_size=2)
seeds = st.integers(0, 10_000)


def _pair(shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape)
    return mt.tensor(x), torch.tensor(x)


def _close(a, b, tol=1e-6):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b): _close(u, v, tol)
        return
    assert not a.requires_grad
    np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=tol, atol=tol)


F = {  # name: f(lib, x) -> tensor
    'sin_mul': lambda m, x: x.sin() * x,
    'exp_div': lambda m, x: x.exp() / (1 + x * x),
    'reduce': lambda m, x: (x * x).sum(-1, keepdim=True) * x,
    'softmax': lambda m, x: m.softmax(x, -1),
    'tanh_mm': lambda m, x: (x.reshape(-1, 1) @ x.reshape(1, -1)).tanh(),
}


@pytest.mark.task20_1
@pytest.mark.parametrize("name", list(F))
@settings(max_examples=5, deadline=None)
@given(shapes, seeds)
def test_jacrev(name, shape, seed):
    x, tx = _pair(shape, seed)
    _close(mf.jacrev(lambda a: F[name](mt, a))(x), torch.func.jacrev(lambda a: F[name](torch, a))(tx))


@pytest.mark.task20_2
@pytest.mark.parametrize("name", list(F))
@settings(max_examples=5, deadline=None)
@given(shapes, seeds)
def test_jacfwd(name, shape, seed):
    x, tx = _pair(shape, seed)
    _close(mf.jacfwd(lambda a: F[name](mt, a))(x), torch.func.jacfwd(lambda a: F[name](torch, a))(tx))


@pytest.mark.task20_1
def test_jacrev_argnums_and_multiple_outputs():
    (x, tx), (y, ty) = _pair((3,), 1), _pair((3,), 2)
    f = lambda m: (lambda a, b: (a * b, (a.sin() * b).sum()))
    _close(mf.jacrev(f(mt), argnums=(0, 1))(x, y), torch.func.jacrev(f(torch), argnums=(0, 1))(tx, ty))
    _close(mf.jacrev(f(mt), argnums=1)(x, y), torch.func.jacrev(f(torch), argnums=1)(tx, ty))


@pytest.mark.task20_2
def test_jacfwd_argnums_and_multiple_outputs():
    (x, tx), (y, ty) = _pair((3,), 1), _pair((2, 3), 2)
    f = lambda m: (lambda a, b: (a * b, (a.sin() * b).sum()))
    _close(mf.jacfwd(f(mt), argnums=(0, 1))(x, y), torch.func.jacfwd(f(torch), argnums=(0, 1))(tx, ty))


@pytest.mark.task20_1
@pytest.mark.task20_2
def test_jacrev_equals_jacfwd():
    x, _ = _pair((2, 3), 5)
    f = lambda a: (a.exp() * a.sum()).cos()
    a, b = mf.jacrev(f)(x), mf.jacfwd(f)(x)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@settings(max_examples=8, deadline=None)
@given(shapes, seeds)
def test_grad_and_vjp(shape, seed):
    x, tx = _pair(shape, seed)
    f = lambda m: (lambda a: (a.sin() * a.exp()).sum())
    _close(mf.grad(f(mt))(x), torch.func.grad(f(torch))(tx))
    out, fn = mf.vjp(lambda a: a.tanh() * a, x)
    tout, tfn = torch.func.vjp(lambda a: a.tanh() * a, tx)
    c, tc = _pair(shape, seed + 1)
    _close(out, tout)
    g = fn(c)
    assert isinstance(g, tuple) and len(g) == 1
    _close(g, tfn(tc))


@settings(max_examples=8, deadline=None)
@given(shapes, seeds)
def test_jvp(shape, seed):
    (x, tx), (t, tt) = _pair(shape, seed), _pair(shape, seed + 1)
    f = lambda m: (lambda a: (a.sin() * a).exp() / (1 + a * a))
    _close(mf.jvp(f(mt), (x,), (t,)), torch.func.jvp(f(torch), (tx,), (tt,)))


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 3), seeds)
def test_hessian(n, seed):
    x, tx = _pair((n,), seed)
    f = lambda m: (lambda a: (a.sin() * a[0] + a * a * a).sum())
    _close(mf.hessian(f(mt))(x), torch.func.hessian(f(torch))(tx), 1e-5)
    rr = mf.jacrev(mf.jacrev(f(mt)))(x)
    _close(rr, torch.func.hessian(f(torch))(tx), 1e-5)


def test_grad_options():
    (x, tx), (y, ty) = _pair((3,), 1), _pair((3,), 2)
    f = lambda a, b: ((a * b).sum(), a.sum())
    g, aux = mf.grad(f, argnums=(0, 1), has_aux=True)(x, y)
    tg, taux = torch.func.grad(f, argnums=(0, 1), has_aux=True)(tx, ty)
    _close(g, tg); _close(aux, taux)
    (g2, (v, aux2)) = mf.grad_and_value(f, argnums=1, has_aux=True)(x, y)
    (tg2, (tv, _)) = torch.func.grad_and_value(f, argnums=1, has_aux=True)(tx, ty)
    _close(g2, tg2); _close(v, tv)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        mf.grad(lambda a: a * 2)(x)
    # grad of grad
    assert abs(mf.grad(mf.grad(lambda a: a ** 3))(mt.tensor(2.)).item() - 12.0) < 1e-12


def test_vmap():
    (a, ta), (b, tb) = _pair((4, 3), 1), _pair((3,), 2)
    _close(mf.vmap(lambda u, v: u @ v, in_dims=(0, None))(a, b),
           torch.func.vmap(lambda u, v: u @ v, in_dims=(0, None))(ta, tb))
    _close(mf.vmap(lambda u: u.sin(), in_dims=1, out_dims=1)(a), torch.func.vmap(torch.sin, 1, 1)(ta))
    per_example = mf.vmap(mf.grad(lambda u: (u * u).sum()))(a)
    _close(per_example, torch.func.vmap(torch.func.grad(lambda u: (u * u).sum()))(ta))


class _Tied(mnn.Module):
    def __init__(self):
        super().__init__()
        self.a = mnn.Linear(3, 3)
        self.b = mnn.Linear(3, 3)
        self.b.weight = self.a.weight
        self.register_buffer('scale', mt.tensor(2.0))

    def forward(self, x):
        return self.b(self.a(x)) * self.scale


def test_functional_call():
    m = _Tied()
    x = mt.randn(2, 3)
    before = {k: v.detach().clone() for k, v in m.state_dict().items()}
    W = mt.eye(3)
    out = mf.functional_call(m, {'a.weight': W, 'scale': mt.tensor(1.0)}, (x,))
    expect = (x @ W.T + m.a.bias) @ W.T + m.b.bias        # tied: b.weight replaced too
    np.testing.assert_allclose(out.detach().numpy(), expect.detach().numpy(), rtol=1e-6)
    out2 = mf.functional_call(m, {'a.weight': W}, (x,), tie_weights=False)
    expect2 = ((x @ W.T + m.a.bias) @ m.b.weight.T + m.b.bias) * 2
    np.testing.assert_allclose(out2.detach().numpy(), expect2.detach().numpy(), rtol=1e-5)
    for k, v in m.state_dict().items():                  # module untouched
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    assert mf.functional_call(m, {'nope': W}, (x,)) is not None     # unknown keys ignored
    with pytest.raises(RuntimeError, match="Unexpected key"):
        mf.functional_call(m, {'nope': W}, (x,), strict=True)
    with pytest.raises(ValueError, match="which are tied"):
        mf.functional_call(m, {'a.weight': W, 'b.weight': mt.zeros(3, 3)}, (x,))


def test_functional_call_under_grad():
    lin = mnn.Linear(3, 2)
    tlin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        tlin.weight.copy_(torch.tensor(lin.weight.detach().numpy()))
        tlin.bias.copy_(torch.tensor(lin.bias.detach().numpy()))
    x = mt.randn(4, 3)
    tx = torch.tensor(x.numpy())
    params = {k: v.detach() for k, v in lin.named_parameters()}
    tparams = {k: v.detach() for k, v in tlin.named_parameters()}
    loss = lambda p: (mf.functional_call(lin, p, (x,)) ** 2).sum()
    tloss = lambda p: (torch.func.functional_call(tlin, p, (tx,)) ** 2).sum()
    g, tg = mf.grad(loss)(params), torch.func.grad(tloss)(tparams)
    for k in tg: np.testing.assert_allclose(g[k].numpy(), tg[k].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not (mt.cuda.is_available() or mt.cuda.is_simulator()), reason="needs cuda (a GPU or the simulator)")
def test_on_cuda_device():
    from minitorch import forward_ad as fw
    x, t = mt.tensor([1., 2., 3.], device='cuda'), mt.tensor([1., 0., .5], device='cuda')
    with fw.dual_level():
        d = fw.make_dual(x, t)
        assert abs(fw.unpack_dual((d * d.sin()).sum()).tangent.item() + 0.0327) < 1e-4
    f = lambda a: a.exp() * a
    np.testing.assert_allclose(mf.jacrev(f)(x).cpu().numpy(), mf.jacfwd(f)(x).cpu().numpy(), rtol=1e-5)
    z = mt.tensor([1 + 2j, 0.5 - 1j], device='cuda', requires_grad=True)
    (z.exp() * z.conj()).abs().sum().backward()
    tz = torch.tensor([1 + 2j, 0.5 - 1j], dtype=torch.complex64, requires_grad=True)
    (tz.exp() * tz.conj()).abs().sum().backward()
    np.testing.assert_allclose(z.grad.cpu().numpy(), tz.grad.numpy(), rtol=1e-5)
