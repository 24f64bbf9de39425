"""Pooling with indices, unpooling, 1-d and adaptive pooling, padding modes, conv padding_mode, embedding options,
against PyTorch: forward values, dtypes, input and parameter gradients, error types and messages."""
import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings, strategies as st

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F

tF = torch.nn.functional
SETTINGS = dict(max_examples=25, deadline=None)


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol=1e-9):
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    return a.shape == tuple(b.shape) and np.allclose(a, b.detach().numpy(), atol=tol, rtol=tol, equal_nan=True)


def run_both(fn_ours, fn_theirs, x, *extra, tol=1e-9):
    "Forward and input gradient of `fn(x)` (first output if a tuple) in both libraries; returns both outputs."
    tx = x.clone().requires_grad_()
    ox = mt(x, requires_grad=True)
    tout, out = fn_theirs(tx, *extra), fn_ours(ox, *[mt(e) for e in extra])
    t0, o0 = (tout[0], out[0]) if isinstance(tout, tuple) else (tout, out)
    assert close(o0, t0, tol), (o0, t0)
    g = torch.randn_like(t0)
    t0.backward(g)
    o0.backward(mt(g))
    assert close(ox.grad, tx.grad, tol)
    return out, tout


def raises_like(fn_ours, fn_theirs):
    "Both raise the same exception type with the same message."
    with pytest.raises(Exception) as te: fn_theirs()
    with pytest.raises(Exception) as oe: fn_ours()
    assert type(oe.value) is type(te.value), (oe.value, te.value)
    assert str(oe.value) == str(te.value), (str(oe.value), str(te.value))


# --- max pooling with indices ---------------------------------------------------------------------------------

pool_cfg = st.fixed_dictionaries(dict(
    k=st.integers(1, 3), s=st.integers(1, 3), d=st.integers(1, 2), p=st.integers(0, 1), ceil=st.booleans(),
    H=st.integers(4, 7), W=st.integers(4, 7)))


@settings(**SETTINGS)
@given(cfg=pool_cfg, dt=st.sampled_from([torch.float32, torch.float64]), unbatched=st.booleans())
def test_max_pool2d_indices_values_and_grads(cfg, dt, unbatched):
    k, s, d, p = cfg['k'], cfg['s'], cfg['d'], min(cfg['p'], cfg['k'] // 2)
    assume(min(cfg['H'], cfg['W']) + 2 * p >= d * (k - 1) + 1)
    shape = (3, cfg['H'], cfg['W']) if unbatched else (2, 3, cfg['H'], cfg['W'])
    x = torch.randn(*shape, dtype=dt)
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=cfg['ceil'], return_indices=True)
    (out, ind), (tout, tind) = run_both(lambda a: F.max_pool2d(a, **kw), lambda a: tF.max_pool2d(a, **kw), x,
                                        tol=1e-6)
    assert ind.dtype == minitorch.int64 and (ind.numpy() == tind.numpy()).all()
    assert out.dtype == (minitorch.float32 if dt == torch.float32 else minitorch.float64)


def test_max_pool2d_ties_nan_and_module():
    x = torch.tensor([[[[1., 1., 2., 2.], [1., 1., 2., 2.], [float('nan'), 0., 5., 5.], [0., float('nan'), 5., 1.]]]])
    (v, i), (tv, ti) = F.max_pool2d(mt(x), 2, return_indices=True), tF.max_pool2d(x, 2, return_indices=True)
    assert close(v, tv) and (i.numpy() == ti.numpy()).all()
    m, tm = nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)
    assert (m(mt(x))[1].numpy() == tm(x)[1].numpy()).all() and repr(m) == repr(tm)


@settings(**SETTINGS)
@given(k=st.integers(1, 3), s=st.integers(1, 3), p=st.integers(0, 1), L=st.integers(4, 9), d=st.integers(1, 2),
       ceil=st.booleans())
