"Chapter 11c (nn.activations): more of torch.nn.functional / torch.nn, checked against torch."
import numpy as np
import pytest
import torch

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F

TF, TNN = torch.nn.functional, torch.nn
DT = {torch.float32: minitorch.float32, torch.float64: minitorch.float64}
TOL = {torch.float32: 1e-5, torch.float64: 1e-9}


def mt(t, requires_grad=False):
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def check(ours, theirs, tol):
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.dtype in DT: assert ours.dtype == DT[theirs.dtype]
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def grads(fn_ours, fn_theirs, *xs, nograd=()):
    "Run both with random upstream gradient; compare outputs and the grads of all inputs not in `nograd`."
    req = [x.is_floating_point() and i not in nograd for i, x in enumerate(xs)]
    ts = [x.detach().clone().requires_grad_(r) for x, r in zip(xs, req)]
    ms = [mt(x, r) for x, r in zip(xs, req)]
    yt, ym = fn_theirs(*ts), fn_ours(*ms)
    tol = TOL.get(xs[0].dtype, 1e-5)
    check(ym, yt, tol)
    g = torch.randn(yt.shape, dtype=yt.dtype, generator=torch.Generator().manual_seed(1))
    yt.backward(g); ym.backward(mt(g))
    for m, t in zip(ms, ts):
        if t.requires_grad: check(m.grad, t.grad, max(tol, 1e-7))


def edge_input(dtype):
    g = torch.Generator().manual_seed(0)
    pts = torch.tensor([-30., -6., -4., -3., -1., -0.5, -0.25, 0., 0.25, 0.5, 1., 3., 4., 6., 21., 30.], dtype=dtype)
    return torch.cat([pts, torch.randn(24, generator=g, dtype=dtype) * 3]).reshape(5, 8)


POINTWISE = [
    ('elu', {}), ('elu', dict(alpha=0.5)), ('selu', {}), ('celu', {}), ('celu', dict(alpha=2.0)),
    ('hardtanh', {}), ('hardtanh', dict(min_val=-3.0, max_val=0.5)), ('relu6', {}), ('hardsigmoid', {}),
    ('hardswish', {}), ('mish', {}), ('softsign', {}), ('softshrink', {}), ('softshrink', dict(lambd=1.0)),
    ('hardshrink', {}), ('hardshrink', dict(lambd=1.0)), ('tanhshrink', {}), ('threshold', dict(threshold=0.5, value=-2.0)),
    ('leaky_relu', dict(negative_slope=0.2)),
]


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('name,kw', [('softplus', dict(beta=2.0)), ('logsigmoid', {})])
def test_pointwise_existing(name, kw, dtype):
    "Chapter 11's softplus/logsigmoid (used by Mish/Softplus/LogSigmoid), away from x = 0."
    x = edge_input(dtype); x[x == 0] = 0.125
    grads(lambda a: getattr(F, name)(a, **kw), lambda a: getattr(TF, name)(a, **kw), x)


@pytest.mark.parametrize('name', ['softplus', 'logsigmoid'])
def test_pointwise_existing_at_zero(name):
    x = torch.zeros(3, dtype=torch.float64)
    grads(getattr(F, name), getattr(TF, name), x)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('name,kw', POINTWISE, ids=[f'{n}-{i}' for i, (n, _) in enumerate(POINTWISE)])
def test_pointwise(name, kw, dtype):
    x = edge_input(dtype)
    grads(lambda a: getattr(F, name)(a, **kw), lambda a: getattr(TF, name)(a, **kw), x)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_glu_softmin_prelu(dtype):
    x = torch.randn(3, 4, 2, dtype=dtype)
    for d in (1, -1):
        grads(lambda a: F.glu(a, d), lambda a: TF.glu(a, d), x)
    grads(lambda a: F.softmin(a, 1), lambda a: TF.softmin(a, 1), x)
    for w in (torch.tensor([0.25], dtype=dtype), torch.tensor([0.1, -0.2, 0.3, 0.5], dtype=dtype)):
        xe = x.clone(); xe[0, 0, 0] = 0.0
        grads(F.prelu, TF.prelu, xe, w)


