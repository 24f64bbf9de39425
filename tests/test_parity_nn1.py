"""Parity with torch 2.13 for nn functions, part 1: pooling argument types, int64 transposed convolution, empty linear /
bilinear, binary_cross_entropy's range check and soft_margin_loss's dtypes."""
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import minitorch
import minitorch.nn.functional as F


def mt(t: torch.Tensor, requires_grad: bool = False) -> minitorch.Tensor:
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def same_error(tfn, mfn):
    "Both raise; the same class and message."
    with pytest.raises(Exception) as te: tfn()
    with pytest.raises(Exception) as me: mfn()
    assert type(me.value).__name__ == type(te.value).__name__
    assert str(me.value) == str(te.value)


def same_result(r, m, exact=False):
    assert str(m.dtype).split('.')[-1] == str(r.dtype).split('.')[-1]
    assert tuple(m.shape) == tuple(r.shape)
    if exact: assert np.array_equal(m.numpy(), r.numpy())
    else: torch.testing.assert_close(torch.from_numpy(np.asarray(m.numpy())), r, equal_nan=True)


# -- pooling: kernel_size / stride / padding / dilation are int[] to PyTorch's parser
BAD_INTS = [2.0, (2.0,), (2, 2.0), [2, 2.0], True, (True, 2), None]


@pytest.mark.parametrize('name', ['max_pool1d_with_indices', 'max_pool2d_with_indices'])
@pytest.mark.parametrize('arg', ['kernel_size', 'stride', 'padding', 'dilation'])
@pytest.mark.parametrize('bad', BAD_INTS)
def test_with_indices_int_args(name, arg, bad):
    if bad is None and arg != 'kernel_size': return   # stride=None is fine; padding=None is an error we skip
    args = dict(kernel_size=2, stride=2, padding=0, dilation=1)
    args[arg] = bad
    pos = list(args.values())
    # positional, as the differential tester calls them; before the (empty, wrong) input is looked at
    same_error(lambda: getattr(TF, name)(torch.ones(0), *pos), lambda: getattr(F, name)(minitorch.ones(0), *pos))


@pytest.mark.parametrize('name,shape', [('lp_pool1d', (1, 2, 6)), ('lp_pool2d', (1, 2, 6, 6))])
@pytest.mark.parametrize('p', [2.0, float('inf')])
@pytest.mark.parametrize('bad', [(2.0, None), (2, 2.0), ((2.0,), None)])
def test_lp_pool_int_args(name, shape, p, bad):
    if name == 'lp_pool2d' and bad[0] == (2.0,): return   # torch's `kw, kh = _pair(k)`: a ValueError of unpacking
    x = torch.rand(shape)
    same_error(lambda: getattr(TF, name)(x, p, *bad), lambda: getattr(F, name)(mt(x), p, *bad))


def test_with_indices_good_args_still_work():
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    v, i = F.max_pool2d_with_indices(mt(x), (2, 2), [], (1, 0), 1)
    tv, ti = TF.max_pool2d_with_indices(x, (2, 2), [], (1, 0), 1)
    same_result(tv, v); same_result(ti, i, exact=True)


# -- conv_transpose on integer tensors: PyTorch's CPU computes int64 (its col2im has no integer kernel)
@pytest.mark.parametrize('s,op,p,d,kh,g', [c for c in itertools.product([1, 2, 3], [0, 1, 2], [0, 1, 3], [1, 2],
                                                                          [1, 3], [1, 2]) if c[1] < c[0] or c[1] < c[3]])
@pytest.mark.parametrize('dtype', [torch.int64, torch.float64])
def test_conv_transpose2d_int64_and_crop(s, op, p, d, kh, g, dtype):
    gen = torch.Generator().manual_seed(0)
    x = torch.randint(-5, 5, (2, 2, 3, 4), generator=gen).to(dtype)
    w = torch.randint(-5, 5, (2, 2, kh, 2), generator=gen).to(dtype)
    b = torch.randint(-5, 5, (2 * g,), generator=gen).to(dtype)
    try: r = TF.conv_transpose2d(x, w, b, s, p, op, g, d)
    except RuntimeError:
        with pytest.raises(RuntimeError): F.conv_transpose2d(mt(x), mt(w), mt(b), s, p, op, g, d)
        return
    same_result(r, F.conv_transpose2d(mt(x), mt(w), mt(b), s, p, op, g, d), exact=True)