def test_pool1d(k, s, p, L, d, ceil):
    p = min(p, k // 2)
    assume(L + 2 * p >= d * (k - 1) + 1)
    x = torch.randn(2, 3, L, dtype=torch.float64)
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil)
    (out, ind), (tout, tind) = run_both(lambda a: F.max_pool1d(a, return_indices=True, **kw),
                                        lambda a: tF.max_pool1d(a, return_indices=True, **kw), x)
    assert (ind.numpy() == tind.numpy()).all()
    kw.pop('dilation')
    for cip in (True, False):
        run_both(lambda a: F.avg_pool1d(a, count_include_pad=cip, **kw),
                 lambda a: tF.avg_pool1d(a, count_include_pad=cip, **kw), x)
    assert repr(nn.MaxPool1d(k, s, p)) == repr(torch.nn.MaxPool1d(k, s, p))
    assert repr(nn.AvgPool1d(k, s, p)) == repr(torch.nn.AvgPool1d(k, s, p))
    assert close(nn.AvgPool1d(k, s, p)(mt(x)), torch.nn.AvgPool1d(k, s, p)(x))
    assert close(nn.MaxPool1d(k, s, p)(mt(x[0])), torch.nn.MaxPool1d(k, s, p)(x[0]))


@settings(**SETTINGS)
@given(H=st.integers(1, 9), W=st.integers(1, 9), oh=st.integers(1, 5), ow=st.one_of(st.none(), st.integers(1, 5)),
       unbatched=st.booleans())
def test_adaptive_pool2d(H, W, oh, ow, unbatched):
    x = torch.randn(*((3,) if unbatched else (2, 3)), H, W, dtype=torch.float64)
    size = (oh, ow)
    run_both(lambda a: F.adaptive_avg_pool2d(a, size), lambda a: tF.adaptive_avg_pool2d(a, size), x)
    (o, i), (t, ti) = run_both(lambda a: F.adaptive_max_pool2d(a, size, return_indices=True),
                               lambda a: tF.adaptive_max_pool2d(a, size, return_indices=True), x)
    assert (i.numpy() == ti.numpy()).all()
    assert close(nn.AdaptiveAvgPool2d(size)(mt(x)), torch.nn.AdaptiveAvgPool2d(size)(x))
    assert repr(nn.AdaptiveAvgPool2d(size)) == repr(torch.nn.AdaptiveAvgPool2d(size))
    run_both(lambda a: F.adaptive_avg_pool1d(a, oh), lambda a: tF.adaptive_avg_pool1d(a, oh), x[..., 0, :])