def test_prelu_module_param_grad():
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4)
    tm, mm = TNN.PReLU(3, init=0.1), nn.PReLU(3, init=0.1)
    assert repr(mm) == repr(tm) and [n for n, _ in mm.named_parameters()] == ['weight']
    a = mt(x, True)
    mm(a).sum().backward(); tm(x.requires_grad_()).sum().backward()
    check(mm.weight.grad, tm.weight.grad, 1e-5); check(a.grad, x.grad, 1e-5)


def test_one_hot():
    i = torch.tensor([[0, 3, 1], [2, 2, 0]])
    for n in (-1, 5):
        o = F.one_hot(mt(i), n)
        assert o.dtype == minitorch.int64 and (o.numpy() == TF.one_hot(i, n).numpy()).all()
    assert tuple(F.one_hot(minitorch.tensor(np.zeros(0, np.int64)), 3).shape) == (0, 3)
    for bad, msg in [(minitorch.tensor([1.0]), 'LongTensor'), (minitorch.tensor([-1]), 'non-negative'),
                     (minitorch.tensor(np.zeros(0, np.int64)), 'Can not infer')]:
        with pytest.raises(RuntimeError, match=msg): F.one_hot(bad)
    with pytest.raises(RuntimeError, match='smaller than num_classes'): F.one_hot(minitorch.tensor([3]), 3)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_smooth_l1_huber(reduction, dtype):
    x = torch.randn(4, 5, dtype=dtype); y = torch.randn(4, 5, dtype=dtype)
    x[0, :3] = y[0, :3] + torch.tensor([0.0, 0.5, -1.0], dtype=dtype)   # d = 0 and d = ±beta
    for beta in (0.0, 0.5, 1.0):
        grads(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
              lambda a, b: TF.smooth_l1_loss(a, b, reduction=reduction, beta=beta), x, y)
    for delta in (0.5, 1.0, 2.0):
        grads(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta),
              lambda a, b: TF.huber_loss(a, b, reduction=reduction, delta=delta), x, y)
    with pytest.raises(RuntimeError, match='negative values for beta'): F.smooth_l1_loss(mt(x), mt(y), beta=-1.0)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('reduction', ['none', 'sum', 'batchmean', 'mean'])
def test_kl_div(reduction, dtype):
    x = torch.log_softmax(torch.randn(3, 5, dtype=dtype), 1)
    q = torch.softmax(torch.randn(3, 5, dtype=dtype), 1); q[0, 0] = 0.0
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        # a zero target probability: torch's target gradient there is nan, ours 0; compare the input gradient only
        grads(lambda a, b: F.kl_div(a, b, reduction=reduction), lambda a, b: TF.kl_div(a, b, reduction=reduction), x, q,
              nograd=(1,))
        q2 = torch.softmax(torch.randn(3, 5, dtype=dtype), 1)
        grads(lambda a, b: F.kl_div(a, b, reduction=reduction), lambda a, b: TF.kl_div(a, b, reduction=reduction), x, q2)
        lq = torch.log_softmax(torch.randn(3, 5, dtype=dtype), 1)
        grads(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=True),
              lambda a, b: TF.kl_div(a, b, reduction=reduction, log_target=True), x, lq)
    with pytest.raises(ValueError): F.kl_div(mt(x), mt(q), reduction='foo')


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_cosine_pairwise(dtype):
    a, b = torch.randn(4, 6, dtype=dtype), torch.randn(4, 6, dtype=dtype)
    for dim in (1, 0, -1):
        grads(lambda u, v: F.cosine_similarity(u, v, dim), lambda u, v: TF.cosine_similarity(u, v, dim), a, b)
    grads(lambda u, v: F.cosine_similarity(u, v, -1), lambda u, v: TF.cosine_similarity(u, v, -1), a, b[0])
    for p in (2.0, 1.0, 3.0):
        for keepdim in (False, True):
            grads(lambda u, v: F.pairwise_distance(u, v, p, keepdim=keepdim),
                  lambda u, v: TF.pairwise_distance(u, v, p, keepdim=keepdim), a, b)


