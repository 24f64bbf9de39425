"""Layers, functional ops, losses and init against PyTorch: forward values and parameter gradients with copied
weights, in float32 and float64, over small hypothesis-drawn shapes."""
import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F

tF = torch.nn.functional
DTYPES = [(minitorch.float32, torch.float32, 1e-4), (minitorch.float64, torch.float64, 1e-9)]
SETTINGS = dict(max_examples=25, deadline=None)


def mt(t, requires_grad=False):
    "A torch tensor as a minitorch tensor (same dtype)."
    return minitorch.tensor(t.detach().numpy(), requires_grad=requires_grad)


def close(a, b, tol):
    a = a.detach().numpy() if hasattr(a, 'detach') else np.asarray(a)
    return np.allclose(a, b.detach().numpy(), atol=tol, rtol=tol, equal_nan=True)


def check_module(ours, theirs, *inputs, tol=1e-5, grad=True):
    "Copy torch's state into ours, compare forward, input gradients and parameter gradients, and the repr."
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    tin = [x.clone().requires_grad_(grad and x.is_floating_point()) for x in inputs]
    oin = [mt(x, requires_grad=grad and x.is_floating_point()) for x in inputs]
    tout, out = theirs(*tin), ours(*oin)
    assert tuple(out.shape) == tuple(tout.shape)
    assert close(out, tout, tol), (out, tout)
    if grad:
        g = torch.randn_like(tout)
        tout.backward(g)
        out.backward(mt(g))
        for x, tx in zip(oin, tin):
            if tx.requires_grad:
                assert close(x.grad, tx.grad, tol)
        tp = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            assert close(p.grad, tp[name].grad, tol), name
    assert repr(ours) == repr(theirs)
    return out


# --- Linear ------------------------------------------------------------------------------------------------

@pytest.mark.task11_1
@settings(**SETTINGS)
@given(n=st.integers(1, 5), fin=st.integers(1, 6), fout=st.integers(1, 6), bias=st.booleans(),
       lead=st.sampled_from([(), (2,), (2, 3)]), dt=st.sampled_from(DTYPES))
def test_linear_forward_and_grads(n, fin, fout, bias, lead, dt):
    md, td, tol = dt
    theirs = torch.nn.Linear(fin, fout, bias=bias, dtype=td)
    ours = nn.Linear(fin, fout, bias=bias, dtype=md)
    check_module(ours, theirs, torch.randn(*lead, n, fin, dtype=td), tol=tol)


@pytest.mark.task11_1
def test_linear_functional_and_defaults():
    x, w, b = torch.randn(4, 3), torch.randn(2, 3), torch.randn(2)
    assert close(F.linear(mt(x), mt(w), mt(b)), tF.linear(x, w, b), 1e-5)
    assert close(F.linear(mt(x), mt(w)), tF.linear(x, w), 1e-5)
    lin = nn.Linear(400, 30)
    bound = 1 / math.sqrt(400)
    assert abs(lin.weight.detach().numpy()).max() <= bound and abs(lin.bias.detach().numpy()).max() <= bound
    assert abs(lin.weight.detach().numpy()).max() > 0.9 * bound
    assert lin.weight.dtype == minitorch.float32 and tuple(lin.weight.shape) == (30, 400)
    assert repr(nn.Linear(2, 3, bias=False)) == 'Linear(in_features=2, out_features=3, bias=False)'


# --- Convolution --------------------------------------------------------------------------------------------

conv_cfg = st.fixed_dictionaries(dict(
    k=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)), dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    groups=st.sampled_from([1, 2]), bias=st.booleans()))


@pytest.mark.task11_2
@settings(**SETTINGS)
@given(cfg=conv_cfg, n=st.integers(1, 2), cg=st.integers(1, 2), og=st.integers(1, 2),
       hw=st.tuples(st.integers(5, 7), st.integers(5, 7)), dt=st.sampled_from(DTYPES))
def test_conv2d_forward_and_grads(cfg, n, cg, og, hw, dt):
    md, td, tol = dt
    g = cfg['groups']
    kw = dict(stride=cfg['stride'], padding=cfg['padding'], dilation=cfg['dilation'], groups=g, bias=cfg['bias'])
    theirs = torch.nn.Conv2d(cg * g, og * g, cfg['k'], dtype=td, **kw)
    ours = nn.Conv2d(cg * g, og * g, cfg['k'], dtype=md, **kw)
    check_module(ours, theirs, torch.randn(n, cg * g, *hw, dtype=td), tol=tol)


@pytest.mark.task11_2
def test_conv2d_functional_variants():
    x = torch.randn(2, 4, 6, 5, dtype=torch.float64)
    w = torch.randn(6, 4, 3, 2, dtype=torch.float64)
    for kw in [dict(padding='same', dilation=2), dict(padding='valid'), dict(stride=(2, 1), padding=(1, 0))]:
        assert close(F.conv2d(mt(x), mt(w), **kw), tF.conv2d(x, w, **kw), 1e-10)
    assert close(F.conv2d(mt(x[0]), mt(w)), tF.conv2d(x[0], w), 1e-10)        # unbatched
    with pytest.raises(RuntimeError, match='to have 3 channels, but got 4 channels instead'):
        F.conv2d(mt(x), minitorch.zeros(6, 3, 3, 3, dtype=minitorch.float64))
    with pytest.raises(ValueError, match='strided'):
        nn.Conv2d(2, 2, 3, stride=2, padding='same')


def test_conv2d_complex_weights():
    x = torch.randn(1, 2, 5, 5, dtype=torch.complex128)
    w = torch.randn(3, 2, 3, 3, dtype=torch.complex128)
    assert close(F.conv2d(mt(x), mt(w), padding=1), tF.conv2d(x, w, padding=1), 1e-10)
    theirs = torch.nn.Conv2d(2, 3, 3, padding=1, dtype=torch.complex64)
    ours = nn.Conv2d(2, 3, 3, padding=1, dtype=minitorch.complex64)
    assert ours.weight.dtype == minitorch.complex64
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    xc = torch.randn(1, 2, 4, 4, dtype=torch.complex64)
    tout, out = theirs(xc), ours(mt(xc))
    assert close(out, tout, 1e-5)
    tout.abs().sum().backward()
    out.abs().sum().backward()
    assert close(ours.weight.grad, theirs.weight.grad, 1e-4) and close(ours.bias.grad, theirs.bias.grad, 1e-4)


@settings(**SETTINGS)
@given(k=st.integers(1, 3), stride=st.integers(1, 2), padding=st.integers(0, 1), dilation=st.integers(1, 2),
       groups=st.sampled_from([1, 2]), length=st.integers(5, 8), dt=st.sampled_from(DTYPES))
def test_conv1d_forward_and_grads(k, stride, padding, dilation, groups, length, dt):
    md, td, tol = dt
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    check_module(nn.Conv1d(2, 4, k, dtype=md, **kw), torch.nn.Conv1d(2, 4, k, dtype=td, **kw),
                 torch.randn(2, 2, length, dtype=td), tol=tol)


@settings(**SETTINGS)
@given(k=st.tuples(st.integers(1, 3), st.integers(1, 3)), stride=st.integers(1, 2), padding=st.integers(0, 1),
       dilation=st.integers(1, 2))
def test_unfold_matches_torch(k, stride, padding, dilation):
    x = torch.randn(2, 3, 6, 5, dtype=torch.float64)
    kw = dict(kernel_size=k, stride=stride, padding=padding, dilation=dilation)
    assert close(F.unfold(mt(x), **kw), tF.unfold(x, **kw), 1e-12)