@settings(**SETTINGS)
@given(k=st.integers(2, 3), s=st.integers(1, 3), p=st.integers(0, 1), H=st.integers(4, 7), W=st.integers(4, 7))
def test_max_unpool2d_roundtrip(k, s, p, H, W):
    p = min(p, k // 2)
    x = torch.randn(2, 3, H, W, dtype=torch.float64)
    tv, ti = tF.max_pool2d(x, k, s, p, return_indices=True)
    if s < k: return        # overlapping windows may repeat an index: PyTorch then keeps an arbitrary copy
    try: tF.max_unpool2d(tv, ti, k, s, p)
    except RuntimeError:          # the default output size is smaller than the plane the indices point into
        with pytest.raises(RuntimeError, match=r"Found an invalid max index: \d+ \(output volumes are of size"):
            F.max_unpool2d(mt(tv), mt(ti), k, s, p)
    else: run_both(lambda a, i: F.max_unpool2d(a, i, k, s, p), lambda a, i: tF.max_unpool2d(a, i, k, s, p), tv, ti)
    run_both(lambda a, i: F.max_unpool2d(a, i, k, s, p, output_size=(H, W)),
             lambda a, i: tF.max_unpool2d(a, i, k, s, p, output_size=(H, W)), tv, ti)
    u, tu = nn.MaxUnpool2d(k, s, p), torch.nn.MaxUnpool2d(k, s, p)
    assert close(u(mt(tv), mt(ti), (H, W)), tu(tv, ti, (H, W))) and repr(u) == repr(tu)


def test_max_unpool1d():
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    v, i = tF.max_pool1d(x, 2, return_indices=True)
    assert close(F.max_unpool1d(mt(v), mt(i), 2), tF.max_unpool1d(v, i, 2))
    assert close(nn.MaxUnpool1d(2)(mt(v), mt(i)), torch.nn.MaxUnpool1d(2)(v, i))


# --- padding --------------------------------------------------------------------------------------------------

@settings(**SETTINGS)
@given(mode=st.sampled_from(['reflect', 'replicate', 'circular']), nd=st.sampled_from([1, 2, 3]),
       pads=st.lists(st.integers(-1, 2), min_size=6, max_size=6), batched=st.booleans())
def test_pad_modes(mode, nd, pads, batched):
    x = torch.randn(*((2, 3) if batched else (3,)), *([4] * nd), dtype=torch.float64)
    p = tuple(pads[:2 * nd])
    run_both(lambda a: F.pad(a, p, mode=mode), lambda a: tF.pad(a, p, mode=mode), x)


@pytest.mark.parametrize('args', [((7, 7, 1, 1), 'reflect'), ((2,), 'reflect'), ((1, 1), 'foo'),
                                  ((7, 7, 1, 1), 'circular'), ((1, 1), 'reflect'), ((1,) * 10, 'constant')])
def test_pad_errors(args):
    x = torch.randn(2, 3, 5, 6)
    raises_like(lambda: F.pad(mt(x), *args), lambda: tF.pad(x, *args))


@pytest.mark.parametrize('mode', ['zeros', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('kw', [dict(padding=1), dict(padding='same', dilation=2), dict(padding=(1, 2), stride=2),
                                dict(padding='valid')])
def test_conv_padding_mode(mode, kw):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 6, dtype=torch.float64)
    tc = torch.nn.Conv2d(3, 4, 3, padding_mode=mode, dtype=torch.float64, **kw)
    c = nn.Conv2d(3, 4, 3, padding_mode=mode, dtype=minitorch.float64, **kw)
    c.load_state_dict({k: mt(v) for k, v in tc.state_dict().items()})
    run_both(c, tc, x)
    for (n, p), tp in zip(c.named_parameters(), tc.parameters()): assert close(p.grad, tp.grad), n
    assert repr(c) == repr(tc)
    kw1 = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kw.items()}
    t1 = torch.nn.Conv1d(3, 2, 3, padding_mode=mode, dtype=torch.float64, **kw1)
    c1 = nn.Conv1d(3, 2, 3, padding_mode=mode, dtype=minitorch.float64, **kw1)
    c1.load_state_dict({k: mt(v) for k, v in t1.state_dict().items()})
    run_both(c1, t1, x[:, :, 0])
    assert repr(c1) == repr(t1)


def test_conv_padding_errors():
    with pytest.raises(ValueError) as e:       # PyTorch prints a set: its order varies between runs
        nn.Conv2d(1, 1, 3, padding_mode='bad')
    msg = str(e.value)
    assert msg.startswith("padding_mode must be one of {") and msg.endswith("}, but got padding_mode='bad'")
    assert all(f"'{m}'" in msg for m in ('zeros', 'reflect', 'replicate', 'circular'))
    raises_like(lambda: nn.Conv2d(1, 1, 3, stride=2, padding='same'),
                lambda: torch.nn.Conv2d(1, 1, 3, stride=2, padding='same'))
    x, w = torch.randn(1, 1, 5, 5), torch.randn(1, 1, 3, 3)
    raises_like(lambda: F.conv2d(mt(x), mt(w), padding='full'), lambda: tF.conv2d(x, w, padding='full'))


# --- embedding ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('kw', [dict(max_norm=1.0), dict(max_norm=2.0, norm_type=1.0), dict(scale_grad_by_freq=True),
                                dict(scale_grad_by_freq=True, padding_idx=2, max_norm=1.5), dict(padding_idx=-1)])