@pytest.mark.task11_4
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_group_norm(dtype):
    x = torch.randn(2, 6, 3, 2, dtype=dtype); w, b = torch.randn(6, dtype=dtype), torch.randn(6, dtype=dtype)
    for G in (1, 2, 3, 6):
        grads(lambda u, v, c: F.group_norm(u, G, v, c), lambda u, v, c: TF.group_norm(u, G, v, c), x, w, b)
    grads(lambda u: F.group_norm(u, 2), lambda u: TF.group_norm(u, 2), x[:, :, 0])
    with pytest.raises(RuntimeError, match='divisible by num_groups'): F.group_norm(mt(x), 4)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_rms_norm(dtype):
    x = torch.randn(2, 3, 4, dtype=dtype)
    for shape in ((4,), (3, 4)):
        w = torch.randn(shape, dtype=dtype)
        grads(lambda u, v: F.rms_norm(u, shape, v), lambda u, v: TF.rms_norm(u, shape, v), x, w)
        grads(lambda u: F.rms_norm(u, shape, eps=1e-3), lambda u: TF.rms_norm(u, shape, eps=1e-3), x)
    with pytest.raises(RuntimeError, match='normalized_shape'): F.rms_norm(mt(x), (3,))


@pytest.mark.task11_4
def test_norm_modules_param_grads():
    x = torch.randn(2, 4, 3)
    for ours, theirs in [(nn.GroupNorm(2, 4), TNN.GroupNorm(2, 4)), (nn.RMSNorm(3), TNN.RMSNorm(3)),
                         (nn.GroupNorm(4, 4, affine=False), TNN.GroupNorm(4, 4, affine=False)),
                         (nn.RMSNorm([4, 3], eps=1e-6, elementwise_affine=False), TNN.RMSNorm([4, 3], eps=1e-6, elementwise_affine=False))]:
        assert repr(ours) == repr(theirs)
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        a = mt(x, True); t = x.clone().requires_grad_()
        yo, yt = ours(a), theirs(t)
        check(yo, yt, 1e-5)
        g = torch.randn(yt.shape); yo.backward(mt(g)); yt.backward(g)
        check(a.grad, t.grad, 1e-5)
        for (n, po), (_, pt) in zip(ours.named_parameters(), theirs.named_parameters()): check(po.grad, pt.grad, 1e-5)


@pytest.mark.task11_5
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_pixel_shuffle(dtype):
    x = torch.randn(2, 8, 3, 5, dtype=dtype)
    grads(lambda u: F.pixel_shuffle(u, 2), lambda u: TF.pixel_shuffle(u, 2), x)
    grads(lambda u: F.pixel_shuffle(u, 2), lambda u: TF.pixel_shuffle(u, 2), x[0])
    y = torch.randn(2, 3, 4, 6, dtype=dtype)
    grads(lambda u: F.pixel_unshuffle(u, 2), lambda u: TF.pixel_unshuffle(u, 2), y)
    with pytest.raises(RuntimeError, match='divisible by the square'): F.pixel_shuffle(mt(y), 2)
    with pytest.raises(RuntimeError, match='height to be divisible'): F.pixel_unshuffle(mt(x), 2)


INTERP = [dict(scale_factor=2), dict(size=(7, 3)), dict(scale_factor=1.7), dict(scale_factor=(0.5, 2)),
          dict(size=(5, 9), mode='bilinear'), dict(size=(5, 9), mode='bilinear', align_corners=True),
          dict(scale_factor=1.5, mode='bilinear'), dict(size=(2, 3), mode='bilinear'),
          dict(size=(1, 9), mode='bilinear', align_corners=True), dict(scale_factor=2.5, mode='bilinear', align_corners=False)]


@pytest.mark.task11_6
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('kw', INTERP, ids=[str(k) for k in INTERP])
def test_interpolate(kw, dtype):
    x = torch.randn(2, 3, 4, 6, dtype=dtype)
    grads(lambda u: F.interpolate(u, **kw), lambda u: TF.interpolate(u, **kw), x)


@pytest.mark.task11_6
def test_interpolate_1d_and_errors():
    x = torch.randn(2, 3, 5, dtype=torch.float64)
    for kw in (dict(scale_factor=2), dict(size=8, mode='linear'), dict(size=3, mode='linear', align_corners=True)):
        grads(lambda u: F.interpolate(u, **kw), lambda u: TF.interpolate(u, **kw), x)
    with pytest.raises(NotImplementedError): F.interpolate(mt(x), scale_factor=2, mode='bilinear')
    with pytest.raises(ValueError): F.interpolate(mt(x))
    with pytest.raises(ValueError): F.interpolate(mt(x), size=4, scale_factor=2)