def test_conv_transpose1d_int():
    x, w = torch.randint(-5, 5, (2, 2, 5)), torch.randint(-5, 5, (2, 3, 2))
    same_result(TF.conv_transpose1d(x, w, stride=2), F.conv_transpose1d(mt(x), mt(w), stride=2), exact=True)
    x32, w32 = x.int(), w.int()
    same_error(lambda: TF.conv_transpose1d(x32, w32), lambda: F.conv_transpose1d(mt(x32), mt(w32)))
    e, ew = torch.zeros(0, 2, 2, dtype=torch.int32), torch.ones(2, 2, 2, dtype=torch.int32)
    same_result(TF.conv_transpose1d(e, ew, stride=2), F.conv_transpose1d(mt(e), mt(ew), stride=2), exact=True)


def test_fold_int_still_refused():
    x = torch.ones(1, 4, 4, dtype=torch.int64)
    same_error(lambda: TF.fold(x, (3, 3), 2), lambda: F.fold(mt(x), (3, 3), 2))


# -- linear / bilinear with no features
@pytest.mark.parametrize('shape', [(5, 4, 0), (5, 0), (0,)])
def test_linear_no_features(shape):
    x, w, b = torch.ones(shape, dtype=torch.float64), torch.ones(3, 0, dtype=torch.float64), torch.arange(3.).double()
    same_result(TF.linear(x, w, b), F.linear(mt(x), mt(w), mt(b)))
    xg = mt(x, requires_grad=True)
    F.linear(xg, mt(w), mt(b)).sum().backward()
    assert tuple(xg.grad.shape) == shape


@pytest.mark.parametrize('a,b,w', [((1, 0), (1, 3), (2, 0, 3)), ((1, 3), (1, 0), (2, 3, 0)), ((0,), (4,), (2, 0, 4)),
                                   ((0, 3), (0, 4), (2, 3, 4)), ((1, 3), (1, 4), (0, 3, 4))])
def test_bilinear_empty(a, b, w):
    x1, x2, ww = torch.ones(a), torch.ones(b), torch.ones(w)
    bias = torch.ones(w[0])
    try: r = TF.bilinear(x1, x2, ww, bias)
    except RuntimeError:
        same_error(lambda: TF.bilinear(x1, x2, ww, bias), lambda: F.bilinear(mt(x1), mt(x2), mt(ww), mt(bias)))
        return
    same_result(r, F.bilinear(mt(x1), mt(x2), mt(ww), mt(bias)))


# -- binary_cross_entropy: NaN is out of [0, 1] too
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize('weighted', [False, True])
@pytest.mark.parametrize('v', [float('nan'), 1.5, -0.5])
def test_bce_range(dtype, weighted, v):
    x, t = torch.tensor([v, 0.5], dtype=dtype), torch.tensor([0.5, 0.5], dtype=dtype)
    w = torch.ones(2, dtype=dtype) if weighted else None
    same_error(lambda: TF.binary_cross_entropy(x, t, w),
               lambda: F.binary_cross_entropy(mt(x), mt(t), None if w is None else mt(w)))


def test_bce_of_empty_mean_is_nan_then_refused():
    x = torch.zeros(0, dtype=torch.float64)
    r = TF.binary_cross_entropy(x, x)
    m = F.binary_cross_entropy(mt(x), mt(x))
    same_result(r, m)
    half = torch.tensor(0.5, dtype=torch.float64)
    same_error(lambda: TF.binary_cross_entropy(r, half), lambda: F.binary_cross_entropy(m, mt(half)))