def test_embedding_options(kw):
    w = torch.randn(6, 3, dtype=torch.float64) * 3
    i = torch.tensor([[0, 2, 2], [5, 2, 0]])
    tw, mw = w.clone().requires_grad_(), mt(w, requires_grad=True)
    t, o = tF.embedding(i, tw, **kw), F.embedding(mt(i), mw, **kw)
    g = torch.randn_like(t)
    t.backward(g)
    o.backward(mt(g))
    assert close(o, t) and close(mw, tw) and close(mw.grad, tw.grad)


def test_embedding_module_max_norm_and_errors():
    torch.manual_seed(0)
    te = torch.nn.Embedding(7, 4, max_norm=1.0, scale_grad_by_freq=True, dtype=torch.float64)
    e = nn.Embedding(7, 4, max_norm=1.0, scale_grad_by_freq=True, dtype=minitorch.float64)
    e.load_state_dict({k: mt(v) for k, v in te.state_dict().items()})
    i = torch.tensor([1, 3, 3, 6])
    t, o = te(i), e(mt(i))
    t.sum().backward()
    o.sum().backward()
    assert close(o, t) and close(e.weight, te.weight) and close(e.weight.grad, te.weight.grad)
    assert repr(e) == repr(te)
    w = torch.randn(5, 3)
    raises_like(lambda: F.embedding(mt(torch.tensor([1])), mt(w), padding_idx=7),
                lambda: tF.embedding(torch.tensor([1]), w, padding_idx=7))
    raises_like(lambda: F.embedding(mt(torch.tensor([9])), mt(w)), lambda: tF.embedding(torch.tensor([9]), w))
    raises_like(lambda: nn.Embedding(5, 3, padding_idx=7), lambda: torch.nn.Embedding(5, 3, padding_idx=7))


# --- the CPU fast paths (nn.fast_cpu): higher derivatives, forward mode, fallback dtypes -----------------------

def _second_order(fn_ours, fn_theirs, *xs):
    "d/dx of sum(grad(sum(f(x)^2))^2): exercises the backward's own backward."
    from minitorch.autograd import grad as mgrad
    ts = [x.clone().requires_grad_() for x in xs]
    os_ = [mt(x, True) for x in xs]
    tg = torch.autograd.grad((fn_theirs(*ts) ** 2).sum(), ts, create_graph=True)
    og = mgrad((fn_ours(*os_) ** 2).sum(), os_, create_graph=True)
    sum((g ** 2).sum() for g in tg).backward()
    sum((g ** 2).sum() for g in og).backward()
    for o, t in zip(os_, ts): assert close(o.grad, t.grad, 1e-7)


def test_fast_paths_second_order():
    torch.manual_seed(0)
    x, w, b = (torch.randn(2, 4, 6, 5, dtype=torch.float64), torch.randn(6, 2, 3, 3, dtype=torch.float64),
               torch.randn(6, dtype=torch.float64))
    _second_order(lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
                  lambda x, w, b: tF.conv2d(x, w, b, padding=1, groups=2), x, w, b)
    _second_order(lambda x: F.max_pool2d(x, 2) * x[:, :, :6:2, :4:2],
                  lambda x: tF.max_pool2d(x, 2) * x[:, :, :6:2, :4:2], x)
    logits, t = torch.randn(5, 4, dtype=torch.float64), torch.tensor([0, 3, 1, 1, 2])
    _second_order(lambda z: F.cross_entropy(z, mt(t)), lambda z: tF.cross_entropy(z, t), logits)


