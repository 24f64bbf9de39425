"""Parity regressions (issue 12): multi_margin_loss's gradient under a NaN/inf grad_output; tensordot/inner on 1-D bool."""
import itertools
import pytest
import torch
import minitorch

INF, NAN = float('inf'), float('nan')


def _mt(t, **kw):
    return minitorch.tensor(t.tolist(), dtype=getattr(minitorch, str(t.dtype).split('.')[-1]), **kw)


def _grads(x, y, g, **kw):
    "(minitorch's grad, torch's grad) of multi_margin_loss(x, y, **kw) pulled back with grad_output `g`."
    tx = x.clone().requires_grad_()
    torch.nn.functional.multi_margin_loss(tx, y, **kw).backward(g)
    mkw = dict(kw)
    if kw.get('weight') is not None: mkw['weight'] = _mt(kw['weight'])
    mx = _mt(x, requires_grad=True)
    minitorch.nn.functional.multi_margin_loss(mx, _mt(y), **mkw).backward(_mt(g))
    return torch.tensor(mx.grad.tolist(), dtype=x.dtype), tx.grad


@pytest.mark.parametrize("p,weighted,reduction,one_d", list(itertools.product(
    [1, 2], [False, True], ["none", "mean", "sum"], [False, True])))
@pytest.mark.parametrize('gval', [NAN, INF, -INF, 0.0, 1.5])
def test_multi_margin_loss_grad_nonfinite_grad_output(p, weighted, reduction, one_d, gval):
    # rows with a skipped class, with every class skipped, with NaN/inf scores; PyTorch's kernel multiplies every
    # entry of a row (skipped ones included) by grad_output, so 0 * NaN = NaN there
    x = torch.tensor([[0., 5., 4.5, -1.], [2., 0., 1., 0.5], [NAN, 1., 0.3, 0.], [0.1, INF, 0.2, 0.], [1., 1., 1., 1.]],
                     dtype=torch.float64)
    y = torch.tensor([1, 0, 1, 2, 3])
    w = torch.tensor([0.5, 2., 1., 3.], dtype=torch.float64) if weighted else None
    if one_d: x, y = x[0], y[0]
    n = 1 if one_d else x.shape[0]
    g = torch.full((n,) if reduction == 'none' and not one_d else (), gval, dtype=torch.float64)
    if reduction == 'none' and not one_d: g[1::2] = 0.75   # finite and non-finite rows mixed
    ours, want = _grads(x, y, g, p=p, margin=0.7, weight=w, reduction=reduction)
    torch.testing.assert_close(ours, want, equal_nan=True)


def test_multi_margin_loss_grad_seed_113283():
    # the program of seed 113283: a (4, 1) float64 input, so the only class is the target: all entries skipped
    x, y = torch.tensor([[0.3], [-1.], [2.], [0.]], dtype=torch.float64), torch.tensor([0, 0, 0, 0])
    g = torch.tensor([NAN, 1., INF, 0.], dtype=torch.float64)
    ours, want = _grads(x, y, g, p=1, margin=0.5, reduction='none', weight=torch.tensor([2.], dtype=torch.float64))
    torch.testing.assert_close(ours, want, equal_nan=True)


def _call(f):
    try: return f()
    except Exception as e: return type(e)


@pytest.mark.parametrize('fn', ['inner', 'tensordot'])
@pytest.mark.parametrize('dtype', ['bool', 'float32', 'int64'])
def test_inner_tensordot_1d_strided(fn, dtype):
    # PyTorch's 1x1 contraction is `dot` ("not implemented for 'Bool'") only when both operands are contiguous;
    # a strided (or expanded) one is multiplied and summed, which works for Bool
    base = torch.tensor([1, 0, 1, 1, 0, 1, 1, 1, 0, 1], dtype=getattr(torch, dtype)) * (1 if dtype == 'bool' else 3)
    mbase = _mt(base)
    views = {'c': lambda b: b[:5], 'c2': lambda b: b[5:], 's': lambda b: b[::2], 's2': lambda b: b[1::2],
             'x': lambda b: b[3:4].expand(5)}
    for (ka, fa), (kb, fb) in itertools.product(views.items(), views.items()):
        tf = (lambda u, v: torch.inner(u, v)) if fn == 'inner' else (lambda u, v: torch.tensordot(u, v, 1))
        mf = (lambda u, v: minitorch.inner(u, v)) if fn == 'inner' else (lambda u, v: minitorch.tensordot(u, v, 1))
        want, ours = _call(lambda: tf(fa(base), fb(base))), _call(lambda: mf(fa(mbase), fb(mbase)))
        if isinstance(want, type):
            assert ours is want, (ka, kb)
        else:
            assert not isinstance(ours, type), (ka, kb, ours)
            torch.testing.assert_close(torch.tensor(ours.tolist(), dtype=want.dtype), want, rtol=0, atol=0)