# -- soft_margin_loss: computed in input's dtype, op for op
SML = [(torch.int64, torch.float32), (torch.uint8, torch.uint8), (torch.uint8, torch.bool), (torch.bool, torch.float32),
       (torch.float32, torch.complex64), (torch.int32, torch.int32)]


@pytest.mark.parametrize('di,dt', SML)
def test_soft_margin_loss_dtype_errors(di, dt):
    a, b = torch.ones(3, dtype=di), torch.ones(3, dtype=dt)
    same_error(lambda: TF.soft_margin_loss(a, b), lambda: F.soft_margin_loss(mt(a), mt(b)))


def test_soft_margin_loss_broadcast_error():
    a, b = torch.ones(3), torch.ones(2, 3)
    same_error(lambda: TF.soft_margin_loss(a, b), lambda: F.soft_margin_loss(mt(a), mt(b)))


@pytest.mark.parametrize('di,dt', [(torch.float16, torch.float32), (torch.float32, torch.float64),
                                   (torch.float32, torch.int64), (torch.float32, torch.bool),
                                   (torch.complex64, torch.float32), (torch.float64, torch.float64)])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_soft_margin_loss_values(di, dt, reduction):
    gen = torch.Generator().manual_seed(1)
    a = (torch.randn(6, generator=gen, dtype=torch.float64) * 3).to(di)
    b = torch.randint(0, 2, (6,), generator=gen).mul(2).sub(1).to(dt) if dt != torch.bool else torch.rand(6) > .5
    same_result(TF.soft_margin_loss(a, b, reduction=reduction), F.soft_margin_loss(mt(a), mt(b), reduction=reduction))


def test_soft_margin_loss_overflows_like_torch():
    a, b = torch.tensor([-100., 1.]), torch.tensor([1., 1.])
    same_result(TF.soft_margin_loss(a, b, reduction='none'), F.soft_margin_loss(mt(a), mt(b), reduction='none'))