def test_errors():
    x = mt(torch.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match='Halving dimension must be even, but dimension 1 is size 3'): F.glu(x, 1)
    with pytest.raises(RuntimeError, match='lambda must be in range'): F.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match='Mismatch of parameter numbers'): F.prelu(x, minitorch.ones(2))
    with pytest.raises(ValueError, match='min_val cannot be greater'): nn.Hardtanh(1.0, -1.0)


MODULES = [
    ('ELU', ()), ('ELU', (0.5, True)), ('CELU', (2.0,)), ('SELU', ()), ('SELU', (True,)), ('Hardtanh', ()),
    ('Hardtanh', (-2, 2, True)), ('ReLU6', ()), ('ReLU6', (True,)), ('Hardsigmoid', ()), ('Hardswish', ()), ('Mish', ()),
    ('Softsign', ()), ('Softshrink', ()), ('Softshrink', (0.3,)), ('Hardshrink', ()), ('Tanhshrink', ()),
    ('Threshold', (0.1, 20)), ('Threshold', (0.1, 20.0, True)), ('GLU', ()), ('GLU', (1,)), ('Softmin', (1,)),
    ('LeakyReLU', ()), ('LeakyReLU', (0.2, True)), ('LogSigmoid', ()), ('Softplus', ()), ('Softplus', (2.0, 10.0)),
    ('PReLU', ()), ('PixelShuffle', (2,)), ('PixelUnshuffle', (2,)), ('Unflatten', (1, (2, 2))),
    ('ZeroPad1d', (2,)), ('ZeroPad2d', (1,)), ('ZeroPad2d', ((1, 0, 2, 1),)), ('ConstantPad1d', (2, 3.5)),
    ('ConstantPad2d', ((1, 2, 0, 1), -1.0)), ('ReflectionPad1d', ((1, 2),)), ('ReflectionPad2d', (1,)),
    ('ReplicationPad1d', (2,)), ('ReplicationPad2d', ((1, 0, 2, 1),)), ('Upsample', (None, 2)),
    ('Upsample', ((6, 5), None, 'bilinear', True)), ('Upsample', (None, 1.5, 'bilinear')),
]


@pytest.mark.parametrize('name,args', MODULES, ids=[f'{n}-{i}' for i, (n, _) in enumerate(MODULES)])
def test_module(name, args):
    ours, theirs = getattr(nn, name)(*args), getattr(TNN, name)(*args)
    assert repr(ours) == repr(theirs)
    if name.endswith('1d'): x = torch.randn(2, 4, 5)
    elif name == 'PixelUnshuffle': x = torch.randn(2, 4, 4, 6)
    else: x = torch.randn(2, 4, 4, 6)
    check(ours(mt(x)), theirs(x), 1e-5)


LOSSES = [('SmoothL1Loss', {}), ('SmoothL1Loss', dict(beta=0.5, reduction='sum')), ('HuberLoss', {}),
          ('HuberLoss', dict(delta=2.0, reduction='none')), ('KLDivLoss', dict(reduction='batchmean')),
          ('KLDivLoss', dict(reduction='sum', log_target=True)), ('CosineSimilarity', {}), ('CosineSimilarity', dict(dim=0)),
          ('PairwiseDistance', {}), ('PairwiseDistance', dict(p=1.0, keepdim=True))]


@pytest.mark.parametrize('name,kw', LOSSES, ids=[f'{n}-{i}' for i, (n, _) in enumerate(LOSSES)])
def test_two_input_modules(name, kw):
    ours, theirs = getattr(nn, name)(**kw), getattr(TNN, name)(**kw)
    assert repr(ours) == repr(theirs)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    if name == 'KLDivLoss': a, b = torch.log_softmax(a, 1), (torch.log_softmax(b, 1) if kw.get('log_target') else torch.softmax(b, 1))
    check(ours(mt(a), mt(b)), theirs(a, b), 1e-5)


def test_functional_namespace():
    for n in ('elu selu celu hardtanh relu6 hardsigmoid hardswish mish softsign softshrink hardshrink tanhshrink '
              'threshold glu prelu softmin one_hot smooth_l1_loss huber_loss kl_div cosine_similarity pairwise_distance '
              'group_norm rms_norm pixel_shuffle pixel_unshuffle interpolate').split():
        assert hasattr(F, n) and n in F.__all__