def test_tensordot_bool_2d_full_contraction():
    a = torch.tensor([[True, False], [True, True]])
    for x, y, dims in [(a, a, 2), (a.t(), a, 2), (a, a, ([1, 0], [1, 0])), (a, a, ([1, 0], [0, 1]))]:
        want, ours = _call(lambda: torch.tensordot(x, y, dims)), _call(lambda: minitorch.tensordot(_mt(x.contiguous()) if x.is_contiguous() else _mt(x.t().contiguous()).t(), _mt(y), dims))
        assert (ours is want) if isinstance(want, type) else ours.item() == want.item()


@pytest.mark.parametrize('target', [[1], 1])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_multi_margin_loss_1d_input_shape(target, reduction):
    # (C,) scores: reduction='none' returns the target's shape, (1,) or ()
    x, y = torch.tensor([0.2, -1., 0.5, 2.]), torch.tensor(target)
    want = torch.nn.functional.multi_margin_loss(x, y, reduction=reduction)
    ours = minitorch.nn.functional.multi_margin_loss(_mt(x), _mt(y), reduction=reduction)
    assert tuple(ours.shape) == tuple(want.shape)
    torch.testing.assert_close(torch.tensor(ours.tolist()), want)


def _kernels(L):
    return [L.tensor(2), L.tensor([2]), L.tensor(2, dtype=L.uint8), (L.tensor(2), 2, L.tensor(1)), L.tensor(2.0),
            L.tensor([2, 2, 2])]


@pytest.mark.parametrize('name', ['max_pool3d', 'avg_pool3d', 'lp_pool3d', 'max_pool3d_with_indices'])
@pytest.mark.parametrize('ki', range(6))
@pytest.mark.parametrize('by_kw', [False, True])
def test_pool3d_integer_tensor_kernel(name, ki, by_kw):
    # PyTorch's int[] parser reads a 0-d (or one-element) integer tensor as an int; a float one is a TypeError;
    # lp_pool3d's Python `_triple` iterates the tensor first (TypeError / ValueError)
    x = torch.randn(1, 2, 4, 5, 4)
    pre = (2.0,) if name == 'lp_pool3d' else ()
    tf, mf = getattr(torch.nn.functional, name), getattr(minitorch.nn.functional, name)
    kt, km = _kernels(torch)[ki], _kernels(minitorch)[ki]
    call = lambda f, xx, k, s: f(xx, *pre, kernel_size=k, stride=s) if by_kw else f(xx, *pre, k, s)
    for st, sm in [(None, None), (torch.tensor(1), minitorch.tensor(1))]:
        want, ours = _call(lambda: call(tf, x, kt, st)), _call(lambda: call(mf, _mt(x), km, sm))
        if isinstance(want, type):
            assert ours is want
            continue
        assert not isinstance(ours, type), ours
        for w, o in zip(want if isinstance(want, tuple) else (want,), ours if isinstance(ours, tuple) else (ours,)):
            torch.testing.assert_close(torch.tensor(o.tolist(), dtype=w.dtype), w)


def test_complex_std_mean_zero_gradient_still_counts():
    "seed 603480: abs'(NaN std) is 0, and torch's std_backward still runs: 0 / (2 * NaN) spreads NaN; an unused output does not."
    for lib in (torch, minitorch):
        z = lib.tensor([[complex(float('nan'), 1), 1 + 1j], [2, 3j]], dtype=lib.complex128, requires_grad=True)
        s, m = lib.std_mean(z, correction=1)
        s.abs().sum().backward()
        w = lib.tensor([[1 + 2j, 1 + 1j], [2, 3j]], dtype=lib.complex128, requires_grad=True)
        s2, m2 = lib.std_mean(w, dim=0)
        m2.abs().sum().backward()                      # std unused: its gradient is undefined, not zero
        if lib is torch: want = (z.grad, w.grad)
        else: got = (z.grad, w.grad)
    for g, t in zip(got, want):
        torch.testing.assert_close(torch.tensor(g.tolist(), dtype=torch.complex128), t, equal_nan=True)