def test_fast_paths_forward_mode():
    import minitorch.forward_ad as fwAD
    import torch.autograd.forward_ad as tfw
    torch.manual_seed(0)
    x, w, b = (torch.randn(2, 4, 6, 5, dtype=torch.float64), torch.randn(6, 4, 3, 3, dtype=torch.float64),
               torch.randn(6, dtype=torch.float64))
    tx, tw = torch.randn_like(x), torch.randn_like(w)
    fns = [(lambda x, w: F.max_pool2d(F.conv2d(x, w, mt(b), padding=1), 2),
            lambda x, w: tF.max_pool2d(tF.conv2d(x, w, b, padding=1), 2)),
           (lambda x, w: F.cross_entropy(F.conv2d(x, w).flatten(1), mt(torch.tensor([1, 7]))),
            lambda x, w: tF.cross_entropy(tF.conv2d(x, w).flatten(1), torch.tensor([1, 7])))]
    for ours, theirs in fns:
        with fwAD.dual_level():
            o = ours(fwAD.make_dual(mt(x), mt(tx)), fwAD.make_dual(mt(w), mt(tw)))
            ot = fwAD.unpack_dual(o).tangent
        with tfw.dual_level():
            t = theirs(tfw.make_dual(x, tx), tfw.make_dual(w, tw))
            tt = tfw.unpack_dual(t).tangent
        assert close(ot, tt, 1e-8)


@pytest.mark.parametrize('mdt,tdt', [(minitorch.float16, torch.float16), (minitorch.complex64, torch.complex64)])
def test_generic_path_dtypes(mdt, tdt):
    torch.manual_seed(0)
    x, w = torch.randn(2, 3, 6, 6, dtype=tdt), torch.randn(4, 3, 3, 3, dtype=tdt)
    tol = 1e-2 if tdt == torch.float16 else 1e-4
    assert close(F.conv2d(mt(x), mt(w), padding=1), tF.conv2d(x, w, padding=1) if tdt != torch.float16 else
                 tF.conv2d(x.float(), w.float(), padding=1).half(), tol)
    if tdt == torch.float16:
        v, i = F.max_pool2d(mt(x), 2, return_indices=True)
        tv, ti = tF.max_pool2d(x.float(), 2, return_indices=True)
        assert close(v, tv.half()) and (i.numpy() == ti.numpy()).all()


# --- fold / Fold / Unfold -------------------------------------------------------------------------------------

@settings(**SETTINGS)
@given(k=st.integers(1, 3), s=st.integers(1, 2), p=st.integers(0, 1), d=st.integers(1, 2), H=st.integers(3, 7),
       W=st.integers(3, 7), unbatched=st.booleans(), dt=st.sampled_from([torch.float32, torch.float64]))
def test_fold_matches_torch(k, s, p, d, H, W, unbatched, dt):
    assume(min(H, W) + 2 * p >= d * (k - 1) + 1)
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d)
    cols = tF.unfold(torch.randn(2, 3, H, W, dtype=dt), **kw)
    if unbatched: cols = cols[0]
    out, tout = run_both(lambda a: F.fold(a, (H, W), **kw), lambda a: tF.fold(a, (H, W), **kw), cols,
                         tol=1e-5 if dt == torch.float32 else 1e-9)
    assert out.dtype == (minitorch.float32 if dt == torch.float32 else minitorch.float64)


def test_fold_modules_and_errors():
    x = torch.randn(2, 3, 6, 8, dtype=torch.float64)
    u, tu = nn.Unfold(2, padding=1, stride=2), torch.nn.Unfold(2, padding=1, stride=2)
    assert close(u(mt(x)), tu(x)) and repr(u) == repr(tu)
    f, tf = nn.Fold((6, 8), 2, padding=1, stride=2), torch.nn.Fold((6, 8), 2, padding=1, stride=2)
    assert close(f(u(mt(x))), tf(tu(x))) and repr(f) == repr(tf)
    for shape in [(1, 10, 12), (1, 12, 11), (2, 1, 12, 11)]:
        t = torch.randn(*shape)
        raises_like(lambda: F.fold(mt(t), (4, 5), 2), lambda: tF.fold(t, (4, 5), 2))