def test_pad():
    x = torch.randn(2, 3, 4)
    for p in [(1, 2), (0, 1, 2, 0), (1, 1, 1, 1, 1, 1)]:
        assert close(F.pad(mt(x), p), tF.pad(x, p), 0)
    assert close(F.pad(mt(x), (1, 1), value=3.0), tF.pad(x, (1, 1), value=3.0), 0)


# --- Pooling ------------------------------------------------------------------------------------------------

@settings(**SETTINGS)
@given(k=st.integers(1, 3), stride=st.sampled_from([None, 1, 2]), padding=st.integers(0, 1),
       ceil_mode=st.booleans(), count_include_pad=st.booleans(), hw=st.tuples(st.integers(4, 7), st.integers(4, 7)),
       dt=st.sampled_from(DTYPES))
def test_pooling_forward_and_grads(k, stride, padding, ceil_mode, count_include_pad, hw, dt):
    md, td, tol = dt
    padding = min(padding, k // 2)
    x = torch.randn(2, 3, *hw, dtype=td)
    check_module(nn.MaxPool2d(k, stride, padding, ceil_mode=ceil_mode),
                 torch.nn.MaxPool2d(k, stride, padding, ceil_mode=ceil_mode), x, tol=tol)
    check_module(nn.AvgPool2d(k, stride, padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad),
                 torch.nn.AvgPool2d(k, stride, padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad),
                 x, tol=tol)


def test_pooling_errors_and_dilation():
    x = torch.randn(1, 2, 7, 7)
    assert close(F.max_pool2d(mt(x), 3, 1, 1, dilation=2), tF.max_pool2d(x, 3, 1, 1, dilation=2), 1e-6)
    assert close(F.avg_pool2d(mt(x), 2, divisor_override=3), tF.avg_pool2d(x, 2, divisor_override=3), 1e-6)
    with pytest.raises(RuntimeError, match='pad should be at most half of effective kernel size'):
        F.max_pool2d(mt(x), 2, padding=2)


# --- Embedding, normalisation, dropout, activations ------------------------------------------------------------

@settings(**SETTINGS)
@given(num=st.integers(2, 6), dim=st.integers(1, 4), shape=st.sampled_from([(3,), (2, 3)]),
       padding_idx=st.sampled_from([None, 0, -1]), dt=st.sampled_from(DTYPES))
def test_embedding(num, dim, shape, padding_idx, dt):
    md, td, tol = dt
    idx = torch.randint(0, num, shape)
    idx.view(-1)[0] = num - 1
    ours = nn.Embedding(num, dim, padding_idx=padding_idx, dtype=md)
    theirs = torch.nn.Embedding(num, dim, padding_idx=padding_idx, dtype=td)
    check_module(ours, theirs, idx, tol=tol)
    if padding_idx is not None:
        assert np.all(nn.Embedding(num, dim, padding_idx=padding_idx).weight[padding_idx].detach().numpy() == 0)


@settings(**SETTINGS)
@given(shape=st.sampled_from([(3, 4), (2, 3, 4), (2, 2, 3, 4)]), affine=st.booleans(), bias=st.booleans(),
       dt=st.sampled_from(DTYPES))
def test_layer_norm(shape, affine, bias, dt):
    md, td, tol = dt
    for ns in [shape[-1:], shape[-2:]]:
        check_module(nn.LayerNorm(ns, elementwise_affine=affine, bias=bias, dtype=md),
                     torch.nn.LayerNorm(ns, elementwise_affine=affine, bias=bias, dtype=td),
                     torch.randn(*shape, dtype=td), tol=tol)


@pytest.mark.parametrize('dt', DTYPES)
@pytest.mark.parametrize('momentum', [0.1, None])
def test_batch_norm_running_stats_and_eval(dt, momentum):
    md, td, tol = dt
    for ours, theirs, shape in [(nn.BatchNorm1d(3, momentum=momentum, dtype=md),
                                 torch.nn.BatchNorm1d(3, momentum=momentum, dtype=td), (5, 3)),
                                (nn.BatchNorm1d(3, momentum=momentum, dtype=md),
                                 torch.nn.BatchNorm1d(3, momentum=momentum, dtype=td), (4, 3, 2)),
                                (nn.BatchNorm2d(3, momentum=momentum, dtype=md),
                                 torch.nn.BatchNorm2d(3, momentum=momentum, dtype=td), (2, 3, 2, 3))]:
        for _ in range(3):
            check_module(ours, theirs, torch.randn(*shape, dtype=td), tol=tol)
            for (n, b), (tn, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
                assert n == tn and close(b, tb, tol)
        ours.eval(); theirs.eval()
        check_module(ours, theirs, torch.randn(*shape, dtype=td), tol=tol)
    with pytest.raises(ValueError, match='expected 4D input'):
        nn.BatchNorm2d(3)(minitorch.zeros(2, 3))
    with pytest.raises(ValueError, match='Expected more than 1 value per channel when training'):
        nn.BatchNorm1d(3)(minitorch.zeros(1, 3))


def test_batch_norm_without_running_stats():
    ours, theirs = nn.BatchNorm1d(2, track_running_stats=False), torch.nn.BatchNorm1d(2, track_running_stats=False)
    ours.eval(); theirs.eval()
    check_module(ours, theirs, torch.randn(4, 2), tol=1e-5)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_dropout():
    x = minitorch.ones(2000)
    d = nn.Dropout(0.3)
    out = d(x).numpy()
    assert np.all(np.isclose(out, 0) | np.isclose(out, 1 / 0.7))
    assert 0.25 < (out == 0).mean() < 0.35
    d.eval()
    assert np.array_equal(d(x).numpy(), np.ones(2000))
    assert np.array_equal(F.dropout(x, 1.0).numpy(), np.zeros(2000))
    with pytest.raises(ValueError, match='dropout probability has to be between 0 and 1, but got 1.5'):
        nn.Dropout(1.5)
    assert repr(nn.Dropout()) == repr(torch.nn.Dropout())


ACTIVATIONS = [
    (lambda: nn.ReLU(), lambda: torch.nn.ReLU()), (lambda: nn.GELU(), lambda: torch.nn.GELU()),
    (lambda: nn.GELU('tanh'), lambda: torch.nn.GELU('tanh')), (lambda: nn.SiLU(), lambda: torch.nn.SiLU()),
    (lambda: nn.Tanh(), lambda: torch.nn.Tanh()), (lambda: nn.Sigmoid(), lambda: torch.nn.Sigmoid()),
    (lambda: nn.Softmax(dim=1), lambda: torch.nn.Softmax(dim=1)),
    (lambda: nn.LogSoftmax(dim=-1), lambda: torch.nn.LogSoftmax(dim=-1)),
    (lambda: nn.Flatten(), lambda: torch.nn.Flatten()), (lambda: nn.Flatten(0, 1), lambda: torch.nn.Flatten(0, 1)),
    (lambda: nn.Identity(3, x=1), lambda: torch.nn.Identity(3, x=1)),
]


@pytest.mark.parametrize('make', ACTIVATIONS)
@pytest.mark.parametrize('dt', DTYPES)
def test_activations(make, dt):
    md, td, tol = dt
    check_module(make[0]().to(md), make[1]().to(td), torch.randn(3, 4, 2, dtype=td) * 3, tol=tol)


def test_functional_activations():
    x = torch.randn(40, dtype=torch.float64) * 4
    for ours, theirs in [(F.softplus, tF.softplus), (F.logsigmoid, tF.logsigmoid), (F.leaky_relu, tF.leaky_relu),
                         (lambda t: F.softplus(t, beta=2, threshold=3), lambda t: tF.softplus(t, beta=2, threshold=3))]:
        assert close(ours(mt(x)), theirs(x), 1e-12)
    with pytest.warns(UserWarning, match='Implicit dimension'):
        F.softmax(mt(x.reshape(4, 10)))


# --- Losses -------------------------------------------------------------------------------------------------

@pytest.mark.task11_3
@settings(**SETTINGS)
@given(n=st.integers(1, 5), c=st.integers(2, 5), extra=st.sampled_from([(), (3,), (2, 2)]),
       use_weight=st.booleans(), reduction=st.sampled_from(['mean', 'sum', 'none']),
       smoothing=st.sampled_from([0.0, 0.1, 0.5]), ignore=st.booleans(), dt=st.sampled_from(DTYPES))
def test_cross_entropy_class_indices(n, c, extra, use_weight, reduction, smoothing, ignore, dt):
    md, td, tol = dt
    x = torch.randn(n, c, *extra, dtype=td)
    t = torch.randint(0, c, (n, *extra))
    if ignore:
        t.view(-1)[0] = -100
    w = torch.rand(c, dtype=td) + 0.1 if use_weight else None
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    theirs = torch.nn.CrossEntropyLoss(weight=w, **kw)
    ours = nn.CrossEntropyLoss(weight=None if w is None else mt(w), **kw)
    xt, xo = x.clone().requires_grad_(), mt(x, requires_grad=True)
    tl, ol = theirs(xt, t), ours(xo, mt(t))
    assert close(ol, tl, tol)
    g = torch.randn_like(tl)
    tl.backward(g)
    ol.backward(mt(g))
    assert close(xo.grad, xt.grad, tol)


@pytest.mark.task11_3
@settings(**SETTINGS)
@given(n=st.integers(1, 4), c=st.integers(2, 5), use_weight=st.booleans(), smoothing=st.sampled_from([0.0, 0.2]),
       reduction=st.sampled_from(['mean', 'sum', 'none']), dt=st.sampled_from(DTYPES))
def test_cross_entropy_probabilities(n, c, use_weight, smoothing, reduction, dt):
    md, td, tol = dt
    x = torch.randn(n, c, dtype=td)
    p = torch.softmax(torch.randn(n, c, dtype=td), 1)
    w = torch.rand(c, dtype=td) if use_weight else None
    xt, xo = x.clone().requires_grad_(), mt(x, requires_grad=True)
    tl = tF.cross_entropy(xt, p, weight=w, label_smoothing=smoothing, reduction=reduction)
    ol = F.cross_entropy(xo, mt(p), weight=None if w is None else mt(w), label_smoothing=smoothing,
                         reduction=reduction)
    assert close(ol, tl, tol)
    tl.sum().backward()
    ol.sum().backward()
    assert close(xo.grad, xt.grad, tol)


@pytest.mark.task11_3
def test_cross_entropy_edge_cases():
    x = torch.randn(4, 3)
    t = torch.tensor([0, 2, 1, 2])
    assert close(F.cross_entropy(mt(x[0]), mt(t[0])), tF.cross_entropy(x[0], t[0]), 1e-6)   # unbatched
    all_ignored = torch.full((4,), -100)
    assert close(F.cross_entropy(mt(x), mt(all_ignored)), tF.cross_entropy(x, all_ignored), 1e-6)  # nan
    assert close(F.cross_entropy(mt(x), mt(t), ignore_index=2), tF.cross_entropy(x, t, ignore_index=2), 1e-6)
    with pytest.raises(IndexError, match='Target 3 is out of bounds.'):
        F.cross_entropy(mt(x), mt(torch.tensor([0, 3, 1, 2])))
    with pytest.raises(ValueError, match=r'Expected input batch_size \(4\) to match target batch_size \(3\)'):
        F.cross_entropy(mt(x), mt(t[:3]))


@settings(**SETTINGS)
@given(n=st.integers(1, 5), c=st.integers(2, 4), use_weight=st.booleans(),
       reduction=st.sampled_from(['mean', 'sum', 'none']), dt=st.sampled_from(DTYPES))
def test_nll_loss(n, c, use_weight, reduction, dt):
    md, td, tol = dt
    x = torch.randn(n, c, dtype=td).log_softmax(1)
    t = torch.randint(0, c, (n,))
    w = torch.rand(c, dtype=td) if use_weight else None
    assert close(F.nll_loss(mt(x), mt(t), None if w is None else mt(w), reduction=reduction),
                 tF.nll_loss(x, t, w, reduction=reduction), tol)
    assert repr(nn.NLLLoss()) == 'NLLLoss()'


@settings(**SETTINGS)
@given(shape=st.sampled_from([(3,), (2, 3), (2, 2, 2)]), reduction=st.sampled_from(['mean', 'sum', 'none']),
       use_weight=st.booleans(), use_pos=st.booleans(), dt=st.sampled_from(DTYPES))
def test_regression_and_binary_losses(shape, reduction, use_weight, use_pos, dt):
    md, td, tol = dt
    x, y = torch.randn(*shape, dtype=td) * 3, torch.rand(*shape, dtype=td)
    w = torch.rand(*shape, dtype=td) if use_weight else None
    pw = torch.rand(shape[-1], dtype=td) * 3 if use_pos else None
    cases = [(nn.MSELoss(reduction=reduction), torch.nn.MSELoss(reduction=reduction), x),
             (nn.L1Loss(reduction=reduction), torch.nn.L1Loss(reduction=reduction), x),
             (nn.BCELoss(None if w is None else mt(w), reduction=reduction),
              torch.nn.BCELoss(w, reduction=reduction), x.sigmoid()),
             (nn.BCEWithLogitsLoss(None if w is None else mt(w), reduction=reduction,
                                   pos_weight=None if pw is None else mt(pw)),
              torch.nn.BCEWithLogitsLoss(w, reduction=reduction, pos_weight=pw), x)]
    for ours, theirs, inp in cases:
        it, io = inp.detach().clone().requires_grad_(), mt(inp, requires_grad=True)
        tl, ol = theirs(it, y), ours(io, mt(y))
        assert close(ol, tl, tol), ours
        tl.sum().backward()
        ol.sum().backward()
        assert close(io.grad, it.grad, tol), ours
        assert repr(ours) == repr(theirs)


def test_loss_errors_and_legacy_args():
    x, y = torch.rand(3, 1), torch.rand(3)
    with pytest.raises(ValueError, match='Using a target size'):
        F.binary_cross_entropy(mt(x), mt(y))
    with pytest.raises(ValueError, match=r'Target size .* must be the same as input size'):
        F.binary_cross_entropy_with_logits(mt(x), mt(y))
    with pytest.warns(UserWarning, match='Using a target size'):
        F.mse_loss(mt(x), mt(y))
    with pytest.raises(ValueError, match='is not a valid value for reduction'):
        F.l1_loss(mt(y), mt(y), reduction='avg')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert close(F.mse_loss(mt(y), mt(y * 2), size_average=False), tF.mse_loss(y, y * 2, size_average=False),
                     1e-6)
    assert F.binary_cross_entropy(minitorch.tensor([0.0, 1.0]), minitorch.tensor([1.0, 0.0])).item() == 100.0


# --- init ---------------------------------------------------------------------------------------------------

def test_init_gain_and_fans():
    for nl, p in [('linear', None), ('conv2d', None), ('sigmoid', None), ('tanh', None), ('relu', None),
                  ('leaky_relu', None), ('leaky_relu', 0.2), ('selu', None)]:
        assert math.isclose(nn.init.calculate_gain(nl, p), torch.nn.init.calculate_gain(nl, p))
    with pytest.raises(ValueError, match='Unsupported nonlinearity'):
        nn.init.calculate_gain('swish')
    for shape in [(3, 4), (8, 4, 3, 3), (2, 3, 5)]:
        assert nn.init._calculate_fan_in_and_fan_out(minitorch.empty(*shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(ValueError, match='fewer than 2 dimensions'):
        nn.init.xavier_uniform_(minitorch.empty(3))
    with pytest.raises(ValueError, match='Mode fan_avg not supported'):
        nn.init.kaiming_uniform_(minitorch.empty(3, 3), mode='fan_avg')


def test_init_distributions():
    minitorch.manual_seed(0)
    w = minitorch.empty(256, 128, 3)
    fan_in, fan_out = 128 * 3, 256 * 3
    assert nn.init.uniform_(w, -2, 3) is w
    v = w.numpy()
    assert v.min() >= -2 and v.max() <= 3 and abs(v.mean() - 0.5) < 0.05
    nn.init.normal_(w, 1.0, 2.0)
    assert abs(w.numpy().mean() - 1) < 0.05 and abs(w.numpy().std() - 2) < 0.05
    nn.init.xavier_uniform_(w, gain=2.0)
    b = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert abs(w.numpy()).max() <= b and abs(w.numpy()).max() > 0.98 * b
    nn.init.xavier_normal_(w)
    assert math.isclose(w.numpy().std(), math.sqrt(2 / (fan_in + fan_out)), rel_tol=0.03)
    nn.init.kaiming_uniform_(w, mode='fan_out', nonlinearity='relu')
    b = math.sqrt(2) * math.sqrt(3 / fan_out)
    assert abs(w.numpy()).max() <= b and abs(w.numpy()).max() > 0.98 * b
    nn.init.kaiming_normal_(w, a=0.1)
    assert math.isclose(w.numpy().std(), math.sqrt(2 / 1.01) / math.sqrt(fan_in), rel_tol=0.03)
    nn.init.constant_(w, 0.5)
    assert np.all(w.numpy() == 0.5)
    nn.init.zeros_(w); assert np.all(w.numpy() == 0)
    nn.init.ones_(w); assert np.all(w.numpy() == 1)
    p = nn.Parameter(minitorch.empty(3, 3))
    nn.init.kaiming_uniform_(p, a=math.sqrt(5))
    assert p.requires_grad and p.grad_fn is None


def test_default_initialisation_bounds():
    conv = nn.Conv2d(4, 8, 3)
    bound = 1 / math.sqrt(4 * 9)
    for p in (conv.weight, conv.bias):
        a = abs(p.detach().numpy())
        assert a.max() <= bound and a.max() > 0.5 * bound
    assert np.all(nn.LayerNorm(3).weight.detach().numpy() == 1)
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == list(torch.nn.BatchNorm2d(3).state_dict())
    assert bn.num_batches_tracked.dtype == minitorch.int64


def test_layer_reprs_match_torch():
    pairs = [(nn.Conv2d(1, 2, 3, padding=1, bias=False), torch.nn.Conv2d(1, 2, 3, padding=1, bias=False)),
             (nn.Conv2d(4, 4, (3, 2), stride=2, dilation=2, groups=2), torch.nn.Conv2d(4, 4, (3, 2), stride=2, dilation=2, groups=2)),
             (nn.Conv2d(1, 2, 3, padding='same'), torch.nn.Conv2d(1, 2, 3, padding='same')),
             (nn.Conv1d(2, 2, 3, stride=2), torch.nn.Conv1d(2, 2, 3, stride=2)),
             (nn.MaxPool2d(2), torch.nn.MaxPool2d(2)), (nn.MaxPool2d((2, 3), 1, 1), torch.nn.MaxPool2d((2, 3), 1, 1)),
             (nn.AvgPool2d(2), torch.nn.AvgPool2d(2)),
             (nn.Embedding(3, 4, padding_idx=0), torch.nn.Embedding(3, 4, padding_idx=0)),
             (nn.LayerNorm(4), torch.nn.LayerNorm(4)), (nn.LayerNorm((2, 3), elementwise_affine=False), torch.nn.LayerNorm((2, 3), elementwise_affine=False)),
             (nn.BatchNorm1d(3, momentum=None, affine=False), torch.nn.BatchNorm1d(3, momentum=None, affine=False)),
             (nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)), (nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
             (nn.CrossEntropyLoss(label_smoothing=0.1), torch.nn.CrossEntropyLoss(label_smoothing=0.1))]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        assert list(ours.state_dict()) == list(theirs.state_dict())


def test_small_cnn_end_to_end():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                 torch.nn.Conv2d(4, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                 torch.nn.AvgPool2d(2), torch.nn.Flatten(), torch.nn.Dropout(0.0),
                                 torch.nn.Linear(32, 10))
    ours = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AvgPool2d(2), nn.Flatten(), nn.Dropout(0.0), nn.Linear(32, 10))
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    x, y = torch.randn(5, 1, 8, 8), torch.randint(0, 10, (5,))
    tl = tF.cross_entropy(theirs(x), y)
    ol = F.cross_entropy(ours(mt(x)), mt(y))
    assert close(ol, tl, 1e-5)
    tl.backward(); ol.backward()
    tp = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        assert close(p.grad, tp[n].grad, 1e-4), n
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_cross_entropy_fused_matches_torch(reduction, dtype):
    "The fused CPU BCE: values, PyTorch's gradient formula at clamped logs, double backward, a target with grad."
    import minitorch
    import minitorch.nn.functional as MF
    p = [[0.2, 1 - 1e-7, 1e-30], [0.0, 1.0, 0.5], [0.7, 0.3, 0.999]]
    y = [[1.0, 0.0, 1.0], [0.25, 0.0, 1.0], [0.0, 1.0, 0.5]]
    tp = torch.tensor(p, dtype=getattr(torch, dtype), requires_grad=True)
    ty = torch.tensor(y, dtype=getattr(torch, dtype))
    mp = minitorch.tensor(p, dtype=getattr(minitorch, dtype), requires_grad=True)
    my = minitorch.tensor(y, dtype=getattr(minitorch, dtype))
    tl, ml = torch.nn.functional.binary_cross_entropy(tp, ty, reduction=reduction), MF.binary_cross_entropy(mp, my, reduction=reduction)
    assert ml.dtype == getattr(minitorch, dtype) and ml.grad_fn.name() == tl.grad_fn.name()
    np.testing.assert_allclose(ml.detach().numpy(), tl.detach().numpy(), rtol=1e-6)
    tg, = torch.autograd.grad(tl.sum(), tp, create_graph=True)
    mg, = minitorch.autograd.grad(ml.sum(), mp, create_graph=True)
    np.testing.assert_allclose(mg.detach().numpy(), tg.detach().numpy(), rtol=1e-6)
    keep = (tp.detach() > 0.01) & (tp.detach() < 0.99)          # second derivative away from the clamp
    tgg, = torch.autograd.grad((tg * keep).sum(), tp)
    mgg, = minitorch.autograd.grad((mg * minitorch.tensor(keep.numpy())).sum(), mp)
    np.testing.assert_allclose(mgg.numpy(), tgg.numpy(), rtol=1e-5)
    ty.requires_grad_(True); my.requires_grad_(True)           # a target that needs a gradient: composite path
    torch.nn.functional.binary_cross_entropy(tp, ty, reduction=reduction).sum().backward()
    MF.binary_cross_entropy(mp, my, reduction=reduction).sum().backward()
    inner = keep.numpy()                                        # torch's target gradient is ±inf at 0 and 1
    np.testing.assert_allclose(my.grad.numpy()[inner], ty.grad.numpy()[inner], rtol=1e-5)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        MF.binary_cross_entropy(minitorch.tensor([float("nan")]), minitorch.tensor([1.0]))


# ---------------------------------------------------------------- 16-bit floats: PyTorch's rounding (issue 12)
def _to_mt16(t, requires_grad=False):
    name = str(t.dtype).split('.')[-1]
    return minitorch.tensor(np.array(t.detach().float().numpy()), dtype=getattr(minitorch, name),
                            requires_grad=requires_grad)


def _to_torch16(m):
    name = str(m.dtype).split('.')[-1]
    return torch.tensor(np.array(m.detach().float().numpy())).to(getattr(torch, name))


def _ulps(a, b):
    "Largest distance in units in the last place between two 16-bit tensors of one dtype (signs handled)."
    def ordered(t):
        i = t.contiguous().view(torch.int16).to(torch.int32)
        return torch.where(i < 0, -32768 - i, i)
    return int((ordered(a) - ordered(b)).abs().max()) if a.numel() else 0


_HALF_CASES = {
    'softmax': lambda F_, x, y: F_.softmax(x, -1),
    'softmax0': lambda F_, x, y: F_.softmax(x, 0),
    'log_softmax': lambda F_, x, y: F_.log_softmax(x, -1),
    'log_softmax0': lambda F_, x, y: F_.log_softmax(x, 0),
    'gelu': lambda F_, x, y: F_.gelu(x),
    'gelu_tanh': lambda F_, x, y: F_.gelu(x, approximate='tanh'),
    'silu': lambda F_, x, y: F_.silu(x),
    'logsigmoid': lambda F_, x, y: F_.logsigmoid(x),
    'softplus': lambda F_, x, y: F_.softplus(x),
    'layer_norm': lambda F_, x, y: F_.layer_norm(x, (x.shape[-1],)),
    'layer_norm_affine': lambda F_, x, y: F_.layer_norm(x, (x.shape[-1],), y[0], y[1]),
    'mse': lambda F_, x, y: F_.mse_loss(x, y),
    'mse_sum': lambda F_, x, y: F_.mse_loss(x, y, reduction='sum'),
    'mse_none': lambda F_, x, y: F_.mse_loss(x, y, reduction='none'),
    'l1': lambda F_, x, y: F_.l1_loss(x, y),
    'l1_none': lambda F_, x, y: F_.l1_loss(x, y, reduction='none'),
    'bce': lambda F_, x, y: F_.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
    'bce_none': lambda F_, x, y: F_.binary_cross_entropy(x.sigmoid(), y.sigmoid(), reduction='none'),
    'bce_logits': lambda F_, x, y: F_.binary_cross_entropy_with_logits(x, y.sigmoid()),
    'bce_logits_none': lambda F_, x, y: F_.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction='none'),
}


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('name', list(_HALF_CASES))
def test_half_precision_within_one_ulp(name, dtype):
    "16-bit forward values within 1 ulp of PyTorch (which computes in float32 and rounds once); gradients close."
    f, worst = _HALF_CASES[name], 0
    for seed in range(12):
        g = torch.Generator().manual_seed(seed)
        x = (torch.randn(6, 10, generator=g) * 1.2).clamp(-3, 3).to(getattr(torch, dtype))
        y = torch.randn(6, 10, generator=g).to(x.dtype)
        tx, mx = x.clone().requires_grad_(True), _to_mt16(x, True)
        rt, rm = f(tF, tx, y), f(F, mx, _to_mt16(y))
        assert str(rm.dtype).split('.')[-1] == dtype
        worst = max(worst, _ulps(_to_torch16(rm), rt.detach()))
        go = torch.randn(rt.shape, generator=g).to(rt.dtype)
        (rt * go).sum().backward()
        (rm * _to_mt16(go)).sum().backward()
        torch.testing.assert_close(_to_torch16(mx.grad), tx.grad, rtol=4e-2, atol=4e-2)
    assert worst <= 1, f"{name} {dtype}: {worst} ulps from torch"


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_half_cross_entropy_and_nll(dtype, reduction):
    worst = 0
    for seed in range(12):
        g = torch.Generator().manual_seed(seed)
        x = (torch.randn(6, 10, generator=g) * 2).to(getattr(torch, dtype))
        t = torch.randint(0, 10, (6,), generator=g)
        tx, mx = x.clone().requires_grad_(True), _to_mt16(x, True)
        rt = tF.cross_entropy(tx, t, reduction=reduction)
        rm = F.cross_entropy(mx, minitorch.tensor(t.numpy()), reduction=reduction)
        worst = max(worst, _ulps(_to_torch16(rm), rt.detach()))
        go = torch.randn(rt.shape, generator=g).to(rt.dtype)
        (rt * go).sum().backward(); (rm * _to_mt16(go)).sum().backward()
        assert _ulps(_to_torch16(mx.grad), tx.grad) <= 1
        lp = x.float().log_softmax(1).to(x.dtype)               # log-probabilities: no cancellation in the sum
        nt = tF.nll_loss(lp, t, reduction=reduction)
        nm = F.nll_loss(_to_mt16(lp), minitorch.tensor(t.numpy()), reduction=reduction)
        worst = max(worst, _ulps(_to_torch16(nm), nt))
    assert worst <= 1


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_half_mean_var_std_norm_round_once(dtype):
    worst = {}
    for seed in range(12):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(7, 33, generator=g).to(getattr(torch, dtype))
        m = _to_mt16(x)
        for name, f in {'mean': lambda L, v: v.mean(), 'mean1': lambda L, v: v.mean(1), 'var': lambda L, v: v.var(1),
                        'std': lambda L, v: v.std(), 'norm': lambda L, v: v.norm(), 'norm1': lambda L, v: v.norm(dim=1),
                        'lse': lambda L, v: L.logsumexp(v, 1), 'sum': lambda L, v: v.sum(1)}.items():
            worst[name] = max(worst.get(name, 0), _ulps(_to_torch16(f(minitorch, m)), f(torch, x)))
    assert max(worst.values()) <= 1, worst


@pytest.mark.parametrize('approximate', ['none', 'tanh'])
def test_gelu_erf_on_0d(approximate):
    for v in (0.5, -1.25, 0.0):
        x = minitorch.tensor(v, requires_grad=True)
        r = F.gelu(x, approximate=approximate)
        tx = torch.tensor(v, requires_grad=True)
        tr = tF.gelu(tx, approximate=approximate)
        assert r.shape == () and abs(r.item() - tr.item()) < 1e-6
        r.backward(); tr.backward()
        assert abs(x.grad.item() - tx.grad.item()) < 1e-6


def test_linear_on_batched_input_folds_the_batch():
    "F.linear on (8, 16, 32) input: one addmm on the folded batch, as torch (View, Addmm, View); gradients equal."
    x = torch.randn(8, 16, 32, dtype=torch.float64)
    w = torch.randn(64, 32, dtype=torch.float64, requires_grad=True)
    b = torch.randn(64, dtype=torch.float64, requires_grad=True)
    mw, mb = mt(w, True), mt(b, True)
    out, tout = F.linear(mt(x), mw, mb), tF.linear(x, w, b)
    assert close(out, tout, 1e-10)
    g = torch.randn_like(tout)
    tout.backward(g); out.backward(mt(g))
    assert close(mw.grad, w.grad, 1e-9) and close(mb.grad, b.grad, 1e-9)
    names, stack, seen = [], [out.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen: continue
        seen.add(id(fn)); names.append(fn.name())
        stack += [f for f, _ in fn.next_functions]
    assert 'AddmmBackward0' in names and 'BmmBackward0' not in names
    tnames, stack, seen = [], [tout.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen: continue
        seen.add(id(fn)); tnames.append(fn.name())
        stack += [f for f, _ in fn.next_functions]
    assert sorted(n.split('::')[-1] for n in tnames) == sorted(names)


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_bce_gradient_at_0_and_1(dtype, reduction):
    "BCE is one op in PyTorch: at x = 0 or 1 its gradient is finite, not the chain rule's NaN; also w.r.t. target."
    x = torch.tensor([0.0, 1.0, 0.5, 0.0, 1.0], dtype=dtype)
    y = torch.tensor([0.0, 1.0, 1.0, 1.0, 0.0], dtype=dtype)
    w = torch.tensor([1.0, 2.0, 0.5, 1.0, 1.0], dtype=dtype)
    for weight in (None, w):
        tx, ty = x.clone().requires_grad_(True), y.clone().requires_grad_(True)
        mx, my = _to_mt16(tx, True), _to_mt16(ty, True)
        rt = tF.binary_cross_entropy(tx, ty, weight, reduction=reduction)
        rm = F.binary_cross_entropy(mx, my, None if weight is None else _to_mt16(weight), reduction=reduction)
        torch.testing.assert_close(_to_torch16(rm), rt.detach())
        rt.sum().backward(); rm.sum().backward()
        torch.testing.assert_close(_to_torch16(mx.grad), tx.grad, rtol=1e-3, atol=1e-3, equal_nan=True)
        torch.testing.assert_close(_to_torch16(my.grad), ty.grad, rtol=1e-3, atol=1e-3, equal_nan=True)


# --- Issue 21: more layers, lazy modules, node names, module paths --------------------------------------------

def test_bilinear_against_torch():
    torch.manual_seed(0)
    theirs = torch.nn.Bilinear(3, 4, 5, dtype=torch.float64)
    ours = nn.Bilinear(3, 4, 5, dtype=minitorch.float64)
    check_module(ours, theirs, torch.randn(2, 6, 3, dtype=torch.float64), torch.randn(2, 6, 4, dtype=torch.float64),
                 tol=1e-10)
    nb = nn.Bilinear(3, 4, 5, bias=False)
    assert nb.bias is None and repr(nb) == repr(torch.nn.Bilinear(3, 4, 5, bias=False))
    with pytest.raises(RuntimeError): F.bilinear(minitorch.ones(2, 3), minitorch.ones(3, 4), minitorch.ones(5, 3, 4))


@pytest.mark.parametrize('name,shape', [('Dropout1d', (8, 16, 10)), ('Dropout2d', (8, 16, 4, 4)),
                                        ('Dropout3d', (4, 16, 2, 3, 3)), ('FeatureAlphaDropout', (8, 16, 4, 4))])
def test_channel_dropout_zeroes_whole_channels(name, shape):
    layer, tlayer = getattr(nn, name)(0.3), getattr(torch.nn, name)(0.3)
    assert repr(layer) == repr(tlayer)
    minitorch.manual_seed(1)
    x = minitorch.randn(*shape)
    y = layer(x).reshape(shape[0], shape[1], -1)
    xf = x.reshape(shape[0], shape[1], -1)
    if 'Alpha' in name:
        a_ = -1.7580993408473766
        a = ((1 - 0.3) * (1 + 0.3 * a_ * a_)) ** -0.5
        same = (y == y[..., :1]).all(-1) | (y - (a * xf - a * a_ * 0.3)).abs().amax(-1).lt(1e-5)
    else: same = (y == 0).all(-1) | (y - xf / 0.7).abs().amax(-1).lt(1e-5)
    assert same.all().item()
    layer.eval(); assert layer(x) is x


def test_dropout_errors_and_warnings_as_torch():
    for f in ('dropout1d', 'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout'):
        with pytest.raises(ValueError, match='between 0 and 1, but got 1.5'): getattr(F, f)(minitorch.ones(2, 3, 4), 1.5)
        with pytest.raises(ValueError, match='between 0 and 1'): getattr(torch.nn.functional, f)(torch.ones(2, 3, 4), 1.5)
    with pytest.raises(RuntimeError, match='dropout1d: Expected 2D or 3D input, but received a 4D input'):
        F.dropout1d(minitorch.ones(1, 2, 3, 4))
    for f, shape in [('dropout2d', (2, 3)), ('dropout2d', (2, 3, 4)), ('dropout3d', (2, 3))]:
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter('always'); getattr(F, f)(minitorch.ones(*shape))
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter('always'); getattr(torch.nn.functional, f)(torch.ones(*shape))
        assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert F.dropout1d(minitorch.ones(3, 4)).shape == (3, 4)


def test_alpha_dropout_keeps_selu_statistics():
    minitorch.manual_seed(0)
    y = F.alpha_dropout(minitorch.randn(400_000, dtype=minitorch.float64), 0.3, training=True)
    assert abs(y.mean().item()) < 0.01 and abs(y.std().item() - 1) < 0.01
    assert nn.AlphaDropout(0.3).eval()(y) is y and repr(nn.AlphaDropout(0.2)) == repr(torch.nn.AlphaDropout(0.2))


def test_softmax2d():
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    assert close(nn.Softmax2d()(mt(x)), torch.nn.Softmax2d()(x), 1e-12)
    with pytest.raises(ValueError, match='expected input to be 3D or 4D'): nn.Softmax2d()(minitorch.ones(2, 3))


@pytest.mark.parametrize('lazy,full,args,shape', [
    ('LazyLinear', 'Linear', (5,), (3, 7)), ('LazyLinear', 'Linear', (5,), (2, 3, 7)),
    ('LazyConv1d', 'Conv1d', (4, 3), (2, 6, 9)), ('LazyConv2d', 'Conv2d', (4, 3), (2, 6, 8, 8)),
    ('LazyConv2d', 'Conv2d', (4, 3), (6, 8, 8))])
def test_lazy_modules_materialize_like_torch(lazy, full, args, shape):
    ours, theirs = getattr(nn, lazy)(*args), getattr(torch.nn, lazy)(*args)
    assert repr(ours) == repr(theirs)
    params = list(ours.parameters())
    assert all(isinstance(p, nn.parameter.UninitializedParameter) for p in params)
    opt = minitorch.optim.SGD(ours.parameters(), lr=0.1)        # built before the first call, as published code does
    x = torch.randn(*shape)
    theirs(x)
    out = ours(mt(x))
    assert type(ours) is getattr(nn, full) and repr(ours) == repr(theirs)
    assert [tuple(p.shape) for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]
    assert all(a is b and type(a) is nn.Parameter for a, b in zip(ours.parameters(), params))
    bound = 1 / math.sqrt(ours.weight[0].numel())                 # kaiming_uniform(a=√5) bound = 1/√fan_in
    assert ours.weight.abs().max().item() <= bound
    out.sum().backward(); opt.step()
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    assert close(ours(mt(x)), theirs(x), 1e-5)


def test_parameter_list_and_dict():
    pl = nn.ParameterList([minitorch.zeros(2), nn.Parameter(minitorch.ones(3))])
    tpl = torch.nn.ParameterList([torch.zeros(2), torch.nn.Parameter(torch.ones(3))])
    assert [n for n, _ in pl.named_parameters()] == [n for n, _ in tpl.named_parameters()]
    assert isinstance(pl[0], nn.Parameter) and pl[-1].shape == (3,) and len(pl) == 2 and len(pl[1:]) == 1
    pl.append(minitorch.zeros(4)); assert len(list(pl.parameters())) == 3
    pd = nn.ParameterDict({'a': minitorch.zeros(2), 'b': minitorch.ones(1)})
    tpd = torch.nn.ParameterDict({'a': torch.zeros(2), 'b': torch.ones(1)})
    assert list(pd.keys()) == list(tpd.keys()) and 'a' in pd and isinstance(pd['a'], nn.Parameter)
    assert [n for n, _ in pd.named_parameters()] == [n for n, _ in tpd.named_parameters()]
    sd = pd.state_dict(); assert sorted(sd) == sorted(tpd.state_dict())


@pytest.mark.parametrize('shape,bias', [((4, 3), True), ((4, 3), False), ((2, 4, 3), True), ((3,), True),
                                        ((0, 3), True), ((2, 2, 4, 3), True)])
def test_linear_node_names_as_torch(shape, bias):
    "nn.Linear's graph has PyTorch's nodes (AddmmBackward0 with a bias, MmBackward0 without), same values and grads."
    torch.manual_seed(0)
    theirs = torch.nn.Linear(3, 5, bias=bias, dtype=torch.float64)
    ours = nn.Linear(3, 5, bias=bias, dtype=minitorch.float64)
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    mx = mt(x, True)
    tout, out = theirs(x), ours(mx)
    assert out.grad_fn.name() == tout.grad_fn.name()
    assert [f.name().split('::')[-1] for f, _ in out.grad_fn.next_functions if f is not None] == \
        [f.name().split('::')[-1] for f, _ in tout.grad_fn.next_functions if f is not None]
    g = torch.randn_like(tout)
    tout.backward(g); out.backward(mt(g))
    assert close(out, tout, 1e-12) and close(mx.grad, x.grad, 1e-12)
    for (n, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert close(p.grad, tp.grad, 1e-12), n
        assert p.grad.is_contiguous()


@pytest.mark.parametrize('kw', [{}, {'pos_weight': True}, {'weight': True}, {'reduction': 'none'}, {'reduction': 'sum'}])
def test_bce_with_logits_node_and_grads(kw):
    torch.manual_seed(0)
    x, y = torch.randn(6, 3, dtype=torch.float64, requires_grad=True), torch.rand(6, 3, dtype=torch.float64, requires_grad=True)
    extra = {k: (torch.rand(3, dtype=torch.float64) * 2 if v is True else v) for k, v in kw.items()}
    mx, my = mt(x, True), mt(y, True)
    tl = tF.binary_cross_entropy_with_logits(x, y, **extra)
    ml = F.binary_cross_entropy_with_logits(mx, my, **{k: mt(v) if isinstance(v, torch.Tensor) else v for k, v in extra.items()})
    assert ml.grad_fn.name() == tl.grad_fn.name() == 'BinaryCrossEntropyWithLogitsBackward0'
    g = torch.randn_like(tl)
    tl.backward(g); ml.backward(mt(g))
    assert close(ml, tl, 1e-12) and close(mx.grad, x.grad, 1e-12) and close(my.grad, y.grad, 1e-12)
    l = nn.BCEWithLogitsLoss()(mx, my)
    assert l.grad_fn.name() == 'BinaryCrossEntropyWithLogitsBackward0'


def test_torch_module_paths():
    import importlib
    import torch.nn.modules as tm
    for sub in ('activation', 'linear', 'conv', 'loss', 'container', 'normalization', 'dropout', 'pooling', 'rnn',
                'sparse', 'batchnorm', 'module', 'flatten', 'padding', 'distance', 'transformer', 'fold', 'lazy'):
        ours = importlib.import_module(f'minitorch.nn.modules.{sub}')
        assert getattr(nn.modules, sub) is ours
        names = [n for n in getattr(getattr(tm, sub), '__all__', []) if hasattr(nn, n)]
        assert names, sub
        for n in names: assert getattr(ours, n) is getattr(nn, n), (sub, n)
    from minitorch.nn.modules.activation import ReLU
    from minitorch.nn.parameter import Parameter
    from minitorch.nn.modules.loss import _Loss
    assert ReLU is nn.ReLU and Parameter is nn.Parameter and issubclass(nn.MSELoss, _Loss)


_LOSS_CASES = [
    ('MarginRankingLoss', dict(margin=0.3), lambda g: (torch.randn(6, generator=g), torch.randn(6, generator=g),
                                                       torch.sign(torch.randn(6, generator=g)))),
    ('HingeEmbeddingLoss', dict(margin=0.5), lambda g: (torch.randn(4, 5, generator=g), torch.sign(torch.randn(4, 5, generator=g)))),
    ('SoftMarginLoss', {}, lambda g: (torch.randn(4, 5, generator=g), torch.sign(torch.randn(4, 5, generator=g)))),
    ('MultiLabelSoftMarginLoss', {}, lambda g: (torch.randn(4, 5, generator=g), (torch.randn(4, 5, generator=g) > 0).double())),
    ('CosineEmbeddingLoss', dict(margin=0.2), lambda g: (torch.randn(6, 4, generator=g), torch.randn(6, 4, generator=g),
                                                         torch.sign(torch.randn(6, generator=g)))),
    ('TripletMarginLoss', dict(swap=True, p=1.5), lambda g: tuple(torch.randn(5, 4, generator=g) for _ in range(3))),
    ('PoissonNLLLoss', dict(full=True), lambda g: (torch.randn(4, 5, generator=g), torch.rand(4, 5, generator=g) * 4)),
    ('PoissonNLLLoss', dict(log_input=False), lambda g: (torch.rand(4, 5, generator=g) + 0.1, torch.rand(4, 5, generator=g) * 4)),
    ('GaussianNLLLoss', dict(full=True), lambda g: (torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g),
                                                    torch.rand(4, 5, generator=g))),
    ('GaussianNLLLoss', {}, lambda g: (torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g), torch.rand(4, generator=g))),
]


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('name,kw,make', _LOSS_CASES)
def test_more_losses_against_torch(name, kw, make, reduction):
    g = torch.Generator().manual_seed(0)
    ins = [t.double() for t in make(g)]
    ours, theirs = getattr(nn, name)(reduction=reduction, **kw), getattr(torch.nn, name)(reduction=reduction, **kw)
    assert repr(ours) == repr(theirs)
    grads = [True] + [name not in ('SoftMarginLoss',)] * (len(ins) - 1)
    tin = [t.clone().requires_grad_(r) for t, r in zip(ins, grads)]
    oin = [mt(t, r) for t, r in zip(ins, grads)]
    tl, ml = theirs(*tin), ours(*oin)
    assert close(ml, tl, 1e-10)
    gr = torch.randn_like(tl)
    tl.backward(gr); ml.backward(mt(gr))
    for o, t in zip(oin, tin):
        if t.grad is not None: assert close(o.grad, t.grad, 1e-10)


def test_loss_errors_as_torch():
    with pytest.raises(ValueError, match='var is of incorrect size'):
        F.gaussian_nll_loss(minitorch.ones(4, 5), minitorch.ones(4, 5), minitorch.ones(3))
    with pytest.raises(ValueError, match='var has negative'):
        F.gaussian_nll_loss(minitorch.ones(4, 5), minitorch.ones(4, 5), -minitorch.ones(4, 5))
    with pytest.raises(ValueError, match='expected margin to be greater than 0'): nn.TripletMarginLoss(margin=0)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        F.soft_margin_loss(minitorch.ones(3), minitorch.ones(3, requires_grad=True))
    with pytest.raises(RuntimeError, match='same dimension'):
        F.margin_ranking_loss(minitorch.ones(3), minitorch.ones(3), minitorch.ones(1, 3))


@pytest.mark.parametrize('name,shape', [('InstanceNorm1d', (3, 4, 7)), ('InstanceNorm1d', (4, 7)),
                                        ('InstanceNorm2d', (2, 4, 5, 6)), ('InstanceNorm2d', (4, 5, 6))])
@pytest.mark.parametrize('kw', [{}, dict(affine=True), dict(track_running_stats=True, affine=True)])
def test_instance_norm_against_torch(name, shape, kw):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(4, dtype=torch.float64, **kw)
    ours = getattr(nn, name)(4, dtype=minitorch.float64, **kw)
    with torch.no_grad():
        for p in theirs.parameters(): p.uniform_(0.5, 1.5)
    check_module(ours, theirs, torch.randn(*shape, dtype=torch.float64), tol=1e-10)
    if theirs.track_running_stats:
        assert close(ours.running_mean, theirs.running_mean, 1e-12) and close(ours.running_var, theirs.running_var, 1e-12)
        ours.eval(); theirs.eval()
        x = torch.randn(*shape, dtype=torch.float64)
        assert close(ours(mt(x)), theirs(x), 1e-10)
    with pytest.raises(ValueError, match='input'): ours(minitorch.ones(*([2] * (len(shape) + 2))))


def test_gumbel_softmax_hard_is_straight_through():
    minitorch.manual_seed(0)
    x = minitorch.randn(8, 5, requires_grad=True)
    y = F.gumbel_softmax(x, tau=0.7, hard=True)
    assert ((y == 0) | (y == 1)).all().item() and (y.sum(-1) == 1).all().item()
    (y * minitorch.arange(5.)).sum().backward()
    assert x.grad is not None and x.grad.abs().sum().item() > 0
    soft = F.gumbel_softmax(x, tau=0.7)
    assert close(soft.sum(-1), torch.ones(8), 1e-6)


@pytest.mark.parametrize('ours,theirs,shape', [
    (lambda: nn.LPPool2d(2, 3), lambda: torch.nn.LPPool2d(2, 3), (2, 3, 7, 7)),
    (lambda: nn.LPPool2d(1.5, (2, 3), stride=1), lambda: torch.nn.LPPool2d(1.5, (2, 3), stride=1), (2, 3, 5, 6)),
    (lambda: nn.LPPool1d(3, 2, stride=1), lambda: torch.nn.LPPool1d(3, 2, stride=1), (2, 3, 8)),
    (lambda: nn.AdaptiveMaxPool1d(3), lambda: torch.nn.AdaptiveMaxPool1d(3), (2, 3, 8)),
    (lambda: nn.AdaptiveMaxPool1d(5), lambda: torch.nn.AdaptiveMaxPool1d(5), (3, 7))])
def test_lp_and_adaptive_max_pool1d(ours, theirs, shape):
    x = torch.rand(*shape, dtype=torch.float64) + 0.1
    check_module(ours(), theirs(), x, tol=1e-10)


@pytest.mark.parametrize('name,shape', [('LazyBatchNorm1d', (6, 3)), ('LazyBatchNorm1d', (6, 3, 5)),
                                        ('LazyBatchNorm2d', (4, 3, 5, 5))])
@pytest.mark.parametrize('kw', [{}, dict(affine=False), dict(track_running_stats=False), dict(momentum=None)])
def test_lazy_batchnorm_like_torch(name, shape, kw):
    ours, theirs = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert repr(ours) == repr(theirs)
    assert [type(b).__name__ for b in ours.buffers()] == [type(b).__name__ for b in theirs.buffers()]
    x = torch.randn(*shape, dtype=torch.float32)
    out, tout = ours(mt(x)), theirs(x)
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert close(out, tout, 1e-5)
    for (n, b), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert close(b, tb, 1e-6), n


@pytest.mark.parametrize('name,args,kw,shape', [
    ('ConvTranspose2d', (4, 6, 3), {}, (2, 4, 5, 5)),
    ('ConvTranspose2d', (4, 6, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 5, 6)),
    ('ConvTranspose2d', (4, 6, (3, 2)), dict(stride=(2, 1), dilation=2, groups=2, bias=False), (2, 4, 4, 5)),
    ('ConvTranspose2d', (100, 8, 4), dict(stride=1, padding=0, bias=False), (3, 100, 1, 1)),   # DCGAN's first layer
    ('ConvTranspose2d', (8, 3, 4), dict(stride=2, padding=1, bias=False), (3, 8, 4, 4)),       # and its upsampling
    ('ConvTranspose2d', (4, 6, 3), dict(stride=2), (4, 5, 5)),
    ('ConvTranspose1d', (4, 6, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 7)),
    ('ConvTranspose1d', (4, 6, 5), dict(dilation=2, padding=5), (2, 4, 9))])
def test_conv_transpose_against_torch(name, args, kw, shape):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, dtype=torch.float64, **kw)
    ours = getattr(nn, name)(*args, dtype=minitorch.float64, **kw)
    check_module(ours, theirs, torch.randn(*shape, dtype=torch.float64), tol=1e-10)
    bound = 1 / math.sqrt(ours.weight[0].numel())       # kaiming_uniform(a=√5) on fan_in = (C_out/groups)·k
    assert ours.weight.abs().max().item() <= bound


def test_conv_transpose_output_size_and_errors():
    ours, theirs = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = torch.randn(1, 3, 5, 5)
    ours.load_state_dict({k: mt(v) for k, v in theirs.state_dict().items()})
    assert close(ours(mt(x), output_size=[10, 10]), theirs(x, output_size=[10, 10]), 1e-5)
    with pytest.raises(ValueError, match='Only "zeros" padding mode'): nn.ConvTranspose2d(3, 2, 3, padding_mode='reflect')
    with pytest.raises(RuntimeError, match='output padding must be smaller'):
        F.conv_transpose2d(minitorch.ones(1, 3, 4, 4), minitorch.ones(3, 2, 3, 3), output_padding=1)


@pytest.mark.parametrize('ours,theirs,shape', [
    (lambda: nn.UpsamplingNearest2d(scale_factor=2), lambda: torch.nn.UpsamplingNearest2d(scale_factor=2), (2, 3, 4, 5)),
    (lambda: nn.UpsamplingBilinear2d(size=(7, 9)), lambda: torch.nn.UpsamplingBilinear2d(size=(7, 9)), (2, 3, 4, 5)),
    (lambda: nn.ChannelShuffle(3), lambda: torch.nn.ChannelShuffle(3), (2, 6, 4, 5)),
    (lambda: nn.RReLU().eval(), lambda: torch.nn.RReLU().eval(), (3, 7))])
def test_upsampling_shuffle_rrelu_modules(ours, theirs, shape):
    check_module(ours(), theirs(), torch.randn(*shape, dtype=torch.float64), tol=1e-10)


@pytest.mark.parametrize('name,args', [('elu_', (0.7,)), ('leaky_relu_', (0.2,)), ('hardtanh_', (-0.5, 0.5)),
                                       ('selu_', ()), ('celu_', (1.5,)), ('threshold_', (0.1, -2.0)), ('relu_', ())])
def test_inplace_functional_activations(name, args):
    x = torch.randn(4, 5, dtype=torch.float64)
    ours, theirs = mt(x), x.clone()
    r = getattr(F, name)(ours, *args)
    getattr(tF, name)(theirs, *args)
    assert r is ours and close(ours, theirs, 1e-12)


def test_functional_reexports_linear_act():
    """11_nn_layers (minitorch.nn.linear_act) was split off nn.functional (now 11_nn_unfold_conv): every function and
    class it defines is also F's (the same object, or its dispatch door), and it never imports F at load time (no import cycle)."""
    import inspect
    import minitorch.nn.linear_act as la
    defined = [n for n, o in vars(la).items()
               if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == la.__name__]
    assert len(defined) > 20
    same = lambda f, g: f is g or getattr(f, '__wrapped__', None) is g   # F's public ops are behind dispatch doors
    assert [n for n in defined if not same(getattr(F, n, None), vars(la)[n])] == []
    assert set(la.__all__) <= set(F.__all__)
    src = inspect.getsource(la)
    assert 'from .functional import' not in src and 'from minitorch.nn import functional' not in src
    for name in ('Linear', 'Identity', 'ReLU', 'GELU', 'Softmax', 'Flatten', 'Conv1d', 'Conv2d'):
        assert getattr(nn, name) is getattr(nn.modules, name)