def test_soft_margin_loss_grad():
    a = torch.randn(5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor([1., -1., 1., -1., 1.], dtype=torch.float64)
    TF.soft_margin_loss(a, b).backward()
    m = mt(a, requires_grad=True)
    F.soft_margin_loss(m, mt(b)).backward()
    torch.testing.assert_close(torch.from_numpy(m.grad.numpy()), a.grad)


# -- 16-bit floats: which kernels round once (in float32) and which round every op
def _m16(t):
    return None if t is None else minitorch.tensor(t.float().numpy()).to(getattr(minitorch, str(t.dtype).split('.')[1]))


def _t16(m, dt):
    return torch.from_numpy(np.asarray(m.float().numpy())).to(dt)


@pytest.mark.parametrize('dt', [torch.float16, torch.bfloat16])
@pytest.mark.parametrize('name,kw', [('smooth_l1_loss', {}), ('smooth_l1_loss', dict(beta=0.7)),
                                     ('huber_loss', {}), ('huber_loss', dict(delta=0.3))])
@pytest.mark.parametrize('reduction', ['none', 'sum'])
def test_smooth_l1_huber_16bit(dt, name, kw, reduction):
    gen = torch.Generator().manual_seed(0)
    x, y = (torch.randn(3000, generator=gen) * 1.5).to(dt), torch.randn(3000, generator=gen).to(dt)
    r = getattr(TF, name)(x, y, reduction=reduction, **kw)
    m = getattr(F, name)(_m16(x), _m16(y), reduction=reduction, **kw)
    assert str(m.dtype).split('.')[-1] == str(r.dtype).split('.')[-1]
    assert torch.equal(_t16(m, dt), r)


CONVS = [(1, 3, 4, 4, 2, 1, 1, 0, 1, True), (2, 4, 7, 6, 4, 3, 2, 1, 2, True), (1, 16, 9, 9, 8, 3, 1, 0, 1, True),
         (2, 4, 7, 6, 4, 3, 1, 1, 1, False)]


@pytest.mark.parametrize('dt', [torch.float16, torch.bfloat16])
@pytest.mark.parametrize('N,C,H,W,O,k,groups,pad,st,bias', CONVS)
def test_conv_16bit_bias_rounds_once(dt, N, C, H, W, O, k, groups, pad, st, bias):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(N, C, H, W, generator=gen).to(dt)
    w = torch.randn(O, C // groups, k, k, generator=gen).to(dt)
    wt = torch.randn(C, O // groups, k, k, generator=gen).to(dt)
    b = torch.randn(O, generator=gen).to(dt) if bias else None
    assert torch.equal(_t16(F.conv2d(_m16(x), _m16(w), _m16(b), st, pad, 1, groups), dt),
                       TF.conv2d(x, w, b, st, pad, 1, groups))
    assert torch.equal(_t16(F.conv1d(_m16(x[:, :, 0]), _m16(w[:, :, 0]), _m16(b), st, pad, 1, groups), dt),
                       TF.conv1d(x[:, :, 0], w[:, :, 0], b, st, pad, 1, groups))
    assert torch.equal(_t16(F.conv_transpose2d(_m16(x), _m16(wt), _m16(b), st, pad, 0, groups), dt),
                       TF.conv_transpose2d(x, wt, b, st, pad, 0, groups))
    assert torch.equal(_t16(F.conv_transpose2d(_m16(x[0]), _m16(wt), _m16(b), st, pad, 0, groups), dt),
                       TF.conv_transpose2d(x[0], wt, b, st, pad, 0, groups))


# -- bilinear: one dtype for all; no complex autograd
@pytest.mark.parametrize('dts', [(torch.float32, torch.float64, torch.float32, None),
                                 (torch.float32, torch.float32, torch.float32, torch.float64),
                                 (torch.float32, torch.float32, torch.float16, None),
                                 (torch.float64, torch.float32, torch.float64, torch.float32)])
def test_bilinear_dtypes(dts):
    a, b, w = torch.ones(2, 5, dtype=dts[0]), torch.ones(2, 3, dtype=dts[1]), torch.ones(2, 5, 3, dtype=dts[2])
    bias = None if dts[3] is None else torch.ones(2, dtype=dts[3])
    same_error(lambda: TF.bilinear(a, b, w, bias),
               lambda: F.bilinear(mt(a), mt(b), mt(w), None if bias is None else mt(bias)))


@pytest.mark.parametrize('which', [0, 1, 2, 3, None])
def test_bilinear_complex_grad(which):
    c = torch.complex128
    ts = [torch.randn(2, 5, dtype=c), torch.randn(2, 3, dtype=c), torch.randn(2, 5, 3, dtype=c), torch.randn(2, dtype=c)]
    tg = [t.clone().requires_grad_(i == which) for i, t in enumerate(ts)]
    ms = [mt(t, requires_grad=(i == which)) for i, t in enumerate(ts)]
    try: r = TF.bilinear(*tg)
    except RuntimeError:
        same_error(lambda: TF.bilinear(*tg), lambda: F.bilinear(*ms))
        return
    same_result(r.detach(), F.bilinear(*ms).detach())


# -- linear's addmm node: complex gradients are products with the conjugates
@pytest.mark.parametrize('shape', [(1, 2, 5), (2, 5), (5,)])
def test_linear_complex_grad(shape):
    c, gen = torch.complex128, torch.Generator().manual_seed(0)
    x, w = torch.randn(*shape, dtype=c, generator=gen), torch.randn(3, 5, dtype=c, generator=gen)
    b, go = torch.randn(3, dtype=c, generator=gen), torch.randn(*shape[:-1], 3, dtype=c, generator=gen)
    ts = [t.clone().requires_grad_() for t in (x, w, b)]
    TF.linear(*ts).backward(go)
    ms = [mt(t, requires_grad=True) for t in (x, w, b)]
    F.linear(*ms).backward(mt(go))
    for t, m in zip(ts, ms): torch.testing.assert_close(torch.from_numpy(m.grad.numpy()), t.grad)
